"""Every formula the document prints in a paper's form equals the derivation's expression.

The display forms of each model live in one function of its outputs module
(``display_forms()``, name -> DisplayForm); here Sympy checks each: the display with its
``given`` definitions substituted, minus the derived expression, simplifies to 0; where
``simplify`` cannot decide, the difference is evaluated at random points at 50 digits.
"""

from __future__ import annotations

import random

import mpmath
import pytest
import sympy

from qtheory.report import gated as gated_outputs
from qtheory.report import gated_ladder as ladder_outputs
from qtheory.report import lossnet as lossnet_outputs
from qtheory.report import lossnet_classes as classes_outputs
from qtheory.report import walks as walks_outputs
from qtheory.report.display import PRINT, DisplayForm, add, difference, frac

MODELS = {
    "gated": gated_outputs,
    "memory": ladder_outputs,
    "lossnet": lossnet_outputs,
    "lossnet_classes": classes_outputs,
    "walks": walks_outputs,
}
FORMS = [
    pytest.param(form, id=f"{model}.{name}")
    for model, module in MODELS.items()
    for name, form in module.display_forms().items()
]


def _numerically_zero(form: DisplayForm, points: int = 5) -> bool:
    """|display - derived| < 1e-40 at random points in (0.1, 0.9) (every symbol; the
    forms' domains: probabilities, rates with mu > lambda_H, sigma in (0, 1))."""
    display = form.display.subs(dict(form.given)).doit()
    symbols = sorted(display.free_symbols | form.derived.free_symbols, key=lambda s: s.name)
    rng = random.Random(20261130)
    with mpmath.workdps(50):
        for _ in range(points):
            values = {s: sympy.Float(rng.uniform(0.1, 0.9), 50) for s in symbols}
            gap = sympy.N((display - form.derived).subs(values), 50)
            if not abs(complex(gap)) < 1e-40:
                return False
    return True


@pytest.mark.parametrize("form", FORMS)
def test_display_form_equals_derivation(form):
    assert difference(form) == 0 or _numerically_zero(form)


@pytest.mark.parametrize("form", FORMS)
def test_display_form_is_printed_as_built(form):
    """The form is not Sympy's canonical rewrite of the derived expression (else it would
    not be needed) -- or it names an earlier quantity -- and it prints without error."""
    text = sympy.latex(form.display, **PRINT)
    assert text
    assert form.given or text != sympy.latex(form.derived)


def test_a_wrong_display_form_is_caught():
    r, i, b = sympy.symbols("r i b", positive=True)
    derived = (r**i - r**b) / (1 - r**b)
    wrong = DisplayForm(frac(add(r**b, -(r**i)), add(1, -(r**b))), derived)
    assert difference(wrong) != 0
    assert not _numerically_zero(wrong)


def test_every_model_has_display_forms():
    assert {m: len(module.display_forms()) > 0 for m, module in MODELS.items()} == dict.fromkeys(
        MODELS, True
    )
