"""Tests of qtheory.gated.renewal (GA and RR with renewal potential arrivals) against
independent routes:

- Poisson input against the closed forms (τ = (w − log(1 + u/Λ))/u, λ_RR = μσ,
  σ_0 = Λ/μ), in float64 and in mpmath;
- Erlang-2 and the balanced H2 of SCV 4 through closed forms written here: their phase
  process is a two-state chain, so π(τ) = π_∞ + (α − π_∞)e^{−(a+b)τ}, and the LSTs and
  mean residuals from each phase are elementary; the GI/M/1 root of a given gate τ or
  routing probability q is then the limit of the natural iteration σ ← A*(μ(1 − σ)) from
  σ = 0 (monotone to the smallest root), a different algorithm from the module's root in
  τ of the w-form;
- the PH/M/1 queue as a QBD (qtheory.exact.matrix_analytic.qbd_solve): thinning the
  renewal stream with probability q is the PH law (α, T + (1 − q)tα), exits qt, and the
  spectral radius of R is the GI/M/1 root (q = 1 gives σ_0);
- the linear-cost optima found here by a dense grid and bounded minimisation over w,
  against the package's Poisson optima and against a maximisation over τ (and q) on the
  closed-form route.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import optimize

from qtheory.core.phase_type import arrival_law
from qtheory.exact.matrix_analytic import qbd_solve
from qtheory.gated import GatedQueue, optimal_gate, optimal_routing
from qtheory.gated.renewal import RenewalStreams

RATES = (0.8, 1.5, 3.0)
LAWS = ("erlang:2", "hyperexp:4")
MU = 1.0


class TwoPhase:
    """Erlang-2 or the balanced H2 of SCV c² = 4 at rate Λ, in closed form (float, or mpf
    with ``lib=mpmath``: then the H2 is the float64 law of ``arrival_law``, whose
    probabilities are the exact ones rounded, so that 40 digits can be compared)."""

    def __init__(self, spec: str, rate, lib=math):
        self.lib, self.rate = lib, rate
        if spec == "erlang:2":
            r = 2 * rate  # α = (1, 0), T = [[−r, r], [0, −r]], t = (0, r)
            self.alpha = (1, 0)
            self.switch = (r, r)  # rates 1 → 2 and 2 → 1 of Q = T + tα
            self.lst = (lambda s: (r / (s + r)) ** 2, lambda s: r / (s + r))
            self.residual = (2 / r, 1 / r)
            self.scv = 0.5
        else:
            scv = 4
            if lib is mpmath:  # the float64 law itself (its p2 is the exact H2's rounded)
                law = arrival_law(spec)
                p1, p2 = (mpmath.mpf(x) / mpmath.fsum(law.alpha) for x in law.alpha)
                unit = [mpmath.mpf(-law.T[i, i]) for i in range(2)]
                scale = rate * (p1 / unit[0] + p2 / unit[1])
                r1, r2 = unit[0] * scale, unit[1] * scale
            else:
                p2 = (1 - math.sqrt(0.6)) / 2  # (1 − √((c² − 1)/(c² + 1)))/2
                p1 = 1 - p2
                r1, r2 = 2 * p1 * rate, 2 * p2 * rate  # balanced means p_i/r_i = 1/(2Λ)
            self.alpha = (p1, p2)
            self.switch = (r1 * p2, r2 * p1)  # Q = [[−r1 p2, r1 p2], [r2 p1, −r2 p1]]
            self.lst = (lambda s: r1 / (s + r1), lambda s: r2 / (s + r2))
            self.residual = (1 / r1, 1 / r2)
            self.scv = scv

    def a(self, s):
        return sum(al * f(s) for al, f in zip(self.alpha, self.lst, strict=True))

    def phases(self, tau):
        a, b = self.switch
        decay = self.lib.exp(-(a + b) * tau)
        stationary = (b / (a + b), a / (a + b))
        return tuple(p + (al - p) * decay for p, al in zip(stationary, self.alpha, strict=True))

    def ga_lst(self, tau, s):
        pi = self.phases(tau)
        return self.lib.exp(-s * tau) * sum(p * f(s) for p, f in zip(pi, self.lst, strict=True))

    def ga_mean(self, tau):
        return tau + sum(p * m for p, m in zip(self.phases(tau), self.residual, strict=True))

    def rr_lst(self, q, s):
        a = self.a(s)
        return q * a / (1 - (1 - q) * a)


def natural_root(lst, mu=MU, tolerance=1e-16, steps=200_000):
    """The smallest root of σ = lst(μ(1 − σ)) by σ ← lst(μ(1 − σ)) from 0."""
    sigma = 0 * tolerance
    for _ in range(steps):
        new = lst(mu * (1 - sigma))
        if abs(new - sigma) <= tolerance:
            return new
        sigma = new
    raise AssertionError("natural iteration did not settle")


def qbd_root(spec: str, rate: float, q: float) -> float:
    """sp(R) of the PH/M/1 QBD of the q-thinned renewal stream."""
    law = arrival_law(spec).scaled(1 / rate)
    T, t, alpha = law.T, law.exit_rates, law.alpha
    up = q * np.outer(t, alpha)
    local = T + (1 - q) * np.outer(t, alpha) - MU * np.eye(law.phases)
    return qbd_solve(up, local, MU * np.eye(law.phases)).spectral_radius


def queue(rate):
    return GatedQueue(rate, MU, 2.0, 1.0)


def stable_gates(rate):
    return (0.0, 1.0, 2.5) if rate < MU else (1.0, 2.5, 5.0)


# ------------------------------------------------------------------ Poisson closed forms


@pytest.mark.parametrize("spec", ["poisson", "erlang:1"])
@pytest.mark.parametrize("rate", [*RATES, 1e-30, 50.0])
def test_poisson_input_reduces_to_the_closed_forms(spec, rate):
    streams = RenewalStreams(queue(rate), spec)
    w_min = math.log(MU / rate) if rate < MU else 0.0
    assert streams.w_min == pytest.approx(w_min, rel=1e-13, abs=1e-300)
    assert streams.service_rate == MU
    for w in (w_min + 1e-6, w_min + 0.3, w_min + 1.0, w_min + 4.0, w_min + 30.0):
        u = MU * -math.expm1(-w)
        tau = (w - math.log1p(u / rate)) / u
        assert streams.ga_gate(w) == pytest.approx(tau, rel=1e-11, abs=1e-13)
        assert streams.ga_throughput(w) == pytest.approx(1 / (tau + 1 / rate), rel=1e-12)
        assert streams.rr_throughput(w) == pytest.approx(MU * math.exp(-w), rel=1e-12)


@pytest.mark.parametrize("rate", RATES)
def test_poisson_input_in_mpmath_reduces_to_the_closed_forms(rate):
    with mpmath.workdps(40):
        streams = RenewalStreams(queue(rate), "erlang:1", dps=40)
        lam, mu = mpmath.mpf(repr(rate)), mpmath.mpf(MU)  # the decimal, as the queue reads it
        w_min = mpmath.log(mu / lam) if rate < MU else 0
        assert abs(streams.w_min - w_min) < mpmath.mpf(10) ** -35
        for w in (w_min + mpmath.mpf("0.3"), w_min + 2):
            u = mu * -mpmath.expm1(-w)
            tau = (w - mpmath.log1p(u / lam)) / u
            assert abs(streams.ga_gate(w) - tau) < mpmath.mpf(10) ** -17  # dps/2 verified
            assert abs(streams.rr_throughput(w) - mu * mpmath.exp(-w)) < mpmath.mpf(10) ** -35
            assert isinstance(streams.ga_throughput(w), mpmath.mpf)


# ------------------------------------------------------------------ two-phase laws


def test_the_two_phase_closed_forms_are_the_laws_of_arrival_law():
    for spec in LAWS:
        law, closed = arrival_law(spec).scaled(1 / 1.5), TwoPhase(spec, 1.5)
        assert law.mean == pytest.approx(1 / 1.5, rel=1e-13)
        assert law.moment(2) * 1.5**2 - 1 == pytest.approx(closed.scv, rel=1e-12)
        for s in (0.1, 1.0, 7.0):
            assert law.lst(s) == pytest.approx(closed.a(s), rel=1e-13)


@pytest.mark.parametrize("spec", LAWS)
@pytest.mark.parametrize("rate", RATES)
def test_w_min_is_the_root_of_the_ph_m_1_qbd(spec, rate):
    streams = RenewalStreams(queue(rate), spec)
    if rate >= MU:
        assert streams.w_min == 0.0
        return
    sigma0 = qbd_root(spec, rate, 1.0)
    closed = natural_root(TwoPhase(spec, rate).a)
    assert sigma0 == pytest.approx(closed, rel=1e-11)
    assert math.exp(-streams.w_min) == pytest.approx(sigma0, rel=1e-11)


@pytest.mark.parametrize("spec", LAWS)
@pytest.mark.parametrize("rate", RATES)
def test_gated_admission_matches_the_closed_form_route(spec, rate):
    streams, closed = RenewalStreams(queue(rate), spec), TwoPhase(spec, rate)
    for tau in stable_gates(rate):
        sigma = natural_root(lambda s, tau=tau: closed.ga_lst(tau, s))
        w = -math.log(sigma)
        assert streams.ga_gate(w) == pytest.approx(tau, rel=1e-9, abs=1e-9)
        assert streams.ga_throughput(w) == pytest.approx(1 / closed.ga_mean(tau), rel=1e-9)


@pytest.mark.parametrize("spec", LAWS)
@pytest.mark.parametrize("rate", RATES)
def test_random_routing_matches_the_closed_form_route_and_the_qbd(spec, rate):
    streams, closed = RenewalStreams(queue(rate), spec), TwoPhase(spec, rate)
    top = min(1.0, 0.999 * MU / rate)
    for q in (0.2 * top, 0.6 * top, 0.95 * top):
        sigma = natural_root(lambda s, q=q: closed.rr_lst(q, s))
        assert qbd_root(spec, rate, q) == pytest.approx(sigma, rel=1e-10)
        assert streams.rr_throughput(-math.log(sigma)) == pytest.approx(q * rate, rel=1e-10)


@pytest.mark.parametrize("spec", LAWS)
def test_mpmath_matches_the_closed_form_route_in_mpmath(spec):
    with mpmath.workdps(40):
        rate, tau, q = mpmath.mpf("1.5"), mpmath.mpf(2), mpmath.mpf("0.4")
        closed = TwoPhase(spec, rate, lib=mpmath)
        streams = RenewalStreams(queue(1.5), spec, dps=40)
        tol = mpmath.mpf(10) ** -38
        sigma = natural_root(lambda s: closed.ga_lst(tau, s), mu=1, tolerance=tol)
        w = -mpmath.log(sigma)
        assert abs(streams.ga_gate(w) - tau) < mpmath.mpf(10) ** -30
        assert abs(streams.ga_throughput(w) * closed.ga_mean(tau) - 1) < mpmath.mpf(10) ** -30
        sigma = natural_root(lambda s: closed.rr_lst(q, s), mu=1, tolerance=tol)
        assert abs(streams.rr_throughput(-mpmath.log(sigma)) / (q * rate) - 1) < 1e-30


@pytest.mark.parametrize("spec", LAWS)
def test_the_lst_falls_with_the_gate_and_the_gate_rises_with_w(spec):
    """The monotonicity the bracket rests on, seen on grids."""
    closed = TwoPhase(spec, 1.5)
    for s in (0.05, 0.5, 3.0):
        values = [closed.ga_lst(tau, s) for tau in np.linspace(0, 10, 401)]
        assert np.all(np.diff(values) < 0)
    streams = RenewalStreams(queue(0.8), spec)
    gates = [streams.ga_gate(w) for w in streams.w_min + np.linspace(0, 6, 61)]
    assert gates[0] == pytest.approx(0.0, abs=1e-12)
    assert np.all(np.diff(gates) > 0)


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "arrivals", ["fit:0", "fit:-1", "hyperexp:-2", "hyperexp:1", "erlang:0", "gamma:2",
                 "deterministic", "fit:x", ""],
)  # fmt: skip
def test_bad_arrival_laws_are_value_errors_naming_arrivals(arrivals):
    with pytest.raises(ValueError, match="^arrivals"):
        RenewalStreams(queue(1.5), arrivals)


def test_bad_queues_and_roots_are_refused():
    with pytest.raises(ValueError, match="arrival_rate must be finite"):
        RenewalStreams(GatedQueue(math.inf, 1.0, 2.0, 1.0), "erlang:2")
    streams = RenewalStreams(queue(0.8), "erlang:2")
    for w in (0.5 * streams.w_min, 0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="^w must be"):
            streams.ga_gate(w)
        with pytest.raises(ValueError, match="^w must be"):
            streams.rr_throughput(w)
    with pytest.raises(TypeError, match="^w must be"):
        streams.ga_throughput("x")


# ------------------------------------------------------------------ linear-cost optima

R, C = 2.0, 1.0


def best_over_w(streams, throughput):
    """max over w >= w_min of throughput(w)(R − C/(μ(1 − e^{−w}))): a dense grid, then
    bounded minimisation around the best grid point."""
    lo = max(streams.w_min, 1e-6)

    def welfare(w):
        return throughput(w) * (R - C / (MU * -math.expm1(-w)))

    grid = lo + np.geomspace(1e-6, 12.0, 400) - 1e-6
    values = [welfare(w) for w in grid]
    k = int(np.argmax(values))
    bounds = (grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)])
    found = optimize.minimize_scalar(
        lambda w: -welfare(w), bounds=bounds, method="bounded", options={"xatol": 1e-10}
    )
    return max(values[k], -found.fun), found.x


@pytest.fixture(scope="module")
def optima():
    found = {}
    for spec in ("poisson", *LAWS):
        for rate in RATES:
            streams = RenewalStreams(queue(rate), spec)
            ga, w_ga = best_over_w(streams, streams.ga_throughput)
            rr, _ = best_over_w(streams, streams.rr_throughput)
            found[spec, rate] = (ga, rr, streams.ga_gate(w_ga))
    return found


@pytest.mark.parametrize("rate", RATES)
def test_poisson_optima_match_the_package(optima, rate):
    ga, rr, tau = optima["poisson", rate]
    assert ga == pytest.approx(optimal_gate(queue(rate)).welfare, rel=1e-9)
    assert rr == pytest.approx(optimal_routing(queue(rate)).welfare, rel=1e-9)
    assert tau == pytest.approx(optimal_gate(queue(rate)).gate, rel=1e-4, abs=1e-5)


@pytest.mark.parametrize("spec", LAWS)
@pytest.mark.parametrize("rate", RATES)
def test_optima_match_a_maximisation_over_the_gate_and_q(optima, spec, rate):
    """The GA optimum over τ (and the RR one over q) on the closed-form route."""
    closed = TwoPhase(spec, rate)

    def ga(tau):
        sigma = natural_root(lambda s: closed.ga_lst(tau, s), tolerance=1e-14)
        return (R - C / (MU * (1 - sigma))) / closed.ga_mean(tau)

    def rr(q):
        sigma = natural_root(lambda s: closed.rr_lst(q, s), tolerance=1e-14)
        return q * rate * (R - C / (MU * (1 - sigma)))

    lo = 0.0 if rate < MU else 1.0 / MU  # E[A] > τ: τ >= 1/μ is stable
    taus = np.linspace(lo, 6.0, 61)
    k = int(np.argmax([ga(t) for t in taus]))
    best_ga = -optimize.minimize_scalar(
        lambda t: -ga(t), bounds=(taus[max(k - 1, 0)], taus[min(k + 1, 60)]), method="bounded"
    ).fun
    qs = np.linspace(1e-3, min(1.0, 0.999 * MU / rate), 61)
    k = int(np.argmax([rr(q) for q in qs]))
    best_rr = -optimize.minimize_scalar(
        lambda q: -rr(q), bounds=(qs[max(k - 1, 0)], qs[min(k + 1, 60)]), method="bounded"
    ).fun
    ga_w, rr_w, _ = optima[spec, rate]
    assert ga_w == pytest.approx(best_ga, rel=1e-7)
    assert rr_w == pytest.approx(best_rr, rel=1e-7)


@pytest.mark.parametrize("spec", ("poisson", *LAWS))
@pytest.mark.parametrize("rate", RATES)
def test_gated_admission_beats_random_routing(optima, spec, rate):
    ga, rr, _ = optima[spec, rate]
    assert rr > 0 and ga > rr * (1 + 1e-6)


def test_the_price_of_forgetting_grows_with_the_arrivals_scv(optima):
    """At Λ = 1.5, μ = C = 1, R = 2: PoF = S_GA*/S_RR* for SCV 1/2, 1, 4 (Erlang-2,
    Poisson, H2) was seen to be about 1.885, 2.044 and 2.206; both optima fall as the
    arrivals grow more variable, RR's faster."""
    pof = [
        optima[spec, 1.5][0] / optima[spec, 1.5][1]
        for spec in ("erlang:2", "poisson", "hyperexp:4")
    ]
    assert pof[0] < pof[1] < pof[2]
    assert pof[1] == pytest.approx(
        optimal_gate(queue(1.5)).welfare / optimal_routing(queue(1.5)).welfare, rel=1e-9
    )
    for earlier, later in ((("erlang:2", "poisson")), ("poisson", "hyperexp:4")):
        assert optima[later, 1.5][0] < optima[earlier, 1.5][0]
        assert optima[later, 1.5][1] < optima[earlier, 1.5][1]


@pytest.mark.parametrize("spec", LAWS)
@pytest.mark.parametrize("rate", RATES)
def test_the_package_optimiser_finds_the_same_optima(optima, spec, rate):
    """optimal_gate/optimal_routing(arrivals=...) (the cost optimiser's grid and Brent
    search in mpmath over the streams) against the test's own float64 search."""
    ga, rr, tau = optima[spec, rate]
    gate = optimal_gate(queue(rate), arrivals=spec)
    routing = optimal_routing(queue(rate), arrivals=spec)
    assert gate.welfare == pytest.approx(ga, rel=1e-9)
    assert routing.welfare == pytest.approx(rr, rel=1e-9)
    assert gate.gate == pytest.approx(tau, rel=1e-4, abs=1e-5)
    assert gate.evidence.startswith("numerical")


@pytest.mark.parametrize("spec", LAWS)
def test_everyone_admitted_is_the_boundary_optimum(spec):
    """Λ = 0.2, R = 50: both optima admit everybody (τ* = 0, λ* = Λ), welfare
    Λ(R − C/(μ(1 − σ₀))) at the root σ₀ of the potential stream.  (w_min, found at guard
    digits, must compare equal to itself at the working precision.)"""
    q = GatedQueue(0.2, 1.0, 50.0, 1.0)
    sigma0 = math.exp(-RenewalStreams(q, spec).w_min)
    welfare = 0.2 * (50.0 - 1.0 / (1 - sigma0))
    gate, routing = optimal_gate(q, arrivals=spec), optimal_routing(q, arrivals=spec)
    assert gate.at_boundary and gate.gate == 0.0 and routing.at_boundary
    assert gate.welfare == pytest.approx(welfare, rel=1e-12)
    assert routing.welfare == pytest.approx(welfare, rel=1e-12)
