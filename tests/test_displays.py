"""Results in a notebook and in print: ``Enclosure`` (a float, formats, certified order
comparisons, LaTeX and HTML), ``Estimate`` ("229.9 ± 3.4 (95%)"), ``Claim`` (a short
line, LaTeX and HTML), the gate and routing optima, the ladder, and the record lists
with ``to_frame()``.

References are computed here by another route: exact rationals for the enclosures'
midpoints and comparisons, :mod:`decimal` for the rounding of estimates.
"""

from __future__ import annotations

import dataclasses
import decimal
import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qtheory.core.claims import Claim, Evidence, Origin
from qtheory.core.enclosure import Enclosure, UndecidedComparison
from qtheory.core.printing import latex_from_log, positional
from qtheory.core.records import Records, record_row
from qtheory.core.stats import Estimate
from qtheory.gated.ladder import ladder
from qtheory.gated.welfare import optimal_gate, optimal_routing
from qtheory.lossnet.regret import regret_curve
from qtheory.model.gated import GatedQueue
from qtheory.model.lossnet import LossNetwork

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


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_a_number_beyond_float64_printed_from_its_logarithm(log_value):
    """The mantissa and exponent of e^log_value, against mpmath at 40 digits (six
    significant digits; the float64 logarithm's own error is |log| * 1e-16 relative)."""
    shown = latex_from_log(log_value)
    mantissa, _, exponent = shown.partition(r"\times 10^")
    with mpmath.workdps(40):
        reference = mpmath.exp(mpmath.mpf(log_value))
        value = mpmath.mpf(mantissa) * mpmath.mpf(10) ** int(exponent.strip("{}"))
        assert 1 <= mpmath.mpf(mantissa) < 10 and len(mantissa) == 7  # d.ddddd
        assert abs(value / reference - 1) <= 5e-6 + abs(log_value) * 1e-15


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


# The optima, the ladder and the record lists (references: closed forms, and the
# decimal module for the six-digit rounding)


def six_digits(value) -> decimal.Decimal:
    """``value`` rounded to six significant digits by the decimal module."""
    exact = decimal.Decimal(mpmath.nstr(mpmath.mpf(value), 40))
    return exact.quantize(decimal.Decimal(1).scaleb(exact.adjusted() - 5))


def shown(text: str) -> dict[str, decimal.Decimal]:
    """``name = number`` pairs of a display line."""
    pairs = (item.split(" = ") for item in text.split(": ", 1)[1].split(", "))
    return {name: decimal.Decimal(value) for name, value in pairs}


def test_a_gate_optimum_shows_six_digits_of_each_quantity_float_or_mpf():
    queue = GatedQueue("inf", 1, 3, 1)
    for opt in (optimal_gate(queue), optimal_gate(queue, dps=30)):
        numbers = shown(str(opt))
        fields = {"τ*": opt.gate, "S_GA(τ*)": opt.welfare, "σ*": opt.root,
                  "λ_GA(τ*)": opt.throughput, "E[S]": opt.mean_sojourn}  # fmt: skip
        assert numbers == {name: six_digits(value) for name, value in fields.items()}
        assert r"$\tau^* = " in opt._repr_latex_() and "<table>" in opt._repr_html_()


def test_a_routing_optimum_shows_the_closed_form():
    """ν = 9, Λ = ∞: λ* = μ − √(μC/R) = 2/3 and S_RR* = C(√ν − 1)² = 4."""
    opt = optimal_routing(GatedQueue("inf", 1, 9, 1))
    assert str(opt) == "RR rate: λ* = 0.666667, S_RR(λ*) = 4"
    assert opt._repr_latex_().endswith(r"$\lambda^* = 0.666667$, $S_{\mathrm{RR}}(\lambda^*) = 4$")


def test_an_optimum_display_says_what_the_record_says_of_itself():
    opt = optimal_gate(GatedQueue("inf", 1, 3, 1), sojourn_cost="deadline:1")  # bounded cost
    assert not opt.attained and opt.evidence.startswith("numerical")
    assert str(opt).startswith(f"GA gate (a supremum, not attained; {opt.evidence}): ")
    # R = 2 = E[S²] of a customer who finds the queue empty (μ = 1): nobody earns welfare
    nobody = optimal_gate(GatedQueue("inf", 1, 2, 1), sojourn_cost="power:2")
    assert str(nobody).startswith("GA gate (nobody admitted; proved unique): τ* = ∞")
    assert r"\tau^* = \infty" in nobody._repr_latex_()


def test_the_ladder_shows_its_rungs_and_its_frame_holds_them():
    steps = ladder(GatedQueue("inf", 1, 4, 1), phases=2, full_memory=False)
    lines = str(steps).splitlines()
    assert lines[0].split() == ["rung", "welfare", "PoF", "evidence"]
    assert lines[1].split() == ["RR", "1", "1", "identity"]  # (√4 − 1)² = 1
    frame = steps.to_frame()
    assert frame.name.tolist() == [rung.name for rung in steps.rungs()]
    assert frame.welfare.tolist()[:4] == [rung.welfare for rung in steps.rungs()][:4]
    assert "<td>PH(2)</td>" in steps._repr_html_()
    assert steps._repr_latex_().startswith(r"$$\begin{array}")


def test_record_lists_are_lists_with_a_frame():
    net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    points = regret_curve(net, [10, 100])
    assert points == list(points) and isinstance(points, Records)
    frame = points.to_frame()
    assert frame.columns.tolist() == [f.name for f in dataclasses.fields(points[0])]
    assert frame.regret.tolist() == [p.regret for p in points]
    row = record_row(
        Claim(name="demo.x", statement="s", kind=Evidence.STATISTICAL, passed=False,
              origin=Origin.PACKAGE, value=1.5, estimate=Estimate(1.5, 0.25, 9))
    )  # fmt: skip
    assert (row["verdict"], row["kind"], row["halfwidth"]) == ("FAIL", "statistical", 0.25)
    with pytest.raises(TypeError, match="record must be"):
        record_row(3)


@given(
    st.integers(min_value=-(10**8), max_value=10**8),
    st.integers(min_value=0, max_value=7),
    st.integers(min_value=-12, max_value=12),
)
def test_positional_writes_the_decimal_out(digits, point, exponent):
    """Against the decimal module's fixed-point format (every digit kept)."""
    text = str(abs(digits)).rjust(point + 1, "0")
    mantissa = ("-" if digits < 0 else "") + text[:1] + ("." + text[1:] if text[1:] else "")
    written = positional(f"{mantissa}e{exponent:+d}")
    assert written == format(decimal.Decimal(f"{mantissa}e{exponent}"), "f")
