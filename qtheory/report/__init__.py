"""The report layer: LaTeX emission and plots shared by every model, each model's report
steps (:mod:`~qtheory.report.gated`, :mod:`~qtheory.report.lossnet`, …), the claims
report, :mod:`~qtheory.report.reproduce`, the user's tables (:mod:`~qtheory.report.tables`)
and checks (:mod:`~qtheory.report.check`).

:mod:`qtheory.report.latex` turns Sympy expressions and result rows into LaTeX
(equations, booktabs tables, figures, ``main.tex``); :mod:`qtheory.report.plots`
makes paper-style matplotlib figures without touching pyplot or global state.
"""

from qtheory.core.lazy import lazy_package

#: Every public name -> its module, imported on first use (PEP 562), so that importing a
#: report module (``qtheory check``'s, say) loads neither Sympy nor matplotlib.
_LAZY = {
    "Latex": "latex",
    "align": "latex",
    "code": "latex",
    "document": "latex",
    "equation": "latex",
    "escape": "latex",
    "estimate": "latex",
    "figure": "latex",
    "number": "latex",
    "section": "latex",
    "table": "latex",
    "write_text": "latex",
    "PAPER_RC": "plots",
    "new_figure": "plots",
    "paper_style": "plots",
    "save_figure": "plots",
}

__all__ = [
    "PAPER_RC",
    "Latex",
    "align",
    "code",
    "document",
    "equation",
    "escape",
    "estimate",
    "figure",
    "new_figure",
    "number",
    "paper_style",
    "save_figure",
    "section",
    "table",
    "write_text",
]

lazy_package(__name__, _LAZY)
