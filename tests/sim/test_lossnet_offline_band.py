"""The certified banded offline programme against the full one, path by path.

``lossnet_simulate(..., "offline", param, ...)`` with param = -1 runs the full backward
programme over every busy count; param = 0 (the default of :func:`qtheory.sim.simulate`)
or K >= 1 keeps a band of idle counts 0..K with a certificate that the optimum admits
everything outside it, widening the band and falling back to the full programme when the
certificate fails.  Values, decisions and every statistic must be identical; the output
``offline_band`` says which programme ran (servers for the full one).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from qtheory.core import limits
from qtheory.model.lossnet import LossNetwork
from qtheory.sim import _core, simulate
from qtheory.sim.lossnet import trace
from qtheory.sim.lossnet_costs import run_cost

H = -1


def offline(
    seed, servers, lambda_h, lambda_l, r_h, r_l, horizon, warmup, band, trace=True, isa=None
):
    return _core.lossnet_simulate(
        np.random.PCG64(seed), "clock", "offline", float(band), servers, lambda_h, lambda_l,
        1.0, r_h, r_l, horizon, warmup, trace=trace, isa=isa,
    )  # fmt: skip


def assert_same(banded, full):
    for key in full:
        if key != "offline_band":
            assert np.array_equal(banded[key], full[key]), key


def random_cases(count, seed):
    """Sizes from 6 (the smallest N with a band: 4 K + 1 < N for K = 1) to 1000, rates
    from light to near-critical and above mu, dyadic rewards, first bands 1..9 or the
    default."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        servers = int(rng.choice([6, 7, 9, 12, 20, 33, 50, 130, 300, 1000]))
        lambda_h = float(rng.choice([0.3, 0.6, 0.9, 0.99, 1.2]))
        lambda_l = float(rng.choice([0.3, 0.8, 2.0, 5.0]))
        r_h, r_l = [(2.0, 1.0), (1.5, 1.0), (3.0, 1.0), (1.25, 0.5), (1.0, 0.75)][rng.integers(5)]
        band = min(int(rng.choice([1, 2, 3, 4, 5, 8, 9, 0])), servers)
        horizon = min(20.0, 3000.0 / servers) * float(rng.uniform(0.2, 1.0))
        warmup = horizon * float(rng.uniform(0.0, 0.9))
        path_seed = int(rng.integers(1 << 30))
        yield path_seed, servers, lambda_h, lambda_l, r_h, r_l, horizon, warmup, band


def test_band_equals_full_programme_on_many_paths_both_ways():
    """600 random paths: the banded programme (certified, widened or fallen back) takes the
    full programme's decisions event by event; both outcomes of the certificate occur,
    including bands that had to widen."""
    used = {"band": 0, "widened": 0, "full": 0}
    for case in random_cases(600, seed=12):
        servers, band = case[1], case[-1]
        banded = offline(*case)
        full = offline(*case[:-1], -1)
        assert full["offline_band"] == servers
        assert_same(banded, full)
        k = banded["offline_band"]
        first = band if band > 0 else 32
        used["full" if k == servers else "widened" if k > first else "band"] += 1
    assert min(used.values()) >= 20, used


@pytest.mark.parametrize("servers", [200, 1000])
@pytest.mark.parametrize("seed", range(4))
def test_default_band_at_moderate_sizes(servers, seed):
    """The default first band (32) at the repository's usual rates holds and is exact."""
    case = (seed, servers, 0.6, 0.8, 2.0, 1.0, 6000.0 / servers, 1000.0 / servers, 0)
    banded, full = offline(*case), offline(*case[:-1], -1)
    assert banded["offline_band"] == 32
    assert_same(banded, full)


@pytest.mark.parametrize("band", [0, -1])
@pytest.mark.parametrize("isa", ["generic", "avx2"])
def test_every_instruction_set_takes_the_same_decisions(band, isa):
    """The band's backward pass at K = 32 (band 0) and the full programme's wide arrival
    kernel (band -1, N = 300), capped at the generic (SSE2) or the AVX2 twin, give the
    numbers of the processor's best twin (at K = 32 with AVX-512: the band's values in
    registers)."""
    case = (3, 300, 0.6, 0.8, 2.0, 1.0, 20.0, 2.0, band)
    capped, best = offline(*case, isa=isa), offline(*case)
    assert capped["offline_band"] == (32 if band == 0 else 300)
    assert capped["rejected_l"] > 0
    for key in best:
        assert np.array_equal(capped[key], best[key]), key


def test_near_critical_high_priority_load_falls_back():
    """lambda_H close to mu: reserving many servers for H pays, the band's edge is not
    admit-all, every band up to N/4 fails and the full programme runs."""
    case = (3, 200, 0.97, 0.8, 3.0, 1.0, 20.0, 0.0, 0)
    banded, full = offline(*case), offline(*case[:-1], -1)
    assert banded["offline_band"] == 200
    assert_same(banded, full)


def test_rewards_without_exact_arithmetic_run_the_full_programme():
    """0.7 and 0.3 are not exact in binary: the band (exact only with exact arithmetic)
    is not attempted, so the result is the full programme's."""
    case = (5, 500, 0.6, 0.8, 0.7, 0.3, 4.0, 1.0, 0)
    banded, full = offline(*case), offline(*case[:-1], -1)
    assert banded["offline_band"] == 500
    assert_same(banded, full)


def test_rewards_too_large_for_exact_sums_run_the_full_programme():
    """2^45 and 1 are exact, but sums over 4800 events reach 2^58 > 2^53: no band."""
    case = (6, 200, 0.6, 0.8, 2.0**45, 1.0, 10.0, 2.0, 0)
    banded, full = offline(*case), offline(*case[:-1], -1)
    assert banded["offline_band"] == 200
    assert_same(banded, full)
    small = offline(6, 200, 0.6, 0.8, 2.0**30, 1.0, 10.0, 2.0, 0)  # 2^30 x 4800 x 2 < 2^53
    assert small["offline_band"] == 32


def brute_force(codes, servers, r_h, r_l):
    """Best total reward over every admit/reject sequence (exponential in arrivals)."""
    arrivals = [i for i, c in enumerate(codes) if c < 0]
    best = -1.0
    for choice in itertools.product((0, 1), repeat=len(arrivals)):
        admit = dict(zip(arrivals, choice, strict=True))
        busy, reward = 0, 0.0
        for i, code in enumerate(codes):
            if code >= 0:
                busy -= int(code < busy)
            elif admit[i]:
                if busy == servers:
                    break
                busy += 1
                reward += r_h if code == H else r_l
        else:
            best = max(best, reward)
    return best


@pytest.mark.parametrize(("servers", "seed"), [(6, 1), (6, 4), (6, 9), (7, 1), (8, 1)])
def test_band_of_one_matches_brute_force(servers, seed):
    """K = 1 holds on these short paths (a fill-up from empty, then rejections): its
    value is the optimum over every decision sequence."""
    horizon = 14 / (2.6 * servers)
    times, codes = _core.lossnet_path(np.random.PCG64(seed), "clock", servers, 0.6, 2.0, 1.0,
                                      horizon)  # fmt: skip
    assert np.count_nonzero(codes < 0) <= 14, "adjust the horizon"
    out = offline(seed, servers, 0.6, 2.0, 2.0, 1.0, horizon, 0.0, 1)
    assert out["offline_band"] == 1 and out["rejected_l"] > 0
    assert out["reward_total"] == brute_force(codes, servers, 2.0, 1.0)


def numpy_programme(codes, servers, rewards):
    """The backward programme written with NumPy over whole rows (value and decisions of
    the forward pass): V_i(b) = max(V_{i+1}(b), r + V_{i+1}(b + 1)) at an arrival of
    reward r, V_i(b) = V_{i+1}(b - 1) for b > slot at a departure slot."""
    busy_counts = np.arange(servers + 1)
    rows = [np.zeros(servers + 1)]
    for code in codes[::-1]:
        later, row = rows[-1], rows[-1].copy()
        if code < 0:
            row[:-1] = np.maximum(later[:-1], rewards[-code - 1] + later[1:])
        else:
            moved = busy_counts > code
            row[moved] = later[busy_counts[moved] - 1]
        rows.append(row)
    rows.reverse()  # rows[i] = V_i
    busy, decisions = 0, []
    for i, code in enumerate(codes):
        if code < 0:
            later = rows[i + 1]
            admit = busy < servers and rewards[-code - 1] + later[busy + 1] >= later[busy]
            busy += int(admit)
            decisions.append(int(admit))
        else:
            busy -= int(code < busy)
            decisions.append(-1)
    return rows[0][0], np.array(decisions, dtype=np.int8)


@pytest.mark.parametrize(("servers", "seed"), [(300, 1), (517, 2)])
def test_wide_programme_equals_a_numpy_programme(servers, seed):
    """The full programme at N >= 256 runs the wide (AVX2, where the processor has it)
    arrival loop: its value and every decision equal NumPy's row-by-row programme."""
    horizon = 2.0
    _, codes = _core.lossnet_path(np.random.PCG64(seed), "clock", servers, 0.6, 2.0, 1.0, horizon)
    out = offline(seed, servers, 0.6, 2.0, 2.0, 1.0, horizon, 0.0, -1)
    value, decisions = numpy_programme(codes, servers, (2.0, 1.0))
    assert out["offline_band"] == servers and out["rejected_l"] > 0
    assert out["reward_total"] == value
    assert np.array_equal(out["trace_decision"], decisions)


@pytest.mark.parametrize("band", [-2.0, 0.5, 11.0, np.nan, np.inf])
def test_band_parameter_is_checked(band):
    with pytest.raises(ValueError, match="param"):
        offline(0, 10, 0.6, 0.8, 2.0, 1.0, 1.0, 0.0, band)


def test_large_networks_use_the_band():
    """N = 1e4 both ways on one path; N = 1e5 banded only (the full programme would take
    minutes), and the optimum still dominates trunk reservation on that path."""
    case = (1, 10_000, 0.6, 0.8, 2.0, 1.0, 1.5, 0.5, 0)
    banded, full = offline(*case, trace=False), offline(*case[:-1], -1, trace=False)
    assert banded["offline_band"] == 32
    assert_same(banded, full)
    case = (2, 100_000, 0.6, 0.8, 2.0, 1.0, 2.0, 1.0, 0)
    banded = offline(*case, trace=False)
    assert banded["offline_band"] == 32
    threshold = _core.lossnet_simulate(
        np.random.PCG64(2), "clock", "threshold", 317.0, 100_000, 0.6, 0.8, 1.0, 2.0, 1.0,
        2.0, 1.0,
    )  # fmt: skip
    assert banded["reward_total"] >= threshold["reward_total"]


def test_simulate_offline_reports_the_banded_optimum():
    net = LossNetwork(300, 0.6, 0.8, 1.0, 2.0, 1.0)
    res = simulate(net, "offline", horizon=10.0, warmup=2.0, reps=2, seed=4)
    assert res.admitted_h > 0 and res.rejected_l > 0


def test_a_failing_certificate_never_starts_a_programme_above_the_cell_limit():
    """The near-critical path above needs the full programme (200 x 201 cells per event);
    below that budget the C run refuses (naming max_cells), and so does simulate, naming
    the horizon and the "dp_cells" limit, though its estimate (the band) was within it."""
    case = (3, 200, 0.97, 0.8, 3.0, 1.0, 20.0, 0.0, 0)
    with pytest.raises(ValueError, match="^max_cells: .*band K = 200"):
        _core.lossnet_simulate(
            np.random.PCG64(3), "clock", "offline", 0.0, 200, 0.97, 0.8, 1.0, 3.0, 1.0,
            20.0, 0.0, max_cells=1e6,
        )  # fmt: skip
    assert offline(*case)["offline_band"] == 200  # no limit: the full programme runs
    for bad in (-1.0, 0.0, np.nan):
        with pytest.raises(ValueError, match="max_cells"):
            _core.lossnet_simulate(
                np.random.PCG64(3), "clock", "offline", 0.0, 200, 0.97, 0.8, 1.0, 3.0, 1.0,
                20.0, 0.0, max_cells=bad,
            )  # fmt: skip
    net = LossNetwork(200, 0.97, 0.8, 1.0, 3.0, 1.0)
    estimate = run_cost(net, "offline", horizon=20.0).dp_cells
    assert estimate == pytest.approx(net.event_rate * 20.0 * 65)
    with limits.raised(dp_cells=2 * estimate):
        with pytest.raises(ValueError, match='^horizon: max_cells: .*"dp_cells" limit'):
            trace(net, "offline", horizon=20.0, seed=3)  # the same path
