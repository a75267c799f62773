"""Run benchmarks and update BENCHMARKS.md.

Usage: ``python -m benchmarks.run [name ...] [--quick] [--no-write]`` where ``name`` is
the part after ``bench_`` (e.g. ``kernels``). With no names every bench runs.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import platform

from ._harness import print_rows, write_section


def discover() -> list[str]:
    import benchmarks

    return sorted(m.name[len("bench_"):] for m in pkgutil.iter_modules(benchmarks.__path__)
                  if m.name.startswith("bench_"))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("names", nargs="*", help=f"benches to run (default all): {discover()}")
    p.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    p.add_argument("--no-write", action="store_true", help="do not update BENCHMARKS.md")
    args = p.parse_args(argv)
    names = args.names or discover()
    unknown = set(names) - set(discover())
    if unknown:
        p.error(f"unknown bench(es) {sorted(unknown)}; available: {discover()}")
    context = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    for name in names:
        mod = importlib.import_module(f"benchmarks.bench_{name}")
        title = (mod.__doc__ or name).strip().splitlines()[0]
        rows = mod.run(quick=args.quick)
        print_rows(title, rows)
        if not args.no_write and not args.quick:
            write_section(name, title, rows, context)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
