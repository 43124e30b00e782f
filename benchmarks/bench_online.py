"""Time of the exact online optimum R_on(N) against one O(N) NumPy pass over the same
state space, both measured here.

    python benchmarks/bench_online.py

The baseline solves ONE birth–death chain of N + 1 states in log space (log weights by a
cumulative sum, then a log-sum-exp): what a naive search would pay per threshold.
``online_optimum`` searches all N + 1 thresholds exactly, so the ratio says how many
single-threshold passes the whole search costs (a per-threshold search would cost N + 1).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp
from timing import best_of

from qtheory.lossnet import LossNetwork, online_optimum


def one_threshold_pass(net: LossNetwork, reserve: int) -> float:
    n = net.servers
    busy = np.arange(1, n + 1, dtype=float)
    births = np.where(
        n - (busy - 1) > reserve, net.arrival_rate_h + net.arrival_rate_l, net.arrival_rate_h
    )
    log_weights = np.concatenate(([0.0], np.cumsum(np.log(births) - np.log(busy * net.mu))))
    return float(np.exp(log_weights[-1] - logsumexp(log_weights)))


def main() -> None:
    net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    for n in (10**6, 10**7):
        scaled = net.with_servers(n)
        baseline = best_of(3, lambda: one_threshold_pass(scaled, 20))  # noqa: B023
        search = best_of(3, lambda: online_optimum(scaled))  # noqa: B023
        print(
            f"N = {n:>9,}: R_on in {search:.3f} s, one O(N) pass {baseline:.3f} s, "
            f"ratio {search / baseline:.1f}"
        )


if __name__ == "__main__":
    main()
