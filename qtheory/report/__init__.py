"""LaTeX emission and plots shared by every model.

:mod:`qtheory.report.latex` turns Sympy expressions and result rows into LaTeX
(equations, booktabs tables, figures, ``main.tex``); :mod:`qtheory.report.plots`
makes paper-style matplotlib figures without touching pyplot or global state.
"""

from qtheory.report.latex import (
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
from qtheory.report.plots import PAPER_RC, new_figure, paper_style, save_figure

__all__ = [
    "PAPER_RC",
    "Latex",
    "align",
    "document",
    "equation",
    "escape",
    "figure",
    "new_figure",
    "number",
    "paper_style",
    "save_figure",
    "section",
    "table",
    "write_text",
]
