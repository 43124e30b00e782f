"""Remainder bounds of the PoF asymptotics (qtheory.gated.remainder) against an
independent mpmath route: for each gate τ the GI/M/1 root σ is solved by bracketing,
S_GA(τ) is maximised over τ ≥ 0 by the root of its derivative (σ differentiated
implicitly), and S_RR* = λ(R − C/(μ − λ)) at λ = min(Λ, μ − √(μC/R)).  Nothing here
calls the certified arithmetic under test."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from _pof_reference import DPS, pof_direct, true_heavy, true_light
from mpmath import log, mpf, sqrt

from qtheory.gated import remainder
from qtheory.gated.remainder import (
    HEAVY_ARRIVAL_RATIO_MIN,
    HEAVY_CONSTANT,
    HEAVY_NU_MIN,
    LIGHT_ARRIVAL_RATIO_MIN,
    LIGHT_CONSTANT,
    LIGHT_EPSILON_MAX,
    heavy_remainder,
    light_remainder,
    require_heavy_hypotheses,
    require_light_hypotheses,
)
from qtheory.model.gated import GatedQueue
from qtheory.verify.gated import check_asymptotics


def inside(enclosure, value) -> bool:
    return (
        Fraction(enclosure.lower)
        <= Fraction(mpmath.nstr(value, DPS - 5))
        <= Fraction(enclosure.upper)
    )


def light_reward(eps: Fraction, mu=1, cost=1) -> str:
    return str((1 + eps) * Fraction(cost) / Fraction(mu))


def test_the_independent_route_against_the_closed_form_at_infinite_arrival_rate():
    # Λ = ∞: S_GA(σ) = (Rμ(1 − σ) − C)/(−log σ), stationary where Rμσ log σ + Rμ(1 − σ) = C,
    # and there S_GA* = Rμσ*; R = 2, μ = C = 1: S_RR* = (√2 − 1)².
    with mpmath.workdps(DPS):
        sigma = mpmath.findroot(lambda s: 2 * s * log(s) + 2 * (1 - s) - 1, mpf("0.2"))
        closed = 2 * sigma / (sqrt(2) - 1) ** 2
        assert abs(pof_direct(None, mpf(1), mpf(2), mpf(1)) / closed - 1) < mpf(10) ** -50


LIGHT_POINTS = [
    (arrival, eps)
    for arrival in ("inf", "2")
    for eps in (LIGHT_EPSILON_MAX, Fraction(1, 100), Fraction(1, 10**5), Fraction(1, 10**12),
                Fraction(1, 10**30))
] + [("6/5", LIGHT_EPSILON_MAX)]  # fmt: skip


@pytest.mark.parametrize(("arrival", "eps"), LIGHT_POINTS)
def test_light_bound_holds_across_the_stated_range(arrival, eps):
    queue = GatedQueue(arrival, 1, light_reward(eps), 1)
    require_light_hypotheses(queue)  # inside the hypotheses
    point = light_remainder(queue)
    true, bound = true_light(arrival, 1, light_reward(eps), 1)
    assert inside(point.remainder, true) and inside(point.bound, bound)
    assert true < bound and point.holds and point.decided
    assert point.remainder.relative_width < 1e-19
    check_asymptotics(point.certificate["data"])  # the independent checker agrees


HEAVY_POINTS = [
    (arrival, nu)
    for arrival in ("inf", "2")
    for nu in (HEAVY_NU_MIN, Fraction(10), Fraction(10**3), Fraction(10**10), Fraction(10**30))
]


@pytest.mark.parametrize(("arrival", "nu"), HEAVY_POINTS)
def test_heavy_bound_holds_across_the_stated_range(arrival, nu):
    queue = GatedQueue(arrival, 1, str(nu), 1)
    require_heavy_hypotheses(queue)
    point = heavy_remainder(queue)
    true, bound = true_heavy(arrival, 1, str(nu), 1)
    assert inside(point.remainder, true) and inside(point.bound, bound)
    assert true < bound and point.holds and point.decided
    assert point.remainder.relative_width < 1e-19  # the cancellation is paid for
    check_asymptotics(point.certificate["data"])


def test_other_units_give_the_same_ratios():
    # PoF depends on Λ/μ and ν only: μ = 2, C = 3 at Λ = 2.4 (Λ/μ = 6/5), ν = 21/20, and
    # Λ = 4 (Λ/μ = 2), ν = 4
    light = light_remainder(GatedQueue("2.4", 2, light_reward(Fraction(1, 20), 2, 3), 3))
    unit = light_remainder(GatedQueue("1.2", 1, "1.05", 1))
    true, _ = true_light("12/5", 2, light_reward(Fraction(1, 20), 2, 3), 3)
    assert light.holds and inside(light.remainder, true) and inside(unit.remainder, true)
    heavy = heavy_remainder(GatedQueue("4", 2, "6", 3))
    true, bound = true_heavy("4", 2, "6", 3)
    assert heavy.holds and inside(heavy.remainder, true) and inside(heavy.bound, bound)


@pytest.mark.parametrize(
    ("regime", "arrival", "reward"),
    [
        ("light", "inf", "1.3"),  # the README's counterexamples: ε = 0.3 ...
        ("heavy", "2", "3"),  # ... and ν = 3 at Λ = 2μ
        ("light", "inf", "1.2"),  # ε = 1/5
        ("light", "2", "1.125"),  # just above ε₀ = 1/10: ε = 1/8
        ("light", "0.5", "1.1"),  # below Λ = 6μ/5 at ε₀ ...
        ("light", "0.2", "1." + "0" * 29 + "1"),  # ... and far below, even at ε = 10^-30
        ("heavy", "2", "3.5"),  # just below ν₀ = 4
        ("heavy", "1.2", "1e30"),  # below Λ = 1.47μ the constant fails for every ν
    ],
)
def test_outside_the_hypotheses_the_bounds_fail(regime, arrival, reward):
    queue = GatedQueue(arrival, 1, reward, 1)
    require = require_light_hypotheses if regime == "light" else require_heavy_hypotheses
    with pytest.raises(ValueError, match="must be"):
        require(queue)
    point = (light_remainder if regime == "light" else heavy_remainder)(queue)
    true, bound = (true_light if regime == "light" else true_heavy)(arrival, 1, reward, 1)
    assert inside(point.remainder, true) and inside(point.bound, bound)
    assert true > bound and not point.holds and point.decided


def test_the_stated_counterexamples():
    # at Λ = ∞, μ = C = 1: |ratio − 1| = 0.583, 0.637, 0.663 against K r = 0.444, 0.231, 0.069
    for reward, left, right in (("1.2", 0.583, 0.444), ("1.3", 0.637, 0.231),
                                ("1.35", 0.663, 0.069)):  # fmt: skip
        true, bound = true_light("inf", 1, reward, 1)
        assert float(true) == pytest.approx(left, abs=1e-3)
        assert float(bound) == pytest.approx(right, abs=1e-3)
    true, bound = true_heavy("2", 1, "3", 1)  # 2.83 ν^{-1/2} > 2.5 ν^{-1/2}
    assert float(true * sqrt(3)) == pytest.approx(2.831, abs=1e-3) and true > bound


def test_the_thresholds_are_the_stated_constants():
    assert (LIGHT_CONSTANT, HEAVY_CONSTANT) == (Fraction(3, 2), Fraction(5, 2))
    assert (LIGHT_EPSILON_MAX, LIGHT_ARRIVAL_RATIO_MIN) == (Fraction(1, 10), Fraction(6, 5))
    assert (HEAVY_NU_MIN, HEAVY_ARRIVAL_RATIO_MIN) == (Fraction(4), Fraction(2))
    assert remainder.LIGHT_EPSILON_CHECKED_MIN == Fraction(1, 10**30)
    assert remainder.HEAVY_NU_CHECKED_MAX == Fraction(10**30)
    assert "1/10" in remainder.LIGHT_HYPOTHESIS and "6/5" in remainder.LIGHT_HYPOTHESIS
    assert r"\nu \ge 4" in remainder.HEAVY_HYPOTHESIS and "2" in remainder.HEAVY_HYPOTHESIS


@pytest.mark.parametrize(
    ("require", "queue", "named"),
    [
        (require_light_hypotheses, GatedQueue("inf", 1, "1.3", 1), "epsilon"),
        (require_light_hypotheses, GatedQueue("inf", 1, "1", 1), "nu"),  # ε = 0
        (require_light_hypotheses, GatedQueue("0.01", 1, "1.1", 1), "random routing"),
        (require_light_hypotheses, GatedQueue("1", 1, "1.1", 1), "arrival_rate/service_rate"),
        (require_heavy_hypotheses, GatedQueue("1", 1, "10", 1), "arrival_rate must be >"),
        (require_heavy_hypotheses, GatedQueue("1.5", 1, "10", 1), "arrival_rate/service_rate"),
        (require_heavy_hypotheses, GatedQueue("2", 1, "3", 1), "nu = 3"),
    ],
)
def test_hypotheses_name_the_rule_broken(require, queue, named):
    with pytest.raises(ValueError, match=named):
        require(queue)


def test_evaluation_outside_the_domain_raises():
    with pytest.raises(ValueError, match="epsilon"):
        light_remainder(GatedQueue("inf", 1, "2", 1))  # ε = 1: log log(1/ε) undefined
    with pytest.raises(ValueError, match="arrival_rate"):
        heavy_remainder(GatedQueue("1", 1, "10", 1))  # Λ = μ: 1 − √γ = 0
    with pytest.raises(TypeError, match="GatedQueue"):
        light_remainder("inf")
