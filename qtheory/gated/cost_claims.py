r"""The claims about costs other than C·W (:mod:`qtheory.gated.costs`): memory never
hurts under any sojourn cost or holding cost (an identity argument), checked on every
family, and the general optimiser against the linear model's closed form.
"""

from __future__ import annotations

import functools

from qtheory.core.claims import Claim, Evidence, Origin
from qtheory.core.records import Records
from qtheory.gated.cost_optimum import optima_under
from qtheory.gated.costs import holding_cost, sojourn_cost
from qtheory.gated.welfare import price_of_forgetting
from qtheory.model.gated import GatedQueue

__all__ = [
    "COSTS",
    "cost_claims",
    "cost_dominance_claim",
    "cost_dominance_identity_claim",
    "cost_pof_table",
    "linear_cost_claim",
]

#: The families of the claims and the section's table, as (keyword, specification).
COSTS = (
    ("sojourn_cost", "power:0.5"),
    ("sojourn_cost", "power:2"),
    ("sojourn_cost", "power:3"),
    ("sojourn_cost", "deadline:0.5"),
    ("sojourn_cost", "deadline:2"),
    ("sojourn_cost", "exponential:0.25"),
    ("holding_cost", "power:2"),
    ("holding_cost", "power:3"),
)
#: (Λ, R) of the grid (μ = C = 1), full and quick.
GRID = (("inf", "6"), ("3", "6"), ("1.5", "3"), ("0.8", "12"), ("inf", "2.5"))
QUICK_GRID = (("inf", "6"), ("1.5", "3"))
MODEL = (
    r"potential customers Poisson($\Lambda$), service $\mathrm{Exp}(\mu)$, one server; each "
    r"admitted customer pays $C\varphi(W)$ for its sojourn $W$, or $C n^p$ per unit time "
    r"while $n$ are present"
)


def _flag(quick: object) -> bool:
    if not isinstance(quick, bool):
        raise TypeError(f"quick must be True or False, got {quick!r}")
    return quick


def _cost(keyword: str, spec: str):
    return sojourn_cost(spec) if keyword == "sojourn_cost" else holding_cost(spec)


@functools.cache
def cost_pof_table(quick: bool = False) -> tuple[tuple, ...]:
    """(keyword, spec, Λ, R, GA optimum, RR optimum, PoF or None) over :data:`COSTS` and
    the grid (μ = C = 1), computed once per process.

    Parameters
    ----------
    quick : bool
        The two-point grid (for tests).

    Returns
    -------
    tuple of tuple

    Examples
    --------
    >>> rows = cost_pof_table(quick=True)
    >>> len(rows), rows[0][:4]
    (16, ('sojourn_cost', 'power:0.5', 'inf', '6'))
    """
    grid = QUICK_GRID if _flag(quick) else GRID
    rows = []
    for keyword, spec in COSTS:
        for arrival, reward in grid:
            optima = optima_under(GatedQueue(arrival, "1", reward, "1"), _cost(keyword, spec))
            rows.append((keyword, spec, arrival, reward, *optima))
    return tuple(rows)


def cost_dominance_identity_claim() -> Claim:
    r"""For every nondecreasing sojourn cost and every holding cost C n^p, S_GA* ≥ S_RR*.

    The step, written out.  Let λ* be RR's optimal rate; if λ* = 0 (nobody admitted), GA
    matches it as τ → ∞, and if λ* = Λ, τ = 0 is RR itself.  Otherwise the gate
    τ = 1/λ* − 1/Λ gives GA the throughput λ*, and with s = μ − λ*, a = sτ, b = s/Λ,
    1 + a + b = μ/λ* (Sympy), so :func:`~qtheory.gated.derivation.dominance_identity`
    gives σ_GA < λ*/μ: GA's sojourn rate u_GA = μ(1 − σ_GA) exceeds RR's u_RR = μ − λ*.
    Coupling W = X/u with one X ~ Exp(1), W_GA ≤ W_RR pathwise, so
    E[φ(W_GA)] ≤ E[φ(W_RR)] for nondecreasing φ, and
    S_GA(τ) − S_RR(λ*) = λ* C (E[φ(W_RR)] − E[φ(W_GA)]) ≥ 0 (Sympy checks this
    difference).  A holding cost C n^p costs λ (C/μ) E[N^p] per unit time, N geometric
    on {1, 2, ...} with parameter 1 − σ, stochastically increasing in σ: the same step.

    Returns
    -------
    qtheory.core.claims.Claim
        Identity.

    Examples
    --------
    >>> cost_dominance_identity_claim().passed
    True
    """
    import sympy as sp

    from qtheory.gated.derivation import dominance_identity, welfare_dominance_identities

    lhs, rhs = dominance_identity()
    throughput = welfare_dominance_identities()[0]
    rate, scale, reward, cost_ga, cost_rr = sp.symbols("lambda C R g_GA g_RR", positive=True)
    difference = rate * (reward - scale * cost_ga) - rate * (reward - scale * cost_rr)
    steps = [(lhs, rhs), throughput, (difference, rate * scale * (cost_rr - cost_ga))]
    return Claim(
        name="gated.cost_dominance_identity",
        statement=(
            r"for every nondecreasing sojourn cost $\varphi$ and every holding cost $C n^p$, "
            r"$S_{\mathrm{GA}}^* \ge S_{\mathrm{RR}}^*$: at RR's optimal rate $\lambda^*$ the "
            r"gate $\tau = 1/\lambda^* - 1/\Lambda$ gives GA the throughput $\lambda^*$ and "
            r"the root $\sigma_{\mathrm{GA}} < \lambda^*/\mu$ (the dominance identity), so "
            r"with $W = X/u$, $X \sim \mathrm{Exp}(1)$, GA's sojourn is pathwise shorter and "
            r"$S_{\mathrm{GA}}(\tau) - S_{\mathrm{RR}}(\lambda^*) = \lambda^* C\,(E\varphi"
            r"(W_{\mathrm{RR}}) - E\varphi(W_{\mathrm{GA}})) \ge 0$"
        ),
        kind=Evidence.IDENTITY,
        passed=all(sp.simplify(a - b) == 0 for a, b in steps),
        origin=Origin.PAPER,
        citation="[HR26]",
        hypotheses=(MODEL, r"$\varphi$ nondecreasing"),
    )


def cost_dominance_claim(quick: bool = False) -> Claim:
    r"""GA's optimum is at least RR's for every cost family on the grid.

    Both optima by :func:`~qtheory.gated.cost_optimum.optima_under`; where nobody is
    admitted both welfares are 0 and the point counts as equal.

    Parameters
    ----------
    quick : bool
        The two-point grid.

    Returns
    -------
    qtheory.core.claims.Claim
        Finite-range; value: the least S_GA*/S_RR* where defined (reference 1).

    Examples
    --------
    >>> claim = cost_dominance_claim(quick=True)
    >>> claim.passed, str(claim.kind), claim.value >= 1
    (True, 'finite-range', True)
    """
    rows = cost_pof_table(_flag(quick))
    ratios = [row[6] for row in rows if row[6] is not None]
    passed = all(row[4].welfare >= row[5].welfare for row in rows)
    grid = QUICK_GRID if quick else GRID
    return Claim(
        name="gated.cost_dominance",
        statement=(
            r"under every sojourn and holding cost on the grid, the optimal gate earns at "
            r"least the welfare of optimal random routing"
        ),
        kind=Evidence.FINITE_RANGE,
        passed=passed,
        origin=Origin.PAPER,
        citation="[HR26]",
        hypotheses=(MODEL,),
        scope=_scope(grid),
        quantity=r"least $S_{\mathrm{GA}}^*/S_{\mathrm{RR}}^*$ where defined",
        value=min(ratios),
        reference=1.0,
    )


def _scope(grid) -> str:
    costs = ", ".join(f"{k.split('_')[0]} {s}" for k, s in COSTS)
    infinity = r"\infty"
    points = ", ".join(f"({infinity if a == 'inf' else a}, {r})" for a, r in grid)
    return rf"$(\Lambda, R) \in \{{{points}\}}$, $\mu = C = 1$; costs {costs}"


def linear_cost_claim(quick: bool = False) -> Claim:
    r"""The general optimiser reproduces the linear model: ``power:1`` (sojourn) and
    ``power:1`` (holding, by Little's law) give the closed-form route's PoF.

    Parameters
    ----------
    quick : bool
        The two-point grid.

    Returns
    -------
    qtheory.core.claims.Claim
        Numerical; value: the largest relative difference (reference 0).

    Examples
    --------
    >>> claim = linear_cost_claim(quick=True)
    >>> claim.passed, claim.value < 1e-12
    (True, True)
    """
    grid = QUICK_GRID if _flag(quick) else GRID
    worst = 0.0
    for arrival, reward in grid:
        queue = GatedQueue(arrival, "1", reward, "1")
        closed = price_of_forgetting(queue)
        for keyword in ("sojourn_cost", "holding_cost"):
            general = price_of_forgetting(queue, **{keyword: "power:1"})
            worst = max(worst, abs(general - closed) / closed)
    tolerance = 1e-12
    return Claim(
        name="gated.cost_linear",
        statement=(
            r"the cost optimiser (a grid and Brent's method in $w = -\log\sigma$) with "
            r"$\varphi(W) = W$, and with the holding cost $C n$, gives the Price of "
            r"Forgetting of the closed-form first-order condition"
        ),
        kind=Evidence.NUMERICAL,
        passed=worst <= tolerance,
        origin=Origin.PACKAGE,
        hypotheses=(MODEL,),
        scope=_scope(grid).split(";")[0],
        quantity="largest relative difference of PoF",
        value=worst,
        reference=0.0,
        tolerance=tolerance,
        reason="float64 optima compared, not enclosures",
    )


def cost_claims(quick: bool = False) -> Records[Claim]:
    """Every claim of this module.

    Parameters
    ----------
    quick : bool
        Two-point grids.

    Returns
    -------
    list of qtheory.core.claims.Claim

    Examples
    --------
    >>> [c.name for c in cost_claims(quick=True)]
    ['gated.cost_dominance_identity', 'gated.cost_dominance', 'gated.cost_linear']
    """
    quick = _flag(quick)
    return Records(
        [cost_dominance_identity_claim(), cost_dominance_claim(quick), linear_cost_claim(quick)]
    )
