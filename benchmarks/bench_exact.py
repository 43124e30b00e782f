"""Speed of the exact engine, as ratios against baselines run in this script.

    python benchmarks/bench_exact.py [--quick]

- Birth-death stationary distribution (and log weights) at n = 1e6 and 1e7 states,
  against one O(n) NumPy pass over the same states (``np.cumsum`` of a float64
  array of length n).
- Average-reward MDPs: policy iteration (sparse LU per iteration) against the
  occupation-measure LP (HiGHS) on the loss network's admission MDP
  (``qtheory.lossnet.mdp.admission_mdp``) with N = 300 servers (301 states, 4 actions)
  and with per-class service rates (N = 98: 4,950 states); policy iteration alone on
  N = 300 with per-class rates (45,451 states).  ``--quick`` skips the largest sizes.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from timing import best_of

from qtheory.exact import (
    CTMDP,
    birth_death_log_weights,
    birth_death_stationary,
    linear_program,
    policy_iteration,
)
from qtheory.lossnet import LossNetwork
from qtheory.lossnet.mdp import admission_mdp

# lambda_H = lambda_L = 0.6, mu = 1, r_H = 2, r_L = 1; L jobs served at 1.5 in the
# two-class model.
NET = LossNetwork(1, 0.6, 0.6, 1.0, 2.0, 1.0)
SERVICE_RATE_L = 1.5


def admission(servers: int, service_rate_l: float | None = None) -> CTMDP:
    """The loss network's admission MDP (qtheory.lossnet.mdp) at N servers, per-class
    state when L has its own service rate."""
    rates = None if service_rate_l is None else [NET.mu, service_rate_l]
    return admission_mdp(NET.with_servers(servers), rates).mdp


def bench_birth_death(sizes) -> None:
    for n in sizes:
        birth = np.full(n, 0.5 * n)  # an M/M/N/N-like chain at half load
        death = np.arange(1.0, n + 1)
        birth_death_stationary(birth, death)  # warm-up: first-touch of the memory
        baseline = best_of(5, lambda: np.cumsum(death))  # noqa: B023
        stationary = best_of(3, lambda: birth_death_stationary(birth, death))  # noqa: B023
        logs = best_of(3, lambda: birth_death_log_weights(birth, death))  # noqa: B023
        print(
            f"birth-death n = {n:.0e}: stationary {stationary * 1e3:7.1f} ms "
            f"({stationary / baseline:5.1f}x one NumPy pass, {baseline * 1e3:.1f} ms); "
            f"log weights {logs * 1e3:7.1f} ms ({logs / baseline:5.1f}x)"
        )


def bench_mdp(label: str, mdp: CTMDP, with_lp: bool) -> None:
    start = time.perf_counter()
    pi_solution = policy_iteration(mdp)
    pi_time = time.perf_counter() - start
    line = (
        f"{label}: {mdp.n_states:,} states x {mdp.n_actions} actions: policy iteration "
        f"{pi_time:.3f} s ({pi_solution.iterations} evaluations)"
    )
    if with_lp:
        start = time.perf_counter()
        lp_solution = linear_program(mdp)
        lp_time = time.perf_counter() - start
        gap = abs(lp_solution.gain - pi_solution.gain) / abs(pi_solution.gain)
        line += (
            f"; LP {lp_time:.3f} s ({lp_time / pi_time:.0f}x PI, {lp_solution.iterations} "
            f"HiGHS iterations, relative gain difference {gap:.1e})"
        )
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the largest sizes")
    quick = parser.parse_args().quick
    bench_birth_death([10**6] if quick else [10**6, 10**7])
    bench_mdp("admission, N = 300", admission(300), with_lp=True)
    two_classes = 30 if quick else 98
    bench_mdp(
        f"two classes, N = {two_classes}", admission(two_classes, SERVICE_RATE_L), with_lp=True
    )
    if not quick:
        bench_mdp("two classes, N = 300", admission(300, SERVICE_RATE_L), with_lp=False)


if __name__ == "__main__":
    main()
