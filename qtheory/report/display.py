r"""Display forms: formulas written the way a paper prints them, kept next to the
derivation's expression they must equal.

Sympy canonicalises what it builds: ``mu*(1 - sigma)`` comes back as
``-mu*(sigma - 1)`` after a solve, sums put their negative terms first
(:math:`-r^b + r^i`), and a formula that reuses an earlier one inlines it (nested
fractions).  A *display form* is an expression built unevaluated (:func:`add`,
:func:`mul`, :func:`frac`) in the order and grouping wanted on the page, printed with
``order="none"`` (:data:`PRINT`), and it may name an earlier quantity by its symbol
(:math:`\theta = 1/(\tau + 1/\Lambda)`) with the definition in ``given``.

Each outputs module keeps its display forms in one function returning
``{name: DisplayForm}``; ``tests/report/test_display_forms.py`` checks every one with
:func:`difference` (Sympy: display with ``given`` substituted minus derived is 0).

Examples
--------
>>> import sympy
>>> r, i, b = sympy.symbols("r i b", positive=True)
>>> form = DisplayForm(frac(add(r**i, -r**b), add(1, -r**b)), (r**i - r**b) / (1 - r**b))
>>> print(sympy.latex(form.display, **PRINT))
\frac{r^{i} - r^{b}}{1 - r^{b}}
>>> difference(form)
0
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import sympy

__all__ = ["PRINT", "DisplayForm", "add", "difference", "frac", "mul"]

#: Settings for :func:`sympy.latex` (and :func:`qtheory.report.equation`) that keep the
#: terms and factors of a display form in the order they were built.
PRINT: dict[str, Any] = {"order": "none"}


class DisplayForm(NamedTuple):
    """A formula as printed, the derivation's expression, and the definitions used.

    Attributes
    ----------
    display : sympy.Expr
        The printed form (unevaluated).
    derived : sympy.Expr
        The derivation's expression it must equal.
    given : mapping, optional
        Symbol -> expression for quantities the display names instead of inlining
        (e.g. the gate :math:`\\tau` of an earlier equation).

    Examples
    --------
    >>> import sympy
    >>> x, t = sympy.symbols("x t")
    >>> difference(DisplayForm(1 / (t + 1), 1 / (x**2 + 1), {t: x**2}))
    0
    """

    display: sympy.Expr
    derived: sympy.Expr
    given: Mapping[sympy.Symbol, sympy.Expr] = {}


def add(*terms: object) -> sympy.Expr:
    """An unevaluated sum, printed in the order given.

    Parameters
    ----------
    *terms
        Sympy expressions or numbers.

    Returns
    -------
    sympy.Add

    Examples
    --------
    >>> import sympy
    >>> mu, lam = sympy.symbols("mu lambda_H")
    >>> sympy.latex(add(mu, -lam), **PRINT)
    '\\\\mu - \\\\lambda_{H}'
    """
    return sympy.Add(*terms, evaluate=False)


def mul(*factors: object) -> sympy.Expr:
    """An unevaluated product, printed in the order given.

    Parameters
    ----------
    *factors
        Sympy expressions or numbers.

    Returns
    -------
    sympy.Mul

    Examples
    --------
    >>> import sympy
    >>> mu, r = sympy.symbols("mu r_L")
    >>> sympy.latex(mul(mu, r), **PRINT)
    '\\\\mu r_{L}'
    """
    return sympy.Mul(*factors, evaluate=False)


def frac(numerator: object, denominator: object) -> sympy.Expr:
    """``numerator / denominator`` unevaluated (one fraction, nothing cancelled).

    Parameters
    ----------
    numerator, denominator
        Sympy expressions or numbers.

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> import sympy
    >>> b, n = sympy.symbols("b N")
    >>> sympy.latex(frac(b, n), **PRINT), sympy.latex(frac(1, n), **PRINT)
    ('\\\\frac{b}{N}', '\\\\frac{1}{N}')
    """
    reciprocal = sympy.Pow(denominator, -1, evaluate=False)
    if numerator == 1:
        return reciprocal
    return sympy.Mul(numerator, reciprocal, evaluate=False)


def difference(form: DisplayForm) -> sympy.Expr:
    """``display`` (with ``given`` substituted) minus ``derived``, simplified: 0 when the
    display form is right.

    Parameters
    ----------
    form : DisplayForm

    Returns
    -------
    sympy.Expr
        The simplified difference.

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x", positive=True)
    >>> difference(DisplayForm(frac(1, add(1, -x)), -1 / (x - 1)))
    0
    >>> difference(DisplayForm(frac(1, add(1, x)), 1 / (x - 1))) == 0
    False
    """
    display = form.display.subs(dict(form.given)) if form.given else form.display
    return sympy.simplify(display.doit() - form.derived)
