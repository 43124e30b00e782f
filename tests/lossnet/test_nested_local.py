"""The n-class online optimum on the states that matter (``nested.local_optimum``, the
float64 route of ``online_optimum`` for more than two classes) against the independent
reference: policy iteration on the whole busy-server chain (``nested.policy_iteration``,
O(nN) per evaluation), and its bias D_b at every state.  The reserves must be identical,
including those of the classes below the marginal one (order N, fixed by the sign of the
bias far from the full state), and the values equal to a few ulps; and the local route
must decide by itself (no fallback) on the report's networks."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from qtheory.core import limits
from qtheory.lossnet import LossNetwork, nested, online_optimum
from qtheory.lossnet.nested import local_optimum, policy_iteration
from qtheory.model.lossnet import as_network
from qtheory.report.lossnet_classes import PARAMETER_SETS

#: Relative agreement of regret, reward and mean idleness with policy iteration (a few
#: ulps: the same arithmetic, summed over fewer states).
ULPS = 8 * 2.0**-52


def assert_same(got, expected):
    assert got.reserves == expected.reserves
    assert got.regret == pytest.approx(expected.regret, rel=ULPS)
    assert got.online == pytest.approx(expected.online, rel=ULPS)
    assert got.fluid == expected.fluid
    assert got.mean_idle == pytest.approx(expected.mean_idle, rel=ULPS)
    assert got.blocking == pytest.approx(expected.blocking, rel=1e-12, abs=1e-300)


def decided(net):
    """The local route's own result, asserting it decided (no fallback)."""
    optimum, ok = nested._local_search(as_network(net), 100)
    assert optimum is not None and ok
    return optimum


@st.composite
def networks(draw, n_classes):
    """Overloaded networks with ``n_classes`` classes, the marginal class anywhere from
    the second to the last, and N from 2 to 2e5."""
    marginal = draw(st.integers(1, n_classes - 1))
    mu = draw(st.sampled_from([0.5, 1.0, 1.7]))
    fill = draw(st.floats(0.2, 0.95))  # λ̄_{m-1} = fill μ
    shares = draw(st.lists(st.floats(0.1, 1.0), min_size=marginal, max_size=marginal))
    above = [fill * mu * s / sum(shares) for s in shares]
    over = draw(st.floats(0.05, 1.5))  # λ̄_m = (1 + over) μ
    lower = draw(
        st.lists(st.floats(0.05, 1.5), min_size=n_classes - 1 - marginal, max_size=n_classes)
    )[: n_classes - 1 - marginal]
    lambdas = tuple(round(x, 4) for x in [*above, mu * (1 + over) - fill * mu, *lower])
    gaps = draw(st.lists(st.floats(0.05, 3.0), min_size=n_classes, max_size=n_classes))
    rewards = tuple(round(x, 3) for x in np.cumsum(gaps[::-1])[::-1])
    small = draw(st.booleans())  # half from 2..2000, half from 2000..2e5 (local windows)
    servers = int(
        np.exp(draw(st.floats(np.log(2 if small else 2000), np.log(2000 if small else 2e5))))
    )
    try:
        net = LossNetwork(servers, lambdas, rewards, mu)
    except ValueError:
        assume(False)
    assume(net.marginal == marginal)
    return net


@settings(max_examples=100, deadline=None, derandomize=True)
@given(net=st.one_of(networks(3), networks(4)))
def test_random_networks_give_the_policy_iteration_optimum(net):
    assert_same(local_optimum(net), policy_iteration(net))


@pytest.mark.parametrize(("label", "net"), PARAMETER_SETS)
@pytest.mark.parametrize("servers", [2, 10, 100, 1000, 10**4, 10**5])
def test_report_networks_give_the_policy_iteration_optimum(label, net, servers):
    net = net.with_servers(servers)
    expected = policy_iteration(net)
    assert_same(local_optimum(net), expected)
    assert online_optimum(net).reserves == expected.reserves
    if servers >= 1000:  # the window is not the whole chain: the local route decides
        assert_same(decided(net), expected)


@pytest.mark.slow
@pytest.mark.parametrize(("label", "net"), PARAMETER_SETS)
def test_report_networks_at_a_million_servers(label, net):
    net = net.with_servers(10**6)
    expected = policy_iteration(net)
    assert_same(decided(net), expected)
    if label == "3a":  # a class below the marginal one: its reserve is of order N
        assert expected.reserves == (0, 9, 200027)


@pytest.mark.parametrize("params", [(0.6, 0.8, 1.0, 2.0, 1.0), (0.3, 2.0, 0.7, 5.0, 0.5)])
@pytest.mark.parametrize("servers", [3000, 10**5])
def test_two_classes_give_the_table_optimum(params, servers):
    net = LossNetwork(servers, *params)
    expected = online_optimum(net, method="table")
    got = decided(net)
    assert got.reserves == expected.reserves
    assert got.regret == pytest.approx(expected.regret, rel=1e-13)


@pytest.mark.parametrize(("label", "net"), PARAMETER_SETS[:3])
def test_local_bias_is_policy_iterations_bias(label, net):
    """D_b of the optimal policy, from the window near the full state and from the local
    head sum far from it, against the whole chain's flux balance at every tenth state
    and on both sides of every threshold."""
    net = net.with_servers(20_000)
    opt = decided(net)
    whole = nested._evaluate(net, nested._policy_of(net, opt.reserves)).shifted_bias
    local = nested._evaluate_local(net, opt.reserves)
    n = net.servers
    states = set(range(0, n, 10)) | {n - k + d for k in opt.reserves[1:] for d in (-2, -1, 0, 1)}
    states = sorted(b for b in states if 0 <= b < n)
    got = np.array([local.bias(b) for b in states])
    error = np.abs(got - whole[states]) / (net.rewards[0] + np.abs(whole[states]))
    # policy iteration's own error: ε |log(w_b/w_N)| or so (weights relative to the full
    # state), half the allowance of the local route's decision rule
    log_weights = np.array([nested._log_weight(net, opt.reserves, b) for b in states])
    assert np.all(error <= 1e-13 + 8 * 2.0**-53 * np.abs(log_weights))
    near = np.array(states) >= n - opt.reserves[net.marginal]  # the window: same arithmetic
    assert np.max(error[near]) < 1e-15


def test_near_ties_and_whole_windows_go_to_policy_iteration(monkeypatch):
    small = PARAMETER_SETS[0][1].with_servers(50)  # the window is the whole chain
    assert nested._local_search(small, 100) == (None, False)
    assert local_optimum(small) == policy_iteration(small)
    net = PARAMETER_SETS[0][1].with_servers(5000)
    expected = policy_iteration(net)
    monkeypatch.setattr(nested, "DECISION_RTOL", 1.0)  # every decision counts as a tie
    optimum, ok = nested._local_search(net, 100)
    assert optimum.reserves == expected.reserves and not ok
    assert local_optimum(net) == expected  # policy iteration's own result
    # policy iteration over the memory limit, the window within it: the local decision
    with limits.raised(memory=nested.BYTES_PER_SERVER * 3 * 1000):
        assert local_optimum(net) == optimum


def test_online_optimum_takes_the_local_route():
    net = PARAMETER_SETS[2][1].with_servers(10**4)
    assert online_optimum(net) == local_optimum(net) == online_optimum(net, method="local")
    with pytest.raises(ValueError, match="dps: method 'local' is float64 only"):
        online_optimum(net, dps=20, method="local")


def test_a_billion_servers_need_only_the_states_that_matter():
    """N = 10^9: whole-chain policy iteration is refused (memory), the local route
    answers; its decisions there are within policy iteration's rounding (ε|log w_b| is
    about 1e-8), so it keeps its own."""
    net = PARAMETER_SETS[0][1].with_servers(10**9)
    opt = online_optimum(net)
    assert opt.reserves[:2] == (0, 14) and abs(opt.reserves[2] - 2 * 10**8) < 100
    near_critical = LossNetwork(10**9, (0.3, 0.7 + 1e-9, 0.6), (3, 2, 1), 1.0)
    with pytest.raises(ValueError, match=r"net\.servers: .* bytes"):
        online_optimum(near_critical)  # T about 4e10 > N: the whole chain
