"""Fuzzing every public entry point of qtheory.gated and qtheory.sim.gated with random
floats (0, negatives, inf, NaN, 1e+-300 included) and wrong types: each returns, or
raises ValueError/TypeError with a message (conftest.assert_clean_outcome), and never
returns NaN.  The dps limit is lowered to 200 digits for speed (a refusal is a clean
ValueError too)."""

import numpy as np
from conftest import FUZZ, anything, assert_clean_outcome, dps_values, special_reals, wrong_types
from hypothesis import example, given, settings
from hypothesis import strategies as st

from qtheory.core import limits
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
from qtheory.gated.certified import certified_optimum
from qtheory.gated.claims import gated_claims, pof_at_least_one_claim
from qtheory.gated.embedded_chain import embedded_chain_law, service_count_law
from qtheory.sim import simulate_gated, simulate_random_routing
from qtheory.verify import check_certificate

ordinary = st.floats(0.01, 100.0)  # mostly valid queues, so that the numerics run
numbers = st.one_of(special_reals, st.integers(), ordinary, ordinary, ordinary)
argument = st.one_of(numbers, numbers, numbers, anything)  # numbers three times as often
SETTINGS = settings(FUZZ, max_examples=40)


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
@given(st.lists(argument, min_size=3, max_size=3))
def test_roots(args):
    with limits.raised(dps=200):
        no_nan(assert_clean_outcome(log_root, *args))
        no_nan(assert_clean_outcome(root, *args))


@FUZZ
@given(st.lists(argument, min_size=3, max_size=3), dps_values)
def test_roots_with_digits(args, dps):
    with limits.raised(dps=200):
        assert_clean_outcome(root, *args, dps=dps)
        assert_clean_outcome(root_enclosure, *args, dps=dps)


@SETTINGS
@given(st.lists(argument, min_size=4, max_size=4), argument, dps_values)
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


@SETTINGS
@given(st.lists(argument, min_size=4, max_size=4), dps_values)
def test_certified_optimum(values, dps):
    """A certified optimum, or a clean refusal (ν ≤ 1, bad dps, the digit limit); what it
    returns holds its own certificate."""
    with limits.raised(dps=200):
        queue = queue_or_error(values)
        target = queue if queue is not None else values[0]
        optimum = assert_clean_outcome(certified_optimum, target, dps=dps)
        if optimum is not None:
            check_certificate(optimum.certificate)


@settings(FUZZ, max_examples=15)
@given(argument, st.one_of(argument, st.just("inf")), dps_values)
def test_asymptotic_checks(exponent, arrival, dps):
    with limits.raised(dps=200):
        assert_clean_outcome(check_light_traffic, exponent, arrival, dps=dps)
        assert_clean_outcome(check_heavy_traffic, exponent, arrival, dps=dps)


@SETTINGS
@given(st.lists(argument, min_size=3, max_size=3), st.one_of(st.integers(-3, 50), wrong_types))
@example([1e200, 0.5, 1e200], 5)  # mu * gate overflows: a ValueError, not a NaN warning
def test_embedded_chain(args, size):
    assert_clean_outcome(service_count_law, *args, size)
    law = assert_clean_outcome(embedded_chain_law, *args)
    if law is not None:
        assert abs(law.found.sum() - 1) < 1e-9


@SETTINGS
@given(st.lists(argument, min_size=4, max_size=4), argument, argument, argument)
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
