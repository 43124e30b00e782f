"""The gated-admission part of ``qtheory reproduce``: derivations, tables and figures.

Every number here comes from :mod:`qtheory.gated`; the formulas are printed from the
Sympy expressions of :mod:`qtheory.gated.derivation` and
:mod:`qtheory.gated.asymptotics`, and every statement the section asserts is printed
from its claim record (:mod:`qtheory.gated.claims`, by
:func:`qtheory.report.claims.claim_paragraph`: statement, kind of evidence,
hypotheses, range, source and verdict).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import mpmath
import numpy as np
import sympy as sp

from qtheory import report
from qtheory.core import notation
from qtheory.core.claims import Claim
from qtheory.core.stats import replication_seeds
from qtheory.gated import asymptotics, derivation
from qtheory.gated.certified import certified_optimum
from qtheory.gated.claims import gated_claims
from qtheory.gated.gim1_root import root
from qtheory.gated.welfare import optimal_gate, optimal_routing, welfare_ga
from qtheory.model.gated import GatedQueue
from qtheory.report.claims import claim_paragraph
from qtheory.report.display import PRINT, DisplayForm, add, frac, mul
from qtheory.report.plots import integer_ticks, outside_legend, residual_figure, series_style
from qtheory.sim import simulate_gated, simulate_random_routing

if TYPE_CHECKING:
    from qtheory.report.run import Run

NU_GRID = (1.01, 1.1, 1.5, 2.0, 3.0, 5.0, 10.0, 100.0, 1e4)
ARRIVAL_GRID = (np.inf, 2.0, 1.0)


#: kappa = 1 + mu/Lambda, the light-traffic shorthand of the display forms.
KAPPA = sp.Symbol("kappa", positive=True)
#: m = (1 + mu^2/Lambda^2)/2, the heavy-traffic variability of the display forms.
VARIABILITY = sp.Symbol("gamma", positive=True)


def display_forms() -> dict[str, DisplayForm]:
    r"""Every formula of the gated section as printed, with the derivation's expression
    it equals (checked by Sympy in ``tests/report/test_display_forms.py``).

    The gate :math:`\tau` of the inverse is named, not inlined, in the throughput, the
    welfare and :math:`D'`; the light-traffic forms use :math:`\kappa = 1 + \mu/\Lambda`
    and the heavy-traffic ones :math:`\gamma = (1 + \mu^2/\Lambda^2)/2`.

    Returns
    -------
    dict of str to DisplayForm

    Examples
    --------
    >>> import sympy
    >>> print(sympy.latex(display_forms()["throughput"].display, **PRINT))
    \frac{1}{\tau + \frac{1}{\Lambda}}
    """
    d, f = derivation, derivation.derive()
    light, heavy = asymptotics.derive_light_traffic(), asymptotics.derive_heavy_traffic()
    sigma, lam, mu, tau = d.root, d.arrival_rate, d.service_rate, d.gate
    reward, cost, nu, eps, m = d.reward, d.cost, d.naor_ratio, asymptotics.excess, VARIABILITY
    u = mul(mu, add(1, -sigma))  # mu (1 - sigma), the sojourn rate
    gate = {tau: f.gate_of_root.expr}
    kappa = {KAPPA: 1 + mu / lam}
    variability = {m: heavy.variability}
    rate = f.welfare_rr.args[0]
    lhs, rhs = d.dominance_identity()
    a, b = sorted(lhs.free_symbols, key=lambda x: x.name)
    net = add(reward, -frac(cost, u))
    cycle = add(tau, frac(1, lam))
    root_nu = sp.sqrt(nu)
    (time,) = (x for x in f.sojourn_cdf.free_symbols if x.name == "t")
    return {
        "gate": DisplayForm(
            mul(frac(1, u), sp.log(frac(lam, mul(sigma, add(lam, u))), evaluate=False)),
            f.gate_of_root.expr,
        ),
        "mean_sojourn": DisplayForm(frac(1, u), f.mean_sojourn.expr),
        "sojourn_cdf": DisplayForm(add(1, -sp.exp(mul(-1, u, time))), f.sojourn_cdf),
        "throughput": DisplayForm(frac(1, cycle), f.throughput.expr, gate),
        "welfare_ga": DisplayForm(frac(net, cycle), f.welfare_ga.expr, gate),
        "net_reward": DisplayForm(net, f.net_reward),
        "net_reward_derivative": DisplayForm(
            -frac(cost, mul(mu, add(1, -sigma) ** 2)), sp.diff(f.net_reward, sigma)
        ),
        "cycle_derivative": DisplayForm(
            frac(add(mul(mu, tau), -frac(1, sigma), frac(mu, add(lam, u))), u),
            sp.diff(f.cycle, sigma),
            gate,
        ),
        "welfare_rr": DisplayForm(
            mul(rate, add(reward, -frac(cost, add(mu, -rate)))), f.welfare_rr.expr
        ),
        "welfare_rr_everybody": DisplayForm(
            mul(lam, add(reward, -frac(cost, add(mu, -lam)))), f.welfare_rr.expr.subs(rate, lam)
        ),
        "dominance_lhs": DisplayForm(add(mul(add(1, b), sp.exp(a)), -1, -a, -b), lhs),
        "dominance_rhs": DisplayForm(add(mul(add(sp.exp(a), -1, -a), add(1, b)), mul(a, b)), rhs),
        "light_shift": DisplayForm(add(KAPPA, -1, -sp.log(KAPPA)), light.shift, kappa),
        "light_root": DisplayForm(
            frac(
                sp.exp(add(KAPPA, sp.LambertW(mul(-1, eps, KAPPA, sp.exp(-KAPPA)), -1))),
                KAPPA,
            ),
            light.root,
            kappa,
        ),
        "light_pof_leading": DisplayForm(
            frac(4, mul(eps, sp.log(frac(1, eps), evaluate=False))),
            light.price_of_forgetting_leading,
        ),
        "heavy_variability": DisplayForm(frac(add(1, frac(mu**2, lam**2)), 2), heavy.variability),
        "heavy_gate": DisplayForm(
            frac(sp.sqrt(m), mul(mu, root_nu)), heavy.gate - (1 / mu - 1 / lam), variability
        ),
        "heavy_pof": DisplayForm(
            frac(mul(2, add(1, -sp.sqrt(m))), root_nu),
            heavy.price_of_forgetting - 1,
            variability,
        ),
        "heavy_gain": DisplayForm(
            mul(2, cost, add(1, -sp.sqrt(m)), root_nu), heavy.welfare_gain, variability
        ),
    }


def _formulas(claims: dict[str, Claim]) -> str:
    """The derivation, with every assertion stated from its claim record."""
    f = derivation.derive()
    d = derivation
    forms = {name: form.display for name, form in display_forms().items()}
    # f.rr_optimal_rate as the literature writes it (derivation's doctest checks the form)
    stationary = "\\mu - \\sqrt{\\mu C/R}"
    slow = certified_optimum(GatedQueue("0.5", 1, 10, 1), dps=10)
    ga, rr = notation.latex("S_GA"), notation.latex("S_RR")

    def tex(expr) -> str:
        return sp.latex(expr, symbol_names=notation.sympy_names(expr.free_symbols), **PRINT)

    def said(*names: str) -> str:
        return "\n\n".join(claim_paragraph(claims[name]) for name in names)

    parts = [
        "Admitted inter-arrival times are $T=\\tau+\\mathrm{Exp}(\\Lambda)$, with transform",
        report.equation("A^*(s)", f.interarrival_lst, label="eq:gated-lst"),
        "and $A^*(s)\\to "
        + sp.latex(f.interarrival_lst_deterministic)
        + "$ as $\\Lambda\\to\\infty$.  The GI/M/1 root $\\sigma\\in(0,1)$ solves",
        report.equation(f.root_equation.lhs, f.root_equation.rhs, label="eq:gated-root"),
        "whose closed-form inverse (solved by Sympy for $\\tau$) is",
        report.equation(d.gate, forms["gate"], label="eq:gated-inverse", **PRINT),
        "Sojourn times are $\\mathrm{Exp}(\\mu(1-\\sigma))$, so, with $\\tau$ of "
        "\\eqref{eq:gated-inverse},",
        report.align(
            [
                ("E[S]", forms["mean_sojourn"]),
                ("P(S \\le t)", forms["sojourn_cdf"]),
                (notation.latex("theta_GA"), forms["throughput"]),
                (ga, forms["welfare_ga"]),
            ],
            label="eq:gated-welfare",
            **PRINT,
        ),
        f"With ${ga}=N/D$, $D = \\tau + 1/\\Lambda$, the optimal gate solves the first-order "
        "condition $N'(\\sigma)D(\\sigma) = N(\\sigma)D'(\\sigma)$, where",
        report.align(
            [
                ("N(\\sigma)", forms["net_reward"]),
                ("N'(\\sigma)", forms["net_reward_derivative"]),
                ("D'(\\sigma)", forms["cycle_derivative"]),
            ],
            label="eq:gated-foc",
            **PRINT,
        ),
        f"In $w=-\\log\\sigma$ the sign of ${ga}'$ is that of a function $G$ that decreases "
        "wherever the net reward is positive, so the critical point is unique and the "
        "optimum is certified by a sign change of $G$ (or $G<0$ at $\\tau=0$) in ball "
        f"arithmetic, not assumed ({report.code('qtheory.gated.certified')}).",
        said("gated.unique_optimum", "gated.optimal_gate"),
        "Random routing at rate $\\lambda$ (Edelson--Hildebrand) gives "
        f"${rr}(\\lambda) = {tex(forms['welfare_rr'])}$, concave on $[0,\\mu)$ with "
        f"stationary point ${stationary}$.  The optimum admits at most $\\Lambda$, so",
        report.align(
            [
                ("\\lambda^*", f"\\min\\Bigl(\\Lambda,\\ {stationary}\\Bigr)"),
                (
                    notation.latex("welfare_rr"),
                    "\\begin{cases} "
                    + "C\\left(\\sqrt{\\nu} - 1\\right)^{2}"
                    + f" & \\text{{if }} \\Lambda \\ge {stationary},\\\\ "
                    + tex(forms["welfare_rr_everybody"])
                    + f" & \\text{{if }} \\Lambda < {stationary},\\end{{cases}}",
                ),
                (
                    notation.latex("pof"),
                    f"{notation.latex('welfare_ga')}/{notation.latex('welfare_rr')}",
                ),
            ],
            label="eq:gated-rr",
        ),
        "(with $\\nu = R\\mu/C$: the closed form $C(\\sqrt\\nu-1)^2$ holds only in the "
        "first case; at $\\Lambda=0.5$, $\\mu=C=1$, $\\nu=10$ it would give "
        f"{(10**0.5 - 1) ** 2:.4g}, while admitting everybody gives the certified optimum "
        f"{slow.welfare_rr.midpoint:.4g}).",
        said("gated.pof_at_least_one"),
        "GA dominates RR at equal throughput because, with $a=s\\tau$, $b=s/\\Lambda$,",
        report.equation(
            forms["dominance_lhs"], forms["dominance_rhs"], label="eq:gated-dominance", **PRINT
        ),
        said("gated.dominance_identity", "gated.dominance", "gated.pof_identity"),
        "\\paragraph{As $\\nu=1+\\varepsilon\\downarrow 1$.}  With "
        f"$\\kappa = 1 + \\mu/\\Lambda$ and $K = {tex(forms['light_shift'])}$ ($\\kappa = 1$, "
        "$K=0$ for $\\Lambda=\\infty$), the optimal root is asymptotically",
        report.align(
            [
                ("\\hat\\sigma", forms["light_root"]),
                (
                    notation.latex("pof"),
                    "\\sim",
                    f"\\frac{{C\\hat\\sigma}}{{{rr}^*}} \\sim " + tex(forms["light_pof_leading"]),
                ),
            ],
            label="eq:gated-light",
            **PRINT,
        ),
        "where the first $\\sim$ holds to the relative accuracy of "
        "Table~\\ref{tab:gated-asymptotics}, and the second has relative remainder "
        "$O(\\log\\log(1/\\varepsilon)/\\log(1/\\varepsilon))$, a slow decay.  These "
        "quantitative forms are this "
        "package's construction; the paper states that PoF is unbounded while the gain "
        "stays bounded.",
        said("gated.pof_light_rate", "gated.pof_unbounded"),
        "\\paragraph{As $\\nu\\to\\infty$ ($\\Lambda>\\mu$).}  With "
        f"${notation.latex('heavy_traffic_constant')} = {tex(forms['heavy_variability'])}$,",
        report.align(
            [
                (notation.latex("gate_excess"), "\\sim", forms["heavy_gate"]),
                (notation.latex("pof_excess"), "\\sim", forms["heavy_pof"]),
                (notation.latex("welfare_gain"), "\\sim", forms["heavy_gain"]),
            ],
            label="eq:gated-heavy",
            **PRINT,
        ),
        "each with relative remainder $O(\\nu^{-1/2})$; Sympy's expansion gives "
        f"$\\mathrm{{PoF}} = 1 + {tex(forms['heavy_pof'])} + O(1/\\nu)$.  These "
        "forms are this package's construction; the paper states the limits.",
        said("gated.pof_heavy_rate", "gated.heavy_traffic"),
    ]
    return "\n".join(parts)


def _optimum_table(quick: bool) -> str:
    rows = []
    for arrival in ARRIVAL_GRID[:2] if quick else ARRIVAL_GRID:
        for nu in NU_GRID:
            queue = GatedQueue(arrival, 1.0, nu, 1.0)
            gate, routing = optimal_gate(queue), optimal_routing(queue)
            rows.append(
                [
                    report.Latex("$\\infty$") if np.isinf(arrival) else arrival,
                    nu,
                    gate.gate,
                    gate.welfare,
                    routing.welfare,
                    gate.welfare / routing.welfare,
                ]
            )
    return report.table(
        [
            "$\\Lambda$",
            "$\\nu$",
            "$\\tau^*$",
            "$S_{\\mathrm{GA}}(\\tau^*)$",
            "$S_{\\mathrm{RR}}(\\lambda^*)$",
            "PoF",
        ],
        rows,
        caption="Optimal gate and welfare ($\\mu=C=1$, $R=\\nu$), float64.",
        label="tab:gated-optimum",
    )


CERTIFIED_QUEUES = (
    ("inf", "2"),
    ("inf", "1.000000000000000000000000000001"),
    ("inf", "1e30"),
    ("2", "3"),
    ("0.5", "10"),
)


SHOWN_DIGITS = 25


def _digits(enclosure) -> str:
    """The decimal digits that the two ends of an enclosure share (at most
    ``SHOWN_DIGITS``), then an ellipsis (both ends when they differ in the exponent)."""
    (low_mantissa, low_exp), (high_mantissa, high_exp) = (
        text.split("e") if "e" in text else (text, "+0")
        for text in (enclosure.lower, enclosure.upper)
    )
    if enclosure.lower == enclosure.upper:
        shown = low_mantissa
    elif low_exp != high_exp:
        return f"$[{enclosure.lower}, {enclosure.upper}]$"
    else:
        common = 0
        while common < min(len(low_mantissa), len(high_mantissa)) and (
            low_mantissa[common] == high_mantissa[common]
        ):
            common += 1
        shown = low_mantissa[: min(common, 2 + SHOWN_DIGITS)] + r"\ldots"
    exponent = int(low_exp)
    return f"${shown}" + (rf"\times 10^{{{exponent}}}$" if exponent else "$")


def _certified_table() -> str:
    rows = []
    for arrival, reward in CERTIFIED_QUEUES:
        opt = certified_optimum(GatedQueue(arrival, 1, reward, 1), dps=30)
        nu = "$1 + 10^{-30}$" if reward.startswith("1.0000") else f"${reward}$"
        rows.append(
            [
                report.Latex("$\\infty$" if arrival == "inf" else f"${arrival}$"),
                report.Latex(nu.replace("1e30", "10^{30}")),
                report.Latex(_digits(opt.gate)),
                report.Latex(_digits(opt.price_of_forgetting)),
            ]
        )
    return report.table(
        ["$\\Lambda$", "$\\nu$", "$\\tau^*$", "PoF"],
        rows,
        caption="Certified optima ($\\mu=C=1$, $R=\\nu$), each proved unique: every digit "
        "shown is shared by both ends of an Arb enclosure of relative width "
        f"$\\le 10^{{-30}}$ ({report.code('qtheory.gated.certified')}).",
        label="tab:gated-certified",
        alignment="llll",
        size="small",
    )


#: The quantity labels of :mod:`qtheory.gated.asymptotics` and their notation keys.
ASYMPTOTIC_QUANTITIES = {
    "PoF": "pof",
    "tau*": "tau_star",
    "S_GA*-S_RR*": "welfare_gain",
    "PoF-1": "pof_excess",
    "tau*-tau_min": "gate_excess",
}


def _asymptotic_table(quick: bool) -> str:
    dps = 40 if quick else 60
    points = (4, 16) if quick else (4, 8, 16, 32)
    rows = []
    for exponent in points:
        for point, checks in (
            (
                f"$\\nu - 1 = 10^{{-{exponent}}}$",
                asymptotics.check_light_traffic(exponent, dps=dps),
            ),
            (f"$\\nu = 10^{{{exponent}}}$", asymptotics.check_heavy_traffic(exponent, dps=dps)),
        ):
            for check in checks:
                quantity = notation.math(ASYMPTOTIC_QUANTITIES[check.quantity])
                rows.append(
                    [
                        report.Latex(point),
                        report.Latex(quantity),
                        float(check.exact),
                        float(check.relative_error),
                    ]
                )
    return report.table(
        ["point", "quantity", "exact (mpmath)", "relative error of asymptote"],
        rows,
        caption=f"Asymptotic forms against mpmath at {dps} digits "
        "($\\Lambda=\\infty$, $\\mu=C=1$).",
        label="tab:gated-asymptotics",
        formats={2: ".8g", 3: ".2e"},
    )


SERVICE_LAWS = ("exponential", "deterministic", "erlang:4", "hyperexp:4")


def _simulation_table(quick: bool, seed: np.random.SeedSequence, load: float = 0.8) -> str:
    """GA (Λ = ∞ and Λ = 2μ) against RR at equal throughput, for several service laws:
    exact for exponential service, simulated (C extension) for every law; run ``i``
    draws from ``replication_seed(seed, i)`` (``seed`` itself is not advanced)."""
    customers = 200_000 if quick else 4_000_000
    seeds = iter(replication_seeds(seed, 3 * len(SERVICE_LAWS)))
    deterministic, exponential = GatedQueue(np.inf, 1.0, 1.0, 1.0), GatedQueue(2.0, 1.0, 1.0, 1.0)
    runs_of = {  # policy: (queue, gate or rate, simulator)
        "GA, $\\Lambda=\\infty$": (deterministic, 1 / load, simulate_gated),
        "GA, $\\Lambda=2$": (exponential, 1 / load - 0.5, simulate_gated),
        "RR": (deterministic, load, simulate_random_routing),
    }
    exact = {
        "GA, $\\Lambda=\\infty$": 1 / (1 - float(root(1 / load, np.inf, 1.0))),
        "GA, $\\Lambda=2$": 1 / (1 - float(root(1 / load - 0.5, 2.0, 1.0))),
        "RR": 1 / (1 - load),
    }
    rows = []
    for law in SERVICE_LAWS:
        for policy, (queue, control, simulator) in runs_of.items():
            run = simulator(queue, control, service=law, customers=customers, seed=next(seeds))
            rows.append(
                [
                    law,
                    report.Latex(policy),
                    run.mean_sojourn.mean,
                    run.mean_sojourn.halfwidth,
                    exact[policy] if law == "exponential" else None,
                ]
            )
    return report.table(
        ["service", "policy", "mean sojourn", "95\\% half-width", "exact"],
        rows,
        caption=f"Mean sojourn at equal throughput $\\lambda/\\mu={load:g}$ ($\\mu=1$): "
        f"C simulation, {customers:,} customers per run, batch means; exact where a closed "
        "form exists (GI/M/1).  Non-exponential service goes beyond the paper.",
        label="tab:gated-simulation",
        formats={2: ".4f", 3: ".4f", 4: ".4f"},
    )


def _welfare_figure(figures: Path) -> list[Path]:
    fig, ax = report.new_figure()
    gates = np.linspace(1.02, 6.0, 400)
    levels = []
    for variant, arrival in enumerate((np.inf, 2.0)):
        queue = GatedQueue(arrival, 1.0, 3.0, 1.0)
        lowest = max(0.0, 1.0 - 1.0 / arrival)
        opt = optimal_gate(queue)
        grid = np.sort(np.append(lowest + gates - 1.0 + 1e-3, opt.gate))
        label = "$\\Lambda=\\infty$" if np.isinf(arrival) else f"$\\Lambda={arrival:g}$"
        at_optimum = [int(np.searchsorted(grid, opt.gate))]  # the marker sits at tau*
        ax.plot(grid, welfare_ga(queue, grid), **series_style("GA", variant),
                markevery=at_optimum, label=f"GA, {label}")  # fmt: skip
        levels.append((label, optimal_routing(queue).welfare))
    if np.isclose(levels[0][1], levels[1][1], rtol=1e-9):  # one RR optimum for both rates
        levels = [(" and ".join(label for label, _ in levels), levels[0][1])]
    for variant, (label, level) in enumerate(levels):
        ax.axhline(level, **series_style("RR", variant) | {"marker": ""},
                   label=f"RR optimum, {label}")  # fmt: skip
    best = max(np.max(line.get_ydata()) for line in ax.lines)
    ax.set_ylim(-0.25 * best, 1.15 * best)
    ax.set_xlabel("gate $\\tau$ ($\\mu=1$)")
    ax.set_ylabel(f"welfare ${notation.latex('S_GA')}(\\tau)$")
    outside_legend(ax, "above")
    return report.save_figure(fig, figures, "gated_welfare")


def _pof_figure(figures: Path, quick: bool) -> list[Path]:
    fig, ax, rest = residual_figure()
    queues = [
        GatedQueue(np.inf, 1.0, 1.0 + e, 1.0) for e in np.logspace(-12, 3, 40 if quick else 120)
    ]
    pof = np.array([optimal_gate(q).welfare / optimal_routing(q).welfare for q in queues])
    with mpmath.workdps(60):
        # the excess of the nu each queue holds (the float 1 + e read as its shortest decimal
        # is 1 + e only to about 1e-16: a relative 1e-5 at e = 1e-11)
        excess_mp = [q.naor_excess() for q in queues]
    excess = np.array([float(e) for e in excess_mp])
    ax.loglog(excess, pof, **series_style("exact") | {"marker": ""}, label="PoF (exact)")
    light = asymptotics.derive_light_traffic()
    near = excess < 0.1
    forms = (
        (light.price_of_forgetting, "asymptotic", f"$C\\hat\\sigma/{notation.latex('S_RR')}^*$"),
        (
            light.price_of_forgetting_leading,
            "leading term",
            "$4/(\\varepsilon\\log(1/\\varepsilon))$",
        ),
    )
    for form, key, label in forms:
        with mpmath.workdps(60):
            values = np.array([
                float(
                    asymptotics.evaluate_asymptote(
                        form,
                        {asymptotics.excess: e, derivation.service_rate: 1, derivation.cost: 1},
                        "inf",
                    )
                )
                for e, close in zip(excess_mp, near, strict=True)
                if close
            ])  # fmt: skip
        style = series_style(key) | {"markevery": 3}
        ax.loglog(excess[near], values, **style, label=label)
        rest.loglog(excess[near], np.abs(values / pof[near] - 1.0), **style)
    ax.set_ylabel(f"Price of Forgetting ${notation.latex('pof')}$")
    rest.set_xlabel(f"${notation.latex('nu')} - 1$")
    rest.set_ylabel("relative error")
    outside_legend(ax, "above")
    return report.save_figure(fig, figures, "gated_pof")


def _sojourn_figure(figures: Path) -> list[Path]:
    fig, ax = report.new_figure()
    load = np.linspace(0.05, 0.95, 200)
    ax.plot(load, 1 / (1 - load), **series_style("RR"), markevery=20, label="RR (M/M/1)")
    for variant, arrival in enumerate((np.inf, 2.0)):
        sigma = root(1 / load - (0 if np.isinf(arrival) else 1 / arrival), arrival, 1.0)
        label = "$\\Lambda=\\infty$" if np.isinf(arrival) else f"$\\Lambda={arrival:g}$"
        ax.plot(load, 1 / (1 - sigma), **series_style("GA", variant), markevery=(10 * variant, 20),
                label=f"GA, {label}")  # fmt: skip
    ax.set_yscale("log")
    integer_ticks(ax.yaxis)  # 1, 2, 5, 10, 20 rather than 10^0, 10^1
    ax.set_xlabel("throughput $\\lambda/\\mu$")
    ax.set_ylabel("mean sojourn $\\mu E[S]$")
    outside_legend(ax, "above")
    return report.save_figure(fig, figures, "gated_sojourn")


def steps(run: Run) -> Iterator[tuple[str, Callable[[], list[Path]]]]:
    """The named steps that write this model's outputs (each returns the files written);
    the claim records go to ``run.claims`` and the simulations draw from
    ``run.seed_sequence("gated.simulation")``.

    The section (``derivations/gated.tex``) prints the formulas of
    :mod:`qtheory.gated.derivation` and :mod:`qtheory.gated.asymptotics` with each claim
    record stated where it belongs, then the certified, optimum, asymptotic and simulation
    tables; the figures are the welfare against the gate, PoF as ν ↓ 1 and the mean
    sojourn at equal throughput.

    Parameters
    ----------
    run : qtheory.report.run.Run
        The reproduce context: output folder ``run.out``, ``run.quick`` and the seed.

    Returns
    -------
    Iterator of (str, callable)
        (step name, step); calling a step writes its files and returns their paths.
        Nothing is computed until a step is called.

    Examples
    --------
    >>> from qtheory.report.run import Run
    >>> for name, _ in steps(Run("build", quick=True)):
    ...     print(name)
    gated: derivations and tables
    gated: welfare figure
    gated: PoF figure
    gated: sojourn figure

    References
    ----------
    .. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026).
    """
    quick = run.quick
    derivations, figures = run.out / "derivations", run.out / "figures"

    def section() -> list[Path]:
        claims = gated_claims(quick)
        run.claims.extend(claims)
        by_name = {claim.name: claim for claim in claims}
        body = "\n\n".join(
            [
                _formulas(by_name),
                _certified_table(),
                _optimum_table(quick),
                _asymptotic_table(quick),
                _simulation_table(quick, run.seed_sequence("gated.simulation")),
                "The exact GI/M/1 embedded chain is an independent route to the root:",
                claim_paragraph(by_name["gated.embedded_chain"]),
                report.figure(
                    "gated_welfare",
                    "Welfare of the gate against $\\tau$ ($\\nu = 3$, $\\mu = C = 1$) for "
                    "$\\Lambda = \\infty$ (solid) and $\\Lambda = 2$ (dash-dotted, open "
                    "marker); the marker on each curve is the optimal gate $\\tau^*$.  The line "
                    "at constant height is the optimal welfare of random routing, the same "
                    "for both $\\Lambda$ (its optimal rate $\\lambda^*$ is below 2).",
                    "fig:gated-welfare",
                ),
                report.figure(
                    "gated_pof",
                    "Price of Forgetting as $\\nu\\downarrow1$ ($\\Lambda = \\infty$, "
                    "$\\mu = C = 1$): exact, and the two light-traffic forms for "
                    "$\\varepsilon = \\nu - 1 < 0.1$.  Lower panel: the relative error "
                    "$|\\text{form}/\\text{exact} - 1|$ of each form.",
                    "fig:gated-pof",
                ),
                report.figure(
                    "gated_sojourn",
                    "Mean sojourn $\\mu E[S]$ of admitted customers against the throughput "
                    "$\\lambda/\\mu$ ($\\mu = 1$): RR admits at rate $\\lambda$ (M/M/1), GA "
                    "with the gate $\\tau = 1/\\lambda - 1/\\Lambda$ that admits the same "
                    "throughput, for $\\Lambda = \\infty$ (solid) and $\\Lambda = 2$ (dash-dotted, "
                    "open marker).  GA's mean lies below RR's at every throughput shown.",
                    "fig:gated-sojourn",
                ),
            ]
        )
        text = report.section("Gated admission to an unobservable queue", body, label="sec:gated")
        return [report.write_text(derivations / "gated.tex", text)]

    yield "gated: derivations and tables", section
    yield "gated: welfare figure", lambda: _welfare_figure(figures)
    yield "gated: PoF figure", lambda: _pof_figure(figures, quick)
    yield "gated: sojourn figure", lambda: _sojourn_figure(figures)
