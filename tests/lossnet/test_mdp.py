"""The full admission MDP (no assumption on the policy's form) against the O(N)
trunk-reservation search, and its two solvers (policy iteration, LP) against each other."""

import numpy as np
import pytest

from qtheory.lossnet import LossNetwork, online_optimum
from qtheory.lossnet.mdp import admission_mdp, solve_admission_mdp

PARAMS = [(0.6, 0.8, 1.0, 2.0, 1.0), (0.3, 2.0, 0.7, 5.0, 0.5), (0.9, 0.3, 1.0, 1.2, 1.0)]


@pytest.mark.parametrize("params", PARAMS)
@pytest.mark.parametrize("servers", [1, 4, 30, 150])
def test_mdp_optimum_is_trunk_reservation_with_the_searched_reserve(params, servers):
    net = LossNetwork(servers, *params)
    search = online_optimum(net)
    mdp = solve_admission_mdp(net)
    assert mdp.online == pytest.approx(search.online, rel=1e-10)
    assert mdp.reserve == search.reserve  # Miller (1969): the optimum is a threshold


@pytest.mark.parametrize("servers", [3, 40])
def test_policy_iteration_and_lp_agree(servers):
    net = LossNetwork(servers, *PARAMS[0])
    pi, lp = solve_admission_mdp(net), solve_admission_mdp(net, method="lp")
    assert lp.online == pytest.approx(pi.online, rel=1e-9)
    assert lp.reserve == pi.reserve


def test_two_dimensional_state_with_equal_rates_reduces_to_the_busy_count():
    net = LossNetwork(25, *PARAMS[0])
    flat, split = solve_admission_mdp(net), solve_admission_mdp(net, [net.mu, net.mu])
    assert split.online == pytest.approx(flat.online, rel=1e-10)
    assert split.reserve == flat.reserve


@pytest.mark.parametrize("mu_l", [0.5, 2.0])
def test_per_class_service_rates(mu_l):
    net = LossNetwork(20, *PARAMS[0])
    pi = solve_admission_mdp(net, [net.mu, mu_l])
    lp = solve_admission_mdp(net, [net.mu, mu_l], method="lp")
    assert lp.online == pytest.approx(pi.online, rel=1e-9)
    assert 0 < pi.regret  # the fluid LP (per-class rates) bounds every policy


def test_bad_method():
    with pytest.raises(ValueError, match="method"):
        solve_admission_mdp(LossNetwork(3, *PARAMS[0]), method="simplex")


def test_huge_reward_ratio_does_not_stop_policy_iteration_early():
    """A reward shared by every action (r_H lambda_H N here) must not mask the small
    differences that decide the reserve."""
    net = LossNetwork(200, 0.6, 0.8, 1.0, 1e9, 1.0)
    assert solve_admission_mdp(net).reserve == online_optimum(net).reserve


# --- n classes ------------------------------------------------------------------------

CLASS_NETS = [
    LossNetwork(1, (0.3, 0.9, 0.6), (3, 2, 1), 1.0),  # marginal class 2 (the middle)
    LossNetwork(1, (0.2, 0.3, 1.1), (5, 2, 1), 1.0),  # marginal class 3
    LossNetwork(1, (0.5, 0.3, 0.9), (2, 1.9, 1.5), 1.3),  # marginal class 3, close rewards
]


@pytest.mark.parametrize("net", CLASS_NETS, ids=lambda net: f"marginal{net.marginal}")
@pytest.mark.parametrize("servers", [1, 6, 17, 30])
def test_full_three_class_mdp_equals_the_nested_optimum(net, servers):
    """Every subset of classes in every (b_1, b_2, b_3), and in every busy count: the
    optimum is nested trunk reservation with the reserves policy iteration over nested
    policies finds."""
    net = net.with_servers(servers)
    nested = online_optimum(net)
    for full in (solve_admission_mdp(net, [net.mu] * 3), solve_admission_mdp(net)):
        assert full.online == pytest.approx(nested.online, rel=1e-10)
        assert full.regret == pytest.approx(nested.regret, rel=1e-8, abs=1e-10)
        assert full.reserves == nested.reserves


def test_per_class_service_rates_agree_across_solvers():
    """Policy iteration and the occupation-measure LP (HiGHS) are independent solvers."""
    net = CLASS_NETS[0].with_servers(8)
    rates = [1.0, 0.6, 1.7]
    by_pi = solve_admission_mdp(net, service_rates=rates)
    by_lp = solve_admission_mdp(net, service_rates=rates, method="lp")
    assert by_pi.online == pytest.approx(by_lp.online, rel=1e-8)
    assert 0 < by_pi.online < by_pi.fluid


def test_a_non_nested_policy_is_reported_as_none():
    net = CLASS_NETS[0].with_servers(3)
    opt = solve_admission_mdp(net)
    model = opt.model
    policy = opt.solution.policy.copy()
    room = np.flatnonzero(model.busy.sum(axis=1) < 3)
    policy[room[0]] = 0b011  # reject class 1 in the empty state
    broken = type(opt)(model, type(opt.solution)(0.0, opt.solution.bias, policy, 1), 0.0)
    assert broken.reserves is None


@pytest.mark.parametrize(
    "rates, match",
    [([1.0, 1.0], "one rate per class"), ([1.0, -1.0, 1.0], "service_rates must be finite")],
)
def test_bad_service_rates_are_refused(rates, match):
    with pytest.raises(ValueError, match=match):
        admission_mdp(CLASS_NETS[0].with_servers(3), rates)


def test_bad_method_and_huge_models_are_refused():
    with pytest.raises(ValueError, match="method must be one of"):
        solve_admission_mdp(CLASS_NETS[0].with_servers(3), method="value_iteration")
    with pytest.raises(ValueError, match=r"net\.servers"):
        solve_admission_mdp(CLASS_NETS[0].with_servers(10**4), [1.0] * 3)
    with pytest.raises(AttributeError, match="reserve is class L's reserve of two classes"):
        _ = solve_admission_mdp(CLASS_NETS[0].with_servers(3)).reserve
