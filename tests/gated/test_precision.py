"""The precision convention on every gated function that takes ``dps``: keyword-only,
validated (ValueError naming dps), refused above the limit before any work, and correct
to D digits against independent mpmath computations at D + 20 digits.

The references do not use the code under test: the D/M/1 root is -W(-x e^{-x})/x
(mpmath's Lambert W), the RR optimum is Edelson-Hildebrand's closed form, and the GA
optimum maximises S(w) = (R - C/(mu(1 - e^{-w}))) (1 - e^{-w})/w (Lambda = inf, mu = 1,
tau = w/(1 - e^{-w})) by mpmath's numerical derivative and findroot, not the Sympy
first-order condition.
"""

import time

import mpmath
import pytest

from qtheory.gated import (
    GatedQueue,
    optimal_gate,
    optimal_routing,
    price_of_forgetting,
    root,
    root_enclosure,
    welfare_ga,
    welfare_rr,
)
from qtheory.gated.asymptotics import check_heavy_traffic, check_light_traffic

QUEUE = GatedQueue("inf", "1", "3", "1")
CALLS = {
    "root": lambda dps: root(3, "inf", 1, dps=dps),
    "root_enclosure": lambda dps: root_enclosure(3, "inf", 1, dps=dps),
    "welfare_ga": lambda dps: welfare_ga(QUEUE, 2, dps=dps),
    "welfare_rr": lambda dps: welfare_rr(QUEUE, "0.25", dps=dps),
    "optimal_gate": lambda dps: optimal_gate(QUEUE, dps=dps),
    "optimal_routing": lambda dps: optimal_routing(QUEUE, dps=dps),
    "price_of_forgetting": lambda dps: price_of_forgetting(QUEUE, dps=dps),
    "check_light_traffic": lambda dps: check_light_traffic(4, dps=dps),
    "check_heavy_traffic": lambda dps: check_heavy_traffic(4, dps=dps),
}
D = 30


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("dps", [0, -3, 2.5, True, "30"])
def test_bad_dps_is_rejected(name, dps):
    with pytest.raises(ValueError, match="dps"):
        CALLS[name](dps)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_huge_dps_is_refused_at_once(name):
    start = time.perf_counter()
    with pytest.raises(ValueError, match="limit"):
        CALLS[name](10**9)
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize(
    "call",
    [
        lambda: root(3, "inf", 1, 30),
        lambda: welfare_ga(QUEUE, 2, 30),
        lambda: welfare_rr(QUEUE, 0.25, 30),
        lambda: optimal_gate(QUEUE, 30),
        lambda: price_of_forgetting(QUEUE, 30),
        lambda: check_light_traffic(4, "inf", 30),
    ],
)
def test_dps_is_keyword_only(call):
    with pytest.raises(TypeError):
        call()


def close(value, reference, digits=D):
    """``value`` (rounded to ``digits`` significant digits) agrees with ``reference``."""
    with mpmath.workdps(digits + 20):
        return abs(value - reference) <= mpmath.mpf(10) ** (1 - digits) * abs(reference)


def dm1_root(x):
    """D/M/1 root at mu*tau = x, principal Lambert W (current precision)."""
    return -mpmath.lambertw(-x * mpmath.exp(-x)).real / x


def welfare_of_w(w, reward):
    """S_GA at sigma = e^{-w} with Lambda = inf, mu = C = 1."""
    one_minus_sigma = -mpmath.expm1(-w)
    return (reward - 1 / one_minus_sigma) * one_minus_sigma / w


def ga_optimum(reward, start):
    """(tau*, S*) by maximising S(w) numerically (mpmath derivative + findroot)."""
    w = mpmath.findroot(lambda x: mpmath.diff(lambda y: welfare_of_w(y, reward), x), start)
    return w / -mpmath.expm1(-w), welfare_of_w(w, reward)


def test_root_and_welfare_to_d_digits():
    sigma, welfare = root(3, "inf", 1, dps=D), welfare_ga(QUEUE, 2, dps=D)
    with mpmath.workdps(D + 20):
        assert close(sigma, dm1_root(mpmath.mpf(3)))
        s2 = dm1_root(mpmath.mpf(2))
        assert close(welfare, (3 - 1 / (1 - s2)) / 2)


def test_rr_welfare_to_d_digits_at_the_decimals():
    """S_RR(0.25) = 0.25 (3 - 1/0.75) = 5/12; the float 0.1 is 1/10 (not its binary)."""
    with mpmath.workdps(D + 20):
        assert close(welfare_rr(QUEUE, "0.25", dps=D), mpmath.mpf(5) / 12)
        assert close(welfare_rr(QUEUE, 0.1, dps=D), (3 - 1 / mpmath.mpf("0.9")) / 10)


def test_enclosure_is_d_digits_wide_and_contains_sigma():
    enclosure = root_enclosure(3, "inf", 1, dps=D)
    with mpmath.workdps(D + 20):
        sigma = dm1_root(mpmath.mpf(3))
        assert enclosure.contains(mpmath.nstr(sigma, D + 20))
    assert enclosure.relative_width <= 10.0 ** (1 - D)


def test_optima_and_pof_to_d_digits():
    gate, routing = optimal_gate(QUEUE, dps=D), optimal_routing(QUEUE, dps=D)
    pof = price_of_forgetting(QUEUE, dps=D)
    with mpmath.workdps(D + 20):
        tau, welfare = ga_optimum(mpmath.mpf(3), mpmath.mpf(float(gate.log_root)))
        rr_welfare = (mpmath.sqrt(3) - 1) ** 2  # C (sqrt(nu) - 1)^2
        assert close(gate.gate, tau) and close(gate.welfare, welfare)
        assert close(routing.rate, 1 - 1 / mpmath.sqrt(3)) and close(routing.welfare, rr_welfare)
        assert close(pof, welfare / rr_welfare)


def test_returned_values_are_rounded_to_dps():
    value = price_of_forgetting(QUEUE, dps=12)  # mpmath's rounding: to the bits of 12 digits
    with mpmath.workdps(12):
        assert +value == value
    with mpmath.workdps(11):
        assert +value != value


def test_light_traffic_check_to_d_digits():
    pof, _, _ = check_light_traffic(6, dps=D)
    with mpmath.workdps(D + 40):
        reward = 1 + mpmath.mpf(10) ** -6
        start = mpmath.mpf(float(optimal_gate(GatedQueue("inf", 1, reward, 1)).log_root))
        _, welfare = ga_optimum(reward, start)
        exact = welfare / (mpmath.sqrt(reward) - 1) ** 2
        assert close(pof.exact, exact)


def test_heavy_traffic_check_to_d_digits():
    excess_pof, _, _ = check_heavy_traffic(6, dps=D)
    with mpmath.workdps(D + 40):
        nu = mpmath.mpf(10) ** 6
        start = mpmath.mpf(float(optimal_gate(GatedQueue("inf", 1, nu, 1)).log_root))
        _, welfare = ga_optimum(nu, start)
        assert close(excess_pof.exact, welfare / (mpmath.sqrt(nu) - 1) ** 2 - 1)
