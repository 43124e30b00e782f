"""The SSS failure probability, its bound and the critical window constant
(qtheory.walks.sss)."""

import math

import numpy as np
import pytest
import scipy.linalg
from scipy import optimize

from qtheory.lossnet.model import LossNetwork
from qtheory.sim.lossnet import simulate
from qtheory.walks.idle import IdleWalk
from qtheory.walks.ruin import chain_ruin_probabilities
from qtheory.walks.sss import (
    critical_window_constant,
    failure_bound,
    failure_probability,
    loss_rate_bound,
    losses_per_failure,
    losses_per_failure_bound,
    window,
)

DEFAULT = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
HEAVY = LossNetwork(100, 0.9, 0.4, 1.0, 2.0, 1.0)


def _failure_by_expm(net, window_length, start=1):
    """Independent route: dense matrix exponential of the generator on the levels 0..b
    with 0 and b absorbing (J >= 1 on [0, W] and b not reached by W), and the
    birth-death ruin sums of qtheory.walks.ruin."""
    walk = IdleWalk.from_network(net)
    b = walk.band
    Q = walk.generator().toarray()[: b + 1, : b + 1]
    # rows 0..b-1 keep all their rates (their moves stay within 0..b)
    Q[[0, b], :] = 0.0
    at_window = scipy.linalg.expm(Q * window_length)[start]
    ruin = chain_ruin_probabilities(walk.up_rates(), walk.down_rates(), b)
    return float(at_window[1:b] @ ruin[1:b])


@pytest.mark.parametrize("servers", [16, 30, 100, 200])
@pytest.mark.parametrize("c", [0.5, 2.0, 8.0])
@pytest.mark.parametrize("base", [DEFAULT, HEAVY])
def test_failure_probability_two_routes(servers, c, base):
    net = base.with_servers(servers)
    w = window(net, c)
    assert failure_probability(net, w) == pytest.approx(_failure_by_expm(net, w), rel=1e-9)


@pytest.mark.parametrize("servers", [16, 30, 100, 400, 1000, 3000])
@pytest.mark.parametrize("c", [0.5, 1.0, 2.0, 4.0, 8.0, 16.0])
@pytest.mark.parametrize("base", [DEFAULT, HEAVY])
def test_failure_bound_is_above_the_exact_value(servers, c, base):
    net = base.with_servers(servers)
    w = window(net, c)
    for start in (1, 2):
        bound = failure_bound(net, w, start=start)
        assert bound.total >= failure_probability(net, w, start=start)
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
    simulated H-loss rate of SSS is not significantly above it: mean - 3.29 s.e. < bound,
    s.e. from 8 independent replications (losses come in clusters, so not from a
    Poisson count); false-failure rate below 5e-4 per case were the bound exact.  The
    post-band term the bound leaves out is below 1e-6 here (b >= 31)."""
    net = DEFAULT.with_servers(servers)
    bound = loss_rate_bound(net, c)
    assert bound < net.arrival_rate_h
    policy = f"sss:{window(net, c)!r}"
    seeds = np.random.SeedSequence(8).spawn(8)
    rates = np.array([
        simulate(net, policy, horizon=43.0, warmup=3.0, seed=seed).rejected_h / 40.0
        for seed in seeds
    ])  # fmt: skip
    assert rates.mean() - 3.29 * rates.std(ddof=1) / math.sqrt(rates.size) < bound


def test_failure_bound_says_something_for_long_windows():
    """B_1 < 1 (non-trivial) once c N is large: at N >= 1000 for c >= 4 (default rates)."""
    for servers in (1000, 3000):
        for c in (4.0, 8.0, 16.0):
            net = DEFAULT.with_servers(servers)
            assert failure_bound(net, window(net, c)).total < 1.0


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
        (lambda: window(DEFAULT, 0.0), "c must be > 0"),
        (lambda: window(DEFAULT.with_servers(1), 1.0), "servers must be >= 2"),
        (lambda: failure_probability(DEFAULT.with_servers(3), 0.1), "servers must be >= 4"),
        (lambda: failure_probability(DEFAULT, -0.1), "window_length must be > 0"),
        (lambda: failure_bound(DEFAULT, 0.1, start=10), r"start must be in 1..band - 1"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
