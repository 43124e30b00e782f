"""Tests of the C Lindley-recursion simulator (qtheory.sim._core) and its wrappers.

Reference values are closed forms computed here, independently of the code under test:
M/M/1, Pollaczek-Khinchine (M/G/1), D/M/1 through the Lambert W function and the GI/M/1
root equation of gated admission solved with brentq.

Statistical checks use fixed seeds.  Each compares an estimate (a qtheory.core.stats.Estimate
over batch means) with its reference by conftest.assert_estimate_matches: the tolerance
is t_{1 - ALPHA/2, b-1} standard errors, so that for a random seed each comparison would
fail wrongly with probability ALPHA (= 1e-4; a test making k comparisons fails wrongly
with probability <= k * 1e-4).  Throughput is compared with a normal tolerance built from
the exact variance of the i.i.d. inter-arrival times, at the same ALPHA.
"""

from __future__ import annotations

import datetime
import gc
import math
import sys
import threading
import time
import tracemalloc

import numpy as np
import pytest
from conftest import assert_estimate_matches, t_tolerance
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, special

from qtheory.core.stats import Estimate
from qtheory.gated import GatedQueue
from qtheory.sim import SojournEstimate, _core, simulate_gated, simulate_random_routing

CUSTOMERS = 2_000_000
BATCHES = 20
WARMUP = 20_000


# ------------------------------------------------------------- independent references


def mm1_sojourn(rate: float, service_rate: float) -> float:
    return 1.0 / (service_rate - rate)


def service_second_moment(service: str, service_rate: float) -> float:
    """E[S^2] of each service law with mean 1/service_rate."""
    kind, _, arg = service.partition(":")
    scv = {"exponential": 1.0, "deterministic": 0.0}.get(kind)
    if kind == "erlang":
        scv = 1.0 / int(arg)
    elif kind == "hyperexp":
        scv = float(arg)
    return (1.0 + scv) / service_rate**2


def pollaczek_khinchine_wait(rate: float, service_rate: float, second_moment: float) -> float:
    rho = rate / service_rate
    return rate * second_moment / (2.0 * (1.0 - rho))


def dm1_sigma(gate: float, service_rate: float) -> float:
    """GI/M/1 root for deterministic inter-arrival times via the Lambert W function."""
    x = service_rate * gate
    return float(-special.lambertw(-x * math.exp(-x), 0).real / x)


def gated_sigma(gate: float, arrival_rate: float, service_rate: float) -> float:
    """Root in (0, 1) of sigma = exp(-mu (1 - sigma) tau) Lambda / (Lambda + mu (1 - sigma))."""

    def excess(sigma: float) -> float:
        u = service_rate * (1.0 - sigma)
        return sigma - math.exp(-u * gate) * arrival_rate / (arrival_rate + u)

    upper = 1.0 - 1e-6  # away from the trivial root sigma = 1
    assert excess(0.0) < 0.0 < excess(upper)
    return optimize.brentq(excess, 0.0, upper, xtol=1e-14)


# ------------------------------------------------------------- comparison helpers


def queue_of(arrival_rate: float = math.inf, service_rate: float = 1.0) -> GatedQueue:
    """A queue with these rates (reward and cost do not enter the simulation)."""
    return GatedQueue(arrival_rate, service_rate, 1.0, 1.0)


def assert_within_ci(estimate: Estimate, reference: float) -> None:
    assert_estimate_matches(estimate, reference, max_relative_width=0.05)


def assert_throughput(est: SojournEstimate, gate: float, arrival_rate: float) -> None:
    """T = gate + Exp(arrival_rate) is i.i.d.: the relative sd of its sample mean is exact."""
    mean_t = gate + 1.0 / arrival_rate
    relative_sd = (1.0 / arrival_rate) / (mean_t * math.sqrt(est.customers))
    tolerance = t_tolerance(relative_sd, None)
    assert abs(est.throughput * mean_t - 1.0) <= tolerance


def sim_kwargs(seed: int, **overrides) -> dict:
    return {"customers": CUSTOMERS, "batches": BATCHES, "warmup": WARMUP, "seed": seed} | overrides


# ------------------------------------------------------------- statistical checks


@pytest.mark.parametrize(("rate", "service_rate"), [(0.7, 1.0), (1.0, 2.5)])
def test_random_routing_mm1(rate, service_rate):
    est = simulate_random_routing(queue_of(2.0, service_rate), rate, **sim_kwargs(11))
    assert_within_ci(est.mean_sojourn, mm1_sojourn(rate, service_rate))
    assert_within_ci(est.prob_no_wait, 1.0 - rate / service_rate)
    assert_throughput(est, 0.0, rate)


@pytest.mark.parametrize("service", ["deterministic", "erlang:3", "hyperexp:4", "exponential"])
def test_random_routing_pollaczek_khinchine(service):
    rate, service_rate = 0.7, 1.0
    est = simulate_random_routing(
        queue_of(service_rate=service_rate), rate, service=service, **sim_kwargs(12)
    )
    wait = pollaczek_khinchine_wait(rate, service_rate, service_second_moment(service, 1.0))
    assert_within_ci(est.mean_wait, wait)
    assert_within_ci(est.mean_sojourn, wait + 1.0)
    # PASTA: an arrival finds the server idle with probability 1 - rho.
    assert_within_ci(est.prob_no_wait, 1.0 - rate)


@pytest.mark.parametrize(("gate", "service_rate"), [(1.0 / 0.7, 1.0), (1.0, 3.0)])
def test_gated_deterministic_arrivals_dm1(gate, service_rate):
    est = simulate_gated(queue_of(math.inf, service_rate), gate, **sim_kwargs(13))
    sigma = dm1_sigma(gate, service_rate)
    sojourn = 1.0 / (service_rate * (1.0 - sigma))
    assert_within_ci(est.mean_sojourn, sojourn)
    assert_within_ci(est.prob_no_wait, 1.0 - sigma)
    assert est.throughput == pytest.approx(1.0 / gate, rel=1e-12)


@pytest.mark.parametrize(
    ("gate", "arrival_rate", "service_rate"), [(1.0, 2.0, 1.0), (0.25, 1.5, 1.2), (2.0, 0.8, 0.5)]
)
def test_gated_poisson_arrivals_gim1(gate, arrival_rate, service_rate):
    est = simulate_gated(queue_of(arrival_rate, service_rate), gate, **sim_kwargs(14))
    sigma = gated_sigma(gate, arrival_rate, service_rate)
    sojourn = 1.0 / (service_rate * (1.0 - sigma))
    assert_within_ci(est.mean_sojourn, sojourn)
    assert_within_ci(est.prob_no_wait, 1.0 - sigma)
    assert_throughput(est, gate, arrival_rate)


# ------------------------------------------------------------- exact properties


def test_dd1_is_exact():
    est = simulate_gated(queue_of(), 2.0, service="deterministic", customers=1000, batches=10)
    means = (est.mean_sojourn.mean, est.mean_wait.mean, est.prob_no_wait.mean, est.throughput)
    assert means == (1.0, 0.0, 1.0, 0.5)
    assert est.mean_sojourn.halfwidth == est.prob_no_wait.halfwidth == 0.0


def test_core_returns_per_batch_arrays():
    bit_generator = np.random.PCG64(3)
    with bit_generator.lock:
        result = _core.lindley(bit_generator, 1.5, math.inf, "exponential", 1.0, 0.0, 60, 7, 6)
    assert len(result) == 4
    for array in result:
        assert array.shape == (6,) and array.dtype == np.float64
    sojourn, wait, no_wait, interarrival = result
    np.testing.assert_array_equal(interarrival, 10 * 1.5)
    assert np.all(sojourn > wait) and np.all((no_wait >= 0) & (no_wait <= 1))


def test_welfare():
    est = simulate_random_routing(queue_of(), 0.5, customers=10_000, batches=10, seed=0)
    queue = GatedQueue(math.inf, 1.0, 5.0, 2.0)
    assert est.welfare(queue) == est.throughput * (5.0 - 2.0 * est.mean_sojourn.mean)


def test_batching_does_not_change_the_sample_path():
    """The same seed gives the same customers whatever the batching; the run crosses the
    C code's internal chunk boundaries (every 2**22 customers) in mid-batch."""
    kwargs = {"customers": 4_500_000, "warmup": 1_000, "seed": 21}
    two = simulate_gated(queue_of(1.0), 0.5, batches=2, **kwargs)
    nine = simulate_gated(queue_of(1.0), 0.5, batches=9, **kwargs)
    assert nine.mean_sojourn.mean == pytest.approx(two.mean_sojourn.mean, rel=1e-12)
    assert nine.prob_no_wait.mean == pytest.approx(two.prob_no_wait.mean, rel=1e-12)
    assert nine.throughput == pytest.approx(two.throughput, rel=1e-12)


# ------------------------------------------------------------- reproducibility


SMALL = {"customers": 20_000, "batches": 10, "warmup": 100}


def test_same_seed_same_output_different_seed_different_output():
    first = simulate_gated(queue_of(2.0), 1.0, service="hyperexp:3", seed=7, **SMALL)
    assert simulate_gated(queue_of(2.0), 1.0, service="hyperexp:3", seed=7, **SMALL) == first
    assert simulate_gated(queue_of(2.0), 1.0, service="hyperexp:3", seed=8, **SMALL) != first
    sequence = np.random.SeedSequence(7)
    assert simulate_gated(queue_of(2.0), 1.0, service="hyperexp:3", seed=sequence, **SMALL) == first


def test_generator_seed_is_used_in_place():
    generator = np.random.default_rng(5)
    first = simulate_random_routing(queue_of(), 0.5, seed=generator, **SMALL)
    second = simulate_random_routing(queue_of(), 0.5, seed=generator, **SMALL)
    assert first == simulate_random_routing(queue_of(), 0.5, seed=5, **SMALL)
    assert second != first


def test_gil_is_released_during_the_simulation():
    """While a worker thread is inside the C call, the main thread keeps running Python.

    If the GIL were held, the main thread could not run between the worker's entering
    and leaving the call: its longest pause would span almost the whole call.  With the
    GIL released its pauses are scheduler hiccups (milliseconds)."""
    times = {}

    def worker():
        times["start"] = time.perf_counter()
        simulate_gated(queue_of(1.0), 0.5, customers=12_000_000, batches=2, warmup=0, seed=1)
        times["end"] = time.perf_counter()

    thread = threading.Thread(target=worker)
    stamps = []
    thread.start()
    while thread.is_alive():
        stamps.append(time.perf_counter())
    thread.join()
    duration = times["end"] - times["start"]
    if duration < 0.05:
        pytest.skip(f"simulation took only {duration:.3f} s: too short to judge")
    inside = [times["start"]] + [s for s in stamps if times["start"] < s < times["end"]]
    longest_pause = max(np.diff(inside + [times["end"]]))
    assert longest_pause < 0.5 * duration, (longest_pause, duration)


# ------------------------------------------------------------- properties


@st.composite
def stable_parameters(draw):
    """A stable queue: load rho in (0.05, 0.95), the gate a fraction of E[T]."""
    service_rate = draw(st.floats(0.1, 10.0))
    rho = draw(st.floats(0.05, 0.95))
    gate_share = draw(st.floats(0.0, 1.0))
    mean_interarrival = 1.0 / (rho * service_rate)
    gate = gate_share * mean_interarrival
    exponential_part = (1.0 - gate_share) * mean_interarrival
    arrival_rate = math.inf if exponential_part == 0.0 else 1.0 / exponential_part
    service = draw(
        st.sampled_from(["exponential", "deterministic", "erlang:2", "erlang:7", "hyperexp:1.5"])
    )
    return gate, arrival_rate, service_rate, service


@settings(max_examples=40, deadline=None)
@given(stable_parameters(), st.integers(0, 2**32 - 1))
def test_any_valid_parameters_give_sane_estimates(parameters, seed):
    gate, arrival_rate, service_rate, service = parameters
    est = simulate_gated(
        queue_of(arrival_rate, service_rate), gate, service=service, customers=2_000,
        batches=4, warmup=50, seed=seed,
    )  # fmt: skip
    values = [getattr(est, name) for name in SojournEstimate.__dataclass_fields__]
    values = [v.mean if isinstance(v, Estimate) else v for v in values]
    assert all(math.isfinite(v) and v >= 0 for v in values)
    assert 0.0 <= est.prob_no_wait.mean <= 1.0
    assert est.mean_sojourn.mean >= est.mean_wait.mean
    assert est.throughput <= (1.0 + 1e-12) / gate if gate > 0 else est.throughput > 0
    if service == "deterministic":
        assert est.mean_sojourn.mean - est.mean_wait.mean == pytest.approx(1.0 / service_rate)


# ------------------------------------------------------------- bad input: Python wrapper

nan, inf = math.nan, math.inf


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"gate": -1.0}, "gate"),
        ({"gate": nan}, "gate"),
        ({"gate": inf}, "gate"),
        ({"arrival_rate": 0.0}, "arrival_rate"),
        ({"arrival_rate": -2.0}, "arrival_rate"),
        ({"arrival_rate": nan}, "arrival_rate"),
        ({"service_rate": 0.0}, "service_rate"),
        ({"service_rate": nan}, "service_rate"),
        ({"service_rate": inf}, "service_rate"),
        ({"service": "weibull"}, "service"),
        ({"service": "exponential:2"}, "service"),
        ({"service": "erlang"}, "service"),
        ({"service": "erlang:0"}, "service"),
        ({"service": "erlang:1.5"}, "service"),
        ({"service": "hyperexp:1"}, "service"),
        ({"service": "hyperexp:nan"}, "service"),
        ({"service": "hyperexp:inf"}, "service"),
        ({"service": "hyperexp:2e9"}, "service"),
        ({"service": 3}, "service"),
        ({"customers": 0}, "customers"),
        ({"customers": 1.5}, "customers"),
        ({"customers": True}, "customers"),
        ({"customers": 10, "batches": 3}, "multiple of batches"),
        ({"customers": 1, "batches": 2}, "customers"),
        ({"warmup": -1}, "warmup"),
        ({"warmup": 0.5}, "warmup"),
        ({"batches": 1}, "batches"),
        ({"gate": 0.5, "arrival_rate": 2.0}, "unstable"),
        ({"gate": 1.0, "arrival_rate": inf}, "unstable"),
    ],
)
def test_simulate_gated_rejects_bad_input(overrides, message):
    kwargs = {"gate": 1.0, "arrival_rate": 2.0, "service_rate": 1.0, **SMALL, **overrides}
    with pytest.raises(ValueError, match=message):
        queue = queue_of(kwargs.pop("arrival_rate"), kwargs.pop("service_rate"))
        simulate_gated(queue, kwargs.pop("gate"), **kwargs)


@pytest.mark.parametrize(
    ("rate", "message"),
    [(inf, "rate"), (nan, "rate"), (0.0, "rate"), (1.0, "unstable"), (2.5, "arrival_rate")],
)
def test_simulate_random_routing_rejects_bad_input(rate, message):
    with pytest.raises(ValueError, match=message):
        simulate_random_routing(queue_of(2.0), rate, **SMALL)


@pytest.mark.parametrize("queue", [None, 1.0, "queue", (2.0, 1.0)])
def test_simulators_need_a_gated_queue(queue):
    with pytest.raises(TypeError, match="queue"):
        simulate_gated(queue, 1.0, **SMALL)
    with pytest.raises(TypeError, match="queue"):
        simulate_random_routing(queue, 0.5, **SMALL)


def test_runaway_simulations_are_refused_before_they_start():
    with pytest.raises(ValueError, match="limit"):
        simulate_gated(queue_of(2.0), 1.0, service="erlang:100000000000", customers=10**9)


# ------------------------------------------------------------- bad input: C directly

CORE_ARGS = {
    "gate": 1.0,
    "arrival_rate": 2.0,
    "service_kind": "exponential",
    "service_rate": 1.0,
    "service_param": 0.0,
    "customers": 100,
    "warmup": 10,
    "batches": 10,
}


def call_core(bit_generator=None, **overrides):
    bit_generator = np.random.PCG64(0) if bit_generator is None else bit_generator
    with bit_generator.lock:
        return _core.lindley(bit_generator=bit_generator, **(CORE_ARGS | overrides))


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"gate": nan}, "gate must not be NaN"),
        ({"gate": -1.0}, "gate must be finite and >= 0"),
        ({"gate": inf}, "gate must be finite and >= 0"),
        ({"arrival_rate": nan}, "arrival_rate must not be NaN"),
        ({"arrival_rate": 0.0}, "arrival_rate must be > 0"),
        ({"arrival_rate": -inf}, "arrival_rate must be > 0"),
        ({"arrival_rate": 1e-320}, "gate \\+ E\\[G\\] \\+ 1/arrival_rate must be finite"),
        ({"service_rate": nan}, "service_rate must not be NaN"),
        ({"service_rate": -1.0}, "service_rate must be finite and > 0"),
        ({"service_rate": inf}, "service_rate must be finite and > 0"),
        ({"service_kind": "weibull"}, "service_kind must be one of"),
        ({"service_kind": ""}, "service_kind must be one of"),
        ({"service_param": nan}, "service_param must not be NaN"),
        ({"service_kind": "erlang", "service_param": 0.0}, "Erlang phases k\\) must be an"),
        ({"service_kind": "erlang", "service_param": 2.5}, "Erlang phases k\\) must be an"),
        ({"service_kind": "erlang", "service_param": inf}, "Erlang phases k\\) must be an"),
        ({"service_kind": "erlang", "service_param": nan}, "Erlang phases k\\) must not be"),
        ({"service_kind": "hyperexp", "service_param": 1.0}, "scv\\) must be > 1 and <= 1e9"),
        ({"service_kind": "hyperexp", "service_param": inf}, "scv\\) must be > 1 and <= 1e9"),
        ({"service_kind": "hyperexp", "service_param": 2e9}, "scv\\) must be > 1 and <= 1e9"),
        ({"service_kind": "hyperexp", "service_param": nan}, "scv\\) must not be NaN"),
        ({"customers": 0}, "customers must be >= 1"),
        ({"customers": -5}, "customers must be >= 1"),
        ({"warmup": -1}, "warmup must be >= 0"),
        ({"batches": 1}, "batches must be >= 2"),
        ({"batches": -3}, "batches must be >= 2"),
        ({"customers": 5, "batches": 10}, "customers \\(5\\) must be >= batches \\(10\\)"),
        ({"customers": 101}, "must be a multiple of batches"),
        (
            {"gate": 0.5},
            "unstable: gate \\+ E\\[G\\] \\+ 1/arrival_rate must exceed 1/service_rate",
        ),
        ({"gate": 0.0, "arrival_rate": inf}, "unstable"),
        ({"gate": 0.0, "arrival_rate": 1.0}, "unstable"),
    ],
)
def test_core_rejects_bad_values(overrides, message):
    with pytest.raises(ValueError, match=message):
        call_core(**overrides)


class FakeBitGenerator:
    lock = threading.Lock()
    capsule = datetime.datetime_CAPI  # a PyCapsule, but not a "BitGenerator" one


@pytest.mark.parametrize(
    "bit_generator",
    [FakeBitGenerator(), np.random.default_rng(0), None, 3, "PCG64"],
    ids=["wrong capsule", "Generator", "None", "int", "str"],
)
def test_core_rejects_objects_that_are_not_bit_generators(bit_generator):
    with pytest.raises(TypeError, match="bit_generator"):
        _core.lindley(bit_generator, **CORE_ARGS)


def test_core_does_not_leak():
    """Successful and failing calls leave the capsule's reference count and the traced
    Python memory (including NumPy array buffers) unchanged.  Plain try/except, because
    pytest.raises itself leaves allocations behind."""
    bit_generator = np.random.PCG64(0)
    calls = [
        (bit_generator, {}),
        (bit_generator, {"gate": nan}),
        (bit_generator, {"customers": 7}),
        (bit_generator, {"service_kind": "x"}),
        (FakeBitGenerator(), {}),
    ]

    def run(repeats):
        for _ in range(repeats):
            for generator, overrides in calls:
                try:
                    _core.lindley(generator, **(CORE_ARGS | overrides))
                except (ValueError, TypeError):
                    pass

    run(200)  # warm caches and free lists
    gc.collect()
    references = sys.getrefcount(bit_generator.capsule)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    run(1000)
    gc.collect()
    growth = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    references_after = sys.getrefcount(bit_generator.capsule)  # outside `assert`: pytest's
    assert references_after == references  # assertion rewriting holds extra references
    assert growth < 5_000, growth  # one object leaked per repeat would be >= 1000 * 24 bytes
