"""The full admission MDP (no assumption on the policy's form) against the O(N)
trunk-reservation search, and its two solvers (policy iteration, LP) against each other."""

import pytest

from qtheory.lossnet import LossNetwork, online_optimum
from qtheory.lossnet.mdp import solve_admission_mdp

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
    flat, split = solve_admission_mdp(net), solve_admission_mdp(net, service_rate_l=net.mu)
    assert split.online == pytest.approx(flat.online, rel=1e-10)
    assert split.reserve == flat.reserve


@pytest.mark.parametrize("mu_l", [0.5, 2.0])
def test_per_class_service_rates(mu_l):
    net = LossNetwork(20, *PARAMS[0])
    pi = solve_admission_mdp(net, service_rate_l=mu_l)
    lp = solve_admission_mdp(net, service_rate_l=mu_l, method="lp")
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
