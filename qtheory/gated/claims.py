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

SOURCE = "Hassin & Ravner, arXiv:2606.02464"
ARRIVALS = (np.inf, 5.0, 2.0, 1.2)


def dominance_claim() -> Claim:
    """GA's root is below RR's load λ/μ at every equal throughput λ (hence GA's
    Exp(μ(1-σ)) sojourn is stochastically smaller).

    A gate τ admits at rate λ = 1/(τ + 1/Λ), so equal throughput means
    τ = 1/λ − 1/Λ; the admitted sojourn is Exp(μ(1 − σ)) under GA (σ the GI/M/1 root of
    :func:`~qtheory.gated.root.root`) and Exp(μ − λ) under random routing, and
    σ < λ/μ orders them.  Checked on 99 loads λ/μ in [0.01, 0.99] for each
    Λ in ``ARRIVALS`` (μ = 1); the measured value is the smallest margin λ/μ − σ.

    Returns
    -------
    qtheory.claims.Claim
        The measured value, its reference and tolerance, and whether it passed.

    References
    ----------
    .. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026); docs/gated-admission.md.
    .. [2] L. Kleinrock, Queueing Systems, Volume I: Theory (Wiley 1975), Sec. 6.4
       (the GI/M/1 queue).

    Examples
    --------
    >>> claim = dominance_claim()
    >>> claim.name, claim.passed, bool(claim.value > 0)
    ('gated.dominance', True, True)
    """
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
    """Memory never hurts: PoF ≥ 1 over a grid of ν and Λ (12 or 60 values of ν).

    PoF = S_GA(τ*)/S_RR(λ*) (:func:`~qtheory.gated.welfare.price_of_forgetting`) in
    float64, on geometrically spaced ν = Rμ/C in [1.001, 1e4] and Λ in ``ARRIVALS``;
    the claim passes when the minimum is ≥ 1 − 1e-12.

    Parameters
    ----------
    quick : bool
        12 values of ν instead of 60.

    Returns
    -------
    qtheory.claims.Claim
        The measured value, its reference and tolerance, and whether it passed.

    Raises
    ------
    TypeError
        If ``quick`` is not ``True`` or ``False``.

    References
    ----------
    .. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026); docs/gated-admission.md.

    Examples
    --------
    >>> claim = pof_at_least_one_claim(quick=True)
    >>> claim.passed, bool(claim.value >= 1)
    (True, True)
    """
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
    better.

    For ν = 3 and each Λ in ``ARRIVALS``, S_GA(τ) on 20001 gates geometrically spaced
    above the smallest stable gate max(0, 1 − 1/Λ) is compared with S_GA(τ*) of
    :func:`~qtheory.gated.welfare.optimal_gate`; the claim passes when no grid value
    exceeds it by more than 1e-12.

    Returns
    -------
    qtheory.claims.Claim
        The measured value, its reference and tolerance, and whether it passed.

    References
    ----------
    .. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026); docs/gated-admission.md.

    Examples
    --------
    >>> claim = optimal_gate_claim()
    >>> claim.passed, bool(claim.value <= 1e-12)
    (True, True)
    """
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
    """PoF → ∞ as ν ↓ 1, at the rate of its asymptote σ̂/(√ν−1)².

    At ν = 1 + 1e-30 and Λ = ∞ (:func:`~qtheory.gated.asymptotics.check_light_traffic`
    in mpmath), PoF must exceed 1e28 and match its asymptote to relative 1e-28, and
    GA's absolute welfare gain must be below 1e-29.

    Parameters
    ----------
    dps : int
        Working precision in decimal digits (``gated_claims`` uses 40 or 60).

    Returns
    -------
    qtheory.claims.Claim
        The measured value, its reference and tolerance, and whether it passed.

    Raises
    ------
    TypeError, ValueError
        For a bad ``dps`` or a precision above the ``dps`` limit of
        :mod:`qtheory.limits`.

    References
    ----------
    .. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026); docs/gated-admission.md.

    Examples
    --------
    >>> claim = pof_unbounded_claim(dps=40)
    >>> claim.passed, bool(claim.value > 1e28)
    (True, True)
    """
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
    """PoF − 1 ~ 2(1 − √m)/√ν as ν → ∞ (absolute gain grows like √ν).

    Here m = (1 + μ²/Λ²)/2.  At ν = 1e20 and Λ = 2 (μ = 1), PoF − 1 from
    :func:`~qtheory.gated.asymptotics.check_heavy_traffic` (mpmath) must match the
    asymptote to relative 1e-9.

    Parameters
    ----------
    dps : int
        Working precision in decimal digits (``gated_claims`` uses 40 or 60).

    Returns
    -------
    qtheory.claims.Claim
        The measured value, its reference and tolerance, and whether it passed.

    Raises
    ------
    TypeError, ValueError
        For a bad ``dps`` or a precision above the ``dps`` limit of
        :mod:`qtheory.limits`.

    References
    ----------
    .. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026); docs/gated-admission.md.

    Examples
    --------
    With m = (1 + 1/4)/2 = 0.625 the asymptote is 2(1 − √0.625)/1e10 ≈ 4.18861e-11:

    >>> claim = heavy_traffic_claim(dps=40)
    >>> claim.passed, f"{claim.reference:.6g}", f"{claim.value:.6g}"
    (True, '4.18861e-11', '4.18861e-11')
    """
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
    geometric law (1 − σ)σⁿ of the σ formula.

    The number found by an admitted customer is geometric, P(n) = (1 − σ)σⁿ, so the
    mean sojourn is E[S] = 1/(μ(1 − σ)).  For three (τ, Λ) the mean sojourn of
    :func:`~qtheory.gated.embedded_chain.embedded_chain_law` is compared with that
    formula; the claim passes when max |μ(1 − σ)E[S] − 1| < 1e-10.

    Returns
    -------
    qtheory.claims.Claim
        The measured value, its reference and tolerance, and whether it passed.

    References
    ----------
    .. [1] L. Kleinrock, Queueing Systems, Volume I: Theory (Wiley 1975), Sec. 6.4
       (the GI/M/1 queue).
    .. [2] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026); docs/gated-admission.md.

    Examples
    --------
    >>> claim = embedded_chain_claim()
    >>> claim.passed, bool(claim.value < 1e-10)
    (True, True)
    """
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
        The six claims, in the order of the functions of this module.

    Raises
    ------
    TypeError
        If ``quick`` is not ``True`` or ``False``.

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
