"""The reject-all-L idle process and its coupled walks (qtheory.walks.idle)."""

import math

import numpy as np
import pytest
import sympy as sp
from conftest import assert_rejects

from qtheory.model.lossnet import LossNetwork
from qtheory.model.lossnet_symbols import lambda_h, mu
from qtheory.walks.idle import IdleWalk, derive_limit_up_probability


@pytest.mark.parametrize("servers", [1, 4, 9, 100, 10_000])
@pytest.mark.parametrize("rates", [(0.6, 1.0), (0.9, 1.0), (2.0, 7.0)])
def test_coupling_squeezes_the_jump_chain_on_the_band(servers, rates):
    walk = IdleWalk(servers, *rates)
    p = walk.up_probabilities()
    band = walk.band
    inside = p[1 : band + 1]
    assert np.all(np.diff(inside) < 0)  # p(i) decreases in i
    assert np.all(inside >= walk.coupled_up_probability() * (1 - 1e-15))
    assert np.all(inside <= walk.limit_up_probability)


def test_up_probability_is_the_ratio_of_the_generator_rates():
    walk = IdleWalk(30, 0.6, 1.0)
    Q = walk.generator().toarray()
    for i in range(1, 30):
        assert walk.up_probabilities()[i] == pytest.approx(Q[i, i + 1] / -Q[i, i], rel=1e-15)
    assert Q[0, 1] == pytest.approx(30.0) and Q[0, 0] == pytest.approx(-30.0)
    assert np.allclose(Q.sum(axis=1), 0.0)


def test_limit_of_the_coupled_walk_is_mu_over_mu_plus_lambda():
    assert sp.simplify(derive_limit_up_probability() - mu / (mu + lambda_h)) == 0
    walk = IdleWalk(10**12, 0.6, 1.0)
    assert walk.coupled_up_probability() == pytest.approx(walk.limit_up_probability, rel=1e-5)


def test_from_network_and_band():
    walk = IdleWalk.from_network(LossNetwork(50, 0.6, 0.8, 1.0, 2.0, 1.0))
    assert (walk.servers, walk.lambda_h, walk.mu, walk.band) == (50, 0.6, 1.0, math.isqrt(50))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 0.6, 1.0), "servers must be >= 1"),
        ((10, 1.0, 1.0), "lambda_h must be < mu"),
        ((10, -0.6, 1.0), "lambda_h must be > 0"),
        ((10, 0.6, math.nan), "mu must not be NaN"),
    ],
)
def test_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        IdleWalk(*args)


def test_bad_band():
    with pytest.raises(ValueError, match="band must be <= servers"):
        IdleWalk(10, 0.6, 1.0).coupled_up_probability(11)
    assert_rejects(IdleWalk.from_network, (10, 0.6, 1.0), match="net must be a LossNetwork")


def test_level_arrays_beyond_the_memory_limit_are_refused():
    """N = 10^12 levels would need terabytes: refused, naming servers, before allocating."""
    walk = IdleWalk(10**12, 0.6, 1.0)
    assert walk.band == 10**6  # the walk itself is cheap
    for method in (walk.up_rates, walk.down_rates, walk.generator, walk.up_probabilities):
        assert_rejects(method, match="^servers: .*memory")
