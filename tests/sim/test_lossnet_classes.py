"""The n-class loss-network simulator (qtheory.sim._core.lossnet_classes_simulate and
qtheory.sim.lossnet_classes) against independent references.

- n = 2: the two-class entry points are the same kernel, so every statistic and every
  traced event must be identical for the same seed.
- Nested trunk reservation: its long-run reward rate is that of a birth-death chain on
  the busy count, computed here from the stationary law (qtheory.exact.birth_death).
- PFI, SSS(W) and nested trunk reservation: the rules as defined, in plain Python
  (qtheory.lossnet.policies: for the look-ahead rules the literal, slow scan of the
  hypothetical future, better classes admitted, the arriving class and worse ones
  rejected), decision by decision on a path exported by a trace.
- Offline: >= every online policy on the same events, and equal to the best of all
  admit/reject sequences on tiny paths.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from conftest import FUZZ, anything, assert_clean_outcome
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sps

from qtheory.exact.birth_death import birth_death_stationary
from qtheory.lossnet.policies import replay
from qtheory.model.lossnet import LossNetwork
from qtheory.model.paths import ClockPath
from qtheory.sim import _core
from qtheory.sim.lossnet import clock_path, compare, simulate, trace
from qtheory.sim.lossnet_policies import parse_policy

THREE = LossNetwork(10, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)  # marginal: class 2
FOUR = LossNetwork(10, (0.2, 0.3, 0.7, 0.5), (4.0, 3.0, 2.0, 1.0), 1.0)  # marginal: class 3
LAST = LossNetwork(10, (0.4, 0.3, 0.5), (3.0, 2.0, 1.0), 1.0)  # marginal: class 3 (the last)


def c_classes(net, policy, param, horizon, seed, warmup=0.0, trace=False, isa=None):
    return _core.lossnet_classes_simulate(
        np.random.PCG64(seed), policy, param, net.servers, list(net.lambdas), list(net.rewards),
        net.mu, horizon, warmup, trace=trace, isa=isa,
    )  # fmt: skip


# ------------------------------------------------------------------ n = 2


@pytest.mark.parametrize("servers", [3, 10, 150])
@pytest.mark.parametrize(
    ("policy", "two_param", "class_param"),
    [("threshold", 2.0, [0, 2]), ("threshold", 0.0, [0, 0]), ("pfi", 0.0, 0.0),
     ("sss", 0.3, 0.3), ("offline", 0.0, 0.0), ("offline", -1.0, -1.0)],
)  # fmt: skip
@pytest.mark.parametrize("rewards", [(2.0, 1.0), (1.7, 0.3)])
def test_two_classes_equal_the_two_class_simulator(servers, policy, two_param, class_param,
                                                   rewards):  # fmt: skip
    """Same seed, same kernel: identical counts, areas, look-ahead sums and traces."""
    net = LossNetwork(servers, 0.6, 0.8, 1.0, *rewards)
    for seed in (0, 1):
        two = _core.lossnet_simulate(
            np.random.PCG64(seed), "clock", policy, min(two_param, servers), servers, 0.6, 0.8,
            1.0, *rewards, 40.0, 5.0, trace=True,
        )  # fmt: skip
        many = c_classes(net, policy, class_param, 40.0, seed, 5.0, trace=True)
        assert many["admitted"] == [two["admitted_h"], two["admitted_l"]]
        assert many["rejected"] == [two["rejected_h"], two["rejected_l"]]
        assert many["arrivals_scored"] == two["l_arrivals_scored"]
        for key in ("idle_area", "events", "reward_total", "lookahead_events", "lookahead_time",
                    "offline_band"):  # fmt: skip
            assert many[key] == two[key], key
        for key in ("trace_t", "trace_code", "trace_decision", "trace_busy"):
            assert np.array_equal(many[key], two[key]), key


# ------------------------------------------------------------------ trunk reservation


def exact_reward_rate(net: LossNetwork, reserves) -> float:
    """Long-run reward rate of nested trunk reservation: the busy count is a birth-death
    chain with birth rate N sum_{j: b < N - k_j} lambda_j and death rate mu b; an arrival
    of class j admitted at b pays r_j (PASTA)."""
    n = net.servers
    admitted = np.array([[b < n - k for k in reserves] for b in range(n + 1)], dtype=float)
    lambdas, rewards = np.array(net.lambdas), np.array(net.rewards)
    birth = n * admitted[:n] @ lambdas
    death = net.mu * np.arange(1, n + 1)
    pi = birth_death_stationary(birth, death)
    return float(pi @ (n * admitted @ (lambdas * rewards)))


@pytest.mark.parametrize(
    ("servers", "reserves", "horizon"),
    [(100, (0, 2, 9), 2000.0), (100, (0, 0, 4), 2000.0), (1000, (0, 6, 30), 200.0)],
)
@pytest.mark.parametrize("net", [THREE, LAST], ids=["marginal-middle", "marginal-last"])
def test_trunk_reservation_matches_the_birth_death_reward_rate(net, servers, reserves, horizon):
    """20 replications from empty, warm-up 5 (the busy count relaxes at rate mu = 1: its
    bias is below e^-5 of the fill-up's O(N) reward deficit per unit time, far below the
    standard error).  The gap is tested against 4.5 standard errors: false-failure rate
    P(|t_19| > 4.5) = 2.4e-4 per case, 1.5e-3 for the six.  At N = 100 the test resolves
    the misreading "idle >= k_j" (every positive reserve one more): it is more than
    6 standard errors away, so a kernel with that bug would fail with probability > 0.9."""
    net = net.with_servers(servers)
    policy = "threshold:" + ",".join(map(str, reserves))
    res = simulate(net, policy, horizon=horizon, warmup=5.0, reps=20, seed=11)
    exact = exact_reward_rate(net, reserves)
    se = np.std(res.reward_rates, ddof=1) / math.sqrt(res.reps)
    assert abs(res.reward_rate.mean - exact) < 4.5 * se, (res.reward_rate.mean, exact, se)
    assert se < 1e-3 * exact
    misread = [k + 1 if k > 0 else 0 for k in reserves]
    assert servers > 100 or abs(exact_reward_rate(net, misread) - exact) > 6 * se
    assert 2 * sps.t.sf(4.5, 19) < 2.5e-4


# ------------------------------------------------------------------ PFI and SSS


@pytest.mark.parametrize("net", [THREE, FOUR, LAST], ids=["three", "four", "last"])
@pytest.mark.parametrize("servers", [4, 10, 25])
@pytest.mark.parametrize("policy", ["pfi", "sss:0.15", "sss:0.6"])
def test_lookahead_decisions_match_the_literal_scan(net, servers, policy):
    """A few hundred events per seed; the path is exported by a trace four times as long
    (the event stream does not depend on the policy)."""
    net = net.with_servers(servers)
    horizon = 400.0 / net.event_rate
    name, param = parse_policy(policy, net)
    lookahead_arrivals = 0
    for seed in range(4):
        path = trace(net, "threshold:" + ",".join("0" * net.n_classes),
                             horizon=4 * horizon, seed=seed)  # fmt: skip
        out = c_classes(net, name, param, horizon, seed, trace=True)
        count = out["trace_code"].size
        assert np.array_equal(out["trace_code"], path.codes[:count])
        ref = replay(ClockPath(path.times, path.codes), net, policy, events=count)
        assert np.array_equal(out["trace_decision"], ref.decisions)
        if name == "pfi":
            assert out["lookahead_events"] == ref.lookahead_events
            assert out["lookahead_time"] == ref.lookahead_time  # the same sums, same order
        lookahead_arrivals += int(np.sum(out["trace_code"] < -1))
        assert out["arrivals_scored"] == np.sum(out["trace_code"] < -1)
    assert lookahead_arrivals > 200


@pytest.mark.parametrize("isa", ["generic", None])
@pytest.mark.parametrize("net", [THREE, FOUR], ids=["three", "four"])
def test_pfi_statistics_match_the_literal_scan_over_many_chunks(net, isa):
    """About 20,000 events at N = 25: the walks' chunks (4096 events) wrap around the
    event ring many times, with both twins of the walks' list (one key at a time, and
    the processor's best: sixteen with AVX-512)."""
    net = net.with_servers(25)
    horizon = 20_000 / net.event_rate
    path = trace(net, "threshold:" + ",".join("0" * net.n_classes), horizon=2 * horizon, seed=5)
    out = c_classes(net, "pfi", 0.0, horizon, 5, warmup=horizon / 10, trace=True, isa=isa)
    count = out["trace_code"].size
    assert count > 15_000 and np.array_equal(out["trace_code"], path.codes[:count])
    ref = replay(ClockPath(path.times, path.codes), net, "pfi", events=count,
                 warmup=horizon / 10)  # fmt: skip
    assert np.array_equal(out["trace_decision"], ref.decisions)
    assert out["lookahead_events"] == ref.lookahead_events > 0
    assert out["lookahead_time"] == ref.lookahead_time  # the same sums, same order


@pytest.mark.parametrize("net", [THREE, FOUR, LAST], ids=["three", "four", "last"])
@pytest.mark.parametrize("servers", [4, 25])
def test_nested_threshold_decisions_match_the_rule(net, servers):
    """Nested trunk reservation in C against the rule as written (admit class j iff more
    than k_j servers are idle), decision by decision."""
    net = net.with_servers(servers)
    policy = "threshold:" + ",".join(str(min(k, servers)) for k in (0, 1, 3, 6)[: net.n_classes])
    for seed in range(2):
        tr = trace(net, policy, horizon=300.0 / net.event_rate, seed=seed)
        ref = replay(ClockPath(tr.times, tr.codes), net, policy)
        assert np.array_equal(tr.decisions, ref.decisions)


def test_lookahead_admits_better_classes_more_readily():
    """The hypothetical walks are nested (a worse class sees more downward steps), so on
    the same path the admitted share falls with the class.  N = 400, marginal class 2."""
    net = THREE.with_servers(400)
    for policy in ("pfi", "sss:0.05"):
        res = simulate(net, policy, horizon=20.0, warmup=2.0, reps=2, seed=3)
        share = [a / (a + r) for a, r in zip(res.admitted, res.rejected, strict=True)]
        assert share[0] > share[1] > share[2], (policy, share)


# ------------------------------------------------------------------ offline


def brute_force(codes, servers, rewards):
    """The best total reward over every admit/reject choice of the arrivals of a path
    (an admission with every server busy is infeasible)."""
    arrivals = [i for i, c in enumerate(codes) if c < 0]
    best = -math.inf
    for choice in itertools.product((0, 1), repeat=len(arrivals)):
        admit = dict(zip(arrivals, choice, strict=True))
        busy, total, feasible = 0, 0.0, True
        for i, code in enumerate(codes):
            if code >= 0:
                busy -= int(code < busy)
            elif admit[i]:
                if busy == servers:
                    feasible = False
                    break
                busy += 1
                total += rewards[-code - 1]
        if feasible:
            best = max(best, total)
    return best


@pytest.mark.parametrize(
    ("net", "servers"), [(THREE, 2), (THREE, 3), (FOUR, 2), (FOUR, 3), (LAST, 2)]
)
@pytest.mark.parametrize("rewards", ["integer", "irrational"])
def test_offline_equals_brute_force_on_tiny_paths(net, servers, rewards):
    if rewards == "irrational":
        net = LossNetwork(servers, net.lambdas,
                           tuple(math.sqrt(2) * r + 0.1 * j for j, r in enumerate(net.rewards)),
                           net.mu)  # fmt: skip
    net = net.with_servers(servers)
    checked = 0
    for seed in range(12):
        out = c_classes(net, "offline", 0.0, 5.0 / net.event_rate * 3, seed, trace=True)
        codes = out["trace_code"]
        if np.sum(codes < 0) > 13:
            continue
        best = brute_force(codes.tolist(), servers, net.rewards)
        assert math.isclose(out["reward_total"], best, rel_tol=1e-12), seed
        path_reward = sum(net.rewards[-c - 1] for c, d in zip(codes, out["trace_decision"],
                                                             strict=True) if d == 1)  # fmt: skip
        assert math.isclose(path_reward, best, rel_tol=1e-12)
        checked += 1
    assert checked >= 8


@pytest.mark.parametrize("net", [THREE, FOUR, LAST], ids=["three", "four", "last"])
@pytest.mark.parametrize("servers", [10, 60, 300])
def test_offline_dominates_every_online_policy_on_the_same_events(net, servers):
    net = net.with_servers(servers)
    k = math.isqrt(servers)
    reserves = [0] + [min(servers, k * j) for j in range(1, net.n_classes)]
    online = [("threshold", reserves), ("threshold", [0] * net.n_classes), ("pfi", 0.0),
              ("sss", 0.1), ("sss", 1.0)]  # fmt: skip
    horizon = 3000.0 / net.event_rate
    for seed in range(3):
        best = c_classes(net, "offline", 0.0, horizon, seed)
        # the band (marginal class last) or the programme of segments (one class below
        # it) runs above 4 x 32 + 1 servers; with more classes below, the full one
        full_expected = servers <= 4 * 32 + 1 or net.marginal < net.n_classes - 2
        assert (best["offline_band"] == servers) == full_expected
        for name, param in online:
            other = c_classes(net, name, param, horizon, seed)
            assert best["reward_total"] >= other["reward_total"], (name, param)


STATS = ("admitted", "rejected", "reward_total", "idle_area", "events", "trace_decision",
         "trace_busy")  # fmt: skip


def assert_same_optimum(programme, full):
    """Every statistic and the traced decisions and busy counts of two offline runs on
    the same path are identical."""
    for key in STATS:
        assert np.array_equal(programme[key], full[key]), key


@pytest.mark.parametrize("net", [LAST, LossNetwork(10, (0.2, 0.3, 0.3, 0.5), (4, 3, 2, 1), 1.0)],
                         ids=["three", "four"])  # fmt: skip
def test_offline_band_equals_the_full_programme(net):
    """N = 400 > 4 x 32 + 1 with integer rewards and the last class marginal: the
    certified band runs, and its optimal path is the full programme's, bit for bit."""
    net = net.with_servers(400)
    band = c_classes(net, "offline", 0.0, 5.0, 2, trace=True)
    full = c_classes(net, "offline", -1.0, 5.0, 2, trace=True)
    assert band["offline_band"] < 400 and full["offline_band"] == 400
    assert_same_optimum(band, full)


# One class below the marginal one (marginal: class 2 of 3; a third network with
# rewards 1.5, 1, 0.25 and a lower class that is a sizeable share of the load).
BELOW = [THREE, FOUR, LossNetwork(10, (0.45, 0.7, 0.9), (1.5, 1.0, 0.25), 1.0)]


@pytest.mark.parametrize("net", BELOW, ids=["three", "four", "three-heavy"])
@pytest.mark.parametrize("servers", [150, 400, 1000])
def test_segments_equal_the_full_programme(net, servers):
    """One class below the marginal one: the programme of segments (the band K = 32 and
    the whole stack as segments and gaps) takes the full programme's decisions, bit for
    bit, on paths whose lower-class arrivals meet idle counts far outside the band while
    the servers fill up, admitted there at some and refused at others."""
    net = net.with_servers(servers)
    far_admitted = far_refused = 0
    for seed in range(2):
        segments = c_classes(net, "offline", 0.0, 4.0, seed, warmup=1.0, trace=True)
        full = c_classes(net, "offline", -1.0, 4.0, seed, warmup=1.0, trace=True)
        assert segments["offline_band"] == 32 and full["offline_band"] == servers
        assert_same_optimum(segments, full)
        codes, decisions = full["trace_code"], full["trace_decision"]
        idle_before = servers - full["trace_busy"] + (decisions == 1)
        far = decisions[(codes == -net.n_classes) & (idle_before > 33)]
        far_admitted += np.sum(far == 1)
        far_refused += np.sum(far == 0)
    assert far_admitted > 0 and far_refused > 0


def random_one_below(count, seed):
    """Networks of 3 or 4 classes with exactly one class below the marginal one, dyadic
    rewards, N from 130 to 1500, and a path seed."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(3, 5))
        head = rng.uniform(0.05, 1.0, size=n - 2)  # classes 1..n-2 fit in mu = 1 ...
        head *= rng.uniform(0.2, 0.98) / head.sum()
        marginal = rng.uniform(1.02, 1.6) - head.sum()  # ... and with class n-1 overload it
        lambdas = (*head.tolist(), float(marginal), float(rng.uniform(0.1, 2.0)))
        rewards = np.sort(rng.choice(np.arange(1, 41), size=n, replace=False))[::-1] / 8.0
        servers = int(rng.choice([130, 200, 333, 600, 1000, 1500]))
        horizon = float(rng.uniform(0.5, 4.0))
        seed_of_path = int(rng.integers(1 << 30))
        yield LossNetwork(servers, lambdas, tuple(rewards.tolist()), 1.0), horizon, seed_of_path


def test_segments_equal_the_full_programme_on_random_networks():
    """60 random networks with one class below the marginal one: identical optima, by
    the programme of segments on most (its certificate, classes 1..m admitted outside the
    band, fails at K = 32 and 64 near critical loads, and the full programme runs)."""
    ran = 0
    for net, horizon, seed in random_one_below(60, 2026):
        assert net.marginal == net.n_classes - 2
        segments = c_classes(net, "offline", 0.0, horizon, seed, warmup=horizon / 3, trace=True)
        full = c_classes(net, "offline", -1.0, horizon, seed, warmup=horizon / 3, trace=True)
        assert segments["offline_band"] in (32, 64, net.servers)
        assert full["offline_band"] == net.servers
        assert_same_optimum(segments, full)
        ran += segments["offline_band"] < net.servers
    assert ran >= 50


def test_segments_give_way_to_the_full_programme_past_their_cut_budget():
    """A lower class ten times as heavy as the others on a short horizon: the cuts of the
    fill-up would pass the programme's budget (half the full programme's estimated
    checkpoint memory), so the full programme runs, with the same optimum."""
    net = LossNetwork(2000, (0.6, 0.8, 6.0), (2.0, 1.0, 0.5), 1.0)
    default = c_classes(net, "offline", 0.0, 1.0, 1, warmup=0.1, trace=True)
    full = c_classes(net, "offline", -1.0, 1.0, 1, warmup=0.1, trace=True)
    assert default["offline_band"] == full["offline_band"] == 2000
    assert_same_optimum(default, full)
    shorter = c_classes(net, "offline", 0.0, 0.5, 1, warmup=0.1, trace=True)
    assert shorter["offline_band"] == 32  # fewer cuts: within the budget
    assert_same_optimum(shorter, c_classes(net, "offline", -1.0, 0.5, 1, warmup=0.1, trace=True))


def test_segments_stop_at_the_cell_limit():
    """The programme of segments counts its band's cells and the blocks it walks against
    max_cells, and stops with a message naming it."""
    with pytest.raises(ValueError, match="^max_cells: the offline programme of segments"):
        _core.lossnet_classes_simulate(
            np.random.PCG64(0), "offline", 0.0, 2000, list(THREE.lambdas), list(THREE.rewards),
            1.0, 1.0, 0.2, max_cells=2.5e5,
        )  # fmt: skip


# ------------------------------------------------------------------ validation

GOOD = dict(policy="threshold", param=[0, 1, 3], servers=10, lambdas=[0.3, 0.9, 0.6],
            rewards=[3.0, 2.0, 1.0], mu=1.0, horizon=2.0, warmup=0.5)  # fmt: skip


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"lambdas": [0.3, 0.9]}, "rewards must have one entry per class"),
        ({"lambdas": [0.3]}, "lambdas must have 2..32 entries"),
        ({"lambdas": [0.1] * 33}, "lambdas must have 2..32 entries"),
        ({"lambdas": [0.3, -0.9, 0.6]}, r"lambdas\[1\] must be finite and > 0"),
        ({"lambdas": [0.3, math.nan, 0.6]}, r"lambdas\[1\] must not be NaN"),
        ({"rewards": [3.0, 0.0, 1.0]}, r"rewards\[1\]"),
        ({"rewards": [3.0, 2.0, 2.0]}, "rewards must be strictly decreasing"),
        ({"rewards": [1.0, 2.0, 3.0]}, "rewards must be strictly decreasing"),
        ({"mu": 0.0}, "mu"),
        ({"servers": 0}, "servers"),
        ({"horizon": 0.0}, "horizon"),
        ({"horizon": math.inf}, "horizon"),
        ({"horizon": 1e300}, r"horizon: .* <= 1e\+15"),
        ({"warmup": 2.0}, "warmup"),
        ({"policy": "greedy"}, "policy"),
        ({"param": [0, 3, 1]}, "nested"),
        ({"param": [0, 1]}, "reserves k.* one entry per class"),
        ({"param": [-1, 1, 3]}, r"reserves k\)\[0\] must be an integer in 0..servers"),
        ({"param": [0, 1, 11]}, r"reserves k\)\[2\]"),
        ({"param": [0, 1.5, 3]}, r"reserves k\)\[1\]"),
        ({"param": [0, 1, math.nan]}, r"reserves k\)\[2\]"),
        ({"policy": "sss", "param": 0.0}, "window"),
        ({"policy": "sss", "param": -1.0}, "window"),
        ({"policy": "sss", "param": 1e300}, r"window W.* <= 1e\+09"),
        ({"policy": "pfi", "param": math.nan}, "param"),
        ({"policy": "offline", "param": 11.0}, "param"),
    ],
)
def test_core_rejects_bad_values_naming_the_parameter(overrides, message):
    with pytest.raises(ValueError, match=message):
        _core.lossnet_classes_simulate(np.random.PCG64(0), **(GOOD | overrides))


def test_core_rejects_bad_types():
    with pytest.raises(TypeError, match="lambdas must be a sequence"):
        _core.lossnet_classes_simulate(np.random.PCG64(0), **(GOOD | {"lambdas": 0.3}))
    with pytest.raises(TypeError):
        _core.lossnet_classes_simulate(np.random.PCG64(0), **(GOOD | {"rewards": ["a", 2, 1]}))
    with pytest.raises(TypeError):
        _core.lossnet_classes_simulate(np.random.PCG64(0), **(GOOD | {"param": 3}))
    with pytest.raises(TypeError):
        _core.lossnet_classes_simulate(None, **GOOD)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: simulate(THREE, "threshold:0,1", horizon=1.0), "n = 3 integer reserves"),
        (lambda: simulate(THREE, "threshold:0,3,1", horizon=1.0), "nested"),
        (lambda: simulate(THREE, "threshold:0,1,11", horizon=1.0), "0..servers = 0..10"),
        (lambda: simulate(THREE, "threshold:0,-1,2", horizon=1.0), "integer reserves"),
        (lambda: simulate(THREE, "sss:0", horizon=1.0), "window W > 0"),
        (lambda: simulate(THREE, "pfi", horizon=0.0), "horizon"),
        (lambda: simulate(THREE, "pfi", horizon=1.0, warmup=1.0), "warmup"),
        (lambda: simulate(THREE, "pfi", horizon=1.0, reps=0), "reps"),
        (lambda: simulate(THREE, "threshold:0,1,2", info="job", horizon=1.0),
         "info: the job model is simulated for two classes only"),
        (lambda: clock_path(THREE, 1.0, seed=0), "net must have two classes"),
        (lambda: simulate(THREE, "pfi", horizon=1e12), "horizon"),
        (lambda: compare(THREE, ["pfi", "pfi"], horizon=1.0), "distinct"),
        (lambda: compare(THREE, ["pfi"], horizon=1.0, reps=1), "reps"),
        (lambda: compare(THREE, [], horizon=1.0), "policies"),
        (lambda: trace(THREE, "offline", horizon=1e12), "horizon"),
    ],
)  # fmt: skip
def test_wrappers_reject_bad_input_naming_the_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_compare_shares_the_events_between_policies():
    """Common random numbers: the offline optimum beats every policy path by path."""
    policies = ["offline", "threshold:0,0,2,8", "pfi", "sss:0.1"]
    cmp = compare(FOUR.with_servers(50), policies, horizon=20.0, reps=3, seed=5)
    for other in ("threshold:0,0,2,8", "pfi", "sss:0.1"):
        assert cmp.difference("offline", other).min_difference >= 0
    result = cmp.results["pfi"]
    assert len(result.admitted) == 4 and result.events > 0 and result.mean_lookahead > 0


reals = st.floats(allow_nan=True, allow_infinity=True)


@FUZZ
@given(st.sampled_from(["threshold", "pfi", "sss", "offline", "x"]),
       st.one_of(anything, st.lists(st.one_of(st.integers(-3, 40), reals), max_size=5)),
       st.integers(-5, 2 * 10**9), st.lists(reals, max_size=5),
       st.lists(reals, max_size=5), reals, reals, reals)  # fmt: skip
def test_core_fuzz(policy, param, servers, lambdas, rewards, mu, horizon, warmup):
    """The C entry's own checks with the Python layer bypassed: ValueError or TypeError
    (or MemoryError for a refused allocation), never a crash.  Runs are kept tiny by
    capping the horizon."""
    if np.isfinite(horizon) and abs(horizon) * max(servers, 1) * 10 > 1e4:
        horizon = 1e4 / (10 * max(servers, 1))
    if np.isfinite(horizon) and policy == "offline" and abs(horizon) * servers**2 * 10 > 1e7:
        horizon = 1e7 / (10 * servers**2)
    lambdas = [min(x, 2.0) if np.isfinite(x) else x for x in lambdas]
    if policy == "sss" and isinstance(param, float) and np.isfinite(param):
        param = min(param, 1.0)
    try:
        _core.lossnet_classes_simulate(np.random.PCG64(0), policy, param, servers, lambdas,
                                       rewards, mu, horizon, warmup)  # fmt: skip
    except (ValueError, TypeError, OverflowError, MemoryError) as error:
        assert str(error) or isinstance(error, MemoryError)


@FUZZ
@given(st.sampled_from([THREE, FOUR, LAST.with_servers(1), LAST.with_servers(2)]),
       st.sampled_from(["pfi", "offline", "threshold:0,0,0", "threshold:0,1,2",
                        "threshold:0,0,1,2", "sss:0.05", "sss:3.0", "x", "threshold:"]),
       st.floats(1e-3, 3.0), st.floats(0.0, 1.0), st.integers(1, 3),
       st.integers(0, 2**64))  # fmt: skip
def test_wrappers_fuzz(net, policy, horizon, warmup, reps, seed):
    result = assert_clean_outcome(simulate, net, policy, horizon=horizon,
                                  warmup=warmup, reps=reps, seed=seed)  # fmt: skip
    if result is not None:
        assert len(result.admitted) == net.n_classes
        assert np.all(np.isfinite(result.reward_rates))
    tr = assert_clean_outcome(trace, net, policy, horizon=horizon, seed=seed)
    if tr is not None:
        assert np.all((tr.idle >= 0) & (tr.idle <= net.servers))
