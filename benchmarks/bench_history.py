"""The full-memory bracket of qtheory.gated.history on a (Λ, ν) grid, with timings.

    python benchmarks/bench_history.py

For μ = C = 1, ν = R ∈ {1.5, 2, 5} and Λ ∈ {∞, 10, 3, 1.5, 0.5}: GA's optimum, the
bracket (lower: best two-level gap-dependent gate; upper: the smaller of the
relaxation and the regular-arrivals bound), the relaxation's bound and the gain of its
grid policy (their difference is the certificate's slack), its top-state mass, the
three-level gap gate, the best belief-threshold policy (simulated: fixed seed, 95%
half-width), the gains over GA in percent, and the wall time of the default call
``full_memory_bracket(queue)``.  Also the relaxation's sensitivity to the cap K
and the grid at one point.  Writes ``benchmarks/history.json``.
"""

from __future__ import annotations

import json
import math
import platform
import time
from pathlib import Path

from qtheory.gated.belief import optimal_belief_threshold
from qtheory.gated.gap_gates import _optimal_gap_gate, optimal_gap_gate
from qtheory.gated.history import full_memory_bracket
from qtheory.gated.relaxation import _observed_relaxation, observed_relaxation
from qtheory.model.gated import GatedQueue

ARRIVALS = (math.inf, 10.0, 3.0, 1.5, 0.5)
RATIOS = (1.5, 2.0, 5.0)


def row(arrival: float, ratio: float) -> dict:
    queue = GatedQueue(arrival, 1.0, ratio, 1.0)
    _optimal_gap_gate.cache_clear()  # time the computation, not the cache
    _observed_relaxation.cache_clear()
    start = time.perf_counter()
    bracket = full_memory_bracket(queue)
    seconds = time.perf_counter() - start
    three = None if math.isinf(arrival) else optimal_gap_gate(queue, levels=3).welfare
    start = time.perf_counter()
    belief = None if math.isinf(arrival) else optimal_belief_threshold(queue)
    belief_seconds = time.perf_counter() - start
    return {
        "arrival_rate": "inf" if math.isinf(arrival) else arrival,
        "nu": ratio,
        "ga": bracket.ga,
        "lower": bracket.lower,
        "upper": bracket.upper,
        "width": bracket.width,
        "upper_is": "regular" if bracket.upper == bracket.regular else "relaxation",
        "relaxation_upper": bracket.relaxation.upper,
        "relaxation_grid_gain": bracket.relaxation.gain,
        "relaxation_top_mass": bracket.relaxation.top_mass,
        "gap_gate_3_levels": three,
        "belief_threshold": None if belief is None else belief.threshold,
        "belief_welfare": None if belief is None else belief.welfare.mean,
        "belief_halfwidth_95": None if belief is None else belief.welfare.halfwidth,
        "belief_gain_percent": None
        if belief is None
        else 100 * (belief.welfare.mean / bracket.ga - 1),
        "belief_seconds": belief_seconds,
        "gain_lower_percent": 100 * (bracket.lower / bracket.ga - 1),
        "gain_upper_percent": 100 * (bracket.upper / bracket.ga - 1),
        "lower_policy": bracket.lower_policy,
        "seconds": seconds,
    }


def sensitivity() -> list[dict]:
    queue = GatedQueue(0.5, 1.0, 2.0, 1.0)
    rows = []
    for states, grid in ((24, 400), (48, 2400), (96, 2400), (48, 9600)):
        _observed_relaxation.cache_clear()
        start = time.perf_counter()
        relaxation = observed_relaxation(queue, states=states, grid=grid)
        rows.append(
            {
                "states": states,
                "grid": grid,
                "upper": relaxation.upper,
                "grid_gain": relaxation.gain,
                "seconds": time.perf_counter() - start,
            }
        )
    return rows


def main() -> None:
    rows = [row(a, r) for a in ARRIVALS for r in RATIOS]
    for r in rows:
        print(
            f"Lambda={r['arrival_rate']!s:>4} nu={r['nu']:<4} GA={r['ga']:.6f} "
            f"[{r['lower']:.6f}, {r['upper']:.6f}] ({r['upper_is']}) "
            f"gain {r['gain_lower_percent']:.3f}%..{r['gain_upper_percent']:.3f}% "
            f"relax={r['relaxation_upper']:.6f} {r['seconds']:.1f}s"
            + (
                ""
                if r["belief_welfare"] is None
                else f" belief x={r['belief_threshold']:.3f}: {r['belief_welfare']:.6f}"
                f"+-{r['belief_halfwidth_95']:.1g} ({r['belief_gain_percent']:.3f}%)"
            )
        )
    result = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "grid": rows,
        "relaxation_sensitivity_lambda_0.5_nu_2": sensitivity(),
    }
    for s in result["relaxation_sensitivity_lambda_0.5_nu_2"]:
        print(s)
    path = Path(__file__).with_name("history.json")
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
