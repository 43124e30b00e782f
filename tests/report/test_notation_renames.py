"""Symbols that once collided across the document are named once, in qtheory.notation.

The document used one letter for several things (Lambda for the arrival rate, for partial
sums of class rates and for Chernoff exponents; nu for Naor's ratio and for degrees of
freedom; m for the marginal class, Erlang phases and a heavy-traffic constant).  The
renamed symbols live in :data:`qtheory.core.notation.NOTATION`; the report modules take
them from there, and the committed document no longer prints the old forms.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from qtheory.core import notation

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "qtheory" / "report"
DERIVATIONS = ROOT / "derivations"

#: The renamed quantities and the old, colliding forms they replaced.
RENAMED = {
    "partial_rate": [r"\Lambda_j", r"\Lambda_{m-1}", r"\Lambda_{3}"],
    "chernoff_exponent": [r"\Lambda^*"],
    "heavy_traffic_constant": [],
    "chi2_per_df": [r"\chi^2/\nu"],
    "cumulant": [],
}


def _python_literal(latex: str) -> str:
    """How ``latex`` reads inside a normal (not raw) Python string literal."""
    return latex.replace("\\", "\\\\")


@pytest.mark.parametrize("key", sorted(RENAMED))
def test_report_modules_take_the_symbol_from_notation(key):
    """No report module spells the symbol's LaTeX itself (a copy that could drift)."""
    spelled = _python_literal(notation.latex(key))
    copies = [
        p.name for p in sorted(REPORT.glob("*.py")) if spelled in p.read_text(encoding="utf-8")
    ]
    assert copies == [], f"{notation.latex(key)!r} written literally in {copies}"


def _rendered() -> str:
    """What the report modules write today where the renamed symbols appear: the n-class
    derivation and fluid table, the random-walk derivation (Chernoff exponents)."""
    from qtheory.report import lossnet_classes, walks

    return "\n".join(
        [lossnet_classes._derivation(), lossnet_classes._fluid_table(), walks._derivation()]
    )


@pytest.mark.parametrize("key", sorted(k for k, old in RENAMED.items() if old))
@pytest.mark.parametrize("source", ["rendered", "committed"])
def test_the_document_has_no_old_form(key, source):
    """Both the text the modules render now and the committed document."""
    if source == "rendered":
        tex = _rendered()
    else:
        tex = "\n".join(p.read_text(encoding="utf-8") for p in sorted(DERIVATIONS.glob("*.tex")))
    found = [old for old in RENAMED[key] if old in tex]
    assert found == [], f"the {source} document still writes {found} for {key}"
    if source == "committed" or key != "chi2_per_df":  # chi^2/df: the fits tables only
        assert notation.latex(key) in tex, f"{key} is not used in the {source} document"


def test_renamed_symbols_are_distinct():
    """Each renamed symbol prints differently from every other quantity's symbol."""
    for key in RENAMED:
        others = {k for k, n in notation.NOTATION.items() if n.latex == notation.latex(key)}
        assert others == {key}
