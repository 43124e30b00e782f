"""Shared test helpers: statistical comparisons with a stated false-failure rate, and the
fuzzing contract of public entry points.

Statistical comparisons
-----------------------
Every statistical test compares an estimate with an exact reference (or two estimates
with each other) at a two-sided false-failure probability ``alpha`` per comparison
(default :data:`ALPHA` = 1e-4), using the estimator's own standard error; seeds are
fixed, so a failure reproduces.  A test making k comparisons fails falsely with
probability at most k * alpha.
"""

from __future__ import annotations

import math

import pytest
from scipy import stats

from qtheory.stats import Estimate

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
