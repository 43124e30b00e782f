r"""How records show themselves: in print, in LaTeX and in a notebook's HTML.

One set of rules for every record's ``__str__``, ``_repr_latex_`` and ``_repr_html_``
(the gate and routing optima, the ladder of memory, claims, enclosures):

* a number is shown to :data:`DIGITS` significant digits, the same for a float and an
  mpmath value (:func:`number`); a decimal of moderate exponent is written out
  (:func:`positional`), others as :math:`m\times 10^{e}` in LaTeX (:func:`latex_number`);
* a quantity is named by its key of :mod:`qtheory.core.notation`, so that it looks the
  same here as in the tables and the document;
* an estimate shows its half-width to two significant digits and its mean to the same
  decimal place (:func:`mean_and_halfwidth`), so that no digit is shown that its
  interval does not support;
* HTML is a two-column table of text (:func:`html_table`), escaped once, here.

These are displays: they round.  The records keep every digit, and the certified ones
say where their certificate is.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable

from qtheory.core import notation

__all__ = [
    "DIGITS",
    "estimate_latex",
    "html_table",
    "latex_from_log",
    "latex_number",
    "mean_and_halfwidth",
    "number",
    "positional",
    "quantities",
]

#: Significant digits of a displayed number.
DIGITS = 6


def number(value: object, digits: int = DIGITS) -> str:
    """``value`` to ``digits`` significant digits, as text.

    Parameters
    ----------
    value : float, int, NumPy scalar, mpmath number or anything else
        Numbers alike (``inf`` is ``∞``); a bool and anything else is ``str(value)``.
    digits : int, default :data:`DIGITS`

    Returns
    -------
    str

    Examples
    --------
    >>> import mpmath
    >>> number(2 / 3), number(mpmath.mpf(2) / 3), number(mpmath.mpf("1e400")), number(-math.inf)
    ('0.666667', '0.666667', '1.0e+400', '-∞')
    """
    if isinstance(value, bool) or not _is_number(value):
        return str(value)
    if type(value).__module__.startswith("mpmath"):
        import mpmath

        if not mpmath.isinf(value):  # beyond float64 too: 1.0e+400
            return str(mpmath.nstr(value, digits))
    value = float(value)  # type: ignore[arg-type]
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return f"{value:.{digits}g}"


def _is_number(value: object) -> bool:
    try:
        float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return True


def positional(text: str) -> str:
    """A decimal ``'m e k'`` written out without its exponent, every digit kept.

    Parameters
    ----------
    text : str
        A decimal, with or without an exponent (``'1.50e-1'``, ``'12.5'``).

    Returns
    -------
    str
        The same digits in positional notation (``'0.150'``).

    Examples
    --------
    >>> positional("1.5e-1"), positional("-2.50e+2"), positional("7e+0"), positional("123456")
    ('0.15', '-250', '7', '123456')
    """
    mantissa, _, exponent = text.partition("e")
    sign = "-" if mantissa.startswith("-") else ""
    whole, _, fraction = mantissa.lstrip("+-").partition(".")
    digits = whole + fraction
    point = len(whole) + int(exponent or 0)  # digits before the decimal point
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    digits = digits.ljust(point, "0")
    whole, frac = digits[:point].lstrip("0") or "0", digits[point:]
    return f"{sign}{whole}.{frac}" if frac else f"{sign}{whole}"


def latex_number(text: str, *, written_out: tuple[int, int] = (-2, 2)) -> str:
    r"""A decimal in LaTeX mathematics (no dollars): written out when its exponent is in
    ``written_out``, else ``m\times 10^{e}``; ``∞`` and ``inf`` are ``\infty``.

    Parameters
    ----------
    text : str
        A decimal (``'1.4142e+0'``, ``'0.5'``) or an infinity.
    written_out : (int, int), keyword-only, default (-2, 2)
        The exponents written in positional notation.

    Returns
    -------
    str

    Examples
    --------
    >>> latex_number("1.4142e+0"), latex_number("-2.5e-12"), latex_number("∞")
    ('1.4142', '-2.5\\times 10^{-12}', '\\infty')
    """
    if text.lstrip("+-").lower() in ("∞", "inf", "infinity"):
        return ("-" if text.startswith("-") else "") + r"\infty"
    mantissa, _, exponent = text.lower().partition("e")
    low, high = written_out
    if low <= int(exponent or 0) <= high:
        return positional(text.lower())
    return rf"{mantissa}\times 10^{{{int(exponent)}}}"


def quantities(pairs: Iterable[tuple[str, object]]) -> tuple[str, str]:
    r"""Quantities as ``(text, latex)``: ``τ* = 2.06358, …`` and
    ``$\tau^* = 2.06358$, …``, each named by its key of :mod:`qtheory.core.notation`.

    Parameters
    ----------
    pairs : iterable of (str, number)
        Notation key and value, in display order.

    Returns
    -------
    (str, str)
        The Unicode line and the LaTeX line, numbers to :data:`DIGITS` digits.

    Examples
    --------
    >>> quantities([("tau_star", 2.0635811), ("pof", float("inf"))])
    ('τ* = 2.06358, PoF = ∞', '$\\tau^* = 2.06358$, $\\mathrm{PoF} = \\infty$')
    """
    shown = [(key, number(value)) for key, value in pairs]
    text = ", ".join(f"{notation.text(key)} = {value}" for key, value in shown)
    latex = ", ".join(f"${notation.latex(key)} = {latex_number(value)}$" for key, value in shown)
    return text, latex


def html_table(rows: Iterable[tuple[str, str]]) -> str:
    r"""A two-column HTML table of (heading, text) rows, both escaped.

    Parameters
    ----------
    rows : iterable of (str, str)

    Returns
    -------
    str

    Examples
    --------
    >>> print(html_table([("verdict", "HOLDS"), ("a < b", "yes")]).replace("</tr>", "</tr>\n"))
    <table><tr><th style='text-align:left'>verdict</th><td>HOLDS</td></tr>
    <tr><th style='text-align:left'>a &lt; b</th><td>yes</td></tr>
    </table>
    """
    body = "".join(
        f"<tr><th style='text-align:left'>{html.escape(key)}</th><td>{html.escape(value)}</td></tr>"
        for key, value in rows
    )
    return f"<table>{body}</table>"


def mean_and_halfwidth(mean: float, half: float) -> tuple[str, str]:
    """``mean`` and ``half`` as text, rounded together: ``half`` to two significant
    digits and ``mean`` to the same decimal place.

    Outside 1e-4 ≤ size < 1e6 the pair shares a power of ten, ``(1.50``, ``0.03)e-7``;
    when the half-width is 0 or not finite the mean keeps six significant digits.

    Parameters
    ----------
    mean, half : float
        An estimate and the half-width of its interval.

    Returns
    -------
    (str, str)

    Examples
    --------
    >>> mean_and_halfwidth(18.012, 16.726), mean_and_halfwidth(-30.827, 877.192)
    (('18', '17'), ('-30', '880'))
    >>> mean_and_halfwidth(1.5e-7, 3e-9), mean_and_halfwidth(1.0, 0.0)
    (('(1.500', '0.030)e-7'), ('1', '0'))
    """
    if not (math.isfinite(half) and half > 0 and math.isfinite(mean)):
        return f"{mean:.6g}", f"{half:.2g}"
    size = max(abs(mean), half)
    if not 1e-4 <= size < 1e6:
        power = math.floor(math.log10(size))
        scaled_mean, scaled_half = mean_and_halfwidth(mean / 10**power, half / 10**power)
        return f"({scaled_mean}", f"{scaled_half})e{power:+d}"
    rounded = float(f"{half:.2g}")
    places = 1 - math.floor(math.log10(rounded))
    if places > 0:
        return f"{mean:.{places}f}", f"{rounded:.{places}f}"
    return f"{round(mean, places):.0f}", f"{rounded:.0f}"


def estimate_latex(mean: float, half: float) -> str:
    r"""``mean \pm half`` in LaTeX mathematics (no dollars), rounded together
    (:func:`mean_and_halfwidth`); a shared power of ten as ``\times 10^{e}``.

    Parameters
    ----------
    mean, half : float

    Returns
    -------
    str

    Examples
    --------
    >>> print(estimate_latex(229.93, 3.412), estimate_latex(1.5e-7, 3e-9))
    229.9 \pm 3.4 (1.500 \pm 0.030)\times 10^{-7}
    """
    shown_mean, shown_half = mean_and_halfwidth(mean, half)
    shown_half, _, power = shown_half.partition(")e")
    scale = f")\\times 10^{{{int(power)}}}" if power else ""
    return f"{shown_mean} \\pm {shown_half}{scale}"


def latex_from_log(log_value: float, digits: int = DIGITS) -> str:
    r"""The positive number :math:`e^{\ell}` known by its natural logarithm :math:`\ell`
    (a value beyond float64, computed in log space) as LaTeX mathematics
    :math:`m\times 10^{e}`, to ``digits`` significant digits.

    Parameters
    ----------
    log_value : float
        :math:`\ell`; ``-inf`` is 0 and ``inf`` is :math:`\infty`.
    digits : int, default :data:`DIGITS`

    Returns
    -------
    str
        No dollars.  The mantissa carries the logarithm's own rounding: a float64
        :math:`\ell` is good to about :math:`|\ell|\cdot 10^{-16}` absolute, so the
        mantissa to that relative error (for :math:`|\ell| < 10^{9}` well within six digits).

    Examples
    --------
    >>> latex_from_log(1000 * math.log(10) + math.log(2), 3)
    '2.00\\times 10^{1000}'
    >>> latex_from_log(-800.0, 4), latex_from_log(math.inf), latex_from_log(-math.inf)
    ('3.668\\times 10^{-348}', '\\infty', '0')
    """
    if math.isnan(log_value):
        raise ValueError(f"log_value must not be NaN, got {log_value!r}")
    if math.isinf(log_value):
        return r"\infty" if log_value > 0 else "0"
    decimal = log_value / math.log(10)
    exponent = math.floor(decimal)
    mantissa = f"{10 ** (decimal - exponent):.{digits - 1}f}"
    if mantissa.startswith("10"):  # 9.9995... rounded up to 10.00
        exponent += 1
        mantissa = f"{1:.{digits - 1}f}"
    return rf"{mantissa}\times 10^{{{exponent}}}"
