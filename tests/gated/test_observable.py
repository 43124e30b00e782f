"""Naor's observable M/M/1 bound against independent routes: the birth-death stationary
law of qtheory.exact, a brute-force scan of the threshold (no Naor characterisation),
the Λ → ∞ limit, and the ladder's order RR ≤ PH(m) ≤ GA ≤ observable on a grid."""

import mpmath
import numpy as np
import pytest

from qtheory.exact import birth_death_stationary
from qtheory.gated import GatedQueue, optimal_gate, optimal_routing
from qtheory.gated.observable import observable_welfare, optimal_observable
from qtheory.gated.phase_gates import optimal_erlang_gate


def birth_death_welfare(arrival, mu, reward, cost, n):
    """R·Λ(1 − π_n) − C·E[L] with π from qtheory.exact's birth-death solver."""
    pi = birth_death_stationary([arrival] * n, [mu] * n)
    return reward * arrival * (1 - pi[-1]) - cost * float(np.arange(n + 1) @ pi)


@pytest.mark.parametrize("arrival", [0.3, 0.999999, 1.0, 1.7, 25.0])
@pytest.mark.parametrize("n", [1, 2, 7, 40])
def test_welfare_matches_the_birth_death_law(arrival, n):
    queue = GatedQueue(arrival, 1.3, 6.0, 0.9)
    assert observable_welfare(queue, n) == pytest.approx(
        birth_death_welfare(arrival, 1.3, 6.0, 0.9, n), rel=1e-12, abs=1e-12
    )


@pytest.mark.parametrize("arrival", [0.2, 0.9, 1.0, 1.1, 3.0, 100.0])
@pytest.mark.parametrize("nu", [1.05, 2.0, 7.5, 60.0])
def test_threshold_is_the_best_of_a_brute_force_scan(arrival, nu):
    queue = GatedQueue(arrival, 1.0, nu, 1.0)
    scan = [birth_death_welfare(arrival, 1.0, nu, 1.0, n) for n in range(1, 400)]
    best = int(np.argmax(scan)) + 1
    opt = optimal_observable(queue)
    assert opt.welfare == pytest.approx(max(scan), rel=1e-12)
    # ties (equal welfare to rounding) may pick either threshold
    assert opt.threshold == best or scan[opt.threshold - 1] == pytest.approx(max(scan), rel=1e-12)


def test_high_precision_near_rho_one():
    """ρ = 1 + 1e-25: the expm1 forms against the ρ = 1 values (E[L] = n/2, π_n = 1/(n+1))
    to O(n²(ρ − 1))."""
    queue = GatedQueue("1.0000000000000000000000001", 1, 50, 1)
    opt = optimal_observable(queue, dps=30)
    n = opt.threshold
    assert n == 9  # n(n + 1)/2 ≤ 50
    with mpmath.workdps(40):
        assert abs(opt.mean_number - mpmath.mpf(n) / 2) < 1e-22
        assert abs(opt.blocking - mpmath.mpf(1) / (n + 1)) < 1e-22


def test_infinite_arrival_rate_is_the_limit():
    nu = 3.5
    limit = optimal_observable(GatedQueue("inf", 1, nu, 1))
    assert limit.threshold == 1 and limit.welfare == pytest.approx(nu - 1, rel=1e-15)
    values = [optimal_observable(GatedQueue(a, 1, nu, 1)).welfare for a in (10, 1e3, 1e6)]
    assert np.all(np.diff(values) > 0) and values[-1] < limit.welfare
    # n* = 1 there: S = Λ(μR − C)/(Λ + μ), below the limit by (μR − C)μ/(Λ + μ)
    assert limit.welfare - values[-1] == pytest.approx((nu - 1) / (1e6 + 1), rel=1e-6)


@pytest.mark.parametrize("arrival", ["inf", 5.0, 2.0, 1.0, 0.5])
@pytest.mark.parametrize("nu", [1.2, 2.0, 5.0, 20.0])
def test_ladder_order_rr_ph_ga_observable(arrival, nu):
    queue = GatedQueue(arrival, 1.0, nu, 1.0)
    rr = optimal_routing(queue).welfare
    ph = [optimal_erlang_gate(queue, m).welfare for m in (1, 4, 32)]
    ga = optimal_gate(queue).welfare
    ceiling = optimal_observable(queue).welfare
    slack = 1e-12 * ceiling
    assert rr <= ph[0] + slack and np.all(np.diff(ph) >= -slack)
    assert ph[-1] <= ga + slack and ga < ceiling
    assert ceiling <= queue.cost * (nu - 1) * (1 + 1e-15)  # P(busy)(μR − C) ≤ μR − C


@pytest.mark.parametrize("arrival", ["1e30", "1e50", "1e100", "1e300"])
def test_huge_arrival_rates_approach_the_limit(arrival):
    """Before: Λ(1 − π_n) cancelled, S = −1 at Λ = 1e100 (the ladder then out of
    order) and 0.99999996 at 1e50.  At n* = 1, S = Λ(μR − C)/(Λ + μ): μR − C = 1 to
    float64 (and to 30 digits, below it by about μ/Λ)."""
    queue = GatedQueue(float(arrival), 1.0, 2.0, 1.0)
    opt = optimal_observable(queue)
    assert opt.threshold == 1 and opt.welfare == 1.0 and opt.throughput == 1.0
    with mpmath.workdps(60):
        lam = mpmath.mpf(arrival)
        exact = lam * (2 - 1) / (lam + 1)  # Λ(μR − C)/(Λ + μ), μ = C = 1, R = 2
        high = optimal_observable(GatedQueue(arrival, 1, 2, 1), dps=30).welfare
        assert abs(high / exact - 1) < mpmath.mpf(10) ** -29


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: observable_welfare(GatedQueue(1, 1, 3, 1), 0), "threshold must be"),
        (lambda: optimal_observable(GatedQueue(1, 1, 0.5, 1)), "must be > 1"),
        (lambda: optimal_observable(GatedQueue(1, 1, 3, 1), dps=0), "dps must be"),
    ],
)
def test_bad_input_names_the_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_threshold_is_not_a_float():
    with pytest.raises(ValueError, match="threshold"):
        observable_welfare(GatedQueue(1, 1, 3, 1), 1.5)
