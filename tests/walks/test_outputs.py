"""The claims of the random-walk section (qtheory.report.walks): honest kinds, the SSS
bound stated with sup_h eps_h, certificates that the independent checker accepts."""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import pytest

from qtheory.core.claims import Evidence, Origin
from qtheory.core.stats import Estimate
from qtheory.report import walks as outputs
from qtheory.report.claims import claim_paragraph
from qtheory.verify import CertificateError
from qtheory.verify.walks import CHECKS


@pytest.fixture(scope="module")
def bound_claims():
    checks = outputs._exact_checks([16, 100])
    return checks, outputs._bounds_claims(checks, [16, 100])


def test_bound_claims_are_certified_and_verify(bound_claims):
    checks, claims = bound_claims
    assert [c.name for c in claims] == ["walks.bounds", "walks.sss_failure_bound"]
    for claim in claims:
        assert claim.kind is Evidence.CERTIFIED and claim.origin is Origin.PACKAGE
        assert claim.passed and claim.value == claim.reference > 0
        CHECKS["bounds"](claim.certificate["data"])  # N = 16, 100: not the claim's pinned set
        assert claim.certificate["checker"] == "walks.bounds"
    assert sum(c.value for c in claims) == len(checks)  # every check is in one of them


def test_an_altered_certificate_fails(bound_claims):
    _, claims = bound_claims
    certificate = claims[1].certificate
    item = dict(certificate["data"]["items"][0], c="0.5")  # another window constant
    altered = {**certificate, "data": {**certificate["data"], "items": [item]}}
    with pytest.raises(CertificateError, match="family=sss.*c=0.5.*not in the claimed"):
        CHECKS["bounds"](altered["data"])


def test_the_sss_text_bounds_the_supremum_not_eps_1():
    text = outputs._sss_text()
    assert "B_1 \\ge \\sup_{h\\ge1}\\varepsilon_h" in text
    assert "\\lambda_L N\\,B_1\\,\\kappa" in text and "\\varepsilon_1\\,\\kappa" not in text
    assert "0.00486, 0.00734, 0.00819, 0.00798" in text  # eps_1..eps_4 at N = 1000, c = 4
    assert "this package's construction" in text


def _rates(*estimates):
    return [SimpleNamespace(identity_cost=e) for e in estimates]


def test_the_cost_claim_is_finite_range_and_decided_on_the_intervals():
    servers = [100, 1000, 10_000]
    flat = outputs._cost_claim(_rates(*(Estimate(4.2, 0.05, 30) for _ in servers)), servers)
    assert flat.kind is Evidence.FINITE_RANGE and flat.passed
    assert flat.value == pytest.approx(0.1) and "N = 10^{3}, \\dots, 10^{4}" in flat.scope
    growth = outputs.leading_constant(outputs.DEFAULT) * math.log(10)
    assert flat.reference == pytest.approx(growth)
    # equal means, but intervals too wide to exclude a variation of 5% of the growth
    wide = _rates(*(Estimate(4.2, 0.06 * growth, 30) for _ in servers))
    assert not outputs._cost_claim(wide, servers).passed


def test_the_window_claim_fails_when_no_constant_is_judged_bounded():
    point = SimpleNamespace(c=2.0, servers=100)
    grids = {"cs": [2.0], "reps": 3, "events": 4e5}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(outputs, "smallest_bounded_constant", lambda points: math.nan)
        claim = outputs._window_claim([point], grids)
    assert claim.kind is Evidence.FINITE_RANGE and not claim.passed
    assert claim.reference == pytest.approx(28.67, abs=0.01)


def test_statements_are_latex_not_ascii(bound_claims):
    _, claims = bound_claims
    servers = [1000, 10_000]
    claims = [*claims, outputs._cost_claim(_rates(*(Estimate(4.2, 0.05, 30),) * 2), servers)]
    for claim in claims:
        for text in (claim.statement, *claim.hypotheses, claim.scope):
            assert "<=" not in text and ">=" not in text
            assert re.search(r"(?<!var)eps", text) is None  # eps_h is $\varepsilon_h$
        assert claim_paragraph(claim).startswith("\\paragraph{Claim")


def test_claim_paragraphs_escape_nothing_twice(bound_claims):
    _, claims = bound_claims
    servers = [1000, 10_000]
    claims = [*claims, outputs._cost_claim(_rates(*(Estimate(4.2, 0.05, 30),) * 2), servers)]
    for claim in claims:
        assert "textbackslash" not in claim_paragraph(claim)


def test_every_check_name_is_typeset_as_mathematics(bound_claims):
    """Each name the checks carry has a LaTeX form without ASCII relations or
    underscores outside mathematics; an unknown name is an error, not raw text."""
    checks, _ = bound_claims
    for name in {c.name for c in checks}:
        latex = outputs.bound_latex(name)
        text = re.sub(r"\$[^$]*\$", "", latex)  # outside the mathematics
        assert not re.search(r"<=|>=|_|\^|lambda|inf\b", text), (name, latex)
        assert "$" in latex, name
    with pytest.raises(KeyError, match="add it to BOUND_LATEX"):
        outputs.bound_latex("P(something new)")


def test_sweep_cells_and_caption_show_zero_losses_as_bounds():
    from qtheory.walks.lookahead_sweep import SweepPoint

    rate = Estimate(0.00536, 0.000897, 4)
    lost = SweepPoint(100, 23.0, 0.1, 13.0, 4, 12, rate, rate, rate)
    none = SweepPoint(10_000, 23.0, 0.1, 13.0, 4, 0, Estimate(0.0, 0.0, 4), rate, rate)
    assert outputs._rate_cell(lost) == "$0.00536 \\pm 0.00090$"
    # no loss in 4 x 10 time units: the 95% Poisson bound -log(0.05)/40 = 0.0749
    assert outputs._rate_cell(none) == "$\\le 0.075$"
    caption = outputs._sweep_caption([lost, none])
    assert "$N = 10^{4}$: $c \\in \\{23\\}$" in caption and "upper bound" in caption
