"""The reliability campaign: fuzzing, hostile model files, faults and load; RELIABILITY.md.

Usage: ``python -m benchmarks.fuzz [--part PART ...] [--examples N] [--files M] [--jobs J]
[--no-write]``. Parts (default: all, in this order):

``estimators``
    generated inputs for every public estimator (``--examples`` cases each);
``files``
    hostile model files for ``kernelkit.load`` (``--files`` cases);
``faults``
    a Dask worker killed mid-fit, the CLI interrupted, requests past the memory budget;
``load``
    concurrent predict, repeated fit/predict cycles (``--cycles``), a large CSV through the
    CLI (``--csv-mb``).

Each part's table replaces its section of RELIABILITY.md (unless ``--no-write``); the exit
status is 1 when any part found a failure.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys
import time

from ._reliability import write_part

PARTS = ["estimators", "files", "faults", "load"]


def _size(part: str, args) -> int:
    return {"estimators": args.examples, "files": args.files, "faults": 1,
            "load": args.cycles}[part]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--part", action="append", choices=PARTS,
                   help="part to run (repeatable; default all)")
    p.add_argument("--examples", type=int, default=5000,
                   help="generated cases per estimator (default 5000)")
    p.add_argument("--files", type=int, default=10000,
                   help="hostile model files (default 10000)")
    p.add_argument("--cycles", type=int, default=1000,
                   help="fit/predict cycles per estimator in the load part (default 1000)")
    p.add_argument("--csv-mb", type=int, default=1024,
                   help="size of the CSV streamed through `kernelkit predict` (default 1024)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="worker processes (default: every core)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-write", action="store_true", help="do not update RELIABILITY.md")
    args = p.parse_args(argv)
    os.environ["KERNELKIT_FUZZ_CSV_MB"] = str(args.csv_mb)
    context = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    failures = 0
    for part in args.part or PARTS:
        mod = importlib.import_module(f"benchmarks._rel_{part}")
        t0 = time.perf_counter()
        table = mod.campaign(_size(part, args), args.jobs, args.seed)
        took = time.perf_counter() - t0
        print(f"\n## {table.title} ({took:.0f} s, failures: {table.failures})\n")
        print(table.markdown())
        for line in table.details:
            print("FAILURE", line, file=sys.stderr)
        failures += table.failures
        if not args.no_write:
            command = "python -m benchmarks.fuzz " + " ".join(
                argv if argv is not None else sys.argv[1:])
            write_part(part, table, f"{context}; {took:.0f} s", command.strip())
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
