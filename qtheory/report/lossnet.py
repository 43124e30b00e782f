"""The loss-network part of ``qtheory reproduce``: the fluid LP derivation, the exact
online optimum over N, and figures of the regret and the optimal reserve."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from qtheory import report
from qtheory.core import notation
from qtheory.lossnet.claims import bounded_offset_claim, lossnet_claims
from qtheory.lossnet.fluid import derive_fluid
from qtheory.lossnet.online import REGRET_IDENTITY
from qtheory.lossnet.regret import (
    RegretPoint,
    derive_leading_constant,
    fit_log_slope,
    leading_constant,
    regret_curve,
)
from qtheory.model.lossnet import LossNetwork
from qtheory.report.claims import claim_name_latex, claim_paragraph
from qtheory.report.display import PRINT, DisplayForm, add, frac, mul
from qtheory.report.plots import (
    OKABE_ITO,
    integer_ticks,
    outside_legend,
    residual_figure,
    series_style,
)

if TYPE_CHECKING:
    from qtheory.report.run import Run

DEFAULT = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)


def servers_grid(quick: bool) -> np.ndarray:
    """N on a log grid from 10 to 10^5 (quick) or 10^12 (default; the certified online
    optimum costs O(k* + T), not O(N), so the top of the grid is cheap).

    Parameters
    ----------
    quick : bool
        The quick grid (11 points up to 10^5) or the full one (34 up to 10^12).

    Returns
    -------
    numpy.ndarray of int
        Distinct, increasing server counts.

    Examples
    --------
    >>> servers_grid(quick=True)[[0, -1]].tolist()
    [10, 100000]
    """
    top, count = (5, 11) if quick else (12, 34)
    return np.unique(np.round(np.logspace(1, top, count)).astype(int))


def display_forms() -> dict[str, DisplayForm]:
    r"""Every formula of the loss-network section as printed, with the derivation's
    expression it equals (checked by Sympy in ``tests/report/test_display_forms.py``).

    Returns
    -------
    dict of str to DisplayForm

    Examples
    --------
    >>> import sympy
    >>> print(sympy.latex(display_forms()["overloaded_x_l"].display, **PRINT))
    \mu - \lambda_{H}
    """
    fluid, (constant,) = derive_fluid().bound(1), derive_leading_constant()
    symbols = {
        x.name: x
        for x in (
            fluid.expr.free_symbols
            | REGRET_IDENTITY.expr.free_symbols
            | constant.constant.expr.free_symbols
        )
    }
    n, mu, lam, r_h, r_l = (symbols[k] for k in ("N", "mu", "lambda_H", "r_H", "r_L"))
    idle, full = symbols["E_idle"], symbols["P_full"]
    spare = add(mu, -lam)
    gap = add(r_h, -r_l)
    theta = sp.Symbol("theta", positive=True)  # log(mu/lambda_H), defined in the text
    rate = {theta: sp.log(mu / lam)}
    (scale,) = (x for x in constant.reserve.free_symbols if x.name == "K")
    return {
        "overloaded_x_l": DisplayForm(spare, derive_fluid().case(1).admitted[1]),
        "fluid_bound": DisplayForm(mul(n, add(mul(r_h, lam), mul(r_l, spare))), fluid.expr),
        "regret_identity": DisplayForm(
            add(mul(r_l, mu, idle), mul(gap, lam, n, full)), REGRET_IDENTITY.expr
        ),
        "constant": DisplayForm(frac(mul(r_l, mu), theta), constant.constant.expr, rate),
        "reserve": DisplayForm(
            mul(
                frac(1, theta),
                sp.log(frac(mul(gap, lam, scale, theta, n), mul(r_l, mu)), evaluate=False),
            ),
            constant.reserve,
            rate,
        ),
    }


def _math(expr: sp.Expr) -> report.Latex:
    """An expression as an inline-math table cell, in the notation and order built."""
    names = notation.sympy_names(expr.free_symbols)
    return report.Latex(f"${sp.latex(expr, symbol_names=names, **PRINT)}$")


_RELATIONS = {"<": "<", "<=": "\\le", ">": ">", ">=": "\\ge"}


def _condition(condition: sp.Basic) -> report.Latex:
    """A case condition as a table cell; ``a < b ∧ b < c`` printed as the chain
    ``a < b < c``."""
    parts = condition.args if isinstance(condition, sp.And) else ()
    if (
        len(parts) == 2
        and all(isinstance(x, sp.core.relational.Relational) for x in parts)
        and parts[0].rhs == parts[1].lhs
    ):
        names = notation.sympy_names(condition.free_symbols)
        (a, b), c = parts[0].args, parts[1].rhs
        a, b, c = (sp.latex(x, symbol_names=names) for x in (a, b, c))
        first, second = (_RELATIONS[x.rel_op] for x in parts)
        return report.Latex(f"${a} {first} {b} {second} {c}$")
    return _math(condition)


def _derivation() -> str:
    fluid = derive_fluid()
    forms = {name: form.display for name, form in display_forms().items()}
    rows = [
        [
            case.name,
            _condition(case.condition),
            _math(case.admitted[0]),
            _math(forms["overloaded_x_l"] if case.name == "overloaded" else case.admitted[1]),
            _math(case.capacity_price),
        ]
        for case in fluid.cases
    ]
    fluid_bound = notation.latex("R_fluid")
    return "\n".join(
        [
            "The fluid LP per server is $\\max\\{r_H x_H + r_L x_L : x_H + x_L \\le \\mu,\\ "
            "0\\le x_i\\le\\lambda_i\\}$.  Sympy solves it by cases, each with its dual "
            "prices; at the parameters of this run the optimum is certified in exact "
            f"rationals (claim {claim_name_latex('lossnet.fluid')} below).",
            report.table(
                ["case", "condition", "$x_H$", "$x_L$", "price $y$ of $x_H + x_L \\le \\mu$"],
                rows,
                caption="Fluid LP by cases ($r_H > r_L > 0$).",
                label="tab:lossnet-fluid",
            ),
            report.equation(fluid_bound, forms["fluid_bound"], label="eq:lossnet-fluid", **PRINT),
            "Under trunk reservation with reserve $k$ the regret splits exactly as "
            f"(claim {claim_name_latex('lossnet.regret_identity')} below)",
            report.equation(
                f"{fluid_bound} - R_k",
                forms["regret_identity"],
                label="eq:lossnet-identity",
                **PRINT,
            ),
            "and the heuristic balance of reserved idle servers against H blocking "
            f"(${notation.latex('P_full')}\\approx K\\rho^k$; this package's derivation, not "
            "a theorem, tested on a finite range by claim "
            f"{claim_name_latex('lossnet.bounded_offset')}) "
            "gives",
            report.align(
                [
                    ("\\theta", r"\log(\mu/\lambda_H)"),
                    ("k^*", forms["reserve"]),
                    ("c", forms["constant"]),
                ],
                label="eq:lossnet-constant",
                **PRINT,
            ),
        ]
    )


def _regret_table(points: list[RegretPoint]) -> str:
    rows = [
        [p.servers, p.reserves[1], p.online, p.regret, p.regret / np.log(p.servers)] for p in points
    ]
    per_server = DEFAULT.lambda_h * DEFAULT.r_h + (DEFAULT.mu - DEFAULT.lambda_h) * DEFAULT.r_l
    return report.table(
        ["$N$", "$k^*$", "$R_{\\mathrm{on}}$", "regret", "regret$/\\log N$"],
        rows,
        caption="Online optimum (best trunk reservation), rounded from the certified "
        f"enclosures of claim {claim_name_latex('lossnet.online_optimum')} "
        "($k^*$ certified optimal) for "
        "$\\lambda_H=0.6$, $\\lambda_L=0.8$, $\\mu=1$, $r_H=2$, $r_L=1$; the regret is "
        f"$R_{{\\mathrm{{fluid}}}} - R_{{\\mathrm{{on}}}}$ with $R_{{\\mathrm{{fluid}}}} = "
        f"(\\lambda_H r_H + (\\mu - \\lambda_H) r_L)N = {per_server:g}N$ exactly.",
        label="tab:lossnet-online",
        formats={2: ".3f", 3: ".6f", 4: ".4f"},
    )


def _fit_text(points: list[RegretPoint]) -> str:
    c = leading_constant(DEFAULT)
    fit = fit_log_slope(points, min_servers=10**3)
    return (
        f"For comparison, least squares over $N\\ge 10^3$ gives the slope "
        f"${fit.slope.mean:.4f}\\pm{fit.slope.halfwidth:.4f}$ of the regret on $\\log N$ "
        "($\\pm$ is the 95\\% half-width of the regression interval; the regret is exact, "
        "so it measures how well a line fits the $O(1)$ wobble of the integer reserve, not "
        f"sampling error), next to $c = r_L\\mu/\\log(\\mu/\\lambda_H) = {c:.4f}$."
    )


def _regret_figure(points: list[RegretPoint], figures: Path) -> list[Path]:
    fig, ax, rest = residual_figure()
    n = np.array([p.servers for p in points], dtype=float)
    regret = np.array([p.regret for p in points])
    c = leading_constant(DEFAULT)
    fit = fit_log_slope(points, min_servers=10**3)
    exact = series_style("exact") | {"linestyle": "none", "markersize": 3}
    ax.semilogx(n, c * np.log(n) + fit.intercept, **series_style("c log N"), markersize=3,
                label=f"$c\\log N + b$, $c={c:.3f}$")  # fmt: skip
    ax.semilogx(n, regret, **exact, label="exact regret")  # drawn over the line's markers
    ax.set_ylabel(notation.math("regret"))
    offset = regret - c * np.log(n)
    claim = bounded_offset_claim(DEFAULT, points)
    checked = n >= 10**3  # the claim's range
    middle = 0.5 * (offset[checked].max() + offset[checked].min())
    rest.fill_between(n[checked], middle - claim.tolerance / 2, middle + claim.tolerance / 2,
                      color=OKABE_ITO["grey"], alpha=0.25, linewidth=0,
                      label=f"allowed spread {claim.tolerance:g}")  # fmt: skip
    rest.semilogx(n, offset, **exact)
    rest.set_xlabel("servers $N$")
    rest.set_ylabel(f"${notation.latex('regret')} - c\\log N$")
    (handles, labels), (more, named) = (a.get_legend_handles_labels() for a in (ax, rest))
    outside_legend(ax, "above", handles=handles + more, labels=labels + named)
    return report.save_figure(fig, figures, "lossnet_regret")


def _threshold_figure(points: list[RegretPoint], figures: Path) -> list[Path]:
    fig, ax = report.new_figure()
    n = np.array([p.servers for p in points], dtype=float)
    ax.semilogx(n, [p.reserves[1] for p in points], **series_style("exact"), markersize=3,
                label="$k^*(N)$ (exact)")  # fmt: skip
    ax.semilogx(
        n,
        np.log(n) / np.log(DEFAULT.mu / DEFAULT.lambda_h),
        **series_style("asymptotic"),
        markersize=3,
        label="$\\log N/\\log(\\mu/\\lambda_H)$",
    )
    integer_ticks(ax.yaxis)
    ax.set_xlabel("servers $N$")
    ax.set_ylabel("optimal reserve $k^*$")
    outside_legend(ax, "above")
    return report.save_figure(fig, figures, "lossnet_threshold")


def steps(run: Run) -> Iterator[tuple[str, Callable[[], list[Path]]]]:
    """The named steps that write this model's outputs (each returns the files written);
    the claim records go to ``run.claims``.

    Parameters
    ----------
    run : qtheory.report.run.Run
        Output folder, ``quick`` flag and the claim list to extend.

    Returns
    -------
    iterator of (str, callable)
        Step names and the functions that write the files (call them in order).

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> run = SimpleNamespace(out=Path("build"), quick=True, claims=[])
    >>> [name for name, _ in steps(run)][:2]
    ['lossnet: online optimum over N', 'lossnet: derivations and tables']
    """
    derivations, figures = run.out / "derivations", run.out / "figures"
    points: list[RegretPoint] = []

    def compute() -> list[Path]:
        points.extend(regret_curve(DEFAULT, servers_grid(run.quick)))
        return []

    def section() -> list[Path]:
        claims = lossnet_claims(DEFAULT, points)
        run.claims.extend(claims)
        offset_tolerance = next(c for c in claims if c.name == "lossnet.bounded_offset").tolerance
        body = "\n\n".join(
            [
                _derivation(),
                _regret_table(points),
                _fit_text(points),
                *(claim_paragraph(claim) for claim in claims),
                report.figure(
                    "lossnet_regret",
                    "Regret $R_{\\mathrm{fluid}} - R_{\\mathrm{on}}$ of the online optimum "
                    "against $N$ (exact), with $c\\log N + b$ ($b$ the intercept of the "
                    "least-squares line over $N \\ge 10^3$).  Lower panel: the offset "
                    "$R_{\\mathrm{fluid}} - R_{\\mathrm{on}} - c\\log N$; the shaded band has "
                    f"the width ${offset_tolerance:g}$ that claim "
                    f"{claim_name_latex('lossnet.bounded_offset')} allows its spread over "
                    "$N \\ge 10^3$, centred on the offsets there.",
                    "fig:lossnet-regret",
                ),
                report.figure(
                    "lossnet_threshold",
                    "Optimal reserve $k^*(N)$ of the online optimum against $N$ (exact), "
                    "and its leading order "
                    "$\\log N/\\log(\\mu/\\lambda_H)$.",
                    "fig:lossnet-threshold",
                ),
            ]
        )
        text = report.section(
            "The overloaded loss network: fluid bound and online optimum", body, label="sec:lossnet"
        )
        return [report.write_text(derivations / "lossnet.tex", text)]

    yield "lossnet: online optimum over N", compute
    yield "lossnet: derivations and tables", section
    yield "lossnet: regret figure", lambda: _regret_figure(points, figures)
    yield "lossnet: threshold figure", lambda: _threshold_figure(points, figures)
