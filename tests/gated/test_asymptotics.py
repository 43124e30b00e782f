"""Asymptotic forms against mpmath at 60 digits at points approaching each limit."""

import mpmath
import pytest
import sympy as sp

from qtheory.gated.asymptotics import (
    arrival_rate,
    check_heavy_traffic,
    check_light_traffic,
    derive_light_traffic,
    excess,
    service_rate,
)


@pytest.mark.parametrize("arrival", ["inf", "3"])
def test_light_traffic_error_vanishes_like_epsilon(arrival):
    for exponent in (8, 16, 30):
        for check in check_light_traffic(exponent, arrival, dps=60):
            # corrections are O(eps) relative (measured: about 0.05 eps)
            assert check.relative_error < mpmath.mpf(10) ** -exponent / 10, check


def test_pof_diverges_while_absolute_gain_vanishes():
    values = [check_light_traffic(k, dps=40) for k in (4, 8, 16)]
    pofs = [v[0].exact for v in values]
    gains = [v[2].exact for v in values]
    assert pofs[0] < pofs[1] < pofs[2] and pofs[2] > 1e14  # ~ 4/(eps log(1/eps))
    assert all(0 < g < 2 * mpmath.mpf(10) ** -k for g, k in zip(gains, (4, 8, 16), strict=True))


def test_sympy_branch_choice():
    """The principal branch would give sigma -> e^{K+1} >= 1; W_{-1} gives sigma in (0,1)."""
    light = derive_light_traffic()
    point = {excess: sp.Rational(1, 10**6), service_rate: 1, arrival_rate: 2}
    value = light.root.subs(point).evalf(30)
    principal = light.root.replace(sp.LambertW, lambda z, k: sp.LambertW(z)).subs(point).evalf(30)
    assert 0 < value < 1e-6 and principal > 1


@pytest.mark.parametrize("arrival", ["inf", "2"])
def test_heavy_traffic_error_vanishes_like_inverse_sqrt_nu(arrival):
    for exponent in (8, 16, 24):
        for check in check_heavy_traffic(exponent, arrival, dps=60):
            assert check.relative_error < 2 * mpmath.mpf(10) ** (-exponent / 2), check


def test_heavy_traffic_gain_is_the_hand_derived_form():
    """S_GA - S_RR ~ C(nu - 2 sqrt(m nu)) - C(nu - 2 sqrt(nu) + 1) -> 2C(1 - sqrt(m)) sqrt(nu)."""
    from qtheory.gated.asymptotics import cost, derive_heavy_traffic, naor_ratio

    heavy = derive_heavy_traffic()
    expected = 2 * cost * (1 - sp.sqrt(heavy.variability)) * sp.sqrt(naor_ratio)
    assert sp.simplify(heavy.welfare_gain - expected) == 0
    m = (1 + service_rate**2 / arrival_rate**2) / 2
    assert sp.simplify(heavy.variability - m) == 0


def test_light_traffic_leading_term():
    light = derive_light_traffic()
    assert sp.simplify(light.price_of_forgetting_leading - 4 / (excess * sp.log(1 / excess))) == 0
