"""Tests of the claim records and the claims report (Markdown and LaTeX)."""

from __future__ import annotations

import math
import re

from qtheory.claims import Claim, claims_summary
from qtheory.report.claims import claims_latex, claims_markdown

EXACT = Claim("a.exact", "x_1 | y < z & 50% ~ {w}", -0.5, 0.0, 1e-12, True, "Paper & co")
ESTIMATED = Claim(
    "b.estimated",
    "slope = c",
    1.25,
    1.2,
    0.1,
    False,
    "Book",
    quantity="fitted slope",
    ci_halfwidth=0.0312,
)
CLAIMS = [EXACT, ESTIMATED]
UNESCAPED_AMPERSAND = re.compile(r"(?<!\\)&")


def markdown_rows(text: str) -> list[list[str]]:
    """The table rows (header and separator excluded), split on unescaped ``|``."""
    lines = [line for line in text.splitlines() if line.startswith("|")][2:]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]


def test_old_constructors_keep_working():
    claim = Claim("n", "s", 1.0, 1.0, 0.0, True, "src")
    assert claim.quantity == "" and math.isnan(claim.ci_halfwidth)


def test_summary_counts_and_names_failures():
    assert claims_summary(CLAIMS) == "1 of 2 claims pass; FAIL: b.estimated"
    assert claims_summary([EXACT]) == "1 of 1 claims pass"
    assert claims_summary([]) == "0 of 0 claims pass"


def test_markdown_has_one_row_of_eight_cells_per_claim():
    text = claims_markdown(CLAIMS, note="Seed 3.")
    assert text.startswith("# Claims report\n")
    assert "1 of 2 claims pass; FAIL: b.estimated.  Seed 3." in text
    rows = markdown_rows(text)
    assert [len(row) for row in rows] == [8, 8]
    exact, estimated = rows
    assert exact[0] == "`a.exact`" and estimated[0] == "`b.estimated`"
    # the escaped | < & _ are restored by a Markdown reader
    assert re.sub(r"\\(.)", r"\1", exact[1]) == EXACT.statement
    assert exact[3:7] == ["-0.5", "0", "1e-12", "pass"]  # exact: no interval
    assert estimated[2:7] == ["fitted slope", "1.25 ± 0.031", "1.2", "0.1", "FAIL"]
    assert exact[7] == "Paper & co"


def test_latex_is_a_section_with_a_longtable_row_per_claim():
    text = claims_latex(CLAIMS, note=r"Seed $3$.")
    assert text.startswith("\\section{Claims report}\n\\label{sec:claims}\n")
    assert "1 of 2 claims pass; FAIL: b.estimated.  Seed $3$." in text
    assert text.count(r"\begin{longtable}") == text.count(r"\end{longtable}") == 1
    body = text[text.index(r"\endfoot") : text.index(r"\end{longtable}")]
    rows = [line.strip() for line in body.splitlines() if line.strip().endswith(r"\\")]
    assert len(rows) == 2
    for row in rows:
        assert len(UNESCAPED_AMPERSAND.findall(row)) == 4  # five columns
    exact, estimated = (row.split(" & ") for row in rows)
    assert exact[1:] == ["$-0.5$", "0", r"$1\times 10^{-12}$", r"pass \\"]
    assert r"x\_1 \textbar{} y \textless{} z \& 50\% \textasciitilde{} \{w\}" in exact[0]
    assert r"\emph{Quantity:}" not in exact[0]  # no quantity given: no empty line for it
    assert r"\emph{Quantity:} fitted slope" in estimated[0]
    assert estimated[1:] == [r"1.25 $\pm$ 0.031", "1.2", "0.1", r"FAIL \\"]
