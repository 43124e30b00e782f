r"""Gated admission (GA) and random routing (RR) with phase-type service.

Model.  As in :mod:`qtheory.gated.welfare` — potential customers Poisson(:math:`\Lambda`),
one FIFO server, reward :math:`R` per served customer, cost :math:`C` per unit time in
the system — but the service time :math:`S` is phase-type, :math:`S\sim
\mathrm{PH}(\alpha, T)` with :math:`t = -T\mathbf 1`, of mean :math:`1/\mu` (the
:class:`~qtheory.model.gated.GatedQueue`'s μ sets the mean; the *shape* is given: an
Erlang-k, a two-phase hyperexponential with balanced means and a given squared
coefficient of variation (SCV) :math:`c^2`, a two-moment fit, or any PH law, rescaled).

Random routing admits a Poisson(:math:`\lambda`) stream: M/PH/1, whose mean wait is
Pollaczek–Khinchine's :math:`E[W] = \lambda E[S^2]/(2(1-\rho))`,
:math:`E[S^2] = (1+c^2)/\mu^2`.  The welfare
:math:`S_{RR}(\lambda) = \lambda(R - C/\mu) - k\lambda^2/(\mu-\lambda)`,
:math:`k = C(1+c^2)/(2\mu)`, is concave, with the stationary point

.. math:: \lambda^* = \mu\Bigl(1 - \bigl(1 + 2(\nu - 1)/(1+c^2)\bigr)^{-1/2}\Bigr),

(:math:`\mu - \sqrt{\mu C/R}` for exponential service), capped at :math:`\Lambda`.

Gated admission: admitted inter-arrival times are :math:`A = \tau + \mathrm{Exp}(\Lambda)`
(:math:`A = \tau` when :math:`\Lambda = \infty`; a PH gate :math:`G` in place of
:math:`\tau` is allowed too), so the queue of admitted customers is GI/PH/1.  Its waiting
time is matrix-exponential (Asmussen [1]_, [2]_): the ascending ladder height of the
random walk :math:`\sum (S_k - A_{k+1})` is the defective phase-type law
:math:`\mathrm{PH}(\alpha_+, T)` (an overshoot over the level is the residual of a service
time, which is PH with the phase at the crossing), where :math:`\alpha_+` is the
minimal non-negative solution of the fixed point

.. math:: \alpha_+ = \alpha\, \hat A(T + t\alpha_+), \qquad
          \hat A(M) = E[e^{MA}] = e^{\tau M}\,(I - M/\Lambda)^{-1}

(for a PH(:math:`\beta, S_G`) gate, :math:`E[e^{MG}] = (\beta\otimes I)(-(S_G\oplus
M))^{-1}(s_G\otimes I)` replaces :math:`e^{\tau M}`).  The waiting time, the maximum of
the walk, is a geometric sum of ladder heights, hence
:math:`W \sim \mathrm{PH}(\alpha_+, T + t\alpha_+)`:

.. math:: P(W > x) = \alpha_+ e^{(T + t\alpha_+)x}\mathbf 1, \qquad
          E[W] = \alpha_+ (-(T + t\alpha_+))^{-1}\mathbf 1, \qquad
          P(W > 0) = \alpha_+\mathbf 1 .

For exponential service the fixed point is the GI/M/1 root equation,
:math:`\alpha_+ = \sigma = \hat A(-\mu(1-\sigma))` (the scalar R of the GI/M/1-type
chain seen at arrivals, Latouche and Ramaswami [3]_, Ch. 5), and
:math:`E[W] + 1/\mu = 1/(\mu(1-\sigma))`, the results of :mod:`qtheory.gated.welfare`.
It is solved by Newton's method from :math:`\alpha_+ = 0` (the Jacobian from Fréchet
derivatives of the matrix exponential, by Van Loan's block form), whose iterates, like
those of the natural iteration, were seen to increase to the minimal solution (a step
that leaves :math:`\{\alpha_+ \ge 0, \alpha_+\mathbf 1 < 1\}` falls back to the
natural iteration :math:`\alpha_+ \leftarrow \alpha\hat A(T+t\alpha_+)`, monotone from
0); the residual is returned.  For a PH gate the queue is PH/PH/1, a QBD, and
:func:`qtheory.exact.matrix_analytic.qbd_solve` gives an independent route (used by the
tests).

Optimal gate: :math:`S_{GA}(\tau) = (R - C(E[W] + 1/\mu))/(\tau + 1/\Lambda)`; the gate
:math:`\tau^*` is the root of :math:`g(\tau) = N'(\tau)(\tau + 1/\Lambda) - N(\tau)`,
:math:`N = R - C(E[W]+1/\mu)`, with :math:`dE[W]/d\tau` from the implicit derivative of the
fixed point (:math:`\partial\hat A/\partial\tau = M\hat A`; for a PH gate
:math:`\tau G_1` of mean :math:`\tau`,
:math:`\partial E[e^{M\tau G_1}]/\partial\tau = (M/\tau)E[Ge^{MG}]`), bracketed between the
stability boundary (where :math:`E[W]\to\infty`, :math:`g > 0`) and large :math:`\tau`
(:math:`g \to -(R - C/\mu) < 0`); :math:`\tau^* = 0` if :math:`g(0) \le 0`.  Unlike the
exponential case, uniqueness of the critical point is not proved here: the tests compare
with a grid search.

Renewal potential arrivals (``arrivals=``, :mod:`qtheory.gated.service_arrivals`):
potential gaps :math:`X\sim\mathrm{PH}(\alpha_a, T_a)` of mean :math:`1/\Lambda`,
:math:`t_a = -T_a\mathbf 1`, :math:`Q = T_a + t_a\alpha_a`.  GA's gate opens at an
admission, an arrival epoch, so :math:`A = \tau + R`, :math:`R\sim\mathrm{PH}(\pi(\tau),
T_a)`, :math:`\pi(\tau) = \alpha_a e^{Q\tau}`: :math:`\hat A(M) = e^{\tau M}E[e^{MR}]`,
the second factor the PH transform above with :math:`\beta = \pi(\tau)`, and :math:`D =
E[A] = \tau + \pi(\tau)(-T_a)^{-1}\mathbf 1` has :math:`D' = \pi(\tau)t_a/\Lambda`, so
the optimal gate is the root of :math:`N'D - ND'`.  For Erlang-k input :math:`D'(0) = 0`
and this vanishes like :math:`\tau^{k-1}` at 0, its sign there mere rounding: the
welfare is scanned first at :math:`\tau = 0` and :math:`E[S]2^j`, :math:`j = -10, \dots,
20`, the root bracketed by the best point's neighbours (:math:`\tau^* = 0` unless a
point beats 0 by over 1e-12 relative).  RR's gap is a Geometric(:math:`q`) sum of
:math:`X`'s, :math:`\mathrm{PH}(\alpha_a, T_a + (1-q)t_a\alpha_a)` with exit vector
:math:`qt_a` and mean :math:`1/(q\Lambda)`, and the GI/PH/1 ladder height replaces
Pollaczek–Khinchine (which needs Poisson input); its optimal rate is numerical (a grid,
then Brent's bounded method).  Stability is :math:`E[S] < E[A]`.  With exponential
service both reduce to the GI/M/1 route of :mod:`qtheory.gated.renewal` (seen:
1e-15 for GA's gate and welfare, 1e-8 for RR's flat-topped rate); ``"erlang:1"`` is the
Poisson model through this route (1e-13).  The default ``"poisson"`` runs the code above
unchanged.

Accuracy: float64.  Against Pollaczek–Khinchine (M/PH/1 as the case τ = 0) the relative
error of E[W] was at most 3e-14 at load ≤ 0.5, 5e-13 at 0.9 and 3e-11 at 0.99 (Erlang-3,
Erlang-10, a Coxian-3, H2 with SCV 4 and 50); it grows like 1/(1 − ρ) into heavy traffic.
The residual of the fixed point is returned.  There is no ``dps`` route.

References
----------
.. [1] S. Asmussen, Applied Probability and Queues, 2nd ed., Springer (2003), Ch. VIII
   (GI/G/1 steady state; phase-type ladder heights and the GI/PH/1 waiting time).
.. [2] S. Asmussen, "Phase-type representations in random walk and queueing problems",
   Annals of Probability 20(2):772-789 (1992).
.. [3] G. Latouche and V. Ramaswami, *Introduction to Matrix Analytic Methods in
   Stochastic Modeling*, SIAM (1999).
.. [4] N. M. Edelson and D. K. Hildebrand, "Congestion tolls for Poisson queuing
   processes", Econometrica 43(1):81-92 (1975).
.. [5] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [6] H. C. Tijms, A First Course in Stochastic Models, Wiley (2003), Sec. 2.6 (two-moment
   fits by mixed Erlang and balanced hyperexponential laws).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from qtheory.core import limits
from qtheory.core.numerics import expm
from qtheory.core.phase_type import (
    PhaseType,
    service_law,
    service_phases,
)
from qtheory.core.validation import nonnegative, positive
from qtheory.gated.cost_optimum import arrival_streams
from qtheory.gated.optima import GateOptimum, RoutingOptimum
from qtheory.gated.service_arrivals import RenewalArrivals, maximise_on_interval
from qtheory.model.gated import GatedParameters, GatedQueue, checked_queue

__all__ = [
    "LadderHeight",
    "ladder_height",
    "optimal_gate_ph",
    "optimal_routing_ph",
    "pollaczek_khinchine_wait",
    "price_of_forgetting_ph",
    "welfare_ga_ph",
    "welfare_rr_ph",
]

#: Newton steps allowed before falling back to the natural iteration.
_NEWTON_STEPS = 60
#: Natural-iteration steps allowed (the fallback).
_NATURAL_STEPS = 200_000
#: Every this many natural steps the contraction per step is measured over the last
#: window, and the iteration gives up at once if at that rate it would need more than
#: twice :data:`_NATURAL_STEPS` (heavy-tailed service: about 1 − 1/SCV per step).
_FORECAST_WINDOW = 1_000
#: Cost estimates of one optimal gate (:func:`require_phase_type`): fixed-point solves
#: (the bracket's doublings and Brent's steps), Jacobians per solve (Newton's steps and
#: the gate derivative), dp_cells of one Python-level direction of a Jacobian, and
#: k × k float arrays alive at once (the 2k × 2k Van Loan block and its expm counted
#: four times over).
_SOLVES, _JACOBIANS, _DIRECTION_CELLS, _SQUARE_ARRAYS = 40, 8, 3e4, 80


def _scaled(queue: GatedQueue, service) -> tuple[PhaseType, GatedParameters]:
    """The service law of mean 1/μ and the queue's float64 parameters."""
    queue = checked_queue(queue)
    p = queue.parameters()
    return service_law(service).scaled(1.0 / p.mu), p


def _renewal(arrivals, p: GatedParameters) -> RenewalArrivals | None:
    """None for Poisson arrivals (None or ``"poisson"``, as for
    :func:`qtheory.gated.optimal_gate`: the closed forms and today's code path; any other
    law, even ``"erlang:1"``, takes the renewal route), else the renewal law of mean 1/Λ
    (:mod:`qtheory.gated.service_arrivals`)."""
    if arrival_streams(arrivals) is None:
        return None
    return RenewalArrivals(arrivals, math.inf if p.beta == 0 else 1 / p.beta)


def require_phase_type(law: PhaseType | str, gates: list[int | None]) -> None:
    """Refuse, before any work, optimal gates of :func:`optimal_gate_ph` with the service
    ``law`` (k phases) whose memory or work exceeds :mod:`qtheory.core.limits`, naming
    ``service``; a spec string is refused from its phase count before its law is built
    (:func:`~qtheory.core.phase_type.service_phases`).  Per gate about 40 fixed-point
    solves of 8 Jacobians of k directions, each direction the expm of a 2k × 2k block
    (a deterministic gate, about 200 k³ cells) or an einsum over the g blocks of a
    g-phase gate (g k⁴ cells); about 80 k × k float arrays (and 4 g of them for a
    g-phase gate).

    Parameters
    ----------
    law : PhaseType or str
        The service law, or its spec (:func:`~qtheory.core.phase_type.service_law`).
    gates : list of int or None
        The gates to optimise: None for a deterministic gate, g for a g-phase gate.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        Above the ``memory`` or the ``dp_cells`` limit.

    Examples
    --------
    >>> from qtheory.core.phase_type import erlang
    >>> require_phase_type(erlang(4, 4.0), [None, 1, 2, 3])  # within the limits
    >>> require_phase_type(erlang(2000, 2000.0), [None])
    Traceback (most recent call last):
    ...
    ValueError: service: 1 optimal gate(s) with 2000 service phases needs ...
    >>> require_phase_type("erlang:100000", [None])  # not built: refused from its spec
    Traceback (most recent call last):
    ...
    ValueError: service: 1 optimal gate(s) with 100000 service phases needs ...
    """
    phases = service_phases(law)
    k = float(phases)
    what = f"{len(gates)} optimal gate(s) with {phases} service phases"
    widest = max(0 if g is None else g for g in gates)
    memory = 8 * k**2 * (_SQUARE_ARRAYS + 4 * widest)
    limits.require("memory", memory, parameter="service", what=what)
    per_direction = sum(_DIRECTION_CELLS + (200 * k**3 if g is None else g * k**4) for g in gates)
    cells = _SOLVES * _JACOBIANS * k * per_direction
    limits.require("dp_cells", cells, parameter="service", what=what)


def squared_cv(law: PhaseType) -> float:
    return law.moment(2) / law.mean**2 - 1.0


# ------------------------------------------------------------------ M/PH/1 (random routing)


def pollaczek_khinchine_wait(rate: float, service: PhaseType) -> float:
    r"""Mean waiting time of the M/PH/1 queue, :math:`\lambda E[S^2]/(2(1-\rho))`.

    Parameters
    ----------
    rate : float
        Arrival rate λ > 0.
    service : PhaseType
        The service law (used as given), with ρ = λE[S] < 1.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        λ ≤ 0, or ρ ≥ 1 (naming ``rate``).

    Examples
    --------
    M/M/1 at ρ = 1/2: E[W] = ρ/(μ − λ) = 1.

    >>> from qtheory.core.phase_type import exponential
    >>> pollaczek_khinchine_wait(0.5, exponential(1.0))
    1.0

    References
    ----------
    .. [1] L. Kleinrock, Queueing Systems, Vol. I, Wiley (1975), Sec. 5.7.
    """
    rate = positive("rate", rate)
    rho = rate * service.mean
    if not rho < 1:
        raise ValueError(f"rate must give load rate*E[S] < 1 (stable), got rho = {rho!r}")
    return rate * service.moment(2) / (2.0 * (1.0 - rho))


def welfare_rr_ph(
    queue: GatedQueue, rate: float, service: str | PhaseType, *, arrivals="poisson"
) -> float:
    """S_RR(λ) = λ(R − C(E[W] + 1/μ)) of random routing with phase-type service.

    Poisson arrivals: M/PH/1 by Pollaczek–Khinchine.  Renewal arrivals: the admitted gap
    is a Geometric(q) sum of potential gaps, q = λ/Λ, the phase-type law
    PH(α_a, T_a + (1 − q)t_aα_a) (:mod:`qtheory.gated.service_arrivals`), and E[W] is the
    GI/PH/1 mean wait from the ladder height (module notes).

    Parameters
    ----------
    queue : GatedQueue
        Λ, μ (the service mean 1/μ), R, C.
    rate : float
        Admission rate 0 < λ ≤ Λ, λ < μ.
    service : str or PhaseType
        The service shape (:func:`service_law`).
    arrivals : str or PhaseType, keyword-only
        ``"poisson"`` (the default), or a renewal shape of
        :func:`~qtheory.core.phase_type.arrival_law` (``"erlang:K"``, ``"hyperexp:SCV"``,
        ``"fit:SCV"``, a PhaseType) rescaled to mean 1/Λ (Λ finite).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        λ outside (0, min(Λ, μ)), or a bad ``arrivals`` law.

    Examples
    --------
    >>> q = GatedQueue(np.inf, 1.0, 3.0, 1.0)
    >>> welfare_rr_ph(q, 0.5, "exponential")  # 0.5 (3 − 2), as qtheory.gated.welfare_rr
    0.5

    Erlang-2 potential arrivals thinned at q = 1/2 are more regular than Poisson ones:

    >>> q2 = GatedQueue(1.0, 1.0, 3.0, 1.0)
    >>> welfare_rr_ph(q2, 0.5, "erlang:2", arrivals="erlang:2") > welfare_rr_ph(
    ...     q2, 0.5, "erlang:2")
    True
    """
    law, p = _scaled(queue, service)
    rate = positive("rate", rate)
    if p.beta > 0 and rate > 1 / p.beta:
        raise ValueError(f"rate must be <= arrival_rate = {1 / p.beta!r}, got {rate!r}")
    renewal = _renewal(arrivals, p)
    if renewal is None:
        wait = pollaczek_khinchine_wait(rate, law)
    else:
        wait = _thinned_wait(rate, law, renewal)
    return rate * (p.reward - p.cost * (wait + law.mean))


def _thinned_wait(rate: float, law: PhaseType, renewal: RenewalArrivals) -> float:
    """E[W] of RR at rate λ with renewal arrivals: GI/PH/1 with the Geometric(λ/Λ) sum."""
    rho = rate * law.mean
    if not rho < 1:
        raise ValueError(f"rate must give load rate*E[S] < 1 (stable), got rho = {rho!r}")
    gap = renewal.thinned(min(rate / renewal.arrival_rate, 1.0))
    return _ladder(law, _Interarrival(None, gap)).mean_wait


def optimal_routing_ph(
    queue: GatedQueue, service: str | PhaseType, *, arrivals="poisson"
) -> RoutingOptimum:
    r"""The welfare-maximising random-routing rate with phase-type service (closed form
    for Poisson arrivals; numerical for renewal ones).

    Poisson: :math:`\lambda^* = \min(\Lambda, \mu x/(\sqrt{1+x}(1+\sqrt{1+x})))`,
    :math:`x = 2(\nu-1)/(1+c^2)` (the module's formula, written without cancellation).
    Renewal arrivals: :func:`welfare_rr_ph` maximised over
    :math:`\lambda \in (0, \min(\Lambda, \mu))` (λ = Λ allowed when Λ < μ) by a 1-D
    search, a grid of 48 rates and then Brent's bounded method between the best one's
    neighbours (:func:`~qtheory.gated.service_arrivals.maximise_on_interval`): numerical
    (concavity is not proved here), the rate to about √eps relative, the welfare to about
    eps.

    Parameters
    ----------
    queue : GatedQueue
        The queue; ν = Rμ/C > 1.
    service : str or PhaseType
        The service shape.
    arrivals : str or PhaseType, keyword-only
        ``"poisson"`` (the default) or a renewal shape (:func:`welfare_rr_ph`).

    Returns
    -------
    RoutingOptimum
        λ*, S_RR(λ*), whether λ* = Λ.

    Raises
    ------
    ValueError
        ν ≤ 1, a bad service or a bad ``arrivals`` law.

    Examples
    --------
    Exponential service: λ* = μ − √(μC/R) = 2/3 at ν = 9; deterministic-like Erlang-50
    service admits more:

    >>> q = GatedQueue(np.inf, 1.0, 9.0, 1.0)
    >>> round(optimal_routing_ph(q, "exponential").rate, 12)
    0.666666666667
    >>> optimal_routing_ph(q, "erlang:50").rate > 0.7
    True

    Erlang-4 arrivals thinned by RR (Λ = 2): more regular than Poisson, so more admitted:

    >>> q2 = GatedQueue(2.0, 1.0, 9.0, 1.0)
    >>> rr = optimal_routing_ph(q2, "erlang:4", arrivals="erlang:4")
    >>> rr.rate > optimal_routing_ph(q2, "erlang:4").rate, rr.at_boundary
    (True, False)
    """
    law, p = _scaled(queue, service)
    queue.require_worthwhile()
    renewal = _renewal(arrivals, p)
    if renewal is not None:
        cap, closed = min(renewal.arrival_rate, p.mu), renewal.arrival_rate < p.mu

        def welfare(rate):
            return rate * (p.reward - p.cost * (_thinned_wait(rate, law, renewal) + law.mean))

        rate = maximise_on_interval(welfare, 0.0, cap, closed=closed)
        return RoutingOptimum(rate, welfare(rate), bool(closed and rate == cap))
    x = 2.0 * p.epsilon / (1.0 + squared_cv(law))
    root = math.sqrt(1.0 + x)
    rate = p.mu * x / (root * (1.0 + root))
    at_boundary = p.beta > 0 and 1 / p.beta <= rate
    if at_boundary:
        rate = 1 / p.beta
    return RoutingOptimum(rate, welfare_rr_ph(queue, rate, law), bool(at_boundary))


# ------------------------------------------------------------------ GI/PH/1 (gated admission)


@dataclass(frozen=True)
class LadderHeight:
    r"""The GI/PH/1 ladder-height law and the waiting time it gives.

    Attributes
    ----------
    alpha : numpy.ndarray
        α_+, the (defective) initial vector of the ladder height PH(α_+, T).
    generator : numpy.ndarray
        T + t α_+, the sub-generator of the waiting time.
    mean_wait : float
        E[W] = α_+ (−(T + tα_+))^{-1} 1.
    prob_wait : float
        P(W > 0) = α_+ 1.
    residual : float
        ‖α Â(T + tα_+) − α_+‖∞.
    iterations : int
        Newton steps (or natural-iteration steps if it fell back).

    Examples
    --------
    >>> from qtheory.core.phase_type import exponential
    >>> lh = ladder_height(exponential(1.0), 2.0, np.inf)  # D/M/1: α_+ = σ
    >>> round(lh.prob_wait, 12), round(lh.mean_wait * (1 - lh.prob_wait), 12)
    (0.20318786998, 0.20318786998)
    """

    alpha: NDArray[np.float64]
    generator: NDArray[np.float64]
    mean_wait: float
    prob_wait: float
    residual: float
    iterations: int

    def wait_tail(self, x: float) -> float:
        """P(W > x) = α_+ exp((T + tα_+)x) 1.

        Parameters
        ----------
        x : float
            x ≥ 0.

        Returns
        -------
        float

        Examples
        --------
        >>> from qtheory.core.phase_type import exponential
        >>> lh = ladder_height(exponential(1.0), 2.0, np.inf)
        >>> sigma = lh.prob_wait  # D/M/1: P(W > x) = σ e^{−μ(1−σ)x}
        >>> round(lh.wait_tail(1.5) / float(sigma * np.exp(-(1 - sigma) * 1.5)), 12)
        1.0
        """
        x = nonnegative("x", x)
        return float(self.alpha @ expm(self.generator * x) @ np.ones(self.alpha.size))


def _gate_blocks(gate: PhaseType, M) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The k × k blocks Z_i of (β⊗I)N and Y_i of N(s⊗I), N = (−(S⊕M))^{-1}, for the gate
    PH(β, S) (g phases, s = −S1) and the k × k matrix M; E[e^{MG}] = Σ_i β_i Y_i.

    Block i of −(S⊕M) Y = s⊗I reads (−S_ii I − M)Y_i − Σ_{j≠i} S_ij Y_j = s_i I: when S
    is upper triangular (Erlang, Coxian, hyperexponential gates) Y is found by block back
    substitution and Z by forward substitution, O(g k³ + g² k²); otherwise through the
    dense gk × gk inverse."""
    S, s, beta, g, k = gate.T, gate.exit_rates, gate.alpha, gate.phases, M.shape[0]
    eye = np.eye(k)
    if not np.any(np.tril(S, -1)):
        D = [np.linalg.inv(-S[i, i] * eye - M) for i in range(g)]
        Y, Z = np.empty((g, k, k)), np.empty((g, k, k))
        for i in reversed(range(g)):
            later = np.flatnonzero(S[i, i + 1 :]) + i + 1
            Y[i] = D[i] @ (s[i] * eye + np.tensordot(S[i, later], Y[later], axes=1))
        for j in range(g):
            earlier = np.flatnonzero(S[:j, j])
            Z[j] = (beta[j] * eye + np.tensordot(S[earlier, j], Z[earlier], axes=1)) @ D[j]
        return Z, Y
    N = np.linalg.inv(-(np.kron(S, eye) + np.kron(np.eye(g), M)))
    Z = (np.kron(beta[None, :], eye) @ N).reshape(k, g, k).transpose(1, 0, 2)
    Y = (N @ np.kron(s[:, None], eye)).reshape(g, k, k)
    return Z, Y


def _ph_factor(law: PhaseType, M):
    """(E[e^{MG}], (Z, Y)) for G ~ PH(β, S) = ``law``: Σ_i β_i Y_i and the blocks of
    :func:`_gate_blocks` that give its derivatives."""
    Z, Y = _gate_blocks(law, M)
    return np.tensordot(law.alpha, Y, axes=1), (Z, Y)


def _ph_direction(cache, E):
    """dE[e^{MG}][E] = (β⊗I) N (I⊗E) N (s⊗I) = Σ_i Z_i E Y_i, from the cache (Z, Y)."""
    Z, Y = cache
    return np.einsum("iab,bc,icd->ad", Z, E, Y)


class _Interarrival:
    """A = gate + tail and its matrix transform Â(M) = E[e^{MA}] (the product of the two
    factors' transforms) with directional derivatives.  The gate is a number d ≥ 0, a
    PhaseType or None (no gate: the factor I); the tail Exp(Λ) (a number Λ; ``inf``: no
    tail) or a PhaseType G (renewal arrivals, :mod:`qtheory.gated.service_arrivals`).
    ``drift`` is the derivative of G's initial vector with respect to the gate's mean
    (GA with renewal arrivals: πQ; None: G does not depend on it), ``mean_slope`` that
    of E[A]."""

    def __init__(self, gate, tail, *, drift=None, mean_slope: float = 1.0):
        if isinstance(tail, PhaseType):
            self.tail, self.beta, tail_mean = tail, None, tail.mean
        else:
            self.tail = None
            self.arrival_rate = positive("arrival_rate", tail, allow_inf=True)
            self.beta = 0.0 if math.isinf(self.arrival_rate) else 1.0 / self.arrival_rate
            tail_mean = self.beta
        self.drift, self.mean_slope = drift, mean_slope
        if gate is None or isinstance(gate, PhaseType):
            self.gate, self.mean = gate, tail_mean + (0.0 if gate is None else gate.mean)
        else:
            self.gate = nonnegative("gate", gate)
            self.mean = self.gate + tail_mean
        if not self.mean > 0:
            raise ValueError("gate + 1/arrival_rate must be > 0 (a gate of 0 needs finite Λ)")

    def _gate_part(self, M):
        """(E[e^{MG}], cache): the cache is (Z, Y) of :func:`_gate_blocks` for a PH gate."""
        if isinstance(self.gate, PhaseType):
            return _ph_factor(self.gate, M)
        if self.gate is None:
            return np.eye(M.shape[0]), None
        return expm(self.gate * M), None

    def _exp_part(self, M):
        """(E[e^{M·tail}], cache): (Z, Y) for a PH tail, the inverse for Exp(Λ)."""
        if self.tail is not None:
            return _ph_factor(self.tail, M)
        m = M.shape[0]
        if self.beta == 0:
            return np.eye(m), None
        inverse = np.linalg.inv(np.eye(m) - self.beta * M)
        return inverse, inverse

    def transform(self, M):
        return self._gate_part(M)[0] @ self._exp_part(M)[0]

    def derivative(self, M, E, gate_part, exp_part):
        """dÂ(M)[E], given the two factors and their caches."""
        (Gm, gcache), (K, kcache) = gate_part, exp_part
        if self.tail is not None:
            dK = _ph_direction(kcache, E)
        else:
            dK = np.zeros_like(M) if kcache is None else self.beta * (kcache @ E @ kcache)
        if self.gate is None:
            return dK
        if isinstance(self.gate, PhaseType):
            dG = _ph_direction(gcache, E)
        else:  # the Fréchet derivative of exp at τM in direction τE (Van Loan's block form)
            m = M.shape[0]
            block = np.block([[M, E], [np.zeros_like(M), M]])
            dG = expm(self.gate * block)[:m, m:]
        return dG @ K + Gm @ dK


def _check_stable(service: PhaseType, arrival: _Interarrival) -> None:
    rho = service.mean / arrival.mean
    if not rho < 1:
        raise ValueError(
            f"gate must make the queue stable, E[S] < gate + 1/arrival_rate: got load {rho:.6g}"
        )


def _jacobian(service, arrival, a):
    """(F(a), J, M, parts): F(a) = α Â(T + t a) − a and J[j] = ∂F/∂a_j."""
    t, alpha = service.exit_rates, service.alpha
    M = service.T + np.outer(t, a)
    parts = (arrival._gate_part(M), arrival._exp_part(M))
    F = alpha @ parts[0][0] @ parts[1][0] - a
    m = a.size
    J = np.empty((m, m))
    for j in range(m):
        E = np.zeros((m, m))
        E[:, j] = t
        J[j] = alpha @ arrival.derivative(M, E, *parts) - np.eye(m)[j]
    return F, J, M, parts


def _solve_fixed_point(service: PhaseType, arrival: _Interarrival):
    """α_+ by Newton from 0 (once a step is below 1e-9, one more step squares the error
    below rounding), else the natural iteration; (α_+, steps)."""
    m = service.phases
    a, polish = np.zeros(m), False
    for step in range(1, _NEWTON_STEPS + 1):
        F, J, _, _ = _jacobian(service, arrival, a)
        new = a + np.linalg.solve(J.T, -F)
        if not (np.all(new > -1e-12) and new.sum() < 1):
            break
        if polish:
            return new, step
        polish = np.abs(new - a).max() <= 1e-9
        a = new
    a, earlier = np.zeros(m), None
    for step in range(1, _NATURAL_STEPS + 1):
        M = service.T + np.outer(service.exit_rates, a)
        new = service.alpha @ arrival.transform(M)
        change, target = np.abs(new - a).max(), 1e-15 * new.max()
        if change <= target:
            return new, step
        if step % _FORECAST_WINDOW == 0:
            needed = _steps_needed(earlier, change, target)
            if step + needed > 2 * _NATURAL_STEPS:
                raise _not_settled(service, f"would need about {needed:.2g} more steps")
            earlier = change
        a = new
    raise _not_settled(service, f"{_NATURAL_STEPS} steps did not settle")


def _steps_needed(earlier: float | None, change: float, target: float) -> float:
    """Steps of the natural iteration still needed to bring its step ``change`` below
    ``target`` at the contraction measured over the last window (``earlier``: the step
    a window ago; None: not measured yet, 0)."""
    if earlier is None or not earlier > 0:
        return 0.0
    rate = (change / earlier) ** (1.0 / _FORECAST_WINDOW)
    if not rate < 1:
        return math.inf
    return math.log(target / change) / math.log(rate)


def _not_settled(service: PhaseType, why: str) -> ArithmeticError:
    return ArithmeticError(
        "the ladder-height fixed point did not converge: Newton's method left the "
        f"feasible set and the natural iteration {why} (service law with "
        f"{service.phases} phases and squared coefficient of variation "
        f"{squared_cv(service):.3g}); try a service law with a smaller squared coefficient "
        "of variation"
    )


def _ladder(service: PhaseType, arrival: _Interarrival) -> LadderHeight:
    _check_stable(service, arrival)
    a, steps = _solve_fixed_point(service, arrival)
    M = service.T + np.outer(service.exit_rates, a)
    residual = np.abs(service.alpha @ arrival.transform(M) - a).max()
    mean_wait = float(a @ np.linalg.solve(-M, np.ones(a.size)))
    return LadderHeight(a, M, mean_wait, float(a.sum()), float(residual), steps)


def ladder_height(service: PhaseType, gate: float | PhaseType, arrival_rate: float) -> LadderHeight:
    r"""The GI/PH/1 waiting time for inter-arrival times gate + Exp(Λ) (module notes).

    Parameters
    ----------
    service : PhaseType
        The service law, used as given.
    gate : float or PhaseType
        A deterministic gate τ ≥ 0, or a phase-type gate law.
    arrival_rate : float
        Λ > 0, ``inf`` allowed (then A = gate).

    Returns
    -------
    LadderHeight
        α_+, T + tα_+, E[W], P(W > 0), the residual and the steps taken.

    Raises
    ------
    ValueError
        A bad gate or rate, or an unstable queue (E[S] ≥ E[A], naming ``gate``).

    Examples
    --------
    M/E2/1 (τ = 0, Λ = 0.5, mean service 1): Pollaczek–Khinchine gives
    E[W] = 0.5 · 1.5/(2 · 0.5) = 0.75:

    >>> from qtheory.core.phase_type import erlang
    >>> round(ladder_height(erlang(2, rate=2.0), 0.0, 0.5).mean_wait, 12)
    0.75

    References
    ----------
    See the module's References:

    - Asmussen (2003), Ch. VIII;
    - Asmussen (1992).
    """
    if not isinstance(service, PhaseType):
        raise TypeError(f"service must be a PhaseType, got {type(service).__name__}")
    return _ladder(service, _Interarrival(gate, arrival_rate))


def _gate_derivative(service, arrival, lh: LadderHeight) -> float:
    """dE[W]/dτ, τ the gate's mean (implicit differentiation of the fixed point).

    ∂Â/∂τ = MÂ for a deterministic gate; for a PH gate τ·G_1 (G_1 of mean 1),
    ∂E[e^{MτG_1}]/∂τ = (M/τ)E[G e^{MG}] = (M/τ)(β⊗I)(S⊕M)^{-2}(s⊗I).  A tail whose
    initial vector moves with τ (renewal GA: dπ/dτ = πQ) adds e^{τM} Σ_i (πQ)_i Y_i."""
    F, J, M, parts = _jacobian(service, arrival, lh.alpha)
    (gate_factor, cache), (exp_factor, tail_cache) = parts
    if isinstance(arrival.gate, PhaseType):  # (β⊗I) N N (s⊗I) = Σ_i Z_i Y_i
        Z, Y = cache
        d_gate = M @ np.einsum("iab,ibc->ac", Z, Y) / arrival.gate.mean
    else:
        d_gate = M @ gate_factor
    dF_dtau = service.alpha @ d_gate @ exp_factor
    if arrival.drift is not None:
        dF_dtau = dF_dtau + service.alpha @ gate_factor @ np.tensordot(
            arrival.drift, tail_cache[1], axes=1
        )
    da = np.linalg.solve(J.T, -dF_dtau)
    ones = np.ones(M.shape[0])
    x = np.linalg.solve(-M, ones)
    y = lh.alpha @ np.linalg.inv(-M)
    return float(da @ x + (y @ service.exit_rates) * (da @ x))


def _ga_interarrival(gate, arrival_rate: float, renewal: RenewalArrivals | None):
    """GA's admitted gap: gate + Exp(Λ) (Poisson), or τ + PH(π(τ), T_a) (renewal)."""
    if renewal is None:
        return _Interarrival(gate, arrival_rate)
    if isinstance(gate, PhaseType):
        raise ValueError("gate must be a number (not a PhaseType) with renewal arrivals")
    tail, drift, slope = renewal.after_gate(gate)
    return _Interarrival(gate, tail, drift=drift, mean_slope=slope)


def welfare_ga_ph(
    queue: GatedQueue, gate: float | PhaseType, service: str | PhaseType, *, arrivals="poisson"
) -> float:
    """S_GA = (R − C(E[W] + 1/μ))/E[A] with phase-type service: E[A] = E[gate] + 1/Λ for
    Poisson arrivals, τ + π(τ)(−T_a)^{-1}1 for renewal ones (the gate opens at an
    admission, an arrival epoch; :mod:`qtheory.gated.service_arrivals`).

    Parameters
    ----------
    queue : GatedQueue
        Λ, μ, R, C.
    gate : float or PhaseType
        τ ≥ 0, or a PH gate law (used as given; Poisson arrivals only).
    service : str or PhaseType
        The service shape, rescaled to mean 1/μ.
    arrivals : str or PhaseType, keyword-only
        ``"poisson"`` (the default) or a renewal shape (:func:`welfare_rr_ph`).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        A bad gate, service or ``arrivals`` law, or an unstable queue.

    Examples
    --------
    Exponential service gives qtheory.gated.welfare_ga:

    >>> from qtheory.gated import welfare_ga
    >>> q = GatedQueue(np.inf, 1.0, 3.0, 1.0)
    >>> abs(welfare_ga_ph(q, 2.0, "exponential") - float(welfare_ga(q, 2.0))) < 1e-13
    True

    A gate of 0 admits every potential customer, as RR at λ = Λ does (Erlang-4 arrivals):

    >>> q2 = GatedQueue(0.5, 1.0, 3.0, 1.0)
    >>> ga = welfare_ga_ph(q2, 0.0, "erlang:2", arrivals="erlang:4")
    >>> abs(ga - welfare_rr_ph(q2, 0.5, "erlang:2", arrivals="erlang:4")) < 1e-12
    True
    """
    law, p = _scaled(queue, service)
    rate = math.inf if p.beta == 0 else 1 / p.beta
    arrival = _ga_interarrival(gate, rate, _renewal(arrivals, p))
    lh = _ladder(law, arrival)
    return (p.reward - p.cost * (lh.mean_wait + law.mean)) / arrival.mean


def optimal_gate_ph(
    queue: GatedQueue,
    service: str | PhaseType,
    *,
    gate_shape: PhaseType | None = None,
    arrivals="poisson",
) -> GateOptimum:
    r"""The welfare-maximising gate τ* of GA with phase-type service (module notes).

    The gate is deterministic, or (``gate_shape``) a phase-type blocking period of the
    given shape and mean τ, e.g. ``erlang(m, m)`` for the Erlang-m gate of
    :mod:`qtheory.gated.phase_gates`, here with phase-type service.  With renewal
    ``arrivals`` the gate is deterministic and τ* is the root of
    :math:`N'(\tau)D(\tau) - N(\tau)D'(\tau)`, :math:`D = E[A]`,
    :math:`D' = \pi(\tau)t_a/\Lambda` (:mod:`qtheory.gated.service_arrivals`), bracketed
    as above when τ = 0 is unstable (the stability boundary :math:`D(\tau) = E[S]` by
    Brent's method), else after a scan of the welfare (module notes); uniqueness is not
    proved (numerical).

    Parameters
    ----------
    queue : GatedQueue
        The queue; ν = Rμ/C > 1.
    service : str or PhaseType
        The service shape, rescaled to mean 1/μ.
    gate_shape : PhaseType or None, keyword-only
        None: a deterministic gate.  A PhaseType: its shape (rescaled to mean τ); Poisson
        arrivals only.
    arrivals : str or PhaseType, keyword-only
        ``"poisson"`` (the default) or a renewal shape (:func:`welfare_rr_ph`).

    Returns
    -------
    GateOptimum
        With ``service`` the law as given (a spec string, or the ``str`` of the
        PhaseType), ``mean_wait`` and ``prob_wait`` from the ladder heights, ``phases``
        the gate's phase count (None: deterministic), and no root σ.

    Raises
    ------
    ValueError
        ν ≤ 1, a bad service or ``arrivals`` law, a ``gate_shape`` with renewal
        arrivals, or a law whose phases make the optimum exceed
        :mod:`qtheory.core.limits` (:func:`require_phase_type`, naming ``service``),
        refused before any work.
    ArithmeticError
        If the fixed point or the bracket of the root gives up.

    Examples
    --------
    Exponential service reproduces qtheory.gated.optimal_gate; Erlang-4 service (less
    variable) earns more:

    >>> from qtheory.gated import optimal_gate
    >>> q = GatedQueue(np.inf, 1.0, 3.0, 1.0)
    >>> opt = optimal_gate_ph(q, "exponential")
    >>> round(opt.gate, 9) == round(optimal_gate(q).gate, 9)
    True
    >>> optimal_gate_ph(q, "erlang:4").welfare > opt.welfare
    True

    An exponential gate with Λ = ∞ is random routing at rate 1/τ:

    >>> from qtheory.core.phase_type import exponential
    >>> rr = optimal_gate_ph(q, "erlang:4", gate_shape=exponential(1.0))
    >>> abs(rr.welfare - optimal_routing_ph(q, "erlang:4").welfare) < 1e-12
    True

    Hyperexponential potential arrivals (SCV 4, Λ = 1.5): GA still beats RR:

    >>> q2 = GatedQueue(1.5, 1.0, 2.0, 1.0)
    >>> ga = optimal_gate_ph(q2, "erlang:4", arrivals="hyperexp:4")
    >>> ga.welfare > optimal_routing_ph(q2, "erlang:4", arrivals="hyperexp:4").welfare
    True
    """
    if gate_shape is not None and not isinstance(gate_shape, PhaseType):
        raise TypeError(f"gate_shape must be a PhaseType, got {type(gate_shape).__name__}")
    gates = [None if gate_shape is None else gate_shape.phases]
    require_phase_type(service, gates)  # from the spec, before the law is built
    law, p = _scaled(queue, service)
    queue.require_worthwhile()
    from scipy.optimize import brentq

    arrival_rate = math.inf if p.beta == 0 else 1 / p.beta
    renewal = _renewal(arrivals, p)
    if renewal is not None and gate_shape is not None:
        raise ValueError("gate_shape must be None with renewal arrivals (a deterministic gate)")

    if gate_shape is not None:
        gate_shape = gate_shape.scaled(1.0 / gate_shape.mean)

    def evaluate(tau):
        gate = tau if gate_shape is None or tau == 0 else gate_shape.scaled(tau)
        arrival = _ga_interarrival(gate, arrival_rate, renewal)
        lh = _ladder(law, arrival)
        net = p.reward - p.cost * (lh.mean_wait + law.mean)
        slope = -p.cost * _gate_derivative(law, arrival, lh)
        return slope * arrival.mean - net * arrival.mean_slope, lh, arrival

    def welfare_at(tau):  # S_GA(τ), no derivative
        arrival = _ga_interarrival(tau, arrival_rate, renewal)
        return (p.reward - p.cost * (_ladder(law, arrival).mean_wait + law.mean)) / arrival.mean

    stable_at_zero = law.mean < p.beta
    lo = hi = None
    if stable_at_zero and renewal is not None:  # g ∝ τ^{k−1} at 0 for Erlang-k: scan S
        grid = [0.0] + [law.mean * 2.0**j for j in range(-10, 21)]
        values = [welfare_at(x) for x in grid]
        best = int(np.argmax(values))
        if values[best] - values[0] > 1e-12 * abs(values[0]):  # else a tie: τ* = 0
            lo, hi = grid[best - 1], grid[min(best + 1, len(grid) - 1)]
    elif stable_at_zero:
        lo = 0.0 if evaluate(0.0)[0] > 0 else None
    else:  # just above the stability boundary, where g > 0
        boundary = law.mean - p.beta if renewal is None else renewal.gate_of_mean(law.mean)
        step = law.mean / 2
        while evaluate(boundary + step)[0] <= 0:
            step /= 2
            if step < 1e-12 * law.mean:
                raise ArithmeticError("no gate above the stability boundary improves welfare")
        lo = boundary + step
    if lo is None:
        tau, at_boundary = 0.0, True
    else:
        at_boundary, scanned = False, hi is not None
        if not scanned:
            hi = lo + law.mean
            while evaluate(hi)[0] >= 0:
                hi = lo + 2 * (hi - lo)
        if not scanned or evaluate(lo)[0] > 0 > evaluate(hi)[0]:
            tau = brentq(lambda x: evaluate(x)[0], lo, hi, xtol=1e-15 * hi, rtol=1e-15)
        else:  # g's sign lost in rounding at the scan's left end (g(0) = 0)
            assert hi is not None  # the scan bracketed the best point
            tau = maximise_on_interval(welfare_at, lo, hi)
    _, lh, arrival = evaluate(tau)
    sojourn = lh.mean_wait + law.mean
    return GateOptimum(
        gate=float(tau), root=None, log_root=None,
        welfare=(p.reward - p.cost * sojourn) / arrival.mean,
        throughput=1.0 / arrival.mean, mean_sojourn=sojourn, at_boundary=at_boundary,
        phases=None if gate_shape is None else gate_shape.phases,
        service=service if isinstance(service, str) else str(service),
        mean_wait=lh.mean_wait, prob_wait=lh.prob_wait,
    )  # fmt: skip


def price_of_forgetting_ph(
    queue: GatedQueue, service: str | PhaseType, *, arrivals="poisson"
) -> float:
    """PoF = S_GA(τ*)/S_RR(λ*) with phase-type service (and renewal ``arrivals``).

    Parameters
    ----------
    queue : GatedQueue
        The queue; ν > 1.
    service : str or PhaseType
        The service shape.
    arrivals : str or PhaseType, keyword-only
        ``"poisson"`` (the default) or a renewal shape (:func:`welfare_rr_ph`).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ν ≤ 1, a bad service or a bad ``arrivals`` law.

    Examples
    --------
    >>> from qtheory.gated import price_of_forgetting
    >>> q = GatedQueue(np.inf, 1.0, 4.0, 1.0)
    >>> abs(price_of_forgetting_ph(q, "exponential") - price_of_forgetting(q)) < 1e-10
    True
    """
    ga = optimal_gate_ph(queue, service, arrivals=arrivals)
    return ga.welfare / optimal_routing_ph(queue, service, arrivals=arrivals).welfare
