"""Speed of the C Lindley simulator against a NumPy-vectorised baseline.

Run from the repository root:

    python benchmarks/bench_gated_sim.py [--customers N] [--repeats R]

Both simulate the gated queue T = gate + Exp(arrival_rate), S = Exp(service_rate) with
the Lindley recursion W_1 = 0, W_{n+1} = max(0, W_n + S_n - T_{n+1}), and both return
the mean sojourn time, the fraction of customers who did not wait and the throughput.
The baseline is checked against a plain Python loop before it is timed.  Reported:
customers per second (best of R runs) and the ratio C / NumPy.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import optimize

from qtheory.gated import GatedQueue
from qtheory.sim import simulate_gated

GATE, ARRIVAL_RATE, SERVICE_RATE = 0.5, 1.0, 1.0  # E[T] = 1.5: load 2/3
CHUNK = 1 << 20


def lindley_waits(increments: np.ndarray, initial_wait: float) -> np.ndarray:
    """Waits W_1..W_m of the customers after one with wait ``initial_wait``.

    With X_k = increments[0] + ... + increments[k-1] (increment j is S_j - T_{j+1}),
    W_k = max(initial_wait + X_k, max_{1<=j<=k} (X_k - X_j), 0)
        = X_k - min(-initial_wait, min_{1<=j<=k} X_j).
    """
    x = np.cumsum(increments)
    return x - np.minimum(np.minimum.accumulate(x), -initial_wait)


def numpy_baseline(customers: int, seed: int) -> tuple[float, float, float]:
    """Vectorised Lindley recursion in chunks of CHUNK customers (bounded memory)."""
    rng = np.random.default_rng(seed)
    carry = 0.0  # W + S of the previous customer; 0: the first customer finds no queue
    sojourn_total = interarrival_total = 0.0
    no_wait = 0
    for start in range(0, customers, CHUNK):
        n = min(CHUNK, customers - start)
        t = GATE + rng.standard_exponential(n) / ARRIVAL_RATE
        s = rng.standard_exponential(n) / SERVICE_RATE
        # increment for customer i of the chunk: S_{i-1} - T_i, with S_{-1} + W_{-1} = carry
        increments = np.concatenate(([carry], s[:-1])) - t
        w = lindley_waits(increments, 0.0)
        sojourn_total += float(w.sum() + s.sum())
        interarrival_total += float(t.sum())
        no_wait += int(np.count_nonzero(w == 0.0))
        carry = float(w[-1] + s[-1])
    return sojourn_total / customers, no_wait / customers, customers / interarrival_total


def check_baseline() -> None:
    """The vectorised recursion equals the scalar Lindley recursion."""
    rng = np.random.default_rng(0)
    t, s = rng.exponential(1.4, 5000), rng.exponential(1.0, 5000)
    increments = np.concatenate(([0.0], s[:-1])) - t
    for initial_wait in (0.0, 3.0):
        expected, w = [], initial_wait
        for d in increments:
            w = max(0.0, w + d)
            expected.append(w)
        np.testing.assert_allclose(lindley_waits(increments, initial_wait), expected, atol=1e-9)


def theory() -> tuple[float, float, float]:
    """GI/M/1 closed form: sigma = exp(-mu (1 - sigma) tau) Lambda / (Lambda + mu (1 - sigma))."""

    def excess(sigma: float) -> float:
        u = SERVICE_RATE * (1.0 - sigma)
        return sigma - math.exp(-u * GATE) * ARRIVAL_RATE / (ARRIVAL_RATE + u)

    sigma = optimize.brentq(excess, 0.0, 1.0 - 1e-6)
    sojourn = 1.0 / (SERVICE_RATE * (1.0 - sigma))
    return sojourn, 1.0 - sigma, 1.0 / (GATE + 1.0 / ARRIVAL_RATE)


def best_rate(run, customers: int, repeats: int) -> tuple[float, tuple]:
    best, result = math.inf, None
    for seed in range(repeats):
        start = time.perf_counter()
        result = run(customers, seed)
        best = min(best, time.perf_counter() - start)
    return customers / best, result


def c_simulator(customers: int, seed: int, service: str = "exponential") -> tuple:
    queue = GatedQueue(ARRIVAL_RATE, SERVICE_RATE, 1.0, 1.0)  # reward, cost: not used
    est = simulate_gated(
        queue, GATE, service=service, customers=customers, warmup=0, batches=50, seed=seed
    )
    return est.mean_sojourn.mean, est.prob_no_wait.mean, est.throughput


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--customers", type=int, default=20_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    customers = args.customers - args.customers % 50

    check_baseline()
    c_rate, c_result = best_rate(c_simulator, customers, args.repeats)
    np_rate, np_result = best_rate(numpy_baseline, customers, args.repeats)
    print(
        f"gated M/M/1-type queue, gate={GATE}, arrival_rate={ARRIVAL_RATE}, "
        f"service_rate={SERVICE_RATE}, {customers:,} customers, best of {args.repeats}"
    )
    print("                 customers/s   mean sojourn  P(no wait)  throughput")
    rows = (("C simulator", c_rate, c_result), ("NumPy", np_rate, np_result))
    for name, rate, result in rows:
        print(f"{name:<14} {rate:14.3e}  {result[0]:12.4f}  {result[1]:10.4f}  {result[2]:10.4f}")
    exact = theory()
    print(f"{'closed form':<14} {'':14}  {exact[0]:12.4f}  {exact[1]:10.4f}  {exact[2]:10.4f}")
    print(f"ratio C / NumPy: {c_rate / np_rate:.1f}x")
    for service in ("deterministic", "erlang:3", "hyperexp:4"):
        rate, _ = best_rate(lambda n, seed, s=service: c_simulator(n, seed, s), customers, 1)
        print(f"C simulator, service={service:<13} {rate:.3e} customers/s")


if __name__ == "__main__":
    main()
