r"""The ``qtheory reproduce`` section on renewal potential arrivals
(:mod:`qtheory.gated.renewal`): GA against RR when the potential inter-arrival times are
Erlang, exponential or hyperexponential of mean 1/Λ.

It states how each policy thins the renewal stream, tabulates both optima and PoF by
arrival law (:mod:`qtheory.gated.arrival_claims`), and reports the claims.

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [2] L. Kleinrock, Queueing Systems, Vol. I, Wiley (1975), Sec. 6.4 (GI/M/1).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from qtheory import report
from qtheory.gated.arrival_claims import arrival_claims, arrival_pof_table
from qtheory.report.claims import claims_section

if TYPE_CHECKING:
    from qtheory.report.run import Run

__all__ = ["steps"]


def _argument() -> str:
    return (
        r"Let the potential inter-arrival times be i.i.d.\ phase-type $(\alpha, T)$ of mean "
        r"$1/\Lambda$, with transform $a(s) = \alpha(sI - T)^{-1}t$, $t = -T\mathbf{1}$.  "
        r"Random routing admits a geometric number of them: its admitted gap has transform "
        r"$q a(s)/(1 - (1 - q)a(s))$.  The gate opens at an admission, itself an arrival, "
        r"so GA's admitted gap is $\tau$ plus the wait for the next arrival from the phase "
        r"$\alpha e^{(T + t\alpha)\tau}$: transform $e^{-s\tau}\alpha e^{(T + t\alpha)\tau}"
        r"(sI - T)^{-1}t$.  Both streams make GI/M/1 queues, and the optimiser of the "
        r"previous section searches the root $\sigma = e^{-w}$, solving for the $q$ (in "
        r"closed form) and the $\tau$ (a monotone root) that give it.  The optima are "
        r"numerical: no uniqueness argument is known for these laws."
    )


def _table(quick: bool) -> str:
    rows = []
    for law, scv, rate, gate, routing, pof in arrival_pof_table(quick):
        rows.append([rate, law, scv, gate.gate, gate.welfare, routing.rate, routing.welfare, pof])
    return report.table(
        [
            r"$\Lambda$",
            "arrivals",
            "SCV",
            r"$\tau^*$",
            r"$S_{\mathrm{GA}}^*$",
            r"$\lambda^*$",
            r"$S_{\mathrm{RR}}^*$",
            "PoF",
        ],  # fmt: skip
        rows,
        caption=r"GA and RR with renewal potential arrivals of mean $1/\Lambda$ ($\mu = C = 1$, "
        r"$R = 2$; SCV the squared coefficient of variation of the inter-arrival time).  "
        r"Both optima fall as the arrivals grow more variable, RR's faster, so PoF grows.",
        label="tab:arrivals-pof",
        formats={2: ".3g", **{i: ".5f" for i in range(3, 8)}},
        size="small",
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
    ['arrivals: optima', 'arrivals: section']
    """
    derivations = run.out / "derivations"
    quick = run.size == "quick"

    def optima() -> list[Path]:
        arrival_pof_table(quick)
        return []

    def section() -> list[Path]:
        claims = arrival_claims(quick)
        run.claims.extend(claims)
        parts = [_argument(), _table(quick)]
        text = claims_section("Renewal arrivals", "sec:arrivals", parts, claims)
        return [report.write_text(derivations / "arrivals.tex", text)]

    yield "arrivals: optima", optima
    yield "arrivals: section", section
