"""Sojourn and holding costs against independent routes.

Independent references: the expected costs by numerical integration (mpmath.quad on the
smooth pieces) and direct summation (mpmath.nsum), not Sympy; the optima by a direct
maximisation of the welfare in the gate τ (σ(τ) from Lambert's W when Λ = ∞, from
mpmath.findroot of σ = e^{−uτ}Λ/(Λ + u) otherwise) and in the RR rate λ, with
mpmath.findroot on mpmath.diff at 32 digits; the closed-form linear route of
qtheory.gated.welfare; and a Lindley-recursion simulation in NumPy.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from qtheory.gated import GatedQueue, optimal_gate, optimal_routing, price_of_forgetting
from qtheory.gated.cost_derivation import derive_costs, uniqueness_conditions
from qtheory.gated.cost_optimum import optima_under
from qtheory.gated.costs import holding_cost, sojourn_cost

PHI = {
    "power:2": lambda t: t**2,
    "power:0.5": lambda t: mpmath.sqrt(t),
    "deadline:1": lambda t: 1 if t > 1 else 0,
    "exponential:0.5": lambda t: (mpmath.exp(t / 2) - 1) * 2,
}


@pytest.mark.parametrize("spec", sorted(PHI))
@pytest.mark.parametrize("u", ["0.7", "1.3"])
def test_expected_sojourn_cost_is_the_integral(spec, u):
    with mpmath.workdps(30):
        rate = mpmath.mpf(u)
        points = [0, 1, mpmath.inf]  # split at the deadline's jump
        integral = mpmath.quad(lambda t: PHI[spec](t) * rate * mpmath.exp(-rate * t), points)
        cost = sojourn_cost(spec)
        w = -mpmath.log(1 - rate / 2)  # u = μ(1 − e^{−w}) at μ = 2
        assert cost.expected(w, mpmath.mpf(2), mpmath.mpf(3)) == pytest.approx(
            3 * integral, rel=1e-20
        )


@pytest.mark.parametrize("p", ["1", "2", "1.5", "0.5"])
def test_holding_cost_is_the_queue_length_sum(p):
    with mpmath.workdps(30):
        sigma, mu, scale = mpmath.mpf("0.6"), mpmath.mpf(2), mpmath.mpf(3)
        power = mpmath.mpf(p)
        total = mpmath.nsum(lambda n: n**power * sigma ** (n - 1), [1, mpmath.inf])
        reference = scale / mu * (1 - sigma) * total
        value = holding_cost(f"power:{p}").expected(-mpmath.log(sigma), mu, scale)
        assert value == pytest.approx(reference, rel=1e-20)


def test_the_sum_sympy_names_is_the_polylog():
    """For integer p Sympy sums the series itself; the derivation's Li_{−p}(σ)/σ is it."""
    f = derive_costs()
    sigma, n = sp.Symbol("sigma", positive=True), sp.Symbol("n", integer=True, positive=True)
    exponent = sp.Symbol("p", positive=True)
    for p in (1, 2, 3):
        derived = f.holding_power.expr.subs(exponent, p)
        scale = f.holding_power.expr / sp.polylog(-exponent, sigma)  # (C/μ)(1 − σ)/σ
        for value in (sp.Rational(1, 3), sp.Rational(3, 5)):
            direct = sp.summation(n**p * value ** (n - 1), (n, 1, sp.oo))  # exact rational
            expected = (scale * sigma).subs(sigma, value) * direct
            assert sp.simplify(sp.expand_func(derived.subs(sigma, value)) - expected) == 0
    assert f.holding_sum.has(sp.Sum)


def test_uniqueness_conditions_have_the_signs_the_proof_needs():
    u, mu, theta = sp.symbols("u mu theta", positive=True)
    q, y = sp.Symbol("q", nonnegative=True), sp.Symbol("y", positive=True)
    conditions = uniqueness_conditions()
    m_power, g_power = conditions["power"]
    p = sp.Symbol("p", positive=True)
    assert sp.simplify(m_power.subs(p, 1 + q)).is_nonpositive  # p >= 1
    assert g_power.is_positive
    m_exp, g_exp = conditions["exponential"]
    above = {u: theta * (1 + y)}  # u > θ
    assert sp.factor(m_exp.subs(above)).is_nonpositive and sp.factor(g_exp.subs(above)).is_positive
    for name in ("holding:1", "holding:2"):
        m, g = conditions[name]
        below = {u: mu / (1 + y)}  # 0 < u < μ
        assert sp.factor(m.subs(below)).is_nonpositive
        assert sp.factor(g.subs(below)).is_positive, name


def lambert_root(tau):
    """σ of D/M/1 at μ = 1, gap τ > 1: σ = −W(−τ e^{−τ})/τ (principal branch)."""
    return -mpmath.lambertw(-tau * mpmath.exp(-tau)) / tau


def poisson_root(tau, arrival):
    """σ of the GA queue at μ = 1: the root of σ = e^{−(1−σ)τ} Λ/(Λ + 1 − σ) in (0, 1)."""

    def residual(s):
        return mpmath.exp(-(1 - s) * tau) * arrival / (arrival + 1 - s) - s

    return mpmath.findroot(residual, (mpmath.mpf("1e-30"), 1 - mpmath.mpf("1e-12")),
                           solver="anderson")  # fmt: skip


CLOSED_FORMS = {  # E[φ(W)], W ~ Exp(u): textbook Laplace integrals (the first test checks them)
    "power:2": lambda u: 2 / u**2,
    "deadline:1": lambda u: mpmath.exp(-u),
    "exponential:0.5": lambda u: 1 / (u - mpmath.mpf(1) / 2) if u > 0.5 else mpmath.inf,
}


def expected_cost(spec, u):
    return CLOSED_FORMS[spec](u)


def maximise(f, grid):
    """The root of f' (mpmath.diff) bracketed by the best grid point's neighbours."""
    grid = [x for x in grid if mpmath.isfinite(f(x))]
    best = max(range(1, len(grid) - 1), key=lambda k: f(grid[k]))
    bracket = (grid[best - 1], grid[best + 1])
    x = mpmath.findroot(lambda t: mpmath.diff(f, t), bracket, solver="anderson")
    return x, f(x)


DIRECT = [  # (spec, Λ, R) with μ = C = 1
    ("power:2", math.inf, 4),
    ("power:2", 1.5, 4),
    ("deadline:1", math.inf, 1.8),  # R < C(1 + μd): RR's optimum is interior
    ("exponential:0.5", math.inf, 4),
    ("exponential:0.5", 1.5, 4),
]


@pytest.mark.parametrize(("spec", "arrival", "reward"), DIRECT)
def test_optima_match_a_direct_maximisation(spec, arrival, reward):
    queue = GatedQueue(arrival, 1, reward, 1)
    with mpmath.workdps(32):
        beta = 0 if math.isinf(arrival) else mpmath.mpf(1) / arrival
        reward = mpmath.mpf(str(reward))  # the decimal the queue reads, not the binary float

        def ga(tau):
            s = lambert_root(tau) if beta == 0 else poisson_root(tau, mpmath.mpf(arrival))
            return (reward - expected_cost(spec, 1 - s)) / (tau + beta)

        low = max(1 - beta, 0) + mpmath.mpf("0.05")
        tau, s_ga = maximise(ga, [low + k / mpmath.mpf(4) for k in range(40)])

        def rr(lam):
            return lam * (reward - expected_cost(spec, 1 - lam))

        lam, s_rr = maximise(rr, [k / mpmath.mpf(50) for k in range(1, 50)])
    gate, routing, pof = optima_under(queue, sojourn_cost(spec))
    assert gate.welfare == pytest.approx(float(s_ga), rel=1e-12)
    assert gate.gate == pytest.approx(float(tau), rel=1e-8)
    assert routing.welfare == pytest.approx(float(s_rr), rel=1e-12)
    assert routing.rate == pytest.approx(float(lam), rel=1e-8)
    assert pof == pytest.approx(float(s_ga / s_rr), rel=1e-12)
    precise, _, _ = optima_under(queue, sojourn_cost(spec), dps=25)
    with mpmath.workdps(32):
        assert abs(precise.welfare - s_ga) < mpmath.mpf(10) ** -24 * s_ga


def test_power_one_and_holding_one_are_the_linear_model():
    """At Λ = ∞, μ = C = 1, R = 2 PoF = 2.1761284652...; the general route (grid and
    golden section) against the closed form of qtheory.gated.welfare."""
    queue = GatedQueue(math.inf, 1, 2, 1)
    linear = price_of_forgetting(queue, dps=30)
    assert mpmath.nstr(linear, 11) == "2.1761284652"
    for keyword in ({"sojourn_cost": "power:1"}, {"holding_cost": "power:1"}):
        assert abs(price_of_forgetting(queue, dps=30, **keyword) - linear) < 1e-28
        for params in [(2.0, 1.0, 3.0, 1.0), (0.3, 1.0, 50.0, 1.0), (5.0, 2.0, 1e4, 1.0)]:
            q = GatedQueue(*params)
            for general, closed in (
                (optimal_gate(q, **keyword), optimal_gate(q)),
                (optimal_routing(q, **keyword), optimal_routing(q)),
            ):
                assert general.welfare == pytest.approx(closed.welfare, rel=1e-12)
                assert general.at_boundary == closed.at_boundary


def lindley_sojourns(gap, service_rate, customers, rng):
    """Sojourn times of a FIFO queue fed every ``gap`` (D/M/1): W_n = S_n + waiting,
    waiting = P_{n−1} − min_{k<n} P_k with P the partial sums of S_k − gap."""
    service = rng.exponential(1 / service_rate, customers)
    steps = np.concatenate(([0.0], np.cumsum(service[:-1] - gap)))
    return service + steps - np.minimum.accumulate(steps)


def test_simulated_sojourn_cost_at_the_gate_optimum():
    """Λ = ∞, μ = C = 1, R = 4, cost W²: at τ*, a Lindley simulation's mean of W² and its
    throughput 1/τ give the welfare the optimiser reports.  Tolerance 4 standard errors of
    50 batch means (false-failure rate about 1e-4 for the normal approximation)."""
    queue = GatedQueue(math.inf, 1, 4, 1)
    gate, _, _ = optima_under(queue, sojourn_cost("power:2"))
    rng = np.random.default_rng(20261201)
    sojourns = lindley_sojourns(gate.gate, 1.0, 2_000_000, rng)[10_000:]
    batches = (sojourns[: len(sojourns) // 50 * 50] ** 2).reshape(50, -1).mean(axis=1)
    mean, error = batches.mean(), batches.std(ddof=1) / math.sqrt(50)
    welfare = (4 - mean) / gate.gate
    assert abs(welfare - gate.welfare) < 4 * error / gate.gate


def test_nobody_admitted_and_pof_undefined():
    queue = GatedQueue(math.inf, 1, 2, 1)  # E[W²] = 2/μ² = R already for a customer alone
    gate, routing, pof = optima_under(queue, sojourn_cost("power:2"))
    assert (gate.gate, gate.welfare, gate.attained) == (math.inf, 0.0, False)
    assert (routing.rate, routing.welfare, pof) == (0.0, 0.0, None)
    with pytest.raises(ValueError, match="price_of_forgetting is undefined"):
        price_of_forgetting(queue, sojourn_cost="power:2")


def test_bounded_cost_supremum_is_reported_not_attained():
    """Deadline cost, Λ = 3 > μ = 1, R = 3, C = 1: R − C − μCd > 0, so both welfares
    increase up to the unstable load; the supremum μ(R − C) = 2 is not attained, and GA's
    gate tends to 1/μ − 1/Λ."""
    gate, routing, pof = optima_under(GatedQueue(3, 1, 3, 1), sojourn_cost("deadline:1"))
    assert not gate.attained and not routing.attained
    assert gate.welfare == pytest.approx(2, rel=1e-14)
    assert routing.welfare == pytest.approx(2, rel=1e-14)
    assert gate.gate == pytest.approx(2 / 3, rel=1e-8)
    assert pof == pytest.approx(1)


@pytest.mark.parametrize(
    "spec",
    ["power:2", "power:0.5", "power:3", "deadline:0.5", "deadline:2", "exponential:0.3"],
)
@pytest.mark.parametrize(("arrival", "reward"), [(math.inf, 6), (1.5, 6), (0.8, 12), (3, 2.5)])
def test_gated_admission_never_loses_to_random_routing(spec, arrival, reward):
    """The dominance theorem on every family (finite-range evidence for the numerics)."""
    gate, routing, pof = optima_under(GatedQueue(arrival, 1, reward, 1), sojourn_cost(spec))
    assert gate.welfare >= routing.welfare * (1 - 1e-14)
    assert pof is None or pof >= 1 - 1e-14


def test_a_callable_matches_its_built_in_family():
    queue = GatedQueue(1.5, 1, 4, 1)
    for function, spec in ((lambda t: t * t, "power:2"), (lambda t: float(t > 1), "deadline:1")):
        built_in, _, pof = optima_under(queue, sojourn_cost(spec))
        called, _, called_pof = optima_under(queue, sojourn_cost(function))
        assert called.welfare == pytest.approx(built_in.welfare, rel=1e-10)
        assert called.gate == pytest.approx(built_in.gate, rel=1e-5)
        assert called_pof == pytest.approx(pof, rel=1e-10)
        assert called.evidence.startswith("numerical")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sojourn_cost": "exponential:1"}, "theta < service_rate"),
        ({"sojourn_cost": "cubic"}, "sojourn_cost must be linear or one of"),
        ({"sojourn_cost": "power:0"}, "needs X > 0"),
        ({"holding_cost": "deadline:1"}, "holding_cost must be linear or one of power:X"),
        ({"sojourn_cost": lambda t: -t}, "must be nondecreasing"),
        ({"sojourn_cost": "power:2", "holding_cost": "power:2"}, "not both"),
    ],
)
def test_bad_costs_are_refused_naming_the_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message):
        optimal_gate(GatedQueue(math.inf, 1, 4, 1), **kwargs)


def test_a_callable_is_float64_only():
    with pytest.raises(ValueError, match="dps applies to the built-in"):
        optimal_gate(GatedQueue(math.inf, 1, 4, 1), sojourn_cost=lambda t: t, dps=20)
