"""Time of the single-use network's exact online optimum (the HJB solved piecewise
exactly) and the offline-online gap at λ = (0.6, 0.8), r = (2, 1), T = 1.

    python benchmarks/bench_single_use.py [--progress] [--check]

Prints, for N = 10, 100, 1000, 10^4, the online and offline optima, their gap, the
online value's error bound, the number of exact pieces and the wall-clock time (one
run each; N = 10^4 must stay under 30 s); and the offline optimum alone at N = 10^5.
``--check`` also integrates the HJB with scipy's DOP853 at rtol 1e-12 and 1e-13 for
N = 1000 and 10^4 (about 25 s) and prints how far each is from the exact value: a
time-stepping integrator's error, which shrinks with its tolerance.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

from qtheory.lossnet import SingleUseNetwork, single_use_offline, single_use_optimum


def dop853(net: SingleUseNetwork, rtol: float) -> float:
    """V_N(T) by DOP853 on the HJB written out (an independent, time-stepping route)."""
    lam_h, lam_l = net.arrival_rate_h, net.arrival_rate_l

    def rhs(_s: float, v: np.ndarray) -> np.ndarray:
        delta = np.diff(v, prepend=0.0)
        return lam_h * (net.r_h - delta) + lam_l * np.maximum(net.r_l - delta, 0.0)

    sol = solve_ivp(rhs, (0.0, net.horizon), np.zeros(net.servers), method="DOP853",
                    rtol=rtol, atol=1e-12)  # fmt: skip
    return float(sol.y[-1, -1])


def main() -> None:
    progress = "--progress" in sys.argv[1:]
    net = SingleUseNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    print(f"{'N':>7} {'online':>20} {'offline':>20} {'gap':>12} {'error bound':>12} "
          f"{'pieces':>7} {'seconds':>8}")  # fmt: skip
    for n in (10, 100, 1000, 10**4):
        start = time.perf_counter()
        result = single_use_optimum(net.with_servers(n), progress=progress and n >= 1000)
        seconds = time.perf_counter() - start
        print(
            f"{n:>7} {result.online:>20.10f} {result.offline:>20.10f} "
            f"{result.offline_online_gap:>12.8f} {result.error_bound:>12.2e} "
            f"{result.intervals:>7} {seconds:>8.2f}"
        )
    start = time.perf_counter()
    offline, gap = single_use_offline(net.with_servers(10**5))
    print(f"offline at N = 10^5: {offline:.6f} (fluid gap {gap:.3e}) "
          f"in {time.perf_counter() - start:.4f} s")  # fmt: skip
    if "--check" in sys.argv[1:]:
        for n in (1000, 10**4):
            exact = single_use_optimum(net.with_servers(n))
            for rtol in (1e-12, 1e-13):
                other = dop853(net.with_servers(n), rtol)
                print(f"N = {n}: DOP853 (rtol {rtol:g}) - exact = {other - exact.online:+.2e} "
                      f"(error bound {exact.error_bound:.2e})")  # fmt: skip


if __name__ == "__main__":
    main()
