r"""The claims report: :class:`~qtheory.core.claims.Claim` records as text.

Everything the generated documents assert is rendered from a claim record, so the text
says what was checked and no more: the statement, the kind of evidence, the hypotheses,
the range covered, whose statement it is, and the verdict.

- :func:`claim_paragraph`: one claim as a LaTeX paragraph, for a model's section;
- :func:`claims_table`: a model's claims as a booktabs table;
- :func:`claims_markdown`, :func:`claims_latex`: the report of a whole run
  (``derivations/claims.md``, ``derivations/claims.tex``);
- :func:`write_certificates`: one JSON file per certified claim, for ``qtheory verify``.

Statements are sentences of :mod:`qtheory.core.markup`: text, inline ``$...$``
mathematics and ```...``` code; the text is escaped, the mathematics kept, the code set in
typewriter type.  Every ``±`` is the half-width of a 95% confidence interval.

>>> from qtheory.core.claims import Claim, Evidence, Origin
>>> claim = Claim(name="demo.sum", statement="$1 + 1 = 2$ for 100% of inputs",
...               kind=Evidence.IDENTITY, passed=True, origin=Origin.TEXTBOOK)
>>> print(latex_text(claim.statement))
$1 + 1 = 2$ for 100\% of inputs
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from pathlib import Path

from qtheory.core.claims import Claim, Evidence, claims_summary
from qtheory.core.markup import Kind, pieces
from qtheory.report import latex
from qtheory.report.bibliography import cite

__all__ = [
    "certificate_filename",
    "claim_label",
    "claim_name_latex",
    "claim_paragraph",
    "claims_latex",
    "claims_section",
    "claims_markdown",
    "claims_table",
    "latex_text",
    "values_text",
    "markdown_text",
    "write_certificates",
]

#: Said once under every table that shows a ``±``.
PLUS_MINUS_NOTE = "Every ± is the half-width of a 95% confidence interval."

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_|<>\[\]])")


def values_text(symbol: str, values) -> str:
    r"""``$N = 10$, $22$, $46$``: a list of values as text with inline mathematics, each
    value its own formula so that a long list breaks between them (one formula does not
    break at its commas).

    Parameters
    ----------
    symbol : str
        The mathematics before the first value (LaTeX).
    values : iterable

    Returns
    -------
    str

    Examples
    --------
    >>> values_text("N", [10, 100, 1000])
    '$N = 10$, $100$, $1000$'
    """
    first, *rest = [str(v) for v in values]
    return ", ".join([f"${symbol} = {first}$", *(f"${v}$" for v in rest)])


def latex_text(text: str) -> str:
    r"""A sentence of :mod:`qtheory.core.markup` as LaTeX: text escaped, each bracketed
    reference key cited (:func:`qtheory.report.bibliography.cite`), ``$...$``
    mathematics kept, ```...``` code in typewriter type (:func:`qtheory.report.latex.code`).

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> print(latex_text("R_off is $R_{\\mathrm{off}} \\ge 0$ & done ([HR26])"))
    R\_off is $R_{\mathrm{off}} \ge 0$ \& done (\cite{HR26})
    >>> print(latex_text("see `qtheory gated --certify`"))
    see \texttt{qtheory gated -{}-certify}
    """
    render = {
        Kind.TEXT: lambda p: cite(latex.escape(p)),
        Kind.MATH: lambda p: f"${p}$",
        Kind.CODE: latex.code,
    }
    return "".join(render[piece.kind](piece.content) for piece in pieces(text))


def markdown_text(text: str) -> str:
    r"""A sentence of :mod:`qtheory.core.markup` for a Markdown table cell: the characters
    Markdown would read are escaped in the text, ``|`` in the mathematics and the code too;
    code is a code span.

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> print(markdown_text("x_1 | $|x_1| \\le 1$, `gated.pof_identity`"))
    x\_1 \| $\|x_1\| \le 1$, `gated.pof_identity`
    """
    render = {
        Kind.TEXT: lambda p: _MARKDOWN_SPECIAL.sub(r"\\\1", p),
        Kind.MATH: lambda p: "$" + p.replace("|", r"\|") + "$",
        Kind.CODE: lambda p: "`" + p.replace("|", r"\|") + "`",
    }
    return "".join(render[piece.kind](piece.content) for piece in pieces(text))


def _verdict(claim: Claim) -> str:
    return "pass" if claim.passed else "FAIL"


def _measured(claim: Claim, number, plus_minus: str) -> str:
    """``value ± 95% half-width`` (6 and 2 significant digits); ``value`` if exact;
    a dash when the claim has no single measured number."""
    if math.isnan(claim.value):
        return "–"
    value = number(claim.value, 6)
    if math.isnan(claim.ci_halfwidth):
        return value
    return value + plus_minus + number(claim.ci_halfwidth, 2)


def _plain_number(x: float, digits: int) -> str:
    """``x`` with ``digits`` significant digits, for Markdown."""
    return f"{x:.{digits}g}"


def _number_or_dash(x: float, number, digits: int) -> str:
    return "–" if math.isnan(x) else number(x, digits)


def _source(claim: Claim) -> str:
    return f"{claim.origin}" + (f" ({claim.citation})" if claim.citation else "")


def certificate_filename(claim: Claim) -> str:
    """The file name of a claim's certificate: its name with ``[`` ``]`` etc. made safe.

    Parameters
    ----------
    claim : Claim

    Returns
    -------
    str

    Examples
    --------
    >>> from qtheory.core.claims import Claim, Evidence, Origin
    >>> certificate_filename(Claim(name="gated.optimum[nu=2]", statement="s",
    ...     kind=Evidence.CERTIFIED, passed=True, origin=Origin.PAPER,
    ...     certificate={"checker": "gated.optimum", "data": {}}))
    'gated.optimum_nu_2_.json'
    """
    return re.sub(r"[^\w.-]", "_", claim.name) + ".json"


def _evidence_line(claim: Claim) -> list[str]:
    """The parts of a claim's evidence, each ``(label, LaTeX text)``."""
    parts = [("Evidence", str(claim.kind))]
    if claim.hypotheses:
        parts.append(("Hypotheses", "; ".join(latex_text(h) for h in claim.hypotheses)))
    if claim.scope:
        parts.append(("Checked over", latex_text(claim.scope)))
    if claim.reason:
        parts.append(("Not certified because", latex_text(claim.reason)))
    parts.append(("Source", latex_text(_source(claim))))
    return parts


def claim_name_latex(name: str) -> str:
    r"""A claim's name as code (:func:`qtheory.report.latex.code`): typewriter type,
    breakable after its dots, underscores and brackets.

    Parameters
    ----------
    name : str

    Returns
    -------
    str

    Examples
    --------
    >>> print(claim_name_latex("gated.pof_light_rate[A]"))
    \texttt{gated.\allowbreak{}pof\_\allowbreak{}light\_\allowbreak{}rate[\allowbreak{}A]}
    """
    return latex.code(name)


def claim_paragraph(claim: Claim) -> str:
    r"""One claim as a LaTeX paragraph: the statement, then its evidence in small type
    (kind, hypotheses, range, source) and the verdict with the number behind it.

    Parameters
    ----------
    claim : Claim

    Returns
    -------
    str

    Examples
    --------
    >>> from qtheory.core.claims import Claim, Evidence, Origin
    >>> claim = Claim(name="demo.bound", statement="$B \\ge \\varepsilon_h$ for all $h$",
    ...               kind=Evidence.FINITE_RANGE, passed=True, origin=Origin.PACKAGE,
    ...               scope="$h = 1, \\dots, 10$", quantity="min of $B - \\varepsilon_h$",
    ...               value=0.25)
    >>> print(claim_paragraph(claim).replace(". ", ".\n").replace("} $B", "}\n$B"))
    \paragraph{Claim \texttt{demo.\allowbreak{}bound}.}\label{claim:demo.bound}
    $B \ge \varepsilon_h$ for all $h$
    \par{\small \emph{Evidence:} finite-range.
    \emph{Checked over:} $h = 1, \dots, 10$.
    \emph{Source:} this package's construction.
    \emph{Result:} holds; min of $B - \varepsilon_h$ $= 0.25$.\par}
    """
    evidence = " ".join(rf"\emph{{{label}:}} {text}." for label, text in _evidence_line(claim))
    result = "holds" if claim.passed else r"\textbf{FAILS}"
    if claim.kind is Evidence.CERTIFIED:
        result += rf" (certificate {claim_name_latex(certificate_filename(claim))})"
    if claim.quantity and not math.isnan(claim.value):
        measured = _measured(claim, lambda x, d: latex.number(x, d).strip("$"), r" \pm ")
        result += f"; {latex_text(claim.quantity)} $= {measured}$"
        if not math.isnan(claim.ci_halfwidth):
            result += " ($\\pm$ the half-width of its 95\\% confidence interval)"
    return (
        rf"\paragraph{{Claim {claim_name_latex(claim.name)}.}}"
        rf"\label{{{claim_label(claim.name)}}} {latex_text(claim.statement)}"
        + "\n"
        + rf"\par{{\small {evidence} \emph{{Result:}} {result}.\par}}"
    )


def claims_section(title: str, label: str, parts: Sequence[str], claims: Sequence[Claim]) -> str:
    r"""A ``\section`` (:func:`qtheory.report.latex.section`) of the LaTeX ``parts`` and
    then one :func:`claim_paragraph` per claim, a blank line between each two.

    Parameters
    ----------
    title : str
        LaTeX title.
    label : str
        ``\label`` key.
    parts : sequence of str
        LaTeX paragraphs, tables and figures before the claims.
    claims : sequence of Claim

    Returns
    -------
    str

    Examples
    --------
    >>> print(claims_section("Costs", "sec:costs", ["Text."], []), end="")
    \section{Costs}
    \label{sec:costs}
    <BLANKLINE>
    Text.
    """
    body = "\n\n".join([*parts, *(claim_paragraph(c) for c in claims)])
    return latex.section(title, body, label=label)


def claims_table(claims: Sequence[Claim], *, caption: str, label: str) -> str:
    """A booktabs table of claims: statement, kind, measured value, reference, verdict.

    Parameters
    ----------
    claims : sequence of Claim
    caption, label : str
        LaTeX caption (escaped) and ``\\label`` key, as in :func:`qtheory.report.latex.table`.

    Returns
    -------
    str

    Examples
    --------
    >>> from qtheory.core.claims import Claim, Evidence, Origin
    >>> claim = Claim(name="m.x", statement="$x = y$", kind=Evidence.IDENTITY, passed=True,
    ...               origin=Origin.TEXTBOOK)
    >>> "pass" in claims_table([claim], caption="Claims.", label="tab:c")
    True
    """
    rows = [
        [
            latex.Latex(latex_text(c.statement)),
            str(c.kind),
            latex.Latex(_measured(c, latex.number, r" $\pm$ ")),
            latex.Latex(_number_or_dash(c.reference, latex.number, 6)),
            _verdict(c),
        ]
        for c in claims
    ]
    if any(not math.isnan(c.ci_halfwidth) for c in claims):
        caption = f"{caption} {PLUS_MINUS_NOTE}"
    return latex.table(
        ["claim", "evidence", "value", "reference", ""],
        rows,
        caption=caption,
        label=label,
        alignment="p{0.46\\linewidth}lrrl",
    )


def claims_markdown(claims: Sequence[Claim], *, note: str = "") -> str:
    """The claims report as a Markdown document (a GitHub-flavoured table).

    Above the table the :func:`~qtheory.core.claims.claims_summary` line (counts by kind)
    and ``note``; one row per claim: name, kind, statement, hypotheses, range checked,
    the measured quantity and value (``± 95% half-width`` when estimated), reference,
    tolerance, verdict and source.

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
    >>> from qtheory.core.claims import Claim, Evidence, Origin
    >>> claim = Claim(name="m.x", statement="x_1 | y", kind=Evidence.NUMERICAL, passed=True,
    ...               origin=Origin.TEXTBOOK, reason="a float solve", value=0.5,
    ...               reference=0.5, tolerance=0.0)
    >>> print(claims_markdown([claim], note="Seed 1.").splitlines()[-1])
    | `m.x` | numerical | x\\_1 \\| y | – | – |  | 0.5 | 0.5 | 0 | pass | textbook result |
    """
    head = (
        "| claim | evidence | statement | hypotheses | checked over | quantity "
        "| measured (± 95% CI half-width) | reference | tolerance | result | source |"
    )
    rows = [
        "| "
        + " | ".join(
            [
                f"`{c.name}`",
                str(c.kind),
                markdown_text(c.statement),
                "; ".join(markdown_text(h) for h in c.hypotheses) or "–",
                markdown_text(c.scope) or "–",
                markdown_text(c.quantity),
                _measured(c, _plain_number, " ± "),
                _number_or_dash(c.reference, _plain_number, 6),
                _number_or_dash(c.tolerance, _plain_number, 3),
                _verdict(c),
                markdown_text(_source(c)),
            ]
        )
        + " |"
        for c in claims
    ]
    summary = f"{markdown_text(claims_summary(claims))}.  {note}".rstrip()
    rule = "|---|---|---|---|---|---|--:|--:|--:|---|---|"
    return "\n".join(["# Claims report", "", summary, "", head, rule, *rows]) + "\n"


def _summary_latex(claims: Sequence[Claim]) -> str:
    """The one-line summary with the failing claims' names breakable (a long list of
    names must not run into the margin)."""
    counts, marker, names = claims_summary(claims).partition(" FAIL: ")
    if not marker:
        return latex.escape(counts)
    shown = ", ".join(claim_name_latex(name) for name in names.split(", "))
    return f"{latex.escape(counts)} FAIL: {shown}"


def claim_label(name: str) -> str:
    r"""The ``\label`` key of a claim's statement, ``claim:`` and its name made safe.

    Parameters
    ----------
    name : str

    Returns
    -------
    str

    Examples
    --------
    >>> claim_label("gated.optimum[nu=2]")
    'claim:gated.optimum-nu-2-'
    """
    return "claim:" + re.sub(r"[^\w.-]", "-", name)


def _page(claim: Claim) -> str:
    """The page where the claim is stated, or a dash when no section states it."""
    label = claim_label(claim.name)
    return rf"\ifcsname r@{label}\endcsname\pageref{{{label}}}\else --\fi"


def _index_measured(claim: Claim) -> str:
    """The measured value in LaTeX; an estimate's mean and half-width rounded together
    (the half-width to two significant digits, :class:`~qtheory.core.stats.Estimate`)."""
    if claim.estimate is not None and not math.isnan(claim.value):
        return claim.estimate._repr_latex_().removesuffix(" (95%)")
    return latex.number(claim.value, 6)  # -- for NaN


def claims_latex(claims: Sequence[Claim], *, note: str = "") -> str:
    r"""The claims report as a LaTeX section (``\label{sec:claims}``): a compact index of
    every claim in a ``longtable`` (``longtable`` and ``booktabs``, which
    :func:`qtheory.report.document` loads).

    One row per claim: its name, the kind of evidence, the verdict, the measured value
    (``\pm`` the half-width of its 95% confidence interval when it is estimated), the
    reference and the tolerance it is compared with, and the page where its section
    states it with its hypotheses, range and source (:func:`claim_paragraph` labels the
    statement; a dash when no section states it).  ``note`` is LaTeX, set after the
    summary line.

    Parameters
    ----------
    claims : sequence of Claim
    note : str, optional

    Returns
    -------
    str

    Examples
    --------
    >>> from qtheory.core.claims import Claim, Evidence, Origin
    >>> from qtheory.core.stats import Estimate
    >>> claim = Claim(name="m.x", statement="$x_1 < y$", kind=Evidence.STATISTICAL,
    ...               passed=True, origin=Origin.PAPER, citation="[A1]", value=-0.5,
    ...               reference=0.0, tolerance=0.1, estimate=Estimate(-0.5, 0.25, 10, "t", 9))
    >>> [row] = [line for line in claims_latex([claim]).splitlines() if "{m." in line]
    >>> print(*row.strip().split(" & "), sep="\n")
    \texttt{m.\allowbreak{}x}
    statistical
    pass
    $-0.50 \pm 0.25$
    0
    0.1
    \ifcsname r@claim:m.x\endcsname\pageref{claim:m.x}\else --\fi \\
    """
    rows = [
        [
            latex.Latex(cell)
            for cell in (
                claim_name_latex(c.name),
                str(c.kind),
                _verdict(c),
                _index_measured(c),
                latex.number(c.reference, 6),
                latex.number(c.tolerance, 3),
                _page(c),
            )
        ]
        for c in claims
    ]
    table = latex.table(
        ["claim", "evidence", "result", "measured", "reference", "tolerance", "page"],
        rows,
        caption=(
            r"Every claim checked by \texttt{qtheory reproduce}: the kind of evidence "
            r"behind it, the verdict, the measured value ($\pm$ the half-width of its 95\% "
            r"confidence interval when it is estimated), the reference and tolerance it is "
            r"compared with, and the page where it is stated with its hypotheses, the range "
            r"checked and its source."
        ),
        label="tab:claims",
        # the name column wraps; 6pt between columns (3pt a side) keeps seven on a page
        alignment=r"@{}>{\raggedright\arraybackslash}p{0.40\linewidth}"
        + r"@{\hskip6pt}l" * 2
        + r"@{\hskip6pt}r" * 4
        + "@{}",
        size="footnotesize",
        fit=False,
        long=True,
    )
    summary = f"{_summary_latex(claims)}.  {note}".rstrip()
    body = f"{{\\raggedright {summary}\\par}}\n\n" + table
    return latex.section("Claims report", body, label="sec:claims")


def write_certificates(claims: Sequence[Claim], folder: Path) -> list[Path]:
    """Write one JSON certificate per certified claim into ``folder`` (created).

    Each file holds ``{"claim", "statement", "checker", "data", "provenance"}`` (see
    :mod:`qtheory.verify`): the statement rendered from the data by
    :func:`qtheory.verify.statements.render`, and :func:`qtheory.core.provenance.provenance`.
    Certificates in ``folder`` of claims that this run did not certify are removed, so
    that ``qtheory verify`` checks exactly this run's claims.

    Parameters
    ----------
    claims : sequence of Claim
    folder : pathlib.Path

    Returns
    -------
    list of pathlib.Path
        The files written (unchanged files are not rewritten).

    Examples
    --------
    >>> import tempfile
    >>> from qtheory.lossnet.claims import fluid_claim
    >>> from qtheory.model.lossnet import LossNetwork
    >>> from qtheory.verify import verify
    >>> claim = fluid_claim(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = write_certificates([claim], Path(folder))
    ...     [p.name for p in written], verify(written[0])
    (['lossnet.fluid.json'], [])
    """
    from qtheory.core.provenance import provenance
    from qtheory.verify.statements import render

    certified = [c for c in claims if c.certificate is not None]
    names = {certificate_filename(c) for c in certified}
    record = provenance()
    for stale in folder.glob("*.json") if folder.is_dir() else ():
        if stale.name not in names:
            stale.unlink()
    written = []
    for claim in certified:
        data = claim.certificate["data"]
        content = {
            "claim": claim.name,
            "statement": render(claim.name, data),
            "checker": claim.certificate["checker"],
            "data": data,
            "provenance": record,
        }
        text = json.dumps(content, indent=1, sort_keys=True) + "\n"
        written.append(latex.write_text(folder / certificate_filename(claim), text))
    return written
