r"""The claims about renewal potential arrivals (:mod:`qtheory.gated.renewal`): GA beats RR
for every arrival law tried, and the Price of Forgetting grows with the squared
coefficient of variation (SCV) of the inter-arrival time.
"""

from __future__ import annotations

import functools

from qtheory.core.claims import Claim, Evidence, Origin
from qtheory.core.phase_type import arrival_law
from qtheory.core.records import Records
from qtheory.gated.cost_optimum import arrival_streams, optima_under
from qtheory.gated.costs import LINEAR
from qtheory.gated.streams import PoissonStreams
from qtheory.model.gated import GatedQueue

__all__ = [
    "ARRIVALS",
    "arrival_claims",
    "arrival_pof_table",
    "arrivals_dominance_claim",
    "pof_grows_with_arrival_scv_claim",
]

#: Inter-arrival laws of mean 1/Λ, by increasing SCV: 1/4, 1/2, 1, 2, 4.
ARRIVALS = ("erlang:4", "erlang:2", "poisson", "hyperexp:2", "hyperexp:4")
QUICK_ARRIVALS = ("erlang:2", "poisson", "hyperexp:4")
#: Λ of the grid (μ = C = 1, R = 2), full and quick.
RATES = ("0.8", "1.5", "3")
QUICK_RATES = ("1.5",)
MODEL = (
    r"potential customers a renewal process of phase-type inter-arrival times of mean "
    r"$1/\Lambda$, service $\mathrm{Exp}(\mu)$, one server, cost $C$ per unit time in the "
    r"system; GA admits the first arrival after a gate $\tau$, RR each arrival with "
    r"probability $q$"
)


def _flag(quick: object) -> bool:
    if not isinstance(quick, bool):
        raise TypeError(f"quick must be True or False, got {quick!r}")
    return quick


def _scv(spec: str) -> float:
    return arrival_law(spec).moment(2) - 1


@functools.cache
def arrival_pof_table(quick: bool = False) -> tuple[tuple, ...]:
    """(law, SCV, Λ, GA optimum, RR optimum, PoF) over the laws and rates of the grid
    (μ = C = 1, R = 2), computed once per process.

    Parameters
    ----------
    quick : bool
        Three laws at Λ = 1.5.

    Returns
    -------
    tuple of tuple

    Examples
    --------
    >>> [(law, round(scv, 3), rate) for law, scv, rate, *_ in arrival_pof_table(quick=True)]
    [('erlang:2', 0.5, '1.5'), ('poisson', 1.0, '1.5'), ('hyperexp:4', 4.0, '1.5')]
    """
    laws, rates = (QUICK_ARRIVALS, QUICK_RATES) if _flag(quick) else (ARRIVALS, RATES)
    rows = []
    for rate in rates:
        for law in laws:
            streams = arrival_streams(law) or PoissonStreams
            optima = optima_under(GatedQueue(rate, "1", "2", "1"), LINEAR, streams=streams)
            rows.append((law, _scv(law), rate, *optima))
    return tuple(rows)


def _scope(quick: bool) -> str:
    laws, rates = (QUICK_ARRIVALS, QUICK_RATES) if quick else (ARRIVALS, RATES)
    return (
        rf"$\Lambda \in \{{{', '.join(rates)}\}}$, $\mu = C = 1$, $R = 2$; inter-arrival "
        rf"laws {', '.join(laws)} (SCV {', '.join(f'{_scv(law):g}' for law in laws)})"
    )


def arrivals_dominance_claim(quick: bool = False) -> Claim:
    r"""GA's optimum beats RR's for every renewal arrival law on the grid.

    Parameters
    ----------
    quick : bool
        Three laws at one Λ.

    Returns
    -------
    qtheory.core.claims.Claim
        Finite-range; value: the least PoF (reference 1).

    Examples
    --------
    >>> claim = arrivals_dominance_claim(quick=True)
    >>> claim.passed, claim.value > 1
    (True, True)
    """
    rows = arrival_pof_table(_flag(quick))
    pofs = [row[5] for row in rows]
    return Claim(
        name="gated.arrivals_dominance",
        statement=(
            r"with renewal potential arrivals of every law on the grid, the optimal gate "
            r"earns more welfare than optimal random routing: $\mathrm{PoF} > 1$"
        ),
        kind=Evidence.FINITE_RANGE,
        passed=all(p is not None and p > 1 for p in pofs),
        origin=Origin.PACKAGE,
        hypotheses=(MODEL,),
        scope=_scope(quick),
        quantity="least PoF on the grid",
        value=min(p for p in pofs if p is not None),
        reference=1.0,
    )


def pof_grows_with_arrival_scv_claim(quick: bool = False) -> Claim:
    r"""At each Λ of the grid, PoF increases strictly with the inter-arrival SCV: the
    more irregular the potential arrivals, the more a gate's memory of the last admission
    is worth against thinning them at random.

    Parameters
    ----------
    quick : bool
        Three laws at one Λ.

    Returns
    -------
    qtheory.core.claims.Claim
        Finite-range; value: the least increase of PoF between consecutive laws
        (reference 0).

    Examples
    --------
    >>> claim = pof_grows_with_arrival_scv_claim(quick=True)
    >>> claim.passed, claim.value > 0
    (True, True)
    """
    rows = arrival_pof_table(_flag(quick))
    steps = [
        later[5] - earlier[5]
        for earlier, later in zip(rows, rows[1:], strict=False)
        if earlier[2] == later[2]
    ]
    return Claim(
        name="gated.arrivals_pof_scv",
        statement=(
            r"at each $\Lambda$ of the grid the Price of Forgetting increases strictly with "
            r"the squared coefficient of variation of the potential inter-arrival time"
        ),
        kind=Evidence.FINITE_RANGE,
        passed=all(step > 0 for step in steps),
        origin=Origin.PACKAGE,
        hypotheses=(MODEL,),
        scope=_scope(quick),
        quantity="least increase of PoF between consecutive laws",
        value=min(steps),
        reference=0.0,
    )


def arrival_claims(quick: bool = False) -> Records[Claim]:
    """Every claim of this module.

    Parameters
    ----------
    quick : bool
        Three laws at one Λ.

    Returns
    -------
    list of qtheory.core.claims.Claim

    Examples
    --------
    >>> [c.name for c in arrival_claims(quick=True)]
    ['gated.arrivals_dominance', 'gated.arrivals_pof_scv']
    """
    quick = _flag(quick)
    return Records([arrivals_dominance_claim(quick), pof_grows_with_arrival_scv_claim(quick)])
