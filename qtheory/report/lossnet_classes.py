r"""The n-class part of ``qtheory reproduce``: the fluid LP by the marginal class, the
nested online optimum over N, its regret against c(n) log N, and the regret
decomposition of Bray (arXiv:2601.14538) for three and four classes.

Four parameter sets (:data:`PARAMETER_SETS`), two with three classes and two with four,
one of each with the marginal class in the middle (classes below it exist) and one with
it last.  For each: the exact nested optimum
(:func:`~qtheory.lossnet.regret.regret_curve`) on a log grid of N, and the
clock-model decomposition :math:`C_{vol}`, :math:`C_{long}^{+}`, :math:`C_{short}^{-}`
(:mod:`qtheory.lossnet.decomposition`, which takes an n-class network) through one
executor (``make_executor(run.cluster)``: a local process pool or a Dask cluster) and
the on-disk result cache of the two-class decomposition, so a rerun computes only
missing replications.  It writes ``derivations/lossnet_classes.tex`` (derivation,
tables, claims) and two figures, and appends the claims to ``run.claims``.

Sizes (:func:`plan`): quick N in {10, 30, 100, 300, 1000} with windows of 20 and 4
replications, the nested optimum on five N from 10^3 to 10^4 (about 15 s on two
shared cores); standard eight
N from 10 to 3162 with windows of 100 and 8 replications, the nested optimum on 13 N
from 10^3 to 10^6; paper ten N from 10 to 10^4 (windows of 200, then 100) with 10
replications and 25 N to 10^6.  The offline dynamic programme of a network whose
marginal class is not the last ran in full, O(events x N) (about 1e9 cells per second
here), when these sizes were chosen, which is what limits the standard run to N = 3162;
with one class below the marginal one (3a, 4a) it now runs as the programme of segments
(:mod:`qtheory.sim.lossnet`), with the same results.  Measured on this two-core
machine, shared with other jobs (``benchmarks/bench_lossnet_class_outputs.py``): quick
10 s, standard 221 s wall (the sweep 218 s).

What the standard run shows: with the marginal class last (sets 3b, 4b) C_vol stays
near 3 and C_long^+ near 1 from N = 268 on, while C_short^- carries the regret (slope
2.79 and 2.83 against c(n) = 2.80).  With the marginal class in the middle (3a, 4a)
C_vol still rises over N = 100..3162 (3a: 6.4 to 9.2, slope 0.91 ± 0.31, so its
equivalence claim fails on that range; 4a: 7.6 to 9.4).  The two-class network of 3a
without its third class (λ = (0.3, 0.9), r = (3, 2)) rises the same way (C_vol 7.1,
8.8, 9.8, 9.9 at N = 100, 316, 1000, 3162; one run, 6 replications of 100 time units):
a slow approach to the limit when θ = log(μ/λ̄_{m-1}) is large, not an effect of the
classes below the marginal one.  The exact regret's OLS slope over N = 100..10^4 covers
c(n) for none of the four sets (3a: 2.175 ± 0.057 against c(n) = 1.661, and its
bounded-offset claim fails; 3b, 4b: about 4% below 2.804; 4a: 7.76 against 8.96), so the
section calls c(n) confirmed only for a set whose fitted interval covers it, a verdict
it derives from the fits (:func:`_constant_verdicts`), never states in advance.

Seeds: the replications of one point use the root seed
``run.seed_sequence(f"lossnet.decomposition/classes/{set}/N={N}")`` reduced to one
32-bit integer (the scheme of :mod:`qtheory.report.lossnet_decomposition`).

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026).
.. [2] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable resources:
   logarithmic regret in overloaded networks", Operations Research 73(4) (2025).
.. [3] B. L. Miller, "A queueing reward system with several customer classes",
   Management Science 16(3):234-245 (1969).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import sympy as sp
from matplotlib import ticker

from qtheory import report
from qtheory.core import notation
from qtheory.core.claims import Claim
from qtheory.lossnet.claims import (
    bounded_offset_claim,
    leading_constant_claim,
    regret_identity_claim,
)
from qtheory.lossnet.designs import ClockDecomposition
from qtheory.lossnet.fluid import derive_fluid
from qtheory.lossnet.regret import (
    derive_leading_constant,
    leading_constant,
)
from qtheory.model.lossnet import LossNetwork
from qtheory.report.claims import claim_name_latex, claims_section
from qtheory.report.decomposition_claims import decomposition_claims, network_text
from qtheory.report.display import PRINT, DisplayForm, add, frac, mul
from qtheory.report.lossnet_decomposition import decomposition_steps
from qtheory.report.lossnet_decomposition_sweep import Plan, Sweep
from qtheory.report.plots import level_style, outside_legend

if TYPE_CHECKING:
    from qtheory.report.run import Run

__all__ = [
    "PARAMETER_SETS",
    "display_forms",
    "plan",
    "steps",
]

#: The lookahead constants c (W = c log N / N) of the standard and paper sizes.
CS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)

#: The parameter sets (label, network with a placeholder N): three classes with the
#: marginal class in the middle (0.3 < 1 < 1.2) and last (0.7 < 1 < 1.5); four classes
#: with it third of four (0.8 < 1 < 1.4) and last (0.7 < 1 < 1.6).
PARAMETER_SETS: tuple[tuple[str, LossNetwork], ...] = (
    ("3a", LossNetwork(10, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)),
    ("3b", LossNetwork(10, (0.3, 0.4, 0.8), (3.0, 2.0, 1.0), 1.0)),
    ("4a", LossNetwork(10, (0.3, 0.5, 0.6, 0.2), (4.0, 3.0, 2.0, 1.0), 1.0)),
    ("4b", LossNetwork(10, (0.2, 0.3, 0.2, 0.9), (5.0, 3.0, 2.0, 1.0), 1.0)),
)


def _log_grid(low: float, high: float, count: int) -> tuple[int, ...]:
    return tuple(int(n) for n in np.unique(np.round(np.logspace(low, high, count))))


def plan(size: str) -> Plan:
    """The n-class sweep of a run of the given size (module docstring): the clock-model
    points of every set of :data:`PARAMETER_SETS` and the N of its exact nested optimum.

    Parameters
    ----------
    size : {"quick", "standard", "paper"}
        The size of run (:attr:`qtheory.report.run.Run.size`).

    Returns
    -------
    qtheory.report.lossnet_decomposition_sweep.Plan
        With no job-model or rolling-horizon points; the clock points seeded from the
        stream ``"classes"``; a quick run in this process when it has no cluster (its 80
        replications take about 1.5 s of CPU in all, less than a process pool takes to
        start and import the package).

    Raises
    ------
    ValueError
        If ``size`` is not one of the three.

    Examples
    --------
    >>> sizes = plan("quick")
    >>> sizes.clock["3a"][0], sizes.cs, sizes.regret_grid[-1]
    ((10, 20.0, 4), (1.0, 4.0, 16.0, 64.0), 10000)
    >>> [n for n, _, _ in plan("standard").clock["4b"]]
    [10, 23, 52, 118, 268, 611, 1389, 3162]
    >>> plan("paper").clock["3a"][-1], plan("paper").regret_grid[-1]
    ((10000, 100.0, 10), 1000000)
    """
    if size == "quick":
        clock = tuple((n, 20.0, 4) for n in (10, 30, 100, 300, 1000))
        cs: tuple[float, ...] = (1.0, 4.0, 16.0, 64.0)
        regret_top, regret_grid = 1000, _log_grid(3, 4, 5)
    elif size == "standard":
        clock = tuple((n, 100.0, 8) for n in _log_grid(1, 3.5, 8))
        cs, regret_top, regret_grid = CS, 10**4, _log_grid(3, 6, 13)
    elif size == "paper":
        clock = tuple((n, 200.0 if n <= 1000 else 100.0, 10) for n in _log_grid(1, 4, 10))
        cs, regret_top, regret_grid = CS, 10**4, _log_grid(3, 6, 25)
    else:
        raise ValueError(f"size must be 'quick', 'standard' or 'paper', got {size!r}")
    return Plan(
        clock={label: clock for label, _ in PARAMETER_SETS},
        job=(),
        cs=cs,
        warmup=3.0,
        min_fit_servers=100,
        sets=PARAMETER_SETS,
        regret_top=regret_top,
        regret_grid=regret_grid,
        stream="classes",
        in_process=size == "quick",
        desc="lossnet classes",
    )


# ------------------------------------------------------------------- claims


def _tagged(claim: Claim, label: str) -> Claim:
    return dataclasses.replace(claim, name=f"{claim.name}[{label}]")


def _all_claims(sweeps: Sequence[Sweep]) -> list[Claim]:
    """The regret identity and the leading constant for three classes, the bounded
    offset of every set (named by set) and the decomposition claims of every set."""
    claims = [regret_identity_claim(3), leading_constant_claim(3)]
    claims += [_tagged(bounded_offset_claim(s.net, s.curve), s.label) for s in sweeps]
    return claims + [claim for s in sweeps for claim in decomposition_claims(s)]


# ------------------------------------------------------------------- LaTeX


def _fluid_table() -> str:
    derivation = derive_fluid(3)
    names = notation.sympy_names(set(derivation.lambdas) | set(derivation.rewards))

    def cell(expr: sp.Expr) -> report.Latex:
        return report.Latex(f"${sp.latex(expr, symbol_names=names, **PRINT)}$")

    partial = notation.latex("partial_rate")
    rows = []
    for case in derivation.cases:
        m = case.marginal
        if m is None:
            condition = f"${partial}_3 \\le \\mu$"
        elif m == 0:
            condition = "$\\lambda_1 \\ge \\mu$"
        else:
            condition = f"${partial}_{{{m}}} < \\mu < {partial}_{{{m + 1}}}$"
        rows.append(
            [
                case.name,
                report.Latex(condition),
                *map(cell, case.admitted),
                cell(case.capacity_price),
            ]
        )
    return report.table(
        ["case", "condition", "$x_1$", "$x_2$", "$x_3$", "price $y$ of $\\sum_j x_j \\le \\mu$"],
        rows,
        caption="The fluid LP with three classes by cases (Sympy; $r_1 > r_2 > r_3 > 0$, "
        f"${partial}_j = \\lambda_1 + \\dots + \\lambda_j$).  In the case ``class $m$ "
        "marginal'' the duals $y = r_m$, $z_j = r_j - r_m$ ($j < m$), 0 otherwise, "
        "certify the primal point.",
        label="tab:lossnet-classes-fluid",
    )


def display_forms() -> dict[str, DisplayForm]:
    r"""The leading constants with three classes as printed, with the derivation's
    expressions they equal (checked by Sympy in ``tests/report/test_display_forms.py``).

    :math:`c = r_m\mu/\log(\mu/(\lambda_1 + \dots + \lambda_{m-1}))` for the marginal class
    m = 2, 3, in the order of the general formula
    (:func:`qtheory.lossnet.regret.derive_leading_constant`).

    Returns
    -------
    dict of str to DisplayForm
        ``"constant_2"`` and ``"constant_3"``.

    Examples
    --------
    >>> print(sp.latex(display_forms()["constant_3"].display, **PRINT))
    \frac{r_{3} \mu}{\log{\left(\frac{\mu}{\lambda_{1} + \lambda_{2}} \right)}}
    """
    forms = {}
    for case in derive_leading_constant(3):
        symbols = {x.name: x for x in case.constant.expr.free_symbols}
        m = case.marginal + 1
        above = add(*(symbols[f"lambda_{j}"] for j in range(1, m)))
        forms[f"constant_{m}"] = DisplayForm(
            frac(
                mul(symbols[f"r_{m}"], symbols["mu"]),
                sp.log(frac(symbols["mu"], above), evaluate=False),
            ),
            case.constant.expr,
        )
    return forms


def _derivation() -> str:
    forms = display_forms()
    partial = notation.latex("partial_rate")
    names = notation.sympy_names(
        set().union(*(form.derived.free_symbols for form in forms.values()))
    )
    rows = [
        (
            f"c\\,(m = {name.removeprefix('constant_')})",
            sp.latex(form.display, symbol_names=names, **PRINT),
        )
        for name, form in forms.items()
    ]
    return "\n".join(
        [
            "$N$ servers, classes $j = 1, \\dots, n$ arriving at rate $\\lambda_j N$ with "
            "rewards $r_1 > \\dots > r_n > 0$, every job served at rate $\\mu$, the "
            f"network overloaded.  With ${partial}_j = \\lambda_1 + \\dots + \\lambda_j$ the "
            "fluid LP per server, $\\max\\{\\sum_j r_j x_j : \\sum_j x_j \\le \\mu,\\ "
            "0 \\le x_j \\le \\lambda_j\\}$, serves the classes in reward order until the "
            "capacity is used up; the \\emph{marginal} class $m$ is the one that fills it, "
            f"${partial}_{{m-1}} < \\mu < {partial}_m$, served in part, the classes "
            "above it in full and those below it not at all "
            "(Table~\\ref{tab:lossnet-classes-fluid}):",
            _fluid_table(),
            report.equation(
                notation.latex("R_fluid"),
                f"N\\Big[\\sum_{{j<m}} r_j\\lambda_j + r_m(\\mu - {partial}_{{m-1}})\\Big].",
                label="eq:lossnet-classes-fluid",
            ),
            "With a common service rate the number of busy servers is a sufficient state "
            "(Miller 1969), and policy iteration on that birth-death chain finds the "
            "optimal online policy: nested trunk reservation, class $j$ admitted iff more "
            "than $k_j$ servers are idle, $0 = k_1 \\le k_2 \\le \\dots \\le k_n \\le N$ "
            "($k_j = N$: never), in float64 to $N = 10^6$ "
            f"({report.code('qtheory.lossnet.nested')}; the full multi-class MDP confirms it at "
            "small $N$).  With $B_j$ the probability that class $j$ is turned away, its "
            f"regret splits exactly as (claim {claim_name_latex('lossnet.class_regret_identity')})",
            report.equation(
                f"{notation.latex('R_fluid')} - {notation.latex('R_on')}",
                "r_m\\mu\\,E[\\mathrm{idle}] + N\\sum_{j<m}(r_j - r_m)\\lambda_j B_j"
                " + N\\sum_{j>m}(r_m - r_j)\\lambda_j(1 - B_j),",
                label="eq:lossnet-classes-identity",
            ),
            "idle capacity priced at the marginal reward, better classes lost and worse "
            "classes admitted.  The balance of the marginal class's reserve against the "
            "losses of the classes above it (a heuristic of this package, as for two "
            f"classes; claim {claim_name_latex('lossnet.class_leading_constant')}) gives "
            "regret $\\sim c(n)\\log N$ with",
            report.equation(
                "c(n)",
                "\\frac{r_m\\,\\mu}{\\log\\big(\\mu/(\\lambda_1 + \\dots + \\lambda_{m-1})\\big)},",
                label="eq:lossnet-classes-constant",
            ),
            "which depends on the marginal reward, $\\mu$ and the total rate above the "
            "marginal class only; with three classes Sympy gives",
            report.align(rows, label="eq:lossnet-classes-constant-3"),
        ]
    )


def _regret_table(sweeps: Sequence[Sweep]) -> str:
    rows = []
    for s in sweeps:
        c = leading_constant(s.net)
        shown = [p for p in s.curve if math.log10(p.servers).is_integer()] or list(s.curve)
        for p in shown:
            reserves = ", ".join(map(str, p.reserves))
            rows.append(
                [
                    s.label,
                    p.servers,
                    p.online,
                    p.regret,
                    c * math.log(p.servers),
                    p.regret - c * math.log(p.servers),
                    f"({reserves})",
                ]
            )
    return report.table(
        [
            "set",
            "$N$",
            "$R_{\\mathrm{on}}$",
            "regret",
            "$c(n)\\log N$",
            "regret $- c(n)\\log N$",
            "$(k_1, \\dots, k_n)$",
        ],
        rows,
        caption="The nested online optimum (float64 policy iteration): reward rate, regret "
        "$R_{\\mathrm{fluid}} - R_{\\mathrm{on}}$, the leading term $c(n)\\log N$ of "
        "\\eqref{eq:lossnet-classes-constant} and the optimal reserves; "
        + "; ".join(f"set {s.label}: {network_text(s.net)}" for s in sweeps)
        + ".",
        label="tab:lossnet-classes-online",
        formats={2: ".3f", 3: ".4f", 4: ".4f", 5: ".4f"},
    )


def _sizes_text(points: Sequence[ClockDecomposition]) -> str:
    windows = sorted({p.horizon - p.warmup for p in points})
    reps = sorted({p.reps for p in points})
    span = ", ".join(f"{w:g}" for w in windows)
    return f"windows $T - T_0$ of {span}, {'/'.join(map(str, reps))} replications"


def _decomposition_table(result: Sweep) -> str:
    c = result.fits.table_c
    rows = [
        [
            p.servers,
            f"({', '.join(map(str, p.reserve))})",
            p.regret,
            report.estimate(p.c_vol),
            report.estimate(p.at(c).c_long),
            report.estimate(p.at(c).c_short),
            report.estimate(p.pfi_gap),
            report.estimate(p.threshold_check),
        ]
        for p in result.clock
    ]
    return report.table(
        [
            "$N$",
            "$(k_1, \\dots, k_n)$",
            "regret",
            "$C_{\\mathrm{vol}}$",
            "$C^{+}_{\\mathrm{long}}$",
            "$C^{-}_{\\mathrm{short}}$",
            "$R_{\\mathrm{off}} - R_{\\mathrm{PFI}}$",
            "$R_{k^*} - R_{\\mathrm{on}}$",
        ],
        rows,
        caption=f"Regret decomposition with {result.net.n_classes} classes, set "
        f"{result.label} ({network_text(result.net)}), clock model: exact regret and "
        "optimal reserves, estimates with 95\\% intervals on common paths (nested trunk "
        f"reservation at the optimal reserves as control variate); SSS at $W = {c:g}\\log "
        "N/N$; the last column checks the simulator against the exact $R_{\\mathrm{on}}$; "
        f"warm-up $T_0 = {result.clock[0].warmup:g}$, {_sizes_text(result.clock)}.",
        label=f"tab:lossnet-classes-decomposition-{result.label}",
        formats={2: ".3f"},
        size="footnotesize",
    )


def _fits_table(sweeps: Sequence[Sweep]) -> str:
    rows = []
    for s in sweeps:
        f = s.fits
        flat = f.bounded_from
        rows.append(
            [
                s.label,
                f"{s.net.marginal + 1} of {s.net.n_classes}",
                f.leading_constant,
                report.estimate(f.regret.slope),
                report.estimate(f.c_vol.slope),
                report.estimate(f.c_long_at(f.table_c).slope),
                report.estimate(f.c_short.slope),
                report.Latex("--" if math.isnan(flat) else f"${flat:g}$"),
            ]
        )
    return report.table(
        [
            "set",
            "marginal",
            "$c(n)$",
            "regret",
            "$C_{\\mathrm{vol}}$",
            "$C^{+}_{\\mathrm{long}}$",
            "$C^{-}_{\\mathrm{short}}$",
            "flat from",
        ],
        rows,
        caption=f"Slopes on $\\log N$ ($N \\ge {sweeps[0].fits.min_servers}$) with 95\\% "
        "intervals: the exact regret by ordinary least squares (to compare with $c(n)$), "
        "the estimates by least squares weighted by $1/\\mathrm{se}^2$ (variance scaled "
        f"by $\\max(1, {notation.latex('chi2_per_df')})$); $C^{{\\pm}}$ at the largest "
        "lookahead constant.  "
        "``Flat from'': the smallest $c$ from which on every fitted "
        "$C^{+}_{\\mathrm{long}}$ slope interval contains 0 or lies below it.",
        label="tab:lossnet-classes-fits",
        formats={2: ".4f"},
        size="small",
    )


def _constant_verdicts(sweeps: Sequence[Sweep], claims: Sequence[Claim] = ()) -> str:
    r"""Whether the exact regret bears out the heuristic constant c(n), set by set.

    The verdict is derived from each set's OLS fit of the exact regret on log N
    (``fits.regret``): *confirmed* where its 95% interval covers c(n), otherwise *not
    confirmed*, with both numbers.  Where ``claims`` holds the set's
    ``lossnet.class_bounded_offset[<label>]`` claim, its verdict is added.

    Parameters
    ----------
    sweeps : sequence of Sweep
        The sets, each with its fits.
    claims : sequence of Claim, optional
        The section's claims (for the bounded-offset verdicts).

    Returns
    -------
    str
        One LaTeX paragraph.

    Examples
    --------
    >>> label, net = PARAMETER_SETS[0]
    >>> from qtheory.lossnet.decomposition import fit_decomposition, run_designs
    >>> from qtheory.lossnet.designs import ClockDesign
    >>> designs = [ClockDesign(net.with_servers(n), 8.0, 2.0, 2, 1, cs=[4.0])
    ...            for n in (10, 20, 40)]
    >>> clock = tuple(run_designs(designs))
    >>> fits = fit_decomposition(clock, min_servers=10, regret_top=1000)
    >>> text = _constant_verdicts([Sweep(label, net, clock, (), fits)])
    >>> fits.regret.contains(fits.leading_constant)  # slope 2.63 +- 0.03 on N = 10..1000
    False
    >>> "Confirmed: none; not confirmed: 3a." in text, "c(n) = 1.661$" in text
    (True, True)
    """
    offsets = {claim.name: claim for claim in claims}
    parts, confirmed, refuted = [], [], []
    for s in sweeps:
        f = s.fits
        lead, slope = f.leading_constant, f.regret.slope
        fit = (
            f"slope ${slope.mean:.4g} \\pm {slope.halfwidth:.2g}$ over "
            f"$N = {f.regret_servers[0]}, \\dots, {f.regret_servers[-1]}$"
        )
        if f.regret.contains(lead):
            confirmed.append(s.label)
            verdict = f"{fit} covers $c(n) = {lead:.4g}$: confirmed on this range"
        else:
            refuted.append(s.label)
            verdict = (
                f"{fit} against $c(n) = {lead:.4g}$, outside its 95\\% interval: not confirmed"
            )
        offset = offsets.get(f"lossnet.class_bounded_offset[{s.label}]")
        if offset is not None:
            verdict += (
                f" (claim {claim_name_latex(offset.name)}: {'holds' if offset.passed else 'fails'})"
            )
        parts.append(f"Set {s.label}: {verdict}.")

    def sets(labels: list[str]) -> str:
        return ", ".join(labels) if labels else "none"

    return (
        "Does the exact regret bear out the heuristic constant $c(n)$ of "
        "\\eqref{eq:lossnet-classes-constant}?  Claim "
        f"{claim_name_latex('lossnet.class_leading_constant')} proves only that the balance "
        "yields $c(n)$ (Sympy).  Numerically $c(n)$ counts as confirmed for a set only "
        "where the 95\\% interval of the OLS slope of its exact regret on $\\log N$ "
        "(Table~\\ref{tab:lossnet-classes-fits}) covers it.  Confirmed: "
        f"{sets(confirmed)}; not confirmed: {sets(refuted)}.  " + "  ".join(parts)
    )


def _lookahead_table(sweeps: Sequence[Sweep]) -> str:
    cs = [point.c for point in sweeps[0].clock[-1].lookahead]
    rows = [[c, *(report.estimate(s.clock[-1].at(c).c_long) for s in sweeps)] for c in cs]
    rows.append(["PFI", *(report.estimate(s.clock[-1].pfi_gap) for s in sweeps)])
    top = sweeps[0].clock[-1].servers
    return report.table(
        ["$c$", *(f"set {s.label}" for s in sweeps)],
        rows,
        caption="The lookahead curve with $n$ classes: "
        f"$R_{{\\mathrm{{off}}}} - R_{{\\mathrm{{SSS}}(W)}}$ at $N = {top}$ for "
        "$W = c\\log N/N$ (95\\% intervals), and $R_{\\mathrm{off}} - R_{\\mathrm{PFI}}$ "
        "(SSS with an infinite window) in the last row.  SSS and PFI judge class $j$ on "
        "the future in which only the classes better than $j$ are admitted.",
        label="tab:lossnet-classes-lookahead",
        formats={0: "g"},
    )


def _section(sweeps: Sequence[Sweep], claims: Sequence[Claim]) -> str:
    parts = [
        _derivation(),
        _regret_table(sweeps),
        "\\subsection*{The regret decomposition with several classes}",
        "The decomposition of \\eqref{eq:lossnet-decomposition} with the estimators of "
        "the two-class section, now with the nested optimum's reserves for the control "
        f"variate and the $n$-class policies of {report.code('qtheory.sim.lossnet')}: "
        "the offline dynamic programme over (event, busy count), and PFI and SSS($W$) "
        "judging class $j$ on the hypothetical future in which only the classes better "
        "than $j$ are admitted (the fluid LP's priority order).",
        *(_decomposition_table(s) for s in sweeps),
        _fits_table(sweeps),
        _constant_verdicts(sweeps, claims),
        _lookahead_table(sweeps),
        report.figure(
            "lossnet_classes_decomposition",
            f"The decomposition against $N$, set {sweeps[0].label} "
            f"({network_text(sweeps[0].net)}), clock model: the estimates of "
            "$C_{\\mathrm{vol}}$, $C^{+}_{\\mathrm{long}}$ and $C^{-}_{\\mathrm{short}}$ with "
            "95\\% intervals (SSS at the largest lookahead constant) and the exact regret.",
            "fig:lossnet-classes-decomposition",
        ),
        report.figure(
            "lossnet_classes_lookahead",
            "The lookahead curve with $n$ classes: "
            "$R_{\\mathrm{off}} - R_{\\mathrm{SSS}(W)}$ against $c$ for $W = c\\log N/N$ "
            f"at $N = {sweeps[0].clock[-1].servers}$ (95\\% intervals), one line per set.",
            "fig:lossnet-classes-lookahead",
        ),
        "\\subsection*{Claims about several classes, as checked}",
    ]
    return claims_section(
        "The loss network with several classes", "sec:lossnet-classes", parts, claims
    )


# ------------------------------------------------------------------ figures


def _lookahead_figure(sweeps: Sequence[Sweep], figures: Path) -> list[Path]:
    fig, ax = report.new_figure()
    with report.paper_style():
        for index, s in enumerate(sweeps):
            points = s.clock[-1].lookahead
            ax.errorbar(
                [q.c for q in points],
                [q.c_long.mean for q in points],
                yerr=[q.c_long.halfwidth for q in points],
                **level_style(index, len(sweeps)),
                capsize=2,
                markersize=3,
                label=f"set {s.label}",
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        plain = ticker.StrMethodFormatter("{x:g}")  # 1, 10, 100, not 10^0
        ax.xaxis.set_major_formatter(plain)
        ax.yaxis.set_major_formatter(plain)
        ax.set_xlabel("lookahead constant $c$ ($W = c\\log N/N$)")
        ax.set_ylabel(f"${notation.latex('R_off')} - {notation.latex('R_SSS')}$")
        outside_legend(ax, "right")
    return report.save_figure(fig, figures, "lossnet_classes_lookahead")


def steps(run: Run) -> Iterator[tuple[str, Callable[[], list[Path]]]]:
    """The named steps that write this part's outputs (each returns the files written);
    the claim records go to ``run.claims``.

    In order: the sweep and the nested optimum
    (:func:`~qtheory.report.lossnet_decomposition_sweep.sweep`), the section with its
    tables and claims (``derivations/lossnet_classes.tex``), and two figures
    (``figures/lossnet_classes_decomposition`` and ``figures/lossnet_classes_lookahead``,
    PDF and PNG).  Nothing runs until a step is called.

    Parameters
    ----------
    run : qtheory.report.run.Run
        The run context; outputs go below ``run.out``.

    Yields
    ------
    (str, callable)
        The step's name and a function of no arguments returning the paths it wrote.

    Examples
    --------
    >>> from qtheory.report.run import Run
    >>> [name for name, _ in steps(Run("build", quick=True))]  # doctest: +NORMALIZE_WHITESPACE
    ['lossnet classes: sweep', 'lossnet classes: tables and claims',
     'lossnet classes: figure', 'lossnet classes: lookahead figure']
    """

    def section(sweeps: list[Sweep]) -> tuple[list[Claim], str]:
        claims = _all_claims(sweeps)
        return claims, _section(sweeps, claims)

    return decomposition_steps(
        run, plan(run.size), "lossnet classes",
        ("lossnet_classes", "lossnet_classes_decomposition"),
        section, _lookahead_figure,
    )  # fmt: skip
