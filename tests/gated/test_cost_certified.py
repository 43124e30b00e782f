"""Certified optimum under the built-in costs with a uniqueness argument, against
independent routes: the mpmath optimiser of qtheory.gated.cost_optimum at 40 digits, a
direct mpmath maximisation over the gate τ (the root solved from the GI/M/1 equation, the
textbook costs E[C W^p] = CΓ(p+1)/u^p, E[C(e^{θW} − 1)/θ] = C/(u − θ) and the holding
series Σ n² σ^{n−1} = (1 + σ)/(1 − σ)³), the linear certified optimum, and the Sympy
conditions of qtheory.gated.cost_derivation."""

import json
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from flint import arb, fmpq

from qtheory.core.limits import raised
from qtheory.gated import GatedQueue
from qtheory.gated.certified import certified_optimum
from qtheory.gated.cost_certified import certified_cost_optimum, cost_and_slope
from qtheory.gated.cost_derivation import derive_costs, uniqueness_conditions
from qtheory.gated.cost_optimum import optima_under
from qtheory.gated.costs import holding_cost, sojourn_cost
from qtheory.verify import check_certificate

COSTS = {
    "power:2": sojourn_cost("power:2"),
    "power:5/2": sojourn_cost("power:2.5"),
    "exponential:1/2": sojourn_cost("exponential:0.5"),
    "holding:2": holding_cost("power:2"),
}
#: (Λ, μ, R, C), cost: Λ = ∞, 3/2 and 1/2; R = 50 at Λ = 1/2 makes τ* = 0 and λ* = Λ.
CASES = [
    (("inf", 1, 4, 1), "power:2"),
    (("inf", 1, 4, 1), "exponential:1/2"),
    (("inf", 1, 4, 1), "holding:2"),
    (("1.5", 1, 4, 1), "power:2"),
    (("1.5", 1, 4, 1), "holding:2"),
    (("0.5", 1, 4, 1), "exponential:1/2"),
    (("0.5", 1, 4, 1), "power:5/2"),
    (("0.5", 1, 50, 1), "power:2"),
    (("0.5", 1, 50, 1), "holding:2"),
]


def _cost(name, u, sigma, mu, c):
    """The expected cost of one admitted customer, from the textbook laws."""
    if name == "holding:2":
        return c / mu * (1 - sigma) * (1 + sigma) / (1 - sigma) ** 3
    if name == "exponential:1/2":
        return c / (u - mpmath.mpf(1) / 2) if u > mpmath.mpf(1) / 2 else mpmath.inf
    p = mpmath.mpf(2) if name == "power:2" else mpmath.mpf(5) / 2
    return c * mpmath.gamma(p + 1) / u**p


def _direct(params, name):
    """(τ*, S_GA*, λ*, S_RR*) by mpmath at 40 digits: GA's welfare as a function of τ,
    σ(τ) from σ = e^{−μ(1−σ)τ}Λ/(Λ + μ(1 − σ)), maximised by a root of dS/dτ (or τ* = 0
    where dS/dτ < 0 at 0); RR's λ(R − g) maximised by a root of its derivative (or λ* = Λ)."""
    arrival, mu, reward, c = (mpmath.inf if x == "inf" else mpmath.mpf(x) for x in params)
    beta = 0 if arrival == mpmath.inf else 1 / arrival

    def sigma_of(tau):
        # f(x) = A*(μ(1 − x)) − x is convex with f(0) > 0: Newton from 0 rises to σ
        law = lambda s: mpmath.exp(-s * tau) / (1 + beta * s)  # noqa: E731
        return mpmath.findroot(lambda x: law(mu * (1 - x)) - x, mpmath.mpf(0))

    def welfare_ga(tau):
        sigma = sigma_of(tau)
        u = mu * (1 - sigma)
        return (reward - _cost(name, u, sigma, mu, c)) / (tau + beta)

    def welfare_rr(lam):
        return lam * (reward - _cost(name, mu - lam, lam / mu, mu, c))

    with mpmath.workdps(40):
        start = 0 if beta * mu > 1 else 1 / mu - beta + mpmath.mpf("1e-3")
        if beta * mu > 1 and mpmath.diff(welfare_ga, mpmath.mpf("1e-30")) < 0:
            tau = mpmath.mpf(0)
        else:
            grid = [start + mpmath.mpf(k) / 20 for k in range(1, 200)]
            best = max(grid, key=welfare_ga)
            tau = mpmath.findroot(lambda t: mpmath.diff(welfare_ga, t), best)
        top = min(arrival, mu - (mpmath.mpf(1) / 2 if name.startswith("exponential") else 0))
        lam = top if arrival < mu and mpmath.diff(welfare_rr, top) >= 0 else None
        if lam is None:
            grid = [top * k / 200 for k in range(1, 200)]
            lam = mpmath.findroot(lambda x: mpmath.diff(welfare_rr, x), max(grid, key=welfare_rr))
        return tau, welfare_ga(tau), lam, welfare_rr(lam)


@pytest.mark.parametrize(("params", "name"), CASES)
def test_enclosures_contain_both_mpmath_optima(params, name):
    queue, cost = GatedQueue(*params), COSTS[name]
    opt = certified_cost_optimum(queue, cost, dps=30)
    gate, routing, pof = optima_under(queue, cost, dps=40)
    reference = {
        "root": gate.root,
        "gate": gate.gate,
        "throughput": gate.throughput,
        "welfare_ga": gate.welfare,
        "rate_rr": routing.rate,
        "welfare_rr": routing.welfare,
        "price_of_forgetting": pof,
    }
    for key, enclosure in opt.values().items():
        assert enclosure.relative_width <= 1e-30 or enclosure.to_json()["width"] == "0", key
        assert enclosure.contains(mpmath.nstr(reference[key], 40)), key
    assert (opt.at_boundary, opt.routing_at_boundary) == (gate.at_boundary, routing.at_boundary)
    # the direct route (its numerical derivatives agree to about 1e-17 relative)
    tau, s_ga, lam, s_rr = _direct(params, name)
    for key, value in (("gate", tau), ("welfare_ga", s_ga), ("rate_rr", lam), ("welfare_rr", s_rr)):
        assert abs(opt.values()[key].midpoint - float(value)) <= 1e-14 * max(1, abs(value)), key
    check_certificate(json.loads(json.dumps(opt.certificate)))


@pytest.mark.parametrize(
    "params",
    [
        ("inf", 1, 2, 1),
        (2, 1, 3, 1),
        ("0.6", "1.7", "2.3", "0.9"),
        ("0.9", 1, "1.5", 1),
        ("inf", 1, "1e20", 1),
        ("0.2", 1, 3, 1),
    ],  # fmt: skip
)
@pytest.mark.parametrize("cost", [sojourn_cost("power:1"), holding_cost("power:1")])
def test_the_linear_cost_reproduces_the_linear_certified_optimum(params, cost):
    queue = GatedQueue(*params)
    linear, general = certified_optimum(queue, dps=30), certified_cost_optimum(queue, cost, dps=30)
    for key, enclosure in linear.values().items():
        low, high = (Fraction(x) for x in (enclosure.lower, enclosure.upper))
        other = general.values()[key]
        assert Fraction(other.lower) <= high and low <= Fraction(other.upper), key
    assert (general.at_boundary, general.routing_at_boundary) == (
        linear.at_boundary,
        linear.routing_at_boundary,
    )


def test_the_width_follows_dps():
    queue = GatedQueue("1.5", 1, 4, 1)
    for dps in (5, 60):
        opt = certified_cost_optimum(queue, COSTS["exponential:1/2"], dps=dps)
        assert all(e.relative_width <= 10.0**-dps for e in opt.values().values())
        assert opt.certificate["data"]["dps"] == dps
    with raised(dps=3000):
        wide = certified_cost_optimum(queue, COSTS["power:2"], dps=300)
    assert wide.gate.relative_width <= 1e-300


@pytest.mark.parametrize(
    ("cost", "message"),
    [
        (sojourn_cost("deadline:1"), "sojourn_cost deadline:1 has no uniqueness argument"),
        (sojourn_cost("power:0.5"), "sojourn_cost power:0.5 has no uniqueness argument"),
        (holding_cost("power:3"), "holding_cost power:3 has no uniqueness argument"),
        (sojourn_cost(lambda t: t), "no uniqueness argument: its optimum is numerical"),
        (sojourn_cost("exponential:1"), "theta < service_rate"),
    ],
)
def test_families_without_a_uniqueness_argument_are_refused(cost, message):
    with pytest.raises(ValueError, match=message):
        certified_cost_optimum(GatedQueue("inf", 1, 4, 1), cost)


def test_nobody_admitted_is_refused():
    """E[C W²] = 2 at u = μ = 1: R = 2 earns nothing even for a customer alone."""
    with pytest.raises(ValueError, match="nobody is admitted"):
        certified_cost_optimum(GatedQueue("inf", 1, 2, 1), COSTS["power:2"])
    with pytest.raises(ValueError, match="nobody is admitted"):
        certified_cost_optimum(GatedQueue("inf", 1, "1.9", 1), COSTS["exponential:1/2"])


def test_bad_arguments():
    with pytest.raises(ValueError, match="dps"):
        certified_cost_optimum(GatedQueue("inf", 1, 4, 1), COSTS["power:2"], dps=0)
    with pytest.raises(TypeError, match="GatedQueue"):
        certified_cost_optimum(("inf", 1, 4, 1), COSTS["power:2"])
    with pytest.raises(TypeError, match="CustomerCost"):
        certified_cost_optimum(GatedQueue("inf", 1, 4, 1), "power:2")


def test_a_small_service_rate_needs_no_nu_above_one():
    """μ = 10, C = 1, R = 0.05 (ν = 1/2): E[C W²] = 2/μ² = 0.02 < R, so admitting pays."""
    opt = certified_cost_optimum(GatedQueue("inf", 10, "0.05", 1), COSTS["power:2"], dps=20)
    gate, _, pof = optima_under(GatedQueue("inf", 10, "0.05", 1), COSTS["power:2"], dps=30)
    assert opt.gate.contains(mpmath.nstr(gate.gate, 30))
    assert opt.price_of_forgetting.contains(mpmath.nstr(pof, 30))


@pytest.mark.parametrize("name", ["power", "exponential", "holding:1", "holding:2"])
def test_the_slopes_are_the_derivations(name):
    """g and m = u²|g'| of cost_and_slope against Sympy's g (derive_costs), and m' of a
    central difference against uniqueness_conditions(), which must be <= 0, with g'' >= 0."""
    u, mu, c, p, theta = sp.symbols("u mu C p theta", positive=True)
    formulas = derive_costs()
    values = {mu: 1, c: 3}
    if name == "power":
        g, cost, values[p] = formulas.sojourn["power"].expr, sojourn_cost("power:2.5"), 2.5
    elif name == "exponential":
        g, cost, values[theta] = formulas.sojourn["exponential"].expr, COSTS["exponential:1/2"], 0.5
    else:
        power = int(name[-1])
        sigma = sp.Symbol("sigma", positive=True)
        g = sp.expand_func(formulas.holding_power.expr.subs(sp.Symbol("p", positive=True), power))
        g, cost = g.subs(sigma, 1 - u / mu), holding_cost(f"power:{power}")
    m_prime, g_second = uniqueness_conditions()[name]
    params = GatedQueue("inf", 1, 10, 3).exact_parameters()
    for numerator in (6, 75, 9):
        x = fmpq(numerator, 10 if numerator < 10 else 100)
        at = {**values, u: sp.Rational(int(x.p), int(x.q))}
        mine = [arb(value) for value in cost_and_slope(x, cost, params)]
        assert abs(float(mine[0].mid()) - float(g.subs(at))) < 1e-12
        assert abs(float(mine[1].mid()) - float((-(u**2) * sp.diff(g, u)).subs(at))) < 1e-12
        h = fmpq(1, 10**6)
        central = (arb(cost_and_slope(x + h, cost, params)[1])
                   - arb(cost_and_slope(x - h, cost, params)[1])) / (2 * arb(h))  # fmt: skip
        assert abs(float(central.mid()) - float(m_prime.subs(at))) < 1e-6
        assert float(m_prime.subs(at)) <= 0 and float(g_second.subs(at)) >= 0
