"""Tests of the LaTeX emitters."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from qtheory.report import (
    Latex,
    align,
    document,
    equation,
    escape,
    figure,
    number,
    section,
    table,
    write_text,
)
from qtheory.report.latex import DECIMAL_COLUMN

UNESCAPED_AMPERSAND = re.compile(r"(?<!\\)&")


def table_body(text: str) -> list[str]:
    """The lines between \\toprule and \\bottomrule, header included."""
    lines = [line.strip() for line in text.splitlines()]
    return lines[lines.index(r"\toprule") + 1 : lines.index(r"\bottomrule")]


# ---------------------------------------------------------------------------
# numbers and escaping


@pytest.mark.parametrize(
    ("value", "digits", "expected"),
    [
        (0, 6, "0"),
        (12345678901234567890, 6, r"12\,345\,678\,901\,234\,567\,890"),
        (1234, 6, "1234"),
        (np.int64(-7), 6, "$-7$"),
        (0.5, 6, "0.5"),
        (np.float64(1 / 3), 4, "0.3333"),
        (-2.25, 6, "$-2.25$"),
        (1.23456e-5, 3, r"$1.23\times 10^{-5}$"),
        (6.02214076e23, 4, r"$6.022\times 10^{23}$"),
        (-1e-300, 6, r"$-1\times 10^{-300}$"),
        (float("nan"), 6, "--"),
        (float("inf"), 6, r"$\infty$"),
        (-np.inf, 6, r"$-\infty$"),
        (np.float32(0.25), 6, "0.25"),
    ],
)
def test_number(value, digits, expected):
    assert number(value, digits) == expected


@pytest.mark.parametrize("bad", ["1.0", None, True, 1j])
def test_number_rejects_non_numbers(bad):
    with pytest.raises(ValueError, match="x must be a real number"):
        number(bad)


def test_escape_every_special_character():
    assert escape(r"a&b%c$d#e_f{g}h~i^j\k<l>m|n") == (
        r"a\&b\%c\$d\#e\_f\{g\}h\textasciitilde{}i\textasciicircum{}j"
        r"\textbackslash{}k\textless{}l\textgreater{}m\textbar{}n"
    )


@given(st.text(max_size=40))
def test_escape_leaves_no_bare_special_character(text):
    escaped = escape(text)
    # remove the escape sequences; what is left must contain no special character
    stripped = re.sub(
        r"\\(textbackslash|textasciitilde|textasciicircum|textless|textgreater|textbar)\{\}"
        r"|\\ensuremath\{\\[A-Za-z]+\}"  # Unicode mathematics
        r"|\\[&%$#_{}]"
        r"|(?<=-)\{\}",  # the empty group that keeps "--" two hyphens
        "",
        escaped,
    )
    assert not set(stripped) & set("\\&%$#_{}~^<>|")


# ---------------------------------------------------------------------------
# tables

COLUMNS = [r"$\tau^*$", "policy", r"$R_{\mathrm{off}}$", "n"]
ROWS = [
    [0.123456789, "R_off & co", 1.5e-7, 3],
    [float("nan"), "50% ~ #1", float("inf"), np.int64(10)],
    [2.0, Latex(r"$\alpha_1$"), -float("inf"), -4],
]


def test_table_structure():
    text = table(COLUMNS, ROWS, caption=r"Welfare at $\tau^*$.", label="tab:welfare")
    lines = [line.strip() for line in text.splitlines()]
    assert lines[0] == r"\begin{table}[htbp]" and lines[-1] == r"\end{table}"
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert lines.count(rule) == 1
    assert lines.index(r"\toprule") < lines.index(r"\midrule") < lines.index(r"\bottomrule")
    assert r"\caption{Welfare at $\tau^*$.}" in lines
    assert r"\label{tab:welfare}" in lines
    d = DECIMAL_COLUMN  # columns with a float align on the point, integers right
    assert rf"\begin{{tabular}}{{{d}l{d}r}}" in lines
    body = table_body(text)
    assert len(body) == 1 + 1 + len(ROWS)  # header, \midrule, rows
    for line in body:
        if line == r"\midrule":
            continue
        assert line.endswith(r" \\")
        assert len(UNESCAPED_AMPERSAND.findall(line)) == len(COLUMNS) - 1
    centred = [rf"\multicolumn{{1}}{{c}}{{{COLUMNS[j]}}}" for j in (0, 2)]
    assert body[0] == " & ".join([centred[0], COLUMNS[1], centred[1], COLUMNS[3]]) + r" \\"


def test_table_cells_escaped_and_formatted():
    text = table(COLUMNS, ROWS, caption="c", label="t", formats={0: ".3f", 2: ".2e"})
    body = table_body(text)
    row0, row1, row2 = body[2:]
    # the decimal columns are in math mode: no dollars, the dash in an mbox
    assert row0 == r"0.123 & R\_off \& co & 1.50\times 10^{-7} & 3 \\"
    assert row1 == r"\mbox{--} & 50\% \textasciitilde{} \#1 & \infty & 10 \\"
    assert row2 == r"2.000 & $\alpha_1$ & -\infty & $-4$ \\"


def test_table_default_format_and_callable():
    text = table(
        ["a", "b"],
        [[1 / 3, 2.0], [None, 0.5]],
        caption="c",
        label="t",
        formats={1: lambda v: rf"\num{{{v}}}"},
    )
    body = table_body(text)
    assert body[2] == r"0.333333 & \num{2.0} \\"
    assert body[3] == r"& \num{0.5} \\"  # None is an empty cell


def column(values, fmt=None):
    """The cells of a one-column table of ``values``."""
    formats = {} if fmt is None else {0: fmt}
    return [
        row.removesuffix(r" \\")
        for row in table_body(
            table(["x"], [[v] for v in values], caption="c", label="t", formats=formats)
        )[2:]
    ]


def test_column_keeps_its_significant_digits():
    # ten significant digits each, trailing zeros kept (by hand: 16 = 16.00000000)
    assert column([16.0, 35.2, 1588.947953], ".10g") == [
        "16.00000000",
        "35.20000000",
        "1588.947953",
    ]
    assert column([0.5, 2.0]) == ["0.500000", "2.00000"]  # the default: six digits
    assert column([34470.4], ".10g") == [r"34\,470.40000"]  # whole part grouped


def test_column_goes_scientific_only_when_it_must():
    # 1.6e12 cannot be written out in ten significant digits, so the whole column is
    # scientific; a column that can be written out is (1e-4 .. 1e9 at ten digits)
    assert column([16.0, 1.6e12], ".10g") == [
        r"1.600000000\times 10^{1}",
        r"1.600000000\times 10^{12}",
    ]
    assert column([1e-4, 123456789.0], ".10g") == ["0.0001000000000", "123\\,456\\,789.0"]
    assert column([1.5e-7, 2.0], ".2g") == [r"1.5\times 10^{-7}", r"2.0\times 10^{0}"]


def test_integers_grouped_by_thin_spaces():
    assert column([2154434690, 1234, -56789]) == [r"2\,154\,434\,690", "1234", r"$-56\,789$"]


def test_decimal_alignment_explicit():
    text = table(
        ["q", "v"],
        [["a", 0.5], ["b", Latex("$1.5 \\pm 0.2$")]],
        caption="c",
        label="t",
        alignment="p{0.3\\linewidth}d",
    )
    assert rf"\begin{{tabular}}{{p{{0.3\linewidth}}{DECIMAL_COLUMN}}}" in text
    body = table_body(text)
    assert body[2:] == [r"a & 0.500000 \\", r"b & 1.5 \pm 0.2 \\"]  # dollars dropped
    with pytest.raises(ValueError, match="one column per header"):
        table(["q", "v"], [["a", 0.5]], caption="c", label="t", alignment="d")
    with pytest.raises(ValueError, match="alignment must be made of the columns"):
        table(["q"], [["a"]], caption="c", label="t", alignment="X")


def test_table_notes_and_alignment():
    text = table(["a"], [[1]], caption="c", label="t", notes=r"$^*$ simulated.", alignment="c")
    assert r"\begin{tabular}{c}" in text
    assert r"{\footnotesize $^*$ simulated.\par}" in text
    assert text.index(r"\end{tabular}") < text.index("simulated")


def test_long_table_repeats_its_header_and_is_no_float():
    text = table(["a", "b"], [[1, 0.5], [2, 0.25]], caption="c", label="tab:l",
                 notes="n.", size="small", fit=False, long=True)  # fmt: skip
    assert r"\begin{table}" not in text and r"\resizebox" not in text
    assert text.startswith(r"\begingroup\small\setlength{\LTcapwidth}{\linewidth}")
    assert text.count(r"a & \multicolumn{1}{c}{b} \\") == 2  # first head and every page's
    head_end, foot_end = text.index(r"\endhead"), text.index(r"\endfoot")
    assert text.index(r"\endfirsthead") < head_end < foot_end < text.index("1 & 0.50")
    assert text.index(r"\end{longtable}") < text.index("{\\footnotesize n.\\par}")
    assert text.rstrip().endswith(r"\endgroup")
    with pytest.raises(ValueError, match="fit must be False for a long table"):
        table(["a"], [[1]], caption="c", label="t", long=True)


def test_table_bad_input():
    with pytest.raises(ValueError, match="rows must have one cell per column"):
        table(["a", "b"], [[1, 2], [3]], caption="c", label="t")
    with pytest.raises(ValueError, match="formats keys must be column indices"):
        table(["a"], [[1]], caption="c", label="t", formats={1: ".3f"})
    with pytest.raises(ValueError, match="columns must not be empty"):
        table([], [], caption="c", label="t")


# ---------------------------------------------------------------------------
# equations


def test_equation_contains_sympy_latex():
    mu, lam, tau = sympy.symbols("mu lambda tau", positive=True)
    expr = lam / (mu * (mu - lam)) + sympy.exp(-mu * tau)
    text = equation(sympy.Symbol("W"), expr, label="eq:wait")
    assert sympy.latex(expr) in text
    assert text.splitlines() == [
        r"\begin{equation}",
        f"  W = {sympy.latex(expr)}",
        r"  \label{eq:wait}",
        r"\end{equation}",
    ]


def test_equation_printer_settings_and_strings():
    rho = sympy.Symbol("rho", positive=True)
    expr = sympy.log(1 - rho)
    assert r"\ln" in equation("L", expr, ln_notation=True)
    assert sympy.latex(expr, ln_notation=True) in equation("L", expr, ln_notation=True)
    assert r"\log" in equation("L", expr)
    text = equation(r"\sigma", r"\hat A(\mu(1-\sigma))", relation=r"\le")
    assert r"  \sigma \le \hat A(\mu(1-\sigma))" in text.splitlines()
    assert r"\label" not in text


def test_align_rows_and_numbering():
    x = sympy.Symbol("x")
    text = align(
        [("f(x)", (x + 1) ** 2), ("", x**2 + 2 * x + 1), ("g", r"\ge", 0)], label="eq:chain"
    )
    lines = text.splitlines()
    assert lines[0] == r"\begin{align}" and lines[-1] == r"\end{align}"
    assert lines[1] == rf"  f(x) &= {sympy.latex((x + 1) ** 2)} \nonumber\\"
    assert lines[2] == rf"  &= {sympy.latex(x**2 + 2 * x + 1)} \nonumber\\"
    assert lines[3] == r"  g &\ge 0 \label{eq:chain}"
    with pytest.raises(ValueError, match="rows must be"):
        align([("a", "b", "c", "d")])
    with pytest.raises(ValueError, match="at least one"):
        align([])


# ---------------------------------------------------------------------------
# figures, sections and the document


def test_figure():
    text = figure("lossnet/regret", r"Regret, $N\to\infty$.", "fig:regret", width="0.6\\linewidth")
    assert r"\includegraphics[width=0.6\linewidth]{lossnet/regret}" in text
    assert r"\caption{Regret, $N\to\infty$.}" in text
    assert r"\label{fig:regret}" in text
    assert text.startswith(r"\begin{figure}") and text.endswith("\\end{figure}\n")
    with pytest.raises(ValueError, match="stem must not have a file extension"):
        figure("a/b.pdf", "c", "l")
    assert "{rho0.5}" in figure("rho0.5", "c", "l")  # a dot is not an image extension


def test_section():
    assert section("Claims", "Body.\n\n") == "\\section{Claims}\n\nBody.\n"
    assert section("Claims", "B", label="sec:c").splitlines()[:2] == [
        r"\section{Claims}",
        r"\label{sec:c}",
    ]


def test_document_inputs_every_part_in_order():
    parts = ["gated/derivation", "gated/claims", "lossnet/fluid", "lossnet/claims.tex"]
    text = document("qtheory checks", parts)
    assert text.startswith("%") and r"\documentclass" in text
    for package in ("amsmath", "amssymb", "booktabs", "array", "longtable", "graphicx"):
        assert rf"\usepackage{{{package}}}" in text
    assert r"\usepackage[hidelinks]{hyperref}" in text  # no red boxes round the links
    assert r"\usepackage[margin=1in]{geometry}" in text
    packages = re.findall(r"\\usepackage(?:\[[^]]*\])?\{([^}]*)\}", text)
    assert packages[-1] == "hyperref"  # hyperref must be loaded last
    assert r"\graphicspath{{../figures/}}" in text
    assert r"\title{qtheory checks}" in text
    inputs = re.findall(r"\\input\{([^}]*)\}", text)
    assert inputs == parts
    begin, end = text.index(r"\begin{document}"), text.index(r"\end{document}")
    assert all(begin < text.index(rf"\input{{{p}}}") < end for p in parts)
    assert text.endswith("\\end{document}\n")


def test_document_is_set_as_a_paper():
    text = document(
        r"Checks of $\Lambda$", ["a"], abstract="We check.", front="FRONT",
        references=r"\begin{thebibliography}{X}\end{thebibliography}", author="Q & co",
        subject="queues",
    )  # fmt: skip
    assert r"\hypersetup{pdftitle={Checks of}, pdfauthor={Q & co}, pdfsubject={queues}}" in text
    assert r"\author{Q \& co}" in text
    order = [r"\maketitle", r"\begin{abstract}", "We check.", "FRONT", r"\tableofcontents",
             r"\input{a}", r"\begin{thebibliography}", r"\end{document}"]  # fmt: skip
    positions = [text.index(piece) for piece in order]
    assert positions == sorted(positions)


def test_document_bad_paths(tmp_path):
    with pytest.raises(ValueError, match="inputs must be relative"):
        document("t", [tmp_path / "a"])
    with pytest.raises(ValueError, match="whitespace"):
        document("t", ["my part"])


# ---------------------------------------------------------------------------
# writing


def test_write_text_creates_and_only_rewrites_on_change(tmp_path):
    target = tmp_path / "derivations" / "gated" / "claims.tex"
    assert write_text(target, "α = 1\n") == target
    assert target.read_bytes() == "α = 1\n".encode()
    stamp = target.stat().st_mtime_ns
    # force an old mtime so that a rewrite would be visible even on coarse clocks
    os.utime(target, ns=(stamp - 10**9, stamp - 10**9))
    old = target.stat().st_mtime_ns
    write_text(target, "α = 1\n")
    assert target.stat().st_mtime_ns == old  # unchanged content: not touched
    write_text(target, "α = 2\n")
    assert target.read_text(encoding="utf-8") == "α = 2\n"
    assert target.stat().st_mtime_ns != old
    assert sorted(p.name for p in target.parent.iterdir()) == ["claims.tex"]  # no temp files


def test_table_size():
    text = table(["a"], [[1]], caption="c", label="tab:x", size="footnotesize")
    assert "\\centering\\footnotesize" in text
    with pytest.raises(ValueError, match="size must be None or one of"):
        table(["a"], [[1]], caption="c", label="tab:x", size="huge")
