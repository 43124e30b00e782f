"""Formula's evaluators are compiled from the source Sympy's printers write, the source
that tools/generate_evaluators.py commits; they agree with sympy.lambdify."""

from __future__ import annotations

import flint
import mpmath
import numpy as np
import pytest
import sympy as sp

from qtheory.core.symbolic import Formula, generated_module

x, y = sp.symbols("x y", positive=True)
lam = sp.Symbol("lambda", positive=True)


@pytest.mark.parametrize(
    "expr",
    [
        sp.log(1 + x) / x,
        sp.exp(x) - 1 + sp.Rational(1, 3) * y,
        sp.sqrt(x**2 + 4 * y) - x,
        sp.Float("0.1") * x + sp.pi * y,
        sp.Piecewise((x, x < 1), (y, True)),
    ],
)
def test_evaluators_agree_with_lambdify(expr):
    f = Formula("f", expr, (x, y))
    points = np.array([[1e-12, 0.5], [0.3, 2.0], [3.0, 0.25]])
    reference = sp.lambdify((x, y), f.numeric_expr, modules="numpy")
    for a, b in points:
        assert f.float64(a, b) == pytest.approx(reference(a, b), rel=1e-15)
    with mpmath.workdps(50):
        reference = sp.lambdify((x, y), f.numeric_expr, modules="mpmath")
        a, b = mpmath.mpf("0.3"), mpmath.mpf(2)
        assert abs(f.mp(a, b) - reference(a, b)) <= mpmath.mpf(10) ** -48 * abs(reference(a, b))


def test_powers_of_two_after_the_c99_rewrite():
    """Sympy's C99 rewrite writes 2**x as exp2(x) and log(y)/log(2) as log2(y); every
    backend prints them (against 2^x + ln y / ln 2 in mpmath at 50 digits)."""
    f = Formula("f", 2**x + sp.log(y) / sp.log(2), (x, y))
    assert {type(g).__name__ for g in f.numeric_expr.atoms(sp.Function)} == {"exp2", "log2"}
    assert f.float64(0.3, 2.0) == pytest.approx(2**0.3 + 1.0, rel=1e-15)
    with mpmath.workdps(50):
        a, b = mpmath.mpf("0.3"), mpmath.mpf(3)
        expected = mpmath.power(2, a) + mpmath.ln(b) / mpmath.ln(2)
        assert abs(f.mp(a, b) - expected) <= mpmath.mpf(10) ** -48 * expected


def test_mp_keeps_rationals_exact():
    """1/3 is printed as mpf(1)/mpf(3), not the float 0.333...: exact at any precision."""
    f = Formula("third", x / 3, (x,))
    with mpmath.workdps(60):
        assert f.mp(mpmath.mpf(1)) == mpmath.mpf(1) / 3
    assert "mpmath.mpf(1)/mpmath.mpf(3)" in f.source("mp")


def test_float64_broadcasts():
    f = Formula("f", sp.log(1 + x) / x, (x,))
    assert f.float64(np.array([1e-20, 1.0])).tolist() == [1.0, np.log(2.0)]


def test_keyword_argument_gets_a_trailing_underscore():
    f = Formula("rr", lam * (2 - lam), (lam,))
    assert f.source("float64").startswith("def rr_float64(lambda_):")
    assert f.float64(0.5) == 0.75


def test_function_names_are_python_names():
    f = Formula("sigma_-", x, (x,))
    assert f.function_name("float64") == "sigma___float64"
    assert Formula("2x", 2 * x, (x,)).function_name("mp") == "_2x_mp"
    assert f.float64(2.0) == 2.0


def test_source_depends_on_the_formula():
    """A changed expression changes the source (and so a generated module goes stale)."""
    one = Formula("f", sp.log(1 + x), (x,))
    other = Formula("f", sp.log(1 + 2 * x), (x,))
    assert one.source("mp") != other.source("mp")
    assert generated_module([(one, "mp")], docstring="d") != generated_module(
        [(other, "mp")], docstring="d"
    )


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        (Formula("f", x + y, (x,)), r"symbols \['y'\] are not in args"),
        (Formula("f", x, (sp.Symbol("a b"),)), "Python identifiers"),
        (Formula("f", x + sp.Symbol("x", real=True), (x, sp.Symbol("x", real=True))), "distinct"),
        (Formula("f", sp.Function("g")(x), (x,)), "formula f: Unsupported"),
    ],
)
def test_source_refuses_what_it_cannot_write(formula, message):
    with pytest.raises(ValueError, match=message):
        formula.source("float64")


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="backend must be one of"):
        Formula("f", x, (x,)).source("float32")


def test_generated_module_refuses_repeated_names():
    f = Formula("f", x, (x,))
    with pytest.raises(ValueError, match=r"distinct function names, got \['f_mp'\]"):
        generated_module([(f, "mp"), (Formula("f", 2 * x, (x,)), "mp")], docstring="d")


def test_generated_module_imports_only_what_it_uses():
    text = generated_module([(Formula("f", x + 1, (x,)), "float64")], docstring="d")
    assert "import" not in text.split("__all__")[0]
    namespace: dict = {}
    exec(text, namespace)
    assert namespace["f_float64"](1.0) == 2.0


#: (x, y) at which the Arb evaluators are checked.
POINTS = [(sp.Rational(1, 10**12), sp.Rational(1, 2)), (sp.Rational(3, 10), sp.Rational(2)),
          (sp.Rational(1, 20), sp.Rational(1, 4))]  # fmt: skip


@pytest.mark.parametrize(
    "expr",
    [
        sp.log(1 + x) / x,
        sp.exp(x) - 1 + sp.Rational(1, 3) * y,
        sp.sqrt(x**2 + 4 * y) - x,
        sp.Float("0.1") * x + sp.pi * y + sp.E,
        sp.LambertW(-x * sp.exp(-1 - x), -1) + 1 / sp.sqrt(y),
        sp.polylog(-2, x / (1 + x)) * sp.gamma(y + 1) + 2**x + sp.log(y, 2),
    ],
)
def test_arb_encloses_the_value(expr):
    """The Arb evaluator's ball contains the value that mpmath computes at 80 digits from
    Sympy's own lambdify of the display form, and is narrow at 200 bits."""
    f = Formula("f", expr, (x, y))
    reference = sp.lambdify((x, y), expr, modules="mpmath")
    saved = flint.ctx.prec
    try:
        for a, b in POINTS:
            with mpmath.workdps(80):
                value = reference(*(mpmath.mpf(int(r.p)) / int(r.q) for r in (a, b)))
                flint.ctx.prec = 320  # the reference as a ball of ~10^-75 relative
                exact = flint.arb(mpmath.nstr(value, 78, min_fixed=-1, max_fixed=-1))
            flint.ctx.prec = 200
            ball = f.arb(*(flint.arb(flint.fmpq(int(r.p), int(r.q))) for r in (a, b)))
            assert ball.contains(exact), (a, b, ball, exact)
            assert ball.rad() < abs(exact) * flint.arb(2) ** -150
    finally:
        flint.ctx.prec = saved


def test_arb_keeps_rationals_exact_and_imports_flint_itself():
    """1/3 is the ball of fmpq(1, 3), not a float; flint is imported in the evaluator's
    body, so a generated module of Arb evaluators imports nothing at its top."""
    f = Formula("third", x / 3, (x,))
    assert "flint.arb(flint.fmpq(1, 3))" in f.source("arb")
    assert f.arb(flint.arb(1)).contains(flint.fmpq(1, 3))
    assert f.modules("arb") == ()
    text = generated_module([(f, "arb")], docstring="d")
    assert "import" not in text.split("__all__")[0]
    namespace: dict = {}
    exec(text, namespace)
    assert namespace["third_arb"](flint.arb(3)).contains(1)


@pytest.mark.parametrize(
    "expr", [sp.sin(x), sp.Piecewise((x, x < 1), (y, True)), sp.Max(x, y), 1 + sp.Min(x, y)]
)
def test_arb_refuses_functions_without_an_arb_method(expr):
    with pytest.raises(ValueError, match="formula f: no Arb method for"):
        Formula("f", expr, (x, y)).source("arb")
