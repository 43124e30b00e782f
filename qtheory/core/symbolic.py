"""One source of truth per formula.

A :class:`Formula` is written once, as a Sympy expression in the symbols a reader expects
(the *display* form, used for LaTeX).  Its numerical evaluators are generated from that
same expression: Sympy substitutes a numerically robust parametrisation (for instance
``sigma = exp(-w)`` so that both ``sigma`` and ``1 - sigma = -expm1(-w)`` keep full relative
accuracy), Sympy's code-generation optimiser rewrites ``log(1 + x)`` as ``log1p(x)`` and
``exp(x) - 1`` as ``expm1(x)``, and Sympy's code printers (the ones behind
:func:`sympy.lambdify`) write the result as the Python source of a vectorised NumPy
function, of an mpmath function and of an Arb function on python-flint's balls (a printer
of this module's own, in the same style: ``x.log1p()`` for ``log1p(x)``), see
:meth:`Formula.source`.  Nothing is typed twice.

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
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.pycode import MpmathPrinter, PythonCodePrinter

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

    def _print_exp2(self, expr: sp.Expr) -> str:  # 2**x, as Sympy's C99 rewrite writes it
        exponent = self.parenthesize(expr.args[0], PRECEDENCE["Atom"], strict=True)
        return f"{self._module_format('mpmath.mpf')}(2)**{exponent}"

    def _print_log2(self, expr: sp.Expr) -> str:
        return f"{self._module_format('mpmath.log')}({self._print(expr.args[0])}, 2)"

    def _print_LambertW(self, expr: sp.LambertW) -> str:
        return self._call("mpmath.lambertw", expr)

    def _print_polylog(self, expr: sp.polylog) -> str:
        return self._call("mpmath.polylog", expr)

    def _call(self, function: str, expr: sp.Expr) -> str:
        args = ", ".join(self._print(arg) for arg in expr.args)
        return f"{self._module_format(function)}({args})"


class _ArbPrinter(PythonCodePrinter):
    """Writes an expression as Python code on python-flint's Arb balls (``flint.arb``):
    every elementary function as the ball's method (``exp(x)`` is ``x.exp()``, and
    likewise ``log``, ``expm1``, ``log1p``, ``sqrt``, ``gamma``; ``exp2(x)`` is
    ``flint.arb(2)**x``, ``log2(x)`` is ``x.log_base(2)``; ``LambertW(z, k)`` is
    ``z.lambertw(k)``, ``polylog(s, z)`` is ``z.polylog(s)``), a rational p/q as the
    ball ``flint.arb(flint.fmpq(p, q))`` (exact when p/q is a dyadic number, else
    rounded once at the working precision, ``flint.ctx.prec``), π and e as Arb's
    constants, integers as Python ints (Arb multiplies by them exactly).  Each
    operation returns a ball that contains its exact value on the balls it is given, so
    the evaluator's result contains the formula's value on its argument balls.  A
    function without an Arb method here (``sin``, ``Piecewise``, ...) is refused.

    >>> z = sp.Symbol("z")
    >>> print(Formula("f", sp.log(1 + z) / 3 + sp.LambertW(-z, -1), (z,)).source("arb"))
    def f_arb(z):
        'f = log(z + 1)/3 + LambertW(-z, -1), in arb (python-flint).'
        import flint
        return (-z).lambertw(-1) + (flint.arb(flint.fmpq(1, 3)))*z.log1p()
    <BLANKLINE>
    """

    #: Sympy function -> the Arb method that computes it.
    METHODS = {"exp": "exp", "log": "log", "expm1": "expm1", "log1p": "log1p",
               "gamma": "gamma"}  # fmt: skip

    def doprint(self, expr: sp.Expr, assign_to: object = None) -> str:
        known = {*self.METHODS, "exp2", "log2", "LambertW", "polylog", "Abs"}
        unknown = {
            type(node).__name__
            for node in sp.preorder_traversal(expr)
            if not (node.is_Atom or isinstance(node, sp.Add | sp.Mul | sp.Pow))
        } - known  # Max, Min, Piecewise, sin, ...: a node with no ball operation here
        if unknown:
            raise NotImplementedError(f"no Arb method for {sorted(unknown)}")
        return super().doprint(expr, assign_to)

    def _ball(self, expr: sp.Expr) -> str:
        """``expr`` as an operand of a method call: an integer made a ball."""
        if expr.is_Integer:
            return f"{self._module_format('flint.arb')}({int(expr)})"
        return self.parenthesize(expr, PRECEDENCE["Atom"], strict=True)

    def _print_Function(self, expr: sp.Expr) -> str:
        name = type(expr).__name__
        if name not in self.METHODS:
            return super()._print_Function(expr)
        return f"{self._ball(expr.args[0])}.{self.METHODS[name]}()"

    _print_exp = _print_log = _print_expm1 = _print_log1p = _print_gamma = _print_Function

    def _print_exp2(self, expr: sp.Expr) -> str:  # 2**x, as Sympy's C99 rewrite writes it
        return f"{self._module_format('flint.arb')}(2)**{self._ball(expr.args[0])}"

    def _print_log2(self, expr: sp.Expr) -> str:
        return f"{self._ball(expr.args[0])}.log_base(2)"

    def _print_LambertW(self, expr: sp.LambertW) -> str:
        branch = "" if len(expr.args) == 1 else self._print(expr.args[1])
        return f"{self._ball(expr.args[0])}.lambertw({branch})"

    def _print_polylog(self, expr: sp.polylog) -> str:
        return f"{self._ball(expr.args[1])}.polylog({self._print(expr.args[0])})"

    def _print_Abs(self, expr: sp.Abs) -> str:
        return f"abs({self._print(expr.args[0])})"

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        if expr.exp == sp.S.Half:
            return f"{self._ball(expr.base)}.sqrt()"
        if expr.exp == -sp.S.Half:
            return f"{self._ball(expr.base)}.rsqrt()"
        if expr.exp == -1:
            return f"1/{self.parenthesize(expr.base, PRECEDENCE['Mul'], strict=False)}"
        exponent = self.parenthesize(expr.exp, PRECEDENCE["Pow"], strict=False)
        return f"{self._ball(expr.base)}**{exponent}"

    def _print_Rational(self, expr: sp.Rational) -> str:
        arb, fmpq = self._module_format("flint.arb"), self._module_format("flint.fmpq")
        return f"{arb}({fmpq}({expr.p}, {expr.q}))"

    _print_Half = _print_Rational

    def _print_Float(self, expr: sp.Float) -> str:  # its binary value, as mpmath's printer
        return self._print_Rational(sp.Rational(expr))

    def _print_Pi(self, expr: sp.Expr) -> str:
        return f"{self._module_format('flint.arb')}.pi()"

    def _print_Exp1(self, expr: sp.Expr) -> str:
        return f"{self._module_format('flint.arb')}.const_e()"


#: The evaluator backends: name -> (the Sympy printer that writes its code, what it computes in).
BACKENDS = {
    "float64": (NumPyPrinter, "NumPy"),
    "mp": (_MpmathPrinter, "mpmath"),
    "arb": (_ArbPrinter, "python-flint"),
}

#: Backends whose module each evaluator imports in its body, not the module that holds
#: it: a generated module stays importable without python-flint (the command line starts
#: without it), and an Arb evaluator imports it when it runs.
_IMPORTED_IN_BODY = {"arb": "flint"}


@dataclass(frozen=True, eq=False)
class Formula:
    """A named Sympy expression with float64, mpmath and Arb evaluators generated from it.

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

    @cached_property
    def arb(self) -> Callable[..., object]:
        """Arb evaluator (python-flint balls, ``flint.arb``): given balls, returns a ball
        that contains the value of :attr:`numeric_expr` at every point of them, computed
        at the working precision ``flint.ctx.prec``; compiled from ``source("arb")``.

        Examples
        --------
        >>> from flint import arb
        >>> x = sp.Symbol("x", positive=True)
        >>> ball = Formula("log_ratio", sp.log(1 + x) / x, (x,)).arb(arb("1e-30"))
        >>> ball.contains(1 - arb("0.5e-30")), ball.rad() < arb("1e-14")
        (True, True)
        """
        return self._compile("arb")

    def function_name(self, backend: str) -> str:
        """The name of the evaluator's function: ``NAME_BACKEND``, every character that
        cannot appear in a Python name replaced by ``_``.

        Parameters
        ----------
        backend : {"float64", "mp", "arb"}
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
        (``"mp"``) code printer, or this module's Arb printer (``"arb"``), with
        module-qualified names (``numpy.log1p``, ``mpmath.mpf(1)/mpmath.mpf(3)``,
        ``flint.arb(flint.fmpq(1, 3))``); an Arb evaluator imports ``flint`` in its body.

        Parameters
        ----------
        backend : {"float64", "mp", "arb"}
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
        backend : {"float64", "mp", "arb"}
            The evaluator.

        Returns
        -------
        tuple of str
            Names to ``import`` (``numpy``, ``mpmath``, sometimes ``math``; never
            ``flint``, which an Arb evaluator imports itself).

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
        modules = {name.split(".")[0] for name in printer.module_imports}
        in_body = _IMPORTED_IN_BODY.get(backend)
        body_import = f"    import {in_body}\n" if in_body in modules else ""
        text = (
            f"def {self.function_name(backend)}({', '.join(names)}):\n"
            f"    {doc!r}\n"
            f"{body_import}"
            f"    return {code}\n"
        )
        return text, tuple(sorted(modules - {in_body}))

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
        The evaluators, in the order they are written; backend ``"float64"``, ``"mp"``
        or ``"arb"``.
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
