"""Time of the exact online optimum R_on(N) against the O(N) routes it replaced, both
measured here, as a ratio.

    python benchmarks/bench_online.py

Two classes (λ_H = 0.6, λ_L = 0.8, μ = 1, r_H = 2, r_L = 1): ``online_optimum(net)``
(float64) sums only the reserves 0..K and the K + T + 1 states nearest the full state
(O(k* + T), :mod:`qtheory.lossnet.online`), against the best entry of
``threshold_table`` (every reserve, O(N)), the route ``online_optimum`` took before
(and still the test oracle); the two give the same reserve and values (checked here).
A baseline of one O(N) log-space pass over the chain of one reserve shows the scale.

Three classes (λ = 0.3, 0.9, 0.6, r = 3, 2, 1, μ = 1; the marginal class in the middle,
so the third class's reserve is of order N): ``online_optimum(net)`` (float64) is
policy iteration on the states that matter (``nested.local_optimum``: the window of the
k_m + T states nearest the full state and the bias far from it in closed form), against
``nested.policy_iteration`` on the whole chain (O(nN) per iteration), the route it
replaced (and the test oracle); the two give the same reserves and values to a few ulps
(checked here; at N = 10^7 policy iteration needs 4.8 GB, above the default memory
limit, lifted for it).

Writes ``benchmarks/online.json`` next to this script.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path

import numpy as np
from scipy.special import logsumexp
from timing import best_of

from qtheory.core import limits
from qtheory.lossnet import LossNetwork, online_optimum, threshold_table
from qtheory.lossnet.nested import _local_search, local_optimum, policy_iteration
from qtheory.lossnet.online import _best_reserve

SIZES = (10**3, 10**4, 10**5, 10**6, 10**7)


def one_threshold_pass(net: LossNetwork, reserve: int) -> float:
    n = net.servers
    busy = np.arange(1, n + 1, dtype=float)
    births = np.where(
        n - (busy - 1) > reserve, net.arrival_rate_h + net.arrival_rate_l, net.arrival_rate_h
    )
    log_weights = np.concatenate(([0.0], np.cumsum(np.log(births) - np.log(busy * net.mu))))
    return float(np.exp(log_weights[-1] - logsumexp(log_weights)))


def table_route(net: LossNetwork) -> tuple[int, float]:
    """The route before: the whole table, its best entry (same tie rule)."""
    table = threshold_table(net)
    best = _best_reserve(net, table.regret)
    return best, float(table.regret[best])


def main() -> None:
    two = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    three = LossNetwork(10, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
    rows = []
    for n in SIZES:
        net = two.with_servers(n)
        opt = online_optimum(net)
        best, regret = table_route(net)
        assert opt.reserve == best and abs(opt.regret - regret) <= 1e-14 * regret
        repeats = 3 if n <= 10**6 else 1
        new = best_of(max(repeats, 20), lambda: online_optimum(net))  # noqa: B023
        old = best_of(repeats, lambda: table_route(net))  # noqa: B023
        one_pass = best_of(repeats, lambda: one_threshold_pass(net, 20))  # noqa: B023
        rows.append(
            {
                "classes": 2,
                "servers": n,
                "reserve": best,
                "optimum_s": new,
                "table_s": old,
                "one_pass_s": one_pass,
                "table_over_optimum": old / new,
            }
        )
        print(
            f"2 classes, N = {n:>10,}: k* = {best:>3}, online_optimum {new * 1e3:8.3f} ms, "
            f"whole table {old * 1e3:9.1f} ms, ratio {old / new:9.1f}; "
            f"one O(N) pass {one_pass * 1e3:8.1f} ms"
        )
    for n in SIZES:
        net = three.with_servers(n)
        opt = online_optimum(net)
        optimum, decided = _local_search(net, 100)
        with limits.raised(memory=1e10):
            whole = policy_iteration(net)
        assert decided and optimum.reserves == opt.reserves == whole.reserves
        assert abs(opt.regret - whole.regret) <= 1e-15 * whole.regret
        repeats = 3 if n <= 10**6 else 1
        new = best_of(max(repeats, 20), lambda: local_optimum(net))  # noqa: B023
        with limits.raised(memory=1e10):
            old = best_of(repeats, lambda: policy_iteration(net))  # noqa: B023
        rows.append(
            {
                "classes": 3,
                "servers": n,
                "reserves": list(opt.reserves),
                "optimum_s": new,
                "policy_iteration_s": old,
                "policy_iteration_over_optimum": old / new,
            }
        )
        print(
            f"3 classes, N = {n:>10,}: reserves {opt.reserves}, online_optimum "
            f"{new * 1e3:8.3f} ms, policy iteration {old * 1e3:9.1f} ms, ratio {old / new:9.1f}"
        )
    out = Path(__file__).with_name("online.json")
    record = {
        "what": "online_optimum (float64) against the best entry of threshold_table, O(N) "
        "(two classes), and against whole-chain policy iteration, O(nN) (three classes)",
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "rows": rows,
    }
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
