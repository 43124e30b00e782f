"""The GI/M/1 root against independent routes: Lambert W (D/M/1), M/M/1, scipy's brentq
on the defining equation, and mpmath at high precision."""

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq
from scipy.special import lambertw

from qtheory.gated import log_root, root, root_enclosure


def dm1_root(mu_tau):
    """D/M/1: sigma = -W0(-x e^{-x}) / x with x = mu*tau (principal branch)."""
    return float(np.real(-lambertw(-mu_tau * np.exp(-mu_tau)) / mu_tau))


@pytest.mark.parametrize("mu_tau", [1.0001, 1.01, 1.5, 2.0, 5.0, 20.0])
def test_deterministic_gate_matches_lambert_w(mu_tau):
    assert root(mu_tau, np.inf, 1.0) == pytest.approx(dm1_root(mu_tau), rel=1e-12)


def test_no_gate_below_capacity_is_mm1():
    rates = np.array([0.01, 0.3, 0.9, 0.999])
    assert np.allclose(root(0.0, rates, 1.0), rates, rtol=1e-13)


@pytest.mark.parametrize(("gate", "arrival"), [(0.8, 3.0), (1.0, 0.7), (3.0, 10.0)])
def test_finite_arrival_rate_matches_brentq(gate, arrival):
    def residual(s):
        return np.exp(-(1 - s) * gate) * arrival / (arrival + (1 - s)) - s

    expected = brentq(residual, 1e-300, 1 - 1e-9, xtol=1e-16, rtol=1e-15)
    assert root(gate, arrival, 1.0) == pytest.approx(expected, rel=1e-12)


def test_vectorised_shapes_broadcast():
    gates = np.linspace(1.1, 5.0, 12).reshape(3, 4)
    out = root(gates, np.inf, 1.0)
    assert out.shape == (3, 4)
    assert np.allclose(out, [[dm1_root(g) for g in row] for row in gates], rtol=1e-12)


@pytest.mark.parametrize(
    ("gate", "arrival"),
    [
        (1.0 + 1e-9, np.inf),  # load -> 1: sigma -> 1
        (1.0 + 1e-15, np.inf),  # within a few ulps of the boundary
        (0.5 + 1e-10, 2.0),  # load -> 1 with an exponential phase
        (400.0, np.inf),  # sigma ~ e^-400: light traffic
        (1e-12, 0.5),  # tau -> 0 below capacity
        (1.0, 1e12),  # Lambda -> infinity
    ],
)
def test_hard_corners_against_mpmath(gate, arrival):
    """The float64 solver against mpmath at the same binary inputs (an mpf is read as its
    binary value; a float with dps= as its decimal, which near the boundary is another
    problem: 1 + 1e-15 is 1.000000000000001 there, 1.0000000000000011102... here)."""
    w = float(log_root(gate, arrival, 1.0))
    with mpmath.workdps(40):
        binary = mpmath.mpf(gate), mpmath.mpf(arrival)
        reference = -mpmath.log(root(*binary, 1.0, dps=40))
    assert w == pytest.approx(float(reference), rel=1e-13, abs=0)
    assert 0 < np.exp(-w) < 1


def test_root_mp_matches_mpmath_lambertw_to_50_digits():
    with mpmath.workdps(60):
        x = mpmath.mpf(3)
        expected = -mpmath.lambertw(-x * mpmath.exp(-x)) / x
        got = root(3, "inf", 1, dps=55)
        assert abs(got / expected - 1) < mpmath.mpf(10) ** -50


def test_enclosure_contains_the_high_precision_root():
    enclosure = root_enclosure(0.7, 2.5, 1.0, dps=30)
    with mpmath.workdps(80):
        precise = root(0.7, 2.5, 1.0, dps=70)
    assert enclosure.contains(mpmath.nstr(precise, 70))
    assert not enclosure.contains(mpmath.nstr(precise * (1 + mpmath.mpf(10) ** -20), 70))
    assert enclosure.relative_width < 1e-28


@settings(max_examples=60, deadline=None)
@given(
    excess=st.floats(1e-6, 50.0),
    arrival=st.one_of(st.just(np.inf), st.floats(0.05, 100.0)),
)
def test_root_is_nontrivial_and_solves_the_equation(excess, arrival):
    gate = max(0.0, 1.0 - 1.0 / arrival) + excess  # stable by construction
    w = float(log_root(gate, arrival, 1.0))
    sigma = np.exp(-w)
    assert 0 < w and sigma < 1  # never the trivial root
    decay = -np.expm1(-w)
    beta = 0.0 if np.isinf(arrival) else 1 / arrival
    # log-form of sigma = e^{-u tau}/(1 + beta u): relative residual
    assert abs(-w + decay * gate + np.log1p(beta * decay)) <= 1e-12 * max(1.0, w)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1.0, np.inf, 1.0), "gate"),
        ((np.nan, np.inf, 1.0), "gate"),
        ((1.0, 0.0, 1.0), "arrival_rate"),
        ((1.0, np.nan, 1.0), "arrival_rate"),
        ((1.0, np.inf, -2.0), "service_rate"),
        ((1.0, np.inf, np.inf), "service_rate"),
        ((0.5, np.inf, 1.0), "unstable"),
        ((0.0, 1.0, 1.0), "unstable"),
    ],
)
def test_bad_input_is_rejected(args, message):
    with pytest.raises(ValueError, match=message):
        root(*args)


@pytest.mark.parametrize("arrival", [np.inf, 2.0, 0.3])
def test_boundary_distance_kernel_matches_the_sympy_expression(arrival):
    """The float64 kernel for tau(w) - (1/mu - 1/Lambda) against the derived expression."""
    import sympy as sp

    from qtheory.gated import derivation as d
    from qtheory.gated.gim1_root import _boundary_distance

    beta = 0.0 if np.isinf(arrival) else 1 / arrival
    expr = d.derive().gate_excess.subs(d.NUMERIC)
    exact = sp.lambdify((d.log_decay, d.service_rate, d.mean_exp_phase), expr, "mpmath")
    for w in np.geomspace(1e-12, 60, 40):
        with mpmath.workdps(80):
            reference = exact(mpmath.mpf(w), mpmath.mpf(1.5), mpmath.mpf(beta))
        assert _boundary_distance(w, 1.5, beta) == pytest.approx(float(reference), rel=4e-15, abs=0)


def test_enclosure_near_the_boundary_and_with_decimal_inputs():
    enclosure = root_enclosure(0, "0.99999", 1, dps=30)
    assert enclosure.contains("0.99999")  # M/M/1: sigma = Lambda/mu
    assert enclosure.relative_width < 1e-32
    assert root("1.0000000000000000000001", "inf", 1, dps=30) < 1
