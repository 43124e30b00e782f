r"""Claims from the papers as checkable records, and the claims report.

Every claim a paper makes becomes a function that computes the quantities involved and
returns a :class:`Claim`: the report and the tests consume the same records.
:func:`claims_markdown` and :func:`claims_latex` turn the records of a whole run into
the claims report (``derivations/claims.md`` and ``derivations/claims.tex``).

Examples
--------
>>> slope = Claim("demo.slope", "regret ~ c log N", 1.01, 1.0, 0.05, True, "a paper",
...               quantity="fitted slope", ci_halfwidth=0.02)
>>> exact = Claim("demo.exact", "an identity", 0.0, 0.0, 1e-12, False, "a book")
>>> claims_summary([slope, exact])
'1 of 2 claims pass; FAIL: demo.exact'
>>> print(claims_markdown([slope]).splitlines()[-1])
| `demo.slope` | regret ~ c log N | fitted slope | 1.01 ± 0.02 | 1 | 0.05 | pass | a paper |
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from qtheory import report

__all__ = ["Claim", "claims_latex", "claims_markdown", "claims_summary", "claims_table"]


@dataclass(frozen=True)
class Claim:
    """One checked statement.

    Attributes
    ----------
    name
        Short identifier, e.g. ``"gated.dominance"``.
    statement
        The claim in words, as the paper states it.
    value
        The measured quantity.
    reference
        The value or bound it is compared with.
    tolerance
        The allowed discrepancy (absolute unless ``statement`` says otherwise).
    passed
        Whether the check held.
    source
        Where the claim comes from (paper and section).
    quantity
        What ``value`` measures, e.g. ``"fitted slope of regret on log N"``.
    ci_halfwidth
        Half-width of the 95% confidence interval of ``value``; NaN when ``value`` is
        exact (computed, not estimated).
    """

    name: str
    statement: str
    value: float
    reference: float
    tolerance: float
    passed: bool
    source: str
    quantity: str = ""
    ci_halfwidth: float = math.nan


def claims_table(claims: list[Claim], *, caption: str, label: str) -> str:
    """A booktabs table of claims: statement, measured value, reference, pass/FAIL."""
    rows = [[c.statement, c.value, c.reference, _verdict(c)] for c in claims]
    return report.table(
        ["claim", "value", "reference", ""],
        rows,
        caption=caption,
        label=label,
        formats={1: ".6g", 2: ".6g"},
        alignment="p{0.5\\linewidth}rrl",
    )


def claims_summary(claims: Sequence[Claim]) -> str:
    """One line: how many claims pass, and the names of those that fail."""
    failed = [c.name for c in claims if not c.passed]
    line = f"{len(claims) - len(failed)} of {len(claims)} claims pass"
    return line + (f"; FAIL: {', '.join(failed)}" if failed else "")


def _verdict(claim: Claim) -> str:
    return "pass" if claim.passed else "FAIL"


def _measured(claim: Claim, number: Callable[[float, int], str], plus_minus: str) -> str:
    """``value ± half-width`` (6 and 2 significant digits), or ``value`` if exact."""
    value = number(claim.value, 6)
    if math.isnan(claim.ci_halfwidth):
        return value
    return value + plus_minus + number(claim.ci_halfwidth, 2)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_|<>\[\]])")


def _markdown_text(text: str) -> str:
    """Backslash-escape the characters that Markdown (or a table cell) would read."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def _markdown_number(value: float, digits: int) -> str:
    return f"{value:.{digits}g}"


def claims_markdown(claims: Sequence[Claim], *, note: str = "") -> str:
    """The claims report as a Markdown document (a GitHub-flavoured table).

    One row per claim: name, statement, the quantity measured, the measured value
    (``± half-width`` of its 95% CI when it is estimated), reference, tolerance,
    pass/FAIL and source; above the table the :func:`claims_summary` line and ``note``
    (Markdown, e.g. the run's seed).

    Examples
    --------
    >>> claim = Claim("m.x", "x_1 | y", 0.5, 0.5, 0.0, True, "S")
    >>> print(claims_markdown([claim], note="Seed 1."), end="")
    # Claims report
    <BLANKLINE>
    1 of 1 claims pass.  Seed 1.
    <BLANKLINE>
    | claim | statement | quantity | measured | reference | tolerance | result | source |
    |---|---|---|--:|--:|--:|---|---|
    | `m.x` | x\\_1 \\| y |  | 0.5 | 0.5 | 0 | pass | S |
    """
    head = "| claim | statement | quantity | measured | reference | tolerance | result | source |"
    rows = [
        "| "
        + " | ".join(
            [
                f"`{c.name}`",
                _markdown_text(c.statement),
                _markdown_text(c.quantity),
                _measured(c, _markdown_number, " ± "),
                _markdown_number(c.reference, 6),
                _markdown_number(c.tolerance, 3),
                _verdict(c),
                _markdown_text(c.source),
            ]
        )
        + " |"
        for c in claims
    ]
    summary = f"{_markdown_text(claims_summary(claims))}.  {note}".rstrip()
    lines = ["# Claims report", "", summary, "", head, "|---|---|---|--:|--:|--:|---|---|", *rows]
    return "\n".join(lines) + "\n"


def _latex_claim_cell(claim: Claim) -> str:
    parts = [rf"\texttt{{{report.escape(claim.name)}}}: {report.escape(claim.statement)}"]
    if claim.quantity:
        parts.append(rf"\emph{{Quantity:}} {report.escape(claim.quantity)}")
    parts.append(rf"{{\footnotesize {report.escape(claim.source)}}}")
    return r"\newline ".join(parts)


def claims_latex(claims: Sequence[Claim], *, note: str = "") -> str:
    r"""The claims report as a LaTeX section (``\label{sec:claims}``) with a booktabs
    ``longtable`` (needs the ``longtable`` and ``booktabs`` packages, which
    :func:`qtheory.report.document` loads).

    One row per claim: name, statement, the quantity measured and the source; the
    measured value (``\pm`` half-width of its 95% CI when it is estimated); reference;
    tolerance; pass/FAIL.  Text is escaped; ``note`` is LaTeX, set after the
    :func:`claims_summary` line.

    Examples
    --------
    >>> claim = Claim("m.x", "x_1 < y", -0.5, 0.0, 1.0, True, "S", quantity="q",
    ...               ci_halfwidth=0.25)
    >>> [row] = [line for line in claims_latex([claim]).splitlines() if "m.x" in line]
    >>> print(*row.strip().split(" & "), sep="\n")
    \texttt{m.x}: x\_1 \textless{} y\newline \emph{Quantity:} q\newline {\footnotesize S}
    $-0.5$ $\pm$ 0.25
    0
    1
    pass \\
    """
    header = r"claim, quantity measured, source & measured & reference & tolerance & result \\"
    rows = [
        " & ".join(
            [
                _latex_claim_cell(c),
                _measured(c, report.number, r" $\pm$ "),
                report.number(c.reference, 6),
                report.number(c.tolerance, 3),
                _verdict(c),
            ]
        )
        + r" \\"
        for c in claims
    ]
    table = [
        r"\begingroup\small\setlength{\LTcapwidth}{\linewidth}",
        r"\begin{longtable}{@{}p{0.42\linewidth}rrrl@{}}",
        r"  \caption{Every claim checked by \texttt{qtheory reproduce}: the measured value "
        r"($\pm$ the half-width of its 95\% confidence interval when it is estimated), the "
        r"reference it is compared with, and the tolerance.}",
        r"  \label{tab:claims} \\",
        r"  \toprule",
        "  " + header,
        r"  \midrule",
        r"  \endfirsthead",
        r"  \toprule",
        "  " + header,
        r"  \midrule",
        r"  \endhead",
        r"  \bottomrule",
        r"  \endfoot",
        "  " + "\n  \\addlinespace\n  ".join(rows),
        r"\end{longtable}",
        r"\endgroup",
    ]
    body = f"{report.escape(claims_summary(claims))}.  {note}".rstrip() + "\n\n" + "\n".join(table)
    return report.section("Claims report", body, label="sec:claims")
