"""The time of ``qtheory reproduce`` at its standard and paper-grade sizes, from an empty
result cache, as a new user meets it.

    python benchmarks/bench_reproduce.py            # the standard (default) size
    python benchmarks/bench_reproduce.py --paper    # also the paper-grade size
    python benchmarks/bench_reproduce.py --paper --keep DIR   # keep the paper run's outputs
    python benchmarks/bench_reproduce.py --quick    # also the quick size

The seconds of every step go to ``qtheory/report/step_costs.py``, the weights of the
progress bar of ``qtheory reproduce``.

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
STEP_COSTS = ROOT / "qtheory" / "report" / "step_costs.py"
QTHEORY = str(Path(sys.executable).parent / "qtheory")


def run_size(flags: list[str], keep: Path | None) -> dict:
    """One ``qtheory reproduce`` from an empty cache: wall seconds, the claims line and
    the seconds of each step (``QTHEORY_STEP_TIMES``)."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
        times = Path(cache) / "step_times.json"
        env = dict(os.environ, QTHEORY_CACHE_DIR=cache, QTHEORY_STEP_TIMES=str(times))
        start = time.perf_counter()
        done = subprocess.run(
            [QTHEORY, "reproduce", *flags, "--out", out],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        seconds = time.perf_counter() - start
        steps = json.loads(times.read_text())["seconds"]
        if keep is not None:
            for part in ("derivations", "figures"):
                shutil.copytree(Path(out) / part, keep / part, dirs_exist_ok=True)
    claims = next(line for line in done.stdout.splitlines() if line.startswith("claims: "))
    return {"seconds": seconds, "claims": claims, "steps": steps}


def write_step_costs(record: dict) -> None:
    """The measured step seconds of every size as :mod:`qtheory.report.step_costs`, the
    weights of the reproduce progress bar (sizes this run did not time keep theirs)."""
    from qtheory.report.step_costs import STEP_SECONDS

    measured = {
        size: {name: round(value, 2) for name, value in record[size]["steps"].items()}
        for size in ("quick", "standard", "paper")
        if "steps" in record.get(size, {})
    }
    sizes = {**STEP_SECONDS, **measured}  # a size not timed in this run keeps its weights
    head, _, _ = STEP_COSTS.read_text().partition("STEP_SECONDS")
    lines = ["STEP_SECONDS: dict[str, dict[str, float]] = {"]
    for size, steps in sizes.items():  # in the layout ruff format keeps
        lines += [f"    {json.dumps(size)}: {{"]
        lines += [f"        {json.dumps(name)}: {value!r}," for name, value in steps.items()]
        lines += ["    },"]
    STEP_COSTS.write_text(head + "\n".join([*lines, "}"]) + "\n")


def minutes(seconds: float) -> str:
    """``2 min 35 s``: the README's form of a run time."""
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="also time the quick size")
    parser.add_argument("--paper", action="store_true", help="also time the paper-grade size")
    parser.add_argument("--keep", type=Path, help="copy the paper run's outputs here")
    args = parser.parse_args()
    record = json.loads(OUTPUT.read_text()) if OUTPUT.exists() else {"readme": {}}
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    record.update(measured=str(datetime.date.today()), commit=commit, cpus=os.cpu_count())
    sizes = (
        ([("quick", ["--quick"], None)] if args.quick else [])
        + [("standard", [], None)]
        + ([("paper", ["--paper"], args.keep)] if args.paper else [])
    )
    for name, flags, keep in sizes:
        result = run_size(flags, keep)
        record[name] = result
        if name != "quick":
            record["readme"][name] = minutes(result["seconds"])
        print(f"{name:9s} {minutes(result['seconds']):>12s}   {result['claims']}", flush=True)
    OUTPUT.write_text(json.dumps(record, indent=2) + "\n")
    write_step_costs(record)


if __name__ == "__main__":
    main()
