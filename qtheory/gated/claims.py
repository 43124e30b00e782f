r"""The gated-admission claims as checkable records (Hassin and Ravner [HR26]).

Each function computes the quantities behind one statement and returns a
:class:`qtheory.core.claims.Claim` that says what kind of evidence decides it:

- ``identity``: Sympy proves it for all parameter values (the dominance identity, the
  identities that make the optimum unique);
- ``certified``: Arb ball arithmetic decides it at the stated points, and the claim
  carries a certificate that :mod:`qtheory.verify.gated` decides again (dominance and
  PoF ≥ 1 on grids, the optimal gate, the quantitative asymptotic forms on grids);
- ``finite-range``: the limits as ν ↓ 1 and ν → ∞, observed on the certified grids only;
- ``numerical``: the embedded-chain route (a truncated chain in float64).

``qtheory reproduce`` states each record in ``derivations/gated.tex`` and the claims
report, and writes the certificates; the tests assert that every claim passes.

Examples
--------
>>> claims = gated_claims(quick=True)
>>> all(c.passed for c in claims), sorted({str(c.kind) for c in claims})
(True, ['certified', 'finite-range', 'identity', 'numerical'])
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction

import numpy as np

from qtheory.core.claims import Claim, Evidence, Origin
from qtheory.core.records import Records
from qtheory.gated import remainder
from qtheory.gated.certified import (
    certified_asymptotics,
    certified_dominance,
    certified_optimum,
    grid_point,
    uniqueness_identities,
)
from qtheory.gated.embedded_chain import embedded_chain_law
from qtheory.gated.gim1_root import root
from qtheory.gated.remainder_regions import remainder_region
from qtheory.gated.welfare import optimal_gate
from qtheory.model.gated import GatedQueue

__all__ = [
    "dominance_claim",
    "dominance_identity_claim",
    "pof_identity_claim",
    "remainder_claim",
    "embedded_chain_claim",
    "gated_claims",
    "heavy_traffic_claims",
    "light_traffic_claims",
    "optimal_gate_claim",
    "pof_at_least_one_claim",
    "uniqueness_claim",
]

PAPER = "[HR26]"
#: Values of Λ on the grids (μ = 1); 0.5 < μ is a queue where the gate constraint can bind.
ARRIVALS = ("inf", "5", "2", "1.2", "0.5")
#: Λ of the asymptotic grids (heavy traffic needs Λ > μ).
ASYMPTOTIC_ARRIVALS = ("inf", "2")
#: K of |ratio − 1| ≤ K r, as ν ↓ 1 and as ν → ∞ (:mod:`qtheory.gated.remainder`).
LIGHT_CONSTANT, HEAVY_CONSTANT = str(remainder.LIGHT_CONSTANT), str(remainder.HEAVY_CONSTANT)

NU_ABOVE_ONE = r"$\nu = R\mu/C > 1$"
MODEL = (
    r"potential customers Poisson($\Lambda$), service $\mathrm{Exp}(\mu)$, one server; "
    r"GA blocks arrivals for a gate $\tau \ge 0$ after each admission"
)
RR_INTERIOR = (
    r"$\Lambda \ge \mu - \sqrt{\mu C/R}$, so that $S_{\mathrm{RR}}^* = C(\sqrt{\nu} - 1)^2$ "
    r"(else $\lambda^* = \Lambda$)"
)


def _flag(quick: object) -> bool:
    if not isinstance(quick, bool):
        raise TypeError(f"quick must be True or False, got {quick!r}")
    return quick


def _arrivals_text(arrivals) -> str:
    return ", ".join(r"\infty" if a == "inf" else a for a in arrivals)


def dominance_claim() -> Claim:
    r"""GA's root is below RR's load at equal throughput, σ_GA < λ/μ, certified on a grid.

    At throughput λ the gate is τ = 1/λ − 1/Λ; the GI/M/1 residual
    f(s) = e^{−μ(1−s)τ}Λ/(Λ + μ(1 − s)) − s is convex with f(0) > 0 = f(1), so
    f(λ/μ) < 0, decided in Arb (:func:`~qtheory.gated.certified.certified_dominance`),
    proves σ < λ/μ; hence GA's Exp(μ(1 − σ)) sojourn is stochastically smaller than
    RR's Exp(μ − λ).  Grid: 99 loads λ/μ = 0.01, …, 0.99 for each Λ in ``ARRIVALS``
    (μ = 1).

    Returns
    -------
    qtheory.core.claims.Claim
        Certified; value: the number of grid points certified (reference: the grid size).

    Examples
    --------
    >>> claim = dominance_claim()
    >>> claim.name, claim.passed, str(claim.kind), claim.value == claim.reference
    ('gated.dominance', True, 'certified', True)
    """
    loads = [f"{i / 100:g}" for i in range(1, 100)]
    passed, certificate = certified_dominance(loads, ARRIVALS)
    count = len(certificate["data"]["points"])
    return Claim(
        name="gated.dominance",
        statement=(
            r"at every point of the grid, at equal throughput $\lambda$, GA's root is below "
            r"RR's load, $\sigma_{\mathrm{GA}} < \lambda/\mu$, so GA's sojourn time is "
            r"stochastically smaller"
        ),
        kind=Evidence.CERTIFIED,
        passed=bool(passed),
        origin=Origin.PAPER,
        citation=PAPER,
        hypotheses=(MODEL, r"$\lambda < \mu$ (stable), $\tau = 1/\lambda - 1/\Lambda > 0$"),
        scope=(
            r"$\lambda/\mu = 0.01, 0.02, \dots, 0.99$ with $\lambda < \Lambda$, "
            rf"$\Lambda \in \{{{_arrivals_text(ARRIVALS)}\}}$, $\mu = 1$"
        ),
        quantity=r"grid points where $f(\lambda/\mu) < 0$ is certified",
        value=float(count if passed else 0),
        reference=float(count),
        certificate=certificate,
    )


def dominance_identity_claim() -> Claim:
    r"""The identity that proves dominance for all parameters (Sympy).

    e^a(1 + b) − (1 + a + b) = (e^a − 1 − a)(1 + b) + ab with a = sτ, b = s/Λ,
    s = μ − λ (:func:`~qtheory.gated.derivation.dominance_identity`): a sum of
    non-negative terms, positive when τ > 0.

    Returns
    -------
    qtheory.core.claims.Claim
        Identity.

    Examples
    --------
    >>> dominance_identity_claim().passed
    True
    """
    import sympy as sp

    from qtheory.gated.derivation import dominance_identity

    lhs, rhs = dominance_identity()
    return Claim(
        name="gated.dominance_identity",
        statement=(
            r"$e^{a}(1+b) - (1+a+b) = (e^{a} - 1 - a)(1+b) + ab$ with $a = s\tau$, "
            r"$b = s/\Lambda$, $s = \mu - \lambda$: a sum of non-negative terms, so "
            r"$\sigma_{\mathrm{GA}} < \lambda/\mu$ for every $\tau > 0$"
        ),
        kind=Evidence.IDENTITY,
        passed=bool(sp.simplify(lhs - rhs) == 0),
        origin=Origin.PACKAGE,
        hypotheses=(r"$a, b \ge 0$",),
    )


def pof_identity_claim() -> Claim:
    r"""Memory never hurts, for all parameters: PoF ≥ 1, by the dominance identity.

    :func:`~qtheory.gated.derivation.welfare_dominance_identities` (Sympy) carries
    σ_GA < λ/μ at RR's optimal rate λ* to S_GA(1/λ* − 1/Λ) > S_RR(λ*), and τ = 0 covers
    λ* = Λ; so S_GA* ≥ S_RR* > 0 whenever ν > 1.  This is the proof behind the grid
    claim ``gated.pof_at_least_one``, which checks the same inequality at the listed
    points in ball arithmetic.

    Returns
    -------
    qtheory.core.claims.Claim
        Identity.

    Examples
    --------
    >>> claim = pof_identity_claim()
    >>> claim.name, claim.passed, str(claim.kind)
    ('gated.pof_identity', True, 'identity')
    """
    import sympy as sp

    from qtheory.gated.derivation import dominance_identity, welfare_dominance_identities

    identities = [*welfare_dominance_identities(), dominance_identity()]
    return Claim(
        name="gated.pof_identity",
        statement=(
            r"for every $\Lambda \in (0, \infty]$ and $\mu, R, C > 0$ with $\nu > 1$, "
            r"$\mathrm{PoF} = S_{\mathrm{GA}}^*/S_{\mathrm{RR}}^* \ge 1$: at RR's optimal "
            r"rate $\lambda^* < \Lambda$ the gate $\tau = 1/\lambda^* - 1/\Lambda$ gives GA "
            r"the throughput $\lambda^*$; with $s = \mu - \lambda^*$, $a = s\tau$, "
            r"$b = s/\Lambda$, $1 + a + b = \mu/\lambda^*$ and "
            r"$e^{a}(1+b) - (1+a+b) = (e^{a} - 1 - a)(1+b) + ab > 0$, so "
            r"$\sigma_{\mathrm{GA}} < \lambda^*/\mu$ and $S_{\mathrm{GA}}(\tau) - "
            r"S_{\mathrm{RR}}(\lambda^*) = \lambda^* C(\lambda^* - \mu\sigma)/"
            r"((\mu - \lambda^*)\mu(1-\sigma)) > 0$; at $\lambda^* = \Lambda$ the gate "
            r"$\tau = 0$ is RR itself"
        ),
        kind=Evidence.IDENTITY,
        passed=all(sp.simplify(lhs - rhs) == 0 for lhs, rhs in identities),
        origin=Origin.PAPER,
        citation=PAPER,
        hypotheses=(MODEL, NU_ABOVE_ONE),
    )


def uniqueness_claim() -> Claim:
    r"""The identities that make the optimal gate unique (Sympy).

    In w = −log σ: D' = μσ(h + k)/u², S' = μσG/(u²D²) and G' = −N(e^w − 1 +
    β²uμσ/(1 + βu)²) (:func:`~qtheory.gated.certified.uniqueness_identities`), so G,
    which has the sign of S', decreases wherever the net reward N is positive.

    Returns
    -------
    qtheory.core.claims.Claim
        Identity.

    Examples
    --------
    >>> uniqueness_claim().passed
    True
    """
    import sympy as sp

    passed = all(sp.simplify(lhs - rhs) == 0 for lhs, rhs in uniqueness_identities())
    return Claim(
        name="gated.unique_optimum",
        statement=(
            r"with $w = -\log\sigma$, $u = \mu(1-\sigma)$, the net reward $\eta = R - C/u$, "
            r"$D = \tau + 1/\Lambda$, $h = e^{w} - 1 - w$ and "
            r"$k = \log(1+u/\Lambda) - (u/\Lambda)/(1+u/\Lambda)$: "
            r"$S_{\mathrm{GA}}' = \mu\sigma G/(u^2 D^2)$ with $G = C D - \eta(h + k)$, and "
            r"$G' = -\eta\,(e^{w} - 1 + u\mu\sigma/(\Lambda + u)^2)$; so $S_{\mathrm{GA}}$ has "
            r"at most one critical point where $\eta > 0$, and it is the maximum"
        ),
        kind=Evidence.IDENTITY,
        passed=bool(passed),
        origin=Origin.PACKAGE,
        hypotheses=(NU_ABOVE_ONE, r"$w > 0$ (stable)"),
    )


def pof_at_least_one_claim(quick: bool) -> Claim:
    r"""Memory never hurts: PoF ≥ 1, certified on a grid of ν and Λ.

    At each point the optimum is certified (:func:`~qtheory.gated.certified.certified_optimum`,
    10 digits) and PoF ≥ 1 is decided from the enclosure (exactly 1 when both rules admit
    everybody).  ν = Rμ/C on 12 (quick) or 60 geometric values in [1.001, 10⁴], Λ in
    ``ARRIVALS``, μ = C = 1.

    Parameters
    ----------
    quick : bool
        12 values of ν instead of 60.

    Returns
    -------
    qtheory.core.claims.Claim
        Certified; value: the smallest PoF on the grid (lower end of its enclosure).

    Raises
    ------
    TypeError
        If ``quick`` is not ``True`` or ``False``.

    Examples
    --------
    >>> claim = pof_at_least_one_claim(quick=True)
    >>> claim.passed, claim.value >= 1
    (True, True)
    """
    quick = _flag(quick)
    nus = [f"{nu:.6g}" for nu in np.geomspace(1.001, 1e4, 12 if quick else 60)]
    optima = [certified_optimum(GatedQueue(a, 1, nu, 1), dps=10) for a in ARRIVALS for nu in nus]
    lows = [Fraction(o.price_of_forgetting.lower) for o in optima]
    exact_one = [o.at_boundary and o.routing_at_boundary for o in optima]
    passed = all(one or low >= 1 for one, low in zip(exact_one, lows, strict=True))
    worst = min(1 if one else low for one, low in zip(exact_one, lows, strict=True))
    return Claim(
        name="gated.pof_at_least_one",
        statement=(
            r"at every point of the grid, memory does not hurt: "
            r"$\mathrm{PoF} = S_{\mathrm{GA}}^*/S_{\mathrm{RR}}^* \ge 1$ "
            r"(equality when both rules admit everybody)"
        ),
        kind=Evidence.CERTIFIED,
        passed=bool(passed),
        origin=Origin.PAPER,
        citation=PAPER,
        hypotheses=(MODEL, NU_ABOVE_ONE),
        scope=(
            rf"{len(nus)} values of $\nu$ in $[1.001, 10^4]$ (geometric), "
            rf"$\Lambda \in \{{{_arrivals_text(ARRIVALS)}\}}$, $\mu = C = 1$"
        ),
        quantity=r"smallest $\mathrm{PoF}$ on the grid (lower end of its enclosure)",
        value=float(worst),
        reference=1.0,
        certificate={
            "checker": "gated.pof_grid",
            "data": {"points": [grid_point(o) for o in optima]},
        },
    )


def optimal_gate_claim() -> Claim:
    r"""The optimal gate τ* is unique and enclosed, for ν = 3 and each Λ in ``ARRIVALS``.

    :func:`~qtheory.gated.certified.certified_optimum` at 30 digits proves the
    maximiser unique and encloses σ*, τ*, S_GA*, λ*, S_RR* and PoF; the measured value
    is how far the float64 optimum of :func:`~qtheory.gated.welfare.optimal_gate` lies
    from the enclosure of τ* (relative).

    Returns
    -------
    qtheory.core.claims.Claim
        Certified (certificate ``gated.optima``).

    Examples
    --------
    >>> claim = optimal_gate_claim()
    >>> claim.passed, claim.value < 1e-12
    (True, True)
    """
    distances, optima = [], []
    for arrival in ARRIVALS:
        queue = GatedQueue(arrival, 1, 3, 1)
        certified = certified_optimum(queue, dps=30)
        optima.append(certified)
        gate = Fraction(optimal_gate(GatedQueue(float(arrival), 1.0, 3.0, 1.0)).gate)
        low, high = Fraction(certified.gate.lower), Fraction(certified.gate.upper)
        gap = max(low - gate, gate - high, Fraction(0))
        distances.append(float(gap / high) if high else float(gap))
    worst = max(distances)
    return Claim(
        name="gated.optimal_gate",
        statement=(
            r"$S_{\mathrm{GA}}(\tau)$ has a unique maximiser $\tau^*$ over $\tau \ge 0$, and "
            r"$\sigma^*$, $\tau^*$, $S_{\mathrm{GA}}^*$, $\lambda^*$, $S_{\mathrm{RR}}^*$ and "
            r"$\mathrm{PoF}$ lie in the certified intervals (30 digits)"
        ),
        kind=Evidence.CERTIFIED,
        passed=worst <= 1e-12,
        origin=Origin.PACKAGE,
        hypotheses=(MODEL, NU_ABOVE_ONE),
        scope=rf"$\nu = 3$, $\mu = C = 1$, $\Lambda \in \{{{_arrivals_text(ARRIVALS)}\}}$",
        quantity=r"largest relative distance of the float64 $\tau^*$ from its enclosure",
        value=worst,
        reference=0.0,
        tolerance=1e-12,
        certificate={
            "checker": "gated.optima",
            "data": {"points": [o.certificate["data"] for o in optima]},
        },
    )


def _exponents(quick: bool) -> tuple[int, ...]:
    return (1, 2, 3, 5, 10, 20, 30) if quick else tuple(range(1, 31))


def _exponent_scope(quick: bool, symbol: str) -> str:
    exponents = _exponents(quick)
    shown = exponents if quick else (1, 2, "dots", 30)
    return ", ".join(r"$\dots$" if k == "dots" else f"$10^{{{symbol}{k}}}$" for k in shown)


#: The ranges on which the remainder bounds are proved, by run size: ε = ν − 1 (light)
#: and ν (heavy).  The bounds hold from ε = 1/10 down and from ν = 4 up
#: (:mod:`qtheory.gated.remainder`); the other ends are where the proof stops.
REMAINDER_RANGES = {
    ("light", True): ("1e-6", str(remainder.LIGHT_EPSILON_MAX)),
    ("light", False): ("1e-30", str(remainder.LIGHT_EPSILON_MAX)),
    ("heavy", True): (str(remainder.HEAVY_NU_MIN), "100"),
    ("heavy", False): (str(remainder.HEAVY_NU_MIN), "1000"),
}


def _range_text(regime: str, low: str, high: str) -> str:
    def number(text: str) -> str:
        if "e" in text:
            mantissa, exponent = text.split("e")
            return (
                f"10^{{{int(exponent)}}}"
                if mantissa == "1"
                else f"{mantissa}\\cdot 10^{{{int(exponent)}}}"
            )
        return text

    symbol = r"\varepsilon = \nu - 1" if regime == "light" else r"\nu"
    return f"${symbol} \\in [{number(low)}, {number(high)}]$"


def remainder_claim(regime: str, quick: bool) -> Claim:
    r"""The light (``"light"``) or heavy (``"heavy"``) remainder bound of PoF, proved for
    every value of the range :data:`REMAINDER_RANGES` at Λ ∈ ``ASYMPTOTIC_ARRIVALS``,
    μ = C = 1, by boxes (:func:`~qtheory.gated.remainder_regions.remainder_region`).

    Parameters
    ----------
    regime : {"light", "heavy"}
    quick : bool
        The quick run's shorter range.

    Returns
    -------
    qtheory.core.claims.Claim
        ``gated.pof_light_rate`` or ``gated.pof_heavy_rate``, certified (checker
        ``regions.remainder``); value: the largest |ratio − 1|/r at the box ends
        (reference: K).

    Examples
    --------
    >>> claim = remainder_claim("heavy", quick=True)
    >>> claim.name, claim.passed, claim.value < claim.reference
    ('gated.pof_heavy_rate', True, True)
    """
    quick = _flag(quick)
    low, high = REMAINDER_RANGES[regime, quick]
    constant = LIGHT_CONSTANT if regime == "light" else HEAVY_CONSTANT
    regions = [
        remainder_region(regime, arrival, 1, 1, low, high, constant=constant)
        for arrival in ASYMPTOTIC_ARRIVALS
    ]
    where = (
        rf"{_range_text(regime, low, high)} at each $\Lambda \in "
        rf"\{{{_arrivals_text(ASYMPTOTIC_ARRIVALS)}\}}$, $\mu = C = 1$"
    )
    boxes = sum(r.boxes for r in regions)
    if regime == "light":
        bound, hypotheses = remainder.LIGHT_BOUND, (MODEL, remainder.LIGHT_HYPOTHESIS)
        quantity = (
            r"largest $|\mathrm{ratio} - 1| / (\log\log(1/\varepsilon)/\log(1/\varepsilon))$ "
            "at the box ends"
        )
    else:
        bound, hypotheses = remainder.HEAVY_BOUND, (MODEL, remainder.HEAVY_HYPOTHESIS)
        quantity = r"largest $|\mathrm{ratio} - 1|\sqrt{\nu}$ at the box ends"
    return Claim(
        name=f"gated.pof_{regime}_rate",
        statement=f"for every {where}: {bound} (proved on {boxes} boxes that tile the range)",
        kind=Evidence.CERTIFIED,
        passed=all(r.passed for r in regions),
        origin=Origin.PACKAGE,
        hypotheses=hypotheses,
        scope=f"{where}, the whole range ({boxes} boxes)",
        quantity=quantity,
        value=max(r.worst for r in regions),
        reference=float(Fraction(constant)),
        certificate={
            "checker": "regions.remainder",
            "data": {
                "regime": regime,
                "constant": constant,
                "regions": [r.data for r in regions],
            },
        },
    )


def _asymptotic_grid(regime: str, quick: bool) -> tuple:
    """The certified grid of ``regime`` (:func:`certified_asymptotics` at Λ ∈
    ``ASYMPTOTIC_ARRIVALS``, μ = C = 1, ε = ν − 1 = 10^-k or ν = 10^k), its scope text
    and its points at the last k."""
    light = regime == "light"
    grid = certified_asymptotics(
        regime,
        ASYMPTOTIC_ARRIVALS,
        _exponents(quick),
        constant=LIGHT_CONSTANT if light else HEAVY_CONSTANT,
    )
    variable = r"$\varepsilon = \nu - 1 =$" if light else r"$\nu =$"
    scope = (
        rf"{variable} {_exponent_scope(quick, '-' if light else '')}, "
        rf"$\Lambda \in \{{{_arrivals_text(ASYMPTOTIC_ARRIVALS)}\}}$, $\mu = C = 1$"
    )
    last = [p for p in grid.points if p[1] == max(_exponents(quick))]
    return grid, scope, last


def _along_curves(points: Sequence) -> Iterator[tuple]:
    """The consecutive pairs of grid points of one curve (the same Λ), in grid order."""
    for a, b in zip(points, points[1:], strict=False):
        if a[0] == b[0]:
            yield a, b


def light_traffic_claims(quick: bool) -> list[Claim]:
    r"""As ν = 1 + ε ↓ 1: PoF ~ 4/(ε log(1/ε)) with a certified remainder bound on a
    grid, and PoF → ∞ while the gain S_GA* − S_RR* → 0 (finite range).

    The grid: ε = 10^-1, …, 10^-30 (quick: 7 of them), Λ ∈ {∞, 2}, μ = C = 1; at each
    point PoF is certified (:func:`~qtheory.gated.certified.certified_asymptotics`) and
    |PoF ε log(1/ε)/4 − 1| ≤ (3/2) log log(1/ε)/log(1/ε) decided in Arb.

    Parameters
    ----------
    quick : bool
        7 values of ε instead of 30.

    Returns
    -------
    list of qtheory.core.claims.Claim
        ``gated.pof_light_rate`` (certified at the grid points) and
        ``gated.pof_unbounded`` (finite-range).

    Raises
    ------
    TypeError
        If ``quick`` is not ``True`` or ``False``.

    Examples
    --------
    >>> rate, unbounded = light_traffic_claims(quick=True)
    >>> rate.passed, str(unbounded.kind), unbounded.value > 1e28
    (True, 'finite-range', True)
    """
    quick = _flag(quick)
    grid, scope, smallest = _asymptotic_grid("light", quick)
    pof = min(Fraction(p[4].price_of_forgetting.lower) for p in smallest)
    gain = max(Fraction(p[4].welfare_ga.upper) for p in smallest)
    increasing = all(
        Fraction(a[4].price_of_forgetting.upper) < Fraction(b[4].price_of_forgetting.lower)
        for a, b in _along_curves(grid.points)
    )
    return [
        remainder_claim("light", quick),
        Claim(
            name="gated.pof_unbounded",
            statement=(
                r"$\mathrm{PoF} \to \infty$ as $\nu \downarrow 1$, while the absolute gain "
                r"$S_{\mathrm{GA}}^* - S_{\mathrm{RR}}^* \le S_{\mathrm{GA}}^* \to 0$ stays "
                r"bounded: along the grid PoF increases, exceeds $10^{28}$ at "
                r"$\varepsilon = 10^{-30}$, where $S_{\mathrm{GA}}^* < 10^{-29}$"
            ),
            kind=Evidence.FINITE_RANGE,
            passed=bool(grid.passed and increasing and pof > 10**28 and gain < Fraction(1, 10**29)),
            origin=Origin.PAPER,
            citation=PAPER,
            hypotheses=(MODEL, RR_INTERIOR),
            scope=scope + " (certified enclosures at each point)",
            quantity=r"smallest certified $\mathrm{PoF}$ at $\varepsilon = 10^{-30}$",
            value=float(pof),
            reference=1e28,
        ),
    ]


def heavy_traffic_claims(quick: bool) -> list[Claim]:
    r"""As ν → ∞ (Λ > μ): PoF = 1 + 2(1 − √γ)/√ν + O(1/ν) with a certified remainder
    bound on a grid, and PoF → 1 while the gain grows (finite range).

    m = (1 + μ²/Λ²)/2.  Grid: ν = 10, …, 10^30 (quick: 7 of them), Λ ∈ {∞, 2},
    μ = C = 1; at each point |(PoF − 1)√ν/(2(1 − √γ)) − 1| ≤ (5/2)/√ν is decided in Arb.

    Parameters
    ----------
    quick : bool
        7 values of ν instead of 30.

    Returns
    -------
    list of qtheory.core.claims.Claim
        ``gated.pof_heavy_rate`` (certified at the grid points) and
        ``gated.heavy_traffic`` (finite-range).

    Raises
    ------
    TypeError
        If ``quick`` is not ``True`` or ``False``.

    Examples
    --------
    >>> rate, limit = heavy_traffic_claims(quick=True)
    >>> rate.passed, limit.passed, str(limit.kind)
    (True, True, 'finite-range')
    """
    quick = _flag(quick)
    grid, scope, largest = _asymptotic_grid("heavy", quick)
    excess = max(Fraction(p[4].price_of_forgetting.upper) - 1 for p in largest)
    gains_grow = all(
        Fraction(a[4].welfare_ga.upper) - Fraction(a[4].welfare_rr.lower)
        < Fraction(b[4].welfare_ga.lower) - Fraction(b[4].welfare_rr.upper)
        for a, b in _along_curves(grid.points)
    )
    return [
        remainder_claim("heavy", quick),
        Claim(
            name="gated.heavy_traffic",
            statement=(
                r"$\mathrm{PoF} \to 1$ as $\nu \to \infty$ while the absolute gain "
                r"$S_{\mathrm{GA}}^* - S_{\mathrm{RR}}^*$ grows: along the grid the gain "
                r"increases and $\mathrm{PoF} - 1 < 10^{-14}$ at $\nu = 10^{30}$"
            ),
            kind=Evidence.FINITE_RANGE,
            passed=bool(grid.passed and gains_grow and 0 < excess < Fraction(1, 10**14)),
            origin=Origin.PACKAGE,
            hypotheses=(MODEL, r"$\Lambda > \mu$"),
            scope=scope + " (certified enclosures at each point)",
            quantity=r"largest certified $\mathrm{PoF} - 1$ at $\nu = 10^{30}$",
            value=float(excess),
            reference=0.0,
        ),
    ]


def embedded_chain_claim() -> Claim:
    r"""The GI/M/1 embedded chain, solved without the root equation, has the geometric
    law (1 − σ)σⁿ.

    For three (τ, Λ) the mean sojourn of the truncated chain
    (:func:`~qtheory.gated.embedded_chain.embedded_chain_law`, GTH elimination in
    float64) is compared with 1/(μ(1 − σ)); the claim passes when
    max |μ(1 − σ)E[S] − 1| < 1e-10.

    Returns
    -------
    qtheory.core.claims.Claim
        Numerical.

    Examples
    --------
    >>> claim = embedded_chain_claim()
    >>> claim.passed, claim.value < 1e-10
    (True, True)
    """
    errors = []
    for gate, arrival in ((2.0, np.inf), (0.6, 2.0), (3.0, 0.5)):
        sigma = float(root(gate, arrival, 1.0))
        law = embedded_chain_law(gate, arrival, 1.0)
        errors.append(abs(law.mean_sojourn(1.0) * (1 - sigma) - 1))
    worst = float(max(errors))
    return Claim(
        name="gated.embedded_chain",
        statement=(
            r"the embedded chain at admission epochs has the geometric law "
            r"$(1-\sigma)\sigma^n$, so the mean sojourn is $1/(\mu(1-\sigma))$"
        ),
        kind=Evidence.NUMERICAL,
        passed=worst < 1e-10,
        origin=Origin.TEXTBOOK,
        citation="[Kle75], Sec. 6.4",
        hypotheses=(r"stable: $\tau + 1/\Lambda > 1/\mu$",),
        scope=r"$(\tau, \Lambda) = (2, \infty), (0.6, 2), (3, 0.5)$, $\mu = 1$",
        quantity=r"largest $|\mu(1-\sigma)E[S] - 1|$, $E[S]$ from the chain",
        value=worst,
        reference=0.0,
        tolerance=1e-10,
        reason=(
            "the chain is truncated and solved by GTH elimination in float64; the "
            "truncation and rounding errors are not enclosed"
        ),
    )


def gated_claims(quick: bool = False) -> Records[Claim]:
    """Every claim of the gated model, checked.

    Parameters
    ----------
    quick : bool
        Coarser grids (the statements and the kinds of evidence are the same).

    Returns
    -------
    list of qtheory.core.claims.Claim
        Dominance (certified, identity), uniqueness (identity), PoF ≥ 1 and the optimal
        gate (certified), the light- and heavy-traffic forms (certified at grid points)
        and limits (finite-range), and the embedded chain (numerical).

    Raises
    ------
    TypeError
        If ``quick`` is not ``True`` or ``False``.

    Examples
    --------
    >>> [claim.name for claim in gated_claims(quick=True)][:3]
    ['gated.dominance', 'gated.dominance_identity', 'gated.pof_identity']

    References
    ----------
    .. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026).
    """
    quick = _flag(quick)
    claims = [
        dominance_claim(),
        dominance_identity_claim(),
        pof_identity_claim(),
        uniqueness_claim(),
        pof_at_least_one_claim(quick),
        optimal_gate_claim(),
        *light_traffic_claims(quick),
        *heavy_traffic_claims(quick),
        embedded_chain_claim(),
    ]
    return Records(claims)
