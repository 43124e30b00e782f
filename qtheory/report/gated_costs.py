r"""The ``qtheory reproduce`` section on costs beyond the linear waiting cost: any
sojourn cost C φ(W) and holding costs C n^p (:mod:`qtheory.gated.costs`).

It states the expected cost of an admitted customer for each family (Sympy's
integrals, :mod:`qtheory.gated.cost_derivation`), the argument that memory never hurts
under any of them, tabulates PoF over a grid of (Λ, R) for each family
(:mod:`qtheory.gated.cost_optimum`), and reports the claims of
:mod:`qtheory.gated.cost_claims`.

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import sympy as sp

from qtheory import report
from qtheory.gated.cost_claims import GRID, QUICK_GRID, cost_claims, cost_pof_table
from qtheory.gated.cost_derivation import derive_costs
from qtheory.report.claims import claims_section

if TYPE_CHECKING:
    from qtheory.report.run import Run

__all__ = ["steps"]

#: How each family is named in the tables.
FAMILY_LABELS = {
    "power": r"$C W^{{{shape}}}$",
    "deadline": r"$C\,\mathbf{{1}}\{{W > {shape}\}}$",
    "exponential": r"$C(e^{{{shape} W}} - 1)/{shape}$",
    "holding": r"$C n^{{{shape}}}$ per unit time",
}


def _label(keyword: str, spec: str) -> report.Latex:
    family, _, shape = spec.partition(":")
    key = "holding" if keyword == "holding_cost" else family
    return report.Latex(FAMILY_LABELS[key].format(shape=shape))


#: Each family's cost of one customer, as set in the families table (the integrands of
#: cost_derivation.SOJOURN_COSTS).
INTEGRANDS = {
    "power": r"$C\,W^{p}$",
    "deadline": r"$C\,\mathbf{1}\{W > d\}$",
    "exponential": r"$C\,(e^{\theta W} - 1)/\theta$",
}


def _families_table() -> str:
    formulas = derive_costs()
    rows = [
        [family, report.Latex(INTEGRANDS[family]), report.Latex(f"${sp.latex(f.expr)}$")]
        for family, f in formulas.sojourn.items()
    ]
    holding = formulas.holding_power.expr
    rows.append(["holding", report.Latex(r"$C n^{p}$"), report.Latex(f"${sp.latex(holding)}$")])
    return report.table(
        ["family", "cost", r"$g$, per admitted customer"],
        rows,
        caption=r"Expected cost $g$ of an admitted customer, by Sympy: a sojourn cost "
        r"integrated against $W \sim \mathrm{Exp}(u)$, $u = \mu(1 - \sigma)$; a holding "
        r"cost summed over the time-stationary queue length of the GI/M/1 queue, "
        r"divided by the admission rate.",
        label="tab:costs-families",
        alignment="lll",
    )


def _cell(row) -> object:
    gate, routing, pof = row[4], row[5], row[6]
    if pof is None:
        return report.Latex(r"\textit{nobody}")
    if not (gate.attained and routing.attained):
        return report.Latex(f"{pof:.5f}$^\\dagger$")
    return pof


def _pof_table(quick: bool) -> str:
    rows_by_cost: dict[tuple[str, str], list] = {}
    for row in cost_pof_table(quick):
        rows_by_cost.setdefault((row[0], row[1]), []).append(_cell(row))
    grid = QUICK_GRID if quick else GRID
    infinity = r"\infty"
    columns = ["cost"] + [
        rf"$\Lambda = {infinity if a == 'inf' else a}$, $R = {r}$" for a, r in grid
    ]
    rows = [[_label(*key), *cells] for key, cells in rows_by_cost.items()]
    return report.table(
        columns,
        rows,
        caption=r"Price of Forgetting $S_{\mathrm{GA}}^*/S_{\mathrm{RR}}^*$ under other costs "
        r"($\mu = C = 1$).  \textit{nobody}: no admission earns positive welfare, both "
        r"optima admit nobody and PoF is undefined; $\dagger$: a ratio of suprema "
        r"approached as $\sigma \to 1$ and not attained.",
        label="tab:costs-pof",
        formats={i: ".5f" for i in range(1, len(columns))},
        size="footnotesize",
    )


def _argument() -> str:
    return (
        r"Under either policy the admitted customers form a GI/M/1 queue with root "
        r"$\sigma$, whose sojourn law $\mathrm{Exp}(\mu(1-\sigma))$ and time-stationary "
        r"queue-length law fix the expected cost $g(\sigma)$ of an admitted customer "
        r"(Table~\ref{tab:costs-families}); welfare is the admission rate times "
        r"$R - g(\sigma)$.  At RR's optimal rate $\lambda^*$ the gate "
        r"$\tau = 1/\lambda^* - 1/\Lambda$ gives GA the same throughput and a smaller root, "
        r"so a shorter sojourn pathwise and a cost no larger: memory never hurts, under any "
        r"nondecreasing sojourn cost and any holding cost.  The optima themselves are "
        r"found on a grid in $w = -\log\sigma$ and refined by Brent's method; where "
        r"$u^2|g'(u)|$ is nonincreasing (GA) and $g$ convex (RR) the critical point is "
        r"unique and the optimum global."
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
    ['costs: optima', 'costs: section']
    """
    derivations = run.out / "derivations"
    quick = run.size == "quick"

    def optima() -> list[Path]:
        cost_pof_table(quick)
        return []

    def section() -> list[Path]:
        claims = cost_claims(quick)
        run.claims.extend(claims)
        parts = [_argument(), _families_table(), _pof_table(quick)]
        text = claims_section("Other costs", "sec:costs", parts, claims)
        return [report.write_text(derivations / "costs.tex", text)]

    yield "costs: optima", optima
    yield "costs: section", section
