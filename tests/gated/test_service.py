"""Tests of qtheory.gated.service (GA and RR with phase-type service) against independent
routes: the exponential-service results of qtheory.gated.welfare (a different algorithm:
the scalar GI/M/1 root in mpmath), Pollaczek–Khinchine with the service moments in closed
form, the PH/PH/1 queue as a QBD solved by qtheory.exact.matrix_analytic, numerical
maximisation of the welfare on a grid, and the two-moment fit formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from qtheory.core.phase_type import (
    PhaseType,
    balanced_hyperexponential,
    coxian,
    erlang,
    exponential,
    fit_two_moments,
    service_law,
)
from qtheory.exact.matrix_analytic import qbd_solve, qbd_stationary
from qtheory.gated import GatedQueue, optimal_gate, optimal_routing, price_of_forgetting, welfare_ga
from qtheory.gated.phase_gates import optimal_erlang_gate
from qtheory.gated.service import (
    ladder_height,
    optimal_gate_ph,
    optimal_routing_ph,
    pollaczek_khinchine_wait,
    price_of_forgetting_ph,
    welfare_ga_ph,
    welfare_rr_ph,
)

#: SCV of each service shape, in closed form.
SHAPES = {
    "exponential": 1.0,
    "erlang:3": 1 / 3,
    "erlang:10": 0.1,
    "hyperexp:4": 4.0,
    "fit:0.4": 0.4,
}
QUEUES = [
    (math.inf, 3.0),
    (math.inf, 1.2),
    (2.0, 5.0),
    (0.5, 3.0),
    (1.2, 50.0),
    (5.0, 1.05),
    (1.0, 3.0),
]


@pytest.mark.parametrize(("spec", "scv"), SHAPES.items())
def test_service_law_has_mean_one_and_the_stated_scv(spec, scv):
    law = service_law(spec)
    assert law.mean == pytest.approx(1.0, rel=1e-13)
    assert law.moment(2) - 1 == pytest.approx(scv, rel=1e-12)


@pytest.mark.parametrize("scv", [0.01, 0.05, 0.25, 0.3, 0.5, 0.99, 1.0, 1.01, 30.0, 1e9])
def test_two_moment_fit(scv):
    law = fit_two_moments(scv)
    assert law.mean == pytest.approx(1.0, rel=1e-12)
    assert law.moment(2) - 1 == pytest.approx(scv, rel=1e-9)


@pytest.mark.parametrize(("scv", "third"), [(1.5, 9.4), (3.0, 40.0), (10.0, 1000.0)])
def test_three_moment_fit(scv, third):
    law = service_law(f"fit:{scv}:{third}")
    assert law.mean == pytest.approx(1.0, rel=1e-12)
    assert law.moment(2) - 1 == pytest.approx(scv, rel=1e-10)
    assert law.moment(3) == pytest.approx(third, rel=1e-10)


def test_a_phase_type_shape_is_rescaled():
    law = service_law(coxian([1.0, 3.0], [0.5]))
    assert law.mean == pytest.approx(1.0, rel=1e-14)


@pytest.mark.parametrize(("arrival", "reward"), QUEUES)
def test_exponential_service_reduces_to_gated_welfare(arrival, reward):
    queue = GatedQueue(arrival, 1.0, reward, 1.0)
    exact_gate, exact_routing = optimal_gate(queue), optimal_routing(queue)
    opt = optimal_gate_ph(queue, "exponential")
    assert opt.gate == pytest.approx(exact_gate.gate, rel=1e-10, abs=1e-12)
    assert opt.welfare == pytest.approx(exact_gate.welfare, rel=1e-10)
    assert opt.mean_sojourn == pytest.approx(exact_gate.mean_sojourn, rel=1e-10)
    assert opt.prob_wait == pytest.approx(exact_gate.root, rel=1e-10)
    assert opt.at_boundary == exact_gate.at_boundary
    rr = optimal_routing_ph(queue, "exponential")
    assert rr.rate == pytest.approx(exact_routing.rate, rel=1e-12)
    assert rr.welfare == pytest.approx(exact_routing.welfare, rel=1e-12)
    pof = price_of_forgetting_ph(queue, "exponential")
    assert pof == pytest.approx(price_of_forgetting(queue), rel=1e-10)
    for tau in (0.3, 1.0, 4.0):
        if tau + (0 if math.isinf(arrival) else 1 / arrival) > 1:
            expected = float(welfare_ga(queue, tau))
            assert welfare_ga_ph(queue, tau, "exponential") == pytest.approx(expected, rel=1e-12)


def test_boundary_optimum_tau_zero():
    """Λ = 0.2 < μ(1 − 1/√ν) with ν = 100: admitting every customer (τ* = 0) is optimal."""
    queue = GatedQueue(0.2, 1.0, 100.0, 1.0)
    assert optimal_gate(queue).at_boundary
    opt = optimal_gate_ph(queue, "exponential")
    assert opt.at_boundary and opt.gate == 0.0
    assert opt.welfare == pytest.approx(optimal_gate(queue).welfare, rel=1e-12)
    assert optimal_routing_ph(queue, "erlang:3").at_boundary


@pytest.mark.parametrize(("arrival", "reward"), [(math.inf, 4.0), (2.0, 5.0), (1.0, 3.0)])
@pytest.mark.parametrize("phases", [1, 4, 16])
def test_erlang_gates_with_exponential_service_match_phase_gates(arrival, reward, phases):
    """The Erlang-m gate's optimum by the ladder-height route equals the scalar GI/M/1
    root route of qtheory.gated.phase_gates."""
    queue = GatedQueue(arrival, 1.0, reward, 1.0)
    opt = optimal_gate_ph(queue, "exponential", gate_shape=erlang(phases, 1.0))
    reference = optimal_erlang_gate(queue, phases)
    assert opt.gate == pytest.approx(reference.gate, rel=1e-10)
    assert opt.welfare == pytest.approx(reference.welfare, rel=1e-10)
    assert opt.mean_sojourn == pytest.approx(reference.mean_sojourn, rel=1e-10)
    # one record for both routes: the variant is a field; with exponential service the
    # ladder heights' P(W > 0) and E[W] are GI/M/1's σ and σ/(μ(1 − σ)) at the root
    assert type(opt) is type(reference) and opt.phases == reference.phases == phases
    assert (opt.service, reference.service) == ("exponential", None)
    sigma = float(reference.root)
    assert opt.prob_wait == pytest.approx(sigma, rel=1e-9)
    assert opt.mean_wait == pytest.approx(sigma / (1 - sigma), rel=1e-9)


@pytest.mark.parametrize("service", ["erlang:3", "hyperexp:4"])
def test_exponential_gate_without_potential_arrival_limit_is_random_routing(service):
    queue = GatedQueue(math.inf, 1.0, 4.0, 1.0)
    opt = optimal_gate_ph(queue, service, gate_shape=exponential(2.0))
    rr = optimal_routing_ph(queue, service)
    assert opt.throughput == pytest.approx(rr.rate, rel=1e-9)
    assert opt.welfare == pytest.approx(rr.welfare, rel=1e-12)


PK_LAWS = [erlang(3, 3.0), balanced_hyperexponential(4.0), coxian([2.0, 0.8, 5.0], [0.6, 0.3])]


@pytest.mark.parametrize("law", PK_LAWS, ids=["erlang3", "hyperexp4", "coxian3"])
@pytest.mark.parametrize("rate", [0.1, 0.5, 0.9])
def test_mph1_ladder_height_equals_pollaczek_khinchine(law, rate):
    """GI/PH/1 with τ = 0 and Poisson(λ) arrivals is M/PH/1: the ladder-height route must
    give Pollaczek–Khinchine with E[S^2] computed here from the representation."""
    rate = rate / law.mean
    second = 2 * law.alpha @ np.linalg.matrix_power(np.linalg.inv(-law.T), 2) @ np.ones(law.phases)
    rho = rate * law.mean
    pk = rate * second / (2 * (1 - rho))
    lh = ladder_height(law, 0.0, rate)
    assert lh.mean_wait == pytest.approx(pk, rel=1e-11)
    assert lh.prob_wait == pytest.approx(rho, rel=1e-12)  # P(W > 0) = ρ (PASTA)
    assert pollaczek_khinchine_wait(rate, law) == pytest.approx(pk, rel=1e-13)


def phph1_mean_wait(gate, arrival_rate, service):
    """E[W] of the PH/PH/1 queue with inter-arrival PH gate + Exp(Λ), as a QBD: level =
    number in system, phase = (arrival phase, service phase); level 0 has arrival phases
    only.  E[W] = L/λ − E[S] by Little's law."""
    g, m = gate.phases, service.phases
    S = np.zeros((g + 1, g + 1))  # arrival PH: the gate's phases, then the Exp(Λ) phase
    S[:g, :g] = gate.T
    S[:g, g] = gate.exit_rates
    S[g, g] = -arrival_rate
    s = np.zeros(g + 1)
    s[g] = arrival_rate
    beta = np.append(gate.alpha, 0.0)
    Ia, Is = np.eye(g + 1), np.eye(m)
    A0 = np.kron(np.outer(s, beta), Is)
    A1 = np.kron(S, Is) + np.kron(Ia, service.T)
    A2 = np.kron(Ia, np.outer(service.exit_rates, service.alpha))
    law = qbd_stationary(
        qbd_solve(A0, A1, A2),
        S,
        np.kron(np.outer(s, beta), service.alpha[None, :]),
        np.kron(Ia, service.exit_rates[:, None]),
    )
    rate = 1 / (gate.mean + 1 / arrival_rate)
    return law.mean_level() / rate - service.mean


#: Gates of mean 0.8: upper-triangular (block substitution) and cyclic (dense route).
GATES = {
    "erlang3": erlang(3, 3.0 / 0.8),
    "cyclic": PhaseType([0.6, 0.4], [[-3.0, 1.0], [2.0, -4.0]]).scaled(1.6),  # mean 0.5 before
}


@pytest.mark.parametrize("gate", GATES, ids=list(GATES))
@pytest.mark.parametrize(
    "service", [erlang(2, 2.0), balanced_hyperexponential(3.0), coxian([3.0, 1.5], [0.4])]
)
def test_ph_gate_matches_the_phph1_qbd(service, gate):
    gate = GATES[gate]
    assert gate.mean == pytest.approx(0.8, rel=1e-12)
    lh = ladder_height(service, gate, 2.5)  # E[A] = 1.2
    assert lh.residual < 1e-14
    assert lh.mean_wait == pytest.approx(phph1_mean_wait(gate, 2.5, service), rel=1e-10)


@pytest.mark.parametrize("service", ["erlang:3", "hyperexp:4", "fit:0.5"])
@pytest.mark.parametrize(("arrival", "reward"), [(math.inf, 3.0), (2.0, 5.0)])
def test_optimal_routing_is_the_maximum_of_pollaczek_khinchine(service, arrival, reward):
    queue = GatedQueue(arrival, 1.0, reward, 1.0)
    scv = SHAPES.get(service, 0.5)

    def minus_welfare(rate):  # Pollaczek–Khinchine with E[S^2] = 1 + c^2 (μ = 1)
        return -rate * (reward - (rate * (1 + scv) / (2 * (1 - rate)) + 1))

    best = optimize.minimize_scalar(
        minus_welfare, bounds=(0, min(arrival, 1 - 1e-9)), method="bounded",
        options={"xatol": 1e-12},
    )  # fmt: skip
    opt = optimal_routing_ph(queue, service)
    assert opt.rate == pytest.approx(best.x, rel=1e-6)
    assert opt.welfare == pytest.approx(-best.fun, rel=1e-12)
    assert welfare_rr_ph(queue, opt.rate, service) == pytest.approx(opt.welfare, rel=1e-14)


@pytest.mark.parametrize("service", ["erlang:3", "hyperexp:4", "hyperexp:20"])
@pytest.mark.parametrize(("arrival", "reward"), [(math.inf, 3.0), (2.0, 5.0), (0.7, 2.0)])
def test_optimal_gate_is_the_maximum_over_a_grid(service, arrival, reward):
    queue = GatedQueue(arrival, 1.0, reward, 1.0)
    opt = optimal_gate_ph(queue, service)
    low = max(0.0, 1.0 - (0 if math.isinf(arrival) else 1 / arrival)) + 1e-3
    grid = np.concatenate(
        [np.linspace(low, opt.gate * 3 + 1, 41), opt.gate * (1 + np.array([-1e-4, 1e-4]))]
    )
    values = [welfare_ga_ph(queue, tau, service) for tau in grid]
    assert opt.welfare >= max(values) - 1e-12
    assert welfare_ga_ph(queue, opt.gate, service) == pytest.approx(opt.welfare, rel=1e-14)
    assert opt.mean_sojourn == pytest.approx(opt.mean_wait + 1.0, rel=1e-14)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: ladder_height(exponential(1.0), 0.5, math.inf), "gate must make the queue stable"),
        (lambda: ladder_height(exponential(1.0), 0.5, 2.0), "gate must make the queue stable"),
        (lambda: ladder_height(exponential(1.0), -1.0, 2.0), "gate must be finite and >= 0"),
        (lambda: ladder_height(exponential(1.0), 1.0, 0.0), "arrival_rate must be > 0"),
        (lambda: pollaczek_khinchine_wait(1.0, exponential(1.0)), "rate must give load"),
        (lambda: pollaczek_khinchine_wait(-1.0, exponential(1.0)), "rate must be > 0"),
        (lambda: service_law("erlang:0"), "must be >= 1"),
        (lambda: service_law("hyperexp:0.5"), "scv must be > 1"),
        (lambda: service_law("fit:nan"), "service must be"),
        (lambda: fit_two_moments(1e-4), "scv must be in"),
        (lambda: service_law("fit:0.5:3"), "scv must be > 1 for a hyperexponential"),
        (lambda: service_law("fit:2:13.4"), "third must be > 1.5"),
        (lambda: service_law("fit:2:3:4"), "service must be"),
        (lambda: welfare_rr_ph(GatedQueue(0.5, 1.0, 3.0, 1.0), 0.6, "erlang:2"), "rate must be <="),
        (lambda: optimal_gate_ph(GatedQueue(1.0, 1.0, 1.0, 1.0), "erlang:2"), "nu"),
        (lambda: optimal_routing_ph(GatedQueue(1.0, 1.0, 0.5, 1.0), "erlang:2"), "nu"),
    ],
)
def test_bad_input_is_a_value_error_naming_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_service_and_queue_types():
    with pytest.raises(TypeError, match="gate_shape must be a PhaseType"):
        optimal_gate_ph(GatedQueue(2.0, 1.0, 3.0, 1.0), "erlang:2", gate_shape="erlang:2")
    with pytest.raises(TypeError, match="queue must be a GatedQueue"):
        optimal_gate_ph((1.0, 1.0, 3.0, 1.0), "erlang:2")
    with pytest.raises(TypeError, match="service must be a PhaseType"):
        ladder_height("erlang:2", 1.0, 2.0)


def test_service_claims_hold_on_the_quick_grid():
    from qtheory.gated.service_claims import service_claims

    claims = service_claims(quick=True)
    assert [c.passed for c in claims] == [True] * 5
    assert len({c.name for c in claims}) == 5
    dominance, trend = claims[0], claims[1]
    assert dominance.value > 1 and trend.value == trend.reference == 4
