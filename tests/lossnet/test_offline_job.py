"""The job-model offline optimum: the HiGHS min-cost-flow LP against exhaustive search
and against the one-track dynamic programme, integrality and feasibility of what it
returns, the horizon convention (an upper bound on every policy on the same path), the
path sampler, and bad input."""

import heapq

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qtheory.lossnet import LossNetwork
from qtheory.lossnet.offline_job import (
    brute_force_selection,
    max_overlap,
    max_weight_interval_selection,
    offline_job_optimum,
    sample_job_path,
    simulate_offline_job,
    single_track_selection,
)
from qtheory.sim.lossnet import simulate

NET = LossNetwork(20, 0.6, 0.6, 1.0, 2.0, 1.0)


@st.composite
def intervals(draw, max_size):
    """Intervals on a coarse integer grid, so that shared endpoints (a job ending exactly
    when another starts) and identical intervals are common."""
    size = draw(st.integers(0, max_size))
    starts = np.array(draw(st.lists(st.integers(0, 10), min_size=size, max_size=size)), float)
    lengths = np.array(draw(st.lists(st.integers(1, 5), min_size=size, max_size=size)), float)
    weights = np.array(
        draw(st.lists(st.sampled_from([-1.0, 0.0, 1.0, 2.0, 3.5]), min_size=size, max_size=size))
    )
    return starts, starts + lengths, weights


def check_selection(selection, starts, ends, weights, tracks):
    chosen = selection.selected
    assert chosen.dtype == bool and chosen.shape == starts.shape
    assert max_overlap(starts[chosen], ends[chosen]) <= tracks
    assert selection.value == pytest.approx(weights[chosen].sum(), abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(data=intervals(max_size=9), tracks=st.integers(1, 4))
def test_lp_matches_brute_force_on_tiny_instances(data, tracks):
    starts, ends, weights = data
    lp = max_weight_interval_selection(starts, ends, weights, tracks)
    brute = brute_force_selection(starts, ends, weights, tracks)
    assert lp.value == pytest.approx(brute.value, abs=1e-12)
    check_selection(lp, starts, ends, weights, tracks)
    check_selection(brute, starts, ends, weights, tracks)


@settings(max_examples=60, deadline=None)
@given(data=intervals(max_size=40))
def test_one_track_dp_matches_lp(data):
    starts, ends, weights = data
    dp = single_track_selection(starts, ends, weights)
    lp = max_weight_interval_selection(starts, ends, weights, 1)
    assert dp.value == pytest.approx(lp.value, abs=1e-12)
    check_selection(dp, starts, ends, weights, 1)


def test_one_track_dp_matches_lp_on_a_sampled_path():
    net = NET.with_servers(1)
    path = sample_job_path(net, 500.0, np.random.default_rng(11))
    kw = dict(servers=1, r_h=2.0, r_l=1.0, horizon=500.0, warmup=20.0)
    arrays = (path.arrival_times, path.classes, path.service_times)
    lp = offline_job_optimum(*arrays, **kw)
    dp = offline_job_optimum(*arrays, method="dp", **kw)
    assert lp.value == dp.value
    assert (lp.admitted_h, lp.admitted_l) != (0, 0)


def test_half_open_intervals_share_an_endpoint():
    # [0, 1) and [1, 2) do not overlap: both fit on one server.
    assert max_overlap([0.0, 1.0], [1.0, 2.0]) == 1
    assert max_weight_interval_selection([0.0, 1.0], [1.0, 2.0], [1.0, 1.0], 1).value == 2.0
    assert single_track_selection([0.0, 1.0], [1.0, 2.0], [1.0, 1.0]).value == 2.0


def test_lp_solution_on_a_long_path_is_integral_and_feasible():
    path = sample_job_path(NET, 60.0, np.random.default_rng(5))
    sol = offline_job_optimum(
        path.arrival_times,
        path.classes,
        path.service_times,
        servers=NET.servers,
        r_h=NET.r_h,
        r_l=NET.r_l,
        horizon=60.0,
    )
    chosen = sol.selected
    ends = path.arrival_times + path.service_times
    assert max_overlap(path.arrival_times[chosen], ends[chosen]) == NET.servers
    rewards = np.where(path.classes == 0, NET.r_h, NET.r_l)
    assert sol.value == rewards[chosen].sum()
    assert sol.admitted_h + sol.admitted_l == chosen.sum()
    assert sol.counted_h + sol.counted_l == path.arrival_times.size
    assert sol.reward_rate == sol.value / 60.0


def trunk_reservation_reward(path, servers, reserve, r_h, r_l, horizon, warmup):
    """Trunk reservation run on the whole path from an empty system at time 0; reward
    counted for arrivals in (warmup, horizon]: a slow, obvious event loop."""
    departures: list[float] = []
    reward = 0.0
    for arrival, kind, service in zip(
        path.arrival_times, path.classes, path.service_times, strict=True
    ):
        while departures and departures[0] <= arrival:
            heapq.heappop(departures)
        idle = servers - len(departures)
        if idle > (0 if kind == 0 else reserve):
            heapq.heappush(departures, arrival + service)
            if warmup < arrival <= horizon:
                reward += r_h if kind == 0 else r_l
    return reward


@pytest.mark.parametrize("reserve", [0, 2, 5])
def test_offline_bounds_every_policy_whatever_its_state_at_the_warmup(reserve):
    """The policy starts at 0 and is busy at the warm-up time T0; the offline value
    (a system empty at T0) still bounds its reward over (T0, T]."""
    path = sample_job_path(NET, 40.0, np.random.default_rng(reserve))
    kw = dict(servers=NET.servers, r_h=NET.r_h, r_l=NET.r_l, horizon=30.0, warmup=10.0)
    off = offline_job_optimum(path.arrival_times, path.classes, path.service_times, **kw)
    policy = trunk_reservation_reward(path, reserve=reserve, **kw)
    assert policy <= off.value


def test_window_convention():
    # Warm-up job (arrival == warmup), counted jobs, a job arriving exactly at the
    # horizon, one running past it, and one arriving after it.
    arrivals = [1.0, 1.5, 2.0, 4.0, 5.0]
    classes = [0, 0, 1, 1, 0]
    service = [10.0, 1.0, 100.0, 5.0, 1.0]
    sol = offline_job_optimum(
        arrivals, classes, service, servers=5, r_h=2.0, r_l=1.0, horizon=4.0, warmup=1.0
    )
    assert sol.selected.tolist() == [False, True, True, True, False]
    assert sol.value == 4.0
    assert (sol.counted_h, sol.counted_l) == (1, 2)
    assert sol.reward_rate == pytest.approx(4.0 / 3.0)


def test_sampler_is_reproducible_and_has_the_right_rates():
    one = sample_job_path(NET, 200.0, np.random.SeedSequence(3))
    two = sample_job_path(NET, 200.0, np.random.SeedSequence(3))
    for field in ("arrival_times", "classes", "service_times"):
        np.testing.assert_array_equal(getattr(one, field), getattr(two, field))
    # Statistical (fixed seed): Poisson counts of mean 2400 and 4800 Exp(1) service
    # times; 5 standard deviations, false-failure rate below 1e-6 each.
    expected_h = NET.arrival_rate_h * 200.0
    assert abs(np.count_nonzero(one.classes == 0) - expected_h) < 5 * np.sqrt(expected_h)
    assert abs(one.service_times.mean() - 1.0) < 5 / np.sqrt(one.service_times.size)
    assert np.all(np.diff(one.arrival_times) >= 0)
    assert 0 < one.arrival_times.min() and one.arrival_times.max() <= 200.0


def test_empty_and_worthless_inputs():
    assert max_weight_interval_selection([], [], [], 3).value == 0.0
    assert max_weight_interval_selection([0.0], [1.0], [-2.0], 1).selected.tolist() == [False]
    empty = offline_job_optimum([], [], [], servers=2, r_h=2.0, r_l=1.0, horizon=1.0)
    assert empty.value == 0.0 and empty.selected.size == 0


GOOD = dict(
    arrival_times=[0.5, 1.0],
    classes=[0, 1],
    service_times=[1.0, 1.0],
    servers=1,
    r_h=2.0,
    r_l=1.0,
    horizon=2.0,
)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(arrival_times=[1.0, 0.5]), "arrival_times must be sorted"),
        (dict(arrival_times=[0.5, np.nan]), "arrival_times must be finite"),
        (dict(arrival_times=[0.5]), "equal length"),
        (dict(classes=[0, 2]), "classes must be 0"),
        (dict(service_times=[1.0, 0.0]), "service_times must be finite and > 0"),
        (dict(service_times=[1.0, np.inf]), "service_times must be finite and > 0"),
        (dict(servers=0), "servers must be >= 1"),
        (dict(servers=1.5), "servers must be an integer"),
        (dict(r_l=-1.0), "r_l must be > 0"),
        (dict(r_h=np.nan), "r_h must not be NaN"),
        (dict(horizon=0.0, warmup=0.0), "horizon must be finite and > warmup"),
        (dict(horizon=np.inf), "horizon must be finite and > warmup"),
        (dict(method="simplex"), "method must be one of"),
        (dict(servers=2, method="dp"), "method='dp' needs servers == 1"),
    ],
)
def test_bad_input(change, message):
    with pytest.raises(ValueError, match=message):
        offline_job_optimum(**{**GOOD, **change})


def test_bad_intervals():
    with pytest.raises(ValueError, match="ends must be > starts"):
        max_weight_interval_selection([0.0], [0.0], [1.0], 1)
    with pytest.raises(ValueError, match="tracks must be >= 1"):
        max_weight_interval_selection([0.0], [1.0], [1.0], 0)
    with pytest.raises(ValueError, match="weights must be finite"):
        single_track_selection([0.0], [1.0], [np.nan])
    with pytest.raises(ValueError, match="at most 16 intervals"):
        brute_force_selection(np.arange(17.0), np.arange(17.0) + 1, np.ones(17), 1)


def test_job_model_offline_bounds_trunk_reservation_on_every_path():
    """The job-model offline optimum (min-cost-flow LP) is at least the reward of trunk
    reservation on the same exported paths: an exact, path-by-path inequality."""
    net = LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0)
    kwargs = dict(info="job", horizon=60.0, warmup=5.0, reps=5, seed=17)
    offline = simulate_offline_job(net, **{k: v for k, v in kwargs.items() if k != "info"})
    online = simulate(net, "threshold:2", **kwargs)
    assert np.all(offline.reward_rates >= online.reward_rates - 1e-12)


@pytest.mark.parametrize("horizon", [1e4, 1e9, 1e300])
def test_offline_job_runs_out_of_all_proportion_are_refused_up_front(horizon):
    """Regression: `lossnet simulate --policy offline --info job --horizon 1e4` took
    7.4 GB before failing; the LP's memory (about 3 kB per job) is estimated first."""
    net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    with pytest.raises(ValueError, match="horizon"):
        simulate_offline_job(net, horizon=horizon, reps=2, seed=1)
