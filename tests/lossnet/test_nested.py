"""The n-class nested optimum (policy iteration on the busy-server chain) against
independent routes: the two-class threshold table, exhaustive search over nested reserves
with the chain solved by birth_death_stationary and the reward summed directly (no regret
identity), and local optimality at large N."""

import itertools

import numpy as np
import pytest
from conftest import assert_rejects
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from qtheory.exact import birth_death_stationary
from qtheory.lossnet import LossNetwork, online_optimum
from qtheory.lossnet.fluid import fluid_lp
from qtheory.lossnet.nested import evaluate_nested
from qtheory.lossnet.online import regret_of

TWO_CLASS = [
    (0.6, 0.8, 1.0, 2.0, 1.0),
    (0.3, 2.0, 0.7, 5.0, 0.5),
    (0.9, 0.5, 1.0, 1.5, 1.0),
    (1.323, 3.237, 1.36, 32.499, 2.14),  # near-ties: N = 300 has reserves 1e-21 apart
]
THREE_CLASS = [
    LossNetwork(1, (0.3, 0.9, 0.6), (3, 2, 1), 1.0),  # marginal class 2 (the middle)
    LossNetwork(1, (0.2, 0.3, 1.1), (5, 2, 1), 1.0),  # marginal class 3
    LossNetwork(1, (0.5, 0.3, 0.9), (2, 1.9, 1.5), 1.3),  # marginal class 3, close rewards
]


@pytest.mark.parametrize("params", TWO_CLASS)
@pytest.mark.parametrize("servers", [1, 2, 9, 60, 300, 5000])
def test_two_classes_reproduce_the_threshold_table_optimum(params, servers):
    net = LossNetwork(servers, *params)
    expected = online_optimum(net, method="table")
    got = online_optimum(net, method="policy-iteration")
    assert got.reserves == expected.reserves == (0, expected.reserve)
    assert got.online == pytest.approx(expected.online, rel=1e-12)
    assert got.regret == pytest.approx(expected.regret, rel=1e-9, abs=1e-12)
    assert got.prob_full == pytest.approx(expected.prob_full, rel=1e-9)
    assert got.mean_idle == pytest.approx(expected.mean_idle, rel=1e-9)
    assert got.blocking == pytest.approx(expected.blocking, rel=1e-9, abs=1e-300)


def direct(net, reserves):
    """(reward rate, blocking, E[idle]) of nested reserves: the busy-count chain solved by
    birth_death_stationary, the reward summed over admitted classes."""
    n = net.servers
    idle = n - np.arange(n)  # idle servers at b = 0..N-1
    admitted = idle[:, None] > np.array(reserves)[None, :]
    birth = n * admitted @ np.array(net.lambdas)
    death = net.mu * np.arange(1, n + 1)
    pi = birth_death_stationary(birth, death)
    blocking = pi[:-1] @ ~admitted + pi[-1]  # (not 1 - P(admitted): no cancellation)
    reward = n * float(np.dot(np.array(net.lambdas) * np.array(net.rewards), 1.0 - blocking))
    return reward, blocking, float((n - np.arange(n + 1)) @ pi)


def nested_vectors(n_classes, servers):
    for tail in itertools.combinations_with_replacement(range(servers + 1), n_classes - 1):
        yield (0, *tail)


@pytest.mark.parametrize("net", THREE_CLASS, ids=lambda net: f"marginal{net.marginal}")
@pytest.mark.parametrize("servers", [1, 4, 12])
def test_three_classes_beat_every_nested_policy_by_direct_search(net, servers):
    net = net.with_servers(servers)
    rewards = {k: direct(net, k)[0] for k in nested_vectors(3, servers)}
    best = max(rewards, key=rewards.get)
    opt = online_optimum(net)
    assert opt.online == pytest.approx(rewards[best], rel=1e-12)
    assert rewards[opt.reserves] == pytest.approx(rewards[best], rel=1e-12)


@pytest.mark.parametrize("net", THREE_CLASS, ids=lambda net: f"marginal{net.marginal}")
def test_evaluation_and_regret_identity_against_the_direct_reward(net):
    net = net.with_servers(25)
    fluid = fluid_lp(net).value
    for reserves in [(0, 0, 0), (0, 2, 5), (0, 1, 25), (0, 25, 25), (0, 3, 3)]:
        reward, blocking, idle = direct(net, reserves)
        policy = evaluate_nested(net, reserves)
        assert policy.online == pytest.approx(reward, rel=1e-12)
        assert policy.regret == pytest.approx(fluid - reward, rel=1e-10, abs=1e-11)
        np.testing.assert_allclose(policy.blocking, blocking, rtol=1e-10, atol=1e-300)
        assert policy.mean_idle == pytest.approx(idle, rel=1e-12)
        # the identity itself, fed the direct blocking and idleness
        assert regret_of(net, idle, blocking) == pytest.approx(fluid - reward, rel=1e-10)


@pytest.mark.parametrize("servers", [2000, 100_000])
def test_four_classes_at_large_n_are_locally_optimal(servers):
    """No single reserve moved by one improves on the optimum (direct chain), and the
    thresholds are nested and monotone with classes below the marginal one far out."""
    net = LossNetwork(servers, (0.3, 0.5, 0.6, 0.2), (4, 3, 2, 1), 1.0)
    opt = online_optimum(net)
    assert opt.reserves[0] == 0 and list(opt.reserves) == sorted(opt.reserves)
    assert opt.online == pytest.approx(direct(net, opt.reserves)[0], rel=1e-12)
    for j in range(1, 4):
        for step in (-1, 1):
            moved = list(opt.reserves)
            moved[j] += step
            if moved == sorted(moved) and moved[-1] <= servers:
                assert evaluate_nested(net, moved).online <= opt.online * (1 + 1e-14)


def test_the_regret_identity_is_not_the_reward_difference_for_a_wrong_marginal():
    """The identity prices idleness at the marginal reward: with any other class's reward
    it disagrees with the direct reward (so the tests above can fail)."""
    net = THREE_CLASS[0].with_servers(20)
    reward, blocking, idle = direct(net, (0, 2, 6))
    wrong = LossNetwork(20, net.lambdas, (3, 2.5, 1), net.mu)  # same m, other r_2
    assert regret_of(wrong, idle, blocking) != pytest.approx(fluid_lp(net).value - reward, rel=1e-3)


@pytest.mark.parametrize(
    "reserves, match",
    [
        ((1, 2, 3), "0 = k_1"),
        ((0, 3, 2), "0 = k_1"),
        ((0, 2, 21), "0 = k_1"),
        ((0, 2), "one reserve per class"),
    ],
)
def test_bad_reserves_are_refused(reserves, match):
    with pytest.raises(ValueError, match=match):
        evaluate_nested(THREE_CLASS[0].with_servers(20), reserves)


def test_bad_blocking_and_networks_are_refused():
    with pytest.raises(ValueError, match="blocking must hold one probability per class"):
        regret_of(THREE_CLASS[0], 1.0, [0.1, 0.2])
    with pytest.raises(TypeError, match="net must be a LossNetwork"):
        online_optimum((10, 0.6, 0.8))
    methods = "auto, certified, table, local, policy-iteration"
    with pytest.raises(ValueError, match=f"method must be one of {methods}"):
        online_optimum(THREE_CLASS[0], method="nested")
    with pytest.raises(ValueError, match="method 'table' takes two classes, got 3"):
        online_optimum(THREE_CLASS[0], method="table")
    with pytest.raises(ValueError, match="dps: method 'local' is float64 only"):
        online_optimum(THREE_CLASS[0], dps=20)
    with pytest.raises(ValueError, match="dps: method 'policy-iteration' is float64 only"):
        online_optimum(THREE_CLASS[0], dps=20, method="policy-iteration")


def test_huge_networks_are_refused_before_allocating():
    huge = THREE_CLASS[0].with_servers(10**9)
    assert_rejects(online_optimum, huge, method="policy-iteration", match=r"net\.servers: .* bytes")
    # the local route needs the states near the full state only (test_nested_local.py)
    assert online_optimum(huge).reserves[1] < 100


@settings(max_examples=30, deadline=None, derandomize=True)
@given(data=st.data(), n_classes=st.integers(3, 5), servers=st.integers(1, 300))
def test_random_networks_give_monotone_locally_optimal_reserves(data, n_classes, servers):
    """Random overloaded networks: policy iteration ends at a monotone (nested) policy —
    it raises otherwise — that no single-reserve move improves (chain solved directly)."""
    rates = data.draw(st.lists(st.floats(0.05, 1.5), min_size=n_classes, max_size=n_classes))
    steps = data.draw(st.lists(st.floats(0.05, 2.0), min_size=n_classes, max_size=n_classes))
    partial = np.cumsum(rates)
    mu = data.draw(st.floats(0.05, 0.95)) * partial[-1]
    assume(rates[0] < mu and np.all(np.abs(partial - mu) > 1e-3))
    net = LossNetwork(servers, rates, np.cumsum(steps)[::-1].tolist(), mu)
    opt = online_optimum(net)
    best = direct(net, opt.reserves)[0]
    assert opt.online == pytest.approx(best, rel=1e-11)
    for j in range(1, n_classes):
        for step in (-1, 1):
            moved = list(opt.reserves)
            moved[j] += step
            if moved == sorted(moved) and moved[-1] <= servers:
                assert direct(net, moved)[0] <= best * (1 + 1e-12)
