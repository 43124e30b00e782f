"""The n-class reproduce section (qtheory.report.lossnet_classes) at one size of run.

    python benchmarks/bench_lossnet_class_outputs.py [quick|standard|paper] [--cache DIR]

Runs the section's steps into a temporary folder (the replications cached in DIR,
default a fresh temporary folder, so the times are those of a cold run) and writes
``benchmarks/lossnet_class_outputs_<size>.json``: wall and CPU seconds of each step
(the CPU of the parent process only: pool workers are not counted), then per parameter
set the decomposition at every N (regret, C_vol, C_long^+ and C_short^- at the largest
c, R_off - R_PFI, the threshold check, with 95% half-widths), the fitted slopes against
c(n), the lookahead curve at the largest N, and every claim's verdict and value.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from qtheory.report import lossnet_classes as class_outputs
from qtheory.report.lossnet_decomposition_sweep import Sweep
from qtheory.report.run import Run

HERE = Path(__file__).parent


def _estimate(e) -> dict[str, float]:
    return {"mean": e.mean, "halfwidth": e.halfwidth}


def _set_record(s: Sweep) -> dict:
    f, c = s.fits, s.fits.table_c
    return {
        "label": s.label,
        "lambdas": list(s.net.lambdas),
        "rewards": list(s.net.rewards),
        "marginal_class": s.net.marginal + 1,
        "leading_constant": f.leading_constant,
        "table_c": c,
        "points": [
            {
                "servers": p.servers,
                "reserves": list(p.reserve),
                "regret": p.regret,
                "window": p.horizon - p.warmup,
                "reps": p.reps,
                "c_vol": _estimate(p.c_vol),
                "c_long": _estimate(p.at(c).c_long),
                "c_short": _estimate(p.at(c).c_short),
                "pfi_gap": _estimate(p.pfi_gap),
                "threshold_check": _estimate(p.threshold_check),
            }
            for p in s.clock
        ],
        "slopes": {
            "regret": _estimate(f.regret.slope),
            "c_vol": _estimate(f.c_vol.slope),
            "c_long": _estimate(f.c_long_at(c).slope),
            "c_short": _estimate(f.c_short.slope),
            "flat_from": f.bounded_from,
        },
        "lookahead": [{"c": q.c, "c_long": _estimate(q.c_long)} for q in s.clock[-1].lookahead],
    }


def main(size: str, cache: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["QTHEORY_CACHE_DIR"] = cache or str(Path(tmp) / "cache")
        run = Run(Path(tmp) / "out", quick=size == "quick", paper=size == "paper")
        sweeps: list[Sweep] = []
        original = class_outputs.sweep

        def keep(*args, **kwargs):
            sweeps.extend(original(*args, **kwargs))
            return sweeps

        class_outputs.sweep = keep
        steps = []
        for name, step in class_outputs.steps(run):
            wall, cpu = time.perf_counter(), time.process_time()
            step()
            steps.append({"step": name, "wall_seconds": time.perf_counter() - wall,
                          "cpu_seconds": time.process_time() - cpu})  # fmt: skip
    record = {
        "machine": platform.platform(),
        "size": size,
        "cold_cache": cache is None,
        "steps": steps,
        "sets": [_set_record(s) for s in sweeps],
        "claims": [
            {"name": c.name, "kind": str(c.kind), "passed": c.passed, "value": c.value}
            for c in run.claims
        ],
    }
    out = HERE / f"lossnet_class_outputs_{size}.json"
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    args = sys.argv[1:]
    cache_dir = args[args.index("--cache") + 1] if "--cache" in args else None
    main(args[0] if args and not args[0].startswith("--") else "standard", cache_dir)
