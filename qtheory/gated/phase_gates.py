r"""Phase-type gates: the blocking period after each admission is phase-type, PH(m).

Model.  As in gated admission (GA, :mod:`qtheory.gated.welfare`), potential customers
arrive Poisson(:math:`\Lambda`), service is Exp(:math:`\mu`), a served customer is worth
:math:`R` and each customer in the system costs :math:`C` per unit time.  After each
admission the gate closes for a random time :math:`G \sim \mathrm{PH}(\alpha, T)` with
m phases (the gate's memory: it knows which phase it is in, and nothing else), and the
first arrival after it reopens is admitted.  Admitted inter-arrival times are i.i.d.
:math:`A = G + \mathrm{Exp}(\Lambda)` with the rational transform

.. math:: A^*(s) = \alpha (sI - T)^{-1} t\,\frac{\Lambda}{\Lambda + s},\qquad
          t = -T\mathbf 1,

so the queue is GI/M/1: its root :math:`\sigma\in(0,1)` of
:math:`\sigma = A^*(\mu(1-\sigma))` gives the sojourn law Exp(:math:`\mu(1-\sigma)`) and
the welfare per unit time

.. math:: S = \frac{R - C/(\mu(1-\sigma))}{E[G] + 1/\Lambda}.

Erlang gates.  For the Erlang-m gate of mean :math:`\tau`,
:math:`G^*(s) = (1 + s\tau/m)^{-m}`, and the root equation can be solved for the gate
(never for :math:`\sigma`, which always has the trivial root 1): in
:math:`w = -\log\sigma`, :math:`u = \mu(1 - e^{-w})` and :math:`\beta = 1/\Lambda`,

.. math:: \tau_m(w) = \frac{m}{u}\Bigl(\exp\frac{w - \log(1 + \beta u)}{m} - 1\Bigr),

so the welfare is an explicit function :math:`S_m(w) = N(w)/D(w)`,
:math:`N = R - C/u`, :math:`D = \tau_m(w) + \beta`, and the optimum is the root of the
first-order condition :math:`N'D - ND' = 0`, on the bracket of GA: its left end is where
:math:`N` vanishes (:math:`\sigma = 1 - 1/\nu`) or, when :math:`\Lambda < \mu`, where
:math:`\tau = 0` (:math:`\sigma = \Lambda/\mu`, the same point for every m), whichever
is larger.  :func:`derive_erlang_gate` derives these formulas with Sympy for symbolic m
and proves the two ends of the family: with m = 1 and :math:`\Lambda = \infty` the
admitted stream is Poisson of rate :math:`1/\tau` (random routing, RR), and as
:math:`m\to\infty`, :math:`\tau_m(w)` tends to GA's :math:`(w - \log(1+\beta u))/u`
(the deterministic gate); the error is at most
:math:`\tau_\infty(w)^2 u/(2m)\,e^{\tau_\infty u/m}`.

Accuracy.  Optima are computed in mpmath at twice the requested digits plus guard digits
(as GA's, :mod:`qtheory.gated.welfare`) and rounded: float64 with ``dps=None``, D
correct digits with ``dps=D``.  The evaluators of :math:`S_m` and its derivative are
written out by hand (no Sympy at run time); the tests compare them with the derivation.

General PH gates are evaluated from the matrix transform (:func:`ph_gate_root`,
:func:`welfare_ph_gate`); :func:`coxian_search` maximises the welfare over Coxian-m gates
(every acyclic PH(m) law has a Coxian-m representation) by multi-start local
optimisation, to ask whether the Erlang gate is optimal among PH(m).

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026) (gated admission, the Price of Forgetting).
.. [2] L. Kleinrock, Queueing Systems, Vol. I, Wiley (1975), Sec. 6.4 (GI/M/1).
.. [3] M. F. Neuts, *Matrix-Geometric Solutions in Stochastic Models*, Johns Hopkins
   University Press (1981), Chapter 2 (phase-type laws).
.. [4] C. A. O'Cinneide, "Characterization of phase-type distributions", Stochastic
   Models 6(1):1-57 (1990) (acyclic PH laws have Coxian representations).
.. [5] N. M. Edelson and D. K. Hildebrand, "Congestion tolls for Poisson queuing
   processes", Econometrica 43(1):81-92 (1975) (random routing).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

import mpmath
import numpy as np

from qtheory.core import limits
from qtheory.core.numerics import bracketed_root_mp
from qtheory.core.phase_type import PhaseType, as_phase_type
from qtheory.core.precision import check_dps, rounded
from qtheory.core.validation import positive_int
from qtheory.gated.gim1_root import mp_value
from qtheory.gated.optima import GateOptimum, as_float64
from qtheory.gated.welfare import (
    optimal_gate,
    optimal_log_root,
    optimal_routing,
    renewal_welfare,
    working_dps,
)
from qtheory.model.gated import GatedQueue, checked_queue

__all__ = [
    "CoxianSearch",
    "ErlangGateFormulas",
    "PofByPhases",
    "coxian_search",
    "derive_erlang_gate",
    "erlang_gate_of_root",
    "optimal_erlang_gate",
    "ph_gate_root",
    "pof_by_phases",
    "welfare_erlang_gate",
    "welfare_ph_gate",
]

#: Largest number of Erlang phases (the digits of exp(x/m) - 1 need no more care).
MAX_PHASES = 10_000
#: Phases of the PoF(m) table.
PHASES = tuple(range(1, 65))
PAPER = "[HR26]"
MODEL = (
    r"unobservable M/M/1 ($\Lambda$, $\mu$, $R$, $C$); after each admission the gate "
    r"closes for an Erlang-$m$ time of mean $\tau$"
)


def checked_phases(phases: object) -> int:
    m = positive_int("phases", phases)
    if m > MAX_PHASES:
        raise ValueError(f"phases must be <= {MAX_PHASES}, got {m}")
    return m


def _erlang_terms(w, m: int, mu, beta):
    """(u, u', τ_m(w), τ_m'(w)) in mpmath at the current precision (module notes)."""
    u = -mu * mpmath.expm1(-w)
    du = mu * mpmath.exp(-w)
    log_term = mpmath.log1p(beta * u)
    dlog_term = beta * du / (1 + beta * u)
    x = (w - log_term) / m
    growth = mpmath.expm1(x)
    tau = m * growth / u
    dtau = (mpmath.exp(x) * (1 - dlog_term) * u - m * growth * du) / u**2
    return u, du, tau, dtau


def erlang_gate_of_root(w, phases: int, service_rate, beta):
    r"""τ_m(w): the mean Erlang-m gate whose GI/M/1 root is σ = e^{−w}.

    .. math:: \tau_m(w) = \frac{m}{u}\Bigl(\exp\frac{w - \log(1+\beta u)}{m} - 1\Bigr),
              \qquad u = \mu(1 - e^{-w}).

    Parameters
    ----------
    w : mpmath.mpf or float
        −log σ > 0.
    phases : int
        m ≥ 1.
    service_rate, beta : mpmath.mpf or float
        μ > 0 and β = 1/Λ ≥ 0.

    Returns
    -------
    mpmath.mpf
        τ_m(w) at the current mpmath precision (negative outside the feasible range).

    Examples
    --------
    m = 1, Λ = ∞ is M/M/1 with λ = 1/τ = μσ:

    >>> float(erlang_gate_of_root(mpmath.log(2), 1, 1, 0))
    2.0

    References
    ----------
    See the module's References: Kleinrock (1975), Sec. 6.4.
    """
    m = checked_phases(phases)
    w, mu, beta = (mpmath.mpf(v) for v in (w, service_rate, beta))
    return _erlang_terms(w, m, mu, beta)[2]


def _log_root_erlang(tau, m: int, mu, beta, digits: int):
    """w with τ_m(w) = τ (τ_m is increasing; τ_m(w) ≥ (w − log(1 + μβ))/μ bounds w)."""
    lower = mpmath.mpf(10) ** (-digits - 50)
    upper = mu * tau + mpmath.log1p(mu * beta) + 1
    return bracketed_root_mp(lambda w: _erlang_terms(w, m, mu, beta)[2] - tau, lower, upper, digits)


def welfare_erlang_gate(queue: GatedQueue, gate, phases: int, *, dps: int | None = None):
    """S_m(τ), the welfare per unit time of the Erlang-m gate of mean τ.

    Parameters
    ----------
    queue : GatedQueue
        The queue (Λ, μ, R, C).
    gate : float, str or mpmath.mpf
        Mean gate τ ≥ 0 with τ + 1/Λ > 1/μ (stable).
    phases : int
        m ≥ 1.
    dps : int or None, keyword-only
        None: float64.  D ≥ 1: an mpf correct to D digits.

    Returns
    -------
    float or mpmath.mpf

    Raises
    ------
    ValueError
        ``gate`` negative or unstable, ``phases`` < 1, a bad ``dps``.

    Examples
    --------
    m = 1, Λ = ∞, τ = 2 is M/M/1 with λ = 1/2: S = λ(R − C/(μ − λ)) = 0.5 at R = 3:

    >>> round(welfare_erlang_gate(GatedQueue("inf", 1, 3, 1), 2.0, 1), 12)
    0.5

    References
    ----------
    See the module's References: Kleinrock (1975), Sec. 6.4.
    """
    queue = checked_queue(queue)
    m = checked_phases(phases)
    dps = check_dps(dps)
    digits = working_dps(queue, 17 if dps is None else dps)
    with mpmath.workdps(digits):
        p = queue.parameters(digits)
        tau = mp_value("gate", gate)
        if mpmath.isnan(tau) or not 0 <= tau < mpmath.inf:
            raise ValueError(f"gate must be finite and >= 0, got {gate!r}")
        excess = tau + p.beta - 1 / p.mu
        if not excess > 0:
            raise ValueError("gate + 1/arrival_rate must exceed 1/service_rate (stable queue)")
        closeness = max(0, math.ceil(float(mpmath.log10((tau + p.beta) / excess))))
        limits.require("dps", digits + 2 * closeness, parameter="dps", what="the Erlang-m root")
    with mpmath.workdps(digits + 2 * closeness):
        p = queue.parameters(digits)
        w = _log_root_erlang(mp_value("gate", gate), m, p.mu, p.beta, digits - 10)
        u, _, tau, _ = _erlang_terms(w, m, p.mu, p.beta)
        welfare = renewal_welfare(p.reward, p.cost, u, tau + p.beta)
    return float(welfare) if dps is None else rounded(welfare, dps)


def _optimal_erlang_mp(queue: GatedQueue, m: int, digits: int) -> GateOptimum:
    p = queue.parameters(digits)
    mu, beta, R, C = p.mu, p.beta, p.reward, p.cost

    def slope(w):  # N'D - N D', N = R - C/u, D = τ_m + β
        u, du, tau, dtau = _erlang_terms(w, m, mu, beta)
        return C * du / u**2 * (tau + beta) - (R - C / u) * dtau

    w, at_boundary = optimal_log_root(slope, p, digits)
    u, _, tau, _ = _erlang_terms(w, m, mu, beta)
    return GateOptimum(
        gate=mpmath.mpf(0) if at_boundary else tau,
        root=mpmath.exp(-w),
        log_root=w,
        welfare=renewal_welfare(R, C, u, tau + beta),
        throughput=1 / (tau + beta),
        mean_sojourn=1 / u,
        at_boundary=bool(at_boundary),
        phases=m,
    )


def optimal_erlang_gate(queue: GatedQueue, phases: int, *, dps: int | None = None):
    """The welfare-maximising Erlang-m gate: τ* and S_m(τ*).

    S_m = N/D in w = −log σ (module notes) is maximised at the root of N'D − ND' on
    GA's bracket (or at τ* = 0 when the slope is ≤ 0 there).  m = 1 with Λ = ∞ is
    random routing; m → ∞ tends to GA.

    Parameters
    ----------
    queue : GatedQueue
        The queue; ν = Rμ/C > 1.
    phases : int
        m ≥ 1.
    dps : int or None, keyword-only
        None: float64 fields.  D ≥ 1: mpf fields correct to D digits.

    Returns
    -------
    GateOptimum

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ν ≤ 1, ``phases`` < 1 (or above :data:`MAX_PHASES`), a bad ``dps``.

    Examples
    --------
    Λ = ∞, μ = C = 1, ν = 2: m = 2 gives σ = 1/4, τ* = 8/3 and S* = 1/4 exactly
    (σ = (1 + (3/4)(8/3)/2)^{-2}), between RR's (√2 − 1)² and GA's 0.3734:

    >>> q = GatedQueue("inf", 1, 2, 1)
    >>> [round(optimal_erlang_gate(q, m).welfare, 8) for m in (1, 2, 64)]
    [0.17157288, 0.25, 0.36850924]
    >>> mpmath.nstr(optimal_erlang_gate(q, 3, dps=18).welfare, 18)
    '0.284756794413142106'

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Kleinrock (1975), Sec. 6.4.
    """
    queue = checked_queue(queue)
    m = checked_phases(phases)
    dps = check_dps(dps)
    queue.require_worthwhile()
    digits = 17 if dps is None else dps
    with mpmath.workdps(working_dps(queue, digits)):
        optimum = _optimal_erlang_mp(queue, m, digits)
    return as_float64(optimum) if dps is None else rounded(optimum, dps)


@dataclass(frozen=True)
class PofByPhases:
    """PoF(m) of the Erlang-m gates against RR and GA, for one queue.

    Attributes
    ----------
    phases : tuple of int
        The values of m.
    welfare : tuple of float
        S_m* for each m.
    pof : tuple of float
        S_m*/S_RR*.
    share : tuple of float
        (S_m* − S_RR*)/(S_GA* − S_RR*): the share of GA's gain over RR recovered by m
        phases of memory (NaN when GA gains nothing: both admit everybody).
    welfare_rr, welfare_ga, pof_ga : float
        S_RR*, S_GA* and S_GA*/S_RR*.
    ga_at_boundary : bool
        GA's optimum is τ* = 0 (admitting everybody is best): then every gate's optimum
        is τ* = 0 too, and PoF(m) is the same for all m.

    Examples
    --------
    >>> table = pof_by_phases(GatedQueue("inf", 1, 2, 1), (1, 2))
    >>> [round(x, 6) for x in table.share]
    [0.0, 0.388654]
    """

    phases: tuple[int, ...]
    welfare: tuple[float, ...]
    pof: tuple[float, ...]
    share: tuple[float, ...]
    welfare_rr: float
    welfare_ga: float
    pof_ga: float
    ga_at_boundary: bool

    def rows(self) -> list[dict[str, float]]:
        """One dict per m (keys ``m``, ``welfare``, ``pof``, ``share``), for tables.

        >>> pof_by_phases(GatedQueue("inf", 1, 2, 1), (1,)).rows()[0]["m"]
        1
        """
        return [
            {"m": m, "welfare": s, "pof": p, "share": g}
            for m, s, p, g in zip(self.phases, self.welfare, self.pof, self.share, strict=True)
        ]


def pof_by_phases(queue: GatedQueue, phases: Iterable[int] = PHASES) -> PofByPhases:
    """The Price of Forgetting of Erlang-m gates, PoF(m) = S_m*/S_RR*, and the share of
    GA's gain each m recovers, (S_m* − S_RR*)/(S_GA* − S_RR*) (float64, each optimum
    correct to float64).

    Parameters
    ----------
    queue : GatedQueue
        The queue; ν > 1.
    phases : iterable of int
        The values of m (default 1..64).

    Returns
    -------
    PofByPhases

    Raises
    ------
    ValueError
        ν ≤ 1, or an m < 1.

    Examples
    --------
    >>> table = pof_by_phases(GatedQueue("inf", 1, 4, 1), (1, 8, 64))
    >>> [round(x, 4) for x in table.pof], round(table.pof_ga, 4)
    ([1.0, 1.4422, 1.5182], 1.5296)

    References
    ----------
    See the module's References: Hassin and Ravner (2026).
    """
    queue = checked_queue(queue)
    ms = tuple(checked_phases(m) for m in phases)
    rr = optimal_routing(queue).welfare
    ga_optimum = optimal_gate(queue)
    ga = ga_optimum.welfare
    welfare = tuple(optimal_erlang_gate(queue, m).welfare for m in ms)
    return PofByPhases(
        phases=ms,
        welfare=welfare,
        pof=tuple(s / rr for s in welfare),
        share=tuple((s - rr) / (ga - rr) if ga > rr else math.nan for s in welfare),
        welfare_rr=rr,
        welfare_ga=ga,
        pof_ga=ga / rr,
        ga_at_boundary=ga_optimum.at_boundary,
    )


# ---- general phase-type gates ---------------------------------------------------------


def _lst_mp(ph: PhaseType, s):
    """α (sI − T)^{-1} t in mpmath (the float64 entries are read exactly)."""
    m = ph.phases
    matrix = mpmath.matrix(m, m)
    for i in range(m):
        for j in range(m):
            matrix[i, j] = (s if i == j else 0) - mpmath.mpf(float(ph.T[i, j]))
    exits = mpmath.matrix([mpmath.mpf(float(x)) for x in -ph.T.sum(axis=1)])
    solution = mpmath.lu_solve(matrix, exits)
    return mpmath.fsum(mpmath.mpf(float(a)) * solution[i] for i, a in enumerate(ph.alpha))


def _gate_parameters(ph: object, arrival_rate, service_rate):
    ph = as_phase_type(ph, "gate")
    queue = GatedQueue(arrival_rate, service_rate, 1.0, 1.0)  # validates the two rates
    p = queue.parameters()
    if not ph.mean + p.beta > 1 / p.mu:
        raise ValueError("gate mean + 1/arrival_rate must exceed 1/service_rate (stable queue)")
    return ph, p.mu, p.beta


def ph_gate_root(ph: PhaseType, arrival_rate, service_rate, *, dps: int | None = None):
    """σ ∈ (0, 1) of the GI/M/1 queue whose admitted inter-arrival is PH + Exp(Λ).

    f(σ) = A*(μ(1 − σ)) − σ is convex with f(0) > 0 and f(1) = 0, and f'(1) > 0 on a
    stable queue, so σ is its only zero in (0, 1): bracketed between 0 and 1 − δ where
    f(1 − δ) < 0 (δ halved until it is).

    Parameters
    ----------
    ph : PhaseType
        The gate law (mean τ = ph.mean).
    arrival_rate, service_rate : float
        Λ > 0 (inf allowed) and μ > 0, with τ + 1/Λ > 1/μ.
    dps : int or None, keyword-only
        None: float64 (SciPy's brentq).  D: an mpf correct to about D digits.

    Returns
    -------
    float or mpmath.mpf

    Raises
    ------
    TypeError
        ``ph`` not a PhaseType.
    ValueError
        A rate out of range, or an unstable queue.

    Examples
    --------
    Exp(1/2) gate, Λ = ∞: M/M/1 with λ = 1/2, σ = λ/μ:

    >>> from qtheory.core.phase_type import exponential
    >>> round(ph_gate_root(exponential(0.5), float("inf"), 1.0), 12)
    0.5

    References
    ----------
    See the module's References: Kleinrock (1975), Sec. 6.4.
    """
    ph, mu, beta = _gate_parameters(ph, arrival_rate, service_rate)
    dps = check_dps(dps)
    if dps is None:
        from scipy.optimize import brentq

        def residual(sigma):
            u = mu * (1 - sigma)
            return ph.lst(u) / (1 + beta * u) - sigma

        return brentq(residual, 0.0, _upper_root_bracket(residual, 1.0), xtol=1e-300, rtol=1e-15)
    digits = dps + 20
    with mpmath.workdps(digits):
        one = mpmath.mpf(1)

        def residual_mp(sigma):
            u = mu * (one - sigma)
            return _lst_mp(ph, u) / (1 + beta * u) - sigma

        sigma = bracketed_root_mp(residual_mp, 0, _upper_root_bracket(residual_mp, one), dps + 5)
    return rounded(sigma, dps)


def _upper_root_bracket(residual, one):
    """1 − δ with residual(1 − δ) < 0 (δ = 2^-k; the residual is negative just below 1)."""
    delta = one / 4
    while not residual(one - delta) < 0:
        delta /= 4
        if delta < 1e-200:
            raise ArithmeticError("no sign change of the GI/M/1 residual below 1")
    return one - delta


def welfare_ph_gate(queue: GatedQueue, ph: PhaseType, *, dps: int | None = None):
    """S = (R − C/(μ(1 − σ)))/(E[G] + 1/Λ) for the PH gate G (float64 or ``dps`` digits).

    Parameters
    ----------
    queue : GatedQueue
        The queue (Λ, μ, R, C), float64 parameters.
    ph : PhaseType
        The gate law.
    dps : int or None, keyword-only
        As :func:`ph_gate_root`.

    Returns
    -------
    float or mpmath.mpf

    Raises
    ------
    TypeError, ValueError
        As :func:`ph_gate_root`.

    Examples
    --------
    An Erlang-3 gate of mean 2 agrees with the closed form of :func:`welfare_erlang_gate`:

    >>> from qtheory.core.phase_type import erlang
    >>> q = GatedQueue("inf", 1, 3, 1)
    >>> round(welfare_ph_gate(q, erlang(3, 1.5)) - welfare_erlang_gate(q, 2.0, 3), 12)
    0.0
    """
    queue = checked_queue(queue).as_float64()
    sigma = ph_gate_root(ph, queue.arrival_rate, queue.service_rate, dps=dps)
    if dps is None:
        beta = 0.0 if math.isinf(queue.arrival_rate) else 1 / queue.arrival_rate
        u = queue.service_rate * (1 - sigma)
        return renewal_welfare(queue.reward, queue.cost, u, ph.mean + beta)
    with mpmath.workdps(dps + 20):
        p = queue.parameters(dps)
        mean = _mean_mp(ph)
        welfare = renewal_welfare(p.reward, p.cost, p.mu * (1 - sigma), mean + p.beta)
    return rounded(welfare, dps)


def _mean_mp(ph: PhaseType):
    """E[G] = α(−T)^{-1}1 in mpmath (the float64 entries read exactly)."""
    m = ph.phases
    matrix = mpmath.matrix([[-mpmath.mpf(float(ph.T[i, j])) for j in range(m)] for i in range(m)])
    solution = mpmath.lu_solve(matrix, mpmath.matrix([1] * m))
    return mpmath.fsum(mpmath.mpf(float(a)) * solution[i] for i, a in enumerate(ph.alpha))


# ---- is the Erlang gate optimal among PH(m)? ---------------------------------------------


@dataclass(frozen=True)
class CoxianSearch:
    """The best Coxian-m gate found by multi-start local optimisation, against Erlang-m.

    Attributes
    ----------
    phases : int
        m.
    welfare : float
        The largest welfare found over Coxian-m gates.
    rates, continue_probabilities : tuple of float
        The best Coxian gate (:func:`qtheory.core.phase_type.coxian`).
    welfare_erlang : float
        S_m* of the Erlang-m gate (:func:`optimal_erlang_gate`).
    relative_gap : float
        (welfare − welfare_erlang)/welfare_erlang: positive if a Coxian gate beat the
        Erlang gate.
    starts : int
        Local optimisations run (the Erlang optimum and random starts).

    Examples
    --------
    >>> found = coxian_search(GatedQueue("inf", 1, 2, 1), 2, starts=2)
    >>> abs(found.relative_gap) < 1e-9, round(found.continue_probabilities[0], 6)
    (True, 1.0)
    """

    phases: int
    welfare: float
    rates: tuple[float, ...]
    continue_probabilities: tuple[float, ...]
    welfare_erlang: float
    relative_gap: float
    starts: int


def _coxian_lst(rates: np.ndarray, proceed: np.ndarray, s: float) -> float:
    """Σ_k (Π_{i<k} p_i)(1 − p_k) Π_{i≤k} r_i/(r_i + s), p_m = 0 (the Coxian transform)."""
    factors = rates / (rates + s)
    reach = np.concatenate(([1.0], np.cumprod(proceed)))  # P(phase k is visited)
    stop = 1.0 - np.concatenate((proceed, [0.0]))
    return float(np.sum(reach * stop * np.cumprod(factors)))


def _coxian_welfare(theta: np.ndarray, m: int, mu: float, beta: float, R: float, C: float):
    """Welfare of the Coxian gate exp(θ[:m]) rates, θ[m:] continuation probabilities;
    −1e6 (a barrier) where the queue is unstable or the rates leave float64's range."""
    from scipy.optimize import brentq

    rates, proceed = np.exp(theta[:m]), np.clip(theta[m:], 0.0, 1.0)
    reach = np.concatenate(([1.0], np.cumprod(proceed)))
    mean = float(np.sum(reach / rates))
    if not (np.all(np.isfinite(rates)) and mean + beta > 1 / mu):
        return -1e6

    def residual(sigma):
        u = mu * (1 - sigma)
        return _coxian_lst(rates, proceed, u) / (1 + beta * u) - sigma

    try:
        sigma = brentq(residual, 0.0, _upper_root_bracket(residual, 1.0), xtol=1e-300, rtol=1e-15)
    except ArithmeticError:  # σ within 1e-200 of 1: far outside any optimum
        return -1e6
    return renewal_welfare(R, C, mu * (1 - sigma), mean + beta)


def coxian_search(
    queue: GatedQueue, phases: int, *, starts: int = 8, seed: int = 0
) -> CoxianSearch:
    """Maximise the welfare over Coxian-m gates (all acyclic PH(m) laws) by multi-start
    L-BFGS-B in (log rates, continuation probabilities), starting from the Erlang-m
    optimum and from ``starts − 1`` random gates around it (rates spread by a factor
    e^{N(0, 1)}, probabilities uniform on [0, 1]); float64.

    A local search finds local optima only: a gap ≤ 0 is evidence, not proof, that the
    Erlang gate is optimal among PH(m).

    Parameters
    ----------
    queue : GatedQueue
        The queue; ν > 1.
    phases : int
        m ≥ 2 (m = 1: the only Coxian gate is exponential).
    starts : int, keyword-only
        Local optimisations, ≥ 1.
    seed : int, keyword-only
        Seed of the random starts.

    Returns
    -------
    CoxianSearch

    Raises
    ------
    ValueError
        ν ≤ 1, ``phases`` < 2, ``starts`` < 1.

    Examples
    --------
    >>> found = coxian_search(GatedQueue(2.0, 1, 5, 1), 3, starts=2)
    >>> found.relative_gap < 1e-9
    True

    References
    ----------
    See the module's References: O'Cinneide (1990).

    .. [1] D. Aldous and L. Shepp, "The least variable phase type distribution is
       Erlang", Stochastic Models 3(3):467-473 (1987).
    """
    from scipy.optimize import minimize

    queue = checked_queue(queue)
    m = checked_phases(phases)
    if m < 2:
        raise ValueError(f"phases must be >= 2 for a Coxian search, got {m}")
    starts = positive_int("starts", starts)
    erlang_opt = optimal_erlang_gate(queue, m)
    p = queue.parameters()
    args = (m, p.mu, p.beta, p.reward, p.cost)
    erlang_rate = m / max(erlang_opt.gate, 1e-3)
    rng = np.random.default_rng(seed)
    bounds = [(math.log(erlang_rate) - 12, math.log(erlang_rate) + 12)] * m + [(0.0, 1.0)] * (m - 1)
    best_value, best_theta = -math.inf, None
    for start in range(starts):
        log_rates = np.full(m, math.log(erlang_rate))
        proceed = np.ones(m - 1)
        if start:
            log_rates = log_rates + rng.normal(0.0, 1.0, m)
            proceed = rng.uniform(0.0, 1.0, m - 1)
        result = minimize(
            lambda theta: -_coxian_welfare(theta, *args),
            np.concatenate((log_rates, proceed)),
            method="L-BFGS-B",
            bounds=bounds,
            options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 2000},
        )
        if -result.fun > best_value:
            best_value, best_theta = -result.fun, result.x
    return CoxianSearch(
        phases=m,
        welfare=float(best_value),
        rates=tuple(float(r) for r in np.exp(best_theta[:m])),
        continue_probabilities=tuple(float(x) for x in best_theta[m:]),
        welfare_erlang=erlang_opt.welfare,
        relative_gap=float((best_value - erlang_opt.welfare) / abs(erlang_opt.welfare)),
        starts=starts,
    )


# ---- the Sympy derivation --------------------------------------------------------------


@dataclass(frozen=True)
class ErlangGateFormulas:
    """The Erlang-m gate's formulas for symbolic m, and the proofs of the two limits.

    Symbols are those of :mod:`qtheory.gated.derivation` (w, μ, β = 1/Λ, R, C, τ, s,
    λ) and ``phases`` (m, a positive integer).

    Attributes
    ----------
    phases : sympy.Symbol
        m.
    gate_lst, interarrival_lst : sympy.Expr
        G*(s) = (1 + sτ/m)^{−m} and A*(s) = G*(s)/(1 + βs).
    root_equation : sympy.Eq
        σ = A*(μ(1 − σ)) (display symbols, Λ = 1/β).
    gate_of_root : sympy.Expr
        τ_m(w), the mean gate with root e^{−w}.
    root_residual : sympy.Expr
        A*(μ(1 − e^{−w})) − e^{−w} at τ = τ_m(w); simplifies to 0 (τ_m solves the root
        equation).
    welfare, first_order : sympy.Expr
        S_m(w) = N/D and N'(w)D(w) − N(w)D'(w).
    stream_residual : sympy.Expr
        A*(s) − λ/(λ + s) at m = 1, β = 0, τ = 1/λ; simplifies to 0 (the admitted
        stream is Poisson of rate 1/τ).
    routing_residual : sympy.Expr
        S_1 at m = 1, β = 0, σ = λ/μ, minus λ(R − C/(μ − λ)); simplifies to 0 (m = 1 is
        random routing).
    gate_lst_limit_residual : sympy.Expr
        lim_{m→∞} G*(s) minus GA's e^{−sτ} (the deterministic gate); simplifies to 0.
    gate_of_root_limit_residual : sympy.Expr
        lim_{m→∞} τ_m(w) minus GA's τ(w); simplifies to 0.

    Examples
    --------
    >>> derive_erlang_gate().gate_lst
    (1 + s*tau/m)**(-m)
    >>> derive_erlang_gate().root_equation
    Eq(sigma, 1/((1 + mu*(1 - sigma)/Lambda)*(1 + mu*tau*(1 - sigma)/m)**m))
    """

    phases: object
    gate_lst: object
    interarrival_lst: object
    root_equation: object
    gate_of_root: object
    root_residual: object
    welfare: object
    first_order: object
    stream_residual: object
    routing_residual: object
    gate_lst_limit_residual: object
    gate_of_root_limit_residual: object


@cache
def derive_erlang_gate() -> ErlangGateFormulas:
    """Derive the Erlang-m gate's root, welfare and first-order condition with Sympy
    (symbolic m), and its limits m = 1 (RR) and m → ∞ (GA); cached, about a second.

    Returns
    -------
    ErlangGateFormulas

    Examples
    --------
    >>> import sympy as sp
    >>> f = derive_erlang_gate()
    >>> [sp.simplify(e) for e in (f.root_residual, f.stream_residual, f.routing_residual,
    ...                           f.gate_lst_limit_residual, f.gate_of_root_limit_residual)]
    [0, 0, 0, 0, 0]

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Kleinrock (1975), Sec. 6.4.
    """
    import sympy as sp

    from qtheory.gated import derivation as d

    m = sp.Symbol("m", positive=True, integer=True)
    w, mu, beta, s, tau = (
        d.log_decay,
        d.service_rate,
        d.mean_exp_phase,
        d.transform_variable,
        d.gate,
    )
    R, C, lam = d.reward, d.cost, d.admission_rate
    gate_lst = (1 + s * tau / m) ** (-m)
    lst = gate_lst / (1 + beta * s)
    u = mu * (1 - sp.exp(-w))
    gate_of_root = m / u * (sp.exp((w - sp.log(1 + beta * u)) / m) - 1)
    residual = sp.powdenest(lst.subs(s, u).subs(tau, gate_of_root) - sp.exp(-w), force=True)
    net, cycle = R - C / u, gate_of_root + beta
    welfare = net / cycle
    rr = {m: 1, beta: 0}
    ga = d.derive()
    ga_gate = ga.gate_of_root.expr.subs(d.NUMERIC)
    return ErlangGateFormulas(
        phases=m,
        gate_lst=gate_lst,
        interarrival_lst=lst,
        root_equation=sp.Eq(d.root, lst.subs(s, mu * (1 - d.root)).subs(beta, 1 / d.arrival_rate)),
        gate_of_root=gate_of_root,
        root_residual=residual,
        welfare=welfare,
        first_order=sp.diff(net, w) * cycle - net * sp.diff(cycle, w),
        stream_residual=lst.subs(rr).subs(tau, 1 / lam) - lam / (lam + s),
        routing_residual=welfare.subs(rr).subs(w, sp.log(mu / lam)) - lam * (R - C / (mu - lam)),
        gate_lst_limit_residual=sp.limit(gate_lst, m, sp.oo) - ga.interarrival_lst_deterministic,
        gate_of_root_limit_residual=sp.limit(gate_of_root, m, sp.oo) - ga_gate,
    )
