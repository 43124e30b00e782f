"""The gated-admission paper's claims as checks (Hassin and Ravner, arXiv:2606.02464).

Each function computes the quantities behind one claim and returns a
:class:`qtheory.claims.Claim`; ``qtheory reproduce`` tabulates them and the tests assert
that every one passes.

>>> [c.passed for c in gated_claims(quick=True)]
[True, True, True, True, True, True]
"""

from __future__ import annotations

import mpmath
import numpy as np

from qtheory.claims import Claim
from qtheory.gated.asymptotics import check_heavy_traffic, check_light_traffic
from qtheory.gated.embedded_chain import embedded_chain_law
from qtheory.gated.model import GatedQueue
from qtheory.gated.root import root
from qtheory.gated.welfare import optimal_gate, price_of_forgetting, welfare_ga

_CLAIM_DOC = """
    Returns
    -------
    qtheory.claims.Claim
        The measured value, its reference and tolerance, and whether it passed.

    Examples
    --------
    >>> {call}.passed
    True

    References
    ----------
    .. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026).
"""

SOURCE = "Hassin & Ravner, arXiv:2606.02464"
ARRIVALS = (np.inf, 5.0, 2.0, 1.2)


def dominance_claim() -> Claim:
    """GA's root is below RR's load λ/μ at every equal throughput λ (hence GA's
    Exp(μ(1-σ)) sojourn is stochastically smaller)."""
    throughput = np.linspace(0.01, 0.99, 99)
    margins = [
        np.min(throughput - root(1 / throughput - 1 / a, a, 1.0))
        for a in ARRIVALS
        if np.all(1 / throughput - 1 / a > 0)
    ]
    worst = float(min(margins))
    return Claim(
        "gated.dominance",
        "sigma_GA < lambda/mu at equal throughput (grid of lambda/mu and Lambda)",
        worst,
        0.0,
        0.0,
        worst > 0,
        SOURCE,
        quantity="min over the grid of lambda/mu - sigma_GA (float64 root)",
    )


def _flag(quick: object) -> bool:
    if not isinstance(quick, bool):
        raise TypeError(f"quick must be True or False, got {quick!r}")
    return quick


def pof_at_least_one_claim(quick: bool) -> Claim:
    """Memory never hurts: PoF ≥ 1 over a grid of ν and Λ (12 or 60 values of ν)."""
    quick = _flag(quick)
    nus = np.geomspace(1.001, 1e4, 12 if quick else 60)
    worst = min(price_of_forgetting(GatedQueue(a, 1.0, nu, 1.0)) for a in ARRIVALS for nu in nus)
    return Claim(
        "gated.pof_at_least_one",
        "PoF >= 1 (grid of nu and Lambda)",
        worst,
        1.0,
        1e-12,
        worst >= 1 - 1e-12,
        SOURCE,
        quantity="min of PoF over the grid (float64)",
    )


def optimal_gate_claim() -> Claim:
    """τ* from the first-order condition maximises S_GA: no gate on a fine grid does
    better."""
    gaps = []
    for arrival in ARRIVALS:
        queue = GatedQueue(arrival, 1.0, 3.0, 1.0)
        opt = optimal_gate(queue)
        lowest = max(0.0, 1.0 - 1.0 / arrival)
        grid = lowest + np.geomspace(1e-6, 30.0, 20001)
        gaps.append(float(np.max(welfare_ga(queue, grid)) - opt.welfare))
    worst = max(gaps)
    return Claim(
        "gated.optimal_gate",
        "S_GA(tau*) >= max over a fine grid of S_GA(tau) (nu = 3)",
        worst,
        0.0,
        1e-12,
        worst <= 1e-12,
        SOURCE,
        quantity="max over the grid of S_GA(tau) - S_GA(tau*), worst over Lambda",
    )


def pof_unbounded_claim(dps: int) -> Claim:
    """PoF → ∞ as ν ↓ 1, at the rate of its asymptote σ̂/(√ν−1)²."""
    pof, _, gain = check_light_traffic(30, dps=dps)
    with mpmath.workdps(dps):
        passed = pof.exact > 1e28 and pof.relative_error < 1e-28 and gain.exact < 1e-29
    return Claim(
        "gated.pof_unbounded",
        "PoF at nu = 1 + 1e-30 exceeds 1e28 and matches its asymptote to relative 1e-28; "
        "gain < 1e-29",
        float(pof.exact),
        float(pof.asymptotic),
        1e-28,
        bool(passed),
        SOURCE,
        quantity=f"PoF at nu = 1 + 1e-30, Lambda = infinity (mpmath, {dps} digits)",
    )


def heavy_traffic_claim(dps: int) -> Claim:
    """PoF − 1 ~ 2(1 − √m)/√ν as ν → ∞ (absolute gain grows like √ν)."""
    excess, _, _ = check_heavy_traffic(20, arrival="2", dps=dps)
    return Claim(
        "gated.heavy_traffic",
        "PoF - 1 at nu = 1e20 matches 2(1 - sqrt(m))/sqrt(nu), m = (1 + mu^2/Lambda^2)/2, "
        "to relative 1e-9",
        float(excess.exact),
        float(excess.asymptotic),
        1e-9,
        bool(excess.relative_error < 1e-9),
        SOURCE,
        quantity=f"PoF - 1 at nu = 1e20, Lambda = 2 (mpmath, {dps} digits)",
    )


def embedded_chain_claim() -> Claim:
    """The GI/M/1 embedded chain, solved exactly without the root equation, has the
    geometric law (1 − σ)σⁿ of the σ formula."""
    errors = []
    for gate, arrival in ((2.0, np.inf), (0.6, 2.0), (3.0, 0.5)):
        sigma = float(root(gate, arrival, 1.0))
        law = embedded_chain_law(gate, arrival, 1.0)
        errors.append(abs(law.mean_sojourn(1.0) * (1 - sigma) - 1))
    worst = max(errors)
    return Claim(
        "gated.embedded_chain",
        "mean sojourn of the exact embedded chain = 1/(mu(1-sigma))",
        worst,
        0.0,
        1e-10,
        worst < 1e-10,
        "GI/M/1 theory (Kleinrock, Queueing Systems I, 6.4)",
        quantity="max over three (tau, Lambda) of |mu(1 - sigma) E[S] - 1|, E[S] of the chain",
    )


def gated_claims(quick: bool = False) -> list[Claim]:
    """Every claim of the gated model, checked.

    Parameters
    ----------
    quick : bool
        Coarser grids and 40 instead of 60 digits.

    Returns
    -------
    list of qtheory.claims.Claim

    Examples
    --------
    >>> [claim.name for claim in gated_claims(quick=True)][:2]
    ['gated.dominance', 'gated.pof_at_least_one']

    References
    ----------
    .. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026).
    """
    quick = _flag(quick)
    dps = 40 if quick else 60
    return [
        dominance_claim(),
        pof_at_least_one_claim(quick),
        optimal_gate_claim(),
        pof_unbounded_claim(dps),
        heavy_traffic_claim(dps),
        embedded_chain_claim(),
    ]


for _claim, _call in (
    (dominance_claim, "dominance_claim()"),
    (pof_at_least_one_claim, "pof_at_least_one_claim(quick=True)"),
    (optimal_gate_claim, "optimal_gate_claim()"),
    (pof_unbounded_claim, "pof_unbounded_claim(dps=40)"),
    (heavy_traffic_claim, "heavy_traffic_claim(dps=40)"),
    (embedded_chain_claim, "embedded_chain_claim()"),
):
    _claim.__doc__ += _CLAIM_DOC.format(call=_call)
