r"""LaTeX emission: equations, booktabs tables, figures, sections and ``main.tex``.

Every function returns a string; :func:`write_text` puts it on disk only when the
content changed, so that rerunning ``qtheory reproduce`` leaves the modification
times of unchanged parts alone (and ``make``/``latexmk`` rebuild nothing).

What is escaped and what is not
-------------------------------
Captions, titles, column headers, notes, labels and strings given as equation sides
are LaTeX and are emitted verbatim (so ``r"$\tau^*$"`` works).  Table *cells* that
are plain ``str`` are text and are escaped with :func:`escape`; wrap a cell in
:class:`Latex` to emit it verbatim instead.

Examples
--------
>>> import sympy
>>> x = sympy.Symbol("x")
>>> print(equation("f(x)", sympy.exp(-x), label="eq:f"), end="")
\begin{equation}
  f(x) = e^{- x}
  \label{eq:f}
\end{equation}
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from numbers import Real
from pathlib import Path, PurePath
from typing import Any

import numpy as np

from qtheory.core import notation
from qtheory.core.printing import estimate_latex

__all__ = [
    "Latex",
    "align",
    "code",
    "document",
    "equation",
    "escape",
    "estimate",
    "figure",
    "number",
    "section",
    "table",
    "write_text",
]

#: Packages loaded by :func:`document`, in order, as ``(name, "[options]")``: 1-inch margins
#: (``geometry``) so that the generated tables fit the text width, ``dcolumn`` for columns
#: aligned on the decimal point, and ``longtable`` for tables that may break across pages
#: (the claims report).  ``hyperref`` must come last.
#: Each is in Debian's texlive-latex-base or texlive-latex-recommended.
PACKAGES = (
    ("geometry", "[margin=1in]"),
    ("amsmath", ""),
    ("amssymb", ""),
    ("booktabs", ""),
    ("array", ""),
    ("dcolumn", ""),
    ("longtable", ""),
    ("graphicx", ""),
    ("hyperref", "[hidelinks]"),
)

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    **{char: rf"\ensuremath{{{command}}}" for char, command in notation.UNICODE_MATH.items()},
}
_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in _SPECIAL))
#: A hyphen followed by another: TeX's ligatures would merge ``--`` into an en dash and
#: ``---`` into an em dash, so ``--paper`` is set as two hyphens (``-{}-paper``).
_HYPHEN_LIGATURE_RE = re.compile(r"-(?=-)")
_SCIENTIFIC_RE = re.compile(r"^([+-]?[0-9.,_]*)[eE]([+-]?[0-9]+)$")
_IMAGE_SUFFIXES = {".pdf", ".png", ".jpg", ".jpeg", ".eps", ".svg"}


class Latex(str):
    r"""A string that is already LaTeX: table cells of this type are not escaped.

    A subclass of :class:`str` with no extra state; :func:`table` passes it through
    where it escapes any other string with :func:`escape`.

    Examples
    --------
    >>> table(["x"], [[Latex(r"$\alpha$")], ["50%"]], caption="c", label="t").count(r"\%")
    1
    """

    __slots__ = ()


def escape(text: str) -> str:
    r"""Escape the characters that are special in LaTeX text mode.

    Parameters
    ----------
    text : str
        Plain text.

    Returns
    -------
    str
        Text that typesets as ``text`` (``\``, ``&``, ``%``, ``$``, ``#``, ``_``,
        ``{``, ``}``, ``~``, ``^``, ``<``, ``>``, ``|`` are replaced, and a hyphen before
        another gets ``{}`` so that ``--`` stays two hyphens; in the default OT1
        font encoding ``<``, ``>`` and ``|`` would print as ``¡``, ``¿`` and a dash), and
        Unicode mathematics (``λ``, ``≤``, ``∞``) becomes ``\ensuremath{\lambda}``.

    Examples
    --------
    >>> print(escape("R_off - R_SSS: 5% & $3 {x} ~ a^b \\"))
    R\_off - R\_SSS: 5\% \& \$3 \{x\} \textasciitilde{} a\textasciicircum{}b \textbackslash{}
    >>> print(escape("τ ≤ ∞"))
    \ensuremath{\tau} \ensuremath{\le} \ensuremath{\infty}
    >>> print(escape("qtheory reproduce --paper"))
    qtheory reproduce -{}-paper
    """
    escaped = _SPECIAL_RE.sub(lambda match: _SPECIAL[match.group(0)], str(text))
    return _HYPHEN_LIGATURE_RE.sub("-{}", escaped)


def code(text: str) -> Latex:
    r"""Code (a command, an option, a module or a claim name) in typewriter type: escaped,
    and breakable after its dots, underscores, slashes and opening brackets so that a long
    name does not run into the margin.

    Parameters
    ----------
    text : str

    Returns
    -------
    Latex

    Examples
    --------
    >>> print(code("qtheory.gated.certified"))
    \texttt{qtheory.\allowbreak{}gated.\allowbreak{}certified}
    >>> print(code("qtheory reproduce --paper"))
    \texttt{qtheory reproduce -{}-paper}
    """
    escaped = escape(text)
    for mark in (".", r"\_", "/", "["):
        escaped = escaped.replace(mark, mark + r"\allowbreak{}")
    return Latex(rf"\texttt{{{escaped}}}")


def _is_number(value: object) -> bool:
    return not isinstance(value, bool | np.bool_ | str) and isinstance(
        value, Real | np.integer | np.floating
    )


def _group(whole: str) -> str:
    r"""Thin spaces (``\,``) between the groups of three digits of a whole part of five or
    more digits, as SI writes them (``34\,470``; ``1234`` stays)."""
    sign = whole[:1] if whole[:1] in "+-" else ""
    digits = whole[len(sign) :]
    if len(digits) < 5 or not digits.isdigit():
        return whole
    head = len(digits) % 3 or 3
    groups = [digits[:head], *(digits[i : i + 3] for i in range(head, len(digits), 3))]
    return sign + r"\,".join(groups)


def _numeral(text: str) -> str:
    r"""Python's numeral as LaTeX mathematics (no dollars): ``'1.5e-04'`` as
    ``1.5\times 10^{-4}``, a whole part of five or more digits grouped by thin spaces."""
    match = _SCIENTIFIC_RE.match(text)
    if match:
        mantissa, exponent = match.groups()
        return rf"{mantissa}\times 10^{{{int(exponent)}}}"
    whole, point, fraction = text.partition(".")
    return _group(whole) + point + fraction


def _text_or_math(numeral: str) -> str:
    """A numeral as text where it is plain digits, else in math mode (a true minus sign,
    ``\\times``, ``\\infty``)."""
    if numeral.startswith("-") or "\\" in numeral.replace(r"\,", ""):
        return f"${numeral}$"
    return numeral


#: NaN in a table: a dash.
_DASH = "--"


def number(x: float | np.number, digits: int = 6) -> str:
    r"""Format a number for a LaTeX table cell.

    Parameters
    ----------
    x : int or float
        The value (Python or NumPy scalar).
    digits : int, default 6
        Significant digits for floats (the ``g`` format).

    Returns
    -------
    str
        Integers in full (a whole part of five or more digits grouped by thin spaces);
        floats with ``digits`` significant digits, in scientific notation as
        ``$m\times 10^{e}$`` when ``g`` would use an exponent; negative values in math
        mode (a true minus sign); ``nan`` as ``--``; ``inf`` as ``$\infty$``.

    Examples
    --------
    >>> number(0.0000123456789, 3)
    '$1.23\\times 10^{-5}$'
    >>> number(2.5), number(-2.5), number(12), number(float("nan")), number(float("inf"))
    ('2.5', '$-2.5$', '12', '--', '$\\infty$')
    >>> number(2154434690)
    '2\\,154\\,434\\,690'
    """
    if not _is_number(x):
        raise ValueError(f"x must be a real number, got {x!r}")
    if isinstance(x, int | np.integer):
        return _text_or_math(_numeral(str(int(x))))
    value = float(x)
    if math.isnan(value):
        return _DASH
    if math.isinf(value):
        return r"$\infty$" if value > 0 else r"$-\infty$"
    return _text_or_math(_numeral(f"{value:.{int(digits)}g}"))


def estimate(value: object, *, scale: float = 1.0) -> Latex:
    r"""A table cell ``mean ± half-width`` of an estimate, in math mode: the half-width of
    its 95% confidence interval, as every caption with such cells says, to two
    significant digits and the mean to the same decimal place
    (:func:`qtheory.core.printing.mean_and_halfwidth`): no digit the interval does not
    support.

    The one formatter of an :class:`~qtheory.core.stats.Estimate` in the report.

    Parameters
    ----------
    value : qtheory.core.stats.Estimate
        Anything with ``mean`` and ``halfwidth``.
    scale : float, keyword-only, default 1
        A divisor of both, e.g. N for a per-server rate.

    Returns
    -------
    Latex

    Examples
    --------
    >>> from qtheory.core.stats import Estimate
    >>> print(estimate(Estimate(mean=12.3456, halfwidth=0.789, n=5)))
    $12.35 \pm 0.79$
    >>> print(estimate(Estimate(mean=-30.827, halfwidth=877.192, n=5)))
    $-30 \pm 880$
    >>> print(estimate(Estimate(mean=200.0, halfwidth=4.0, n=5), scale=100))
    $2.000 \pm 0.040$
    """
    return Latex(f"${estimate_latex(value.mean / scale, value.halfwidth / scale)}$")


#: The ``tabular`` column that aligns numbers on their decimal point (``dcolumn``'s ``D``
#: column, its cells in math mode); :func:`table` writes it for the letter ``d``.
DECIMAL_COLUMN = "D{.}{.}{-1}"
_G_SPEC_RE = re.compile(r"\.([0-9]+)g|g")
#: One column of a ``tabular`` spec (``l``, ``c``, ``r``, ``d``, ``p{...}``) or a
#: decoration between columns (``|``, ``@{...}``, ``>{...}``).
_SPEC_TOKEN_RE = re.compile(r"[pmb]\{[^{}]*\}|[@!<>]\{[^{}]*\}|[lcrd|]")


def _significant(fmt: object) -> int | None:
    """The significant digits of a ``g`` spec (6 for no spec); None for any other spec."""
    if fmt is None:
        return 6
    match = _G_SPEC_RE.fullmatch(str(fmt))
    return None if match is None else int(match.group(1) or 6)


def _column_numerals(values: Sequence[object], fmt: object) -> list[str | None]:
    r"""The numbers of one column as LaTeX mathematics (no dollars), formatted together;
    None for a cell that is not a number.

    Integers are written in full.  Under a ``g`` spec (the default: 6 digits) every float
    of the column gets the same number of significant digits, trailing zeros kept, written
    out when every one of them can be (decimal exponents -4 to digits - 1) and otherwise
    every one as :math:`m\times 10^{e}`: scientific notation only in a column that needs
    it.  Any other spec (``".3f"``, ``".2e"``) is :func:`format`'s, cell by cell.  A whole
    part of five or more digits is grouped by thin spaces; ``nan`` is a dash.
    """
    digits = _significant(fmt)
    finite = [
        float(v)
        for v in values
        if _is_number(v) and not isinstance(v, int | np.integer) and math.isfinite(float(v))
    ]
    scientific = digits is not None and any(
        not -4 <= int(f"{x:.{digits - 1}e}".partition("e")[2]) < digits for x in finite if x
    )
    numerals: list[str | None] = []
    for value in values:
        if not _is_number(value):
            numerals.append(None)
        elif isinstance(value, int | np.integer):
            numerals.append(_numeral(str(int(value))))
        elif math.isnan(x := float(value)):
            numerals.append(_DASH)
        elif math.isinf(x):
            numerals.append(r"\infty" if x > 0 else r"-\infty")
        elif digits is None:
            numerals.append(_numeral(format(x, str(fmt))))
        elif scientific:
            numerals.append(_numeral(f"{x:.{digits - 1}e}"))
        else:
            numerals.append(_numeral(f"{x:#.{digits}g}".removesuffix(".")))
    return numerals


def _column_cells(
    values: Sequence[object], fmt: str | Callable[[Any], str] | None, decimal: bool
) -> list[str]:
    """The LaTeX of one column's cells: numbers by :func:`_column_numerals` (or the
    callable ``fmt``), :class:`Latex` verbatim, other strings escaped, None empty; in a
    decimal column (math mode) a ``$...$`` cell loses its dollars and text goes in an
    ``\\mbox``."""
    if callable(fmt):
        return [_in_math(cell) if decimal and cell else cell for cell in map(str, map(fmt, values))]
    cells = []
    for value, numeral in zip(values, _column_numerals(values, fmt), strict=True):
        if numeral == _DASH:
            cells.append(r"\mbox{--}" if decimal else _DASH)
        elif numeral is not None:
            cells.append(numeral if decimal else _text_or_math(numeral))
        elif value is None:
            cells.append("")
        else:
            text = str(value) if isinstance(value, Latex) else escape(str(value))
            cells.append(_in_math(text) if decimal else text)
    return cells


def _in_math(cell: str) -> str:
    """A text cell for a math-mode column: ``$x$`` as ``x``, anything else in an mbox."""
    match = re.fullmatch(r"\$([^$]*)\$", cell)
    return match.group(1) if match else rf"\mbox{{{cell}}}"


def _spec_columns(alignment: str, width: int) -> tuple[str, list[bool]]:
    """The ``tabular`` spec with each ``d`` as :data:`DECIMAL_COLUMN`, and which columns
    are decimal ones."""
    tokens = _SPEC_TOKEN_RE.findall(alignment)
    if "".join(tokens) != alignment:
        raise ValueError(
            "alignment must be made of the columns l, c, r, d, p{..}, m{..}, b{..} and the "
            f"decorations |, @{{..}}, !{{..}}, >{{..}}, <{{..}}, got {alignment!r}"
        )
    columns = [t for t in tokens if t[0] in "lcrdpmb"]
    if len(columns) != width:
        raise ValueError(
            f"alignment must have one column per header ({width}), {alignment!r} has {len(columns)}"
        )
    spec = "".join(DECIMAL_COLUMN if t == "d" else t for t in tokens)
    return spec, [t == "d" for t in columns]


def _auto_alignment(columns: list[list[object]], formats: Mapping[int, object]) -> str:
    """``d`` for a column of numbers with a float among them, ``r`` for one of integers,
    ``l`` otherwise (None cells count as numbers)."""
    letters = []
    for j, values in enumerate(columns):
        numbers = [v for v in values if v is not None]
        if not numbers or not all(_is_number(v) for v in numbers):
            letters.append("l")
        elif not callable(formats.get(j)) and any(
            not isinstance(v, int | np.integer) for v in numbers
        ):
            letters.append("d")
        else:
            letters.append("r")
    return "".join(letters)


TABLE_SIZES = ("small", "footnotesize", "scriptsize")


def table(
    columns: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    caption: str,
    label: str,
    formats: Mapping[int, str | Callable[[Any], str]] | None = None,
    notes: str | None = None,
    alignment: str | None = None,
    size: str | None = None,
    fit: bool = True,
    long: bool = False,
) -> str:
    r"""A booktabs table inside a ``table`` float, or (``long=True``) a ``longtable``
    that breaks across pages.

    Parameters
    ----------
    columns : sequence of str
        Header cells, LaTeX (e.g. ``r"$\tau^*$"``), emitted verbatim.
    rows : iterable of sequences
        Cells: numbers are formatted column by column (see ``formats``), plain strings
        are escaped, :class:`Latex` strings are verbatim, ``None`` is empty.
    caption, label : str
        LaTeX caption (verbatim) and ``\label`` key (e.g. ``"tab:gated"``).
    formats : mapping of int to str or callable, optional
        Column index to a format spec for :func:`format` or to a callable returning the
        cell's LaTeX.  A ``g`` spec (``".6g"``, the default for every column) is a
        column's: each float gets that many significant digits, trailing zeros kept, all
        written out or, if one of them needs an exponent, all as
        :math:`m\times 10^{e}`; other specs (``".3f"``, ``".2e"``) go cell by cell.
        Integers are written in full, a whole part of five or more digits grouped by thin
        spaces; ``nan``/``inf`` print as ``--`` and ``$\infty$`` whatever the spec.
    notes : str, optional
        LaTeX set in footnote size under the table.
    alignment : str, optional
        Column spec for ``tabular`` made of the columns ``l``, ``c``, ``r``, ``d``,
        ``p{..}``, ``m{..}``, ``b{..}`` and the decorations ``|``, ``@{..}``, ``!{..}``,
        ``>{..}``, ``<{..}``, where ``d`` is a column aligned on the decimal point
        (:data:`DECIMAL_COLUMN`, which needs ``\usepackage{dcolumn}``; its header is
        centred); by default ``d`` for a numeric column with a float in it, ``r`` for
        one of integers and ``l`` otherwise.
    size : str, optional
        A smaller font for a wide table: ``"small"``, ``"footnotesize"`` or
        ``"scriptsize"``.
    fit : bool, default True
        Shrink the tabular to the line width if it is wider (graphicx's ``\resizebox``,
        a no-op on a page wide enough), so that it fits a page of any width; False
        leaves it as it is (and needs no graphicx).
    long : bool, default False
        A ``longtable`` (needs ``\usepackage{longtable}``) instead of a float: the
        header repeated on every page, the caption as wide as the line, ``size`` for the
        whole table and ``notes`` under it; it cannot be resized, so it needs
        ``fit=False``.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If a row does not have one cell per column, ``formats`` names a column
        that does not exist, ``alignment`` is not a simple column spec (see
        ``alignment``) or does not have one column per header, ``size`` is not one of
        the three sizes, or ``long`` comes with ``fit``.

    Examples
    --------
    >>> print(table(["$n$", "value"], [[1, 0.5], [20000, float("nan")]],
    ...             caption="Demo.", label="tab:demo", formats={1: ".2f"}), end="")
    \begin{table}[htbp]
      \centering
      \caption{Demo.}
      \label{tab:demo}
      \resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%
      \begin{tabular}{rD{.}{.}{-1}}
        \toprule
        $n$ & \multicolumn{1}{c}{value} \\
        \midrule
        1 & 0.50 \\
        20\,000 & \mbox{--} \\
        \bottomrule
      \end{tabular}
      }
    \end{table}
    """
    columns = list(columns)
    rows = [list(row) for row in rows]
    width = len(columns)
    if width == 0:
        raise ValueError("columns must not be empty")
    if size not in (None, *TABLE_SIZES):
        raise ValueError(f"size must be None or one of {TABLE_SIZES}, got {size!r}")
    if long and fit:
        raise ValueError("fit must be False for a long table (a longtable cannot be resized)")
    formats = dict(formats or {})
    for index in formats:
        if not (isinstance(index, int) and 0 <= index < width):
            raise ValueError(f"formats keys must be column indices 0..{width - 1}, got {index!r}")
    for number_, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(
                f"rows must have one cell per column ({width}), row {number_} has {len(row)}"
            )
    by_column = [[row[j] for row in rows] for j in range(width)]
    spec, decimal = _spec_columns(alignment or _auto_alignment(by_column, formats), width)
    cells = [
        _column_cells(values, formats.get(j), decimal[j]) for j, values in enumerate(by_column)
    ]
    body = [" & ".join(column[i] for column in cells) for i in range(len(rows))]
    header = [
        rf"\multicolumn{{1}}{{c}}{{{name}}}" if decimal[j] else name
        for j, name in enumerate(columns)
    ]
    header_line = " & ".join(header) + r" \\"
    if long:
        return _long_table(spec, header_line, body, caption, label, notes, size)
    lines = [
        r"\begin{table}[htbp]",
        r"  \centering" + (rf"\{size}" if size else ""),
        rf"  \caption{{{caption}}}",
        rf"  \label{{{label}}}",
        *([r"  \resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%"] if fit else []),
        rf"  \begin{{tabular}}{{{spec}}}",
        r"    \toprule",
        f"    {header_line}",
        r"    \midrule",
        *("    " + line + r" \\" for line in body),
        r"    \bottomrule",
        r"  \end{tabular}",
        *([r"  }"] if fit else []),
    ]
    if notes:
        lines += [r"  \par\smallskip", rf"  {{\footnotesize {notes}\par}}"]
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def _long_table(
    spec: str,
    header: str,
    body: list[str],
    caption: str,
    label: str,
    notes: str | None,
    size: str | None,
) -> str:
    """The ``longtable`` of :func:`table`: the header on every page, the rule at the
    foot of each."""
    head = [r"  \toprule", f"  {header}", r"  \midrule"]
    lines = [
        r"\begingroup" + (rf"\{size}" if size else "") + r"\setlength{\LTcapwidth}{\linewidth}",
        rf"\begin{{longtable}}{{{spec}}}",
        rf"  \caption{{{caption}}}",
        rf"  \label{{{label}}} \\",
        *head, r"  \endfirsthead", *head, r"  \endhead", r"  \bottomrule", r"  \endfoot",
        *("  " + line + r" \\" for line in body),
        r"\end{longtable}",
        *([rf"{{\footnotesize {notes}\par}}"] if notes else []),
        r"\endgroup",
    ]  # fmt: skip
    return "\n".join(lines) + "\n"


def _tex(side: object, settings: Mapping[str, Any]) -> str:
    r"""A side of an equation: strings as they are, Sympy objects printed with the symbol
    names of :mod:`qtheory.core.notation` (``R_fluid`` as :math:`R_{\mathrm{fluid}}`)."""
    if isinstance(side, str):
        return side
    import sympy  # only when an equation is printed: a table needs no Sympy

    free = getattr(sympy.sympify(side), "free_symbols", ())
    names = {**notation.sympy_names(free), **settings.get("symbol_names", {})}
    return sympy.latex(side, **{**settings, "symbol_names": names})


def equation(
    lhs: object,
    rhs: object,
    *,
    label: str | None = None,
    relation: str = "=",
    **latex_settings: Any,
) -> str:
    r"""A numbered ``equation`` environment ``lhs relation rhs``.

    Parameters
    ----------
    lhs, rhs : sympy expression or str
        Sympy objects (and Python numbers) are printed by :func:`sympy.latex`;
        strings are taken as LaTeX.
    label : str, optional
        ``\label`` key.
    relation : str, default "="
        LaTeX relation, e.g. ``r"\le"``.
    **latex_settings
        Printer settings passed to :func:`sympy.latex`, e.g. ``ln_notation=True``.

    Returns
    -------
    str
        The environment, ending with a newline.

    Examples
    --------
    >>> import sympy
    >>> rho = sympy.Symbol("rho", positive=True)
    >>> print(equation("L", -sympy.log(1 - rho), ln_notation=True), end="")
    \begin{equation}
      L = - \ln{\left(1 - \rho \right)}
    \end{equation}
    """
    lines = [
        r"\begin{equation}",
        f"  {_tex(lhs, latex_settings)} {relation} {_tex(rhs, latex_settings)}",
    ]
    if label is not None:
        lines.append(rf"  \label{{{label}}}")
    lines.append(r"\end{equation}")
    return "\n".join(lines) + "\n"


def align(
    rows: Iterable[Sequence[object]],
    *,
    label: str | None = None,
    **latex_settings: Any,
) -> str:
    r"""An ``align`` environment of ``lhs &= rhs`` lines, numbered on the last line.

    Parameters
    ----------
    rows : iterable of (lhs, rhs) or (lhs, relation, rhs)
        Sides as in :func:`equation`; an empty-string ``lhs`` continues a chain
        (``&= \dots``).  The relation defaults to ``=``.
    label : str, optional
        ``\label`` key of the display; it is attached to the last line, which is the
        only numbered one (the others carry ``\nonumber``).
    **latex_settings
        Printer settings passed to :func:`sympy.latex`.

    Returns
    -------
    str
        The environment, ending with a newline.

    Raises
    ------
    ValueError
        If ``rows`` is empty or a row has neither 2 nor 3 items.

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> print(align([("f", (x + 1)**2), ("", x**2 + 2*x + 1)], label="eq:f"), end="")
    \begin{align}
      f &= \left(x + 1\right)^{2} \nonumber\\
      &= x^{2} + 2 x + 1 \label{eq:f}
    \end{align}
    """
    rows = [tuple(row) for row in rows]
    if not rows:
        raise ValueError("rows must contain at least one (lhs, rhs) pair")
    body = []
    for index, row in enumerate(rows):
        if len(row) == 2:
            lhs, rhs = row
            relation = "="
        elif len(row) == 3:
            lhs, relation, rhs = row
        else:
            raise ValueError(
                f"rows must be (lhs, rhs) or (lhs, relation, rhs), row {index} has {len(row)} items"
            )
        left = _tex(lhs, latex_settings)
        line = f"  {left + ' ' if left else ''}&{relation} {_tex(rhs, latex_settings)}"
        if index < len(rows) - 1:
            line += r" \nonumber\\"
        elif label is not None:
            line += rf" \label{{{label}}}"
        body.append(line)
    return "\n".join([r"\begin{align}", *body, r"\end{align}"]) + "\n"


def figure(
    stem: str | PurePath,
    caption: str,
    label: str,
    width: str = r"0.8\linewidth",
) -> str:
    r"""A ``figure`` float that includes ``stem`` without extension.

    Without an extension ``pdflatex`` picks ``stem.pdf`` (vector) from the
    ``\graphicspath`` set by :func:`document`.

    Parameters
    ----------
    stem : str or path
        The image relative to ``figures/``, without extension.
    caption, label : str
        LaTeX caption (verbatim) and ``\label`` key.
    width : str, default ``0.8\linewidth``
        LaTeX width of the image.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``stem`` has an image file extension.

    Examples
    --------
    >>> print(figure("gated/welfare", "Welfare.", "fig:welfare"), end="")
    \begin{figure}[htbp]
      \centering
      \includegraphics[width=0.8\linewidth]{gated/welfare}
      \caption{Welfare.}
      \label{fig:welfare}
    \end{figure}
    """
    stem = PurePath(stem)
    if stem.suffix.lower() in _IMAGE_SUFFIXES:
        raise ValueError(f"stem must not have a file extension, got {stem.as_posix()!r}")
    return (
        "\n".join(
            [
                r"\begin{figure}[htbp]",
                r"  \centering",
                rf"  \includegraphics[width={width}]{{{stem.as_posix()}}}",
                rf"  \caption{{{caption}}}",
                rf"  \label{{{label}}}",
                r"\end{figure}",
            ]
        )
        + "\n"
    )


def section(title: str, body: str, *, label: str | None = None) -> str:
    r"""A ``\section`` with optional label followed by ``body``.

    Parameters
    ----------
    title : str
        LaTeX title.
    body : str
        LaTeX of the section.
    label : str, optional
        ``\label`` key.

    Returns
    -------
    str

    Examples
    --------
    >>> print(section("Gated admission", "Text.", label="sec:gated"), end="")
    \section{Gated admission}
    \label{sec:gated}
    <BLANKLINE>
    Text.
    """
    head = [rf"\section{{{title}}}"]
    if label is not None:
        head.append(rf"\label{{{label}}}")
    return "\n".join(head) + "\n\n" + body.rstrip("\n") + "\n"


def document(
    title: str,
    inputs: Iterable[str | PurePath],
    *,
    abstract: str = "",
    front: str = "",
    references: str = "",
    author: str = "",
    subject: str = "",
) -> str:
    r"""A standalone ``main.tex`` set as a paper: title, abstract, front matter, table of
    contents, each generated part ``\input`` in order, then the references.

    Links are not boxed (``hyperref``'s ``hidelinks``) and the PDF carries the title,
    author and subject in its metadata.

    Parameters
    ----------
    title : str
        The title (LaTeX); in the PDF metadata as plain text.
    inputs : iterable of str or path
        Parts, as paths relative to the directory where ``main.tex`` is compiled
        (``derivations/``); figures are looked up in ``../figures/``.
    abstract, front, references : str, keyword-only
        LaTeX: the abstract; what follows it before the contents (e.g. a provenance
        block); the references section (a ``thebibliography``), set last.  Empty ones
        are left out.
    author, subject : str, keyword-only
        Plain text for the title block and the PDF metadata.

    Returns
    -------
    str
        The document.

    Raises
    ------
    ValueError
        If a path is absolute or contains whitespace (``\input`` cannot take it).

    Examples
    --------
    >>> text = document("Checks", ["gated/claims", "lossnet/claims.tex"], abstract="We check.")
    >>> print(text[text.index(r"\begin{document}"):], end="")
    \begin{document}
    \maketitle
    \begin{abstract}
    We check.
    \end{abstract}
    \tableofcontents
    <BLANKLINE>
    \input{gated/claims}
    \input{lossnet/claims.tex}
    <BLANKLINE>
    \end{document}
    """
    parts = []
    for item in inputs:
        path = PurePath(item)
        if path.is_absolute():
            raise ValueError(f"inputs must be relative paths, got {str(item)!r}")
        posix = path.as_posix()
        if re.search(r"\s", posix):
            raise ValueError(f"inputs must not contain whitespace, got {posix!r}")
        parts.append(rf"\input{{{posix}}}")
    metadata = {"pdftitle": _pdf_text(title), "pdfauthor": author, "pdfsubject": subject}
    setup = ", ".join(f"{key}={{{value}}}" for key, value in metadata.items() if value)
    lines = [
        "% Generated by qtheory; do not edit: rerun `qtheory reproduce`.",
        r"\documentclass[11pt]{article}",
        *(rf"\usepackage{options}{{{name}}}" for name, options in PACKAGES),
        rf"\hypersetup{{{setup}}}",
        r"\graphicspath{{../figures/}}",
        r"\setlength{\emergencystretch}{3em}  % long formulas in text: stretch, not overfull",
        "",
        rf"\title{{{title}}}",
        rf"\author{{{escape(author)}}}",
        r"\date{}",
        "",
        r"\begin{document}",
        r"\maketitle",
        *([r"\begin{abstract}", abstract.strip(), r"\end{abstract}"] if abstract else []),
        *([front.strip()] if front else []),
        r"\tableofcontents",
        "",
        *parts,
        *(["", references.strip()] if references else []),
        "",
        r"\end{document}",
    ]
    return "\n".join(lines) + "\n"


def _pdf_text(title: str) -> str:
    """A LaTeX title as plain text for the PDF metadata (commands and braces dropped)."""
    return re.sub(r"\\[a-zA-Z]+\s*|[{}$]", "", title).strip()


def write_if_changed(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` (creating parent folders) unless the file already
    holds exactly these bytes; the write is atomic (temporary file + rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if path.read_bytes() == data:
            return path
    except FileNotFoundError:
        pass
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` as UTF-8 to ``path`` only if the content changed.

    Parent folders are created.  An unchanged file is not touched, so its
    modification time stays stable across reruns.

    Parameters
    ----------
    path : str or path-like
        The file.
    text : str
        Its content.

    Returns
    -------
    pathlib.Path
        The path written (or left unchanged).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> target = write_text(folder / "gated" / "claims.tex", "x\\n")
    >>> before = target.stat().st_mtime_ns
    >>> _ = write_text(target, "x\\n")
    >>> target.stat().st_mtime_ns == before, target.read_text(encoding="utf-8")
    (True, 'x\\n')
    """
    return write_if_changed(path, text.encode("utf-8"))
