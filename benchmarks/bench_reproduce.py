"""The time of ``qtheory reproduce`` at its standard and paper-grade sizes, from an empty
result cache, as a new user meets it.

    python benchmarks/bench_reproduce.py            # the standard (default) size
    python benchmarks/bench_reproduce.py --paper    # also the paper-grade size
    python benchmarks/bench_reproduce.py --paper --keep DIR   # keep the paper run's outputs

Each size runs as ``qtheory reproduce [--paper] --out TMP`` in a fresh process with
``QTHEORY_CACHE_DIR`` pointed at a fresh temporary directory; wall time and the printed
claims summary are recorded.  Results go to ``benchmarks/reproduce_times.json``; under
``"readme"`` are the rounded strings the README quotes (``tests/test_docs.py`` checks
that they appear there).  The quick size is measured by ``bench_readme_times.py``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = Path(__file__).resolve().parent / "reproduce_times.json"
QTHEORY = str(Path(sys.executable).parent / "qtheory")


def run_size(flags: list[str], keep: Path | None) -> dict:
    """One ``qtheory reproduce`` from an empty cache: wall seconds and the claims line."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, QTHEORY_CACHE_DIR=cache)
        start = time.perf_counter()
        done = subprocess.run(
            [QTHEORY, "reproduce", *flags, "--out", out],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        seconds = time.perf_counter() - start
        if keep is not None:
            for part in ("derivations", "figures"):
                shutil.copytree(Path(out) / part, keep / part, dirs_exist_ok=True)
    claims = next(line for line in done.stdout.splitlines() if line.startswith("claims: "))
    return {"seconds": seconds, "claims": claims}


def minutes(seconds: float) -> str:
    """``2 min 35 s``: the README's form of a run time."""
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paper", action="store_true", help="also time the paper-grade size")
    parser.add_argument("--keep", type=Path, help="copy the paper run's outputs here")
    args = parser.parse_args()
    record = json.loads(OUTPUT.read_text()) if OUTPUT.exists() else {"readme": {}}
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    record.update(measured=str(datetime.date.today()), commit=commit, cpus=os.cpu_count())
    sizes = [("standard", [], None)] + ([("paper", ["--paper"], args.keep)] if args.paper else [])
    for name, flags, keep in sizes:
        result = run_size(flags, keep)
        record[name] = result
        record["readme"][name] = minutes(result["seconds"])
        print(f"{name:9s} {minutes(result['seconds']):>12s}   {result['claims']}", flush=True)
    OUTPUT.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
