"""Regression tests of issue 13's reliability findings for the gated model, each against
an independent mpmath evaluation at high precision.

(a) the RR optimum near nu = 1 given as high-precision strings (C(sqrt(nu) - 1)^2 cancels
    twice in the expanded form); (b) valid inputs on which the root bracketing failed;
(c) a float64 optimum that overflowed to inf; (d) --dps and huge inputs that hung
instead of being refused.
"""

import json
import math
import time

import mpmath
import numpy as np
import pytest

from qtheory.cli import main
from qtheory.gated import GatedQueue, log_root, optimal_gate, optimal_routing, root, welfare_ga


def reward_string(zeros):
    """'1.000...01': nu - 1 = 10^-(zeros + 1) exactly (mu = C = 1)."""
    return "1." + "0" * zeros + "1"


@pytest.mark.parametrize("zeros", [59, 74, 150])
def test_rr_optimum_next_to_nu_one_keeps_every_digit(zeros):
    queue = GatedQueue("2", "1", reward_string(zeros), "1")
    routing = optimal_routing(queue, dps=20)
    with mpmath.workdps(2 * zeros + 100):  # enough for the two cancellations
        nu = mpmath.mpf(reward_string(zeros))
        welfare = (mpmath.sqrt(nu) - 1) ** 2
        rate = 1 - 1 / mpmath.sqrt(nu)
        assert abs(routing.welfare / welfare - 1) < mpmath.mpf(10) ** -19
        assert abs(routing.rate / rate - 1) < mpmath.mpf(10) ** -19


def test_cli_prints_the_rr_welfare_next_to_nu_one(capsys):
    argv = ["gated", "--arrival-rate", "2", "--service-rate", "1", "--cost", "1"]
    assert main([*argv, "--reward", reward_string(59), "--dps", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(out["welfare_rr"]) / mpmath.mpf("2.5e-121") - 1) < 1e-18


def reference_log_root(gate, arrival, mu, digits=60):
    """w solving w = u tau + log(1 + u/Lambda), u = mu(1 - e^{-w}), by fixed-point
    iteration from w = mu tau + log(1 + mu/Lambda) (a contraction with factor
    ~ e^{-w} mu (tau + 1/Lambda) where w is large, as in every case here)."""
    with mpmath.workdps(digits):
        tau, lam, mu = mpmath.mpf(gate), mpmath.mpf(arrival), mpmath.mpf(mu)
        beta = 0 if mpmath.isinf(lam) else 1 / lam
        w = mu * tau + mpmath.log1p(mu * beta)
        for _ in range(50):
            u = -mu * mpmath.expm1(-w)
            w = u * tau + mpmath.log1p(beta * u)
        return w


@pytest.mark.parametrize(
    "args",
    [(881.27, 57.30, 1.29e16), (7.13e16, math.inf, 2327857.0), (0.0, 8.4e-4, 4.6e14)],
)
def test_log_root_where_bracketing_failed(args):
    w = float(log_root(*args))
    assert w == pytest.approx(float(reference_log_root(*args)), rel=4e-16)


def test_root_underflows_to_zero_and_its_high_precision_value_is_right():
    assert root(1e308, 2, 2) == 0.0
    with pytest.raises(ValueError, match="overflows float64"):
        log_root(1e308, 2, 2)
    sigma = root(1e308, 2, 2, dps=20)
    with mpmath.workdps(400):
        # the dps route reads the float 1e308 as the decimal 10^308 (docs/precision.md)
        expected = mpmath.exp(-reference_log_root("1e308", 2, 2, digits=400))
        assert abs(sigma / expected - 1) < mpmath.mpf(10) ** -19


def test_welfare_with_a_huge_gate():
    queue = GatedQueue(639.5, 9.28, 1.316, 1.0)
    value = float(welfare_ga(queue, 9.98e70))
    with mpmath.workdps(120):
        w = reference_log_root(9.98e70, 639.5, 9.28, digits=120)
        decay = -9.28 * mpmath.expm1(-w)  # mu (1 - sigma)
        expected = (mpmath.mpf(1.316) - 1 / decay) / (mpmath.mpf(9.98e70) + 1 / mpmath.mpf(639.5))
    assert value == pytest.approx(float(expected), rel=1e-14)


def test_float64_overflow_is_an_error_not_inf():
    queue = GatedQueue(1e300, 1e300, 1e300, 1e300)
    for optimum in (optimal_routing, optimal_gate):
        with pytest.raises(ValueError, match="overflows float64.*dps"):
            optimum(queue)
    routing = optimal_routing(queue, dps=20)
    with mpmath.workdps(40):  # nu = 1e300: lambda* = mu (1 - nu^{-1/2}), S = C (sqrt(nu) - 1)^2
        big = mpmath.mpf("1e300")  # the decimal the float stands for (docs/precision.md)
        nu = big * big / big
        expected = big * (mpmath.sqrt(nu) - 1) ** 2
        assert abs(routing.welfare / expected - 1) < mpmath.mpf(10) ** -19
    assert mpmath.isfinite(optimal_gate(queue, dps=20).welfare)


@pytest.mark.parametrize(
    "extra",
    [
        ["--reward", "3", "--dps", "5000"],
        ["--reward", "3", "--dps", "100000"],
        ["--reward", "1e100000", "--dps", "30"],
        ["--reward", "1." + "0" * 3000 + "1", "--dps", "30"],
        ["--reward", "3", "--gate", "1e100000", "--dps", "30"],
    ],
)
def test_cli_refuses_runaway_precision_at_once(capsys, extra):
    base = ["gated", "--arrival-rate", "inf", "--service-rate", "1", "--cost", "1"]
    start = time.perf_counter()
    assert main([*base, *extra]) == 2
    assert time.perf_counter() - start < 2.0
    assert "limit" in capsys.readouterr().err


def test_vectorised_root_mixes_solvers_and_fallback():
    gates = np.array([1.0 + 1e-12, 2.0, 1e3, 1e300])
    sigma = root(gates, np.inf, 1.0)
    assert sigma[3] == 0.0 and sigma[2] == 0.0
    assert sigma[1] == pytest.approx(float(-mpmath.lambertw(-2 * mpmath.exp(-2)).real / 2))
    assert 0 < 1 - sigma[0] < 1e-5


@pytest.mark.parametrize("excess_exponent", [20, 60])
def test_nu_near_one_from_decimal_strings_keeps_every_requested_digit(excess_exponent):
    """Regression: with R, mu and C all given as decimal strings, nu - 1 was computed from
    R read at about len(R) + 20 digits, so S_RR* = C (sqrt(nu) - 1)^2 at dps=30 was
    wrong from the 28th digit (1.2e-28 relative at nu - 1 = 1e-20)."""
    reward = "1." + "0" * (excess_exponent - 1) + "1"
    queue = GatedQueue("inf", "1", reward, "1")
    welfare = optimal_routing(queue, dps=30).welfare
    with mpmath.workdps(2 * excess_exponent + 60):  # closed form, far more digits
        expected = (mpmath.sqrt(mpmath.mpf(reward)) - 1) ** 2
        assert abs(welfare / expected - 1) < mpmath.mpf(10) ** -29


def test_light_traffic_check_at_a_tiny_arrival_rate_keeps_its_digits():
    """Regression (found by fuzzing): at Lambda = 1e-300 the asymptote of tau* (a
    difference of terms of size 1/Lambda) cancelled to 0 and the check divided by it
    (ZeroDivisionError), or came out wrong (6.875 for 6.9078).  Reference: the exact
    tau* of optimal_gate, an independent route (the first-order condition, not the
    asymptotic form), at the same point."""
    from qtheory.gated.asymptotics import check_light_traffic

    _, gate, _ = check_light_traffic(3, "1e-300", dps=8)
    assert abs(gate.asymptotic / gate.exact - 1) < mpmath.mpf(10) ** -6
