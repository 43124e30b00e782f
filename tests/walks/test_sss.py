"""The SSS failure probability, its bound and the critical window constant
(qtheory.walks.sss)."""

import math

import pytest
import scipy.linalg
from conftest import ALPHA, assert_rejects, t_tolerance
from scipy import optimize

from qtheory.core.stats import Estimate, replication_seeds
from qtheory.model.lossnet import LossNetwork
from qtheory.sim.lossnet import simulate
from qtheory.walks.idle import IdleWalk
from qtheory.walks.ruin import chain_ruin_probabilities
from qtheory.walks.sss import (
    critical_window_constant,
    failure_bound,
    failure_probabilities,
    failure_probability,
    loss_rate_bound,
    losses_per_failure,
    losses_per_failure_bound,
)

DEFAULT = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
HEAVY = LossNetwork(100, 0.9, 0.4, 1.0, 2.0, 1.0)


def _failure_by_expm(net, c, start=1):
    """Independent route: dense matrix exponential of the generator on the levels 0..b
    with 0 and b absorbing (J >= 1 on [0, W] and b not reached by W), and the
    birth-death ruin sums of qtheory.walks.ruin."""
    walk = IdleWalk.from_network(net)
    b = walk.band
    Q = walk.generator().toarray()[: b + 1, : b + 1]
    # rows 0..b-1 keep all their rates (their moves stay within 0..b)
    Q[[0, b], :] = 0.0
    window = c * math.log(net.servers) / net.servers  # typed here: the reference route
    at_window = scipy.linalg.expm(Q * window)[start]
    ruin = chain_ruin_probabilities(walk.up_rates(), walk.down_rates(), b)
    return float(at_window[1:b] @ ruin[1:b])


@pytest.mark.parametrize("servers", [16, 30, 100, 200])
@pytest.mark.parametrize("c", [0.5, 2.0, 8.0])
@pytest.mark.parametrize("base", [DEFAULT, HEAVY])
def test_failure_probability_two_routes(servers, c, base):
    net = base.with_servers(servers)
    assert failure_probability(net, c) == pytest.approx(_failure_by_expm(net, c), rel=1e-9)


@pytest.mark.parametrize("servers", [16, 100, 200])
@pytest.mark.parametrize("c", [0.5, 4.0, 32.0])
@pytest.mark.parametrize("base", [DEFAULT, HEAVY])
def test_failure_probabilities_of_every_start(servers, c, base):
    net = base.with_servers(servers)
    eps = failure_probabilities(net, c)
    b = IdleWalk.from_network(net).band
    assert eps.shape == (b + 1,) and eps[0] == 0 and eps[b] == 0
    for start in range(1, b):  # the dense matrix exponential, one start at a time
        reference = _failure_by_expm(net, c, start)
        assert eps[start] == pytest.approx(reference, rel=1e-9, abs=1e-300)


def test_the_failure_probability_is_not_largest_at_one_idle_server():
    # the example of the walks section: N = 1000, c = 4 (reference: expm, start by start)
    net = DEFAULT.with_servers(1000)
    eps = [_failure_by_expm(net, 4.0, start) for start in range(1, 5)]
    assert [round(x, 5) for x in eps] == [0.00486, 0.00734, 0.00819, 0.00798]
    assert failure_probabilities(net, 4.0)[1:5] == pytest.approx(eps, rel=1e-9)
    # so B_1 must bound the supremum, and it does
    assert failure_bound(net, 4.0).total >= max(failure_probabilities(net, 4.0))


@pytest.mark.parametrize("servers", [16, 30, 100, 400, 1000, 3000])
@pytest.mark.parametrize("c", [0.5, 1.0, 2.0, 4.0, 8.0, 16.0])
@pytest.mark.parametrize("base", [DEFAULT, HEAVY])
def test_failure_bound_is_above_the_exact_value(servers, c, base):
    net = base.with_servers(servers)
    for start in (1, 2):
        bound = failure_bound(net, c, start=start)
        assert bound.total >= failure_probability(net, c, start=start)
        assert 0 <= bound.level < IdleWalk.from_network(net).band


@pytest.mark.parametrize("servers", [16, 100, 1000, 10_000])
@pytest.mark.parametrize("base", [DEFAULT, HEAVY])
def test_losses_per_failure(servers, base):
    """kappa = (lambda_H / mu) / P_1(reach b before 0) (visits to 0 are geometric, each
    loses lambda_H / mu H jobs on average), with the ruin probability of the chain."""
    net = base.with_servers(servers)
    walk = IdleWalk.from_network(net)
    ruin = chain_ruin_probabilities(walk.up_rates(), walk.down_rates(), walk.band)
    expected = (net.lambda_h / net.mu) / (1 - ruin[1])
    assert losses_per_failure(net) == pytest.approx(expected, rel=1e-9)
    assert losses_per_failure_bound(net) >= losses_per_failure(net)


@pytest.mark.parametrize(("servers", "c"), [(1000, 8.0), (3000, 8.0), (3000, 16.0)])
def test_loss_rate_bound_is_above_the_simulated_loss_rate(servers, c):
    """Where the bound says something (below the H arrival rate lambda_H N, asserted), the
    simulated H-loss rate of SSS is not significantly above it: mean - allowance < bound,
    the allowance t_{1 - ALPHA/2, 7} s.e. (conftest.t_tolerance) from 8 independent
    replications (losses come in clusters, so not from a Poisson count); false-failure
    rate below ALPHA/2 = 5e-5 per case were the bound exact (one-sided).  The post-band
    term the bound leaves out is below 1e-6 here (b >= 31)."""
    net = DEFAULT.with_servers(servers)
    bound = loss_rate_bound(net, c)
    assert bound < net.arrival_rate_h
    policy = f"sss:{net.window(c)!r}"
    rates = Estimate.of([
        simulate(net, policy, horizon=43.0, warmup=3.0, seed=seed).rejected_h / 40.0
        for seed in replication_seeds(8, 8)
    ])  # fmt: skip
    assert rates.mean - t_tolerance(rates.stderr, rates.dof, ALPHA) < bound


def test_failure_bound_says_something_for_long_windows():
    """B_1 < 1 (non-trivial) once c N is large: at N >= 1000 for c >= 4 (default rates)."""
    for servers in (1000, 3000):
        for c in (4.0, 8.0, 16.0):
            net = DEFAULT.with_servers(servers)
            assert failure_bound(net, c).total < 1.0


def _cramer_rate_numeric(mu, lam, x):
    """sup_theta [-theta x - mu (e^-theta - 1) - lam (e^theta - 1)], by a 1-D optimiser."""
    res = optimize.minimize_scalar(
        lambda t: t * x + mu * math.expm1(-t) + lam * math.expm1(t), bounds=(0, 50),
        method="bounded", options={"xatol": 1e-12},
    )  # fmt: skip
    return -res.fun


@pytest.mark.parametrize("base", [DEFAULT, HEAVY, LossNetwork(10, 0.2, 1.5, 1.0, 3.0, 1.0)])
def test_critical_constant_balances_the_two_exponents(base):
    c = critical_window_constant(base)
    theta = math.log(base.mu / base.lambda_h)

    def exponent(cc):
        """max over y of min(cc S(y / cc), y theta): cc S(y / cc) falls and y theta rises
        in y, so the maximum of the minimum is where they cross."""
        top = cc * (base.mu - base.lambda_h)  # S vanishes at the mean

        def gap(y):
            return cc * _cramer_rate_numeric(base.mu, base.lambda_h, y / cc) - y * theta

        return optimize.brentq(gap, 1e-12, top, xtol=1e-13) * theta

    assert exponent(c) == pytest.approx(1.0, rel=1e-6)
    assert exponent(0.97 * c) < 1.0 < exponent(1.03 * c)
    assert c > 1 / (theta * (base.mu - base.lambda_h))  # beyond the law-of-large-numbers value


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: failure_probability(DEFAULT, 0.0), "c must be > 0"),
        (lambda: failure_bound(DEFAULT, 5e-324), "c is too small"),
        (lambda: failure_probability(DEFAULT.with_servers(3), 0.1), "servers must be >= 4"),
        (lambda: failure_probability(DEFAULT, -0.1), "c must be > 0"),
        (lambda: failure_bound(DEFAULT, 0.1, start=10), r"start must be in 1..band - 1"),
        (lambda: loss_rate_bound(DEFAULT, float("nan")), "c must not be NaN"),
        (lambda: losses_per_failure("net"), "net must be a LossNetwork"),
        (lambda: critical_window_constant(None), "net must be a LossNetwork"),
    ],
)
def test_bad_input(call, message):
    assert_rejects(call, match=message)


def test_tiny_window_constants_give_finite_bounds():
    """Regression: W of order 1e-204 made the Skellam exponent 0/0 (x² + 4ud underflowed)
    and the bound NaN.  As c -> 0 the window term vanishes like P(D >= 1) ~ λ_H N W and
    the bound tends to the ruin term of the walk from 1 (min over m at m = 0)."""
    bound = failure_bound(DEFAULT, 1e-202)
    walk = IdleWalk.from_network(DEFAULT)
    r = (1 - walk.coupled_up_probability()) / walk.coupled_up_probability()
    ruin_from_1 = (r - r**walk.band) / (1 - r**walk.band)
    assert bound.level == 0 and bound.window_term < 1e-190
    assert bound.total == pytest.approx(ruin_from_1, rel=1e-12)
    assert math.isfinite(loss_rate_bound(DEFAULT, 1e-200))


def test_costs_are_refused_before_any_work():
    """Regression: c = 1e9 asked the uniformisation for 7e9 Poisson terms (1.16 TiB at
    the old window argument); N = 10^18 for a band of 10^9 levels.  Both are refused by
    the limits, naming the parameter, at once."""
    assert_rejects(failure_probability, DEFAULT, 1e9, match="^c: .*memory")
    huge = DEFAULT.with_servers(10**18)
    assert_rejects(failure_probability, huge, 8.0, match="^servers: .*memory")
    assert_rejects(losses_per_failure, huge, match="^servers: ")


def test_large_networks_use_the_band_only():
    """Regression: N = 10^8 built the generator on all N + 1 levels (7.9 GB); the band
    b = 10^4 is all the exact route needs.  kappa = (λ_H/μ)/(1 − h_1) and the chain's
    ruin probability h_1 from level 1 tends to λ_H/μ (gap O(1/sqrt N)), so kappa is
    within 1e-6 of (0.6/1)/(1 − 0.6) = 1.5.)"""
    net = DEFAULT.with_servers(10**8)
    kappa = losses_per_failure(net)
    assert losses_per_failure_bound(net) >= kappa
    assert kappa == pytest.approx(net.lambda_h / net.mu / (1 - 0.6), rel=1e-6)
    assert 0 < failure_probability(net, 8.0) <= failure_bound(net, 8.0).total < 1


@pytest.mark.parametrize("c", [1e-320, 5e-324, 1e-310])
def test_failure_bound_at_a_vanishing_window_names_c(c):
    """Regression: at c ~ 1e-320 the window's event means were subnormal and the Skellam
    bound refused them with a message naming its own arguments (up, down), not c."""
    net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    with pytest.raises(ValueError, match=r"^c "):
        failure_bound(net, c)


def test_a_long_window_skips_the_head_of_the_series_without_changing_it(monkeypatch):
    """Above DIRECT_TERMS the series starts SERIES_SIGMAS standard deviations below its
    mean, with P^k r by repeated squaring: against the term-by-term sum from k = 0 on a
    window of mean 3647 steps (start 1231) whose failure probability is 7.7e-73."""
    from qtheory.walks import sss

    net, c = LossNetwork(100, 0.98, 0.8, 1.0, 2.0, 1.0), 400.0
    monkeypatch.setattr(sss, "DIRECT_TERMS", 10**9)
    direct = failure_probabilities(net, c)
    monkeypatch.setattr(sss, "DIRECT_TERMS", 0)
    skipped = failure_probabilities(net, c)
    assert 0 < direct.max() < 1e-70
    assert skipped == pytest.approx(direct, rel=1e-12, abs=0)


def test_a_window_of_millions_of_steps_is_summed_or_refused_by_its_real_cost(monkeypatch):
    """The reproducer of 2.5 million uniformisation steps (it ran past 30 s term by term)
    is summed from its last 1.3e5 terms; term by term, the cost estimate (interpreter
    overhead per term included) refuses it under a 1e9-cell limit naming c."""
    from qtheory.core import limits
    from qtheory.walks import sss

    net, c = LossNetwork(1218, 0.91, 1.37, 1, 2.06, 1), 184709
    eps = failure_probabilities(net, c)
    assert eps.shape == (IdleWalk.from_network(net).band + 1,)
    assert ((eps >= 0) & (eps <= 1)).all()
    monkeypatch.setattr(sss, "DIRECT_TERMS", 10**9)
    with limits.raised(dp_cells=1e9), pytest.raises(ValueError, match="^c: "):
        failure_probabilities(net, c)
