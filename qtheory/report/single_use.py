r"""Single-use against reusable resources at the same rates and rewards, for
``qtheory reproduce``: one table, one figure and their claims.

The single-use network (:mod:`qtheory.lossnet.single_use`: N units sold over T = 1,
no departures) and the reusable one (:mod:`qtheory.lossnet.online`: N servers, Exp(μ)
holding times, μ = 1) share λ = (0.6, 0.8) and r = (2, 1).  For the single-use network
the table gives the exact offline−online gap R_off − R_on (it levels off: the
literature's O(1) for the dynamic stochastic knapsack) and R_fluid − R_off; for the
reusable one the exact regret R_fluid − R_on of the best trunk reservation (certified,
:func:`qtheory.lossnet.regret.regret_curve`), which grows like c log N.  Its offline−online
gap R_off − R_on = regret − C_vol differs from the regret by C_vol = R_fluid − R_off = O(1)
(Bray, arXiv:2601.14538, Theorem 1), so it grows like log N too; the package estimates it
by simulation in the decomposition section (:mod:`qtheory.report.lossnet_decomposition`),
not here.  The single-use quantities are rewards over [0, T], the reusable ones rewards
per unit time: with T = 1 both are the reward lost over one unit of time.

Claims: ``single_use.gap_bounded`` (finite-range: the single-use gap varies by less than
0.01 over N >= 100 of the grid), ``single_use.contrast`` (finite-range: over the same N
the reusable regret rises by more than half of c log(N_max/N_min), c = r_L μ/log(μ/λ_H),
while the single-use gap stays within 0.01) and ``single_use.fixed_count_zero_gap``
(finite-range, exact rationals: the fixed-count online optimum equals the offline one for
every capacity C <= 6 and n <= 8 arrivals at three values of p; the proof is in
:mod:`qtheory.lossnet.single_use`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from qtheory import report
from qtheory.core.claims import Claim, Evidence, Origin
from qtheory.lossnet.regret import leading_constant, regret_curve
from qtheory.lossnet.single_use import fixed_count_optimum, single_use_optimum
from qtheory.model.lossnet import LossNetwork
from qtheory.model.single_use import SingleUseNetwork
from qtheory.report.claims import claim_name_latex, claim_paragraph
from qtheory.report.plots import outside_legend, series_style

if TYPE_CHECKING:
    from qtheory.report.run import Run

__all__ = [
    "ContrastRow",
    "contrast_claims",
    "contrast_figure",
    "contrast_table",
    "servers_grid",
    "steps",
]

REUSABLE = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
SINGLE_USE = SingleUseNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
#: The largest change of the single-use gap over N >= 100 that ``single_use.gap_bounded``
#: allows (measured: 4e-4 from N = 100 to 10^4).
GAP_SPREAD = 0.01
RATES = r"$\lambda_H = 0.6$, $\lambda_L = 0.8$, $r_H = 2$, $r_L = 1$ ($T = 1$; $\mu = 1$)"


@dataclass(frozen=True)
class ContrastRow:
    """One N of the contrast table (:func:`contrast_table`).

    Attributes
    ----------
    servers : int
        N.
    single_use_gap, single_use_error : float
        R_off − R_on of the single-use network, and the error bound of R_on.
    single_use_fluid_gap : float
        R_fluid − R_off of the single-use network.
    reusable_regret : float
        R_fluid − R_on of the reusable network (per unit time).
    reusable_reserve : int
        Its optimal reserve k*.

    Examples
    --------
    >>> row = contrast_table([10])[0]
    >>> row.servers, round(row.single_use_gap, 4), row.reusable_reserve
    (10, 0.7414, 2)
    """

    servers: int
    single_use_gap: float
    single_use_error: float
    single_use_fluid_gap: float
    reusable_regret: float
    reusable_reserve: int


def servers_grid(size: str) -> tuple[int, ...]:
    """N of the contrast: up to 10^3 for a quick run, 10^4 otherwise (the single-use HJB
    costs O(N^2): about 5 s at N = 10^4).

    Parameters
    ----------
    size : {"quick", "standard", "paper"}
        The size of the run.

    Returns
    -------
    tuple of int

    Examples
    --------
    >>> servers_grid("quick")
    (10, 30, 100, 300, 1000)
    """
    grid = (10, 30, 100, 300, 1000)
    return grid if size == "quick" else (*grid, 3000, 10_000)


def contrast_table(grid: Sequence[int], *, progress: bool = False) -> list[ContrastRow]:
    """The single-use and reusable networks side by side at the same λ, r.

    Parameters
    ----------
    grid : sequence of int
        The N >= 1.
    progress : bool, keyword-only
        Show the single-use HJB's progress bar at N >= 3000 (default False).

    Returns
    -------
    list of ContrastRow
        One per N, in order.

    Raises
    ------
    ValueError
        If an N is not an integer >= 1.

    References
    ----------
    .. [1] A. Vera and S. Banerjee, Management Science 67(3):1368-1391 (2021).
    .. [2] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).

    Examples
    --------
    >>> rows = contrast_table([100, 1000])
    >>> [round(r.single_use_gap, 3) for r in rows], [round(r.reusable_regret, 2) for r in rows]
    ([1.118, 1.118], [6.62, 11.05])
    """
    reusable = {p.servers: p for p in regret_curve(REUSABLE, list(grid))}
    rows = []
    for n in grid:
        result = single_use_optimum(SINGLE_USE.with_servers(n), progress=progress and n >= 3000)
        point = reusable[n]
        rows.append(
            ContrastRow(
                servers=n,
                single_use_gap=result.offline_online_gap,
                single_use_error=result.error_bound,
                single_use_fluid_gap=result.fluid_offline_gap,
                reusable_regret=point.regret,
                reusable_reserve=point.reserves[1],
            )
        )
    return rows


def _fixed_count_claim() -> Claim:
    checked = 0
    holds = True
    for p in (Fraction(1, 3), Fraction(1, 2), Fraction(4, 5)):
        for capacity in range(1, 7):
            for arrivals in range(9):
                opt = fixed_count_optimum(capacity, arrivals, p, 2, 1)
                holds &= opt.gap == 0
                checked += 1
    return Claim(
        name="single_use.fixed_count_zero_gap",
        statement=(
            "With a fixed number $n$ of arrivals, each of type H with probability $p$, "
            "the online optimum of the two-type knapsack equals the offline one: the "
            "policy that accepts L only once the units left cover the arrivals left is "
            "pathwise offline-optimal"
        ),
        kind=Evidence.FINITE_RANGE,
        passed=bool(holds),
        origin=Origin.PACKAGE,
        hypotheses=("$r_H = 2 > r_L = 1$", "two types"),
        scope=f"$C \\le 6$, $n \\le 8$, $p \\in \\{{1/3, 1/2, 4/5\\}}$ ({checked} cases, "
        "exact rationals)",
        quantity="cases with offline $-$ online $\\ne 0$",
        value=0.0 if holds else 1.0,
        reference=0.0,
        tolerance=0.0,
    )


def contrast_claims(rows: Sequence[ContrastRow]) -> list[Claim]:
    """The claims of the contrast, checked on its rows.

    Parameters
    ----------
    rows : sequence of ContrastRow
        From :func:`contrast_table`, with at least two N >= 100.

    Returns
    -------
    list of Claim
        ``single_use.gap_bounded``, ``single_use.contrast`` and
        ``single_use.fixed_count_zero_gap``.

    Raises
    ------
    ValueError
        If fewer than two rows have N >= 100.

    References
    ----------
    .. [1] A. Arlotto and I. Gurvich, Stochastic Systems 9(3):231-260 (2019).

    Examples
    --------
    >>> claims = contrast_claims(contrast_table([100, 300, 1000]))
    >>> [(c.name, c.passed) for c in claims][:2]
    [('single_use.gap_bounded', True), ('single_use.contrast', True)]
    """
    large = [r for r in rows if r.servers >= 100]
    if len(large) < 2:
        raise ValueError(f"rows: need two N >= 100, got {[r.servers for r in rows]}")
    gaps = [r.single_use_gap for r in large]
    spread = max(gaps) - min(gaps)
    low, high = large[0], large[-1]
    where = f"$N = {low.servers}..{high.servers}$"
    c = leading_constant(REUSABLE)
    rise = high.reusable_regret - low.reusable_regret
    needed = 0.5 * c * math.log(high.servers / low.servers)
    bounded = Claim(
        name="single_use.gap_bounded",
        statement=(
            "The offline$-$online gap $R_{\\mathrm{off}} - R_{\\mathrm{on}}$ of the "
            f"single-use network varies by less than ${GAP_SPREAD}$ over {where}: it levels "
            "off at a constant, as the $O(1)$ bounds for the dynamic stochastic knapsack say"
        ),
        kind=Evidence.FINITE_RANGE,
        passed=bool(spread < GAP_SPREAD),
        origin=Origin.PAPER,
        citation="[Bra26] (the contrast it draws); [AG19], [VB21] (bounded regret of the knapsack)",
        hypotheses=(RATES,),
        scope=where + " (exact HJB and offline sums)",
        quantity="max $-$ min of $R_{\\mathrm{off}} - R_{\\mathrm{on}}$",
        value=spread,
        reference=0.0,
        tolerance=GAP_SPREAD,
    )
    contrast = Claim(
        name="single_use.contrast",
        statement=(
            f"Over {where} the reusable network's regret "
            "$R_{\\mathrm{fluid}} - R_{\\mathrm{on}}$ rises by more than half of "
            f"$c\\log(N_{{\\max}}/N_{{\\min}})$, $c = r_L\\mu/\\log(\\mu/\\lambda_H) = {c:.4g}$, "
            "while the single-use offline$-$online gap changes by less than "
            f"${GAP_SPREAD}$"
        ),
        kind=Evidence.FINITE_RANGE,
        passed=bool(rise > needed and spread < GAP_SPREAD),
        origin=Origin.PAPER,
        citation="[XGK25] (regret $\\Theta(\\log N)$ with servers); [Bra26] (the contrast)",
        hypotheses=(RATES,),
        scope=where,
        quantity="rise of the reusable regret",
        value=rise,
        reference=needed,
        tolerance=math.nan,
    )
    return [bounded, contrast, _fixed_count_claim()]


def contrast_figure(rows: Sequence[ContrastRow], figures: Path) -> list[Path]:
    """Both gaps against N (log axis): the single-use offline−online gap and the reusable
    regret, with c log N + b for the latter.

    Parameters
    ----------
    rows : sequence of ContrastRow
        From :func:`contrast_table`.
    figures : path
        The folder of the figure files.

    Returns
    -------
    list of Path
        ``single_use_contrast.pdf`` and ``.png``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     [p.name for p in contrast_figure(contrast_table([10, 100]), Path(folder))]
    ['single_use_contrast.pdf', 'single_use_contrast.png']
    """
    fig, ax = report.new_figure()
    n = np.array([r.servers for r in rows], dtype=float)
    regret = np.array([r.reusable_regret for r in rows])
    c = leading_constant(REUSABLE)
    ax.semilogx(n, regret, **series_style("reusable"), markersize=3,
                label="reusable: $R_{\\mathrm{fluid}} - R_{\\mathrm{on}}$")  # fmt: skip
    ax.semilogx(
        n, c * np.log(n) + float(np.mean(regret - c * np.log(n))), **series_style("c log N"),
        markersize=3, label=f"$c\\log N + b$, $c = {c:.3f}$",
    )  # fmt: skip
    ax.semilogx(
        n, [r.single_use_gap for r in rows], **series_style("single-use"), markersize=3,
        label="single-use: $R_{\\mathrm{off}} - R_{\\mathrm{on}}$",
    )  # fmt: skip
    ax.set_xlabel("$N$ (servers or units)")
    ax.set_ylabel("reward lost over one unit of time")
    outside_legend(ax, "above")
    return report.save_figure(fig, figures, "single_use_contrast")


def _table(rows: Sequence[ContrastRow]) -> str:
    return report.table(
        ["$N$", "single-use $R_{\\mathrm{off}} - R_{\\mathrm{on}}$", "error bound",
         "single-use $R_{\\mathrm{fluid}} - R_{\\mathrm{off}}$",
         "reusable $R_{\\mathrm{fluid}} - R_{\\mathrm{on}}$", "$k^*$"],
        [[r.servers, r.single_use_gap, r.single_use_error, r.single_use_fluid_gap,
          r.reusable_regret, r.reusable_reserve] for r in rows],
        caption="Single-use (no departures, $T = 1$) and reusable ($\\mu = 1$) resources at "
        f"the same rates and rewards ({RATES[: RATES.index(' ($T')]}): the single-use "
        "offline$-$online gap levels off (claim "
        f"{claim_name_latex('single_use.gap_bounded')}), the reusable regret grows like "
        f"$c\\log N$ (claim {claim_name_latex('single_use.contrast')}).",
        label="tab:single-use-contrast",
        formats={1: ".6f", 2: ".1e", 3: ".1e", 4: ".4f"},
        size="small",
    )  # fmt: skip


def steps(run: Run) -> Iterator[tuple[str, Callable[[], list[Path]]]]:
    """The named steps that write this part's outputs (each returns the files written);
    the claim records go to ``run.claims``.

    Parameters
    ----------
    run : qtheory.report.run.Run
        Output folder, size and the claim list to extend.

    Returns
    -------
    iterator of (str, callable)
        Step names and the functions that write the files (call them in order).

    References
    ----------
    .. [1] A. J. Kleywegt and J. D. Papastavrou, Operations Research 46(1):17-35 (1998).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> run = SimpleNamespace(out=Path("build"), size="quick", claims=[])
    >>> [name for name, _ in steps(run)]
    ['single use: contrast over N', 'single use: section', 'single use: figure']
    """
    derivations, figures = run.out / "derivations", run.out / "figures"
    rows: list[ContrastRow] = []

    def compute() -> list[Path]:
        rows.extend(contrast_table(servers_grid(run.size)))
        return []

    def section() -> list[Path]:
        claims = contrast_claims(rows)
        run.claims.extend(claims)
        body = "\n\n".join(
            [
                "Without departures each accepted job keeps its unit for ever: the dynamic "
                "stochastic knapsack.  Its online optimum solves the finite-horizon HJB "
                "equation $dV_c/ds = \\lambda_H N(r_H - \\Delta_c) + \\lambda_L N(r_L - "
                "\\Delta_c)^+$ ($s$ the time to go, $\\Delta_c = V_c - V_{c-1}$), solved here "
                "piecewise "
                "exactly; its offline optimum is "
                "$(r_H - r_L)E[\\min(H, N)] + r_L E[\\min(H + L, N)]$.",
                _table(rows),
                *(claim_paragraph(claim) for claim in claims),
                report.figure(
                    "single_use_contrast",
                    "Reward lost over one unit of time against $N$: by the online optimum "
                    "against the offline optimum with single-use units (no departures, "
                    "$T = 1$), and against the fluid bound with reusable servers "
                    "($\\mu = 1$), with $c\\log N + b$ ($b$ the mean offset) for the latter.",
                    "fig:single-use-contrast",
                ),
            ]
        )
        text = report.section("Single-use against reusable resources", body, label="sec:single-use")
        return [report.write_text(derivations / "single_use.tex", text)]

    yield "single use: contrast over N", compute
    yield "single use: section", section
    yield "single use: figure", lambda: contrast_figure(rows, figures)
