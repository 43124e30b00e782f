"""Speed of the gated-model numerics, as ratios against baselines run in this script.

    python benchmarks/bench_gated_numerics.py

- sigma solver: vectorised float64 (`qtheory.gated.root` on an array of gates) against
  a per-element loop of scipy's brentq on the defining equation (the obvious baseline).
- PoF at 50 and 100 digits against the float64 PoF.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq
from timing import best_of

from qtheory.gated import GatedQueue, price_of_forgetting, root


def brentq_loop(gates: np.ndarray, arrival: float) -> np.ndarray:
    def residual(s, gate):
        return np.exp(-(1 - s) * gate) * arrival / (arrival + 1 - s) - s

    return np.array([brentq(residual, 1e-300, 1 - 1e-12, args=(g,)) for g in gates])


def main() -> None:
    arrival = 2.0
    gates = np.linspace(0.6, 20.0, 100_000)
    root(gates[:10], arrival, 1.0)  # warm-up: derive and lambdify once
    vectorised = best_of(3, lambda: root(gates, arrival, 1.0))
    sample = gates[:: len(gates) // 2000]
    loop = best_of(3, lambda: brentq_loop(sample, arrival)) * len(gates) / len(sample)
    print(
        f"sigma solver: {len(gates) / vectorised:,.0f} roots/s vectorised float64, "
        f"{len(gates) / loop:,.0f} roots/s brentq loop: ratio {loop / vectorised:.1f}x"
    )

    queue = GatedQueue(arrival, 1.0, 3.0, 1.0)
    price_of_forgetting(queue, dps=20)  # warm-up
    base = best_of(5, lambda: price_of_forgetting(queue))
    for dps in (50, 100):
        t = best_of(5, lambda: price_of_forgetting(queue, dps=dps))  # noqa: B023
        print(
            f"PoF at {dps} digits: {t * 1e3:.1f} ms ({t / base:.1f}x the float64 PoF, "
            f"{base * 1e3:.2f} ms)"
        )


if __name__ == "__main__":
    main()
