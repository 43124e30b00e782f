"""Renewal (phase-type) potential arrivals in the C Lindley simulator, checked against the
exact route of qtheory.gated.renewal (itself tested against closed forms and the PH/M/1
QBD in tests/gated/test_renewal.py): the mean sojourn 1/(μ(1 − σ)) and the throughput of
GA at the gate τ(w) and of RR at the rate λ_RR(w), for Erlang-2 and H2 (SCV 4) arrivals at
Λ ∈ {0.8, 1.5, 3}, μ = 1, and at the package's optima (Λ = 1.5).

Statistical checks use fixed seeds.  The mean sojourn is compared at the 99.9% level of
its batch-means interval (20 batches, Student t with 19 degrees of freedom); the
throughput λ̂ = n/ΣA_i at the 99.9% normal level of its delta-method standard error
λ·CV(A)/√n, the admitted gaps A_i being i.i.d. (they do not depend on the queue) with
CV(A) computed exactly here from the phase law at the gate.  For random seeds each of the
32 comparisons fails wrongly with probability 1e-3, so the module does with probability
at most 3.2% (with these seeds it passes deterministically).  The C code's own checks
(its stability test computes E[A] by uniformisation, independently of the Python route)
are tested at the stability boundary, and a fuzz test feeds it arbitrary arrival laws.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import FUZZ, anything, assert_estimate_matches, special_reals
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize
from scipy.linalg import expm

from qtheory.core.phase_type import arrival_law, erlang, exponential
from qtheory.gated import GatedQueue
from qtheory.gated.renewal import RenewalStreams
from qtheory.sim import _core, simulate_gated, simulate_random_routing

ALPHA = 1e-3
Z = 3.2905  # two-sided normal quantile at ALPHA
SIM = {"customers": 500_000, "batches": 20, "warmup": 10_000}
CASES = [(spec, rate) for spec in ("erlang:2", "hyperexp:4") for rate in (0.8, 1.5, 3.0)]


def queue(rate):
    return GatedQueue(rate, 1.0, 2.0, 1.0)


def gap_moments(spec, rate, gate=0.0, q=1.0):
    """(E[A], E[A²]) of the admitted gap: gate + R(gate), then Geometric(q) − 1 more X's."""
    law = arrival_law(spec).scaled(1 / rate)
    T, t, alpha = law.T, law.exit_rates, law.alpha
    pi = alpha @ expm((T + np.outer(t, alpha)) * gate)
    inv = np.linalg.inv(-T)
    ones = np.ones(law.phases)
    r1, r2 = pi @ inv @ ones, 2 * pi @ inv @ inv @ ones
    x1, x2 = law.mean, law.moment(2)
    mean = gate + r1 + (1 / q - 1) * x1
    extra1 = (1 / q - 1) * x1  # the mean of a Geometric(q) − 1 sum of X's
    extra2 = (1 / q - 1) * (x2 - x1**2) + ((1 - q) / q**2) * x1**2 + extra1**2
    second = gate**2 + 2 * gate * r1 + r2 + 2 * (gate + r1) * extra1 + extra2
    return mean, second


def assert_throughput_matches(est, spec, rate, gate=0.0, q=1.0):
    mean, second = gap_moments(spec, rate, gate, q)
    cv = math.sqrt(second - mean**2) / mean
    allowance = Z * cv / math.sqrt(est.customers) / mean
    assert abs(est.throughput - 1 / mean) <= allowance, (est.throughput, 1 / mean, allowance)


@pytest.mark.parametrize(("spec", "rate"), CASES)
def test_gated_admission_matches_the_exact_route(spec, rate):
    streams = RenewalStreams(queue(rate), spec)
    w = streams.w_min + 0.5
    gate = streams.ga_gate(w)
    est = simulate_gated(queue(rate), gate, arrivals=spec, seed=31, **SIM)
    exact = 1 / (1 - math.exp(-w))
    assert_estimate_matches(est.mean_sojourn, exact, ALPHA, max_relative_width=0.05)
    assert_throughput_matches(est, spec, rate, gate=gate)
    assert 1 / gap_moments(spec, rate, gate)[0] == pytest.approx(streams.ga_throughput(w))


@pytest.mark.parametrize(("spec", "rate"), CASES)
def test_random_routing_matches_the_exact_route(spec, rate):
    streams = RenewalStreams(queue(rate), spec)
    w = streams.w_min + 0.5
    admitted = streams.rr_throughput(w)
    est = simulate_random_routing(queue(rate), admitted, arrivals=spec, seed=32, **SIM)
    exact = 1 / (1 - math.exp(-w))
    assert_estimate_matches(est.mean_sojourn, exact, ALPHA, max_relative_width=0.05)
    assert_throughput_matches(est, spec, rate, q=admitted / rate)


def test_poisson_arrivals_keep_the_poisson_stream():
    """ "poisson" (and "exponential") run the exponential stream: the same numbers as
    without ``arrivals``; a one-phase PhaseType runs the renewal loop instead."""
    args = {"customers": 20_000, "batches": 10, "seed": 5}
    base = simulate_gated(queue(2.0), 0.7, **args)
    for spec in ("poisson", "exponential"):
        same = simulate_gated(queue(2.0), 0.7, arrivals=spec, **args)
        assert same.mean_sojourn == base.mean_sojourn and same.throughput == base.throughput
    base = simulate_random_routing(queue(2.0), 0.5, **args)
    same = simulate_random_routing(queue(2.0), 0.5, arrivals="poisson", **args)
    assert same.mean_sojourn == base.mean_sojourn
    renewal = simulate_gated(queue(2.0), 0.7, arrivals=exponential(3.0), **args)
    assert renewal.mean_sojourn != base.mean_sojourn


# ------------------------------------------------------------------ the C code's checks


def core(**overrides):
    law = erlang(2, 2.0)
    args = {
        "gate": 1.0, "arrival_rate": 1.5, "service_kind": "exponential", "service_rate": 1.0,
        "service_param": 0.0, "customers": 100, "warmup": 0, "batches": 10,
        "arrival_alpha": law.alpha, "arrival_T": law.T,
    }  # fmt: skip
    bit_generator = np.random.PCG64(0)
    with bit_generator.lock:
        return _core.lindley(bit_generator, **(args | overrides))


@pytest.mark.parametrize("spec", ["erlang:2", "hyperexp:4"])
def test_the_c_stability_check_sits_on_the_exact_boundary(spec):
    """At Λ = 3 the gate with E[A] = τ + E[R(τ)] = 1/μ, found here from scipy's expm, is
    where the C code (uniformisation) starts to accept."""
    law = arrival_law(spec)
    boundary = optimize.brentq(lambda g: gap_moments(spec, 3.0, g)[0] - 1.0, 0.0, 1.0, xtol=1e-14)
    for gate, ok in ((boundary * (1 + 1e-9), True), (boundary * (1 - 1e-9), False)):
        if ok:
            assert core(gate=gate, arrival_rate=3.0, arrival_alpha=law.alpha,
                        arrival_T=law.T)[0].shape == (10,)  # fmt: skip
        else:
            with pytest.raises(ValueError, match="unstable"):
                core(gate=gate, arrival_rate=3.0, arrival_alpha=law.alpha, arrival_T=law.T)
    # RR: E[A] = 1/(qΛ) exactly, so q = 1/3 is the boundary at Λ = 3
    with pytest.raises(ValueError, match="unstable"):
        core(gate=0.0, arrival_rate=3.0, admit_probability=(1 + 1e-9) / 3)
    assert core(gate=0.0, arrival_rate=3.0, admit_probability=(1 - 1e-9) / 3)[0].size == 10


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"arrival_alpha": [0.5, 0.4]}, "arrival_alpha must sum to 1"),
        ({"arrival_T": [[-1.0, 2.0], [0.0, -1.0]]}, "arrival_T must have row sums <= 0"),
        ({"arrival_T": None}, "arrival_alpha and arrival_T must be given together"),
        ({"arrival_rate": math.inf}, "arrival_rate must be finite with arrival_alpha"),
        ({"admit_probability": 0.0}, "admit_probability must be in \\(0, 1\\]"),
        ({"admit_probability": 1.5}, "admit_probability must be in \\(0, 1\\]"),
        ({"admit_probability": math.nan}, "admit_probability must not be NaN"),
        ({"admit_probability": 1e-12, "gate": 0.0}, "at most 1e8 expected phase visits"),
        ({"gate": 1e9}, "at most 1e8 expected phase visits"),
        ({"arrival_alpha": None, "arrival_T": None, "admit_probability": 0.5},
         "admit_probability must be 1 unless"),
        ({"gate_alpha": [1.0], "gate_T": [[-1.0]]}, "cannot be combined"),
        ({"gate": 0.1, "arrival_rate": 3.0}, "unstable"),
    ],
)  # fmt: skip
def test_core_rejects_bad_renewal_arguments(overrides, message):
    with pytest.raises(ValueError, match=message):
        core(**overrides)


def test_wrappers_reject_bad_renewal_arrivals():
    with pytest.raises(ValueError, match="^arrivals"):
        simulate_gated(queue(1.5), 1.0, arrivals="fit:0", customers=100, batches=10)
    with pytest.raises(ValueError, match="^arrivals"):
        simulate_random_routing(queue(1.5), 0.5, arrivals="gamma:2", customers=100, batches=10)
    with pytest.raises(ValueError, match="gate must be a number"):
        simulate_gated(queue(1.5), erlang(2, 2.0), arrivals="erlang:2", customers=100, batches=10)
    with pytest.raises(ValueError, match="arrival_rate must be finite"):
        simulate_gated(GatedQueue(math.inf, 1.0, 2.0, 1.0), 2.0, arrivals="erlang:2",
                       customers=100, batches=10)  # fmt: skip
    with pytest.raises(ValueError, match="arrivals must have at most 256 phases"):
        simulate_gated(queue(1.5), 2.0, arrivals=erlang(300, 300.0), customers=100, batches=10)
    with pytest.raises(ValueError, match="unstable"):
        simulate_gated(queue(3.0), 0.1, arrivals="erlang:2", customers=100, batches=10)


def small_matrices(size: int):
    return st.lists(
        st.lists(st.one_of(special_reals, st.floats(-3, 3)), min_size=size, max_size=size),
        min_size=size, max_size=size,
    )  # fmt: skip


arrival_arguments = st.integers(1, 3).flatmap(
    lambda m: st.tuples(
        st.one_of(
            st.lists(st.one_of(special_reals, st.floats(0, 1)), min_size=m, max_size=m),
            anything,
        ),
        st.one_of(small_matrices(m), anything),
    )
)


@settings(FUZZ, max_examples=200)
@given(
    law=arrival_arguments,
    gate=st.one_of(special_reals, st.floats(0, 50)),
    q=st.one_of(special_reals, st.floats(0, 1)),
)
def test_core_renewal_arguments_never_crash(law, gate, q):
    """Any arrival law, gate and admission probability: a ValueError, or a sane run."""
    try:
        result = core(
            arrival_alpha=law[0], arrival_T=law[1], gate=gate, arrival_rate=0.5,
            admit_probability=q,
        )  # fmt: skip
    except ValueError:
        return
    sojourn, wait, no_wait, interarrival = result
    assert np.all(np.isfinite(sojourn)) and np.all(wait >= 0) and np.all(interarrival > 0)
    assert np.all((no_wait >= 0) & (no_wait <= 1))


@pytest.mark.parametrize("spec", ["erlang:2", "hyperexp:4"])
def test_simulated_optima_match_the_package(spec):
    """At GA's optimal gate and RR's optimal rate (Λ = 1.5, μ = C = 1, R = 2), the
    simulated mean sojourn is the optimum's 1/(μ(1 − σ*)) and the simulated throughput
    its admission rate, so the simulated welfare is the optimum's."""
    from qtheory.gated import optimal_gate, optimal_routing

    gate = optimal_gate(queue(1.5), arrivals=spec)
    est = simulate_gated(queue(1.5), gate.gate, arrivals=spec, seed=41, **SIM)
    assert_estimate_matches(est.mean_sojourn, gate.mean_sojourn, ALPHA, max_relative_width=0.05)
    assert_throughput_matches(est, spec, 1.5, gate=gate.gate)
    routing = optimal_routing(queue(1.5), arrivals=spec)
    est = simulate_random_routing(queue(1.5), routing.rate, arrivals=spec, seed=42, **SIM)
    streams = RenewalStreams(queue(1.5), spec)
    lowest = max(streams.w_min, 1e-9)
    w = optimize.brentq(lambda x: streams.rr_throughput(x) - routing.rate, lowest, 50)
    exact = 1 / (1 - math.exp(-w))  # the sojourn mean at the root RR's optimal rate gives
    assert_estimate_matches(est.mean_sojourn, exact, ALPHA, max_relative_width=0.05)
    assert_throughput_matches(est, spec, 1.5, q=routing.rate / 1.5)
