"""One source of truth per formula.

A :class:`Formula` is written once, as a Sympy expression in the symbols a reader expects
(the *display* form, used for LaTeX).  Its numerical evaluators are generated from that
same expression: Sympy substitutes a numerically robust parametrisation (for instance
``sigma = exp(-w)`` so that both ``sigma`` and ``1 - sigma = -expm1(-w)`` keep full relative
accuracy), Sympy's code-generation optimiser rewrites ``log(1 + x)`` as ``log1p(x)`` and
``exp(x) - 1`` as ``expm1(x)``, and Sympy's code printers (the ones behind
:func:`sympy.lambdify`) write the result as the Python source of a vectorised NumPy
function and of an mpmath function (:meth:`Formula.source`).  Nothing is typed twice.

That source is what the evaluators run, compiled on first use.  A model whose numbers must
come fast (the command line) also keeps it in a committed module, written by
:func:`generated_module` from its derivation (``tools/generate_evaluators.py``): importing
that module needs neither Sympy nor the derivation, and ``tests/test_codegen.py``
regenerates it and fails if it differs, so a changed formula cannot leave it stale.

>>> import sympy as sp
>>> x = sp.Symbol("x", positive=True)
>>> f = Formula("log_ratio", sp.log(1 + x) / x, (x,))
>>> f.numeric_expr
log1p(x)/x
>>> float(f.float64(1e-20))
1.0
>>> print(f.source("float64"), end="")
def log_ratio_float64(x):
    'log_ratio = log(x + 1)/x, in float64 (NumPy).'
    return numpy.log1p(x)/x
"""

from __future__ import annotations

import importlib
import keyword
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import mpmath
import numpy as np
import sympy as sp
from sympy.codegen.rewriting import optimize, optims_c99
from sympy.printing.numpy import NumPyPrinter
from sympy.printing.pycode import MpmathPrinter

__all__ = ["BACKENDS", "Formula", "generated_module", "lambdify_interval"]


class _MpmathPrinter(MpmathPrinter):
    """Sympy's mpmath printer, which also writes Lambert's W on any branch,
    ``LambertW(z, k)`` as ``mpmath.lambertw(z, k)`` (the function :func:`sympy.lambdify`
    maps it to), so that an asymptotic form solved by Sympy is generated code too, and the
    polylogarithm ``polylog(s, z)`` as ``mpmath.polylog(s, z)`` (a queue-length moment).

    >>> z = sp.Symbol("z")
    >>> print(Formula("w", sp.LambertW(z, -1), (z,)).source("mp").splitlines()[-1])
        return mpmath.lambertw(z, -1)
    >>> print(Formula("li", sp.polylog(-2, z), (z,)).source("mp").splitlines()[-1])
        return mpmath.polylog(-2, z)
    """

    def _print_LambertW(self, expr: sp.LambertW) -> str:
        return self._call("mpmath.lambertw", expr)

    def _print_polylog(self, expr: sp.polylog) -> str:
        return self._call("mpmath.polylog", expr)

    def _call(self, function: str, expr: sp.Expr) -> str:
        args = ", ".join(self._print(arg) for arg in expr.args)
        return f"{self._module_format(function)}({args})"


#: The evaluator backends: name -> (the Sympy printer that writes its code, what it computes in).
BACKENDS = {"float64": (NumPyPrinter, "NumPy"), "mp": (_MpmathPrinter, "mpmath")}


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
        """Vectorised float64 evaluator (NumPy ufuncs; broadcasts its arguments), compiled
        from ``source("float64")``."""
        return self._compile("float64")

    @cached_property
    def mp(self) -> Callable[..., mpmath.mpf]:
        """mpmath evaluator: computes at the working precision ``mpmath.mp.dps``; compiled
        from ``source("mp")``."""
        return self._compile("mp")

    def function_name(self, backend: str) -> str:
        """The name of the evaluator's function: ``NAME_BACKEND``, every character that
        cannot appear in a Python name replaced by ``_``.

        Parameters
        ----------
        backend : {"float64", "mp"}
            The evaluator.

        Returns
        -------
        str

        Examples
        --------
        >>> x = sp.Symbol("x")
        >>> Formula("sigma_-", x, (x,)).function_name("mp")
        'sigma___mp'
        """
        _check_backend(backend)
        name = re.sub(r"\W", "_", f"{self.name}_{backend}")
        return f"_{name}" if name[0].isdigit() else name

    def source(self, backend: str) -> str:
        """The evaluator as Python source: a function of :attr:`args` whose one statement
        returns :attr:`numeric_expr`, printed by Sympy's NumPy (``"float64"``) or mpmath
        (``"mp"``) code printer with module-qualified names (``numpy.log1p``,
        ``mpmath.mpf(1)/mpmath.mpf(3)``).

        Parameters
        ----------
        backend : {"float64", "mp"}
            The evaluator.

        Returns
        -------
        str
            The ``def`` (named by :meth:`function_name`), with a one-line docstring that
            gives the display form; it needs the modules of :meth:`modules`.

        Raises
        ------
        ValueError
            If ``backend`` is unknown, an argument's name cannot be a Python parameter
            (a keyword gets a trailing ``_``: ``lambda`` is written ``lambda_``), the
            expression has a symbol that is not an argument, or a function that the
            printer cannot write.

        Examples
        --------
        >>> lam, r = sp.symbols("lambda r", positive=True)
        >>> print(Formula("third", lam / 3 - r, (lam, r)).source("mp"), end="")
        def third_mp(lambda_, r):
            'third = lambda/3 - r, in mp (mpmath).'
            return (mpmath.mpf(1)/mpmath.mpf(3))*lambda_ - r
        """
        return self._printed(backend)[0]

    def modules(self, backend: str) -> tuple[str, ...]:
        """The modules the evaluator's :meth:`source` refers to, sorted.

        Parameters
        ----------
        backend : {"float64", "mp"}
            The evaluator.

        Returns
        -------
        tuple of str
            Names to ``import`` (``numpy``, ``mpmath``, sometimes ``math``).

        Examples
        --------
        >>> x = sp.Symbol("x")
        >>> Formula("e", sp.exp(x), (x,)).modules("float64")
        ('numpy',)
        """
        return self._printed(backend)[1]

    @cached_property
    def _printings(self) -> dict[str, tuple[str, tuple[str, ...]]]:
        """(source, modules) by backend, printed when first asked for."""
        return {}

    def _printed(self, backend: str) -> tuple[str, tuple[str, ...]]:
        _check_backend(backend)
        if backend not in self._printings:
            self._printings[backend] = self._print(backend)
        return self._printings[backend]

    def _print(self, backend: str) -> tuple[str, tuple[str, ...]]:
        names = _parameter_names(self.name, self.args)
        unknown = self.numeric_expr.free_symbols - set(self.args)
        if unknown:
            raise ValueError(
                f"formula {self.name}: symbols {sorted(map(str, unknown))} are not in args"
            )
        renamed = {
            arg: sp.Symbol(name) for arg, name in zip(self.args, names, strict=True)
            if name != arg.name
        }  # fmt: skip
        printer_class, library = BACKENDS[backend]
        printer = printer_class({"fully_qualified_modules": True, "inline": True, "strict": True})
        try:
            code = printer.doprint(self.numeric_expr.xreplace(renamed))
        except NotImplementedError as error:
            raise ValueError(f"formula {self.name}: {str(error).splitlines()[0]}") from None
        doc = f"{self.name} = {sp.sstr(self.expr)}, in {backend} ({library})."
        text = (
            f"def {self.function_name(backend)}({', '.join(names)}):\n"
            f"    {doc!r}\n"
            f"    return {code}\n"
        )
        return text, tuple(sorted({name.split(".")[0] for name in printer.module_imports}))

    def _compile(self, backend: str) -> Callable:
        namespace = {name: importlib.import_module(name) for name in self.modules(backend)}
        exec(compile(self.source(backend), f"<formula {self.name}>", "exec"), namespace)
        return namespace[self.function_name(backend)]

    def latex(self, **settings: object) -> str:
        """LaTeX of the display form (Sympy's printer)."""
        return sp.latex(self.expr, **settings)


def _check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {sorted(BACKENDS)}, got {backend!r}")


def _parameter_names(name: str, args: Sequence[sp.Symbol]) -> list[str]:
    """The Python parameter of each argument: its name, a keyword with a trailing ``_``."""
    names = [f"{arg.name}_" if keyword.iskeyword(arg.name) else arg.name for arg in args]
    bad = [n for n in names if not n.isidentifier()]
    if bad or len(set(names)) < len(names):
        raise ValueError(
            f"formula {name}: args must have distinct names that are Python identifiers, "
            f"got {[arg.name for arg in args]}"
        )
    return names


def generated_module(evaluators: Sequence[tuple[Formula, str]], *, docstring: str) -> str:
    """The source of a module of evaluators, as :meth:`Formula.source` writes them.

    Parameters
    ----------
    evaluators : sequence of (Formula, backend)
        The evaluators, in the order they are written; backend ``"float64"`` or ``"mp"``.
    docstring : str
        The module's docstring (what it is generated from, and by what).

    Returns
    -------
    str
        The docstring, exemptions from ``ruff``'s line length and formatter, the
        imports the evaluators need, ``__all__ = []`` (nothing in it is public: the
        model's own functions are), and the functions.

    Raises
    ------
    ValueError
        If two evaluators would have the same function name, or as
        :meth:`Formula.source`.

    Examples
    --------
    >>> x = sp.Symbol("x", positive=True)
    >>> f = Formula("log_ratio", sp.log(1 + x) / x, (x,))
    >>> text = generated_module([(f, "float64"), (f, "mp")], docstring="Demo.")
    >>> print(text.split("__all__")[0].rstrip())
    \"\"\"Demo.\"\"\"
    <BLANKLINE>
    # ruff: noqa: E501
    # fmt: off
    import mpmath
    import numpy
    >>> namespace = {}
    >>> exec(text, namespace)
    >>> round(float(namespace["log_ratio_float64"](1e-20)), 6), namespace["__all__"]
    (1.0, [])
    """
    names = [formula.function_name(backend) for formula, backend in evaluators]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"evaluators must have distinct function names, got {repeated} twice")
    modules = sorted({m for formula, backend in evaluators for m in formula.modules(backend)})
    imports = "".join(f"import {module}\n" for module in modules)
    functions = "\n\n".join(formula.source(backend) for formula, backend in evaluators)
    header = f'"""{docstring}"""\n\n# ruff: noqa: E501\n# fmt: off\n{imports}'
    return f"{header}\n__all__ = []\n\n\n{functions}"


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
