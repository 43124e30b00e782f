"""Results in a notebook and in print (issue 25, item 4, for the foundation's records):
``Enclosure`` (a float, formats, certified order comparisons, LaTeX and HTML),
``Estimate`` ("229.9 ± 3.4 (95%)") and ``Claim`` (a short line, LaTeX and HTML).

References are computed here by another route: exact rationals for the enclosures'
midpoints and comparisons, :mod:`decimal` for the rounding of estimates.
"""

from __future__ import annotations

import decimal
import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qtheory.core.claims import Claim, Evidence, Origin
from qtheory.core.enclosure import Enclosure, UndecidedComparison
from qtheory.core.stats import Estimate

# Enclosure


def test_float_and_format_are_the_midpoint():
    e = Enclosure("2.031878699799e-1", "2.031878699800e-1")
    middle = (Fraction("2.031878699799e-1") + Fraction("2.031878699800e-1")) / 2
    assert float(e) == float(middle) == e.midpoint
    assert f"{e:.6f}" == "0.203188" and format(e, ".3e") == "2.032e-01"
    assert f"{e}" == str(e) == format(e, "")


def test_comparisons_are_decided_by_the_bounds_or_refused():
    e = Enclosure("2.17e+0", "2.18e+0")
    assert e > 2 and e >= 2 and e < 3 and e <= 3 and 2 < e and 3 > e
    assert not (e < 2) and not (e > 3) and not (e <= "2.169") and not (e >= "2.181")
    assert e <= "2.18" and not (e < "2.17") and e >= "2.17" and not (e > "2.18")
    assert e < Enclosure("2.19e+0", "2.2e+0") and not (e > Enclosure("2.18e+0", "3e+0"))
    for undecided in ("2.175", "2.18", Enclosure("2.175e+0", "2.3e+0")):
        with pytest.raises(UndecidedComparison, match="undecided"):
            _ = e < undecided
    with pytest.raises(UndecidedComparison):
        _ = e > "2.17"
    with pytest.raises(ArithmeticError):  # UndecidedComparison is one
        _ = 2.175 < e
    with pytest.raises(TypeError):
        _ = e < object()
    inf = math.inf
    assert e < inf and e <= inf and e > -inf and -inf < e and not (e > inf) and not (e <= -inf)
    with pytest.raises(ValueError, match="nan"):
        _ = e < math.nan


bound = st.fractions(min_value=-10, max_value=10, max_denominator=12)


@given(bound, bound, bound, bound)
def test_a_decided_comparison_holds_for_every_value_inside(a, b, c, d):
    """True only when the relation holds for all values of both intervals, False only
    when it holds for none (checked at the end points, where the relations are
    decided: they are monotone in each value)."""
    x = Enclosure.from_bounds(min(a, b), max(a, b), digits=30)
    y = Enclosure.from_bounds(min(c, d), max(c, d), digits=30)
    xs = (Fraction(x.lower), Fraction(x.upper))
    ys = (Fraction(y.lower), Fraction(y.upper))
    relations = {
        "<": lambda p, q: p < q,
        "<=": lambda p, q: p <= q,
        ">": lambda p, q: p > q,
        ">=": lambda p, q: p >= q,
    }
    for symbol, holds in relations.items():
        truths = {holds(p, q) for p in xs for q in ys}
        try:
            answer = eval(f"x {symbol} y")
        except UndecidedComparison:
            assert truths == {True, False}
        else:
            assert truths == {answer}


def test_notebook_displays_of_an_enclosure():
    e = Enclosure("1.4142e+0", "1.4143e+0")
    assert e._repr_latex_() == e.latex() == "$[1.4142, 1.4143]$"
    html = e._repr_html_()
    assert "[1.4142e+0, 1.4143e+0]" in html and "width 1e-4" in html


# Estimate


def decimals_of(text: str) -> int:
    """Digits after the point of a decimal string (negative for trailing zeros)."""
    return -decimal.Decimal(text).as_tuple().exponent


@pytest.mark.parametrize(
    ("mean", "half", "shown"),
    [
        (229.93, 3.412, "229.9 ± 3.4 (95%)"),
        (-0.01234, 0.00056, "-0.01234 ± 0.00056 (95%)"),
        (12345.6, 340.0, "12350 ± 340 (95%)"),
        (9.5, 9.96, "10 ± 10 (95%)"),  # the half-width rounds up to the next decade
        (1.5e-7, 3e-9, "(1.500 ± 0.030)e-7 (95%)"),
        (3.0, 0.0, "3 ± 0 (95%)"),
        (0.5, math.nan, "0.5 ± nan (95%)"),
    ],
)
def test_an_estimate_prints_its_half_width_to_two_digits(mean, half, shown):
    e = Estimate(mean, half, 10, "t", 9)
    assert str(e) == shown
    assert e._repr_html_().startswith(f"<span>{shown}</span>") and "n = 10" in e._repr_html_()


@given(
    st.floats(min_value=-1e5, max_value=1e5, allow_nan=False),
    st.floats(min_value=1e-3, max_value=1e4),
)
def test_the_rounding_rule(mean, half):
    """Two significant digits of the half-width, the mean to the same decimal place,
    each the correctly rounded decimal (decimal module, round-half-even as format)."""
    shown_mean, _, rest = str(Estimate(mean, half, 5)).partition(" ± ")
    shown_half = rest.removesuffix(" (95%)")
    if shown_mean.startswith("("):
        return  # a shared power of ten: checked by the parametrised cases
    assert len(decimal.Decimal(shown_half).normalize().as_tuple().digits) <= 2
    places = 1 - math.floor(math.log10(float(shown_half)))  # the second digit's place
    assert decimals_of(shown_half) == decimals_of(shown_mean) == max(places, 0)
    quantum = decimal.Decimal(1).scaleb(-places)
    assert decimal.Decimal(shown_mean) == decimal.Decimal(mean).quantize(quantum)
    assert abs(float(shown_half) - half) <= 0.05 * half  # within two-digit rounding


def test_latex_display_of_an_estimate():
    assert Estimate(229.93, 3.412, 10)._repr_latex_() == "$229.9 \\pm 3.4$ (95%)"
    small = Estimate(1.5e-7, 3e-9, 10)._repr_latex_()
    assert small == "$(1.500 \\pm 0.030)\\times 10^{-7}$ (95%)"


# Claim


def test_a_claim_prints_one_short_line_and_renders_its_statement():
    claim = Claim(
        name="demo.regret",
        statement=r"regret $\le c \log N$ with $c < 1$ & more",
        kind=Evidence.STATISTICAL,
        passed=True,
        origin=Origin.PAPER,
        citation="[HR26]",
        hypotheses=(r"$\lambda_H < \mu$",),
        quantity="slope",
        value=0.52,
        reference=1.0,
        estimate=Estimate(0.52, 0.031, 12, "regression", 10),
    )
    assert str(claim) == "demo.regret: HOLDS, statistical; 0.520 ± 0.031 (95%) against 1"
    assert claim.verdict == "HOLDS"
    assert claim._repr_latex_().startswith(claim.statement)
    html = claim._repr_html_()
    assert "regret ≤ c log N with c &lt; 1 &amp; more" in html  # Unicode and escaped
    assert "λ_H &lt; μ" in html and "stated in the paper, [HR26]" in html
    identity = Claim(name="demo.sum", statement="$1 + 1 = 2$", kind=Evidence.IDENTITY,
                     passed=False, origin=Origin.TEXTBOOK)  # fmt: skip
    assert str(identity) == "demo.sum: FAIL, identity"
