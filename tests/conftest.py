"""Shared test helpers: statistical comparisons with a stated false-failure rate, and the
fuzzing contract of public entry points.

Statistical comparisons
-----------------------
Every statistical test compares an estimate with an exact reference (or two estimates
with each other) at a two-sided false-failure probability ``alpha`` per comparison
(default :data:`ALPHA` = 1e-4), using the estimator's own standard error; seeds are
fixed, so a failure reproduces.  A test making k comparisons fails falsely with
probability at most k * alpha.

Fuzzing
-------
The fuzz-test modules share one settings profile (:data:`FUZZ`; a module needing another
example count or fixed examples derives from it: ``@settings(FUZZ, max_examples=N)``)
and the strategies for arguments a caller might pass by mistake: :data:`special_reals`,
:data:`wrong_types`, :data:`anything` (their union with small integers) and
:data:`dps_values`.  Module-specific strategies (networks, walks, CLI argument lists)
stay in the modules.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from scipy import stats

from qtheory.core.stats import Estimate

#: Default false-failure probability of one statistical comparison.
ALPHA = 1e-4


def t_tolerance(stderr: float, dof: int | None, alpha: float = ALPHA) -> float:
    """Two-sided (1 - alpha) allowance for an estimate with standard error ``stderr``:
    t_{1 - alpha/2, dof} * stderr, or the normal quantile when ``dof`` is None."""
    quantile = stats.norm.ppf(1 - alpha / 2) if dof is None else stats.t.ppf(1 - alpha / 2, dof)
    return float(quantile * stderr)


def assert_estimate_matches(
    estimate: Estimate, reference: float, alpha: float = ALPHA, *, max_relative_width=None
) -> None:
    """``estimate`` agrees with the exact ``reference`` at false-failure rate ``alpha``
    (and, with ``max_relative_width``, its 95% interval is narrow enough to test
    anything: halfwidth <= max_relative_width * max(|reference|, 0.1))."""
    allowance = t_tolerance(estimate.stderr, estimate.dof, alpha)
    assert abs(estimate.mean - reference) <= allowance, (estimate, reference, allowance)
    if max_relative_width is not None:
        assert estimate.halfwidth <= max_relative_width * max(abs(reference), 0.1), (
            "interval too wide to test anything",
            estimate,
        )


def assert_rejects(call, *args, match: str, **kwargs) -> None:
    """``call(*args, **kwargs)`` raises ValueError or TypeError whose message matches
    ``match`` (the parameter's name, usually)."""
    with pytest.raises((ValueError, TypeError), match=match):
        call(*args, **kwargs)


def assert_clean_outcome(call, *args, **kwargs):
    """The fuzzing contract of a public entry point: it returns, or it raises a
    ValueError or TypeError (never AttributeError, ZeroDivisionError, an exception from
    inside NumPy/SciPy/mpmath, or a silent NaN in a float result)."""
    try:
        result = call(*args, **kwargs)
    except (ValueError, TypeError) as error:
        assert str(error), "an error must say what is wrong"
        return None
    if isinstance(result, float):
        assert not math.isnan(result), (call, args, kwargs)
    return result


#: The settings profile of every fuzz test: 25 examples, no deadline (the first call of
#: an entry point may compile or cache), no health check (the strategies are broad on
#: purpose) and no example database (a run depends on nothing a previous run left).
FUZZ = settings(
    max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None
)

#: Reals at the edges: signed zeros, units, subnormals, the smallest and largest
#: magnitudes, infinities and NaN.
SPECIAL_REALS = (
    0.0, -0.0, 0.5, 1.0, -1.0, 2.0,
    5e-324, 1e-320, 1e-300, 1e-200, 1e200, 1e300, -1e300, 1e308,
    math.inf, -math.inf, math.nan,
)  # fmt: skip

#: Values of the wrong type for a number, or of the wrong shape for a vector: None,
#: booleans, strings, empty and ragged containers, a bare object, NumPy objects.
WRONG_TYPES = (
    None, True, False, "x", "", [], {}, {"a": 1}, (), (1.0, 2.0), [1.0, "a"],
    [[1.0, 2.0], [3.0]], object(), np.zeros((2, 2)), np.random.default_rng(0),
)  # fmt: skip

special_reals = st.one_of(
    st.sampled_from(SPECIAL_REALS), st.floats(allow_nan=True, allow_infinity=True)
)
"""Any float, with the edges of :data:`SPECIAL_REALS` drawn often."""

wrong_types = st.one_of(
    st.sampled_from(WRONG_TYPES).map(copy.deepcopy),  # a fresh copy: a call may mutate it
    st.text(max_size=4),
    st.lists(st.one_of(st.floats(-2, 2), st.just(math.nan)), max_size=3),
)
"""Anything but a number: :data:`WRONG_TYPES`, short text, short lists of floats (NaN
included)."""

small_integers = st.integers(-10, 40)
"""Small integers, negatives and zero included (sizes, counts, indices)."""

anything = st.one_of(special_reals, small_integers, wrong_types)
"""Any argument a caller might pass by mistake (or by design): reals, small integers,
wrong types."""

dps_values = st.one_of(
    st.none(),
    st.integers(-2, 40),
    st.sampled_from([2.5, True, "30", 10**9]),
    wrong_types,
)
"""Values of a ``dps=`` (decimal digits) argument: the default, small integers (0 and
negatives included), a non-integral real, a boolean, a numeric string, a huge request,
wrong types."""
