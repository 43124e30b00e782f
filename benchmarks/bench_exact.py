"""Speed of the exact engine, as ratios against baselines run in this script.

    python benchmarks/bench_exact.py [--quick]

- Birth-death stationary distribution (and log weights) at n = 1e6 and 1e7 states,
  against one O(n) NumPy pass over the same states (``np.cumsum`` of a float64
  array of length n).
- Average-reward MDPs: policy iteration (sparse LU per iteration) against the
  occupation-measure LP (HiGHS) on the one-class admission model with N = 300
  servers (301 states, 2 actions) and on the two-class model with per-class service
  rates (N = 98: 4,950 states, 4 actions); policy iteration alone on N = 300
  (45,451 states).  ``--quick`` skips the largest sizes.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
import scipy.sparse as sp
from timing import best_of

from qtheory.exact import (
    CTMDP,
    birth_death_log_weights,
    birth_death_stationary,
    linear_program,
    policy_iteration,
)


def admission(servers: int, load_h=0.6, load_l=0.6, service=1.0, reward_h=2.0, reward_l=1.0):
    """One pool of N servers, H and L arrivals at rates load * N; actions: admit L?"""
    n = servers + 1
    s = np.arange(n)
    free = s < servers
    down = sp.csr_matrix((s[1:] * service, (s[1:], s[:-1])), shape=(n, n))
    rates, rewards = [], []
    for admit_l in (0, 1):
        up = (load_h + admit_l * load_l) * servers * free
        rates.append(sp.csr_matrix((up[:-1], (s[:-1], s[1:])), shape=(n, n)) + down)
        rewards.append((reward_h * load_h + admit_l * reward_l * load_l) * servers * free)
    return CTMDP(tuple(rates), np.array(rewards))


def two_class(servers: int, load_h=0.6, load_l=0.6, service_h=1.0, service_l=1.5):
    """State (i, j), i + j <= N; four actions (admit H?, admit L?); rewards 2 and 1."""
    i_grid, j_grid = np.meshgrid(np.arange(servers + 1), np.arange(servers + 1), indexing="ij")
    keep = i_grid + j_grid <= servers
    i, j = i_grid[keep], j_grid[keep]
    n = i.size
    index = np.full((servers + 2, servers + 2), -1)
    index[i, j] = np.arange(n)
    s, free = np.arange(n), i + j < servers

    def move(mask, to, rate):
        return sp.csr_matrix((rate[mask], (s[mask], to[mask])), shape=(n, n))

    departures = move(i > 0, index[np.maximum(i - 1, 0), j], service_h * i) + move(
        j > 0, index[i, np.maximum(j - 1, 0)], service_l * j
    )
    rates, rewards = [], []
    for admit_h, admit_l in itertools.product((0, 1), repeat=2):
        matrix = departures
        if admit_h:
            matrix = matrix + move(free, index[i + 1, j], np.full(n, load_h * servers))
        if admit_l:
            matrix = matrix + move(free, index[i, j + 1], np.full(n, load_l * servers))
        rates.append(matrix)
        rewards.append(free * servers * (2.0 * admit_h * load_h + 1.0 * admit_l * load_l))
    return CTMDP(tuple(rates), np.array(rewards, dtype=float))


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
    bench_mdp("two classes, N = 98", two_class(30 if quick else 98), with_lp=True)
    if not quick:
        bench_mdp("two classes, N = 300", two_class(300), with_lp=False)


if __name__ == "__main__":
    main()
