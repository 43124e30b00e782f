"""The O(N) threshold search against direct routes: the dense chain solved by GTH, the
reward formula without the identity, and mpmath at high precision."""

import numpy as np
import pytest

from qtheory.exact import birth_death_stationary, stationary_ctmc
from qtheory.lossnet import LossNetwork, fluid_bound, online_optimum, threshold_table

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
    assert opt.threshold == best
    assert opt.online == pytest.approx(direct_reward(NET, best)[0], rel=1e-12)


def test_float64_matches_mpmath_at_large_n():
    net = NET.with_servers(3000)
    fast, precise = online_optimum(net), online_optimum(net, dps=40)
    assert fast.threshold == precise.threshold
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
