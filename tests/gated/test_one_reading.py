"""One reading of the parameters on every route: a float is its shortest ``repr``
decimal (0.6 = 3/5), a string the decimal it spells, as in
:meth:`qtheory.model.gated.GatedQueue.exact_parameters`.  So the certified 30-digit interval
contains the ``dps=50`` value at 100 random queues, parameters given as short decimal
strings and as Python floats; and a float64 result that the rounding of the
parameters to float64 leaves ill-conditioned says so (IllConditionedWarning).
"""

import json
import math
import random
import time
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from _cli_testing import run_cli

from qtheory.core.precision import binary_fraction, decimal_fraction
from qtheory.gated import (
    GatedQueue,
    certified_optimum,
    optimal_gate,
    optimal_routing,
    price_of_forgetting,
    welfare_ga,
    welfare_rr,
)
from qtheory.model.gated import IllConditionedWarning, to_mpf

SEED = 20260611
POINTS = 100
#: Seconds the 100 points may take (measured 4-6 s on a shared 2-core machine).
BUDGET = 40.0


def decimal(value: Fraction) -> str:
    """A terminating rational as a short decimal string (``"26e-13"`` style)."""
    exponent = 0
    while value.denominator != 1:
        value *= 10
        exponent -= 1
    numerator = value.numerator
    while numerator % 10 == 0 and numerator:
        numerator //= 10
        exponent += 1
    return f"{numerator}e{exponent}"


def random_queue(rng: random.Random) -> tuple[str, str, str, str]:
    """(Λ, μ, R, C) as decimal strings of at most 15 significant digits (so that
    ``repr(float(text))`` is the same decimal): ν − 1 = ε with log10 ε uniform on
    [-12, 12] (two digits), C/μ = q a one-digit decimal, R = q(1 + ε) exactly; Λ is
    ``inf`` (a quarter) or a two-digit multiple of μ from 0.01 μ to 99 μ."""
    mu = Fraction(rng.randint(10, 99)) * Fraction(10) ** rng.randint(-3, 1)
    q = Fraction(rng.randint(1, 9)) * Fraction(10) ** rng.randint(-2, 2)
    exponent = rng.uniform(-12, 12)
    scale = math.floor(exponent) - 1
    eps = Fraction(round(10 ** (exponent - scale))) * Fraction(10) ** scale
    cost, reward = q * mu, q * (1 + eps)
    if rng.random() < 0.25:
        arrival = "inf"
    else:
        ratio = Fraction(rng.randint(10, 99), 10) * Fraction(10) ** rng.randint(-2, 1)
        arrival = decimal(ratio * mu)
    return arrival, decimal(mu), decimal(reward), decimal(cost)


def as_floats(texts):
    return tuple(float(text) for text in texts)


def contains(enclosure, value) -> bool:
    return enclosure.contains(binary_fraction(value))


def test_random_queues_are_random_enough():
    rng = random.Random(SEED)
    queues = [random_queue(rng) for _ in range(POINTS)]
    excess = [math.log10(float(GatedQueue(*q).exact_parameters().nu - 1)) for q in queues]
    assert min(excess) < -10 and max(excess) > 10
    finite = [q for q in queues if q[0] != "inf"]
    assert any(Fraction(q[0]) < Fraction(q[1]) for q in finite)
    assert any(Fraction(q[0]) > Fraction(q[1]) for q in finite)
    assert len(finite) < POINTS
    for texts in queues:  # every text is the repr decimal of its float
        assert all(Fraction(repr(float(t))) == Fraction(t) for t in texts if t != "inf")


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (None, TypeError, "^value must be an mpmath.mpf, got NoneType$"),
        (0.5, TypeError, "^value must be an mpmath.mpf, got float$"),
        (mpmath.mpf("inf"), ValueError, "^value must be finite, got \\+inf$"),
        (mpmath.mpf("nan"), ValueError, "^value must be finite, got nan$"),
    ],
)
def test_binary_fraction_names_its_parameter(value, error, message):
    """Before: AttributeError ('NoneType' object has no attribute 'man_exp')."""
    with pytest.raises(error, match=message):
        binary_fraction(value)


def test_decimal_fraction_is_the_certified_reading():
    rng = random.Random(SEED)
    for _ in range(POINTS):
        texts = random_queue(rng)
        for queue in (GatedQueue(*texts), GatedQueue(*as_floats(texts))):
            params = queue.exact_parameters()
            certified = (params.arrival, params.mu, params.reward, params.cost)
            fields = (queue.arrival_rate, queue.service_rate, queue.reward, queue.cost)
            for field, rational in zip(fields, certified, strict=True):
                expected = None if rational is None else Fraction(int(rational.p), int(rational.q))
                assert decimal_fraction(field) == expected


def test_certified_interval_contains_the_50_digit_values():
    rng = random.Random(SEED)
    start, contained, checked, boundary = time.perf_counter(), 0, 0, 0
    for _ in range(POINTS):
        texts = random_queue(rng)
        typed, floats = GatedQueue(*texts), GatedQueue(*as_floats(texts))
        assert typed.exact_parameters() == floats.exact_parameters()  # one rational
        opt = certified_optimum(typed, dps=30)
        boundary += opt.at_boundary
        for queue in (typed, floats):
            values = {
                "gate": optimal_gate(queue, dps=50).gate,
                "rate_rr": optimal_routing(queue, dps=50).rate,
                "price_of_forgetting": price_of_forgetting(queue, dps=50),
            }
            for name, value in values.items():
                checked += 1
                assert contains(getattr(opt, name), value), (texts, type(queue.reward), name)
                contained += 1
    elapsed = time.perf_counter() - start
    assert contained == checked == 6 * POINTS
    assert 0 < boundary < POINTS  # both cases of the gate occur
    assert elapsed < BUDGET, f"{POINTS} points took {elapsed:.1f} s"


def test_float64_optima_read_the_same_decimals():
    """At ν = 1 + 1e-12 the float64 optima are the certified values rounded (the
    binary reading was 4.4e-5 off in λ*), and they do not warn."""
    queue = GatedQueue(math.inf, 1.0, 1 + 1e-12, 1.0)
    opt = certified_optimum(queue, dps=30)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllConditionedWarning)
        fast = {
            "rate_rr": optimal_routing(queue).rate,
            "gate": optimal_gate(queue).gate,
            "price_of_forgetting": price_of_forgetting(queue),
        }
    for name, value in fast.items():
        assert value == pytest.approx(getattr(opt, name).midpoint, rel=1e-12), name


def test_float_and_string_read_alike_at_high_precision():
    with mpmath.workdps(50):
        assert to_mpf(0.6) == to_mpf("0.6") == to_mpf("3/5") == mpmath.mpf(3) / 5
        assert to_mpf(np.float64(0.1)) == mpmath.mpf(1) / 10
        assert to_mpf(mpmath.mpf(0.1)) != mpmath.mpf(1) / 10  # an mpf is its binary value
        assert mpmath.isinf(to_mpf(" Infinity ")) and mpmath.isinf(to_mpf(math.inf))
    near = GatedQueue("inf", 1, 1 + 1e-12, 1)
    with mpmath.workdps(30):
        assert abs(near.naor_excess() / mpmath.mpf("1e-12") - 1) < mpmath.mpf(10) ** -25


def test_float64_welfare_warns_when_ill_conditioned():
    """At ν = 1 + 1e-12 the float64 welfare curves lose digits (here 1.8e-4 of S_RR),
    and say so; the dps routes compute at the decimals and do not warn."""
    near = GatedQueue(math.inf, 1.0, 1 + 1e-12, 1.0)
    with pytest.warns(IllConditionedWarning, match=r"nu/\(nu - 1\) = 1e\+12.*dps") as caught:
        fast = welfare_rr(near, 5e-13)
    assert "welfare_rr" in str(caught[0].message)
    assert caught[0].filename == __file__  # points at the caller's line
    with pytest.warns(IllConditionedWarning, match="welfare_ga"):
        welfare_ga(near, 31.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllConditionedWarning)
        exact = welfare_rr(near, 5e-13, dps=20)
        welfare_ga(near, 31, dps=20)
    assert abs(fast / float(exact) - 1) > 1e-8  # the warning is not a false alarm


def test_no_warning_where_the_net_reward_does_not_cancel():
    """At ν = 1 + 1e-12 a short gate has S_GA < 0 far from 0 (R − C/(μ(1 − σ)) ≈ −0.25
    at τ = 2): float64 keeps its digits there, and does not warn."""
    near = GatedQueue(math.inf, 1.0, 1 + 1e-12, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllConditionedWarning)
        fast = welfare_ga(near, 2.0)
        welfare_rr(near, 0.5)
    assert fast == pytest.approx(float(welfare_ga(near, 2, dps=20)), rel=1e-12)


def test_float64_route_does_not_warn_at_nu_2():
    ordinary = GatedQueue(math.inf, 1.0, 2.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllConditionedWarning)
        welfare_rr(ordinary, 0.25)
        welfare_ga(ordinary, np.linspace(1.5, 4.0, 5))
        optimal_gate(ordinary), optimal_routing(ordinary), price_of_forgetting(ordinary)
        welfare_rr(GatedQueue(2.0, 1.0, 1 + 1e-6, 1.0), 1e-7)  # 1.1e-10: below 1e-8


COMMAND = ["gated", "--arrival-rate", "inf", "--service-rate", "1", "--cost", "1"]


def test_cli_prints_one_warning_line():
    status, out, err = run_cli([*COMMAND, "--reward", "1.000000000001", "--gate", "31"])
    assert status == 0 and "welfare_at_gate" in out
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("qtheory gated: warning: welfare_ga in float64 is ill-conditioned")
    assert "--dps" in lines[0] and "1e+12" in lines[0]
    assert "Traceback" not in err and "warnings.warn" not in err


def test_cli_routes_agree_without_warning():
    """The CLI's float64, --dps and --certify outputs are values at the same decimals."""
    argv = [*COMMAND, "--reward", "1.000000000001", "--json"]
    status, out, err = run_cli(argv)
    assert status == 0 and err == ""
    fast = json.loads(out)
    status, out, _ = run_cli([*argv, "--certify"])
    certified = json.loads(out)
    for name in ("rate_rr", "tau_star", "pof"):
        low, high = (Fraction(certified[name][side]) for side in ("lower", "upper"))
        assert fast[name] == pytest.approx(float((low + high) / 2), rel=1e-12), name
    status, _, err = run_cli([*COMMAND, "--reward", "2", "--gate", "3"])
    assert status == 0 and err == ""
