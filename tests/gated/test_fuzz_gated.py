"""Fuzzing every public entry point of qtheory.gated and qtheory.sim.gated with random
floats (0, negatives, inf, NaN, 1e+-300 included) and wrong types: each returns, or
raises ValueError/TypeError with a message (conftest.assert_clean_outcome), and never
returns NaN.  The dps limit is lowered to 200 digits for speed (a refusal is a clean
ValueError too)."""

import math

import numpy as np
from conftest import assert_clean_outcome
from hypothesis import given, settings
from hypothesis import strategies as st

from qtheory import limits
from qtheory.gated import (
    GatedQueue,
    log_root,
    optimal_gate,
    optimal_routing,
    price_of_forgetting,
    root,
    root_enclosure,
    welfare_ga,
    welfare_rr,
)
from qtheory.gated.asymptotics import check_heavy_traffic, check_light_traffic
from qtheory.gated.claims import gated_claims, pof_at_least_one_claim
from qtheory.gated.embedded_chain import embedded_chain_law, service_count_law
from qtheory.sim import simulate_gated, simulate_random_routing

SPECIAL = [0.0, -0.0, -1.0, 1.0, 2.0, 1e300, -1e300, 1e-300, math.inf, -math.inf, math.nan]
ordinary = st.floats(0.01, 100.0)  # mostly valid queues, so that the numerics run
numbers = st.one_of(
    st.sampled_from(SPECIAL),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(),
    ordinary,
    ordinary,
    ordinary,
)
wrong = st.sampled_from([None, "x", "", [], object(), (1.0, 2.0), True, {"a": 1}])
anything = st.one_of(numbers, numbers, numbers, wrong)
digits = st.one_of(st.none(), st.integers(-2, 40), wrong, st.just(10**9))
SETTINGS = settings(max_examples=40, deadline=None)


def no_nan(result):
    """Every float in a returned value, array or record is a number (never NaN)."""
    if result is None:
        return
    values = result.__dict__.values() if hasattr(result, "__dataclass_fields__") else [result]
    for value in values:
        if isinstance(value, float | np.ndarray | np.floating):
            assert not np.any(np.isnan(np.asarray(value, dtype=float))), result


def queue_or_error(values):
    """A GatedQueue from four values, or None after a clean refusal."""
    return assert_clean_outcome(GatedQueue, *values)


@SETTINGS
@given(st.lists(anything, min_size=3, max_size=3))
def test_roots(args):
    with limits.raised(dps=200):
        no_nan(assert_clean_outcome(log_root, *args))
        no_nan(assert_clean_outcome(root, *args))


@settings(max_examples=25, deadline=None)
@given(st.lists(anything, min_size=3, max_size=3), digits)
def test_roots_with_digits(args, dps):
    with limits.raised(dps=200):
        assert_clean_outcome(root, *args, dps=dps)
        assert_clean_outcome(root_enclosure, *args, dps=dps)


@SETTINGS
@given(st.lists(anything, min_size=4, max_size=4), anything, digits)
def test_welfare_and_optima(values, control, dps):
    with limits.raised(dps=200):
        queue = queue_or_error(values)
        target = queue if queue is not None else values[0]  # a non-queue: TypeError
        no_nan(assert_clean_outcome(welfare_ga, target, control))
        no_nan(assert_clean_outcome(welfare_rr, target, control))
        for optimum in (optimal_gate, optimal_routing, price_of_forgetting):
            no_nan(assert_clean_outcome(optimum, target))
            assert_clean_outcome(optimum, target, dps=dps)
        assert_clean_outcome(welfare_ga, target, control, dps=dps)


@settings(max_examples=15, deadline=None)
@given(anything, st.one_of(anything, st.just("inf")), digits)
def test_asymptotic_checks(exponent, arrival, dps):
    with limits.raised(dps=200):
        assert_clean_outcome(check_light_traffic, exponent, arrival, dps=dps)
        assert_clean_outcome(check_heavy_traffic, exponent, arrival, dps=dps)


@SETTINGS
@given(st.lists(anything, min_size=3, max_size=3), st.one_of(st.integers(-3, 50), wrong))
def test_embedded_chain(args, size):
    assert_clean_outcome(service_count_law, *args, size)
    law = assert_clean_outcome(embedded_chain_law, *args)
    if law is not None:
        assert abs(law.found.sum() - 1) < 1e-9


@SETTINGS
@given(st.lists(anything, min_size=4, max_size=4), anything, anything, anything)
def test_simulators(values, control, customers, seed):
    queue = queue_or_error(values)
    target = queue if queue is not None else values[0]
    small = {"customers": 200, "batches": 4, "warmup": 10}
    for simulator in (simulate_gated, simulate_random_routing):
        no_nan(assert_clean_outcome(simulator, target, control, **small))
        assert_clean_outcome(simulator, target, 1.5, customers=customers, batches=4)
        assert_clean_outcome(simulator, target, 1.5, seed=seed, **small)


def test_claims_reject_wrong_flags():
    for bad in (None, "x", 1, [], object()):
        assert_clean_outcome(gated_claims, bad)
        assert_clean_outcome(pof_at_least_one_claim, bad)
