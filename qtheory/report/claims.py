r"""The claims report: the :class:`~qtheory.claims.Claim` records of a run as Markdown
(``derivations/claims.md``) and as a LaTeX section (``derivations/claims.tex``), and a
model's claims as a table of its own section.

>>> from qtheory.claims import Claim
>>> slope = Claim("demo.slope", "regret ~ c log N", 1.01, 1.0, 0.05, True, "a paper",
...               quantity="fitted slope", ci_halfwidth=0.02)
>>> print(claims_markdown([slope]).splitlines()[-1])
| `demo.slope` | regret ~ c log N | fitted slope | 1.01 ± 0.02 | 1 | 0.05 | pass | a paper |
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

from qtheory.claims import Claim, claims_summary
from qtheory.report import latex

__all__ = ["claims_latex", "claims_markdown", "claims_table"]


def claims_table(claims: list[Claim], *, caption: str, label: str) -> str:
    """A booktabs table of claims: statement, measured value, reference, pass/FAIL.

    Parameters
    ----------
    claims : list of Claim
    caption, label : str
        LaTeX caption and ``\\label`` key, as in :func:`qtheory.report.table`.

    Returns
    -------
    str

    Examples
    --------
    >>> claim = Claim("m.x", "x = y", 0.5, 0.5, 0.0, True, "S")
    >>> "pass" in claims_table([claim], caption="Claims.", label="tab:c")
    True
    """
    rows = [[c.statement, c.value, c.reference, _verdict(c)] for c in claims]
    return latex.table(
        ["claim", "value", "reference", ""],
        rows,
        caption=caption,
        label=label,
        formats={1: ".6g", 2: ".6g"},
        alignment="p{0.5\\linewidth}rrl",
    )


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

    Parameters
    ----------
    claims : sequence of Claim
    note : str, optional
        Markdown set after the summary line.

    Returns
    -------
    str

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
    parts = [rf"\texttt{{{latex.escape(claim.name)}}}: {latex.escape(claim.statement)}"]
    if claim.quantity:
        parts.append(rf"\emph{{Quantity:}} {latex.escape(claim.quantity)}")
    parts.append(rf"{{\footnotesize {latex.escape(claim.source)}}}")
    return r"\newline ".join(parts)


def claims_latex(claims: Sequence[Claim], *, note: str = "") -> str:
    r"""The claims report as a LaTeX section (``\label{sec:claims}``) with a booktabs
    ``longtable`` (needs the ``longtable`` and ``booktabs`` packages, which
    :func:`qtheory.report.document` loads).

    One row per claim: name, statement, the quantity measured and the source; the
    measured value (``\pm`` half-width of its 95% CI when it is estimated); reference;
    tolerance; pass/FAIL.  Text is escaped; ``note`` is LaTeX, set after the
    :func:`claims_summary` line.

    Parameters
    ----------
    claims : sequence of Claim
    note : str, optional
        LaTeX set after the summary line.

    Returns
    -------
    str

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
                _measured(c, latex.number, r" $\pm$ "),
                latex.number(c.reference, 6),
                latex.number(c.tolerance, 3),
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
    body = f"{latex.escape(claims_summary(claims))}.  {note}".rstrip() + "\n\n" + "\n".join(table)
    return latex.section("Claims report", body, label="sec:claims")
