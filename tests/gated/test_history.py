"""History-dependent gates and the full-memory bracket (qtheory.gated.history).

Reference values come from other routes: GA's welfare from the root equation
(qtheory.gated.welfare), the pure-death belief from uniformisation
(qtheory.exact.ctmc.transient), Naor's observable optimum from the birth-death law of
qtheory.exact, and the gap-dependent gate's welfare from a NumPy simulation with a
confidence interval.  The relaxation and the bracket run at a small cap and grid: the
bound holds for every cap and grid (module notes), so the tests need not be tight.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from qtheory.core.claims import Evidence
from qtheory.core.stats import Estimate
from qtheory.exact import birth_death_stationary, generator, transient
from qtheory.gated.belief import (
    BeliefThreshold,
    _depleted,
    _poisson_rows,
    belief_threshold_welfare,
    belief_update,
    optimal_belief_threshold,
)
from qtheory.gated.embedded_chain import service_count_law
from qtheory.gated.gap_gates import gap_gate_welfare, optimal_gap_gate
from qtheory.gated.history import full_memory_bracket, history_claims
from qtheory.gated.relaxation import (
    _CappedProblem,
    _count_table,
    _top_mass,
    observed_relaxation,
)
from qtheory.gated.welfare import optimal_gate, welfare_ga
from qtheory.model.gated import GatedQueue

SMALL = {"states": 24, "grid": 400}
INF = math.inf


def naor_observable(queue: GatedQueue) -> float:
    """Naor's social optimum by scanning thresholds n (M/M/1/n birth-death law);
    at Λ = ∞ the server stays busy with one customer: Rμ − C."""
    arrival, mu, reward, cost = (
        float(queue.arrival_rate), float(queue.service_rate), float(queue.reward), float(queue.cost)
    )  # fmt: skip
    if math.isinf(arrival):
        return reward * mu - cost
    best = -math.inf
    for n in range(1, 200):
        law = birth_death_stationary(np.full(n, arrival), np.full(n, mu))
        best = max(best, arrival * (1 - law[-1]) * reward - cost * law @ np.arange(n + 1))
    return best


GRID = [GatedQueue(a, 1.0, r, 1.0) for a in (INF, 3.0, 1.5) for r in (1.5, 4.0)]


@pytest.mark.parametrize("queue", GRID, ids=lambda q: f"L={q.arrival_rate},R={q.reward}")
def test_relaxation_lies_between_ga_and_naor(queue):
    """GA is a policy of the relaxation, and Naor's observable queue can emulate it."""
    relaxation = observed_relaxation(queue, **SMALL)
    ga = optimal_gate(queue).welfare
    assert ga <= relaxation.gain <= relaxation.upper < naor_observable(queue)


def test_certificate_bounds_the_optimum_for_any_bias():
    """The Bellman-inequality bound holds for every h, optimal or not: with h = 0 or a
    perturbed h it is above the gain of the grid-optimal policy, and with the optimal h
    it is within the grid's slack of it."""
    queue = GatedQueue(3.0, 1.0, 2.0, 1.0)
    grid = np.linspace(0.0, 30.0, 600)
    problem = _CappedProblem(queue, 16, grid)
    gain, bias, _, _ = problem.solve(np.full(16, 60))
    rng = np.random.default_rng(5)
    for trial in (np.zeros(16), bias + 0.05 * rng.standard_normal(16)):
        assert problem.certified_gain(trial, gain - 0.5) >= gain
    assert gain <= problem.certified_gain(bias, gain) < gain + 1e-3


@pytest.mark.parametrize("arrival", [INF, 3.0, 0.8])
def test_constant_policy_of_the_relaxation_is_ga(arrival):
    """A constant gate in the capped SMDP (negligible top mass) has GA's welfare."""
    queue = GatedQueue(arrival, 1.0, 2.0, 1.0)
    grid = np.array([1.3, 2.0, 3.5])
    gains = [_CappedProblem(queue, 60, grid).evaluate(np.full(60, i))[0] for i in range(3)]
    assert np.allclose(gains, welfare_ga(queue, grid), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("arrival", [INF, 3.0, 0.8])
def test_constant_gap_policy_is_ga(arrival):
    """One level, or two equal levels, reproduce S_GA(τ) of the root equation."""
    queue = GatedQueue(arrival, 1.0, 2.0, 1.0)
    for gate in (1.3, 2.0, 3.5):
        reference = float(welfare_ga(queue, gate))
        assert gap_gate_welfare(queue, (), (gate,)) == pytest.approx(reference, rel=1e-10)
        assert gap_gate_welfare(queue, (1.9,), (gate, gate)) == pytest.approx(reference, rel=1e-10)


def simulate_gap_gate(queue, thresholds, gates, *, paths, admissions, seed):
    """Welfare of a gap-dependent gate by simulation: the number found follows
    M' = (M + 1 − D)^+, D ~ Poisson(μ G) service opportunities in the gap G; returns
    the per-path welfare estimates (after a warm-up of a tenth of the path)."""
    rng = np.random.default_rng(seed)
    arrival, mu, reward, cost = 3.0, 1.0, 2.0, 1.0
    assert (queue.arrival_rate, queue.service_rate, queue.reward, queue.cost) == (
        arrival, mu, reward, cost
    )  # fmt: skip
    found = np.zeros(paths)
    gate = np.full(paths, gates[0])
    total_reward, total_time = np.zeros(paths), np.zeros(paths)
    warmup = admissions // 10
    for step in range(admissions):
        gap = gate + rng.exponential(1 / arrival, paths)
        found = np.maximum(found + 1 - rng.poisson(mu * gap), 0)
        if step >= warmup:
            total_reward += reward - cost * (found + 1) / mu
            total_time += gap
        gate = np.asarray(gates)[np.searchsorted(thresholds, gap, side="left")]
    return total_reward / total_time


def test_gap_gate_welfare_matches_simulation():
    """Matrix-geometric welfare inside the simulation's interval of ±4 standard errors
    (independent paths; false-failure rate about 6e-5, plus a ratio bias of order
    1/admissions, far below the interval)."""
    queue = GatedQueue(3.0, 1.0, 2.0, 1.0)
    thresholds, gates = (1.4,), (3.0, 0.8)
    estimates = simulate_gap_gate(queue, thresholds, gates, paths=400, admissions=2000, seed=11)
    error = estimates.std(ddof=1) / math.sqrt(estimates.size)
    exact = gap_gate_welfare(queue, thresholds, gates)
    assert abs(estimates.mean() - exact) < 4 * error
    assert error < 2e-3  # the test can tell this policy from GA's optimum
    assert abs(exact - optimal_gate(queue).welfare) > 0.02


@pytest.mark.parametrize("arrival", [3.0, 1.5])
def test_gap_dependent_gate_beats_ga(arrival):
    """GA is in the family and the search starts there; the optimum shortens the gate
    after a long gap (the queue has had time to drain)."""
    queue = GatedQueue(arrival, 1.0, 2.0, 1.0)
    gate = optimal_gap_gate(queue)
    assert gate.welfare > optimal_gate(queue).welfare
    assert gate.welfare == pytest.approx(gap_gate_welfare(queue, gate.thresholds, gate.gates))
    assert gate.gates[0] > gate.gates[1]
    single = optimal_gap_gate(queue, levels=1)
    assert single.welfare == pytest.approx(optimal_gate(queue).welfare, rel=1e-12)


def test_periodic_gaps_do_not_beat_ga_at_infinite_arrival_rate():
    """At Λ = ∞ two alternating gaps τ_a ≤ θ < τ_b (gates = (τ_b, τ_a)) give less than
    GA at the same mean gap (the convexity argument of the module notes)."""
    queue = GatedQueue(INF, 1.0, 2.0, 1.0)
    for short in (0.8, 1.5, 2.0):
        for long in (2.2, 3.0, 5.0):
            alternating = gap_gate_welfare(queue, (2.1,), (long, short))
            same_mean = float(welfare_ga(queue, (short + long) / 2))
            assert alternating < same_mean


def test_belief_update_is_the_pure_death_transient():
    """The belief after t without admission against uniformisation of the pure-death
    generator (rate μ from n to n − 1)."""
    size, mu = 12, 1.7
    rates = np.zeros((size, size))
    rates[np.arange(1, size), np.arange(size - 1)] = mu
    belief = np.random.default_rng(3).dirichlet(np.ones(size))
    for elapsed in (0.0, 0.3, 2.0, 9.0):
        reference = transient(generator(rates), belief, elapsed)[0]
        assert np.allclose(belief_update(belief, elapsed, mu), reference, atol=1e-13)


@pytest.mark.parametrize("arrival", [INF, 3.0, 0.5])
def test_bracket(arrival):
    """GA ≤ lower ≤ upper = min(relaxation, regular-arrivals bound); at Λ = ∞ both
    ends are GA's optimum (width 0)."""
    queue = GatedQueue(arrival, 1.0, 2.0, 1.0)
    bracket = full_memory_bracket(queue, **SMALL)
    ga = optimal_gate(queue).welfare
    regular = optimal_gate(GatedQueue(INF, 1.0, 2.0, 1.0)).welfare
    assert ga <= bracket.lower <= bracket.upper
    assert bracket.upper == min(regular, bracket.relaxation.upper)
    assert bracket.width == bracket.upper - bracket.lower
    assert bracket.ga == ga and bracket.regular == regular
    assert (bracket.width == 0) == math.isinf(arrival)
    assert bracket.lower_evidence.startswith("exact")
    assert bracket.upper_evidence.startswith("exact")
    # numerical evidence (float64) never called certified; the upper end's coverage named
    assert "certified bound" not in bracket.upper_evidence
    if bracket.upper == bracket.regular:
        assert "every full-memory policy, window rules included" in bracket.upper_evidence
    else:
        assert "numerical, not certified" in bracket.upper_evidence
        assert "gate policies (gate, then the first arrival) only" in bracket.upper_evidence
        assert f"regular-arrivals bound {bracket.regular:.6g}" in bracket.upper_evidence


def test_relaxation_is_the_upper_end_at_a_low_arrival_rate():
    """At Λ = 0.5 the relaxation (gate policies only) is below the regular-arrivals bound,
    so the bracket's upper end is proved for gate policies, not for window rules."""
    bracket = full_memory_bracket(GatedQueue(0.5, 1.0, 2.0, 1.0), **SMALL)
    assert bracket.upper == bracket.relaxation.upper < bracket.regular
    assert "window rule is bounded only by" in bracket.upper_evidence


def test_claims_state_the_policy_class_the_bracket_covers(monkeypatch):
    """The bracket claim names the gate-then-first-arrival class and leaves window rules
    to [Haj83]; no numerical claim calls its float64 bound certified (quick sizes, on a
    grid where the relaxation is the upper end at Λ = 0.5)."""
    from qtheory.gated import history

    monkeypatch.setattr(history, "_claim_grid", lambda quick: [("inf", "2"), ("0.5", "2")])
    claims = {c.name.split(".")[-1]: c for c in history_claims(quick=True)}
    bracket = claims["bracket"].statement
    assert "knows every past admission time" not in bracket
    assert "then admits the first arrival" in bracket
    assert "window rule" in bracket and "[Haj83]" in bracket
    assert "full-memory gate policy" in claims["memory_gain"].statement
    for claim in claims.values():
        if claim.kind is Evidence.NUMERICAL:
            assert "certified" not in claim.statement


def test_gap_gates_obey_the_regular_arrivals_bound():
    """Hajek's bound: no admission process beats GA at Λ = ∞, in particular no gap gate
    at finite Λ (checked on random two- and three-level gates)."""
    rng = np.random.default_rng(2)
    regular = optimal_gate(GatedQueue(INF, 1.0, 2.0, 1.0)).welfare
    for arrival in (0.7, 3.0):
        queue = GatedQueue(arrival, 1.0, 2.0, 1.0)
        for levels in (2, 3):
            thresholds = np.sort(rng.uniform(0.5, 4.0, levels - 1))
            gates = rng.uniform(1.0, 4.0, levels)
            assert gap_gate_welfare(queue, thresholds, gates) < regular


def test_bracket_is_deterministic():
    """No simulation and no random start: the uncached computations repeat exactly (the
    defaults run in the doctests)."""
    from qtheory.gated.gap_gates import _optimal_gap_gate
    from qtheory.gated.relaxation import _observed_relaxation

    queue = GatedQueue(10.0, 1.0, 2.0, 1.0)
    for cached in (_optimal_gap_gate, _observed_relaxation):
        cached.cache_clear()
    first = (_optimal_gap_gate(queue, 2), _observed_relaxation(queue, 24, 400))
    for cached in (_optimal_gap_gate, _observed_relaxation):
        cached.cache_clear()
    assert (_optimal_gap_gate(queue, 2), _observed_relaxation(queue, 24, 400)) == first


QUEUE = GatedQueue(3.0, 1.0, 2.0, 1.0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: belief_update([0.5, 0.4], 1.0, 1.0), "belief must sum to 1"),
        (lambda: belief_update([1.5, -0.5], 1.0, 1.0), "belief must be"),
        (lambda: belief_update([1.0], -1.0, 1.0), "elapsed must be"),
        (lambda: belief_update([1.0], 1.0, 0.0), "service_rate must be > 0"),
        (lambda: gap_gate_welfare(QUEUE, (2.0, 1.0), (1, 1, 1)), "thresholds must be"),
        (lambda: gap_gate_welfare(QUEUE, (), (1, 1)), r"thresholds must hold len\(gates\) - 1 = 1"),
        (lambda: gap_gate_welfare(QUEUE, (), (-1.0,)), "gates must be finite and >= 0"),
        (lambda: gap_gate_welfare(QUEUE, (), ()), "gates must be a non-empty"),
        (lambda: gap_gate_welfare(QUEUE, (), (0.1,)), "unstable"),
        (lambda: optimal_gap_gate(QUEUE, levels=0), "levels must be >= 1"),
        (lambda: optimal_gap_gate(GatedQueue(INF, 1, 2, 1)), "arrival_rate must be finite"),
        (lambda: observed_relaxation(QUEUE, states=1), "states must be >= 2"),
        (lambda: observed_relaxation(QUEUE, grid=8), "grid must be >= 16"),
        (
            lambda: observed_relaxation(GatedQueue(INF, 1, 100, 1), states=48),
            "states must be >= nu - 1 = 99 at arrival_rate = inf",
        ),
        (lambda: full_memory_bracket(GatedQueue(3, 1, 1, 1)), "must be > 1"),
        # cost guards and float64 rules, refused before any work
        (lambda: observed_relaxation(QUEUE, states=20000), "^states: the relaxation .* bytes"),
        (lambda: observed_relaxation(QUEUE, grid=10**6), "^grid: the relaxation"),
        (lambda: gap_gate_welfare(QUEUE, (), (1e9,)), "^gates: .* bytes"),
        (
            lambda: gap_gate_welfare(GatedQueue(1e-6, 1, 1000, 0.001), (), (1.0,)),
            "^service_rate: a gap-dependent gate.s welfare",
        ),
        (lambda: optimal_gap_gate(QUEUE, levels=200), "^levels: .* J = 200"),
        (lambda: full_memory_bracket(GatedQueue(2, 1, 2, 1e-320)), "^cost: nu = .* float64"),
        (
            lambda: full_memory_bracket(GatedQueue(2, 1, 1e-310, 1e-311)),
            "^reward = .* below the smallest normal float64",
        ),
        (lambda: belief_threshold_welfare(QUEUE, 0.3, support=10**5), "^support: .* bytes"),
        (lambda: optimal_belief_threshold(QUEUE, paths=10**6), "^paths: 21 simulation"),
        (lambda: full_memory_bracket(QUEUE, levels=2.0), "levels must be an integer"),
        (lambda: belief_threshold_welfare(QUEUE, 0.0), "threshold must be > 0"),
        (lambda: belief_threshold_welfare(QUEUE, 0.3, paths=1), "paths must be >= 2"),
        (lambda: belief_threshold_welfare(QUEUE, 0.3, support=2), "support >= 4"),
        (
            lambda: belief_threshold_welfare(QUEUE, 0.3, paths=2, admissions=50, support=4),
            "support must be larger",
        ),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_bad_input_is_refused_at_once():
    """The refusals above cost no work: the largest (a 20000-state relaxation, 14 GB of
    gap-gate blocks) each come back within a fraction of a second."""
    start = time.perf_counter()
    for call in (
        lambda: observed_relaxation(QUEUE, states=20000),
        lambda: gap_gate_welfare(GatedQueue(1e-6, 1, 1000, 0.001), (), (1.0,)),
        lambda: optimal_belief_threshold(QUEUE, paths=10**6),
    ):
        with pytest.raises(ValueError):
            call()
    assert time.perf_counter() - start < 2.0


def test_top_mass_of_a_policy_with_transient_states():
    """A final policy may leave states it never reaches (before: GTH's "P must be
    irreducible", exit 2, at Λ = 2, ν = 1000, K = 1000): they carry no mass, and the
    law is that of the closed class of k = 1."""
    unreached_top = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])
    assert _top_mass(unreached_top) == 0.0
    skipped_middle = np.array([[0.25, 0.0, 0.75], [1.0, 0.0, 0.0], [0.5, 0.0, 0.5]])
    assert _top_mass(skipped_middle) == pytest.approx(0.6, rel=1e-15)  # π = (2, 3)/5
    irreducible = np.array([[0.5, 0.5], [0.25, 0.75]])
    assert _top_mass(irreducible) == pytest.approx(2 / 3, rel=1e-15)


def test_queue_must_be_a_gated_queue():
    with pytest.raises(TypeError, match="queue must be a GatedQueue"):
        full_memory_bracket((3.0, 1.0, 2.0, 1.0))


def test_flags_must_be_bools():
    """The claims themselves run in the doctest of history_claims (quick grid)."""
    with pytest.raises(TypeError, match="quick must be True or False"):
        history_claims(quick="yes")
    with pytest.raises(TypeError, match="simulate must be True or False"):
        full_memory_bracket(QUEUE, simulate="yes")


@pytest.mark.parametrize("arrival", [INF, 3.0, 0.4])
def test_count_table_is_the_service_count_law(arrival):
    """The grid-wide table of the relaxation against the scalar law of the embedded
    chain."""
    gates = np.array([0.0, 0.37, 2.0, 11.0])
    table = _count_table(gates, arrival, 1.3, 30)
    reference = [service_count_law(g, arrival, 1.3, 30) for g in gates]
    assert np.allclose(table, reference, rtol=1e-12, atol=1e-300)


def test_vectorised_belief_step_is_belief_update():
    """The simulation's belief step (one row per path) against belief_update."""
    rng = np.random.default_rng(8)
    beliefs = rng.dirichlet(np.ones(20), size=5)
    elapsed = np.array([0.0, 0.2, 1.0, 3.5, 12.0])
    rows = _depleted(beliefs, _poisson_rows(1.4 * elapsed, 20))
    for row, belief, t in zip(rows, beliefs, elapsed, strict=True):
        assert np.allclose(row, belief_update(belief, t, 1.4), atol=1e-14)


def test_belief_threshold_that_never_closes_is_mm1():
    """x above any reachable mean: every arrival is admitted, the M/M/1 queue with load
    1/2 and S = Λ(R − C/(μ − Λ)) = 0.5; within 4 standard errors (false-failure rate
    about 6e-5)."""
    queue = GatedQueue(0.5, 1.0, 3.0, 1.0)
    welfare = belief_threshold_welfare(queue, 50.0, paths=100, admissions=600, support=64)
    assert abs(welfare.welfare.mean - 0.5) < 4 * welfare.welfare.stderr


def test_belief_threshold_at_infinite_arrival_rate_is_below_ga():
    """At Λ = ∞ every path is the same deterministic one, and Hajek's bound holds: at
    most GA's optimum, and close to it for a good threshold."""
    queue = GatedQueue(INF, 1.0, 2.0, 1.0)
    result = belief_threshold_welfare(queue, 0.23, paths=2, admissions=300)
    ga = optimal_gate(queue).welfare
    assert result.welfare.halfwidth < 1e-12
    assert ga - 1e-4 < result.welfare.mean <= ga + 1e-12


def test_belief_threshold_beats_ga():
    """At Λ = 3, ν = 2 the threshold x = 0.3 beats GA's optimum by more than 4 standard
    errors (false-failure rate about 6e-5; the margin over the best gap gate is the
    statistical claim of history_claims)."""
    queue = GatedQueue(3.0, 1.0, 2.0, 1.0)
    result = belief_threshold_welfare(queue, 0.3, paths=40, admissions=800)
    assert result.welfare.mean - 4 * result.welfare.stderr > optimal_gate(queue).welfare
    assert result.capped_mass < 1e-12


def test_bracket_takes_the_simulated_policy_when_it_is_better(monkeypatch):
    """The bracket's bookkeeping with ``simulate=True``, the search replaced by a stub
    (the bracket imports the belief module when it simulates)."""
    from qtheory.gated import belief

    queue = GatedQueue(3.0, 1.0, 2.0, 1.0)
    estimate = Estimate(0.3700, 1e-4, 50, "t", 49)
    monkeypatch.setattr(
        belief, "optimal_belief_threshold", lambda q: BeliefThreshold(0.3, estimate, 0.0)
    )
    bracket = full_memory_bracket(queue, simulate=True, **SMALL)
    assert bracket.lower == 0.3700 and bracket.belief.threshold == 0.3
    assert bracket.lower_evidence.startswith(r"statistical: $\pm 0.0001$")
    assert bracket.lower_policy.startswith("belief threshold")
