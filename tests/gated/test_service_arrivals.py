"""Tests of renewal (phase-type) potential arrivals with phase-type service in
qtheory.gated.service (``arrivals=``), against independent routes: the GI/M/1 route of
qtheory.gated.renewal (scalar roots of the admitted LSTs, in w = −log σ) for exponential
service, today's Poisson code (Pollaczek–Khinchine, gate + Exp(Λ)) for a one-phase
renewal law, the MAP/PH/1 queue as a QBD solved by qtheory.exact.matrix_analytic (RR
exactly; GA with an Erlang-n gate, Richardson-extrapolated in 1/n to the deterministic
gate), the C simulator, and a derivative-free maximisation of the welfare."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from qtheory.core.phase_type import arrival_law, erlang, exponential, service_law
from qtheory.exact.matrix_analytic import qbd_solve, qbd_stationary
from qtheory.gated import GatedQueue, RenewalStreams, optimal_gate, optimal_routing
from qtheory.gated.service import (
    optimal_gate_ph,
    optimal_routing_ph,
    price_of_forgetting_ph,
    welfare_ga_ph,
    welfare_rr_ph,
)
from qtheory.sim.gated import simulate_gated, simulate_random_routing

LAWS = ["erlang:2", "hyperexp:4"]
SERVICES = ["erlang:4", "hyperexp:4"]
RATES = [0.8, 1.5, 3.0]


def queue(arrival_rate, reward=2.0):
    return GatedQueue(arrival_rate, 1.0, reward, 1.0)


# ------------------------------------------------ 1. exponential service: the GI/M/1 route


@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("arrival_rate", RATES)
def test_exponential_service_welfare_is_the_gim1_welfare(law, arrival_rate):
    """At the gate and the rate that give the GI/M/1 root σ = e^{−w}, the sojourn is
    Exp(μ(1 − σ)): S = λ(R − C/(μ(1 − σ)))."""
    q, streams = queue(arrival_rate), RenewalStreams(queue(arrival_rate), law)
    for w in (streams.w_min + 0.05, 1.0, 2.5):
        if w < streams.w_min:
            continue
        sojourn = 1.0 / (1.0 - math.exp(-w))
        ga, rr = streams.ga_throughput(w), streams.rr_throughput(w)
        got = welfare_ga_ph(q, streams.ga_gate(w), "exponential", arrivals=law)
        assert got == pytest.approx(ga * (2.0 - sojourn), rel=1e-9, abs=1e-12)
        got = welfare_rr_ph(q, rr, "exponential", arrivals=law)
        assert got == pytest.approx(rr * (2.0 - sojourn), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("arrival_rate", RATES)
def test_exponential_service_routing_optimum_is_the_gim1_one(law, arrival_rate):
    q = queue(arrival_rate)
    mine, theirs = (
        optimal_routing_ph(q, "exponential", arrivals=law),
        optimal_routing(q, arrivals=law),
    )
    assert mine.welfare == pytest.approx(theirs.welfare, rel=1e-10)
    assert mine.rate == pytest.approx(theirs.rate, rel=1e-6)  # a flat top: √eps search
    assert mine.at_boundary == theirs.at_boundary


@pytest.mark.parametrize(("law", "arrival_rate"), [("erlang:2", 1.5), ("hyperexp:4", 0.8)])
def test_exponential_service_gate_optimum_is_the_gim1_one(law, arrival_rate):
    q = queue(arrival_rate)
    mine, theirs = optimal_gate_ph(q, "exponential", arrivals=law), optimal_gate(q, arrivals=law)
    assert mine.gate == pytest.approx(theirs.gate, rel=1e-8)
    assert mine.welfare == pytest.approx(theirs.welfare, rel=1e-10)
    assert mine.throughput == pytest.approx(theirs.throughput, rel=1e-10)
    assert mine.mean_sojourn == pytest.approx(theirs.mean_sojourn, rel=1e-9)


@pytest.mark.parametrize("law", LAWS)
def test_everyone_admitted_when_the_reward_is_large(law):
    """Λ = 0.2, R = 50: both optima admit everybody; the welfare is Λ(R − C/(μ(1 − σ_0)))
    with σ_0 = e^{−w_min} the GI/M/1 root of the potential stream."""
    q = queue(0.2, reward=50.0)
    expected = 0.2 * (50.0 - 1.0 / (1.0 - math.exp(-RenewalStreams(q, law).w_min)))
    ga, rr = (
        optimal_gate_ph(q, "exponential", arrivals=law),
        optimal_routing_ph(q, "exponential", arrivals=law),
    )
    assert ga.at_boundary and ga.gate == 0.0 and rr.at_boundary and rr.rate == 0.2
    assert ga.welfare == pytest.approx(expected, rel=1e-11)
    assert rr.welfare == pytest.approx(expected, rel=1e-11)


# ------------------------------------------------ 2. a one-phase law: today's Poisson code


#: (service, Λ, R, the one-phase law): an ``erlang:1`` spec and an exponential PhaseType.
ONE_PHASE = [
    (service, arrival_rate, reward, "erlang:1")
    for service in SERVICES
    for arrival_rate, reward in [(0.8, 2.0), (3.0, 2.0), (2.0, 5.0), (0.5, 3.0)]
] + [("fit:0.4", 1.5, 2.0, exponential(7.0))]


@pytest.mark.parametrize(("service", "arrival_rate", "reward", "poisson"), ONE_PHASE)
def test_one_phase_renewal_arrivals_are_the_poisson_model(service, arrival_rate, reward, poisson):
    """``erlang:1`` (or an exponential PhaseType) runs the renewal route; the default
    ``"poisson"`` runs Pollaczek–Khinchine and gate + Exp(Λ)."""
    q = queue(arrival_rate, reward)
    rate = min(0.4, arrival_rate)
    assert welfare_ga_ph(q, 0.7, service, arrivals=poisson) == pytest.approx(
        welfare_ga_ph(q, 0.7, service), rel=1e-11
    )
    assert welfare_rr_ph(q, rate, service, arrivals=poisson) == pytest.approx(
        welfare_rr_ph(q, rate, service), rel=1e-11
    )
    ga, ga0 = optimal_gate_ph(q, service, arrivals=poisson), optimal_gate_ph(q, service)
    assert ga.gate == pytest.approx(ga0.gate, rel=1e-9, abs=1e-12)
    assert ga.welfare == pytest.approx(ga0.welfare, rel=1e-11)
    assert ga.at_boundary == ga0.at_boundary
    rr, rr0 = optimal_routing_ph(q, service, arrivals=poisson), optimal_routing_ph(q, service)
    assert rr.rate == pytest.approx(rr0.rate, rel=1e-6)
    assert rr.welfare == pytest.approx(rr0.welfare, rel=1e-11)
    assert rr.at_boundary == rr0.at_boundary


# ------------------------------------------------ 3. Erlang-2 arrivals, PH service: the QBD


def map_ph1(D0, D1, service):
    """(E[W], λ) of the MAP(D0, D1)/PH/1 queue as a QBD: level = number present, phase =
    (arrival phase, service phase), level 0 arrival phases only; E[W] = L/λ − E[S] by
    Little's law, λ = θ D1 1 with θ the stationary law of D0 + D1."""
    Ia, Is = np.eye(D0.shape[0]), np.eye(service.phases)
    solution = qbd_solve(
        np.kron(D1, Is),
        np.kron(D0, Is) + np.kron(Ia, service.T),
        np.kron(Ia, np.outer(service.exit_rates, service.alpha)),
    )
    law = qbd_stationary(
        solution, D0, np.kron(D1, service.alpha[None, :]), np.kron(Ia, service.exit_rates[:, None])
    )
    generator = D0 + D1
    system = np.vstack([generator.T, np.ones(generator.shape[0])])
    theta = np.linalg.lstsq(system, np.eye(generator.shape[0] + 1)[-1], rcond=None)[0]
    rate = float(theta @ D1.sum(axis=1))
    return law.mean_level() / rate - service.mean, rate


def rr_map(arrivals, q):
    """RR as a MAP: every potential arrival (exit t, restart α) is admitted w.p. q."""
    renewal = np.outer(arrivals.exit_rates, arrivals.alpha)
    return arrivals.T + (1 - q) * renewal, q * renewal


def ga_map(arrivals, tau, n):
    """GA with an Erlang-n gate of mean τ as a MAP: phases (gate phase, arrival phase)
    while the gate is shut (the renewal stream runs on, its arrivals refused), then the
    arrival phase alone; the first arrival after the gate is admitted and starts a new
    gate, with the arrival phase restarting in α."""
    T, t, alpha, m = arrivals.T, arrivals.exit_rates, arrivals.alpha, arrivals.phases
    gate = erlang(n, n / tau)
    shut = n * m
    D0, D1 = np.zeros((shut + m, shut + m)), np.zeros((shut + m, shut + m))
    D0[:shut, :shut] = np.kron(gate.T, np.eye(m)) + np.kron(np.eye(n), T + np.outer(t, alpha))
    D0[:shut, shut:] = np.kron(gate.exit_rates[:, None], np.eye(m))
    D0[shut:, shut:] = T
    D1[shut:, :m] = np.outer(t, alpha)
    return D0, D1


@pytest.mark.parametrize("service", SERVICES)
@pytest.mark.parametrize(("arrival_rate", "rate"), [(0.8, 0.5), (1.5, 0.6), (3.0, 0.3)])
def test_random_routing_wait_is_the_map_ph1_qbd(service, arrival_rate, rate):
    q = queue(arrival_rate)
    arrivals = arrival_law("erlang:2").scaled(1 / arrival_rate)
    wait, admitted = map_ph1(*rr_map(arrivals, rate / arrival_rate), service_law(service))
    assert admitted == pytest.approx(rate, rel=1e-12)
    got = welfare_rr_ph(q, rate, service, arrivals="erlang:2")
    assert got == pytest.approx(rate * (2.0 - wait - 1.0), rel=1e-9)


@pytest.mark.parametrize(("service", "arrival_rate"), [("erlang:4", 3.0), ("hyperexp:4", 0.8)])
def test_gated_wait_is_the_erlang_gate_qbd_extrapolated(service, arrival_rate):
    """E[W] and the throughput at τ* against the QBD with an Erlang-n gate of mean τ*,
    which tends to the deterministic gate with errors in powers of 1/n: Richardson's
    extrapolation over n = 8, 16, 32 removes the 1/n and 1/n² terms (seen: relative
    error ≤ 4e-4 in E[W] and 4e-6 in the rate, here and at Λ = 0.8 with Erlang-4 and
    Λ = 3 with H2 service)."""
    opt = optimal_gate_ph(queue(arrival_rate), service, arrivals="erlang:2")
    arrivals = arrival_law("erlang:2").scaled(1 / arrival_rate)
    runs = {n: map_ph1(*ga_map(arrivals, opt.gate, n), service_law(service)) for n in (8, 16, 32)}

    def extrapolated(k):
        f = {n: runs[n][k] for n in runs}
        a, b = 2 * f[16] - f[8], 2 * f[32] - f[16]
        return (4 * b - a) / 3

    assert opt.throughput == pytest.approx(extrapolated(1), rel=2e-5)
    assert opt.mean_wait == pytest.approx(extrapolated(0), rel=2e-3)


#: 4 standard errors of a batch-means mean with 49 degrees of freedom: a fixed seed
#: fails with probability P(|t_49| > 4) ≈ 2e-4 per comparison were the seed drawn anew.
_SE_FACTOR = 4.0


def _standard_error(estimate):
    return estimate.halfwidth / stats.t.ppf(0.975, estimate.dof or estimate.n - 1)


@pytest.mark.parametrize(("service", "seed"), [("erlang:4", 11), ("hyperexp:4", 12)])
def test_optimal_gate_and_routing_agree_with_simulation(service, seed):
    """Λ = 1.5, Erlang-2 arrivals: the simulated mean sojourn at τ* and at λ* (1e6
    customers, 50 batches) within 4 SE of the exact ones; the throughput to 1%."""
    q = queue(1.5)
    ga = optimal_gate_ph(q, service, arrivals="erlang:2")
    est = simulate_gated(q, ga.gate, service=service, arrivals="erlang:2", customers=1_000_000,
                         seed=seed)  # fmt: skip
    assert abs(est.mean_sojourn.mean - ga.mean_sojourn) < _SE_FACTOR * _standard_error(
        est.mean_sojourn
    )
    assert est.throughput == pytest.approx(ga.throughput, rel=1e-2)
    rr = optimal_routing_ph(q, service, arrivals="erlang:2")
    est = simulate_random_routing(q, rr.rate, service=service, arrivals="erlang:2",
                                  customers=1_000_000, seed=seed + 100)  # fmt: skip
    sojourn = 2.0 - rr.welfare / rr.rate
    assert abs(est.mean_sojourn.mean - sojourn) < _SE_FACTOR * _standard_error(est.mean_sojourn)


# ------------------------------------------------ the optima: a derivative-free check


@pytest.mark.parametrize(
    ("arrival_rate", "reward", "law", "service"),
    [
        (0.8, 2.0, "erlang:2", "erlang:4"),
        (1.5, 2.0, "hyperexp:4", "hyperexp:4"),
        (0.3, 2.0, "erlang:6", "erlang:4"),
        (0.99, 20.0, "erlang:10", "hyperexp:4"),
    ],
)
def test_optimal_gate_is_the_maximum_of_the_welfare(arrival_rate, reward, law, service):
    """The root of N'D − ND' (implicit derivatives, the drift πQ) against Brent's bounded
    maximisation of the welfare itself (no derivative).  With Erlang-k input the condition
    vanishes like τ^{k−1} at τ = 0 (D'(0) = 0), yet these optima are interior (at Λ = 0.99
    the welfare at τ = 0 is −182, at τ* 10.2).

    A maximiser that sees only values locates τ* no better than sqrt(2δ / |W''|), δ the
    welfare's rounding error: where W is flat (Λ = 0.3, W'' ≈ 3e-6 against W ≈ 0.3) that
    is 1e-5 absolute, so the gates are compared to twice that resolution, with δ = 100
    ulps of W (curvature by a central difference at 5% of τ*)."""
    q = queue(arrival_rate, reward)
    opt = optimal_gate_ph(q, service, arrivals=law)

    def welfare(t):
        return welfare_ga_ph(q, t, service, arrivals=law)

    found = optimize.minimize_scalar(
        lambda t: -welfare(t),
        bounds=(0.5 * opt.gate, 1.5 * opt.gate), method="bounded", options={"xatol": 1e-10},
    )  # fmt: skip
    assert not opt.at_boundary
    assert opt.welfare >= -found.fun - 1e-13 * abs(found.fun)  # rounding
    h = 0.05 * opt.gate
    curvature = abs(welfare(opt.gate + h) - 2 * opt.welfare + welfare(opt.gate - h)) / h**2
    resolution = math.sqrt(2 * 100 * math.ulp(opt.welfare) / curvature)
    assert opt.gate == pytest.approx(found.x, abs=2 * resolution, rel=1e-7)


def test_a_flat_start_keeps_the_gate_at_zero():
    """Λ = 0.3, Erlang-10 input, Erlang-4 service: no gap is short, a gate below the
    typical gap changes nothing, and no gate on a grid beats τ = 0 by 1e-12."""
    q = queue(0.3)
    opt = optimal_gate_ph(q, "erlang:4", arrivals="erlang:10")
    grid = [welfare_ga_ph(q, t, "erlang:4", arrivals="erlang:10") for t in np.linspace(0, 8, 81)]
    assert opt.at_boundary and opt.gate == 0.0
    assert max(grid) <= opt.welfare * (1 + 1e-12)


# ------------------------------------------------ 4. GA beats RR


@pytest.mark.parametrize("service", SERVICES)
@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("arrival_rate", RATES)
def test_gated_admission_beats_random_routing(arrival_rate, law, service):
    """PoF > 1 (seen: 1.54 to 2.62 on this grid, μ = C = 1, R = 2)."""
    assert price_of_forgetting_ph(queue(arrival_rate), service, arrivals=law) > 1.0


# ------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: welfare_ga_ph(queue(1.0), 1.0, "erlang:2", arrivals="gamma:2"), "arrivals"),
        (lambda: welfare_rr_ph(queue(math.inf), 0.5, "erlang:2", arrivals="erlang:2"),
         "arrival_rate"),
        (lambda: welfare_ga_ph(queue(1.0), erlang(2, 2.0), "erlang:2", arrivals="erlang:2"),
         "gate"),
        (lambda: optimal_gate_ph(queue(1.0), "erlang:2", gate_shape=erlang(2, 2.0),
                                 arrivals="erlang:2"), "gate_shape"),
        (lambda: welfare_rr_ph(queue(1.5), 1.2, "erlang:2", arrivals="erlang:2"), "rate"),
        (lambda: welfare_ga_ph(queue(0.8), 0.0, "hyperexp:4", arrivals="fit:0"), "arrivals"),
        (lambda: welfare_ga_ph(queue(2.0), 0.1, "erlang:2", arrivals="erlang:2"), "gate"),
    ],
)  # fmt: skip
def test_bad_input_is_a_value_error_naming_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()
