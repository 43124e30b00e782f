r"""One notation for every output: quantity names to mathematics.

Tables, equations, claims and figures name a quantity by a key (``"R_fluid"``,
``"tau_star"``, ``"lambda_h"``) and take its typeset form from :data:`NOTATION`, so the
same quantity looks the same everywhere: LaTeX for documents and for matplotlib's
mathtext (figures), plain Unicode for the terminal.  Sympy symbols whose names are keys
(``R_fluid``, ``E_idle``) print through :func:`sympy_names`, so that a derived formula
shows :math:`R_{\mathrm{fluid}}` and not the italic letters :math:`R_{fluid}`.

Conventions: descriptive subscripts are upright (``\mathrm``), one-letter class labels
italic (:math:`\lambda_H`); an optimum carries a star; a reward rate is :math:`R`, a
welfare rate :math:`S`.

Examples
--------
>>> latex("R_fluid"), text("R_fluid")
('R_{\\mathrm{fluid}}', 'R_fluid')
>>> math("tau_star"), text("tau_star")
('$\\tau^*$', 'τ*')
>>> latex("no_such_quantity")
Traceback (most recent call last):
...
KeyError: "no notation for 'no_such_quantity'; add it to qtheory.core.notation.NOTATION"
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from qtheory.core.markup import Kind, pieces

__all__ = [
    "NOTATION",
    "UNICODE_MATH",
    "Notation",
    "latex",
    "math",
    "sympy_names",
    "terminal",
    "text",
]


class Notation(NamedTuple):
    r"""How one quantity is written.

    Examples
    --------
    >>> NOTATION["C_vol"]
    Notation(latex='C_{\\mathrm{vol}}', text='C_vol')
    """

    latex: str  # LaTeX math (no dollars); also valid matplotlib mathtext
    text: str  # plain Unicode for the terminal


#: Quantity key -> its notation.  Keys are the names used by tables (``--columns``),
#: parameters and Sympy symbols.
NOTATION: dict[str, Notation] = {
    # The unobservable M/M/1 queue.
    "arrival_rate": Notation(r"\Lambda", "Λ"),
    "service_rate": Notation(r"\mu", "μ"),
    "reward": Notation("R", "R"),
    "cost": Notation("C", "C"),
    "nu": Notation(r"\nu", "ν"),
    "epsilon": Notation(r"\varepsilon", "ε"),
    "sigma": Notation(r"\sigma", "σ"),
    "sigma_star": Notation(r"\sigma^*", "σ*"),
    "tau": Notation(r"\tau", "τ"),
    "tau_star": Notation(r"\tau^*", "τ*"),
    "throughput_ga": Notation(r"\lambda_{\mathrm{GA}}(\tau^*)", "λ_GA(τ*)"),
    "S_GA": Notation(r"S_{\mathrm{GA}}", "S_GA"),
    "S_RR": Notation(r"S_{\mathrm{RR}}", "S_RR"),
    "welfare_ga": Notation(r"S_{\mathrm{GA}}(\tau^*)", "S_GA(τ*)"),
    "rate_rr": Notation(r"\lambda^*", "λ*"),
    "welfare_rr": Notation(r"S_{\mathrm{RR}}(\lambda^*)", "S_RR(λ*)"),
    "welfare_obs": Notation(r"S_{\mathrm{obs}}", "S_obs"),
    "pof": Notation(r"\mathrm{PoF}", "PoF"),
    "theta_GA": Notation(r"\theta_{\mathrm{GA}}", "θ_GA"),
    "welfare_gain": Notation(r"S_{\mathrm{GA}}^* - S_{\mathrm{RR}}^*", "S_GA* − S_RR*"),
    "pof_excess": Notation(r"\mathrm{PoF} - 1", "PoF − 1"),
    "gate_excess": Notation(r"\tau^* - (1/\mu - 1/\Lambda)", "τ* − (1/μ − 1/Λ)"),
    "lambda_star": Notation(r"\lambda^*", "λ*"),
    "E_S": Notation(r"E[S]", "E[S]"),
    # The overloaded loss network.
    "servers": Notation("N", "N"),
    "lambda_h": Notation(r"\lambda_H", "λ_H"),
    "lambda_l": Notation(r"\lambda_L", "λ_L"),
    "mu": Notation(r"\mu", "μ"),
    "r_h": Notation("r_H", "r_H"),
    "r_l": Notation("r_L", "r_L"),
    "R_fluid": Notation(r"R_{\mathrm{fluid}}", "R_fluid"),
    "R_on": Notation(r"R_{\mathrm{on}}", "R_on"),
    "R_off": Notation(r"R_{\mathrm{off}}", "R_off"),
    "R_W": Notation("R_W", "R_W"),
    "R_k": Notation("R_k", "R_k"),
    "R_PFI": Notation(r"R_{\mathrm{PFI}}", "R_PFI"),
    "R_SSS": Notation(r"R_{\mathrm{SSS}(W)}", "R_SSS(W)"),
    "C_vol": Notation(r"C_{\mathrm{vol}}", "C_vol"),
    "C_long": Notation(r"C_{\mathrm{long}}", "C_long"),
    "C_short": Notation(r"C_{\mathrm{short}}", "C_short"),
    "E_idle": Notation(r"E[\mathrm{idle}]", "E[idle]"),
    "P_full": Notation(r"P(\mathrm{full})", "P(full)"),
    "fluid": Notation(r"R_{\mathrm{fluid}}", "R_fluid"),
    "online": Notation(r"R_{\mathrm{on}}", "R_on"),
    "regret": Notation(r"R_{\mathrm{fluid}} - R_{\mathrm{on}}", "R_fluid − R_on"),
    "reserve": Notation("k^*", "k*"),
    "p_full": Notation(r"P(\mathrm{full})", "P(full)"),
    "mean_idle": Notation(r"E[\mathrm{idle}]", "E[idle]"),
    "window": Notation("W", "W"),
    "window_constant": Notation("c", "c"),
    "c_star": Notation("c^*", "c*"),
    "level": Notation("i", "i"),
    # Symbols that once collided across sections, renamed here once: the partial sums of
    # class rates (not the arrival rate Lambda), the Chernoff exponents and cumulant
    # generating functions (not Legendre-transform Lambdas), the heavy-traffic constant
    # (not the marginal class m or the Erlang phases m), a fit's chi-square per degree of
    # freedom (not Naor's ratio nu).
    "partial_rate": Notation(r"\bar\lambda", "λ̄"),
    "cumulant": Notation(r"\psi", "ψ"),
    "chernoff_exponent": Notation(r"\psi^*", "ψ*"),
    "heavy_traffic_constant": Notation(r"\gamma", "γ"),
    "chi2_per_df": Notation(r"\chi^2/\mathrm{df}", "χ²/df"),
}


def _get(name: str) -> Notation:
    try:
        return NOTATION[name]
    except KeyError:
        raise KeyError(
            f"no notation for {name!r}; add it to qtheory.core.notation.NOTATION"
        ) from None


def latex(name: str) -> str:
    r"""The LaTeX (and mathtext) form of quantity ``name``, without dollars.

    Parameters
    ----------
    name : str
        A key of :data:`NOTATION`.

    Returns
    -------
    str
        The LaTeX math.

    Raises
    ------
    KeyError
        If ``name`` has no notation.

    Examples
    --------
    >>> latex("C_vol")
    'C_{\\mathrm{vol}}'
    """
    return _get(name).latex


def math(name: str) -> str:
    r"""The LaTeX form of quantity ``name`` in inline math, ``$...$``.

    Parameters
    ----------
    name : str
        A key of :data:`NOTATION`.

    Returns
    -------
    str
        ``$...$``.

    Raises
    ------
    KeyError
        If ``name`` has no notation.

    Examples
    --------
    >>> math("lambda_h")
    '$\\lambda_H$'
    """
    return f"${_get(name).latex}$"


def text(name: str) -> str:
    """The plain Unicode form of quantity ``name``, for the terminal.

    Parameters
    ----------
    name : str
        A key of :data:`NOTATION`.

    Returns
    -------
    str
        Unicode text.

    Raises
    ------
    KeyError
        If ``name`` has no notation.

    Examples
    --------
    >>> text("lambda_h")
    'λ_H'
    """
    return _get(name).text


def sympy_names(symbols: Iterable[object]) -> dict[object, str]:
    r"""``symbol_names`` for :func:`sympy.latex`: each Sympy symbol whose name is a key of
    :data:`NOTATION` printed in that notation (others keep Sympy's default).

    Parameters
    ----------
    symbols : iterable of sympy.Symbol
        E.g. an expression's ``free_symbols``.

    Returns
    -------
    dict
        Symbol -> LaTeX, for the symbols that have a notation.

    Examples
    --------
    >>> import sympy
    >>> R_fluid, x = sympy.symbols("R_fluid x")
    >>> sympy.latex(R_fluid - x, symbol_names=sympy_names((R_fluid - x).free_symbols))
    'R_{\\mathrm{fluid}} - x'
    """
    return {s: NOTATION[s.name].latex for s in symbols if getattr(s, "name", None) in NOTATION}


#: Stand-ins for ``\\{`` and ``\\}`` while :func:`terminal` drops the grouping braces.
_OPEN, _CLOSE = "\x02", "\x03"
#: LaTeX commands -> Unicode, for :func:`terminal` (longest names first when applied).
_COMMANDS = {
    "Lambda": "Λ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "sigma": "σ",
    "tau": "τ",
    "theta": "θ",
    "kappa": "κ",
    "rho": "ρ",
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "Delta": "Δ",
    "varepsilon": "ε",
    "epsilon": "ε",
    "omega": "ω",
    "Omega": "Ω",
    "pi": "π",
    "Theta": "Θ",
    "infty": "∞",
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "ne": "≠",
    "approx": "≈",
    "sim": "~",
    "in": "∈",
    "notin": "∉",
    "pm": "±",
    "times": "×",
    "cdot": "·",
    "dots": "…",
    "ldots": "…",
    "cdots": "…",
    "to": "→",
    "downarrow": "↓",
    "uparrow": "↑",
    "lfloor": "⌊",
    "rfloor": "⌋",
    "lceil": "⌈",
    "rceil": "⌉",
    "sum": "Σ",
    "prod": "Π",
    "sqrt": "√",
    "log": "log",
    "exp": "exp",
    "min": "min",
    "max": "max",
    "sup": "sup",
    "inf": "inf",
    "hat": "",
    "bar": "",
    "mathrm": "",
    "text": "",
    "mathbf": "",
    "operatorname": "",
    "left": "",
    "right": "",
    "bigl": "",
    "bigr": "",
    "Bigl": "",
    "Bigr": "",
    ",": " ",
    ";": " ",
    "quad": "  ",
    "!": "",
    "{": _OPEN,
    "}": _CLOSE,
    "%": "%",
    "_": "_",
}
#: A Unicode mathematical character -> its LaTeX math command (the inverse of the
#: one-character entries of ``_COMMANDS``), for text that reaches LaTeX in Unicode.
UNICODE_MATH = {
    **{
        char: f"\\{name}"
        for name, char in _COMMANDS.items()
        if len(char) == 1
        and not char.isascii()
        and name not in ("leq", "geq", "epsilon", "ldots", "cdots", "sqrt")
    },
    "√": r"\surd",
}
_COMMAND = re.compile(r"\\([A-Za-z]+|[,;!{}%_])")
_FRAC = re.compile(r"\\[td]?frac\{([^{}]*)\}\{([^{}]*)\}|\\tfrac(\d)(\d)")
_SQRT = re.compile(r"\\sqrt\{([^{}]*)\}")
_TOKEN = re.compile(r"\\?[A-Za-z]+|[0-9.]+")


def terminal(text: str) -> str:
    r"""A sentence of :mod:`qtheory.core.markup` as plain Unicode, for the terminal: code
    as it is; in the inline ``$...$`` LaTeX mathematics, Greek letters and relations as
    characters, ``\mathrm{GA}`` as ``GA``, fractions as ``a/b``, braces dropped.  Only the
    small LaTeX vocabulary of the package's claims and notation is translated; anything
    else keeps its LaTeX name without the backslash.

    Parameters
    ----------
    text : str
        Text whose mathematics is between ``$`` signs and code between backticks.

    Returns
    -------
    str

    Examples
    --------
    >>> print(terminal(r"$\sigma_{\mathrm{GA}} < \lambda/\mu$ for $\tau \ge 0$"))
    σ_GA < λ/μ for τ ≥ 0
    >>> print(terminal(r"$|x - 1| \le \tfrac32 \log\log(1/\varepsilon)$, $\Lambda = \infty$"))
    |x - 1| ≤ 3/2 log log(1/ε), Λ = ∞
    >>> print(terminal(r"$\lambda^* = \min(\Lambda, \mu - \sqrt{\mu C/R})$, $\sqrt{\nu} > 1$"))
    λ* = min(Λ, μ - √(μ C/R)), √ν > 1
    >>> print(terminal(r"$m \in \{2, 3\}$; see `qtheory gated --certify`"))
    m ∈ {2, 3}; see qtheory gated --certify
    """
    return "".join(
        _unicode(piece.content) if piece.kind is Kind.MATH else piece.content
        for piece in pieces(text)
    )


def _unicode(math_text: str) -> str:
    previous = None
    while previous != math_text:  # innermost fractions first
        previous = math_text
        math_text = _FRAC.sub(
            lambda m: f"{m[3]}/{m[4]}" if m[3] else f"({m[1]})/({m[2]})", math_text
        )
        math_text = _SQRT.sub(  # √ν, but √(μC/R): the root covers all of it
            lambda m: f"√{m[1]}" if _TOKEN.fullmatch(m[1].strip()) else f"√({m[1]})",
            math_text,
        )
    math_text = _COMMAND.sub(lambda m: _command(m[1], m.end(), math_text), math_text)
    math_text = re.sub(r"\(([^()/ ]+)\)/\(([^()/ ]+)\)", r"\1/\2", math_text)
    math_text = math_text.replace("^*", "*").replace("{", "").replace("}", "")
    math_text = math_text.replace(_OPEN, "{").replace(_CLOSE, "}")  # \{ and \} are braces
    return re.sub(" {2,}", " ", math_text)


def _command(name: str, end: int, source: str) -> str:
    """One LaTeX command in Unicode; a word (``log``) followed by a letter or another
    command keeps a space (``\\log\\log`` -> ``log log``)."""
    symbol = _COMMANDS.get(name, name)
    if not (len(symbol) > 1 and symbol.isalpha()):
        return symbol
    follows, start = source[end : end + 1], end - len(name) - 1
    before = " " if start > 0 and source[start - 1].isalnum() else ""
    after = " " if follows.isalpha() or follows == "\\" else ""
    return before + symbol + after
