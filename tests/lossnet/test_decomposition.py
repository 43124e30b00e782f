"""Tests of the regret decomposition (qtheory.lossnet.decomposition) and its reproduce
section (qtheory.report.lossnet_decomposition).

Independent references:
- the offline optimum of the clock model is optimal path by path: with warmup = 0 its
  reward is >= every policy's on every replication (exact, not statistical);
- the job-model path-wise dual bound D_theta >= OFF on every path (weak duality);
- replication tasks replay the replications of qtheory.sim.compare (its own seeding);
- simulated trunk reservation against the exact birth-death value R_on;
- the weighted least-squares slope against scipy.stats.linregress and its coverage.

Statistical checks use fixed seeds; each states its false-failure rate (the probability
that it would fail for a random seed although the code is right).
"""

from __future__ import annotations

import itertools
import math
import re
import time

import numpy as np
import pytest
from conftest import assert_estimate_matches, t_tolerance
from scipy import stats

from qtheory.core.cache import ResultCache
from qtheory.core.claims import Evidence
from qtheory.core.executor import SerialExecutor, make_executor
from qtheory.core.stats import Estimate, replication_seed, slope_on_log
from qtheory.lossnet.decomposition import (
    decomposition,
    fit_decomposition,
    job_decomposition,
    run_designs,
)
from qtheory.lossnet.designs import ClockDesign, JobDesign, RollingHorizonDesign
from qtheory.lossnet.online import online_optimum
from qtheory.lossnet.replication import _replication_root, replication
from qtheory.lossnet.rolling_horizon import _window_values, relative_values, rolling_horizon
from qtheory.lossnet.tasks import replication_task
from qtheory.model.lossnet import LossNetwork
from qtheory.report import lossnet_decomposition as outputs
from qtheory.report import lossnet_decomposition_sweep as sweep_module
from qtheory.report.decomposition_claims import decomposition_claims
from qtheory.report.run import Run
from qtheory.sim import clock_path, compare

NET = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
CS = (1.0, 4.0, 16.0)


class CountingExecutor(SerialExecutor):
    """A serial executor that counts the tasks it is asked to compute."""

    def __init__(self) -> None:
        self.computed = 0

    def map(self, fn, tasks, **kwargs):
        tasks = list(tasks)
        self.computed += len(tasks)
        return super().map(fn, tasks, **kwargs)


def agree(first: Estimate, second: Estimate, alpha: float) -> bool:
    """|first - second| within t_{1 - alpha/2} (se_1 + se_2): when the two estimates'
    difference has standard error at most se_1 + se_2 (triangle inequality for sample
    standard deviations of paired values), this fails with probability <= alpha."""
    allowance = t_tolerance(first.stderr + second.stderr, first.dof, alpha)
    return abs(first.mean - second.mean) <= allowance


# ----------------------------------------------------------------- estimators


def test_estimators_add_up_to_the_exact_regret():
    d = decomposition(NET.with_servers(30), cs=CS, horizon=23.0, warmup=3.0, reps=5, seed=4)
    exact = online_optimum(NET.with_servers(30)).regret
    assert d.regret == pytest.approx(exact, rel=1e-15)
    for c in CS:
        point = d.at(c)
        total = d.c_vol.mean + point.c_long.mean + point.c_short.mean
        assert total == pytest.approx(d.regret, rel=1e-12, abs=1e-12)
        assert point.window == pytest.approx(c * math.log(30) / 30, rel=1e-15)
        assert d.c_vol.n == point.c_long.n == 5 and d.c_vol.method == "t"


def test_offline_beats_every_policy_on_every_path():
    # Exact: with warmup = 0 the DP maximises exactly the reported reward of each path.
    d = decomposition(NET, cs=CS, horizon=40.0, warmup=0.0, reps=8, seed=11)
    offline = np.array(d.samples["offline"])
    assert len(d.samples) == 3 + len(CS)  # offline, pfi, threshold and one SSS per c
    for policy, rates in d.samples.items():
        assert np.all(offline >= np.array(rates)), policy
    assert d.pfi_gap.mean >= 0 and all(p.c_long.mean >= 0 for p in d.lookahead)


def test_replications_replay_compare():
    net = NET.with_servers(20)
    policies = ["offline", "pfi", "threshold:3", "sss:0.5"]
    cmp = compare(net, policies, horizon=15.0, warmup=2.0, reps=3, seed=9)
    for rep in range(3):
        task = replication_task(
            net, info="clock", horizon=15.0, warmup=2.0, seed=9, rep=rep, policies=policies
        )
        out = replication(task)
        for policy in policies:
            assert out["reward_rate"][policy] == cmp.results[policy].reward_rates[rep]


def test_control_variate_agrees_with_direct_estimate():
    # c_vol - c_vol_direct = mean(R_k*) - R_on exactly, and by the triangle inequality for
    # sample standard deviations se(R_k*) <= se(R_off) + se(R_off - R_k*): the two 99.9%
    # intervals overlap unless |mean(R_k*) - R_on| > t_{0.9995} se(R_k*), which happens
    # with probability <= 0.1% (false-failure rate).  The threshold check itself is tested
    # against the exact R_on at level 1e-4.
    reps = 20
    d = decomposition(NET.with_servers(50), cs=(4.0,), horizon=43.0, warmup=3.0, reps=reps,
                      seed=5)  # fmt: skip
    assert agree(d.c_vol, d.c_vol_direct, alpha=1e-3)
    assert_estimate_matches(d.threshold_check, 0.0)
    # The paired estimate is the sharper one (measured: about 10 times narrower at N = 50).
    assert d.c_vol.halfwidth < d.c_vol_direct.halfwidth / 3


def test_same_seed_same_result_and_other_seed_other_result():
    kwargs = dict(cs=CS, horizon=20.0, warmup=2.0, reps=3)
    first = decomposition(NET, seed=7, **kwargs)
    assert decomposition(NET, seed=7, **kwargs) == first
    assert decomposition(NET, seed=8, **kwargs).samples != first.samples


def test_cache_computes_only_what_is_missing(tmp_path):
    cache = ResultCache(tmp_path)
    executor = CountingExecutor()
    kwargs = dict(cs=CS, horizon=20.0, warmup=2.0, seed=3, executor=executor, cache=cache)
    first = decomposition(NET, reps=3, **kwargs)
    assert executor.computed == 3
    assert decomposition(NET, reps=3, **kwargs) == first
    assert executor.computed == 3  # nothing recomputed
    more = decomposition(NET, reps=5, **kwargs)
    assert executor.computed == 5  # only replications 3 and 4
    assert more.samples["offline"][:3] == first.samples["offline"]


def test_serial_and_process_executors_agree():
    designs = [
        ClockDesign(NET, 15.0, 2.0, 2, 1, cs=CS),
        ClockDesign(NET.with_servers(40), 12.0, 2.0, 2, 2, cs=CS),
        JobDesign(NET.with_servers(20), 12.0, 2.0, 2, 3),
    ]
    serial = run_designs(designs, executor=make_executor(workers=1))
    with make_executor(workers=2) as pool:
        parallel = run_designs(designs, executor=pool)
    assert parallel == serial


# ------------------------------------------------------------------ job model


def test_job_model_bounds_and_ordering():
    reps = 6
    net = NET.with_servers(50)
    j = job_decomposition(net, horizon=23.0, warmup=3.0, reps=reps, seed=12)
    assert j.min_dual_slack >= 0  # weak duality, path by path (exact)
    assert j.window_bound >= j.duration_bound > j.fluid
    # R_off - R_fluid is about 0.1 N here, 20 half-widths above 0: a false failure would
    # need a 20-sigma deviation.
    assert j.offline_minus_fluid.mean > 5 * j.offline_minus_fluid.halfwidth
    # As in the clock model: the control-variate and direct estimates differ by
    # E[D] - mean(D), whose standard error is at most the sum of the two (triangle
    # inequality); false-failure rate <= 0.1%.
    assert agree(j.offline, j.offline_direct, alpha=1e-3)
    assert_estimate_matches(j.threshold_check, 0.0)


# ------------------------------------------------------------ rolling horizon


def test_relative_values_solve_the_poisson_equation():
    # g = r(b) + up(b) (h(b+1) - h(b)) + down(b) (h(b-1) - h(b)) under trunk reservation
    # at k*, with the gain g = R_on from the birth-death stationary law (online_optimum).
    net = NET.with_servers(40)
    opt = online_optimum(net)
    h = relative_values(net)
    busy = np.arange(41)
    admit_l = busy < 40 - opt.reserve
    up_h = np.where(busy < 40, net.arrival_rate_h, 0.0)
    up_l = np.where(admit_l, net.arrival_rate_l, 0.0)
    reward = up_h * net.r_h + up_l * net.r_l
    dh_up = np.append(np.diff(h), 0.0)
    dh_down = np.insert(-np.diff(h), 0, 0.0)
    residual = reward + (up_h + up_l) * dh_up + net.mu * busy * dh_down - opt.online
    assert h[40] == 0.0
    assert np.max(np.abs(residual)) < 1e-9 * opt.fluid


def test_rolling_horizon_limits_and_ordering():
    net = NET.with_servers(30)
    k = online_optimum(net).reserve
    for rep in range(2):
        task = replication_task(net, info="clock", horizon=15.0, warmup=0.0, seed=2, rep=rep,
                                policies=["offline", f"threshold:{k}"])  # fmt: skip
        out = replication(task)["reward_rate"]
        # W -> 0: the one-step rule with the optimal relative values is trunk reservation.
        tiny = rolling_horizon(net, 1e-9, horizon=15.0, warmup=0.0, seed=2, rep=rep)
        assert tiny["reward_rate"] == out[f"threshold:{k}"]
        # Any W: a lookahead policy never beats the offline optimum on a path (exact).
        for c in (1.0, 8.0):
            window = net.window(c)
            rh = rolling_horizon(net, window, horizon=15.0, warmup=0.0, seed=2, rep=rep)
            assert rh["reward_rate"] <= out["offline"]


def test_clock_path_is_a_prefix_of_a_longer_one():
    # rolling_horizon draws the path up to T + W and needs its part up to T to be the path
    # that simulate replays up to T.
    short = clock_path(NET, 10.0, replication_seed(4, 1))
    long = clock_path(NET, 13.0, replication_seed(4, 1))
    assert long.times.size > short.times.size
    assert np.array_equal(long.times[: short.times.size], short.times)
    assert np.array_equal(long.codes[: short.times.size], short.codes)


def test_rolling_horizon_design_pairs_with_offline_and_sss():
    (result,) = run_designs([RollingHorizonDesign(NET, 20.0, 0.0, 3, 6, cs=(1.0, 8.0))])
    for point in result.points:
        assert point.c_long.mean >= 0  # warmup = 0: path by path
        total = point.c_long.mean + point.gain_over_sss.mean
        assert total == pytest.approx(point.sss_c_long.mean, abs=1e-12)


# ----------------------------------------------------------------------- fits


def test_weighted_slope_matches_linregress_with_equal_weights():
    rng = np.random.default_rng(0)
    servers = [10, 30, 100, 300, 1000, 3000]
    values = 0.7 * np.log(servers) + rng.normal(0, 0.2, len(servers))
    wls = slope_on_log(servers, values, [0.2] * len(servers))
    ols = stats.linregress(np.log(servers), values)
    assert wls.slope.mean == pytest.approx(ols.slope, rel=1e-12)
    assert wls.intercept == pytest.approx(ols.intercept, rel=1e-12)
    # Equal weights, chi2/dof scaling: the slope's standard error is linregress's when
    # the scatter exceeds the stated errors, and never smaller.
    assert wls.slope.stderr >= ols.stderr * (1 - 1e-12)
    assert (wls.slope.method, wls.slope.dof, wls.slope.n) == ("regression", 4, 6)
    exact = slope_on_log(servers, 2.0 * np.log(servers) + 1.0)
    assert (exact.slope.mean, exact.weighting) == (pytest.approx(2.0, rel=1e-12), "ols")


def test_weighted_slope_interval_covers_the_true_slope():
    # Unequal Gaussian errors, their standard errors either known or estimated from 8
    # replications per point (as in the sweeps).  The interval (t quantile with n - 2
    # degrees of freedom, Birge-scaled) must not under-cover: an exact 95% interval covers
    # fewer than 93.5% of 2000 datasets with probability 1e-3 (binomial, 3.1 sd), so the
    # false-failure rate is about 2e-3 for the two cases; it must also not be absurdly wide
    # (coverage <= 99.8%).
    rng = np.random.default_rng(1)
    servers = np.array([100, 215, 464, 1000, 2154, 4642, 10000])
    se = np.linspace(0.1, 0.4, servers.size)
    for estimated in (False, True):
        hits = 0
        for _ in range(2000):
            reps = rng.normal(0, se * np.sqrt(8), size=(8, servers.size))
            values = 3.0 + 0.25 * np.log(servers) + reps.mean(axis=0)
            errors = reps.std(axis=0, ddof=1) / np.sqrt(8) if estimated else se
            hits += slope_on_log(servers, values, errors).contains(0.25)
        assert 0.935 <= hits / 2000 <= 0.998, (estimated, hits)


def test_rolling_horizon_window_dp_matches_brute_force():
    """_window_values against enumerating every admit/reject choice for the L arrivals of
    random event windows (N = 8, terminal values the online relative values), on the full
    state range and on a band around the start state."""
    net = LossNetwork(8, 0.6, 0.8, 1.0, 2.0, 1.0)
    n, h = net.servers, relative_values(net)
    rng = np.random.default_rng(0)

    def brute(codes, busy0):
        best = -np.inf
        for choice in itertools.product([0, 1], repeat=int(np.sum(codes == -2))):
            busy, reward, k = busy0, 0.0, 0
            for code in codes:
                if code == -1 and busy < n:
                    busy, reward = busy + 1, reward + net.r_h
                elif code == -2:
                    if choice[k] and busy < n:
                        busy, reward = busy + 1, reward + net.r_l
                    k += 1
                elif code >= 0 and code < busy:
                    busy -= 1
            best = max(best, reward + h[busy])
        return best

    for _ in range(300):
        m = int(rng.integers(0, 9))
        codes = rng.choice([-1, -2, *range(n)], size=m, p=[0.2, 0.25] + [0.55 / n] * n)
        busy = int(rng.integers(0, n + 1))
        full = _window_values(net, codes, h.copy(), 0)
        lo, hi = max(0, busy - m), min(n, busy + 1 + m)
        band = _window_values(net, codes, h[lo : hi + 1].copy(), lo)
        expected = brute(codes, busy)
        assert full[busy] == pytest.approx(expected, abs=1e-9)
        assert band[busy - lo] == pytest.approx(expected, abs=1e-9)


def test_fit_decomposition_on_a_small_sweep():
    points = run_designs([ClockDesign(NET.with_servers(n), 13.0, 3.0, 3, n, cs=CS)
                          for n in (10, 20, 40)])  # fmt: skip
    fits = fit_decomposition(points, min_servers=10, regret_top=1000)
    assert fits.table_c == max(CS) and [c for c, _ in fits.c_long] == list(CS)
    assert fits.regret_servers[0] == 10 and fits.regret_servers[-1] == 1000
    assert fits.regret.weighting == "ols" and fits.c_vol.weighting == "wls"
    assert fits.regret.slope.mean == pytest.approx(fits.leading_constant, rel=0.1)
    # the sizes the estimate fits used: the points with N >= min_servers
    assert fits.fit_servers == (10, 20, 40) and fits.c_vol.slope.n == 3
    with pytest.raises(ValueError, match="at least 3 points"):
        fit_decomposition(points, min_servers=20)
    with pytest.raises(ValueError, match="table_c"):
        fit_decomposition(points, min_servers=10, table_c=2.0)


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(cs=[]), "cs must be a non-empty"),
        (dict(cs=[1.0, 1.0]), "cs must be distinct"),
        (dict(cs=[-1.0]), r"cs\[0\] must be > 0"),
        (dict(cs=[float("nan")]), r"cs\[0\] must not be NaN"),
        (dict(reps=1), "reps must be >= 2"),
        (dict(warmup=20.0), "warmup must be < horizon"),
        (dict(horizon=-1.0), "horizon must be > 0"),
        (dict(seed=-1), "seed must be an integer >= 0"),
        (dict(seed=1.5), "seed must be an integer >= 0"),
    ],
)
def test_bad_decomposition_input_raises(kwargs, message):
    args = dict(cs=CS, horizon=20.0, warmup=2.0, reps=3, seed=1) | kwargs
    with pytest.raises(ValueError, match=message):
        decomposition(NET, **args)


def test_bad_task_and_fit_input_raises():
    with pytest.raises(ValueError, match="servers >= 2"):
        decomposition(NET.with_servers(1), cs=CS, horizon=5.0, warmup=0.0, reps=2, seed=1)
    task = replication_task(NET, info="clock", horizon=5.0, warmup=0.0, seed=1, rep=0,
                            policies=["pfi"])  # fmt: skip
    with pytest.raises(ValueError, match="version"):
        replication(task | {"version": 0})
    with pytest.raises(ValueError, match="info must be"):
        replication(task | {"info": "oracle"})
    with pytest.raises(ValueError, match="missing"):
        replication({k: v for k, v in task.items() if k != "seed"})
    with pytest.raises(ValueError, match="policies must be distinct"):
        replication(task | {"policies": ["pfi", "pfi"]})
    with pytest.raises(ValueError, match="policy must be"):
        replication(task | {"policies": ["psychic"]})
    with pytest.raises(ValueError, match="lambda_h must be < mu"):
        replication(task | {"lambda_h": 2.0})
    with pytest.raises(ValueError, match=">= 3"):
        slope_on_log([10, 100], [1.0, 2.0])
    with pytest.raises(ValueError, match="stderrs"):
        slope_on_log([10, 100, 1000], [1.0, 2.0, 3.0], [0.1, 0.0, 0.1])
    with pytest.raises(ValueError, match="clock model only"):
        replication_task(NET, info="job", horizon=5.0, warmup=0.0, seed=1, rep=0,
                         policies=["offline"], rolling_horizon=[0.1])  # fmt: skip
    with pytest.raises(ValueError, match="window must be > 0"):
        rolling_horizon(NET, 0.0, horizon=5.0, warmup=0.0, seed=1, rep=0)
    with pytest.raises(ValueError, match="designs must hold"):
        run_designs([NET])
    with pytest.raises(ValueError, match="c must be > 0"):
        NET.window(0.0)
    with pytest.raises(TypeError, match="net"):
        replication_task("net", info="clock", horizon=5.0, warmup=0.0, seed=1, rep=0,
                         policies=["pfi"])  # fmt: skip
    with pytest.raises(ValueError, match="values must be"):
        Estimate.of([])


def test_replication_root_keeps_the_old_numbers():
    """The root run with reps=1 replays replication rep of seed: replication_seed(seed,
    rep), which is the child the former SeedSequence(seed, n_children_spawned=rep) spawned
    (so cached replications keep their values)."""
    for seed, rep in [(0, 0), (3, 1), (2**40 + 5, 17)]:
        state = replication_seed(_replication_root(seed, rep), 0).generate_state(4)
        former = np.random.SeedSequence(seed, n_children_spawned=rep).spawn(1)[0]
        assert np.array_equal(state, former.generate_state(4))
        assert np.array_equal(state, np.random.SeedSequence(seed).spawn(rep + 1)[rep]
                              .generate_state(4))  # fmt: skip


def test_designs_out_of_all_proportion_are_refused_before_any_task_runs():
    start = time.perf_counter()
    executor = CountingExecutor()
    big = ClockDesign(NET.with_servers(2000), 1e5, 3.0, 2, 1, cs=CS)  # offline: 1e12 cells
    with pytest.raises(ValueError, match="^horizon: .*offline"):
        run_designs([ClockDesign(NET, 5.0, 0.0, 2, 1, cs=CS), big], executor=executor)
    with pytest.raises(ValueError, match="^reps: the task list"):
        decomposition(NET, cs=CS, horizon=5.0, warmup=0.0, reps=10**9, seed=1)
    with pytest.raises(ValueError, match="^window: the rolling-horizon DP"):
        rolling_horizon(NET.with_servers(1000), 50.0, horizon=100.0, warmup=0.0, seed=1, rep=0)
    assert executor.computed == 0 and time.perf_counter() - start < 5.0


# ----------------------------------------------------------- reproduce section


def test_reproduce_steps_write_the_section_and_claims(tmp_path, monkeypatch):
    tiny = sweep_module.Plan(
        clock={label: ((10, 8.0, 2), (20, 8.0, 2), (40, 8.0, 2)) for label, _ in
               sweep_module.PARAMETER_SETS},
        job=((10, 5.0, 2), (20, 5.0, 2)),
        cs=(4.0, 64.0),
        warmup=2.0,
        min_fit_servers=10,
        rolling=((10, 8.0, 2),),
        rolling_cs=(4.0,),
    )  # fmt: skip
    monkeypatch.setattr(outputs, "plan", lambda size: tiny)
    # In this process (the pool path of run_designs is tested above).
    monkeypatch.setattr(sweep_module, "make_executor", lambda cluster: make_executor(workers=1))
    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(tmp_path / "cache"))
    run = Run(tmp_path / "out", quick=True, seed=3)
    written = [path for _, step in outputs.steps(run) for path in step()]
    names = sorted(p.name for p in written)
    assert names == [
        "lossnet_decomposition.pdf",
        "lossnet_decomposition.png",
        "lossnet_decomposition.tex",
        "lossnet_lookahead.pdf",
        "lossnet_lookahead.png",
    ]
    text = (tmp_path / "out" / "derivations" / "lossnet_decomposition.tex").read_text()
    for label in ("A", "B", "C"):
        assert f"tab:lossnet-decomposition-{label}" in text
        assert f"tab:lossnet-job-{label}" in text
    assert "tab:lossnet-decomposition-fits" in text and "tab:lossnet-lookahead-A" in text
    assert "tab:lossnet-rolling-A" in text
    assert len(re.findall(r"\\begin\{table\}", text)) == 9
    assert len(run.claims) == 6 * len(sweep_module.PARAMETER_SETS)
    # every claim is stated in the text from its record, with its kind of evidence
    assert text.count(r"\paragraph{Claim") == len(run.claims)
    # the three slope claims, the regret slope and the job model's Theta(N)
    assert text.count(r"\emph{Evidence:} finite-range") == 5 * len(sweep_module.PARAMETER_SETS)
    assert len({claim.name for claim in run.claims}) == len(run.claims)
    assert any((tmp_path / "cache").rglob("*.json"))  # the replications were cached


def test_decomposition_claims_scope_the_sizes_each_check_used():
    """Each claim's range is the sizes its check used: the slope claims the fitted
    points only (N >= the fit minimum, not the whole sweep), the regret slope the exact
    regret grid, the job model's Theta(N) claim (finite-range) the job-model N."""
    label, net = sweep_module.PARAMETER_SETS[0]
    clock = tuple(run_designs([ClockDesign(net.with_servers(n), 13.0, 3.0, 3, 7, cs=(1.0,))
                               for n in (10, 20, 40, 80)]))  # fmt: skip
    job = tuple(run_designs([JobDesign(net.with_servers(n), 5.0, 1.0, 2, 2) for n in (10, 20)]))
    fits = fit_decomposition(clock, min_servers=20, regret_top=200)
    claims = {
        c.name.split(".")[-1]: c
        for c in decomposition_claims(sweep_module.Sweep(label, net, clock, job, fits))
    }
    for name in ("c_vol_bounded", "c_long_bounded", "c_short_log"):
        scope = claims[f"{name}[A]"].scope
        assert scope.startswith("$N = 20$, $40$, $80$ (3 sizes, simulated)")
        assert claims[f"{name}[A]"].estimate.n == len(fits.fit_servers) == 3
    regret = claims["regret_slope[A]"]
    grid = fits.regret_servers
    assert regret.scope.startswith(f"$N = 20, \\dots, 200$ ({len(grid)} log-spaced sizes")
    assert regret.estimate.n == len(grid)
    job_claim = claims["job_ordering[A]"]
    assert job_claim.kind is Evidence.FINITE_RANGE
    assert job_claim.scope.startswith("job model at $N = 10$, $20$")


# ------------------------------------------------------------------ n classes

#: Three classes with the marginal class in the middle (0.3 < 1 < 0.3 + 0.9), and four
#: classes with the marginal class last but one.
THREE = LossNetwork(30, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
FOUR = LossNetwork(30, (0.3, 0.5, 0.6, 0.2), (4.0, 3.0, 2.0, 1.0), 1.0)


@pytest.mark.parametrize("net", [THREE, FOUR], ids=["three", "four"])
def test_class_estimators_add_up_and_offline_beats_every_policy(net):
    """Per path C_vol + C_long + C_short = the exact regret; with no warm-up the offline
    optimum (the path's dynamic programme) earns at least every other policy on every
    path; the regret is the exact nested optimum's."""
    d = decomposition(net, cs=(1.0, 8.0), horizon=15.0, warmup=0.0, reps=3, seed=2)
    assert d.reserve == online_optimum(net).reserves
    for c in (1.0, 8.0):
        total = d.c_vol.mean + d.at(c).c_long.mean + d.at(c).c_short.mean
        assert total == pytest.approx(d.regret, abs=1e-9)
    offline = np.array(d.samples["offline"])
    for policy, rates in d.samples.items():
        assert np.all(offline >= np.array(rates) - 1e-9), policy
    assert sorted(d.samples) == sorted(["offline", "pfi", "threshold:" + ",".join(
        map(str, d.reserve)), *(f"sss:{c * math.log(30) / 30!r}" for c in (1.0, 8.0))])  # fmt: skip


def test_class_replications_replay_compare():
    task = replication_task(THREE, info="clock", horizon=12.0, warmup=2.0, seed=4, rep=2,
                            policies=["offline", "sss:0.2", "threshold:0,1,9"])  # fmt: skip
    out = replication(task)
    cmp = compare(THREE, ["offline", "sss:0.2", "threshold:0,1,9"], horizon=12.0,
                          warmup=2.0, reps=3, seed=4)  # fmt: skip
    for policy in task["policies"]:
        assert out["reward_rate"][policy] == cmp.results[policy].reward_rates[2]
    assert sorted(task) == ["horizon", "info", "lambdas", "mu", "policies", "rep", "rewards",
                            "seed", "servers", "version", "warmup"]  # fmt: skip


def test_class_threshold_check_contains_zero():
    """Simulated nested trunk reservation at the optimal reserves against the exact
    nested optimum (false-failure rate 1e-4: t allowance at ALPHA)."""
    d = decomposition(FOUR.with_servers(50), cs=(4.0,), horizon=84.0, warmup=4.0, reps=6, seed=9)
    assert_estimate_matches(d.threshold_check, 0.0)


def test_class_cache_and_fit(tmp_path):
    """The cache path for n classes (nothing recomputed on a rerun), and the fit: the
    leading constant c = r_m mu / log(mu / (lambda_1 + ... + lambda_{m-1})) in closed
    form (class 2 of THREE is marginal: 2 / log(1 / 0.3)), the regret grid exact."""
    cache, executor = ResultCache(tmp_path), CountingExecutor()
    designs = [ClockDesign(THREE.with_servers(n), 8.0, 2.0, 2, 3, cs=(1.0, 4.0))
               for n in (10, 20, 40)]  # fmt: skip
    first = run_designs(designs, executor=executor, cache=cache)
    assert executor.computed == 6
    assert run_designs(designs, executor=executor, cache=cache) == first
    assert executor.computed == 6
    fits = fit_decomposition(first, min_servers=10, regret_top=200)
    assert fits.leading_constant == pytest.approx(2.0 / math.log(1 / 0.3), rel=1e-12)
    n = fits.regret_servers[-1]
    assert n == 200 and fits.regret.slope.n == len(fits.regret_servers)
    fits_regret = online_optimum(THREE.with_servers(n)).regret
    assert fits.regret.intercept + fits.regret.slope.mean * math.log(n) == pytest.approx(
        fits_regret, rel=0.05
    )


TASK = dict(horizon=5.0, warmup=0.0, seed=1, rep=0)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: JobDesign(THREE, 8.0, 2.0, 2, 1), "ClockDesign only"),
        (lambda: RollingHorizonDesign(THREE, 8.0, 2.0, 2, 1, cs=[1.0]), "ClockDesign only"),
        (
            lambda: replication_task(THREE, info="job", policies=["offline"], **TASK),
            "info must be 'clock'",
        ),
        (
            lambda: replication_task(THREE, info="clock", policies=["threshold:2"], **TASK),
            "3 integer reserves",
        ),
        (
            lambda: replication_task(
                THREE, info="clock", policies=["pfi"], rolling_horizon=[0.1], **TASK
            ),
            "two-class",
        ),
        (lambda: ClockDesign(THREE.with_servers(1), 8.0, 2.0, 2, 1, cs=[1.0]), "servers >= 2"),
    ],
)
def test_bad_class_input_raises(make, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make()
