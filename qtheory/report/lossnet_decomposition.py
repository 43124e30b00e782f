r"""The regret-decomposition part of ``qtheory reproduce`` (Bray, arXiv:2601.14538).

Sweeps N on a log grid for three parameter sets (:data:`PARAMETER_SETS`) in the
``clock`` information model (offline DP, PFI, SSS(c log N / N) for each c, trunk
reservation at k*), in the ``job`` model (offline LP, trunk reservation, the
duration-aware bound) and, for set A at small N, the rolling-horizon lookahead policy,
through :func:`qtheory.lossnet.decomposition.run_designs`: one
executor (``make_executor(run.cluster)``: a local process pool, or a Dask cluster) and
an on-disk :class:`~qtheory.core.cache.ResultCache`, so a rerun computes only missing
replications.  It writes ``derivations/lossnet_decomposition.tex`` (the decomposition
tables, the fitted slopes, the lookahead and rolling-horizon tables, the job-model tables
and the claims) and two figures, and appends the claims to ``run.claims``.

Sizes (:func:`plan`): the quick run takes N in {10, 30, 100, 300, 1000} with short
windows (about 15 s on two cores); the full run takes ten N from 10 to 10^4 with windows
and replications chosen to keep the 95% half-widths of C_vol near 0.3 and those of
C_long below 0.1.  Measured for the full run on this two-core machine, shared with other
jobs: 25 minutes for the clock and job models (the offline DP at N = 10^4 dominates)
and 2 minutes for the rolling-horizon policy; C_vol's half-widths reached 0.29 (sets A
and B) and 0.45 (set C, N >= 4642), C_long's 0.08.

Seeds: the replications at one point (information model, parameter set, N) use the root
seed ``run.seed_sequence(f"lossnet.decomposition/{info}/{set}/N={N}")`` reduced to one
32-bit integer, so each point's stream depends only on ``run.seed`` and the point.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from matplotlib import ticker

from qtheory import report
from qtheory.core import notation
from qtheory.core.claims import Claim
from qtheory.lossnet.designs import (
    ClockDecomposition,
    JobDecomposition,
    RollingHorizonResult,
)
from qtheory.model.lossnet import LossNetwork
from qtheory.report.claims import claims_section
from qtheory.report.decomposition_claims import decomposition_claims
from qtheory.report.lossnet_decomposition_sweep import (
    Plan,
    Sweep,
    lookahead_threshold,
    plan,
    sweep,
)
from qtheory.report.plots import level_style, outside_legend, series_style

if TYPE_CHECKING:
    from qtheory.report.run import Run

__all__ = [
    "decomposition_figure",
    "decomposition_steps",
    "steps",
]

# ------------------------------------------------------------------- LaTeX


def _fit_cell(fit) -> report.Latex:
    return report.estimate(fit.slope)


def _network_latex(net: LossNetwork) -> str:
    return (
        f"$\\lambda_H={net.lambda_h:g}$, $\\lambda_L={net.lambda_l:g}$, $\\mu={net.mu:g}$, "
        f"$r_H={net.r_h:g}$, $r_L={net.r_l:g}$"
    )


def _intro(sizes: Plan) -> str:
    return "\n".join(
        [
            "Bray decomposes the regret of the online optimum as",
            report.equation(
                "R_{\\mathrm{fluid}} - R_{\\mathrm{on}}",
                r"\underbrace{R_{\mathrm{fluid}} - R_{\mathrm{off}}}_{C_{\mathrm{vol}}}"
                r" + \underbrace{R_{\mathrm{off}} - R_W}_{C_{\mathrm{long}}}"
                r" + \underbrace{R_W - R_{\mathrm{on}}}_{C_{\mathrm{short}}}",
                label="eq:lossnet-decomposition",
            ),
            "and claims $C_{\\mathrm{vol}}=O(1)$, $C_{\\mathrm{long}}=O(1)$ for a lookahead "
            "$W\\ge c\\log N/N$, hence $C_{\\mathrm{short}}=\\Theta(\\log N)$.  In the "
            "\\emph{clock} "
            "information model (arrival streams and a uniformised departure clock; the "
            "offline optimum is an exact dynamic programme over the path) we simulate, on "
            "common paths, the offline optimum, PFI, SSS($W$) with $W=c\\log N/N$ and trunk "
            "reservation at the exact optimal reserve $k^*$, whose exact mean "
            "$R_{\\mathrm{on}}$ makes "
            "it a control variate.  Per path, $\\hat C_{\\mathrm{vol}} = "
            "(R_{\\mathrm{fluid}}-R_{\\mathrm{on}}) - "
            "(R_{\\mathrm{off}}-R_{k^*})$, $\\hat C^{+}_{\\mathrm{long}} = "
            "R_{\\mathrm{off}}-R_{\\mathrm{SSS}}\\ge C_{\\mathrm{long}}$ and "
            "$\\hat C^{-}_{\\mathrm{short}} = R_{\\mathrm{SSS}}-R_{k^*}$, an unbiased estimate of "
            "$R_{\\mathrm{SSS}}-R_{\\mathrm{on}}\\le C_{\\mathrm{short}}$; the three add up to "
            "the exact regret on every "
            "path.  Intervals are 95\\% Student $t$ intervals over replications.  Every run "
            f"starts empty; statistics are taken after a warm-up $T_0={sizes.warmup:g}$ "
            "(window lengths and replications in the captions).  The offline optimum knows "
            "the run ends at $T$, an end bonus of about one unit of reward in total: "
            "$\\hat C_{\\mathrm{vol}}$ is biased down and $\\hat C^{+}_{\\mathrm{long}}$ up by "
            "about "
            "$1/(T-T_0)$.",
            "",
            "A heuristic of ours (not the paper's) locates the constant.  SSS admits an L "
            "job unless the reject-all-L idle walk (up rate $\\approx\\mu N$, down rate "
            "$\\lambda_H N$ near full) hits 0 within $W$; an admission whose walk hits 0 "
            "only later costs an H job.  Conditioned on reaching 0, that first passage is "
            "the busy period of an M/M/1 queue (arrival rate $\\lambda_H N$, service rate "
            "$\\mu N$), whose tail is about "
            "$t^{-3/2}e^{-N(\\sqrt{\\mu}-\\sqrt{\\lambda_H})^2 t}$; with $\\Theta(N)$ "
            "admissions per unit time, $R_{\\mathrm{off}}-R_{\\mathrm{SSS}}$ exceeds its $O(1)$ "
            "floor by about "
            "$N^{1-c/c^*}(c\\log N)^{-3/2}$: growth for $c<c^*$, and a flattening that the "
            "polynomial factor moves well below $c^*$ at moderate $N$, where",
            report.equation(
                "c^*", r"\frac{1}{(\sqrt{\mu}-\sqrt{\lambda_H})^2}.", label="eq:lossnet-cstar"
            ),
        ]
    )


def _sizes_text(
    points: Sequence[ClockDecomposition | JobDecomposition | RollingHorizonResult],
) -> str:
    """``windows T' = a to b, R1 to R2 replications`` of the points."""
    windows = sorted({p.horizon - p.warmup for p in points})
    reps = sorted({p.reps for p in points})
    span = lambda v: f"{v[0]:g}" if len(v) == 1 else f"{v[0]:g} to {v[-1]:g}"  # noqa: E731
    return f"windows $T-T_0$ of {span(windows)}, {span(reps)} replications"


def _decomposition_table(result: Sweep) -> str:
    c = result.fits.table_c
    rows = [
        [
            p.servers,
            p.reserve,
            p.regret,
            report.estimate(p.c_vol),
            report.estimate(p.at(c).c_long),
            report.estimate(p.at(c).c_short),
            report.estimate(p.pfi_gap),
            report.estimate(p.offline_idle),
        ]
        for p in result.clock
    ]
    return report.table(
        [
            "$N$",
            "$k^*$",
            "regret",
            "$C_{\\mathrm{vol}}$",
            "$C^{+}_{\\mathrm{long}}$",
            "$C^{-}_{\\mathrm{short}}$",
            "$R_{\\mathrm{off}}-R_{\\mathrm{PFI}}$",
            "idle (off)",
        ],
        rows,
        caption=f"Regret decomposition, clock model, set {result.label} "
        f"({_network_latex(result.net)}): exact regret "
        f"$R_{{\\mathrm{{fluid}}}}-R_{{\\mathrm{{on}}}}$, and "
        f"estimates with 95\\% intervals; SSS at $W = {c:g}\\log N/N$; the last column is "
        f"the offline optimum's mean number of idle servers; {_sizes_text(result.clock)}.",
        label=f"tab:lossnet-decomposition-{result.label}",
        formats={2: ".3f"},
    )


def _fits_table(sweeps: Sequence[Sweep]) -> str:
    rows = []
    for s in sweeps:
        f = s.fits
        bounded = f.bounded_from
        rows.append(
            [
                s.label,
                f.leading_constant,
                _fit_cell(f.regret),
                _fit_cell(f.c_vol),
                report.Latex(f"${f.c_vol.chi2_dof:.2f}$"),
                _fit_cell(f.c_long_at(f.table_c)),
                _fit_cell(f.c_short),
                report.Latex("--" if math.isnan(bounded) else f"${bounded:g}$"),
            ]
        )
    stars = ", ".join(f"{lookahead_threshold(s.net):.1f} ({s.label})" for s in sweeps)
    return report.table(
        [
            "set",
            "$c$",
            "regret",
            "$C_{\\mathrm{vol}}$",
            notation.math("chi2_per_df"),
            "$C^{+}_{\\mathrm{long}}$",
            "$C^{-}_{\\mathrm{short}}$",
            "flat from",
        ],
        rows,
        caption="Slopes on $\\log N$ ($N\\ge "
        f"{sweeps[0].fits.min_servers}$) with 95\\% intervals.  Regret: ordinary least "
        "squares on exact values, to compare with $c=r_L\\mu/\\log(\\mu/\\lambda_H)$.  "
        "The others: least squares weighted by $1/\\mathrm{se}^2$, the slope variance "
        f"scaled by $\\max(1,{notation.latex('chi2_per_df')})$; $C^{{\\pm}}$ at the largest "
        "lookahead constant.  "
        "``Flat from'': the smallest lookahead constant from which on every fitted "
        "$C^{+}_{\\mathrm{long}}$ slope interval contains 0 or lies below it; compare the "
        "heuristic "
        f"$c^*$ of \\eqref{{eq:lossnet-cstar}}: {stars}.",
        label="tab:lossnet-decomposition-fits",
        formats={1: ".4f"},
    )


def _fits_text(sweeps: Sequence[Sweep]) -> str:
    """The fitted slopes in words: where C_vol lies and how its slope compares with the
    regret's, and how much of the regret slope the lower estimate of C_short carries."""
    parts = []
    for s in sweeps:
        f = s.fits
        vol = [p.c_vol.mean for p in s.clock if p.servers >= f.min_servers]
        parts.append(
            f"set {s.label}: $\\hat C_{{\\mathrm{{vol}}}}\\in[{min(vol):.2f}, {max(vol):.2f}]$, "
            "slope "
            f"{f.c_vol.slope.mean / f.regret.slope.mean:+.0%} of the regret's; "
            f"$\\hat C^-_{{\\mathrm{{short}}}}$ slope "
            f"{f.c_short.slope.mean / f.leading_constant:.0%} "
            "of $c$"
        )
    return (
        f"Over $N\\ge{sweeps[0].fits.min_servers}$: " + "; ".join(parts) + ".  A slope "
        "interval containing 0 only says that no growth is detected over this range of "
        "$N$; a term that approaches a limit from below still has a positive slope on a "
        "finite range, and its interval then contains 0 only if the approach is slow "
        "compared with the noise."
    ).replace("%", "\\%")


def _lookahead_table(result: Sweep) -> str:
    top = result.clock[-1]
    rows = [
        [
            point.c,
            point.window,
            report.estimate(point.c_long),
            report.estimate(point.c_short),
            _fit_cell(fit),
        ]
        for point, (_, fit) in zip(top.lookahead, result.fits.c_long, strict=True)
    ]
    return report.table(
        [
            "$c$",
            "$W$",
            "$C^{+}_{\\mathrm{long}}$",
            "$C^{-}_{\\mathrm{short}}$",
            "slope of $C^{+}_{\\mathrm{long}}$",
        ],
        rows,
        caption=f"The lookahead curve, set {result.label}, clock model: estimates at "
        f"$N={top.servers}$ for $W=c\\log N/N$, and the slope of $C^{{+}}_{{\\mathrm{{long}}}}$ on "
        f"$\\log N$ over $N\\ge{result.fits.min_servers}$ (95\\% intervals).  For "
        f"comparison $R_{{\\mathrm{{off}}}}-R_{{\\mathrm{{PFI}}}} = {top.pfi_gap.mean:.2f}\\pm"
        f"{top.pfi_gap.halfwidth:.2f}$ at this $N$.",
        label=f"tab:lossnet-lookahead-{result.label}",
        formats={0: "g", 1: ".4g"},
    )


def _job_table(result: Sweep) -> str:
    clock = {p.servers: p for p in result.clock}
    rows = [
        [
            j.servers,
            report.estimate(j.offline, scale=j.servers),
            report.estimate(j.offline_minus_fluid, scale=j.servers),
            report.estimate(j.duration_gap, scale=j.servers),
            report.estimate(j.window_gap, scale=j.servers),
            report.estimate(clock[j.servers].c_vol.negated()) if j.servers in clock else None,
        ]
        for j in result.job
    ]
    # one entry per window and printed bound: bounds of different N that agree to the
    # printed digits are listed once, whatever their last bits
    windows = ", ".join(
        dict.fromkeys(
            f"{b:.4f} ($T'={t:g}$)"
            for t, b in sorted(
                (j.horizon - j.warmup, j.window_bound / j.servers) for j in result.job
            )
        )
    )
    top = result.job[0]
    return report.table(
        [
            "$N$",
            "$R_{\\mathrm{off}}/N$",
            "$(R_{\\mathrm{off}}-R_{\\mathrm{fluid}})/N$",
            "$v - R_{\\mathrm{off}}/N$",
            "$\\frac{E D_{\\theta^*}}{NT'} - \\frac{R_{\\mathrm{off}}}{N}$",
            "clock: $-C_{\\mathrm{vol}}$",
        ],
        rows,
        caption=f"Job model, set {result.label} ({_network_latex(result.net)}): the offline "
        "optimum (min-cost-flow LP, control variate $D_{\\theta^*}$) per server, against "
        f"the ordinary fluid bound $R_{{\\mathrm{{fluid}}}}/N = {top.fluid / top.servers:.4f}$, "
        "the "
        f"duration-aware fluid bound $v = {top.duration_bound / top.servers:.4f}$ and its "
        "rigorous finite-window form $E D_{\\theta^*}/(NT')$, which includes the end "
        f"effect: {windows}; {_sizes_text(result.job)}.  The last column is the clock "
        "model's $R_{\\mathrm{off}}-R_{\\mathrm{fluid}}=-C_{\\mathrm{vol}}$ (not per server).",
        label=f"tab:lossnet-job-{result.label}",
    )


def _rolling_table(result: Sweep) -> str:
    rows = [
        [
            r.servers,
            p.c,
            p.window,
            report.estimate(p.c_long),
            report.estimate(p.sss_c_long),
            report.estimate(p.gain_over_sss),
            report.estimate(p.c_short),
        ]
        for r in result.rolling
        for p in r.points
    ]
    return report.table(
        [
            "$N$",
            "$c$",
            "$W$",
            "$R_{\\mathrm{off}}-R_{\\mathrm{RH}}$",
            "$R_{\\mathrm{off}}-R_{\\mathrm{SSS}}$",
            "$R_{\\mathrm{RH}}-R_{\\mathrm{SSS}}$",
            "$R_{\\mathrm{RH}}-R_{\\mathrm{on}}$",
        ],
        rows,
        caption=f"The rolling-horizon $W$-lookahead policy RH, set {result.label}, clock "
        "model: at each L arrival, the exact dynamic programme over the path's events in "
        "the next $W=c\\log N/N$ time units with the online optimum's relative values as "
        "terminal values.  RH sees no further than SSS, so $R_{\\mathrm{off}}-R_{\\mathrm{RH}}$ "
        "is an upper "
        "estimate of $C_{\\mathrm{long}}$ and $R_{\\mathrm{RH}}-R_{\\mathrm{on}}$ a lower "
        "estimate of $C_{\\mathrm{short}}$ (95\\% "
        f"intervals; {_sizes_text(result.rolling)}).",
        label=f"tab:lossnet-rolling-{result.label}",
        formats={1: "g", 2: ".4g"},
    )


def _ordering_text(sweeps: Sequence[Sweep]) -> str:
    """Where R_fluid >= R_off holds, in words computed from the results."""
    clock = [p for s in sweeps for p in s.clock]
    above = sum(p.c_vol.mean - p.c_vol.halfwidth > 0 for p in clock)
    below = sum(p.c_vol.mean + p.c_vol.halfwidth < 0 for p in clock)
    jobs = [j for s in sweeps for j in s.job]
    exceed = sum(j.offline_minus_fluid.mean - j.offline_minus_fluid.halfwidth > 0 for j in jobs)
    dual = all(j.min_dual_slack >= 0 for j in jobs)
    lines = [
        f"set {s.label}: "
        + " and ".join(
            f"{100 * j.offline_minus_fluid.mean / j.fluid:.1f}\\% at $N={j.servers}$"
            for j in (s.job[0], s.job[-1])
        )
        for s in sweeps
    ]
    return (
        "Where the ordering $R_{\\mathrm{fluid}}\\ge R_{\\mathrm{off}}$ holds.  Clock model: "
        f"$\\hat C_{{\\mathrm{{vol}}}}$ is significantly positive at {above} of the "
        f"{len(clock)} points "
        f"and significantly negative at {below}.  Job model, where the offline policy sees "
        "every service time and can prefer short jobs: $R_{\\mathrm{off}}$ exceeds "
        "$R_{\\mathrm{fluid}}$ "
        f"significantly at {exceed} of the {len(jobs)} points, by a fraction of "
        "$R_{\\mathrm{fluid}}$ of (" + "; ".join(lines) + "); the right upper "
        "bound there is the duration-aware bound, and the offline reward lies below the "
        "path-wise dual bound $D_{\\theta^*}$ on "
        + ("every path." if dual else "\\emph{not} every path (a violation of weak duality).")
        + "  Over a finite window $R_{\\mathrm{off}}$ can exceed $Nv$ itself: jobs arriving "
        "shortly before $T$ use no capacity after $T$, an end effect of order $N/T'$ that "
        "$E D_{\\theta^*}/(NT')$ includes."
    )


def _section(sweeps: Sequence[Sweep], sizes: Plan, claims: list[Claim]) -> str:
    parts = [_intro(sizes)]
    parts += [_decomposition_table(s) for s in sweeps]
    parts += [_fits_table(sweeps), _fits_text(sweeps), _lookahead_table(sweeps[0])]
    parts += [_rolling_table(s) for s in sweeps if s.rolling]
    parts += [_ordering_text(sweeps)] + [_job_table(s) for s in sweeps]
    parts += [
        report.figure(
            "lossnet_decomposition",
            f"The decomposition against $N$, set {sweeps[0].label}, clock model: the "
            "estimates of $C_{\\mathrm{vol}}$, $C^{+}_{\\mathrm{long}}$ and "
            "$C^{-}_{\\mathrm{short}}$ with 95\\% intervals (SSS at the largest lookahead "
            "constant) and the exact regret.",
            "fig:lossnet-decomposition",
        ),
        report.figure(
            "lossnet_lookahead",
            f"The lookahead curve, set {sweeps[0].label}: "
            f"$R_{{\\mathrm{{off}}}}-R_{{\\mathrm{{SSS}}(W)}}$ against "
            "$c$ for $W=c\\log N/N$ at the three largest $N$ (95\\% intervals); the "
            "horizontal line is $R_{\\mathrm{off}}-R_{\\mathrm{PFI}}$ at the largest $N$, "
            "the vertical dotted line the heuristic $c^*$.",
            "fig:lossnet-lookahead",
        ),
        "\\subsection*{Claims about the regret decomposition, as checked}",
    ]
    return claims_section(
        "The regret decomposition of the loss network", "sec:lossnet-decomposition", parts, claims
    )


# ------------------------------------------------------------------ figures


def decomposition_figure(result, figures: Path, stem: str) -> list[Path]:
    """C_vol, C_long⁺ and C_short⁻ (with their 95% intervals) and the exact regret over N,
    for one sweep of two or n classes, saved as ``figures/STEM.{pdf,png}``.

    Parameters
    ----------
    result : Sweep
        A sweep (``clock`` points and ``fits``).
    figures : pathlib.Path
        The figures folder.
    stem : str
        The file name without suffix.

    Returns
    -------
    list of pathlib.Path
        The files written.

    Examples
    --------
    >>> callable(decomposition_figure)  # drawn by the reproduce step of each section
    True
    """
    fig, ax = report.new_figure()
    c = result.fits.table_c
    n = np.array([p.servers for p in result.clock], dtype=float)
    series = [
        ("$C_{\\mathrm{vol}}$", [p.c_vol for p in result.clock], "C_vol"),
        (
            f"$C^{{+}}_{{\\mathrm{{long}}}}$ ($c={c:g}$)",
            [p.at(c).c_long for p in result.clock],
            "C_long",
        ),
        (
            f"$C^{{-}}_{{\\mathrm{{short}}}}$ ($c={c:g}$)",
            [p.at(c).c_short for p in result.clock],
            "C_short",
        ),
    ]
    with report.paper_style():
        for label, estimates, key in series:
            ax.errorbar(
                n,
                [e.mean for e in estimates],
                yerr=[e.halfwidth for e in estimates],
                **series_style(key),
                capsize=2,
                markersize=3,
                label=label,
            )
        exact = series_style("exact") | {"marker": ""}
        ax.semilogx(n, [p.regret for p in result.clock], **exact, label="regret (exact)")
        ax.set_xlabel("servers $N$")
        ax.set_ylabel("reward per unit time")
        outside_legend(ax, "right")
    return report.save_figure(fig, figures, stem)


def _lookahead_figure(result: Sweep, figures: Path) -> list[Path]:
    fig, ax = report.new_figure()
    top = result.clock[-1]
    shown = result.clock[-3:]
    with report.paper_style():
        for index, point in enumerate(shown):
            ax.errorbar(
                [q.c for q in point.lookahead],
                [q.c_long.mean for q in point.lookahead],
                yerr=[q.c_long.halfwidth for q in point.lookahead],
                **level_style(index, len(shown)),
                capsize=2,
                markersize=3,
                label=f"$N={point.servers}$",
            )
        gap = f"${notation.latex('R_off')} - {notation.latex('R_PFI')}$, $N={top.servers}$"
        ax.axhline(top.pfi_gap.mean, **series_style("PFI") | {"marker": ""}, label=gap)
        ax.axvline(lookahead_threshold(result.net), **series_style("c*"), label="$c^*$")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        plain = ticker.StrMethodFormatter("{x:g}")  # 1, 2, 10, not 1.0, 10.0
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(ticker.NullFormatter())
        ax.xaxis.set_major_formatter(plain)
        ax.set_xlabel("lookahead constant $c$ ($W = c\\log N/N$)")
        ax.set_ylabel(f"${notation.latex('R_off')} - {notation.latex('R_SSS')}$")
        outside_legend(ax, "right")
    return report.save_figure(fig, figures, "lossnet_lookahead")


def decomposition_steps(
    run: Run,
    sizes: Plan,
    name: str,
    stems: tuple[str, str],
    section: Callable[[list[Sweep]], tuple[list[Claim], str]],
    lookahead: Callable[[list[Sweep], Path], list[Path]],
) -> Iterator[tuple[str, Callable[[], list[Path]]]]:
    """The four steps of a decomposition report, two classes or n: the sweep of
    ``sizes`` (:func:`~qtheory.report.lossnet_decomposition_sweep.sweep`), the section
    (``derivations/STEM.tex``: ``section(sweeps)`` gives its claims, which go to
    ``run.claims``, and its text), the decomposition figure of the first parameter set
    and the lookahead figure (``lookahead(sweeps, figures)``), named ``NAME: sweep``,
    ``NAME: tables and claims``, ``NAME: figure`` and ``NAME: lookahead figure``;
    ``stems`` are the file stems of the section and of the decomposition figure.
    Nothing runs until a step is called, and the steps share the sweep's results.

    Parameters
    ----------
    run : qtheory.report.run.Run
        The run context; outputs go below ``run.out``, claims to ``run.claims``.
    sizes : Plan
        The sweep's parameter sets and sizes.
    name : str
        The prefix of the step names.
    stems : (str, str)
        The file stems of the section (``derivations/``) and of the decomposition
        figure (``figures/``).
    section : callable
        ``section(sweeps)`` -> (claims, LaTeX of the section).
    lookahead : callable
        ``lookahead(sweeps, figures)`` -> the paths of the lookahead figure.

    Yields
    ------
    (str, callable)
        The step's name and a function of no arguments returning the paths it wrote.

    Examples
    --------
    >>> from qtheory.report.run import Run
    >>> steps_ = decomposition_steps(Run("build", quick=True), plan("quick"), "demo",
    ...                              ("demo", "demo"), None, None)
    >>> [name for name, _ in steps_]  # doctest: +NORMALIZE_WHITESPACE
    ['demo: sweep', 'demo: tables and claims', 'demo: figure', 'demo: lookahead figure']
    """
    derivations, figures = run.out / "derivations", run.out / "figures"
    tex, figure = stems
    sweeps: list[Sweep] = []

    def compute() -> list[Path]:
        sweeps.extend(sweep(run, sizes))
        return []

    def tables() -> list[Path]:
        claims, text = section(sweeps)
        run.claims.extend(claims)
        return [report.write_text(derivations / f"{tex}.tex", text)]

    yield f"{name}: sweep", compute
    yield f"{name}: tables and claims", tables
    yield f"{name}: figure", lambda: decomposition_figure(sweeps[0], figures, figure)
    yield f"{name}: lookahead figure", lambda: lookahead(sweeps, figures)


def steps(run: Run) -> Iterator[tuple[str, Callable[[], list[Path]]]]:
    """The named steps that write this part's outputs (each returns the files written);
    the claim records go to ``run.claims``.

    The steps are, in order: the sweep
    (:func:`~qtheory.report.lossnet_decomposition_sweep.sweep`), the tables and claims
    (``derivations/lossnet_decomposition.tex``), and two figures
    (``figures/lossnet_decomposition`` and ``figures/lossnet_lookahead``, PDF and PNG).
    Nothing runs until a step is called.

    Parameters
    ----------
    run : qtheory.report.run.Run
        The run context; outputs go below ``run.out``.

    Yields
    ------
    (str, callable)
        The step's name and a function of no arguments returning the list of paths it
        wrote.

    Examples
    --------
    >>> from qtheory.report.run import Run
    >>> [name for name, _ in steps(Run("build", quick=True))]  # doctest: +NORMALIZE_WHITESPACE
    ['lossnet decomposition: sweep', 'lossnet decomposition: tables and claims',
     'lossnet decomposition: figure', 'lossnet decomposition: lookahead figure']
    """
    sizes = plan(run.size)

    def section(sweeps: list[Sweep]) -> tuple[list[Claim], str]:
        claims = [claim for s in sweeps for claim in decomposition_claims(s)]
        return claims, _section(sweeps, sizes, claims)

    return decomposition_steps(
        run, sizes, "lossnet decomposition",
        ("lossnet_decomposition", "lossnet_decomposition"),
        section, lambda sweeps, figures: _lookahead_figure(sweeps[0], figures),
    )  # fmt: skip
