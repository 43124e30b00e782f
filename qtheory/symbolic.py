"""One source of truth per formula.

A :class:`Formula` is written once, as a Sympy expression in the symbols a reader expects
(the *display* form, used for LaTeX).  Its numerical evaluators are generated from that
same expression: Sympy substitutes a numerically robust parametrisation (for instance
``sigma = exp(-w)`` so that both ``sigma`` and ``1 - sigma = -expm1(-w)`` keep full relative
accuracy), Sympy's code-generation optimiser rewrites ``log(1 + x)`` as ``log1p(x)`` and
``exp(x) - 1`` as ``expm1(x)``, and :func:`sympy.lambdify` turns the result into a
vectorised NumPy function and an mpmath function.  Nothing is typed twice.

>>> import sympy as sp
>>> x = sp.Symbol("x", positive=True)
>>> f = Formula("log_ratio", sp.log(1 + x) / x, (x,))
>>> f.numeric_expr
log1p(x)/x
>>> float(f.float64(1e-20))
1.0
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import mpmath
import numpy as np
import sympy as sp
from sympy.codegen.rewriting import optimize, optims_c99

__all__ = ["Formula", "lambdify_interval"]


@dataclass(frozen=True, eq=False)
class Formula:
    """A named Sympy expression with float64 and mpmath evaluators generated from it.

    Parameters
    ----------
    name
        Identifier used in reports, e.g. ``"gate_of_root"``.
    expr
        The display form, in the symbols of the paper.
    args
        The symbols the numerical evaluators take, in order.  They are the symbols of
        ``expr`` after ``substitutions``.
    substitutions
        A reparametrisation applied before code generation (e.g. ``{Lambda: 1/beta}``
        so that ``beta = 0`` encodes ``Lambda = oo``).

    Examples
    --------
    >>> lam, beta = sp.symbols("Lambda beta", positive=True)
    >>> f = Formula("mean_gap", 1 / lam, (beta,), {lam: 1 / beta})
    >>> print(f.latex())
    \\frac{1}{\\Lambda}
    >>> float(f.float64(0.25)), mpmath.nstr(f.mp(mpmath.mpf(2)), 5)  # beta = 1/Lambda
    (0.25, '2.0')
    """

    name: str
    expr: sp.Expr
    args: tuple[sp.Symbol, ...]
    substitutions: Mapping[sp.Symbol, sp.Expr] = field(default_factory=dict)

    @cached_property
    def numeric_expr(self) -> sp.Expr:
        """The expression the evaluators compute: substituted, then rewritten by Sympy's
        C99 optimisations (``log1p``, ``expm1``, ...) for floating-point accuracy."""
        substituted = self.expr.subs(self.substitutions) if self.substitutions else self.expr
        return optimize(substituted, optims_c99)

    @cached_property
    def float64(self) -> Callable[..., np.ndarray]:
        """Vectorised float64 evaluator (NumPy ufuncs; broadcasts its arguments)."""
        return sp.lambdify(self.args, self.numeric_expr, modules="numpy")

    @cached_property
    def mp(self) -> Callable[..., mpmath.mpf]:
        """mpmath evaluator: computes at the working precision ``mpmath.mp.dps``."""
        return sp.lambdify(self.args, self.numeric_expr, modules="mpmath")

    def latex(self, **settings: object) -> str:
        """LaTeX of the display form (Sympy's printer)."""
        return sp.latex(self.expr, **settings)


def lambdify_interval(args: Sequence[sp.Symbol], expr: sp.Expr) -> Callable[..., object]:
    """Evaluator of ``expr`` in mpmath interval arithmetic (``mpmath.iv``).

    The result of calling it with ``mpmath.iv.mpf`` intervals is an interval that is
    guaranteed to contain the exact value of ``expr`` over those intervals, which is what
    certified root enclosures need.

    Parameters
    ----------
    args : sequence of sympy.Symbol
        The evaluator's arguments, in order.
    expr : sympy.Expr
        Built from arithmetic, ``exp``, ``log`` and ``sqrt`` only.

    Returns
    -------
    callable
        Intervals in, an enclosing interval out.

    Raises
    ------
    ValueError
        If ``expr`` uses a function without an interval version.

    Examples
    --------
    >>> x = sp.Symbol("x", positive=True)
    >>> enclose = lambdify_interval((x,), sp.exp(x) - 1)
    >>> box = enclose(mpmath.iv.mpf([1, 1]))
    >>> bool(box.a <= mpmath.e - 1 <= box.b)
    True
    """
    namespace = {"exp": mpmath.iv.exp, "log": mpmath.iv.log, "sqrt": mpmath.iv.sqrt}
    unsupported = {f.func.__name__ for f in expr.atoms(sp.Function)} - set(namespace)
    if unsupported:
        raise ValueError(f"no interval version of {sorted(unsupported)} in expr")
    return sp.lambdify(args, expr, modules=[namespace, "mpmath"])
