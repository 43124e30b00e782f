"""Erlang-m gates, the Coxian search and the ladder, with timings.

    python benchmarks/bench_phase_gates.py

For μ = C = 1:

- ``optima``: the Erlang-m optimum (τ*, S*) at Λ = ∞ for ν ∈ {1.5, 2, 5, 10} and
  m ∈ {1, 2, 3, 4, 8, 16, 32, 64} to 20 digits (``dps=20``), the float64 value's
  relative error against it, and the time of one float64 and one 20-digit optimum;
- ``pof``: PoF(m) and the share of GA's gain for m = 1..64 on the (Λ, ν) grid
  Λ ∈ {∞, 5, 2, 0.5}, ν ∈ {1.5, 2, 5, 20}, with the time of each table (at Λ = 0.5,
  ν = 20 GA's optimal gate is 0: every policy admits everybody, PoF(m) = 1);
- ``coxian``: the best Coxian-m gate found (m = 2, 3, 4; 8 starts) against Erlang-m on
  the same grid, its relative gap and time;
- ``ladder``: the time of ``ladder(queue)`` (m = 1..8, with the full-memory bracket)
  at three points.

Writes ``benchmarks/phase_gates.json``.
"""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

import mpmath

from qtheory.gated.ladder import ladder
from qtheory.gated.phase_gates import coxian_search, optimal_erlang_gate, pof_by_phases
from qtheory.model.gated import GatedQueue

ARRIVALS = ("inf", 5.0, 2.0, 0.5)
RATIOS = (1.5, 2.0, 5.0, 20.0)
OPTIMA_RATIOS = (1.5, 2.0, 5.0, 10.0)
OPTIMA_PHASES = (1, 2, 3, 4, 8, 16, 32, 64)


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def optima() -> list[dict]:
    rows = []
    for nu in OPTIMA_RATIOS:
        queue = GatedQueue("inf", 1, nu, 1)
        for m in OPTIMA_PHASES:
            fast, fast_seconds = timed(lambda q=queue, m=m: optimal_erlang_gate(q, m))
            precise, precise_seconds = timed(lambda q=queue, m=m: optimal_erlang_gate(q, m, dps=20))
            rows.append(
                {
                    "nu": nu,
                    "m": m,
                    "gate": mpmath.nstr(precise.gate, 20),
                    "welfare": mpmath.nstr(precise.welfare, 20),
                    "float64_gate_relative_error": abs(fast.gate / float(precise.gate) - 1),
                    "float64_welfare_relative_error": abs(
                        fast.welfare / float(precise.welfare) - 1
                    ),
                    "seconds_float64": fast_seconds,
                    "seconds_dps20": precise_seconds,
                }
            )
    return rows


def pof() -> list[dict]:
    rows = []
    for arrival in ARRIVALS:
        for nu in RATIOS:
            table, seconds = timed(lambda a=arrival, n=nu: pof_by_phases(GatedQueue(a, 1, n, 1)))
            rows.append(
                {
                    "arrival_rate": arrival,
                    "nu": nu,
                    "welfare_rr": table.welfare_rr,
                    "welfare_ga": table.welfare_ga,
                    "pof_ga": table.pof_ga,
                    "ga_at_boundary": table.ga_at_boundary,
                    "pof": list(table.pof),
                    "share": list(table.share),
                    "seconds": seconds,
                }
            )
    return rows


def coxian() -> list[dict]:
    rows = []
    for arrival in ARRIVALS:
        for nu in RATIOS:
            for m in (2, 3, 4):
                found, seconds = timed(
                    lambda a=arrival, n=nu, m=m: coxian_search(GatedQueue(a, 1, n, 1), m, starts=8)
                )
                rows.append(
                    {
                        "arrival_rate": arrival,
                        "nu": nu,
                        "m": m,
                        "welfare_coxian": found.welfare,
                        "welfare_erlang": found.welfare_erlang,
                        "relative_gap": found.relative_gap,
                        "rates": list(found.rates),
                        "continue_probabilities": list(found.continue_probabilities),
                        "seconds": seconds,
                    }
                )
    return rows


def ladders() -> list[dict]:
    rows = []
    for arrival, nu in (("inf", 2.0), (3.0, 2.0), (2.0, 5.0)):
        result, seconds = timed(lambda a=arrival, n=nu: ladder(GatedQueue(a, 1, n, 1)))
        rows.append({"arrival_rate": arrival, "nu": nu, "ladder": result.to_json(),
                     "seconds": seconds})  # fmt: skip
    return rows


def main() -> None:
    results = {
        "machine": platform.platform(),
        "optima": optima(),
        "pof": pof(),
        "coxian": coxian(),
        "ladder": ladders(),
    }
    worst = max(r["float64_welfare_relative_error"] for r in results["optima"])
    gaps = max(r["relative_gap"] for r in results["coxian"])
    print(f"float64 welfare worst relative error: {worst:.2e}")
    print(f"largest Coxian gain over Erlang (relative): {gaps:.2e}")
    increasing = all(
        all(b > a for a, b in zip(r["pof"], r["pof"][1:], strict=False))
        for r in results["pof"]
        if not r["ga_at_boundary"]
    )
    print(f"PoF(m) strictly increasing wherever GA's optimal gate is > 0: {increasing}")
    path = Path(__file__).with_name("phase_gates.json")
    path.write_text(json.dumps(results, indent=1, default=float) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
