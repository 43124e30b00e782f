"""The O(N) threshold search against direct routes: the dense chain solved by GTH, the
reward formula without the identity, and mpmath at high precision."""

import mpmath
import numpy as np
import pytest
from conftest import assert_rejects
from hypothesis import given, settings
from hypothesis import strategies as st

from qtheory.core import limits
from qtheory.exact import birth_death_stationary, stationary_ctmc
from qtheory.lossnet import LossNetwork, fluid_bound, online_optimum, threshold_table
from qtheory.lossnet.online import _best_reserve

NET = LossNetwork(60, 0.6, 0.8, 1.0, 2.0, 1.0)


def direct_reward(net, reserve):
    """Reward rate of trunk reservation from the busy-server chain solved by GTH."""
    n = net.servers
    q = np.zeros((n + 1, n + 1))
    for b in range(n):
        q[b, b + 1] = net.arrival_rate_h + (net.arrival_rate_l if n - b > reserve else 0.0)
        q[b + 1, b] = (b + 1) * net.mu
    np.fill_diagonal(q, -q.sum(axis=1))
    pi = stationary_ctmc(q)
    admitted_l = pi[: n - reserve].sum()
    reward = net.r_h * net.arrival_rate_h * (1 - pi[n]) + net.r_l * net.arrival_rate_l * admitted_l
    return reward, pi[n], float((n - np.arange(n + 1)) @ pi)


@pytest.mark.parametrize("params", [(0.6, 0.8, 1.0, 2.0, 1.0), (0.3, 2.0, 0.7, 5.0, 0.5)])
@pytest.mark.parametrize("servers", [1, 7, 60, 200])
def test_every_reserve_matches_the_chain_solved_by_gth(params, servers):
    net = LossNetwork(servers, *params)
    table = threshold_table(net)
    for k in range(servers + 1):
        reward, full, idle = direct_reward(net, k)
        assert table.prob_full[k] == pytest.approx(full, rel=1e-11, abs=1e-300)
        assert table.mean_idle[k] == pytest.approx(idle, rel=1e-11)
        assert table.regret[k] == pytest.approx(fluid_bound(net) - reward, rel=1e-9, abs=1e-9)


def test_optimum_is_the_best_reserve_by_direct_search():
    best = max(range(NET.servers + 1), key=lambda k: direct_reward(NET, k)[0])
    opt = online_optimum(NET)
    assert opt.reserve == best
    assert opt.online == pytest.approx(direct_reward(NET, best)[0], rel=1e-12)


def test_float64_matches_mpmath_at_large_n():
    net = NET.with_servers(3000)
    fast, precise = online_optimum(net), online_optimum(net, dps=40)
    assert fast.reserve == precise.reserve
    assert fast.regret == pytest.approx(float(precise.regret), rel=1e-11)
    assert fast.prob_full == pytest.approx(float(precise.prob_full), rel=1e-12)
    assert fast.mean_idle == pytest.approx(float(precise.mean_idle), rel=1e-12)


def chain_at(net, reserve):
    """The busy-server chain of one reserve, by the exact-exponent birth-death solver."""
    n = net.servers
    births = np.where(
        n - np.arange(n) > reserve, net.arrival_rate_h + net.arrival_rate_l, net.arrival_rate_h
    )
    return birth_death_stationary(births, net.mu * np.arange(1, n + 1))


@pytest.mark.parametrize(
    ("params", "servers"),
    [((0.6, 0.8, 1.0, 2.0, 1.0), 10**7), ((0.999999, 0.000002, 1.0, 2.0, 1.0), 10**6)],
)
def test_large_n_against_the_birth_death_solver(params, servers):
    net = LossNetwork(servers, *params)
    table = threshold_table(net)
    k = int(np.argmin(table.regret))
    pi = chain_at(net, k)
    assert table.prob_full[k] == pytest.approx(pi[-1], rel=1e-12)
    assert table.mean_idle[k] == pytest.approx((servers - np.arange(servers + 1)) @ pi, rel=1e-12)
    assert np.all(np.diff(table.prob_admit_l) <= 1e-15)  # a larger reserve admits fewer L

    # k is optimal against its neighbours, by rewards computed from the chain directly
    def reward(reserve):
        p = chain_at(net, reserve)
        admitted_l = p[: servers - reserve].sum()
        return (
            net.r_h * net.arrival_rate_h * (1 - p[-1]) + net.r_l * net.arrival_rate_l * admitted_l
        )

    assert reward(k) > max(reward(k - 1), reward(k + 1))


# ---------------------------------------------------------------------------
# precision: the dps convention of qtheory.core.precision


def reward_by_direct_sums(net, reserve, digits):
    """R_k from the closed-form weights w_b = A^min(b,m) H^max(b-m,0) / b! (A, H the
    offered loads of all traffic and of H, m = N - k) summed in mpmath, and the reward
    r_H lambda_H N (1 - P(full)) + r_L lambda_L N P(b < m): no identity, no recursion."""
    with mpmath.workdps(digits):
        lam_h, lam_l, mu = (mpmath.mpf(repr(v)) for v in (net.lambda_h, net.lambda_l, net.mu))
        n, m = net.servers, net.servers - reserve
        load_all, load_h = (lam_h + lam_l) * n / mu, lam_h * n / mu
        weights = [
            load_all ** min(b, m) * load_h ** max(b - m, 0) / mpmath.factorial(b)
            for b in range(n + 1)
        ]
        total = mpmath.fsum(weights)
        p_full, p_admit_l = weights[-1] / total, mpmath.fsum(weights[:m]) / total
        r_h, r_l = mpmath.mpf(repr(net.r_h)), mpmath.mpf(repr(net.r_l))
        return r_h * lam_h * n * (1 - p_full) + r_l * lam_l * n * p_admit_l


@pytest.mark.parametrize("dps", [5, 20, 40])
def test_dps_result_is_correct_to_dps_digits(dps):
    net = LossNetwork(50, 0.6, 0.8, 1.0, 2.0, 1.0)
    opt = online_optimum(net, dps=dps)
    references = {k: reward_by_direct_sums(net, k, 80) for k in range(net.servers + 1)}
    best = max(references, key=references.get)
    assert opt.reserve == best
    with mpmath.workdps(80):
        error = abs(opt.online - references[best]) / references[best]
    assert error <= mpmath.mpf(10) ** -dps, (dps, opt.online, references[best])


def test_dps_rounds_to_dps_digits():
    opt = online_optimum(LossNetwork(50, 0.6, 0.8, 1.0, 2.0, 1.0), dps=8)
    with mpmath.workdps(8):
        assert all(+value == value for value in (opt.online, opt.regret, opt.prob_full))


@pytest.mark.parametrize("dps", [0, -3, 2.5, True, "30", 10**9])
def test_bad_dps_is_refused(dps):
    assert_rejects(online_optimum, LossNetwork(50, 0.6, 0.8, 1.0, 2.0, 1.0), dps=dps, match="dps")


def test_dps_is_keyword_only():
    with pytest.raises(TypeError):
        online_optimum(LossNetwork(50, 0.6, 0.8, 1.0, 2.0, 1.0), 30)


def test_huge_networks_are_refused_before_allocating():
    """The table of every reserve is O(N) memory and refused at N = 10^8; the optimum
    sums only the K + T + 1 states that matter and is refused only when those exceed the
    limit (q = μ/(λ_H + λ_L) close to 1 makes T reach N)."""
    net = LossNetwork(10**8, 0.6, 0.8, 1.0, 2.0, 1.0)
    assert_rejects(threshold_table, net, match=r"net\.servers: .* bytes")
    assert online_optimum(net).reserve == online_optimum(net, method="certified").reserve
    with limits.raised(memory=1e4):  # about 80 states: more than that is refused
        assert_rejects(online_optimum, net, match=r"net\.servers: .*states nearest the full")
    barely = LossNetwork(10**9, 0.5, 0.5000001, 1.0, 2.0, 1.0)  # q = 1 - 1e-7
    assert_rejects(online_optimum, barely, method="table", match=r"net\.servers: .* bytes")
    with limits.raised(memory=1e12):  # the mpmath work is refused on its own count
        assert_rejects(
            online_optimum,
            LossNetwork(10**9, 0.6, 0.8, 1.0, 2.0, 1.0),
            dps=20,
            method="table",
            match=r"net\.servers: .*cells",
        )


def test_a_long_mpmath_run_is_refused_by_its_measured_cost():
    """Regression: N = 10^7 at dps = 20 (three mpmath chains of 10^7 steps, about 12 us a
    step: several minutes) was accepted at 1000 cells a step and ran past 30 s; at the
    measured 12 000 it exceeds the dp_cells limit and is refused at once, pointing to the
    certified route."""
    net = LossNetwork(10**7, 0.01, 20180, 1, 7.76, 1)
    assert_rejects(
        online_optimum,
        net,
        dps=20,
        method="table",
        match=r"net\.servers: .*certified_online_optimum.*cells",
    )
    opt = online_optimum(net, dps=20)  # the default route: O(k* + T)
    assert opt.reserve >= 0 and 0 < opt.regret < opt.fluid


@pytest.mark.parametrize("dps", [None, 20])
def test_the_certified_route_is_the_table_route(dps):
    """The default route (certified enclosures, O(k* + T)) against the table of every
    reserve (O(N), float64 or mpmath): the same reserve, every value to the digits asked
    for, and class L's blocking (rate balance) against the table's P(idle <= k*)."""
    net = LossNetwork(10**4, 0.6, 0.8, 1.0, 2.0, 1.0)
    fast, table = online_optimum(net, dps=dps), online_optimum(net, dps=dps, method="table")
    assert fast.reserves == table.reserves
    rel = 1e-13 if dps is None else mpmath.mpf(10) ** -18
    for name in ("fluid", "online", "regret", "mean_idle", "prob_full"):
        assert abs(getattr(fast, name) - getattr(table, name)) <= rel * abs(getattr(table, name))
    assert abs(fast.blocking[1] - table.blocking[1]) <= 1e-12 * table.blocking[1]


@pytest.mark.parametrize("bad", [None, 5, "net", (50, 0.6, 0.8, 1.0, 2.0, 1.0)])
def test_non_networks_are_type_errors(bad):
    for call in (threshold_table, online_optimum):
        with pytest.raises(TypeError, match="net must be a LossNetwork"):
            call(bad)


# ---------------------------------------------------------------------------
# the optimum from the reserves and states that matter, against the whole table


def table_optimum(net):
    """The route before O(k* + T): the best entry of the table of every reserve, O(N),
    with the same tie rule (TIE_GAP)."""
    table = threshold_table(net)
    best = _best_reserve(net, table.regret)
    return best, table


def assert_same_as_the_table(net):
    """Same reserve, and every value equal to the table's entry to 1e-14 relative: both
    sum the same log weights (relative to the full state, the same numbers); the sums
    over the states past the reserve leave out terms below 2^-60 of them, which can move
    a log-sum-exp by an ulp of a log of size up to about 40 (ulp 7e-15), so the values
    may differ by that relative amount (they came out bit-identical on every network
    tried)."""
    best, table = table_optimum(net)
    opt = online_optimum(net, method="table")
    assert opt.reserves == (0, best)
    assert opt.regret == pytest.approx(float(table.regret[best]), rel=1e-14, abs=0)
    assert opt.mean_idle == pytest.approx(float(table.mean_idle[best]), rel=1e-14, abs=0)
    assert opt.prob_full == pytest.approx(float(table.prob_full[best]), rel=1e-14, abs=1e-300)
    assert opt.blocking[1] == pytest.approx(1.0 - float(table.prob_admit_l[best]), rel=1e-14)
    assert opt.online == pytest.approx(fluid_bound(net) - float(table.regret[best]), rel=1e-15)
    return opt


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    servers=st.one_of(st.integers(1, 60), st.integers(61, 3000), st.integers(3001, 200_000)),
    lambda_h=st.floats(0.02, 0.98),
    load=st.floats(1.01, 30.0),
    r_h=st.floats(1.01, 50.0),
    r_l=st.floats(0.05, 5.0),
)
def test_the_optimum_is_the_tables_on_random_networks(servers, lambda_h, load, r_h, r_l):
    """μ = 1, λ_H < 1 < λ_H + λ_L = load, r_H = r_h·r_L: the whole range of q, θ and
    rewards, small N where K reaches N and large N where it stops early."""
    net = LossNetwork(servers, lambda_h, load - lambda_h, 1.0, r_h * r_l, r_l)
    assert_same_as_the_table(net)


@pytest.mark.parametrize(
    "params",
    [
        (0.6, 0.8, 1.0, 2.0, 1.0),
        (0.3, 2.0, 0.7, 5.0, 0.5),
        (0.9, 0.5, 1.0, 1.5, 1.0),
        (1.323, 3.237, 1.36, 32.499, 2.14),  # a near-tie at N = 300 (TIE_GAP)
        (0.999999, 0.000002, 1.0, 2.0, 1.0),  # q close to 1: T reaches N
        (0.01, 20180, 1, 7.76, 1),
    ],
)
@pytest.mark.parametrize("servers", [1, 2, 7, 60, 300, 5000, 10**5])
def test_the_optimum_is_the_tables_on_the_test_networks(params, servers):
    assert_same_as_the_table(LossNetwork(servers, *params))


@pytest.mark.parametrize("params", [(0.6, 0.8, 1.0, 2.0, 1.0), (0.9, 0.5, 1.0, 1.5, 1.0)])
def test_the_optimum_is_the_tables_at_ten_million_servers(params):
    opt = assert_same_as_the_table(LossNetwork(10**7, *params))
    assert opt.reserve < 200  # found without the O(N) table


def test_the_report_networks_give_the_tables_optimum():
    """The two-class networks of the reports (qtheory/report/lossnet.py and the
    decomposition sweep's regret curves) over their grids of N."""
    from qtheory.report.lossnet import DEFAULT
    from qtheory.report.lossnet_decomposition_sweep import PARAMETER_SETS

    for net in [DEFAULT, *(net for _, net in PARAMETER_SETS)]:
        for servers in (10, 100, 1000, 10**4, 10**5, 10**6):
            assert_same_as_the_table(net.with_servers(servers))


def test_a_larger_reserve_never_idles_less():
    """What the stop of the search rests on: E_k[idle] does not decrease in k (a larger
    reserve admits fewer L), so r_L μ E_K[idle] bounds the regret of every k >= K."""
    for params in [(0.6, 0.8, 1.0, 2.0, 1.0), (1.323, 3.237, 1.36, 32.499, 2.14)]:
        idle = threshold_table(LossNetwork(2000, *params)).mean_idle
        assert np.all(np.diff(idle) >= -1e-12 * idle[1:])


def test_a_near_critical_load_at_large_n_takes_the_certified_route():
    """λ_H + λ_L − μ = 1e-7 at N = 10^8: the window's geometric tail bound (ratio q =
    μ/(λ_H + λ_L)) would need tens of millions of states and the table is refused for
    memory (found by review); ``auto`` takes the certified route there (the route of
    every N above 20 000 before the window existed), whose reserve is proved optimal."""
    net = LossNetwork(10**8, 0.5, 0.5000001, 1.0, 2.0, 1.0)
    with pytest.raises(ValueError, match="memory"):
        online_optimum(net, method="table")
    auto, certified = online_optimum(net), online_optimum(net, method="certified")
    assert auto.reserve == certified.reserve and auto.online == certified.online
