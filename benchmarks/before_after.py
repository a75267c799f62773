"""Before/after of benchmark rows in one process: an earlier commit's kernelkit beside this one.

This machine's speed moves by 20-70% between processes (and within one, over minutes), so
two runs of a bench in separate processes cannot show a 20% change. Here both versions run
in the same process, alternating: the earlier commit's ``src/kernelkit`` is copied (``git
archive``) into a temporary folder as the package ``kernelkit_old`` (its absolute imports
renamed), and while "old" is selected an import hook answers every ``kernelkit...`` import
with the matching ``kernelkit_old...`` module, so the benches (this tree's, unchanged) time
the old code; the new modules are put back for "new". Private modules that moved
(``kernelkit._core.X``, formerly ``kernelkit._X``) are mapped too.

Each version's numba code is compiled and cached on its first use, so time a bench only
after a run that compiled it (``--warm`` runs the benches at quick sizes first, for both;
``--old-dir`` keeps the earlier tree, and so its compiled code, for the next run).
Rows whose medians differ by more than 15% are flagged; re-check such a row with its
fit alone, old and new alternating several times, before calling it a change.

Usage::

    python -m benchmarks.before_after REV kpca,gp [--warm] [--quick] [--rounds N]
        [--out results.jsonl] [--old-dir DIR]
    python -m benchmarks.before_after --compare results.jsonl
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.abc
import importlib.util
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_OLD = "kernelkit_old"


def export_old(rev: str, dest: Path) -> None:
    """``src/kernelkit`` at ``rev`` into ``dest/kernelkit_old``, its imports renamed."""
    tar = subprocess.run(["git", "archive", rev, "src/kernelkit"], cwd=ROOT, check=True,
                         capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
        try:
            tf.extractall(dest, filter="data")
        except TypeError:  # Python < 3.11.4: no filter argument (our own archive)
            tf.extractall(dest)
    (dest / "src" / "kernelkit").rename(dest / _OLD)
    pattern = re.compile(r"\bfrom kernelkit(?=[. ])|\bimport kernelkit(?=[. \n])"
                         r"""|(?<=["'])kernelkit(?=\.)""")
    for path in (dest / _OLD).rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        new = pattern.sub(lambda m: m.group(0).replace("kernelkit", _OLD), text)
        if new != text:
            path.write_text(new, encoding="utf-8")


def prepare_old(rev: str, dest: Path) -> Path:
    """``dest`` holding ``rev``'s tree as ``kernelkit_old``: exported unless already there (a
    kept ``--old-dir`` is reused with the numba cache its earlier runs compiled). The commit
    is recorded in ``dest/REV``; a folder holding another commit is refused, not reused."""
    commit = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout.strip()
    if (dest / _OLD).is_dir():
        held = (dest / "REV").read_text().strip() if (dest / "REV").is_file() else "unknown"
        if held != commit:
            raise SystemExit(f"{dest} holds commit {held}, not {rev} ({commit}); give another "
                             "--old-dir or remove it.")
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    export_old(commit, dest)
    (dest / "REV").write_text(commit + "\n")
    return dest


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """While ``active``, ``kernelkit.X`` imports resolve to ``kernelkit_old.X``."""

    active = False

    def __init__(self, flat_core: bool):
        self.specs = {}  # id(module) -> the module's own spec (the import system sets ours)
        self.flat_core = flat_core  # the old tree has kernelkit._X, not kernelkit._core.X

    def find_spec(self, fullname, path, target=None):
        if self.active and (fullname == "kernelkit" or fullname.startswith("kernelkit.")):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        parts = spec.name.split(".")
        if self.flat_core and parts[1:2] == ["_core"]:  # its modules were flat before
            if len(parts) == 2:
                module = types.ModuleType(f"{_OLD}._core")
                module.__path__ = []
                self.specs[id(module)] = None
                return module
            name = f"{_OLD}._{parts[2]}"
        else:
            name = _OLD + spec.name[len("kernelkit"):]
        module = importlib.import_module(name)
        self.specs[id(module)] = module.__spec__
        return module

    def exec_module(self, module):
        module.__spec__ = self.specs[id(module)]


class Versions:
    """Switch the process between the old and the new kernelkit (and the benches that
    imported either)."""

    def __init__(self, old_root: Path):
        sys.path.insert(0, str(old_root))
        self.alias = _Alias(flat_core=not (old_root / _OLD / "_core").exists())
        sys.meta_path.insert(0, self.alias)
        self.saved = {"old": {}, "new": {}}
        # the process starts with this tree's code: whatever of ours is imported already
        # (a bench module imported for its data functions) is "new", set aside at the first
        # switch to "old" (with None it stayed in sys.modules and was taken as the old code)
        self.current = "new"

    @staticmethod
    def _ours(name: str) -> bool:
        return (name == "kernelkit" or name.startswith("kernelkit.")
                or name.startswith("benchmarks.bench_") or name == "benchmarks._data")

    def use(self, which: str) -> None:
        if self.current == which:
            return
        if self.current is not None:
            keep = self.saved[self.current]
            for name in [m for m in sys.modules if self._ours(m)]:
                keep[name] = sys.modules.pop(name)
        sys.modules.update(self.saved[which])
        self.alias.active = which == "old"
        self.current = which


def run(versions: Versions, benches, order, quick, out, rounds=1) -> None:
    for name in benches:
        for r in range(rounds):
            for which in order if r % 2 == 0 else order[::-1]:
                versions.use(which)
                try:
                    mod = importlib.import_module(f"benchmarks.bench_{name}")
                    gc.collect()
                    t = time.perf_counter()
                    rows = mod.run(quick=quick)
                except Exception as e:  # an API the old code lacks
                    print(f"{name} {which}: {type(e).__name__}: {str(e)[:200]}", flush=True)
                    continue
                for row in rows:
                    out.write(json.dumps(dict(bench=name, which=which, quick=quick,
                                              row=row.name, ours=row.ours_s,
                                              load=os.getloadavg()[0])) + "\n")
                out.flush()
                print(f"{name} {which}: {len(rows)} rows in {time.perf_counter() - t:.0f} s",
                      flush=True)


def compare(path: str, threshold: float = 1.15) -> None:
    """Median seconds per row, old and new, and new / old (flagged above ``threshold``)."""
    rows, order = {}, []
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        key = (r["bench"], r["row"])
        if key not in rows:
            rows[key] = {"old": [], "new": []}
            order.append(key)
        if r["ours"] is not None:
            rows[key][r["which"]].append(r["ours"])
    print("| bench | row | old s | new s | new/old |\n|---|---|---|---|---|")
    for key in order:
        o, n = rows[key]["old"], rows[key]["new"]
        mo = statistics.median(o) if o else None
        mn = statistics.median(n) if n else None
        if mo is None or mn is None or mo <= 0:  # a row one version lacks (or untimed)
            print(f"| {key[0]} | {key[1]} | {mo if mo is not None else '—'} | "
                  f"{mn if mn is not None else '—'} | — |")
            continue
        flag = " (re-check)" if mn > threshold * mo else ""
        print(f"| {key[0]} | {key[1]} | {mo:.4g} | {mn:.4g} | {mn / mo:.2f}{flag} |")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rev", nargs="?", help="the earlier commit")
    p.add_argument("benches", nargs="?", help="comma-separated names after bench_")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--warm", action="store_true", help="quick runs of both versions first")
    p.add_argument("--rounds", type=int, default=1, help="alternations (old/new, new/old...)")
    p.add_argument("--out", default="before_after.jsonl")
    p.add_argument("--old-dir", metavar="DIR",
                   help="keep the earlier tree (and its numba cache) in DIR and reuse it")
    p.add_argument("--compare", metavar="JSONL", help="print the table of a results file")
    args = p.parse_args(argv)
    if args.compare:
        compare(args.compare)
        return 0
    if not (args.rev and args.benches):
        p.error("give REV and BENCHES, or --compare FILE")
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="kk-before-") as tmp:
        versions = Versions(prepare_old(args.rev, Path(args.old_dir or tmp)))
        benches = args.benches.split(",")
        if args.warm:
            run(versions, benches, ["old", "new"], True, open(os.devnull, "w"))
        with open(args.out, "a", encoding="utf-8") as out:
            run(versions, benches, ["old", "new"], args.quick, out, args.rounds)
    compare(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
