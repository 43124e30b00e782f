"""Every claim record of the gated model passes, says honestly what kind of evidence
decides it, and its certificate is accepted by the independent checker."""

import json
import math
from functools import cache

import pytest

from qtheory.core.claims import Evidence, Origin
from qtheory.gated.claims import gated_claims
from qtheory.verify import check_certificate
from qtheory.verify.statements import certificate

KINDS = {
    "gated.dominance": Evidence.CERTIFIED,
    "gated.dominance_identity": Evidence.IDENTITY,
    "gated.pof_identity": Evidence.IDENTITY,
    "gated.unique_optimum": Evidence.IDENTITY,
    "gated.pof_at_least_one": Evidence.CERTIFIED,
    "gated.optimal_gate": Evidence.CERTIFIED,
    "gated.pof_light_rate": Evidence.CERTIFIED,
    "gated.pof_unbounded": Evidence.FINITE_RANGE,
    "gated.pof_heavy_rate": Evidence.CERTIFIED,
    "gated.heavy_traffic": Evidence.FINITE_RANGE,
    "gated.embedded_chain": Evidence.NUMERICAL,
}


@cache
def claims():
    return {claim.name: claim for claim in gated_claims(quick=True)}


@pytest.mark.parametrize("name", KINDS)
def test_claim_holds_with_its_kind(name):
    claim = claims()[name]
    assert claim.passed, claim
    assert claim.kind is KINDS[name]


def test_every_claim_is_tested():
    assert sorted(claims()) == sorted(KINDS)


@pytest.mark.parametrize("name", [n for n, k in KINDS.items() if k is Evidence.CERTIFIED])
def test_certificates_hold_after_a_json_round_trip(name):
    claim = claims()[name]
    written = certificate(name, claim.certificate["checker"], claim.certificate["data"])
    check_certificate(json.loads(json.dumps(written)))


def test_only_certified_claims_carry_certificates():
    for claim in claims().values():
        assert (claim.certificate is not None) == (claim.kind is Evidence.CERTIFIED), claim.name


def test_statements_are_latex_text_not_ascii_math():
    for claim in claims().values():
        for text in (claim.statement, *claim.hypotheses, claim.scope, claim.quantity):
            assert text.count("$") % 2 == 0, (claim.name, text)
            for ascii_math in (">=", "<=", "sigma_", "sqrt(", "lambda/mu", "nu ="):
                outside = "".join(text.split("$")[::2])
                assert ascii_math not in outside, (claim.name, text)


def test_the_quantitative_forms_are_the_packages_and_limits_finite_range():
    for name in ("gated.pof_light_rate", "gated.pof_heavy_rate", "gated.unique_optimum",
                 "gated.heavy_traffic"):  # fmt: skip
        assert claims()[name].origin is Origin.PACKAGE
    for name in ("gated.pof_unbounded", "gated.heavy_traffic"):
        claim = claims()[name]
        assert claim.scope and claim.certificate is None and str(claim.kind) == "finite-range"
    assert claims()["gated.pof_unbounded"].origin is Origin.PAPER


def test_remainder_bounds_are_the_stated_constants():
    light, heavy = claims()["gated.pof_light_rate"], claims()["gated.pof_heavy_rate"]
    assert "\\tfrac{3}{2}" in light.statement and light.value <= 1.5 == light.reference
    assert "\\tfrac{5}{2}" in heavy.statement and heavy.value <= 2.5 == heavy.reference


def test_hypotheses_state_the_conditions():
    for claim in claims().values():
        if claim.name != "gated.dominance_identity":
            assert claim.hypotheses, claim.name
    assert any("\\nu = R\\mu/C > 1" in h for h in claims()["gated.optimal_gate"].hypotheses)
    assert any("\\Lambda > \\mu" in h for h in claims()["gated.heavy_traffic"].hypotheses)


def test_numerical_claims_say_why_and_no_claim_is_estimated():
    assert "truncated" in claims()["gated.embedded_chain"].reason
    for claim in claims().values():
        assert math.isnan(claim.ci_halfwidth), claim.name
