"""Certified optimum of the gated queue against independent routes: the mpmath optimum
of qtheory.gated.welfare at higher precision, the closed forms of the RR optimum, and a
Sympy proof of the identities that make the optimum unique."""

import dataclasses
import json
import subprocess
import sys
from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import arb, fmpq

from qtheory.gated import GatedQueue, optimal_gate, optimal_routing
from qtheory.gated.certified import (
    certified_asymptotics,
    certified_dominance,
    certified_optimum,
    point_ball,
    uniqueness_identities,
    welfare_terms,
)
from qtheory.gated.derivation import derive
from qtheory.model.gated import GatedParameters
from qtheory.verify import check_certificate

CASES = [
    ("inf", 1, 2, 1),
    ("inf", 1, "1.01", 1),
    (2, 1, 3, 1),
    ("0.6", "1.7", "2.3", "0.9"),  # gate constraint binds
    (1, 1, 5, 1),  # Λ = μ
    ("0.9", 1, "1.5", 1),  # Λ < μ, interior optimum
    ("inf", 1, "1.00000000000000000001", 1),
    ("inf", 1, "1e20", 1),
    (2, 1, "1e20", 1),
    # τ* ≈ 1e-15 just above the gate bound τ = 0 (Λ a hair below μ, ν ≈ 1e12), and
    # τ* ≈ 4e-12 just above the stability bound 1/μ − 1/Λ ≈ 3e-12 (Λ a hair above μ):
    # the bracket of w* must be tight relative to τ*/τ'(w*), not to w* (found by fuzzing)
    ("542.01945798", "542.02", "5911220988.16132984022729788568687502306", "3.204"),
    ("0.28472000000028472", "0.28472", "484581343073897162124192193.66289688114", "1.3797"),
]


def proof_forms(w, mu, beta, reward, cost):
    """σ, u = μ(1 − σ), y = βu, D = τ + β, N = R − C/u and h + k, written here from the
    module docstring's definitions (not from the code under test)."""
    sigma = sp.exp(-w)
    u = mu * (1 - sigma)
    y = beta * u
    d = (w - sp.log(1 + y)) / u + beta
    n = reward - cost / u
    hk = sp.exp(w) - 1 - w + sp.log(1 + y) - y / (1 + y)
    return sigma, u, y, d, n, hk


def test_the_uniqueness_identities_hold():
    """D' = μσ(h + k)/u², S' = μσ G/(u²D²) and G' = −N (h + k)' (module docstring)."""
    w, mu, beta, reward, cost = sp.symbols("w mu beta R C", positive=True)
    sigma, u, y, d, n, hk = proof_forms(w, mu, beta, reward, cost)
    g = cost * d - n * hk
    assert sp.simplify(sp.diff(d, w) - mu * sigma * hk / u**2) == 0
    assert sp.simplify(sp.diff(n / d, w) - mu * sigma * g / (u**2 * d**2)) == 0
    slope = sp.exp(w) - 1 + beta**2 * u * mu * sigma / (1 + y) ** 2
    assert sp.simplify(sp.diff(g, w) + n * slope) == 0
    assert [sp.simplify(lhs - rhs) for lhs, rhs in uniqueness_identities()] == [0, 0, 0]


@pytest.mark.parametrize("params", CASES)
def test_enclosures_contain_the_mpmath_optimum(params):
    queue = GatedQueue(*params)
    opt = certified_optimum(queue, dps=40)
    gate, routing = optimal_gate(queue, dps=60), optimal_routing(queue, dps=60)
    reference = {
        "root": gate.root,
        "gate": gate.gate,
        "throughput": gate.throughput,
        "welfare_ga": gate.welfare,
        "rate_rr": routing.rate,
        "welfare_rr": routing.welfare,
    }
    with mpmath.workdps(70):
        reference["price_of_forgetting"] = gate.welfare / routing.welfare
        for name, enclosure in opt.values().items():
            value = reference[name]
            if value == 0:
                assert (enclosure.lower, enclosure.upper) == ("0", "0")  # exactly zero
            else:
                assert enclosure.contains(mpmath.nstr(value, 60)), name
                assert enclosure.relative_width <= 1e-40, name
    assert opt.at_boundary == gate.at_boundary
    assert opt.routing_at_boundary == routing.at_boundary


def test_the_routing_case_split():
    """Λ = 0.5, μ = C = 1, ν = 10: λ* = Λ and S_RR* = 0.5 (10 − 1/0.5) = 4, not the
    interior form C(√ν − 1)² ≈ 4.675."""
    opt = certified_optimum(GatedQueue("0.5", 1, 10, 1), dps=30)
    assert opt.routing_at_boundary and opt.welfare_rr.contains(4)
    assert not opt.welfare_rr.contains(str((mpmath.sqrt(10) - 1) ** 2))
    assert opt.at_boundary and opt.price_of_forgetting.contains(1)


def test_extremes_of_nu():
    """ν − 1 = 1e-30 (σ* ≈ 1e-32) and ν = 1e30 (σ* ≈ 1 − 1e-15), Λ = ∞ and Λ = 2."""
    tiny = certified_optimum(GatedQueue("inf", 1, "1.000000000000000000000000000001", 1), dps=50)
    assert float(tiny.root.midpoint) < 1e-31 and tiny.price_of_forgetting.midpoint > 1e28
    for arrival in ("inf", "2"):
        large = certified_optimum(GatedQueue(arrival, 1, "1e30", 1), dps=50)
        assert 0 < large.price_of_forgetting.midpoint - 1 < 1e-14
        assert large.gate.relative_width <= 1e-50


@pytest.mark.parametrize("epsilon", ["1e-30", "1e-10", "1e-2"])
def test_the_maximiser_takes_few_steps_in_light_traffic(monkeypatch, epsilon):
    """Near ν = 1 the gate is long and G is dominated by e^w: Newton on G itself crawled
    (71 evaluations of G at ε = 1e-30), Newton on log(C d) − log(n hk) takes a few; the
    certificate still holds (the independent checker re-decides every sign)."""
    from fractions import Fraction

    from qtheory.gated import certified

    calls = []
    terms = certified.welfare_terms
    monkeypatch.setattr(certified, "welfare_terms", lambda w, p: calls.append(w) or terms(w, p))
    opt = certified_optimum(GatedQueue("inf", 1, str(1 + Fraction(epsilon)), 1), dps=20)
    assert len(calls) <= 20
    assert opt.gate.relative_width <= 1e-20
    check_certificate(opt.certificate)  # raises unless every step re-checks


@pytest.mark.parametrize(
    "queue",
    [
        ("inf", "253/5000", "1778950000000000000000000/253", "757/1000"),
        ("17199/100", "91/2", "54940000000000000000/13", "287/1000"),
    ],
)
def test_the_maximiser_stops_where_the_sign_of_g_is_undecided(queue):
    """At dps = 850 Newton lands within G's rounding of the root, where no sign moves the
    bracket's far end: bisecting on ran past its step cap (found by review), so the
    precision rose beyond the dps limit.  The point is the root to that rounding, and
    the certificate (re-checked independently) holds."""
    opt = certified_optimum(GatedQueue(*queue), dps=850)
    assert opt.gate.relative_width <= 1e-850
    check_certificate(opt.certificate)


def test_the_certificate_is_json_and_names_its_checker():
    opt = certified_optimum(GatedQueue("inf", 1, 2, 1), dps=20)
    text = json.dumps(opt.certificate)
    assert json.loads(text)["checker"] == "gated.optimum"
    assert opt.certificate["data"]["parameters"] == {
        "arrival_rate": "inf",
        "service_rate": "1",
        "reward": "2",
        "cost": "1",
    }


def test_parameters_are_read_as_printed():
    p = GatedQueue(0.1, 0.3, 2.5, 0.7).exact_parameters()
    assert (str(p.arrival), str(p.mu), str(p.reward), str(p.cost)) == (
        "1/10",
        "3/10",
        "5/2",
        "7/10",
    )


def test_exact_parameters_are_the_gated_record_in_rationals():
    """One record, three number types: the exact one has fmpq fields, β = 0 for Λ = ∞,
    and Λ, Cε = Rμ − C and ν derived from the fields equal the rationals computed here
    with fractions.Fraction from the decimals as typed."""
    p = GatedQueue(0.6, "1.7", "2.3", "0.9").exact_parameters()
    arrival, mu, reward, cost = (Fraction(t) for t in ("0.6", "1.7", "2.3", "0.9"))
    assert isinstance(p, GatedParameters) and all(
        isinstance(getattr(p, f.name), fmpq) for f in dataclasses.fields(p)
    )
    rational = {
        "beta": 1 / arrival, "mu": mu, "reward": reward, "cost": cost, "arrival": arrival,
        "epsilon": reward * mu / cost - 1, "net": reward * mu - cost, "nu": reward * mu / cost,
    }  # fmt: skip
    for name, value in rational.items():
        assert str(getattr(p, name)) == str(value), name
    assert p.to_json() == {"arrival_rate": "3/5", "service_rate": "17/10", "reward": "23/10",
                           "cost": "9/10"}  # fmt: skip
    unlimited = GatedQueue("inf", 1, 3, 2).exact_parameters()
    assert (unlimited.beta, unlimited.arrival, unlimited.to_json()["arrival_rate"]) == (
        0,
        None,
        "inf",
    )
    assert GatedQueue("inf", 1, "0.5", 1).exact_parameters().epsilon == fmpq(-1, 2)  # no check
    with pytest.raises(ValueError, match="Naor's ratio nu.*got nu = 1/2$"):
        GatedQueue("inf", 1, "0.5", 1).exact_parameters(worthwhile=True)


def test_the_gated_model_imports_no_flint():
    """python-flint is imported by exact_parameters, not by importing the model."""
    code = "import sys, qtheory.model.gated as g; print('flint' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("queue", "dps", "message"),
    [
        (GatedQueue("inf", 1, 1, 1), 10, "nu"),
        (GatedQueue("inf", 1, "0.5", 1), 10, "nu"),
        (GatedQueue("inf", 1, 2, 1), 0, "dps"),
        (GatedQueue("inf", 1, 2, 1), None, "dps"),
        (GatedQueue("inf", 1, 2, 1), 2.5, "dps"),
        (GatedQueue("inf", 1, 2, 1), 5000, "dps"),
    ],
)
def test_bad_input_is_a_value_error(queue, dps, message):
    with pytest.raises(ValueError, match=message):
        certified_optimum(queue, dps=dps)


def test_a_queue_is_required():
    with pytest.raises(TypeError, match="GatedQueue"):
        certified_optimum((1, 1, 2, 1), dps=10)


def _random_queues(count: int = 24):
    """Queues with Λ in (0.1, 20) or ∞, μ, C in (0.2, 5), ν in (1 + 1e-6, 1e6), as short
    decimals (fixed seed)."""
    rng = np.random.default_rng(20261130)
    for _ in range(count):
        arrival = "inf" if rng.random() < 0.2 else f"{10 ** rng.uniform(-1, 1.3):.4g}"
        mu, cost = (f"{10 ** rng.uniform(-0.7, 0.7):.4g}" for _ in range(2))
        nu = 1 + 10 ** rng.uniform(-6, 6)
        reward = f"{nu * float(cost) / float(mu):.6g}"
        if float(reward) * float(mu) <= float(cost):
            continue
        yield arrival, mu, reward, cost


@pytest.mark.parametrize("params", list(_random_queues()))
def test_random_queues_match_mpmath_and_their_certificates_hold(params):
    queue = GatedQueue(*params)
    opt = certified_optimum(queue, dps=25)
    check_certificate(opt.certificate)
    gate = optimal_gate(queue, dps=40)
    with mpmath.workdps(50):
        for value, enclosure in ((gate.welfare, opt.welfare_ga), (gate.root, opt.root)):
            assert enclosure.contains(mpmath.nstr(value, 45))
        if gate.gate == 0:
            assert opt.at_boundary
        else:
            assert opt.gate.contains(mpmath.nstr(gate.gate, 45))


def test_asymptotic_grids_and_dominance():
    light = certified_asymptotics("light", ("inf",), (1, 30), constant="3/2")
    heavy = certified_asymptotics("heavy", ("2",), (1, 30), constant="5/2")
    assert light.passed and heavy.passed
    assert [round(p[2].midpoint, 3) for p in light.points] == [0.482, 0.929]
    tight = certified_asymptotics("heavy", ("2",), (1,), constant="1")  # 1.95 > 1 at ν = 10
    assert not tight.passed
    passed, certificate = certified_dominance(["0.5", "0.999"], ["inf", "0.5"])
    assert passed and ["1/2", "1/2"] not in certificate["data"]["points"]  # τ = 0 skipped
    with pytest.raises(ValueError, match="regime"):
        certified_asymptotics("medium", ("inf",), (1,), constant="1")
    with pytest.raises(ValueError, match="arrivals must exceed"):
        certified_asymptotics("heavy", ("0.5",), (1,), constant="1")


OVERLAP_QUEUES = [
    ("inf", 1, 2, 1),
    ("inf", 1, "1." + "0" * 29 + "1", 1),  # ν − 1 = 1e-30, Λ = ∞
    ("2", 1, 3, 1),
    ("0.9", 1, "1.5", 1),  # Λ < μ
    ("3", 1, "1e12", 1),
    ("inf", 1, "1e20", 1),
]


@pytest.mark.parametrize("queue", OVERLAP_QUEUES)
def test_hand_written_terms_enclose_what_the_derivation_gives(queue):
    """welfare_terms writes τ, G, G' and τ' in the cancellation-free form of the
    uniqueness proof (its docstring says why they are not the generated evaluators); the
    derivation's Formulas for them (τ(σ), G = u²/(μσ)(N'D − ND'), G', τ'), compiled to
    Arb, give overlapping balls at w* (from the certificate), at its bracket and at
    small and large w, including ν − 1 = 1e-30 and Λ = ∞."""
    f = derive()
    formulas = {"tau": f.gate_of_root, "S": f.welfare_ga, "G": f.welfare_ga_sign,
                "G1": f.welfare_ga_sign_slope, "D1": f.gate_slope}  # fmt: skip
    q = GatedQueue(*queue)
    opt = certified_optimum(q, dps=30)
    p = q.exact_parameters()
    saved = flint.ctx.prec
    try:
        flint.ctx.prec = opt.certificate["data"]["precision_bits"]
        low, high = (point_ball(c) for c in opt.certificate["data"]["bracket"])
        args = {"mu": arb(p.mu), "beta": arb(p.beta), "R": arb(p.reward), "C": arb(p.cost)}
        for w in (low, low.union(high), arb("1/100"), arb(40)):
            hand = welfare_terms(w, p)
            for name, formula in formulas.items():
                ball = formula.arb(w, *(args[str(a)] for a in formula.args[1:]))
                assert ball.is_finite() and hand[name].is_finite()
                assert ball.overlaps(hand[name]), (name, w, ball, hand[name])
    finally:
        flint.ctx.prec = saved


def test_the_derivation_s_sign_function_is_the_proof_s():
    """The derivation's G, G' and τ' equal the hand-written forms of uniqueness_identities:
    G = C D − N(h + k), G' = −N(e^w − 1 + β²uμσ/(1 + βu)²), τ' = μσ(h + k)/u²."""
    f = derive()
    w, mu, beta, reward, cost = f.welfare_ga_sign.args
    sigma, u, y, d, n, hk = proof_forms(w, mu, beta, reward, cost)
    assert sp.simplify(f.welfare_ga_sign.expr - (cost * d - n * hk)) == 0
    slope = -n * (sp.exp(w) - 1 + beta**2 * u * mu * sigma / (1 + y) ** 2)
    assert sp.simplify(f.welfare_ga_sign_slope.expr - slope) == 0
    assert sp.simplify(f.gate_slope.expr - mu * sigma * hk / u**2) == 0
