"""Tests of the claim records, the claims report (Markdown and LaTeX) and certificates."""

from __future__ import annotations

import json
import math
import re

import pytest

from qtheory.core.claims import Claim, Evidence, Origin, claims_summary
from qtheory.core.stats import Estimate
from qtheory.lossnet.claims import fluid_claim
from qtheory.model.lossnet import LossNetwork
from qtheory.report.claims import (
    claim_paragraph,
    claims_latex,
    claims_markdown,
    write_certificates,
)
from qtheory.verify import CertificateError
from qtheory.verify.statements import render

EXACT = Claim(
    name="a.exact",
    statement="x_1 | y < z & 50% ~ {w} and $x_1 \\le y$",
    kind=Evidence.NUMERICAL,
    passed=True,
    origin=Origin.PAPER,
    citation="Paper & co",
    reason="a float solve",
    value=-0.5,
    reference=0.0,
    tolerance=1e-12,
)
ESTIMATED = Claim(
    name="b.estimated",
    statement="slope = c",
    kind=Evidence.STATISTICAL,
    passed=False,
    origin=Origin.HEURISTIC,
    hypotheses=("clock model", "$\\lambda_H < \\mu$"),
    quantity="fitted slope",
    value=1.25,
    reference=1.2,
    tolerance=0.1,
    estimate=Estimate(1.25, 0.0312, 12, "regression", 10),
)
CERTIFIED = Claim(
    name="c.certified[A]",
    statement="$\\sigma \\in [0.1, 0.2]$",
    kind=Evidence.CERTIFIED,
    passed=True,
    origin=Origin.PACKAGE,
    certificate={"checker": "demo.interval", "data": {"lower": "0.1", "upper": "0.2"}},
)
CLAIMS = [EXACT, ESTIMATED, CERTIFIED]
UNESCAPED_AMPERSAND = re.compile(r"(?<!\\)&")


def markdown_rows(text: str) -> list[list[str]]:
    """The table rows (header and separator excluded), split on unescaped ``|``."""
    lines = [line for line in text.splitlines() if line.startswith("|")][2:]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]


@pytest.mark.parametrize(
    ("fields", "rule"),
    [
        ({"kind": Evidence.CERTIFIED}, "must carry a certificate"),
        ({"kind": Evidence.STATISTICAL}, "must carry its estimate"),
        ({"kind": Evidence.NUMERICAL}, "must say why it is not certified"),
        ({"kind": Evidence.FINITE_RANGE}, "must state the range it covered"),
        ({"kind": "identity"}, "kind must be an Evidence"),
        ({"kind": Evidence.IDENTITY, "origin": "a paper"}, "origin must be an Origin"),
        ({"kind": Evidence.IDENTITY, "passed": 1}, "passed must be True or False"),
        ({"kind": Evidence.IDENTITY, "hypotheses": "x > 0"}, "hypotheses must be a tuple"),
        (
            {"kind": Evidence.CERTIFIED, "certificate": {"data": {}}},
            "certificate must be a mapping with a 'checker' name",
        ),
    ],
)
def test_a_claim_must_carry_the_evidence_its_kind_needs(fields, rule):
    base = {"name": "n", "statement": "s", "passed": True, "origin": Origin.PAPER}
    with pytest.raises(ValueError, match=f"claim n: .*{re.escape(rule)}"):
        Claim(**(base | fields))


def test_exact_claims_have_no_interval():
    assert math.isnan(EXACT.ci_halfwidth) and ESTIMATED.ci_halfwidth == 0.0312


def test_summary_counts_by_kind_and_names_failures():
    assert claims_summary(CLAIMS) == "1 certified, 1 numerical, 1 statistical; 1 FAIL: b.estimated"
    assert claims_summary([EXACT, EXACT]) == "2 numerical; 0 fail"
    assert claims_summary([]) == "no claims; 0 fail"
    assert "of" not in claims_summary(CLAIMS)  # never a bare "k of n pass"


def test_markdown_has_one_row_of_eleven_cells_per_claim():
    text = claims_markdown(CLAIMS, note="Seed 3.")
    assert text.startswith("# Claims report\n")
    assert "1 FAIL: b.estimated.  Seed 3." in text
    assert "± 95% CI half-width" in text
    rows = markdown_rows(text)
    assert [len(row) for row in rows] == [11, 11, 11]
    exact, estimated, certified = rows
    assert [exact[0], exact[1], estimated[1], certified[1]] == [
        "`a.exact`",
        "numerical",
        "statistical",
        "certified",
    ]
    # | < _ are escaped for a Markdown reader; the mathematics is kept as it is
    assert exact[2] == r"x\_1 \| y \< z & 50% ~ {w} and $x_1 \le y$"
    assert exact[6:10] == ["-0.5", "0", "1e-12", "pass"]  # exact: no interval
    assert estimated[3] == "clock model; $\\lambda_H < \\mu$"
    assert estimated[5:10] == ["fitted slope", "1.25 ± 0.031", "1.2", "0.1", "FAIL"]
    assert exact[10] == "stated in the paper (Paper & co)"
    assert estimated[10] == "a heuristic, not proved"
    assert certified[6:9] == ["–", "–", "–"]  # no single number: dashes, not NaN


def test_latex_is_a_section_with_a_compact_index_row_per_claim():
    text = claims_latex(CLAIMS, note=r"Seed $3$.")
    assert text.startswith("\\section{Claims report}\n\\label{sec:claims}\n")
    assert r"1 FAIL: \texttt{b.\allowbreak{}estimated}.  Seed $3$." in text  # breakable name
    assert "nan" not in text.lower().replace("nance", "")
    body = text[text.index(r"\endfoot") : text.index(r"\end{longtable}")]
    rows = [line.strip() for line in body.splitlines() if line.strip().endswith(r"\\")]
    assert len(rows) == 3
    for row in rows:
        assert len(UNESCAPED_AMPERSAND.findall(row)) == 6  # seven columns
    exact, estimated, certified = (row.split(" & ") for row in rows)
    assert exact[:6] == [r"\texttt{a.\allowbreak{}exact}", "numerical", "pass", "$-0.5$", "0",
                         r"$1\times 10^{-12}$"]  # fmt: skip
    # the half-width to two digits (0.031), the mean to the same place (1.250)
    assert estimated[1:6] == ["statistical", "FAIL", r"$1.250 \pm 0.031$", "1.2", "0.1"]
    assert certified[1:6] == ["certified", "pass", "--", "--", "--"]  # no single number
    # the page where the statement is, once a paragraph has labelled it
    label = r"claim:c.certified-A-"
    assert certified[6] == rf"\ifcsname r@{label}\endcsname\pageref{{{label}}}\else --\fi \\"
    assert rf"\label{{{label}}}" in claim_paragraph(CERTIFIED)


def test_a_paragraph_says_kind_source_and_certificate():
    text = claim_paragraph(CERTIFIED)
    name = r"\texttt{c.\allowbreak{}certified[\allowbreak{}A]}"  # breakable in the margin
    assert text.startswith(rf"\paragraph{{Claim {name}.}}\label{{claim:c.certified-A-}} $\sigma")
    assert r"\emph{Evidence:} certified." in text
    assert "this package's construction" in text
    assert r"certificate \texttt{c.\allowbreak{}certified\_\allowbreak{}A\_\allowbreak{}." in text
    failing = claim_paragraph(ESTIMATED)
    assert r"\textbf{FAILS}" in failing and r"$= 1.25 \pm 0.031$" in failing
    assert "95\\% confidence interval" in failing
    negative = Claim(**(ESTIMATED.__dict__ | {"value": -2e-7, "quantity": "x"}))
    assert r"$= -2\times 10^{-7} \pm 0.031$" in claim_paragraph(negative)  # one math span


def test_certificates_are_written_for_certified_claims_only(tmp_path):
    # a real certified claim: a certificate needs its claim's statement template
    fluid = fluid_claim(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0))
    [path] = write_certificates([EXACT, ESTIMATED, fluid], tmp_path)
    assert path.name == "lossnet.fluid.json"
    written = json.loads(path.read_text())
    assert {k: written[k] for k in ("claim", "checker", "data")} == {
        "claim": "lossnet.fluid",
        "checker": "lossnet.fluid",
        "data": fluid.certificate["data"],
    }
    assert written["statement"] == render("lossnet.fluid", fluid.certificate["data"])
    assert sorted(written["provenance"]) == ["commit", "date", "python", "python_flint", "qtheory"]
    with pytest.raises(CertificateError, match="no statement template for the claim"):
        write_certificates(CLAIMS, tmp_path)  # a certified claim no checker can state


def test_certificates_of_claims_no_longer_made_are_removed(tmp_path):
    (tmp_path / "old.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("kept")
    write_certificates([fluid_claim(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0))], tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lossnet.fluid.json", "notes.txt"]


def test_quantiles_are_scipy_stats_own():
    """The confidence quantiles come from scipy.special (stdtrit, ndtri), which is what
    scipy.stats.t.ppf and norm.ppf evaluate: the same doubles, so no half-width moved
    when the 0.3 s import of scipy.stats left every Estimate's start."""
    from scipy import stats as scipy_stats

    from qtheory.core.stats import CONFIDENCE, normal_quantile, t_quantile

    level = 0.5 + CONFIDENCE / 2
    for dof in [*range(1, 300), 10**3, 10**6]:
        assert t_quantile(dof) == scipy_stats.t.ppf(level, dof), dof
    assert normal_quantile() == scipy_stats.norm.ppf(level)
