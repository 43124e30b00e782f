"""The n-class online optimum: speed at N = 10^6 and the regret's leading constant.

    python benchmarks/bench_lossnet_classes.py

Writes ``benchmarks/lossnet_classes.json``:

- ``speed``: wall-clock (best of 3) and CPU time of
  :func:`qtheory.lossnet.online.online_optimum` for n = 4 at N = 10^5, 10^6 (target:
  under 10 s at 10^6), with the policy-iteration count and the reserves.
- ``offset``: for each parameter set, regret − c log N of the nested optimum on 13
  log-spaced N from 10^3 to 10^6, c = r_m μ / log(μ/Λ_{m-1}); the range (max − min)
  against 0.2 c log 10, and the same over 10^4..10^6 (the approach from 10^3 is slow
  where θ = log(μ/Λ_{m-1}) is large: the integer reserve then moves in big steps).
"""

from __future__ import annotations

import json
import math
import platform
import time
from pathlib import Path

import numpy as np
from timing import best_of

from qtheory.lossnet.claims import bounded_offset_claim
from qtheory.lossnet.online import online_optimum
from qtheory.lossnet.regret import leading_constant, regret_curve
from qtheory.model.lossnet import LossNetwork

OUT = Path(__file__).with_name("lossnet_classes.json")

#: Parameter sets: the three of tests/lossnet/test_class_regret.py, then one with the
#: marginal class in the middle of three and a large θ (= log(1/0.3) = 1.20).
NETS = {
    "4 classes, marginal 3": LossNetwork(10, (0.3, 0.5, 0.6, 0.2), (4, 3, 2, 1), 1.0),
    "4 classes, marginal 4": LossNetwork(10, (0.2, 0.3, 0.2, 0.9), (5, 3, 2, 1), 1.0),
    "4 classes, marginal 3, close rewards": LossNetwork(
        10, (0.5, 0.3, 0.4, 0.4), (2, 1.9, 1.5, 1), 1.0
    ),
    "3 classes, marginal 2": LossNetwork(10, (0.3, 0.9, 0.6), (3, 2, 1), 1.0),
}


def speed() -> list[dict]:
    net = NETS["4 classes, marginal 3"]
    rows = []
    for n in (10**5, 10**6):
        scaled = net.with_servers(n)
        cpu = time.process_time()
        opt = online_optimum(scaled)
        cpu = time.process_time() - cpu
        wall = best_of(3, lambda: online_optimum(scaled))  # noqa: B023
        rows.append(
            {
                "servers": n,
                "classes": scaled.n_classes,
                "wall_seconds_best_of_3": wall,
                "cpu_seconds": cpu,
                "iterations": opt.iterations,
                "reserves": list(opt.reserves),
                "regret": opt.regret,
            }
        )
        print(
            f"N = {n:>9,}: {wall:.2f} s wall (best of 3), {cpu:.2f} s CPU, "
            f"{opt.iterations} iterations, reserves {opt.reserves}"
        )
    return rows


def offsets(label: str, net: LossNetwork) -> dict:
    grid = np.unique(np.round(np.logspace(3, 6, 13)).astype(int)).tolist()
    start = time.perf_counter()
    points = regret_curve(net, grid)
    seconds = time.perf_counter() - start
    c = leading_constant(net)
    values = [p.regret - c * math.log(p.servers) for p in points]
    claim = bounded_offset_claim(net, points)
    late = bounded_offset_claim(net, [p for p in points if p.servers >= 10**4])
    print(
        f"{label}: c = {c:.4f}, range {claim.value:.3f} vs {claim.tolerance:.3f} "
        f"({'pass' if claim.passed else 'FAIL'}); from 10^4 {late.value:.3f}"
    )
    return {
        "label": label,
        "lambdas": list(net.lambdas),
        "rewards": list(net.rewards),
        "mu": net.mu,
        "marginal_class": net.marginal + 1,
        "c": c,
        "servers": grid,
        "regret": [p.regret for p in points],
        "reserves": [list(p.reserves) for p in points],
        "offset": values,
        "range": claim.value,
        "tolerance": claim.tolerance,
        "passed": claim.passed,
        "range_from_1e4": late.value,
        "passed_from_1e4": late.passed,
        "seconds": seconds,
    }


def main() -> None:
    result = {
        "machine": platform.platform(),
        "speed": speed(),
        "offset": [offsets(label, net) for label, net in NETS.items()],
    }
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
