"""Certified comparisons of the walk bounds (qtheory.walks.certify): the balls agree with
the float64 routes, every check of the reproduce grid certifies, and a check evaluated
at a non-default band carries no spec (the certified families use b = floor(sqrt N))."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from qtheory.model.lossnet import LossNetwork
from qtheory.walks import certify, chernoff_checks, hitting, ruin
from qtheory.walks.bounds import BoundCheck
from qtheory.walks.idle import IdleWalk

NET = LossNetwork(16, 0.6, 0.8, 1.0, 2.0, 1.0)


def _checks(net: LossNetwork) -> list[BoundCheck]:
    walk = IdleWalk.from_network(net)
    return (
        ruin.ruin_checks(walk)
        + hitting.hitting_checks(walk)
        + chernoff_checks.chernoff_checks(net, c_values=[0.5, 2.0])
    )


@pytest.mark.parametrize("servers", [16, 50])
def test_every_check_certifies_and_the_balls_hold_the_floats(servers):
    checks = _checks(NET.with_servers(servers))
    done, certificate = certify.certify(checks, 0.6, 1.0, 0.8)
    assert len(done) == len(checks) and all(c.certified for c in done)
    assert len(certificate["data"]["items"]) == len(checks)
    for c in done:
        for value, enclosure in ((c.check.bound, c.bound), (c.check.exact, c.exact)):
            low, high = Fraction(enclosure.lower), Fraction(enclosure.upper)
            middle = (low + high) / 2
            # the float64 routes agree with the certified enclosure to 1e-9 (relative)
            assert abs(Fraction(value) - middle) <= Fraction(1, 10**9) * abs(middle), c.check


def test_exact_rational_families_are_exact():
    # ruin and climbing bounds with rational p are exact rationals: zero-width balls
    spec = {"family": "ruin", "N": 100, "i": 3, "bound": "walk_pinf"}
    bound, value = certify.enclose(spec, 0.6, 1.0, 0.8)
    # p_inf = 5/8, r = 3/5, b = 10: (r^3 - r^10)/(1 - r^10), by Fractions
    r = Fraction(3, 5)
    assert Fraction(int(bound.p), int(bound.q)) == (r**3 - r**10) / (1 - r**10)
    # the chain: rho_j = prod_k 60/(100 - k), h_3 = sum_{j >= 3} rho_j / sum_j rho_j
    rho = [math.prod(Fraction(60, 100 - k) for k in range(1, j + 1)) for j in range(10)]
    assert Fraction(int(value.p), int(value.q)) == sum(rho[3:]) / sum(rho)


def test_a_failing_comparison_is_not_certified():
    check = ruin.ruin_checks(IdleWalk(100, 0.6, 1.0), [1])[0]  # an upper bound
    flipped = BoundCheck(check.name, check.servers, check.point, "lower", check.bound,
                         check.exact, spec=check.spec)  # fmt: skip
    done, certificate = certify.certify([flipped], 0.6, 1.0, 0.8)
    assert not done[0].certified and certificate["data"]["items"] == []


def test_non_default_band_has_no_spec():
    walk = IdleWalk(100, 0.6, 1.0)
    assert all(c.spec is None for c in ruin.ruin_checks(walk, [1], band=20))
    checks = hitting.hitting_checks(walk, [1], band=20)
    assert {c.spec["family"] for c in checks if c.spec} == {"descent"}
    assert all(c.spec is None for c in checks if "to b" in c.name)


def test_descent_means_beyond_float64_are_enclosed():
    spec = {"family": "descent", "N": 10_000, "i": 1, "bound": "time"}
    bound, value = certify.enclose(spec, 0.6, 1.0, 0.8)
    # log E_1[T_0] ~ N (rho - 1 - log rho), rho = 0.6: about 1.1e3 decades at N = 1e4
    assert float(value.log().mid()) / math.log(10) > 400 and bool(value > bound)
