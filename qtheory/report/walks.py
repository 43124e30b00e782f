"""The random-walk part of ``qtheory reproduce``: each bound in closed form, a table of
bound / exact / simulated values over N, the epochs of PFI, the window sweep of SSS and
their figures and claims.

Claims (each stated in ``derivations/walks.tex`` by
:func:`qtheory.report.claims.claim_paragraph`): ``walks.bounds`` and
``walks.sss_failure_bound`` are certified (both sides of every comparison enclosed in
ball arithmetic by :mod:`qtheory.walks.certify`, with certificates for
:mod:`qtheory.verify.walks`); ``walks.pfi_cost_bounded`` and ``walks.window_constant`` are
finite-range (an O(1) statement tested over the N of the run).  Every ``±`` is the
half-width of a 95% confidence interval."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from qtheory import report
from qtheory.core import limits, notation
from qtheory.core.cache import ResultCache, default_cache_dir
from qtheory.core.claims import Claim, Evidence, Origin
from qtheory.core.executor import make_executor
from qtheory.core.printing import latex_from_log
from qtheory.lossnet.regret import leading_constant
from qtheory.model.lossnet import LossNetwork
from qtheory.report.claims import claim_name_latex, claim_paragraph
from qtheory.report.display import PRINT, DisplayForm, add, frac, mul
from qtheory.report.plots import integer_ticks, level_style, outside_legend, series_style
from qtheory.sim.lossnet import trace
from qtheory.walks import certify, chernoff, chernoff_checks, hitting, ruin, sss
from qtheory.walks.bounds import BoundCheck
from qtheory.walks.epochs import RenewalReward, epochs_from_trace, renewal_reward
from qtheory.walks.idle import UP_PROBABILITY, IdleWalk, derive_limit_up_probability
from qtheory.walks.lookahead_sweep import (
    TOLERATED_GROWTH,
    SweepPoint,
    loss_growth,
    smallest_bounded_constant,
    window_sweep,
)

if TYPE_CHECKING:
    from qtheory.report.run import Run

DEFAULT = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
BRAY = "Bray, arXiv:2601.14538"
#: The conditions of every walks claim: the parameters of the checks.
PARAMETERS = (
    f"$\\lambda_H = {DEFAULT.lambda_h:g}$, $\\lambda_L = {DEFAULT.lambda_l:g}$, "
    f"$\\mu = {DEFAULT.mu:g}$, $r_H = {DEFAULT.r_h:g}$, $r_L = {DEFAULT.r_l:g}$"
)
BAND = "band $b = \\lfloor\\sqrt N\\rfloor$ (PFI's target level)"
WARMUP = 3.0
#: The name of the SSS checks: B_1 bounds the failure probability after every admission.
SSS_CHECK = "SSS failure max_h eps_h <= B_1"
#: The window constants of the SSS checks and of the Chernoff checks, and the largest N
#: of the Chernoff checks (their exact CTMC work grows with N).
SSS_CONSTANTS = (1.0, 4.0, 8.0, 16.0, 32.0)
CHERNOFF_CONSTANTS = (0.5, 1.0, 2.0, 4.0)
CHERNOFF_LIMIT = 3000
#: The events limit of the PFI epoch traces (see :func:`_pfi_epochs`).
PFI_EPOCH_EVENTS = 1e11


def _grids(size: str) -> dict:
    """The walks' grids for a run of ``size`` (quick, standard or paper): the SSS window
    sweep is the costly part (about 38 CPU seconds at the paper size, 10 at the standard
    size, measured from an empty cache on a shared two-core machine); the standard size
    sweeps N up to 10^5 with half the events per replication."""
    if size == "quick":
        return {
            "exact": [16, 100, 1000],
            "epochs": [100, 1000, 10_000],
            "sweep": [100, 1000, 10_000],
            "cs": [2.0, 8.0, 16.0, 32.0],
            "events": 4e5,
            "reps": 3,
        }
    paper = size == "paper"
    return {
        "exact": [16, 100, 1000, 10_000],
        "epochs": [100, 1000, 10_000, 100_000, 1_000_000],
        "sweep": [100, 1000, 10_000, 100_000] + ([1_000_000] if paper else []),
        "cs": [2.0, 4.0, 8.0, 11.0, 16.0, 23.0, 32.0],
        "events": 4e6 if paper else 2e6,
        "reps": 4,
    }


# ---------------------------------------------------------------------------
# formulas


def display_forms() -> dict[str, DisplayForm]:
    r"""Every formula of the walks section as printed, with the derivation's expression
    it equals (checked by Sympy in ``tests/report/test_display_forms.py``).

    Returns
    -------
    dict of str to DisplayForm

    Examples
    --------
    >>> import sympy
    >>> print(sympy.latex(display_forms()["ruin"].display, **PRINT))
    \frac{r^{i} - r^{b}}{1 - r^{b}}
    """
    walk_ruin, climb = ruin.derive_walk_ruin(), hitting.derive_walk_climb()
    poisson, skellam, walk_tail = (
        chernoff.derive_poisson(),
        chernoff.derive_skellam(),
        chernoff.derive_walk(),
    )
    limit = derive_limit_up_probability()

    def named(*exprs: sp.Expr) -> dict[str, sp.Symbol]:
        return {x.name: x for e in exprs for x in e.free_symbols}

    up = named(UP_PROBABILITY.expr, limit, climb.leading_time.expr)
    mu, lam, n, i = up["mu"], up["lambda_H"], up["N"], up["i"]
    served = mul(mu, add(n, -i))
    steps = named(climb.solution, walk_ruin.solution)
    r, b, level = steps["r"], steps["b"], steps["i"]
    excess = add(r**level, -(r**b))
    x, m = (named(poisson.exponent.expr)[k] for k in ("x", "m"))
    w = named(walk_tail.exponent.expr)
    count, a, p = w["n"], w["a"], w["p"]
    sk = named(skellam.exponent.expr)
    y, u, d = sk["x"], sk["u"], sk["d"]
    root = sp.sqrt(add(y**2, mul(4, u, d)))
    return {
        "up": DisplayForm(frac(served, add(served, mul(lam, n))), UP_PROBABILITY.expr),
        "up_limit": DisplayForm(frac(mu, add(mu, lam)), limit),
        "ruin": DisplayForm(frac(excess, add(1, -(r**b))), walk_ruin.solution),
        "climb": DisplayForm(
            add(
                frac(mul(add(b, -level), add(1, r)), add(1, -r)),
                -frac(mul(2, r, excess), add(1, -r) ** 2),
            ),
            climb.solution,
        ),
        "climb_time": DisplayForm(frac(up["b"], mul(n, add(mu, -lam))), climb.leading_time.expr),
        "chernoff_poisson": DisplayForm(
            add(mul(x, sp.log(frac(x, m))), -x, m), poisson.exponent.expr
        ),
        "chernoff_walk": DisplayForm(
            add(
                mul(frac(add(count, a), 2), sp.log(frac(add(count, a), mul(2, count, p)))),
                mul(
                    frac(add(count, -a), 2),
                    sp.log(frac(add(count, -a), mul(2, count, add(1, -p)))),
                ),
            ),
            walk_tail.exponent.expr,
        ),
        "chernoff_skellam": DisplayForm(
            add(mul(y, sp.log(frac(add(y, root), mul(2, u)))), -root, u, d),
            skellam.exponent.expr,
        ),
    }


def _derivation() -> str:
    forms = {name: form.display for name, form in display_forms().items()}
    exponent, cumulant = notation.latex("chernoff_exponent"), notation.latex("cumulant")
    p_i, p_inf = "p(i)", "p_\\infty"
    return "\n\n".join(
        [
            "Under ``reject every L'' the idle count moves up at rate $\\mu(N-I)$ and down "
            "at rate $\\lambda_H N$ ($I\\ge1$).  Its jump chain moves up with probability",
            report.align(
                [(p_i, forms["up"]), (p_inf, forms["up_limit"])], label="eq:walks-up", **PRINT
            ),
            "($p_\\infty$ is Sympy's limit at $i=\\sqrt N$).  On the band $1\\le i\\le b-1$, "
            "$p_b \\le p(i) \\le p_\\infty$, so the chain is squeezed between two simple "
            "walks; ruin probabilities and climbing times of the walk with $p_b$ bound the "
            "chain's from above, those with $p_\\infty$ from below (this package's working "
            "of the random-walk comparisons in the proofs of Bray, arXiv:2601.14538; "
            f"checked in the claim {claim_name_latex('walks.bounds')} below).  Gambler's ruin "
            "($r=q/p$; Sympy solves the recurrence) and the mean climb of the walk reflected "
            "at 0 (in steps), with its leading real-time term:",
            report.align(
                [
                    ("P_i(0 \\text{ before } b)", forms["ruin"]),
                    ("E_i[\\text{steps to } b]", forms["climb"]),
                    ("E_1[T_b]", forms["climb_time"]),
                ],
                label="eq:walks-ruin",
                **PRINT,
            ),
            f"Chernoff exponents ${exponent}(x) = \\sup_s(s x - {cumulant}(s))$, the "
            f"Legendre transforms of the cumulant generating functions ${cumulant}$ (derived "
            "by Sympy): Poisson count, simple walk after $n$ steps, and a difference of "
            f"Poisson counts (Skellam); the bound is $e^{{-{exponent}(x)}}$ on the tail side "
            "of the mean.",
            report.align(
                [
                    (f"{exponent}_{{\\mathrm{{Poisson}}}}", forms["chernoff_poisson"]),
                    (f"{exponent}_{{\\mathrm{{walk}}}}", forms["chernoff_walk"]),
                    (f"{exponent}_{{\\mathrm{{Skellam}}}}", forms["chernoff_skellam"]),
                ],
                label="eq:walks-chernoff",
                **PRINT,
            ),
            _sss_text(),
        ]
    )


def _sss_text() -> str:
    """The SSS failure bound: this package's construction (band squeeze and Skellam
    Chernoff bound), stated with B_1 >= sup_h eps_h, with the exact eps_h at N = 1000,
    c = 4 that show why not eps_1."""
    eps = sss.failure_probabilities(DEFAULT.with_servers(1000), 4.0)[1:5]
    values = ", ".join(f"{x:.3g}" for x in eps)
    return (
        "The bound on SSS's losses below is this package's construction (the band squeeze "
        "above and a Skellam Chernoff bound), not a statement of Bray (arXiv:2601.14538), "
        "whose Theorem 2 states only that some $c$ suffices.  SSS fails after an L "
        "admission that leaves $h \\ge 1$ idle servers when the reject-all-L process $J$ "
        "stays $\\ge1$ for the window, has not reached $b$ by then, and then hits 0 "
        "before $b$; call $\\varepsilon_h$ the probability.  Splitting on $J(W) \\le m$, "
        "$\\varepsilon_h \\le P(h + U - D \\le m) + P^{p_b}_{m+1}(0 \\text{ before } b)$ "
        "for every $m$ (coupling $J(W)\\ge h+U-D$ with Poisson $U, D$ on the band), so "
        "$\\varepsilon_h \\le B_h$, the minimum over $m$ with the first term replaced by "
        "its Chernoff bound.  $B_h$ decreases in $h$, "
        "so $B_1 \\ge \\sup_{h\\ge1}\\varepsilon_h$; the exact $\\varepsilon_h$ is not largest "
        "at $h = 1$ (at $N = 1000$, $c = 4$: "
        f"$\\varepsilon_1, \\dots, \\varepsilon_4 = {values}$).  "
        "An admission can leave any $h \\ge 1$ idle, so the H-loss rate of SSS is at most "
        "$\\lambda_L N\\,B_1\\,\\kappa$ plus a term $e^{-\\Omega(\\sqrt N)}$ (losses after "
        "$J$ reached $b$; stated, not evaluated), with "
        "$\\kappa \\le (\\lambda_H/\\mu)/(1 - h^{p_b}_1)$ H jobs lost per failure.  With "
        "$W=c\\log N/N$ this bound stays bounded in $N$ when "
        f"$\\max_y\\min(c\\,{notation.latex('chernoff_exponent')}_{{\\mathrm{{Skellam}}}}(y/c), "
        "y\\log(\\mu/\\lambda_H)) "
        "\\ge 1$ (the Skellam exponent of \\eqref{eq:walks-chernoff} with means $u = \\mu$, "
        "$d = \\lambda_H$), i.e. from the constant $c^*$ of \\eqref{eq:lossnet-cstar} on."
    )


# ---------------------------------------------------------------------------
# bounds against exact values


_RUIN = r"P_i(0 \text{ before } b)"
_CLIMB = r"E_i[\text{steps to } b]"
#: The check names of :mod:`qtheory.walks` (ASCII, as the checks and certificates carry
#: them) as mathematics for the tables; the parameterised families are in
#: :data:`_BOUND_FAMILIES`.
BOUND_LATEX = {
    "P_i(hit 0 before b) <= walk(p_b)": rf"${_RUIN} \le P^{{p_b}}_i(0 \text{{ before }} b)$",
    "P_i(hit 0 before b) >= walk(p_inf)": (
        rf"${_RUIN} \ge P^{{p_\infty}}_i(0 \text{{ before }} b)$"
    ),
    "P_i(hit 0 before b) <= min(1, q_b/p_b)^i": rf"${_RUIN} \le \min(1, q_b/p_b)^i$",
    "E_i[steps to b] <= walk(p_b)": rf"${_CLIMB} \le E^{{p_b}}_i[\text{{steps to }} b]$",
    "E_i[steps to b] >= walk(p_inf)": (rf"${_CLIMB} \ge E^{{p_\infty}}_i[\text{{steps to }} b]$"),
    "E_i[time to b] <= walk(p_b) / q_min": (
        r"$E_i[T_b] \le E^{p_b}_i[\text{steps to } b]/q_{\min}$"
    ),
    "E_i[time to b] >= walk(p_inf) / q_max": (
        r"$E_i[T_b] \ge E^{p_\infty}_i[\text{steps to } b]/q_{\max}$"
    ),
    "E_i[steps to 0] >= i": r"$E_i[\text{steps to } 0] \ge i$",
    "E_i[time to 0] >= i/(lambda_H N)": r"$E_i[T_0] \ge i/(\lambda_H N)$",
    "P(I(W) <= 0)": r"$P(I(W) \le 0)$",
    "P(T_0 <= W)": r"$P(T_0 \le W)$",
    SSS_CHECK: r"SSS failure $\max_h \varepsilon_h \le B_1$",
}
_RELATIONS = {"<=": r"\le", ">=": r"\ge", ">": ">", "<": "<"}
_LAWS = {
    "X ~ Poisson(m)": r"$X \sim \mathrm{Poisson}(m)$",
    "X = U - D ~ Skellam(u, d)": r"$X = U - D \sim \mathrm{Skellam}(u, d)$",
    "X = S_n, the walk after n steps": r"$X = S_n$, the walk after $n$ steps",
}
_BOUND_FAMILIES = (
    (
        re.compile(r"P\(T_b > (?P<k>[0-9.]+) x drift time\), in (?P<clock>jumps|real time)$"),
        lambda m: rf"$P(T_b > {m['k']}\,t_{{\mathrm{{drift}}}})$, in {m['clock']}",
    ),
    (
        re.compile(r"P\(X (?P<rel>[<>]=) x\), (?P<law>.+)$"),
        lambda m: rf"$P(X {_RELATIONS[m['rel']]} x)$, {_LAWS[m['law']]}",
    ),
    (
        re.compile(r"P\(events in W (?P<rel>[<>]=) (?P<k>[0-9.]+) M\), M = mean events$"),
        lambda m: (
            rf"$P(\text{{events in }} W {_RELATIONS[m['rel']]} {m['k']}M)$, "
            r"$M$ its mean"
        ),
    ),
)


def bound_latex(name: str) -> str:
    r"""The LaTeX of a :mod:`qtheory.walks` check name (table cells print it verbatim).

    Parameters
    ----------
    name : str
        :attr:`BoundCheck.name`; a ``" via coupling"`` or ``" via Chernoff"`` suffix is
        kept as words.

    Returns
    -------
    str
        Text with the mathematics in ``$...$``.

    Raises
    ------
    KeyError
        If the name has no LaTeX form (add it to :data:`BOUND_LATEX`).

    Examples
    --------
    >>> print(bound_latex("E_i[time to 0] >= i/(lambda_H N)"))
    $E_i[T_0] \ge i/(\lambda_H N)$
    >>> print(bound_latex("P(T_b > 2 x drift time), in jumps via Chernoff"))
    $P(T_b > 2\,t_{\mathrm{drift}})$, in jumps, via Chernoff
    """
    base, via, method = name.rpartition(" via ")
    if not via:
        base, method = name, ""
    suffix = f", via {method}" if method else ""
    if base in BOUND_LATEX:
        return BOUND_LATEX[base] + suffix
    for pattern, form in _BOUND_FAMILIES:
        match = pattern.match(base)
        if match:
            return form(match) + suffix
    raise KeyError(f"no LaTeX for the walks check {name!r}; add it to BOUND_LATEX")


def _summaries(checks: list[BoundCheck]) -> list[list]:
    """One row per (bound, direction): count, how many hold, and the tightness range
    (min and max of bound/exact, taken in log space so that a ratio beyond float64 is
    printed, not 0)."""
    rows = []
    for name in dict.fromkeys(c.name for c in checks):
        for direction in ("upper", "lower"):
            group = [c for c in checks if c.name == name and c.direction == direction]
            if not group:
                continue
            logs = np.array([c.log_ratio for c in group], dtype=float)
            logs = logs[~np.isnan(logs) & (logs < np.inf)]  # a bound of 0 is the ratio 0
            low, high = (logs.min(), logs.max()) if logs.size else (math.nan, math.nan)
            holds = sum(c.holds for c in group)
            rows.append([report.Latex(bound_latex(name)), direction, len(group), holds,
                         _from_log(low, 4), _from_log(high, 4)])  # fmt: skip
    return rows


def _from_log(log_value: float, digits: int) -> float | report.Latex:
    """The number e^log_value: a float where float64 holds it, else its LaTeX from the
    logarithm (:func:`qtheory.core.printing.latex_from_log`)."""
    if not math.isfinite(log_value) or abs(log_value) < _LOG_FLOAT_RANGE:
        return math.exp(log_value)  # nan stays nan, -inf is 0
    return report.Latex(f"${latex_from_log(log_value, digits)}$")


#: |log x| below which x and 1/x are normal float64 numbers.
_LOG_FLOAT_RANGE = 700.0


def _exact_checks(servers: list[int]) -> list[BoundCheck]:
    checks = []
    for n in servers:
        walk = IdleWalk(n, DEFAULT.lambda_h, DEFAULT.mu)
        levels = sorted({1, max(1, walk.band // 2), walk.band - 1})
        checks += ruin.ruin_checks(walk, levels)
        checks += hitting.hitting_checks(walk, levels)
        if n <= CHERNOFF_LIMIT:  # the exact CTMC transient / first passage of every level
            checks += chernoff_checks.chernoff_checks(DEFAULT.with_servers(n), CHERNOFF_CONSTANTS)
        checks += _sss_checks(DEFAULT.with_servers(n))
    return checks


def _sss_checks(net: LossNetwork) -> list[BoundCheck]:
    """The SSS failure bound B_1 against the largest failure probability
    max_h eps_h (h = 1..b - 1; eps_h is 0 from h = b on) where the bound says something
    (B_1 < 1; at small c N it is the trivial 1, and those cases are left out rather than
    counted as held)."""
    checks = []
    for c in SSS_CONSTANTS:
        bound = sss.failure_bound(net, c)
        if bound.total < 1.0:
            spec = {"family": "sss", "N": net.servers, "c": repr(c), "h": 1, "m": bound.level}
            checks.append(
                BoundCheck(SSS_CHECK, net.servers, f"c={c:g}", "upper", bound.total,
                           float(sss.failure_probabilities(net, c).max()), spec=spec)
            )  # fmt: skip
    return checks


def _checks_table(checks: list[BoundCheck], servers: list[int]) -> str:
    return report.table(
        ["bound", "side", "checks", "hold", "min ratio", "max ratio"],
        _summaries(checks),
        caption="Every bound against the exact value it bounds (float64: exact CTMC first "
        "passage and transient distributions, exact birth--death sums, scipy.stats tails) "
        f"for $N \\in \\{{{', '.join(map(str, servers))}\\}}$ ($\\lambda_H=0.6$, "
        "$\\mu=1$); tightness is the ratio bound/exact (min and max over the checks).  "
        "Each comparison is also decided in ball arithmetic (claims "
        f"{claim_name_latex('walks.bounds')} and {claim_name_latex('walks.sss_failure_bound')}).",
        label="tab:walks-checks",
        size="footnotesize",
        formats={4: ".4g", 5: ".4g"},
        alignment="p{0.42\\linewidth}lrrdd",
    )


def _pointwise_table(checks: list[BoundCheck], servers: list[int]) -> str:
    """Bound / exact at i = 1, b = floor(sqrt N) for the headline quantities (the ruin and
    hitting checks of ``checks`` at that point, plus the SSS failure and kappa); an exact
    value beyond float64 printed from its logarithm, a bound on a probability that is not
    below 1 marked as vacuous."""
    rows = []
    for n in servers:
        net = DEFAULT.with_servers(n)
        start = f"i=1, b={IdleWalk.from_network(net).band}"
        for check in checks:
            if check.servers == n and check.point == start:
                exact = check.exact if check.log_exact is None else _from_log(check.log_exact, 6)
                bound = _vacuous_or(
                    check.bound, check.name.startswith("P") and check.direction == "upper"
                )
                rows.append([n, report.Latex(bound_latex(check.name)), check.direction, bound,
                             exact])  # fmt: skip
        rows.append([n, report.Latex(r"SSS failure $\max_h \varepsilon_h$ ($c = 4$)"), "upper",
                     _vacuous_or(sss.failure_bound(net, 4.0).total, True),
                     float(sss.failure_probabilities(net, 4.0).max())])  # fmt: skip
        rows.append([n, report.Latex(r"H jobs lost per failure, $\kappa$"), "upper",
                     sss.losses_per_failure_bound(net), sss.losses_per_failure(net)])  # fmt: skip
    return report.table(
        [
            "$N$",
            "quantity ($b=\\lfloor\\sqrt N\\rfloor$; from $i=1$ but SSS's maximum)",
            "side",
            "bound",
            "exact",
        ],  # fmt: skip
        rows,
        caption="Bound and exact value side by side ($\\lambda_H=0.6$, $\\mu=1$); an exact "
        "mean beyond the float64 range is computed from its logarithm.  "
        f"${VACUOUS}$: a bound on a probability that is not below 1 says nothing (vacuous); "
        "such a bound is shown here but not counted among the checks.",
        label="tab:walks-pointwise",
        size="footnotesize",
        formats={3: ".6g", 4: ".6g"},
        alignment="rp{0.45\\linewidth}ldd",
    )


#: The mark of a vacuous bound in the tables (mathematics).
VACUOUS = "^{\\dagger}"


def _vacuous_or(bound: float, probability: bool) -> float | report.Latex:
    """The bound, or the bound marked as vacuous when it bounds a probability by 1 or
    more."""
    if probability and bound >= 1:
        return report.Latex(f"${report.number(bound, 6).strip('$')}{VACUOUS}$")
    return bound


def _ruin_figure(figures: Path) -> list[Path]:
    walk = IdleWalk(1000, DEFAULT.lambda_h, DEFAULT.mu)
    b = walk.band
    levels = np.arange(0, b)  # at i = b every probability is 0: not on the log axis
    exact = ruin.chain_ruin_probabilities(walk.up_rates(), walk.down_rates(), b)[:b]
    fig, ax = report.new_figure()
    ax.semilogy(levels, exact, **series_style("exact") | {"linestyle": "none"}, markersize=4,
                label="exact (birth-death chain)")  # fmt: skip
    for p, key, name in ((walk.coupled_up_probability(), "coupled walk", "$p_b$"),
                         (walk.limit_up_probability, "limit walk", "$p_\\infty$")):  # fmt: skip
        ax.semilogy(levels, ruin.walk_ruin_probability(p, levels, b), **series_style(key),
                    markersize=3, label=f"walk {name}")  # fmt: skip
    integer_ticks(ax.xaxis)
    ax.set_xlabel("start level $i$")
    ax.set_ylabel("$P_i(0\\ \\mathrm{before}\\ b)$")
    outside_legend(ax, "above")
    return report.save_figure(fig, figures, "walks_ruin")


# ---------------------------------------------------------------------------
# epochs of PFI


def _pfi_epochs(run: Run, servers: list[int], events: float) -> list[tuple[int, object]]:
    out = []
    for n in servers:
        net = DEFAULT.with_servers(n)
        horizon = WARMUP + max(5.0, events / net.event_rate)
        # The full run's largest point (N = 1e6) is a deliberate large run: the up-front
        # estimate of PFI's look-ahead scans (every L arrival scanning to the band, 2 to
        # 2.5 times what runs scan) is 3.8e10 events, above the default limit for callers.
        with limits.raised(events=PFI_EPOCH_EVENTS):
            tr = trace(net, "pfi", horizon=horizon, seed=run.seed_sequence(f"walks.pfi.{n}"))
        out.append((n, epochs_from_trace(tr, warmup=WARMUP)))
    return out


def _epochs_table(epochs: list[tuple[int, object]]) -> tuple[str, list[RenewalReward]]:
    rows, rates = [], []
    for n, ep in epochs:
        rr = renewal_reward(ep, DEFAULT.with_servers(n))
        rates.append(rr)
        rows.append([
            n, ep.count, rr.mean_length * n, ep.idle_area.mean() * n, ep.rejected_l.mean(),
            ep.lost_h.mean(), report.estimate(rr.mean_idle),
            report.estimate(rr.identity_cost), report.estimate(rr.timing_gain),
        ])  # fmt: skip
    text = report.table(
        [
            "$N$",
            "epochs",
            "$N E[L]$",
            "$N E[A]$",
            "L rej.",
            "H lost",
            "$\\bar I$",
            "cost",
            "timing gain",
        ],  # fmt: skip
        rows,
        caption="PFI (clock model): epochs between entrances of the idle count into 1, "
        "per-epoch means ($L$ length, $A$ idle area, L rejected and H lost per epoch) and "
        "the renewal-reward rates (regenerative estimates; every $\\pm$ is the half-width "
        "of a 95\\% confidence interval).  Cost is "
        "$r_L\\mu\\bar I + (r_H-r_L)\\,$(H-loss rate), an upper estimate of "
        "$C_{\\mathrm{vol}} \\le R_{\\mathrm{fluid}} - R_{\\mathrm{PFI}}$ up to the timing gain "
        "(admissions minus "
        "$\\mu\\times$busy per unit time).",
        label="tab:walks-epochs",
        size="scriptsize",
        formats={2: ".4g", 3: ".4g", 4: ".4g", 5: ".3g"},
    )
    return text, rates


def _epoch_figure(epochs: list[tuple[int, object]], figures: Path) -> list[Path]:
    fig, ax = report.new_figure()
    for index, (n, ep) in enumerate(epochs):
        scaled = np.sort(ep.length * n)
        tail = 1.0 - np.arange(scaled.size) / scaled.size
        # markers at about ten points per decade of the tail, not at every epoch
        marks = np.unique(np.searchsorted(-tail, -np.logspace(0, np.log10(tail[-1]), 30)))
        ax.loglog(scaled, tail, **level_style(index, len(epochs)), markersize=3,
                  markevery=list(marks[marks < scaled.size]), label=f"$N={n}$")  # fmt: skip
    ax.set_xlabel("epoch length $\\times N$")
    ax.set_ylabel("$P(N L > x)$")
    outside_legend(ax, "right")
    return report.save_figure(fig, figures, "walks_epochs")


# ---------------------------------------------------------------------------
# window sweep


def _sweep(run: Run, grids: dict) -> list[SweepPoint]:
    cache = ResultCache(default_cache_dir())
    with make_executor(run.cluster) as executor:
        return window_sweep(
            DEFAULT, grids["cs"], grids["sweep"], events=grids["events"], reps=grids["reps"],
            seed=run.seed, executor=executor, cache=cache,
        )  # fmt: skip


def _sweep_table(points: list[SweepPoint], cs: list[float]) -> str:
    rows = []
    for c in cs:
        growth = loss_growth(points, c)
        line = [c]
        for p in sorted((p for p in points if p.c == c), key=lambda p: p.servers):
            line.append(_rate_cell(p))
        verdict = "bounded" if growth.bounded else "growing" if growth.growing else "undetermined"
        interval = report.Latex(f"$[{_bound_text(growth.lower)}, {_bound_text(growth.upper)}]$")
        rows.append([*line, interval, verdict])
    servers = sorted({p.servers for p in points})
    return report.table(
        ["$c$", *[f"$N={_number_text(n)}$" for n in servers], "exponent $s$", "loss rate"],
        rows,
        caption="H-loss rate of SSS($c\\log N/N$) (every $\\pm$ is the half-width of a 95\\% "
        "confidence interval over replications on paths shared by every $c$), the 95\\% "
        "profile-likelihood interval of the exponent "
        "$s$ of a Poisson fit rate $= A N^s$ (overdispersion-corrected; zero counts "
        f"included), and the verdict: bounded if $s \\le {TOLERATED_GROWTH}$ is all the "
        "interval allows, growing if it excludes 0.  Half-widths are rounded to 2 significant "
        "digits, means to the same place.  A cell $\\le x$: no H job was lost, and $x$ is the "
        "one-sided 95\\% Poisson upper bound $-\\log(0.05)/T$ on the rate ($T$: the "
        "simulated time after warm-up, over the replications).",
        label="tab:walks-sweep",
        size="scriptsize",
    )


def _math_number(value: float, digits: int = 3) -> str:
    """:func:`qtheory.report.number` without its dollars, for use inside math."""
    return report.number(value, digits).strip("$")


def _rate_cell(point: SweepPoint) -> report.Latex:
    """``mean ± half-width`` of the H-loss rate, the half-width to 2 significant digits and
    the mean to the same decimal place; for a point with no loss, ``≤`` its one-sided 95%
    Poisson upper bound (2 digits).

    Examples
    --------
    >>> from qtheory.core.stats import Estimate
    >>> rate = Estimate(mean=1970.4, halfwidth=37.2, n=4)
    >>> print(_rate_cell(SweepPoint(10**6, 2.0, 0.03, 13.0, 4, 9000, rate, rate, rate)))
    $1970 \\pm 37$
    """
    if point.lost_h == 0:
        return report.Latex(f"$\\le {_math_number(_zero_loss_bound(point), 2)}$")
    mean, halfwidth = point.loss_rate_h.mean, point.loss_rate_h.halfwidth
    if not (halfwidth > 0 and math.isfinite(halfwidth)):
        return report.Latex(f"${_math_number(mean)} \\pm {_math_number(halfwidth)}$")
    return report.estimate(point.loss_rate_h)


def _bound_text(value: float) -> str:
    return f"{value:.2f}" if math.isfinite(value) else ("-\\infty" if value < 0 else "\\infty")


#: One-sided confidence of the upper bound drawn for a (c, N) with no H job lost.
ZERO_LOSS_CONFIDENCE = 0.95


def _zero_loss_bound(point: SweepPoint) -> float:
    """The one-sided 95% Poisson upper bound -log(0.05)/T on the H-loss rate of a point
    with no loss in total simulated time T (replications times horizon after warm-up)."""
    return -math.log(1 - ZERO_LOSS_CONFIDENCE) / (point.reps * (point.horizon - WARMUP))


def _sweep_figure(points: list[SweepPoint], figures: Path) -> list[Path]:
    """Mean H-loss rate with its 95% interval per c; a point with no loss (0 on a log
    axis) as an open down-triangle at its 95% Poisson upper bound; an interval whose
    lower end is at or below 0 runs to the bottom edge (the caption says both)."""
    fig, ax = report.new_figure()
    shown = [p for p in points if p.lost_h > 0]
    floors = [p.loss_rate_h.mean - p.loss_rate_h.halfwidth for p in shown]
    tops = [_zero_loss_bound(p) for p in points if p.lost_h == 0]
    bottom = 0.3 * min([f for f in floors if f > 0] + [p.loss_rate_h.mean for p in shown] + tops)
    cs = sorted({p.c for p in points})
    for index, c in enumerate(cs):
        lost = sorted((p for p in shown if p.c == c), key=lambda p: p.servers)
        if not lost:
            continue
        means = np.array([p.loss_rate_h.mean for p in lost])
        lows = np.maximum(means - [p.loss_rate_h.halfwidth for p in lost], bottom)
        ax.errorbar(
            [p.servers for p in lost], means,
            yerr=[means - lows, [p.loss_rate_h.halfwidth for p in lost]],
            **level_style(index, len(cs)), markersize=3, capsize=2, label=f"$c={c:g}$",
        )  # fmt: skip
    # the bound depends on N only (same simulated time for every c): one marker per N
    zero = {p.servers: _zero_loss_bound(p) for p in points if p.lost_h == 0}
    if zero:
        ax.plot(list(zero), list(zero.values()), **series_style("bound"), markersize=5,
                markerfacecolor="none", label="no H loss: 95% bound")  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(bottom=bottom)
    ax.set_xlabel(f"servers ${notation.latex('servers')}$")
    ax.set_ylabel("H-loss rate of SSS$(c\\log N/N)$")
    outside_legend(ax, "right")
    return report.save_figure(fig, figures, "walks_window_sweep")


def _sweep_caption(points: list[SweepPoint]) -> str:
    """The figure's caption, saying which points are drawn as bounds and why."""
    zero = sorted((p for p in points if p.lost_h == 0), key=lambda p: (p.c, p.servers))
    open_low = [p for p in points if 0 < p.loss_rate_h.mean <= p.loss_rate_h.halfwidth]
    text = (
        "SSS H-loss rate against $N$ for each $c$ (replication means with 95\\% "
        "confidence intervals)."
    )
    if open_low:
        text += "  Intervals reaching 0 or below run to the bottom edge."
    if zero:
        where = "; ".join(
            f"$N = {_number_text(n)}$: $c \\in {_set_text([p.c for p in zero if p.servers == n])}$"
            for n in sorted({p.servers for p in zero})
        )
        text += (
            f"  No H job was lost at {where}.  A rate of 0 has no place on the log axis, so "
            "these are drawn as open triangles at the one-sided 95\\% Poisson upper bound "
            "$-\\log(0.05)/T$ on the rate ($T$: the simulated time after warm-up over the "
            "replications, the same for every $c$ at a given $N$)."
        )
    return text


def _constants_text() -> str:
    theta = math.log(DEFAULT.mu / DEFAULT.lambda_h)
    drift_only = 1 / (theta * (DEFAULT.mu - DEFAULT.lambda_h))
    return (
        "Constants for the window $W = c\\log N/N$ (Bray, arXiv:2601.14538, states none): "
        "the law of large numbers alone (the window's drift carrying the idle count to "
        "$y\\log N$ with ruin $N^{-y\\theta}$) would suggest "
        f"$c \\ge 1/(\\theta(\\mu-\\lambda_H)) = {drift_only:.2f}$; "
        "this package's Chernoff--coupling bound of the derivation above needs "
        f"$c \\ge c^* = {sss.critical_window_constant(DEFAULT):.2f}$; the busy-period "
        "heuristic of the decomposition section gives $1/(\\sqrt\\mu-\\sqrt{\\lambda_H})^2 = "
        f"{1 / (math.sqrt(DEFAULT.mu) - math.sqrt(DEFAULT.lambda_h)) ** 2:.2f}$.  Where the "
        "simulated loss rate stops growing is the claim "
        f"{claim_name_latex('walks.window_constant')}."
    )


def _number_text(value: float) -> str:
    """A number for claim text: powers of ten from 10^3 on as 10^{k}, others as %g."""
    k = round(math.log10(value)) if value > 0 else 0
    return f"10^{{{k}}}" if k >= 3 and value == 10**k else f"{value:g}"


def _set_text(values) -> str:
    return "\\{" + ", ".join(_number_text(v) for v in values) + "\\}"


def _bound_claim(name: str, statement: str, checks: list[BoundCheck], scope: str) -> list[Claim]:
    """The certified claim over the checks with a spec, and a numerical one over any
    check without a certified route (none at present)."""
    with_spec = [c for c in checks if c.spec is not None]
    done, certificate = certify.certify(with_spec, DEFAULT.lambda_h, DEFAULT.mu, DEFAULT.lambda_l)
    certified = sum(c.certified for c in done)
    hypotheses = (PARAMETERS, BAND)
    claims = [
        Claim(
            name=name,
            statement=statement + ", both sides enclosed in ball arithmetic at the exact "
            "parameters (upper bounds $\\ge$ the exact value, lower bounds $\\le$)",
            kind=Evidence.CERTIFIED,
            passed=bool(done) and certified == len(done),
            origin=Origin.PACKAGE,
            hypotheses=hypotheses,
            scope=f"{scope}; {len(done)} comparisons",
            quantity="comparisons certified",
            value=float(certified),
            reference=float(len(done)),
            certificate=certificate,
        )
    ]
    rest = [c for c in checks if c.spec is None]
    if rest:
        claims.append(
            Claim(
                name=f"{name}_float",
                statement=statement + " (float64 comparison)",
                kind=Evidence.NUMERICAL,
                passed=all(c.holds for c in rest),
                origin=Origin.PACKAGE,
                hypotheses=hypotheses,
                scope=f"{scope}; {len(rest)} comparisons",
                quantity="comparisons holding in float64",
                value=float(sum(c.holds for c in rest)),
                reference=float(len(rest)),
                reason="these checks carry no spec for qtheory.walks.certify",
            )
        )
    return claims


def _bounds_claims(checks: list[BoundCheck], servers: list[int]) -> list[Claim]:
    """walks.bounds (ruin, hitting, Chernoff and coupled tails) and
    walks.sss_failure_bound, both certified."""
    sss_checks = [c for c in checks if c.name == SSS_CHECK]
    others = [c for c in checks if c.name != SSS_CHECK]
    chernoff_servers = [n for n in servers if n <= CHERNOFF_LIMIT]
    return [
        *_bound_claim(
            "walks.bounds",
            "Every coupling, ruin, hitting-time and Chernoff bound of the checks table lies "
            "on its side of the exact value it bounds",
            others,
            f"$N \\in {_set_text(servers)}$, start levels $i \\in \\{{1, \\lfloor b/2 "
            "\\rfloor, b-1\\}$; window tails and coupled idle-process bounds for "
            f"$c \\in {_set_text(CHERNOFF_CONSTANTS)}$ and $N \\in {_set_text(chernoff_servers)}$",
        ),
        *_bound_claim(
            "walks.sss_failure_bound",
            "The SSS failure bound $B_1$ lies above the exact failure probability "
            "$\\varepsilon_h$ after an admission that leaves $h$ servers idle, for every "
            "$h = 1, \\dots, b-1$ (so above $\\sup_{h\\ge1}\\varepsilon_h$: "
            "$\\varepsilon_h = 0$ for $h \\ge b$), with $W = c\\log N/N$",
            sss_checks,
            f"$N \\in {_set_text(servers)}$, $c \\in {_set_text(SSS_CONSTANTS)}$ where $B_1 < 1$",
        ),
    ]


def _cost_claim(rates: list[RenewalReward], epoch_servers: list[int]) -> Claim:
    """walks.pfi_cost_bounded: finite-range, decided on the 95% intervals."""
    large = [(n, r.identity_cost) for n, r in zip(epoch_servers, rates, strict=True) if n >= 1000]
    # the largest spread the 95% intervals allow
    highest = max(e.mean + e.halfwidth for _, e in large)
    spread = highest - min(e.mean - e.halfwidth for _, e in large)
    low, high = large[0][0], large[-1][0]
    online_growth = leading_constant(DEFAULT) * math.log(high / low)
    return Claim(
        name="walks.pfi_cost_bounded",
        statement="PFI's identity cost $r_L\\mu\\bar I + (r_H - r_L)\\,$(H-loss rate) "
        "stays bounded in $N$: over this range its largest variation that the 95% "
        "confidence intervals allow is below 5% of the growth $c\\log(N_{\\max}/N_{\\min})$ "
        "of the online regret, $c = r_L\\mu/\\log(\\mu/\\lambda_H)$ (the identity cost is "
        "$R_{\\mathrm{fluid}} - R_{\\mathrm{PFI}}$ only up to the timing gain)",
        kind=Evidence.FINITE_RANGE,
        passed=bool(spread < 0.05 * online_growth),
        origin=Origin.PAPER,
        citation=f"{BRAY}, proofs of Theorems 1 and 2",
        hypotheses=(PARAMETERS, "clock information model (docs/information-models.md)"),
        scope=f"$N = {_number_text(low)}, \\dots, {_number_text(high)}$ ({len(large)} sizes), "
        "renewal reward over the "
        "epochs of one simulated PFI path per size",
        quantity="largest spread of the identity cost within its 95% intervals",
        value=spread,
        reference=online_growth,
        tolerance=0.05 * online_growth,
    )


def _window_claim(points: list[SweepPoint], grids: dict) -> Claim:
    """walks.window_constant: finite-range (the sweep's verdicts over its N range)."""
    measured = smallest_bounded_constant(points)
    bound = sss.critical_window_constant(DEFAULT)
    servers = sorted({p.servers for p in points})
    return Claim(
        name="walks.window_constant",
        statement="SSS with window $c\\log N/N$ has a bounded H-loss rate once $c$ is "
        "large enough; the smallest $c$ of the sweep from which on every $c$ is judged "
        "bounded (the 95% profile-likelihood interval of the exponent $s$ of a fit "
        f"rate $= A N^s$ allows only $s \\le {TOLERATED_GROWTH}$) is at most this package's "
        "Chernoff–coupling constant $c^*$",
        kind=Evidence.FINITE_RANGE,
        passed=bool(measured <= bound),
        origin=Origin.PACKAGE,
        hypotheses=(PARAMETERS, "clock information model (docs/information-models.md)"),
        scope=f"$N = {_number_text(servers[0])}, \\dots, {_number_text(servers[-1])}$ "
        f"({len(servers)} sizes), "
        f"$c \\in {_set_text(grids['cs'])}$, {grids['reps']} replications of "
        f"{grids['events']:.0e} events per point",
        quantity="smallest $c$ from which on the H-loss rate is bounded",
        value=measured,
        reference=bound,
    )


def steps(run: Run) -> Iterator[tuple[str, Callable[[], list[Path]]]]:
    """The named steps that write this part's outputs; claims go to ``run.claims``.

    Parameters
    ----------
    run : qtheory.report.run.Run
        The reproduce run (output folder, seed, quick mode, cluster, claims).

    Yields
    ------
    tuple of (str, callable)
        A step's name and the function that writes its files (returning their paths).

    References
    ----------
    .. [1] J. Bray, arXiv:2601.14538 (2026), proofs of Theorems 1 and 2;
       docs/loss-network.md.

    Examples
    --------
    >>> from qtheory.report.run import Run
    >>> run = Run(".", quick=True)
    >>> [name for name, _ in steps(run)][:2]
    ['walks: bounds against the exact CTMC', 'walks: ruin figure']
    """
    derivations, figures = run.out / "derivations", run.out / "figures"
    grids = _grids(run.size)
    state: dict = {}

    def exact() -> list[Path]:
        state["checks"] = _exact_checks(grids["exact"])
        state["bound_claims"] = _bounds_claims(state["checks"], grids["exact"])
        return []

    def epochs() -> list[Path]:
        state["epochs"] = _pfi_epochs(run, grids["epochs"], grids["events"])
        return _epoch_figure(state["epochs"], figures)

    def sweep() -> list[Path]:
        state["points"] = _sweep(run, grids)
        return _sweep_figure(state["points"], figures)

    def section() -> list[Path]:
        epochs_text, rates = _epochs_table(state["epochs"])
        bound_claims = state["bound_claims"]
        cost, window = _cost_claim(rates, grids["epochs"]), _window_claim(state["points"], grids)
        run.claims.extend([*bound_claims, cost, window])
        body = "\n\n".join([
            _derivation(),
            _checks_table(state["checks"], grids["exact"]),
            _pointwise_table(state["checks"], grids["exact"]),
            *(claim_paragraph(c) for c in bound_claims),
            report.figure("walks_ruin", "Ruin probability of the reject-all-L idle process "
                          "and of its two coupled walks (up-probabilities $p_b$ and "
                          "$p_\\infty$) at $N = 1000$, $b = "
                          f"{IdleWalk(1000, DEFAULT.lambda_h, DEFAULT.mu).band}$, for start "
                          "levels $0 \\le i < b$ (at $i = b$ every one is 0, which the log "
                          "axis cannot show).", "fig:walks-ruin"),
            epochs_text,
            report.figure("walks_epochs", "Empirical tail of PFI's epoch lengths (between "
                          "entrances of the idle count into 1, clock model), scaled by $N$, "
                          "one line per $N$.", "fig:walks-epochs"),
            claim_paragraph(cost),
            _sweep_table(state["points"], grids["cs"]),
            _constants_text(),
            report.figure("walks_window_sweep", _sweep_caption(state["points"]), "fig:walks-sweep"),
            claim_paragraph(window),
        ])  # fmt: skip
        text = report.section("Random walks behind PFI and SSS", body, label="sec:walks")
        return [report.write_text(derivations / "walks.tex", text)]

    yield "walks: bounds against the exact CTMC", exact
    yield "walks: ruin figure", lambda: _ruin_figure(figures)
    yield "walks: PFI epochs", epochs
    yield "walks: SSS window sweep", sweep
    yield "walks: section", section
