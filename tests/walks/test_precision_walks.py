"""The precision convention in qtheory.walks: every function with ``dps`` takes it keyword
only, validates it through qtheory.core.precision.check_dps before any work, and returns mpf
values rounded to ``dps`` significant digits (docs/precision.md)."""

import inspect
import time

import mpmath
import pytest
from conftest import assert_rejects

from qtheory.walks import chernoff, hitting, ruin

UP, DOWN = [2.0, 2.0, 2.0, 0.0], [0.0, 1.0, 1.0, 1.0]  # the walk with p = 2/3 on 0..3

with mpmath.workdps(60):  # the exact values below, to 60 digits
    #: (function, positional arguments, exact value of the first returned number)
    CALLS = [
        # p = 3/4 (exact in binary), r = 1/3: (r - r^3)/(1 - r^3) = 4/13
        (ruin.walk_ruin_probability, (0.75, 1, 3), mpmath.mpf(4) / 13),
        (ruin.walk_ruin_limit, (0.75, 1), mpmath.mpf(1) / 3),
        (ruin.chain_ruin_probabilities, (UP, DOWN, 3), mpmath.mpf(1)),
        # m_1 = 1 + m_2 3/4 + m_0/4, m_2 = 1 + m_1/4, m_0 = 1 + m_1: m_1 = 32/9
        (hitting.walk_climb_steps, (0.75, 1, 3), mpmath.mpf(32) / 9),
        (hitting.climb_means, (UP, DOWN, 3), mpmath.mpf(17) / 8),
        (hitting.descent_means, (UP, DOWN), mpmath.mpf(0)),
        # -(m h(x/m)) with m = 10, x = 20: -(20 log 2 - 10)
        (chernoff.log_poisson_tail_bound, (10.0, 20.0), 10 - 20 * mpmath.log(2)),
        (chernoff.poisson_tail_bound, (10.0, 20.0), mpmath.exp(10 - 20 * mpmath.log(2))),
        # P(S_10 >= 10) <= p^10 at p = 1/2, attained
        (chernoff.log_walk_tail_bound, (10, 0.5, 10.0), 10 * mpmath.log(0.5)),
        (chernoff.walk_tail_bound, (10, 0.5, 10.0), mpmath.mpf(2) ** -10),
        # u = d = 1, x = -2 (lower tail): -(2 - 2 sqrt 2 + 2 log(1 + sqrt 2))
        (
            chernoff.log_skellam_tail_bound,
            (1.0, 1.0, -2.0, "lower"),
            -(2 - 2 * mpmath.sqrt(2) + 2 * mpmath.log(1 + mpmath.sqrt(2))),
        ),
        (
            chernoff.skellam_tail_bound,
            (1.0, 1.0, -2.0, "lower"),
            mpmath.exp(-(2 - 2 * mpmath.sqrt(2) + 2 * mpmath.log(1 + mpmath.sqrt(2)))),
        ),
    ]
IDS = [call[0].__name__ for call in CALLS]


@pytest.mark.parametrize(("function", "args", "exact"), CALLS, ids=IDS)
def test_dps_is_keyword_only(function, args, exact):
    assert inspect.signature(function).parameters["dps"].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize(("function", "args", "exact"), CALLS, ids=IDS)
@pytest.mark.parametrize("dps", [0, -3, 2.5, True, "10"])
def test_invalid_dps_is_refused(function, args, exact, dps):
    assert_rejects(function, *args, dps=dps, match="^dps must be an integer >= 1")


@pytest.mark.parametrize(("function", "args", "exact"), CALLS, ids=IDS)
def test_huge_dps_is_refused_at_once(function, args, exact):
    start = time.perf_counter()
    assert_rejects(function, *args, dps=10**9, match="^dps: .* above the limit")
    assert time.perf_counter() - start < 1.0


def _first(value):
    return value[0] if isinstance(value, list) else value


@pytest.mark.parametrize(("function", "args", "exact"), CALLS, ids=IDS)
@pytest.mark.parametrize("dps", [5, 30])
def test_values_are_correct_and_rounded_to_dps(function, args, exact, dps):
    """Correct to dps digits against the exact value (typed above, 40-digit mpmath), and
    rounded: the returned mpf is unchanged by rounding to dps digits.  The caller's
    precision is restored."""
    before = mpmath.mp.dps
    value = _first(function(*args, dps=dps))
    assert mpmath.mp.dps == before
    assert isinstance(value, mpmath.mpf)
    with mpmath.workdps(dps):
        assert +value == value
    with mpmath.workdps(60):
        error = abs(value - exact)
        assert error <= 10 ** (1 - dps) * max(abs(exact), mpmath.mpf(10) ** -300)
