r"""History-dependent gates and the full-memory bracket for the unobservable M/M/1 queue.

Nobody observes the queue: potential customers arrive Poisson(:math:`\Lambda`), service
is Exp(:math:`\mu`), and the controller only knows its own admission times.  After each
admission it closes a gate for :math:`\tau \ge 0` (chosen from the history) and admits
the first arrival after the gate reopens.  An admitted customer who finds :math:`M` in
the system costs :math:`C(M+1)/\mu` in expectation, so the welfare per unit time of
any policy is, by renewal-reward, (mean of :math:`R - C(M+1)/\mu` over admissions) /
(mean inter-admission time).

The full-memory bracket
-----------------------
The best *full-memory gate policy*, which after each admission closes a gate for a time
chosen from every past admission time and then admits the first arrival (the model
above), solves an average-reward problem on the belief.  :func:`full_memory_bracket`
encloses its value :math:`S_{\mathrm{FM}}`.  A *window rule*, which may also turn away
arrivals after the gate has opened, is not of this form: the relaxation below does not
cover it, and only the regular-arrivals bound (Hajek 1983) does, so for window rules the
bracket's upper end is proved only where that bound is the smaller one.

*Lower bound.*  Any admissible policy's welfare: the best gap-dependent gate
(:mod:`qtheory.gated.gap_gates`), evaluated exactly (:math:`\Lambda < \infty`); GA at
:math:`\Lambda = \infty`.  On request, also the *belief-threshold* policy
(:mod:`qtheory.gated.belief`), which uses the whole history.

*Upper bound (relaxation, gate policies only).*  Give the controller, in addition, the
number in the system just after each admission: :mod:`qtheory.gated.relaxation`
solves that problem and certifies its value, an upper bound on every gate policy.

*Upper bound (regular arrivals, every full-memory policy).*  Whatever a full-memory
policy does, window rules included, its admission process is a function of the Poisson
arrivals and of its own past, hence independent of the service times.  Among all arrival
processes independent of exponential services with a given rate λ, constant
inter-arrival times minimise the average delay (Hajek 1983; Humblet 1982 by convexity of
the max in Lindley's recursion and Jensen's inequality), so the welfare λ(R − C W) of
the policy is at most :math:`S_{\mathrm{GA}}(1/\lambda)` computed at
:math:`\Lambda = \infty`, and :math:`S_{\mathrm{FM}}` (and every window rule's welfare)
is :math:`\le \max_\tau S_{\mathrm{GA}}^{\Lambda=\infty}(\tau)`.  The bracket's
upper end is the smaller of the two bounds; for window rules only this one is proved.

*Λ = ∞.*  Then GA attains the regular-arrivals bound, so :math:`S_{\mathrm{FM}} =
S_{\mathrm{GA}}`: the bracket has width 0, and full memory is worth nothing.  For a
periodic gap sequence the convexity is elementary: the mean sojourn is a convex
function of the gaps (Lindley's recursion :math:`W_{n+1} = (W_n + S_n - A_n)^+` is
convex in them path by path) invariant under cyclic shifts, so by Jensen it is at
least that of the constant gap with the same mean; the tests check this numerically.

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [2] P. Naor, "The regulation of queue size by levying tolls", Econometrica
   37(1):15-24 (1969).
.. [3] B. Hajek, "The proof of a folk theorem on queuing delay with applications to
   routing in networks", Journal of the ACM 30(4):834-851 (1983).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qtheory.core.records import Records
from qtheory.core.validation import positive_int
from qtheory.gated.gap_gates import (
    GapGate,
    ga_optimum,
    gap_gate_welfare,
    optimal_gap_gate,
    require_gap_gate,
)
from qtheory.gated.relaxation import (
    DEFAULT_GRID,
    ObservedRelaxation,
    default_states,
    dominated,
    observed_relaxation,
    require_relaxation,
)
from qtheory.gated.welfare import float64_rates, welfare_ga
from qtheory.model.gated import GatedQueue, checked_queue

if TYPE_CHECKING:  # the claims and the simulated belief policy load when asked for (they
    # import qtheory.core.stats and SciPy's statistics): the bracket alone needs neither
    from qtheory.core.claims import Claim
    from qtheory.gated.belief import BeliefThreshold

__all__ = [
    "FullMemoryBracket",
    "full_memory_bracket",
    "require_full_memory_bracket",
    "history_claims",
]


# ---------------------------------------------------------------------------
# the bracket


@dataclass(frozen=True)
class FullMemoryBracket:
    """Lower and upper bounds on the welfare of the best full-memory gate policy (a gate
    chosen from every past admission time, then the first arrival admitted).

    Attributes
    ----------
    lower, upper : float
        Welfare per unit time: an achievable policy's, and the smaller of the two upper
        bounds (module notes).  ``upper`` covers gate policies; a window rule (which may
        also turn away arrivals after the gate opens) is bounded only by ``regular``.
    width : float
        ``upper - lower`` (0 at Λ = ∞, where GA is optimal).
    ga : float
        GA's optimal welfare (``lower >= ga``).
    regular : float
        The regular-arrivals bound, GA's optimum at Λ = ∞ (Hajek's theorem): an upper
        bound for every full-memory policy, window rules included.
    lower_policy : str
        The policy behind ``lower``.
    lower_evidence, upper_evidence : str
        How the number was obtained, ``"exact: ..."``: a closed-form or
        matrix-geometric value, a theorem applied to one, or a Bellman-inequality bound,
        exact mathematics evaluated in float64 (rounding not enclosed: numerical, not
        certified), and which policies the upper bound covers.
    relaxation : ObservedRelaxation or None
        The relaxation that observes the queue at admissions (its bound
        ``relaxation.upper``, its grid policy and cap K); None where it is known
        beforehand not to beat the regular bound (:func:`~qtheory.gated.relaxation.dominated`):
        at Λ = ∞ when the cap is below ν − 1 (ν > 401 with the default cap), where it
        has no finite optimum, and at finite Λ when gate 0 already earns
        Λ(R − C(K + 1)/μ) ≥ ``regular`` in the capped problem.
    gap_gate : GapGate or None
        The best gap-dependent gate at finite Λ (None at Λ = ∞, where GA is optimal).
    belief : BeliefThreshold or None
        With ``simulate=True`` at finite Λ: the best belief-threshold policy, simulated
        (the lower end when its estimate beats the gap gate).

    Examples
    --------
    >>> b = full_memory_bracket(GatedQueue(3.0, 1.0, 2.0, 1.0))
    >>> bool(b.ga < b.lower < b.upper == b.regular < b.relaxation.upper), round(b.width, 4)
    (True, 0.0063)

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Hajek (1983).
    """

    lower: float
    upper: float
    width: float
    ga: float
    regular: float
    lower_policy: str
    lower_evidence: str
    upper_evidence: str
    relaxation: ObservedRelaxation | None
    gap_gate: GapGate | None
    belief: BeliefThreshold | None = None


_REGULAR_EVIDENCE = (
    "exact: GA's optimum at $\\Lambda = \\infty$, an upper bound by Hajek's theorem (regular "
    "arrivals minimise the mean delay of an exponential server); it covers every "
    "full-memory policy, window rules included"
)


def full_memory_bracket(
    queue: GatedQueue,
    *,
    levels: int = 2,
    states: int | None = None,
    grid: int = DEFAULT_GRID,
    simulate: bool = False,
) -> FullMemoryBracket:
    r"""Bracket the welfare of the best full-memory gate policy: after each admission a
    gate chosen from every past admission time, then the first arrival admitted.

    Lower: the best gap-dependent gate with ``levels`` values (:func:`optimal_gap_gate`,
    exact welfare) at Λ < ∞, GA at Λ = ∞; with ``simulate=True`` also the best
    belief-threshold policy (:func:`optimal_belief_threshold`, fixed seed), whose
    estimate is the lower end if larger.  Upper: the smaller of
    :func:`observed_relaxation` and the regular-arrivals bound (GA's optimum at
    Λ = ∞); at Λ = ∞ the two ends meet.  The relaxation covers gate policies only: a
    window rule, which may also turn away arrivals after the gate opens, is bounded only
    by the regular-arrivals bound (``regular``).  The relaxation is left out where it is
    known beforehand not to beat the regular bound (``relaxation`` is then None, the
    upper end unchanged).  Deterministic; 1-4 s at the defaults (no simulation), some
    20 s more with ``simulate=True``; the relaxation and the gap-gate search are
    estimated first and refused above :mod:`qtheory.core.limits`.

    Parameters
    ----------
    queue : GatedQueue
        Λ (``inf`` allowed), μ, R, C; ν > 1.
    levels : int, keyword-only
        Gate values of the gap-dependent family (≥ 1; 1 is GA).
    states : int or None, keyword-only
        Cap K ≥ 2 of the relaxation (None: its default).
    grid : int, keyword-only
        Gate-grid points (≥ 16) of the relaxation.
    simulate : bool, keyword-only
        Also simulate the belief-threshold policy (finite Λ only; at Λ = ∞ GA is
        optimal).

    Returns
    -------
    FullMemoryBracket

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ν ≤ 1, a bad keyword (named), parameters that float64 cannot carry
        (:func:`~qtheory.gated.welfare.float64_rates`), or a relaxation or gap-gate
        search above :mod:`qtheory.core.limits`
        (:func:`~qtheory.gated.relaxation.require_relaxation`,
        :func:`~qtheory.gated.gap_gates.require_gap_gate`), refused before any of the
        bracket's work.
    ArithmeticError
        If the relaxation's policy iteration fails (see
        :func:`~qtheory.gated.relaxation.observed_relaxation`).

    Examples
    --------
    At Λ = ∞ GA is optimal among full-memory policies; the relaxation is looser:

    >>> from qtheory.gated.welfare import optimal_gate
    >>> q = GatedQueue(float("inf"), 1.0, 2.0, 1.0)
    >>> b = full_memory_bracket(q)
    >>> b.lower == b.upper == optimal_gate(q).welfare, b.width, round(b.upper, 4)
    (True, 0.0, 0.3734)
    >>> round(b.relaxation.upper, 4)
    0.4221

    References
    ----------
    See the module's References: Hajek (1983).

    .. [1] M. L. Puterman, Markov Decision Processes, Wiley (1994), Chapter 11.
    """
    if not isinstance(simulate, bool):
        raise TypeError(f"simulate must be True or False, got {simulate!r}")
    queue, levels, arrival, ga, cap, regular, relax = _plan(queue, levels, states, grid)
    relaxation = observed_relaxation(queue, states=cap, grid=grid) if relax else None
    if relaxation is None or regular <= relaxation.upper:
        upper, upper_evidence = regular, _REGULAR_EVIDENCE
    else:
        upper, upper_evidence = (
            relaxation.upper,
            (
                "exact: Bellman-inequality bound on the relaxation that also observes the "
                f"number in system at admissions (capped at {relaxation.states}, over all "
                "gates), evaluated in float64 without enclosing the rounding (numerical, not "
                "certified); it covers gate policies (gate, then the first arrival) only: a "
                "window rule is bounded only by Hajek's regular-arrivals bound "
                f"{regular:.6g}"
            ),
        )
    if math.isinf(arrival):
        gate = None
        lower, lower_policy = float(ga.welfare), f"constant gate (GA): $\\tau = {ga.gate:.6g}$"
        lower_evidence = "exact: GA's optimum (`qtheory.gated.welfare.optimal_gate`)"
    else:
        gate = optimal_gap_gate(queue, levels=levels)
        lower, lower_policy = gate.welfare, gate.describe()
        lower_evidence = "exact: matrix-geometric welfare of the policy (float64)"
    belief = None
    if simulate and not math.isinf(arrival):
        from qtheory.gated.belief import optimal_belief_threshold

        belief = optimal_belief_threshold(queue)
        if belief.welfare.mean > lower:
            lower = belief.welfare.mean
            lower_policy = (
                "belief threshold: reopen the gate when "
                f"$E[N \\mid \\text{{admissions}}] \\le {belief.threshold:.6g}$"
            )
            lower_evidence = (
                f"statistical: $\\pm {belief.welfare.halfwidth:.2g}$ (95%, {belief.welfare.n} "
                "independent simulated paths)"
            )
    return FullMemoryBracket(
        lower=lower,
        upper=upper,
        width=upper - lower,
        ga=float(ga.welfare),
        regular=regular,
        lower_policy=lower_policy,
        lower_evidence=lower_evidence,
        upper_evidence=upper_evidence,
        relaxation=relaxation,
        gap_gate=gate,
        belief=belief,
    )


def _plan(queue, levels, states, grid):
    """The checks and estimates of :func:`full_memory_bracket`, before any of its work:
    (queue, levels, Λ, GA's optimum, the cap K, the regular bound, whether to relax)."""
    queue = checked_queue(queue, worthwhile=True)
    levels = positive_int("levels", levels)
    arrival, mu, reward, cost = float64_rates(queue)
    ga = ga_optimum(queue)
    regular = float(ga_optimum(GatedQueue(math.inf, mu, reward, cost)).welfare)
    cap = default_states(queue) if states is None else positive_int("states", states)
    # the relaxation is left out where it is known not to beat the regular bound (then
    # its policy iteration meets a nearly decomposable chain); every estimate before work
    relax = not dominated(queue, cap, regular)
    if relax:
        require_relaxation(cap, positive_int("grid", grid))
    if not math.isinf(arrival):
        require_gap_gate(queue, levels)
    return queue, levels, arrival, ga, cap, regular, relax


def require_full_memory_bracket(
    queue: GatedQueue, *, levels: int = 2, states: int | None = None, grid: int = DEFAULT_GRID
) -> None:
    """Refuse what :func:`full_memory_bracket` would refuse before its work (ν ≤ 1,
    parameters float64 cannot carry, a relaxation or gap-gate search above
    :mod:`qtheory.core.limits`), without doing that work: so that a caller (the ladder)
    refuses before it computes anything else.

    Parameters
    ----------
    queue : GatedQueue
    levels, states, grid : keyword-only
        As :func:`full_memory_bracket`.

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`full_memory_bracket`.

    Examples
    --------
    >>> require_full_memory_bracket(GatedQueue(3.0, 1.0, 2.0, 1.0))  # within the limits
    >>> require_full_memory_bracket(GatedQueue(3.0, 1.0, 1.0, 1.0))
    Traceback (most recent call last):
    ...
    ValueError: reward*service_rate/cost (Naor's ratio nu) must be > 1 ...
    """
    _plan(queue, levels, states, grid)


# ---------------------------------------------------------------------------
# claims

#: (Λ, ν) of the claims' grid (μ = C = 1, R = ν); ``quick`` keeps the first of each.
CLAIM_ARRIVALS = ("inf", "3", "10", "1.5", "0.5")
CLAIM_RATIOS = ("2", "1.5", "5")
#: The belief threshold of the statistical claim, chosen beforehand by
#: :func:`optimal_belief_threshold` at Λ = 3, ν = 2 (so the claim's estimate is not the
#: search's).
BELIEF_THRESHOLD = 0.3
_NUMERICAL_REASON = (
    "float64 evaluation of exact expressions (matrix-geometric welfare, Bellman-inequality "
    "bound, root-equation optimum), not ball arithmetic"
)
_MODEL = (
    r"unobservable M/M/1: arrivals Poisson($\Lambda$), service Exp($\mu$); after each "
    r"admission a gate chosen from the admission history, then the first arrival admitted"
)


#: The variables of a claim grid point, in LaTeX.
LAMBDA_NU = r"(\Lambda, \nu)"


def _claim_grid(quick: bool) -> list[tuple[str, str]]:
    arrivals = CLAIM_ARRIVALS[:2] if quick else CLAIM_ARRIVALS
    ratios = CLAIM_RATIOS[:1] if quick else CLAIM_RATIOS
    return [(a, r) for a in arrivals for r in ratios]


def history_claims(*, quick: bool = False) -> Records[Claim]:
    r"""The full-memory bracket as claims, on a grid of (Λ, ν) with μ = C = 1.

    ``gated.history.belief_beats_gap_gate``: at Λ = 3, ν = 2 the belief-threshold
    policy beats the best gap-dependent gate (statistical, 95% interval);
    ``gated.history.bracket``: lower ≤ upper everywhere, with the widths;
    ``gated.history.relaxation_above_ga``: GA ≤ the relaxation's Bellman-inequality
    bound;
    ``gated.history.memory_gain``: at every finite Λ the best gap-dependent gate beats
    GA (so full memory does), by a relative gain between the stated bounds;
    ``gated.history.no_gain_at_infinity``: at Λ = ∞ full memory is worth nothing
    (Hajek's theorem), checked on alternating two-gap sequences.  All but the first
    numerical (float64), over the grid only.

    Parameters
    ----------
    quick : bool, keyword-only
        Λ ∈ {∞, 3}, ν = 2, a small relaxation (K = 24, 400 gate points) and 50 paths
        of 1000 admissions for the belief policy, instead of the 15-point grid with the
        defaults (about a minute).

    Returns
    -------
    list of qtheory.core.claims.Claim

    Raises
    ------
    TypeError
        ``quick`` not a bool.

    Examples
    --------
    >>> claims = history_claims(quick=True)
    >>> [c.name for c in claims if c.passed]  # doctest: +NORMALIZE_WHITESPACE
    ['gated.history.belief_beats_gap_gate', 'gated.history.bracket',
     'gated.history.relaxation_above_ga', 'gated.history.memory_gain',
     'gated.history.no_gain_at_infinity']

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Hajek (1983).
    """
    if not isinstance(quick, bool):
        raise TypeError(f"quick must be True or False, got {quick!r}")
    from qtheory.core.claims import Claim, Evidence, Origin, in_set
    from qtheory.gated.belief import belief_threshold_welfare

    sizes = {"states": 24, "grid": 400} if quick else {}
    points = _claim_grid(quick)
    brackets = {(a, r): full_memory_bracket(GatedQueue(a, 1, r, 1), **sizes) for a, r in points}
    scope = (
        f"$\\mu = C = 1$; {in_set(LAMBDA_NU, points)}; "
        "relaxation with the number in system capped at "
        f"{next(iter(brackets.values())).relaxation.states}"
    )
    common = {"kind": Evidence.NUMERICAL, "reason": _NUMERICAL_REASON, "scope": scope}
    widths = [b.width for b in brackets.values()]
    finite = {key: b for key, b in brackets.items() if key[0] != "inf"}
    gains = [b.lower / b.ga - 1 for b in finite.values()]
    ceilings = [b.upper / b.ga - 1 for b in finite.values()]
    infinite = GatedQueue("inf", 1, CLAIM_RATIOS[0], 1)
    periodic = [
        (
            gap_gate_welfare(infinite, (2.1,), (long, short)),
            float(welfare_ga(infinite, (short + long) / 2)),
        )
        for short in (1.2, 1.6, 2.0)
        for long in (2.2, 3.0, 4.5)
    ]
    belief_queue = GatedQueue("3", 1, CLAIM_RATIOS[0], 1)
    belief_sizes = {"paths": 50, "admissions": 1000} if quick else {}
    belief = belief_threshold_welfare(belief_queue, BELIEF_THRESHOLD, **belief_sizes)
    best_gap = brackets.get(("3", CLAIM_RATIOS[0]))
    best_gap = best_gap.gap_gate.welfare if best_gap else optimal_gap_gate(belief_queue).welfare
    claims = [
        Claim(
            name="gated.history.belief_beats_gap_gate",
            statement=(
                r"at $\Lambda = 3$, $\nu = 2$ the full-memory policy that reopens the gate "
                r"when $E[N_t \mid \text{history}] \le "
                f"{BELIEF_THRESHOLD}"
                r"$ earns more than the best two-level gap-dependent gate (its 95% "
                r"interval lies above it): the last gap is not all the memory worth having"
            ),
            kind=Evidence.STATISTICAL,
            passed=belief.welfare.lower > best_gap,
            origin=Origin.PACKAGE,
            hypotheses=(_MODEL,),
            scope=(
                f"{belief.welfare.n} independent paths of "
                f"{belief_sizes.get('admissions', 2000)} admissions (a tenth warm-up)"
            ),
            quantity="welfare per unit time of the belief-threshold policy",
            value=belief.welfare.mean,
            reference=best_gap,
            estimate=belief.welfare,
        ),
        Claim(
            name="gated.history.bracket",
            statement=(
                r"the welfare $S_{\mathrm{FM}}$ of the best policy that, after each "
                r"admission, closes a gate for a time chosen from every past admission time "
                r"and then admits the first arrival lies in $[L, U]$ with $L \le U$, $L$ the "
                r"exact welfare of a gap-dependent gate (GA at $\Lambda = \infty$) and $U$ "
                r"the smaller of the relaxation that observes the queue at admissions and "
                r"GA's optimum at $\Lambda = \infty$ (Hajek's regular-arrivals bound); a "
                r"window rule, which may also turn away arrivals after the gate opens, is "
                r"bounded only by the latter [Haj83]; the widths are "
                + ", ".join(f"{w:.3g}" for w in widths)
            ),
            passed=all(b.lower <= b.upper for b in brackets.values()),
            origin=Origin.PACKAGE,
            hypotheses=(r"$\nu = R\mu/C > 1$", _MODEL),
            quantity="smallest U - L",
            value=min(widths),
            reference=0.0,
            **common,
        ),
        Claim(
            name="gated.history.relaxation_above_ga",
            statement=(
                r"GA's optimum is at most the Bellman-inequality bound (float64) on the "
                r"optimum of the semi-Markov relaxation that observes the number in system "
                r"at each admission"
            ),
            passed=all(b.ga <= b.relaxation.upper for b in brackets.values()),
            origin=Origin.PACKAGE,
            hypotheses=(r"$\nu = R\mu/C > 1$", _MODEL),
            quantity="smallest relaxation bound - S_GA*",
            value=min(b.relaxation.upper - b.ga for b in brackets.values()),
            reference=0.0,
            **common,
        ),
        Claim(
            name="gated.history.memory_gain",
            statement=(
                r"at every finite $\Lambda$ of the grid full memory beats GA: the best "
                r"gap-dependent gate gains between "
                f"{100 * min(gains):.3g}% and {100 * max(gains):.3g}% over GA's optimum, "
                r"and no full-memory gate policy (a gate, then the first arrival) gains more "
                r"than "
                f"{100 * max(ceilings):.3g}% (per point: "
                + "; ".join(
                    f"Lambda = {a}, nu = {r}: {100 * g:.3g}%..{100 * c:.3g}%"
                    for (a, r), g, c in zip(finite, gains, ceilings, strict=True)
                )
                + ")"
            ),
            passed=min(gains) > 0,
            origin=Origin.PACKAGE,
            hypotheses=(r"$\nu = R\mu/C > 1$", r"$\Lambda < \infty$", _MODEL),
            quantity="smallest relative gain of the best gap-dependent gate over GA",
            value=min(gains),
            reference=0.0,
            **common,
        ),
        Claim(
            name="gated.history.no_gain_at_infinity",
            statement=(
                r"at $\Lambda = \infty$ full memory is worth nothing, $S_{\mathrm{FM}} = "
                r"S_{\mathrm{GA}}^*$ (the admission process is the policy's own, independent "
                r"of the services, and regular arrivals minimise the mean delay); checked: "
                r"alternating gaps $\tau_a \ne \tau_b$ earn less than GA at their mean gap, "
                r"for $\tau_a \in \{1.2, 1.6, 2\}$, $\tau_b \in \{2.2, 3, 4.5\}$"
            ),
            passed=all(alternating < constant for alternating, constant in periodic),
            origin=Origin.TEXTBOOK,
            citation="[Haj83], Theorem 1.1",
            hypotheses=(r"$\Lambda = \infty$", _MODEL),
            quantity="largest S(alternating) - S_GA(mean gap)",
            value=max(a - c for a, c in periodic),
            reference=0.0,
            kind=Evidence.NUMERICAL,
            reason=_NUMERICAL_REASON,
            scope=rf"$\nu = {CLAIM_RATIOS[0]}$, $\mu = C = 1$, 9 gap pairs",
        ),
    ]
    return Records(claims)
