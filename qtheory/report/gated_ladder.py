r"""The value of memory: the ``qtheory reproduce`` section on the ladder of admission
rules for the unobservable M/M/1 queue.

For the same parameters, rung by rung: random routing (no memory), gates whose blocking
period is Erlang with m phases (the gate's state: open, or closed in one of its m
phases; no clock, :mod:`qtheory.gated.phase_gates`), the deterministic gate GA (the
source paper's one-bit rule, open or closed, with a clock that times the gate; the
limit m → ∞ of the Erlang gates), the best gate policy that remembers every admission
time (bracketed, :mod:`qtheory.gated.history`) and Naor's observable queue
(:mod:`qtheory.gated.observable`), and GA against RR when service is phase-type
(:mod:`qtheory.gated.service`).  The section states the Erlang-m root
equation, tabulates PoF(m) and the share of GA's gain each m recovers, typesets the
ladder for three (ν, Λ) pairs with every rung's evidence, and reports the claims.

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026) (GA, RR and the Price of Forgetting).
.. [2] P. Naor, "The regulation of queue size by levying tolls", Econometrica
   37(1):15-24 (1969) (the observable queue).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import sympy as sp

from qtheory import report
from qtheory.gated.history import history_claims
from qtheory.gated.ladder import ladder
from qtheory.gated.observable import observable_claims
from qtheory.gated.phase_gate_claims import phase_gate_claims
from qtheory.gated.phase_gates import derive_erlang_gate, pof_by_phases
from qtheory.gated.service import price_of_forgetting_ph
from qtheory.gated.service_claims import service_claims
from qtheory.model.gated import GatedQueue
from qtheory.report.claims import claims_section, latex_text
from qtheory.report.display import PRINT, DisplayForm, add, frac, mul
from qtheory.report.latex import Latex
from qtheory.report.plots import integer_ticks, level_style, outside_legend, series_style

if TYPE_CHECKING:
    from qtheory.report.run import Run

__all__ = ["display_forms", "steps"]

#: (ν, Λ) of the PoF(m) table and figure (μ = C = 1).
POF_PAIRS = (("1.5", "inf"), ("2", "inf"), ("5", "inf"), ("2", "3"), ("5", "2"))
#: (ν, Λ) of the ladder tables (μ = C = 1).
LADDER_PAIRS = (("2", "inf"), ("2", "3"), ("5", "2"))
#: Service laws of the phase-type service table (mean 1/μ), by squared coefficient of
#: variation: Erlang-4 (1/4), exponential (1), balanced H2 (4 and 16).
SERVICES = ("erlang:4", "exponential", "hyperexp:4", "hyperexp:16")
#: (ν, Λ) of the phase-type service table.
SERVICE_PAIRS = (("2", "inf"), ("4", "2"))
#: Rung name -> its label in the ladder table.
RUNG_LABELS = {
    "rr": "random routing (no memory)",
    "ga": "deterministic gate GA",
    "full_memory_lower": "full memory, lower bound",
    "full_memory_upper": "full memory, upper bound",
    "observable": "observable queue (Naor)",
}


def _phases(size: str) -> tuple[int, ...]:
    if size == "quick":
        return (1, 2, 4, 8, 16)
    if size == "paper":
        return tuple(range(1, 65))
    return (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)


def _queue(nu: str, arrival: str) -> GatedQueue:
    return GatedQueue(arrival, "1", nu, "1")


def _pair_tex(nu: str, arrival: str) -> str:
    lam = r"\infty" if arrival == "inf" else arrival
    return f"$\\nu = {nu}$, $\\Lambda = {lam}$"


def display_forms() -> dict[str, DisplayForm]:
    """The section's formulas as printed, next to the derivation's expressions.

    Returns
    -------
    dict of str to qtheory.report.display.DisplayForm
        ``"erlang_gate"``: the mean Erlang-m gate with root e^{−w},
        τ_m = (m/u)(e^{(w − log(1 + βu))/m} − 1) with u = μ(1 − e^{−w}).

    Examples
    --------
    >>> from qtheory.report.display import difference
    >>> difference(display_forms()["erlang_gate"])
    0
    """
    formulas = derive_erlang_gate()
    derived = formulas.gate_of_root
    symbols = {s.name: s for s in derived.free_symbols}
    w, mu, beta, m = symbols["w"], symbols["mu"], symbols["beta"], formulas.phases
    u = sp.Symbol("u", positive=True)
    exponent = frac(add(w, -sp.log(add(1, mul(beta, u)))), m)
    display = mul(frac(m, u), add(sp.exp(exponent, evaluate=False), -1))
    return {"erlang_gate": DisplayForm(display, derived, {u: mu * (1 - sp.exp(-w))})}


def _derivation() -> str:
    formulas = derive_erlang_gate()
    gate = display_forms()["erlang_gate"]
    return "\n\n".join(
        [
            "A gate whose blocking period after each admission is Erlang with $m$ phases "
            r"and mean $\tau$ needs no clock: its state is whether it is open and, while "
            r"it is closed, which of its $m$ exponential phases it is in.  GA, the one-bit "
            r"rule of the source paper (the gate open or closed, timed by a clock), is its "
            r"limit $m \to \infty$.  Admitted inter-arrival "
            r"times are the gate plus an $\mathrm{Exp}(\Lambda)$ wait, so the queue is "
            r"GI/M/1 with transform $A^*(s) = (1 + s\tau/m)^{-m}\,\Lambda/(\Lambda + s)$ "
            r"and root $\sigma \in (0, 1)$ of",
            report.equation(
                formulas.root_equation.lhs, formulas.root_equation.rhs, label="eq:memory-root"
            ),  # fmt: skip
            r"Solved for the gate at $\sigma = e^{-w}$, with $u = \mu(1 - e^{-w})$ and "
            r"$\beta = 1/\Lambda$,",
            report.equation(r"\tau_m", sp.latex(gate.display, **PRINT), label="eq:memory-gate"),
            r"and the welfare $S_m = (R - C/u)/(\tau_m + \beta)$ is explicit in $w$.  "
            r"Sympy shows that $m = 1$ with $\Lambda = \infty$ is random routing (the "
            r"admitted stream is Poisson of rate $1/\tau$) and that $m \to \infty$ gives "
            r"GA's deterministic gate (claims below).",
        ]
    )


def _pof_rows(size: str) -> list[tuple[tuple[str, str], object]]:
    phases = _phases(size)
    return [(pair, pof_by_phases(_queue(*pair), phases)) for pair in POF_PAIRS]


def _pof_table(rows, size: str) -> str:
    shown = (1, 2, 4, 8, 16, 64) if size != "quick" else (1, 2, 4, 8, 16)
    header = [r"$\nu$", r"$\Lambda$", *(f"$m = {m}$" for m in shown), r"GA"]
    lines = []
    for (nu, arrival), table in rows:
        pof = dict(zip(table.phases, table.pof, strict=True))
        share = dict(zip(table.phases, table.share, strict=True))
        cells = [
            report.Latex(f"{pof[m]:.4f} ({_percent(share[m])})") if m in pof else None
            for m in shown
        ]
        lam = report.Latex(r"$\infty$") if arrival == "inf" else arrival
        lines.append([nu, lam, *cells, report.Latex(f"{table.pof_ga:.4f}")])
    return report.table(
        header,
        lines,
        caption=r"Price of Forgetting $\mathrm{PoF}(m) = S_m^*/S_{\mathrm{RR}}^*$ of the "
        r"optimal Erlang-$m$ gate ($\mu = C = 1$), and in parentheses the share "
        r"$(S_m^* - S_{\mathrm{RR}}^*)/(S_{\mathrm{GA}}^* - S_{\mathrm{RR}}^*)$ of GA's gain "
        r"over random routing that $m$ phases of memory recover.",
        label="tab:memory-pof",
        alignment="ll" + "r" * (len(shown) + 1),
        size="scriptsize",
    )


def _percent(share: float) -> str:
    return "--" if math.isnan(share) else f"{100 * share:.0f}\\%"


def _pof_figure(rows, figures: Path) -> list[Path]:
    fig, ax = report.new_figure()
    ax.axhline(1.0, **series_style("GA") | {"marker": ""}, label="GA (share 1)")
    for index, ((nu, arrival), table) in enumerate(rows):
        lam = r"\infty" if arrival == "inf" else arrival
        ax.semilogx(table.phases, table.share, **level_style(index, len(rows)), markersize=3,
                    label=f"$\\nu = {nu}$, $\\Lambda = {lam}$")  # fmt: skip
    integer_ticks(ax.xaxis)
    ax.set_xlabel("phases $m$ of the Erlang gate")
    ax.set_ylabel("share of GA's gain over RR")
    ax.set_ylim(0.0, 1.05)
    outside_legend(ax, "right")
    return report.save_figure(fig, figures, "memory_pof")


def _ladder_table(lad, pair: tuple[str, str]) -> str:
    rows = []
    for rung in lad.rungs():
        name = rung.name
        label = f"Erlang-{name[3:-1]} gate" if name.startswith("ph[") else RUNG_LABELS[name]
        if rung.welfare is None:
            rows.append([label, None, None, rung.kind, "not computed"])
            continue
        rows.append([label, rung.welfare, rung.pof, str(rung.kind), Latex(latex_text(rung.method))])
    caption = (
        f"The ladder of memory at {_pair_tex(*pair)}, $\\mu = C = 1$: each rule's optimal "
        "welfare rate $S$, its ratio to random routing, the kind of evidence and the "
        "method.  Naor's threshold is "
        f"$n^* = {lad.observable_threshold}$; the rungs increase up the ladder: "
        f"{'yes' if lad.ordered() else 'NO'}."
    )
    return report.table(
        ["rule", "$S$", r"$S/S_{\mathrm{RR}}^*$", "evidence", "method"],
        rows,
        caption=caption,
        label=f"tab:memory-ladder-{len(rows)}-{pair[0]}-{pair[1]}".replace(".", "_"),
        formats={1: ".6g", 2: ".5g"},
        alignment="lrrlp{0.42\\linewidth}",
        size="scriptsize",
    )


def _ladders() -> list[tuple[tuple[str, str], object]]:
    return [(pair, ladder(_queue(*pair), phases=(1, 2, 4, 8, 16))) for pair in LADDER_PAIRS]


def _service_table() -> str:
    rows = []
    for nu, arrival in SERVICE_PAIRS:
        queue = _queue(nu, arrival)
        lam = report.Latex(r"$\infty$") if arrival == "inf" else arrival
        rows.append([nu, lam, *(price_of_forgetting_ph(queue, s) for s in SERVICES)])
    return report.table(
        [
            r"$\nu$",
            r"$\Lambda$",
            "Erlang-4",
            "exponential",
            r"$\mathrm{H}_2$, $c^2 = 4$",
            r"$\mathrm{H}_2$, $c^2 = 16$",
        ],  # fmt: skip
        rows,
        caption=r"PoF of GA over RR when service is phase-type with mean $1/\mu$ and "
        r"squared coefficient of variation $c^2 = 1/4, 1, 4, 16$ ($\mu = C = 1$; GI/PH/1 "
        r"waiting times by the ladder-height fixed point, M/PH/1 by "
        r"Pollaczek--Khinchine).  GA still beats RR, by less as service grows more "
        r"variable.",
        label="tab:memory-service",
        formats={i: ".5f" for i in range(2, 6)},
    )


def steps(run: Run) -> Iterator[tuple[str, Callable[[], list[Path]]]]:
    """The named steps that write this section; claims go to ``run.claims``.

    Parameters
    ----------
    run : qtheory.report.run.Run
        The reproduce run (output folder, size, claims).

    Yields
    ------
    tuple of (str, callable)
        A step's name and the function that writes its files (returning their paths).

    Examples
    --------
    >>> from qtheory.report.run import Run
    >>> [name for name, _ in steps(Run(".", quick=True))]
    ['memory: Erlang-m gates', 'memory: the ladder', 'memory: section']
    """
    derivations, figures = run.out / "derivations", run.out / "figures"
    quick = run.size != "paper"
    state: dict = {}

    def gates() -> list[Path]:
        state["pof"] = _pof_rows(run.size)
        return _pof_figure(state["pof"], figures)

    def ladders() -> list[Path]:
        state["ladders"] = _ladders()
        return []

    def section() -> list[Path]:
        claims = [
            *phase_gate_claims(quick=quick),
            *observable_claims(quick=quick),
            *history_claims(quick=quick),
            *service_claims(quick=quick),
        ]
        run.claims.extend(claims)
        parts = [
            _derivation(),
            _pof_table(state["pof"], run.size),
            report.figure(
                "memory_pof",
                "Share of GA's gain over random routing recovered by an Erlang gate "
                "with $m$ phases, for five pairs $(\\nu, \\Lambda)$ ($\\mu = C = 1$); the "
                "horizontal line at 1 is the deterministic gate GA (share 0 is RR).",
                "fig:memory-pof",
            ),
            *(_ladder_table(lad, pair) for pair, lad in state["ladders"]),
            _service_table(),
        ]
        text = claims_section("The value of memory", "sec:memory", parts, claims)
        return [report.write_text(derivations / "memory.tex", text)]

    yield "memory: Erlang-m gates", gates
    yield "memory: the ladder", ladders
    yield "memory: section", section
