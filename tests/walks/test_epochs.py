"""Epochs and renewal reward (qtheory.walks.epochs)."""

from types import SimpleNamespace

import numpy as np
import pytest
from conftest import ALPHA, assert_estimate_matches, assert_rejects, t_tolerance

from qtheory.core.stats import Estimate
from qtheory.exact.ctmc import stationary
from qtheory.lossnet.fluid import fluid_bound
from qtheory.lossnet.online import threshold_table
from qtheory.model.lossnet import LossNetwork
from qtheory.sim.lossnet import simulate, trace
from qtheory.walks.epochs import (
    EpochMeans,
    Epochs,
    epochs_from_trace,
    markov_epoch_means,
    renewal_reward,
    trunk_reservation_generator,
)

NETS = [
    LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0),
    LossNetwork(50, 0.9, 0.3, 1.0, 5.0, 1.0),
    LossNetwork(7, 0.2, 3.0, 2.0, 1.5, 1.0),
]


@pytest.mark.parametrize("net", NETS)
@pytest.mark.parametrize("reserve", [0, 1, 4])
@pytest.mark.parametrize("reset", [0, 1, 3])
def test_renewal_reward_of_exact_epochs_is_the_stationary_rate(net, reserve, reset):
    """First passage (per-epoch means) and the stationary distribution (threshold_table)
    are independent routes to the same long-run rates."""
    means = markov_epoch_means(net, reserve, reset=reset)
    table = threshold_table(net)
    assert means.mean_idle == pytest.approx(table.mean_idle[reserve], rel=1e-10)
    assert means.loss_rate_h == pytest.approx(
        net.arrival_rate_h * table.prob_full[reserve], rel=1e-9
    )
    assert fluid_bound(net) - means.reward_rate(net) == pytest.approx(
        table.regret[reserve], rel=1e-9, abs=1e-9
    )
    # Every arrival is either admitted or turned away.
    arrivals = means.length * (net.arrival_rate_h + net.arrival_rate_l)
    total = means.admitted_h + means.lost_h + means.admitted_l + means.rejected_l
    assert total == pytest.approx(arrivals, rel=1e-10)


def test_mean_epoch_length_is_one_over_the_entrance_rate():
    """Kac: the mean time between entrances into level r is 1 / (pi_r q_r)."""
    net = NETS[0]
    reserve, reset = 2, 1
    means = markov_epoch_means(net, reserve, reset=reset)
    Q = trunk_reservation_generator(net, reserve)
    pi = stationary(Q)
    assert means.length == pytest.approx(1 / (pi[reset] * -Q[reset, reset]), rel=1e-10)


def test_epoch_means_rates():
    m = EpochMeans(2.0, 3.0, 0.5, 4.0, 5.0, 6.0)
    net = NETS[0]
    assert m.rejection_rate_l == 2.0
    assert m.reward_rate(net) == pytest.approx((2.0 * 5.0 + 1.0 * 6.0) / 2.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"reserve": 21}, r"reserve must be in 0..servers = 0..20"),
        ({"reserve": 1.5}, "reserve must be an integer"),
        ({"reserve": 1, "reset": -1}, r"reset must be in 0..servers"),
    ],
)
def test_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        markov_epoch_means(NETS[0], **kwargs)


def test_large_system_is_fast_and_finite():
    means = markov_epoch_means(LossNetwork(20_000, 0.6, 0.8, 1.0, 2.0, 1.0), 15)
    assert np.isfinite(means.mean_idle) and means.length > 0


# ---------------------------------------------------------------------------
# simulated epochs
#
# Each comparison below is two-sided at false-failure rate ALPHA = 1e-4 (conftest), with
# the estimator's own standard error (for PFI and SSS approximately, their epochs being
# only nearly i.i.d.), so a test making k comparisons fails falsely with probability
# about k x 1e-4 (5e-4 and 2e-4 below); seeds are fixed.


def _epochs(net, policy, horizon, seed):
    return epochs_from_trace(trace(net, policy, horizon=horizon, seed=seed), warmup=2.0)


def test_simulated_epochs_match_the_exact_per_epoch_means():
    net = LossNetwork(30, 0.6, 0.8, 1.0, 2.0, 1.0)
    epochs = _epochs(net, "threshold:2", 1500.0, seed=11)
    exact = markov_epoch_means(net, reserve=2)
    for name in ("length", "idle_area", "lost_h", "rejected_l", "admitted_l"):
        assert_estimate_matches(Estimate.of(getattr(epochs, name)), getattr(exact, name))


def test_which_epoch_an_event_belongs_to():
    """Hand-built trajectory (N = 3, reset level 1).  Event k holds idle[k] until event
    k + 1; the arrival that brings the idle count into 1 closes the epoch it ends."""
    trajectory = SimpleNamespace(
        servers=3,
        horizon=10.0,
        times=np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]),
        # H admit 3->2, H admit 2->1 (enters 1), L rejected, departure 1->2,
        # H admit 2->1 (enters 1), H admit 1->0, departure 0->1 (enters 1)
        codes=np.array([-1, -1, -2, 0, -1, -1, 0], dtype=np.int32),
        decisions=np.array([1, 1, 0, -1, 1, 1, -1], dtype=np.int8),
        idle=np.array([2, 1, 1, 2, 1, 0, 1]),
    )
    epochs = epochs_from_trace(trajectory)
    assert epochs.count == 2
    assert list(epochs.start) == [2.0, 5.0] and list(epochs.length) == [3.0, 2.0]
    # First epoch [2, 5): idle 1 on [2, 4), 2 on [4, 5); the L rejection at 3 and the H
    # admission at 5 that re-enters 1 belong to it, the admission at 2 does not.
    assert list(epochs.idle_area) == [4.0, 1.0]
    assert list(epochs.rejected_l) == [1.0, 0.0]
    assert list(epochs.admitted_h) == [1.0, 1.0]


def test_cut_epochs_tile_the_trajectory():
    net = LossNetwork(12, 0.6, 0.8, 1.0, 2.0, 1.0)
    tr = trace(net, "pfi", horizon=50.0, seed=4)
    epochs = epochs_from_trace(tr)
    assert np.allclose(epochs.start[1:], epochs.start[:-1] + epochs.length[:-1])
    # The idle area of the epochs equals the area of the trajectory over their span.
    inside = (tr.times >= epochs.start[0]) & (tr.times < epochs.start[-1] + epochs.length[-1])
    holding = np.diff(tr.times, append=tr.horizon)
    assert epochs.idle_area.sum() == pytest.approx((tr.idle * holding)[inside].sum(), rel=1e-12)


@pytest.mark.parametrize("policy", ["pfi", "sss:0.05", "threshold:3"])
def test_renewal_reward_agrees_with_the_simulated_long_run_rates(policy):
    """Renewal reward over the epochs of one long path against the time averages of
    independent replications from simulate() (different seeds)."""
    net = LossNetwork(200, 0.6, 0.8, 1.0, 2.0, 1.0)
    rr = renewal_reward(_epochs(net, policy, 300.0, seed=21), net)
    sim = simulate(net, policy, horizon=60.0, warmup=2.0, reps=10, seed=22)
    for ours, theirs in ((rr.mean_idle, sim.mean_idle), (rr.reward_rate, sim.reward_rate)):
        assert ours.method == "normal" and theirs.method == "t"
        # the difference of independent estimates; the t quantile of the replications
        # (the smaller dof) makes the allowance conservative
        standard_error = np.hypot(ours.stderr, theirs.stderr)
        allowance = t_tolerance(standard_error, theirs.dof, ALPHA)
        assert abs(ours.mean - theirs.mean) < allowance


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"reset": 13}, r"reset must be in 0..servers = 0..12"), ({"warmup": -1.0}, "warmup")],
)
def test_epochs_bad_input(kwargs, message):
    tr = trace(LossNetwork(12, 0.6, 0.8, 1.0, 2.0, 1.0), "pfi", horizon=5.0, seed=4)
    assert_rejects(epochs_from_trace, tr, match=message, **kwargs)


def test_wrong_types_are_named():
    """Regression: epochs_from_trace(0.0) and renewal_reward(0, 0) raised AttributeError."""
    assert_rejects(epochs_from_trace, 0.0, match="trace must be a qtheory.sim.lossnet.Trace")
    assert_rejects(renewal_reward, 0, 0, match="epochs must be an Epochs")
    epochs = Epochs(*(np.ones(3) for _ in range(7)))
    assert_rejects(renewal_reward, epochs, "net", match="net must be a LossNetwork")
    assert_rejects(markov_epoch_means, None, 1, match="net must be a LossNetwork")
    assert_rejects(markov_epoch_means, NETS[0].with_servers(10**10), 1, match="^servers: ")


def test_cost_is_the_fluid_bound_minus_the_reward_rate():
    net = NETS[0]
    rr = renewal_reward(_epochs(net, "threshold:2", 200.0, seed=5), net)
    assert rr.cost.mean == pytest.approx(fluid_bound(net) - rr.reward_rate.mean, rel=1e-12)
    assert rr.cost.halfwidth == rr.reward_rate.halfwidth


def test_renewal_reward_needs_two_epochs():
    empty = Epochs(*(np.zeros(1) for _ in range(7)))
    with pytest.raises(ValueError, match="at least 2 complete epochs"):
        renewal_reward(empty, NETS[0])
