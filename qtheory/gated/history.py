r"""History-dependent gates and the full-memory bracket for the unobservable M/M/1 queue.

Nobody observes the queue: potential customers arrive Poisson(:math:`\Lambda`), service
is Exp(:math:`\mu`), and the controller only knows its own admission times.  After each
admission it closes a gate for :math:`\tau \ge 0` (chosen from the history) and admits
the first arrival after the gate reopens.  An admitted customer who finds :math:`M` in
the system costs :math:`C(M+1)/\mu` in expectation, so the welfare per unit time of
any policy is, by renewal-reward, (mean of :math:`R - C(M+1)/\mu` over admissions) /
(mean inter-admission time).

Belief dynamics
---------------
Let :math:`b_t(n) = P(N_t = n \mid \text{admission history})`.  Between admissions
nothing is observed but the absence of an admission, which says nothing about the
queue (the gate and the arrival process do not depend on it), so :math:`b_t` follows
the pure-death chain: :math:`b_{s+t} = b_s P_t` with
:math:`P_t(n, m) = \mathrm{Poisson}(\mu t)(n-m)` for :math:`m \ge 1` and
:math:`P_t(n, 0) = P(\mathrm{Poisson}(\mu t) \ge n)` (:func:`belief_update`).  At an
admission the belief shifts: :math:`b^+(n+1) = b^-(n)`.  With :math:`\Lambda = \infty`
admissions happen when the gate reopens, so the belief path is a deterministic function
of the policy.  With :math:`\Lambda < \infty` the realised gap
:math:`\tau + \mathrm{Exp}(\Lambda)` is random and moves the belief: a long gap left
more time for departures.

(a) Gap-dependent gates
-----------------------
The family: thresholds :math:`0 < \theta_1 < \dots < \theta_{J-1}` and gates
:math:`\tau_1, \dots, \tau_J \ge 0`; after an admission whose preceding gap :math:`G`
lies in :math:`(\theta_{j-1}, \theta_j]` (:math:`\theta_0 = 0`, :math:`\theta_J = \infty`)
the gate is :math:`\tau_j`, a piecewise-constant function of the previous gap
(:class:`GapGate`).  :math:`J = 1` is GA.  The number found :math:`M_n` by the n-th
admitted customer and the bin :math:`j_n` of the gap before it form a Markov chain of
GI/M/1 type: :math:`M_{n+1} = (M_n + 1 - D_n)^+`, where given :math:`j_n = j` the
next gap is :math:`G = \tau_j + E`, :math:`E \sim \mathrm{Exp}(\Lambda)`, and
:math:`D_n` counts the Poisson(:math:`\mu`) service opportunities in it.  The blocks
:math:`A_d(j, j') = P(D = d, G \in \text{bin } j')` are closed forms,

.. math::
    A_d(j, j') = \frac{\Lambda}{\Lambda+\mu}\Bigl(\frac{\mu}{\Lambda+\mu}\Bigr)^{d}
        e^{\Lambda\tau_j}\Bigl[F_d\bigl((\Lambda+\mu)(\tau_j + e_1)\bigr)
                              - F_d\bigl((\Lambda+\mu)(\tau_j + e_2)\bigr)\Bigr],

with :math:`F_d(y) = P(\mathrm{Poisson}(y) \le d)` and :math:`(e_1, e_2]` the values of
:math:`E` that put :math:`G` in bin :math:`j'`.  The stationary law is matrix-geometric
without truncation of the queue (Neuts 1981): :math:`\pi_M = \pi_0 R^M`, :math:`R` the
minimal solution of :math:`R = \sum_{d \ge 0} R^d A_d` (the U-based fixed point,
then Newton's method; checked by its residual), :math:`\pi_0` stationary for
:math:`\sum_M R^M B_M` with :math:`B_M = \sum_{d > M} A_d`, so that
:math:`E[M] = \pi_0 R (I - R)^{-2}\mathbf 1`.  Welfare is exact up to float64 rounding
and the tail of D beyond ``d_max`` (below 2e-16).  :func:`optimal_gap_gate`
maximises over the family by Nelder–Mead started at GA, so it never returns less than
GA.

(b) The full-memory bracket
---------------------------
The best *full-memory gate policy*, which after each admission closes a gate for a time
chosen from every past admission time and then admits the first arrival (the model
above), solves an average-reward problem on the belief.  :func:`full_memory_bracket`
encloses its value :math:`S_{\mathrm{FM}}`.  A *window rule*, which may also turn away
arrivals after the gate has opened, is not of this form: the relaxation below does not
cover it, and only the regular-arrivals bound (Hajek 1983) does, so for window rules the
bracket's upper end is proved only where that bound is the smaller one.

*Lower bound.*  Any admissible policy's welfare: the best gap-dependent gate of (a),
evaluated exactly (:math:`\Lambda < \infty`); GA at :math:`\Lambda = \infty`.  On
request, also the *belief-threshold* policy (reopen the gate when
:math:`E[N_t \mid \text{history}] \le x`), which uses the whole history: simulated
with the belief carried along each path and each admission's reward replaced by its
conditional expectation given the history (so only the Exp(Λ) waits are random and
the interval is narrow; :func:`belief_threshold_welfare`).

*Upper bound (relaxation, gate policies only).*  Give the controller, in addition, the
number :math:`k` in the system just after each admission.  Its information contains the
admission history and its actions are the same gates, so its optimum is
:math:`\ge S_{\mathrm{FM}}`; and since service is memoryless, :math:`k` is a
sufficient state: a semi-Markov decision problem with state :math:`k \ge 1`, action
:math:`\tau \ge 0`, expected sojourn :math:`T(\tau) = \tau + 1/\Lambda`, lump reward
:math:`r(k, \tau) = R - C(E[(k-D)^+] + 1)/\mu` and next state :math:`(k-D)^+ + 1`,
:math:`D` the service opportunities in :math:`\tau + \mathrm{Exp}(\Lambda)`.  Naor's
observable queue can emulate this controller, so it is a looser ceiling still.
(At :math:`\Lambda = \infty` the gate 0 takes no time; the capped problem below then
needs :math:`K \ge \nu`, else admitting at once into a full system pays without end.)

*Truncation.*  The *capped* problem keeps :math:`k \le K` by sending
:math:`(k-D)^+ + 1 = K + 1` to :math:`K` (a customer removed for free).  Its optimum is
an upper bound of the uncapped one: by induction on discounted value iteration the
uncapped values :math:`V_n(k)` are non-increasing in :math:`k` (the reward and, by the
coupling :math:`(k-D)^+ \le (k+1-D)^+`, the continuation are), hence
:math:`V_n(\min(x, K)) \ge V_n(x)` and the capped values dominate on
:math:`k \le K`; the vanishing-discount limit (Sennott 1999, Ch. 7; the Abel mean is
an average of Cesàro means) carries the order to the average reward.  So the bound
holds for every :math:`K`; larger :math:`K` only tightens it.

*Certificate.*  For any :math:`h` on :math:`\{1..K\}` and :math:`g'` with
:math:`r(k, \tau) - g' T(\tau) + E\,h(\text{next}) - h(k) \le 0` for all :math:`k` and
all :math:`\tau \ge 0`, every non-Zeno policy of the capped problem has average reward
:math:`\le g'` (sum the inequality along the path; :math:`h` is bounded; Puterman 1994,
Sec. 11.3).  :math:`h` comes from policy iteration on a fine gate grid; the smallest
such :math:`g'` over *all* :math:`\tau` is found by bisection with a bound on each grid
cell: :math:`F(\tau) = N_k(\tau) - g' T(\tau)`, :math:`N_k(\tau) = E\,\varphi_k(D_\tau)`
with :math:`\varphi_k(d) = v((k-d)^+) - h(k)`, :math:`v(m) = R - C(m+1)/\mu +
h(\min(m+1, K))`, and, because :math:`D_\tau` is a Poisson count,
:math:`N_k' = \mu E\,\Delta\varphi_k(D_\tau)`, :math:`N_k'' = \mu^2 E\,\Delta^2
\varphi_k(D_\tau)`.  On a cell :math:`[a, b]` of width :math:`\delta`, with
:math:`M_2 = \mu^2\max(0, \max_d \Delta^2\varphi_k(d))\,P(D_a < k) \ge \sup N_k''`
(:math:`\Delta^2\varphi_k(d) = 0` for :math:`d \ge k`, and :math:`P(D_\tau < k)`
decreases in :math:`\tau`), :math:`F` is below the smallest of
:math:`\max(F(a), F(b)) + M_2\delta^2/8`,
:math:`\max(F(a), F(a) + F'(a)\delta + M_2\delta^2/2)` (which handles
:math:`T(0) = 0` at :math:`\Lambda = \infty`) and
:math:`\max_d\varphi_k(d) - g' T(a)`; beyond the last grid point
:math:`F \le \max_d\varphi_k(d) - g' T(\tau)`.  The bound is exact mathematics
evaluated in float64 (rounding of order 1e-13 relative is not enclosed).

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
.. [3] M. L. Puterman, Markov Decision Processes: Discrete Stochastic Dynamic
   Programming, Wiley (1994), Chapters 8 and 11.
.. [4] L. I. Sennott, Stochastic Dynamic Programming and the Control of Queueing
   Systems, Wiley (1999), Chapter 7.
.. [5] M. F. Neuts, Matrix-Geometric Solutions in Stochastic Models, Johns Hopkins
   University Press (1981), Chapter 1; G. Latouche and V. Ramaswami, Introduction to
   Matrix Analytic Methods in Stochastic Modeling, SIAM (1999), Chapter 8.
.. [6] B. Hajek, "The proof of a folk theorem on queuing delay with applications to
   routing in networks", Journal of the ACM 30(4):834-851 (1983).
.. [7] P. A. Humblet, "Determinism minimizes waiting time in queues", MIT LIDS report
   LIDS-P-1207 (1982).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.special import gammaln

from qtheory.core.claims import Claim, Evidence, Origin
from qtheory.core.stats import Estimate
from qtheory.core.validation import nonnegative, positive, positive_int
from qtheory.exact import stationary_dtmc
from qtheory.gated.embedded_chain import service_count_law
from qtheory.gated.welfare import optimal_gate, welfare_ga
from qtheory.model.gated import GatedQueue

__all__ = [
    "BeliefThreshold",
    "FullMemoryBracket",
    "GapGate",
    "ObservedRelaxation",
    "belief_threshold_welfare",
    "belief_update",
    "full_memory_bracket",
    "gap_gate_welfare",
    "history_claims",
    "observed_relaxation",
    "optimal_belief_threshold",
    "optimal_gap_gate",
]

#: Row mass of the blocks A_d allowed to fall beyond d_max.
_TAIL_MASS = 1e-16
#: Residual of R = Σ R^d A_d accepted by the matrix-geometric solver.
_RESIDUAL = 1e-12
#: The default cap K of the relaxation is max(48, ⌈5ν/4⌉ + 16), at most 400; grid points.
DEFAULT_STATES, MAX_DEFAULT_STATES = 48, 400
DEFAULT_GRID = 2400


def _checked_queue(queue: object) -> GatedQueue:
    if not isinstance(queue, GatedQueue):
        raise TypeError(f"queue must be a GatedQueue, got {type(queue).__name__}")
    queue.require_worthwhile()
    return queue


def _rates(queue: GatedQueue) -> tuple[float, float, float, float]:
    """(Λ, μ, R, C) as float64 (Λ may be inf)."""
    p = queue.parameters()
    return (math.inf if p["beta"] == 0 else 1 / p["beta"]), p["mu"], p["R"], p["C"]


# ---------------------------------------------------------------------------
# belief dynamics


def _depletion(counts: np.ndarray) -> np.ndarray:
    """F[..., n, m] = P((n − D)^+ = m), n, m < size, for D with law ``counts[..., d]``
    (d < size; the mass beyond is P(D ≥ size))."""
    size = counts.shape[-1]
    n, m = np.arange(size)[:, None], np.arange(size)[None, :]
    served = n - m
    law = np.where((served >= 0) & (m >= 1), counts[..., np.clip(served, 0, size - 1)], 0.0)
    below = np.concatenate(
        [np.zeros(counts.shape[:-1] + (1,)), np.cumsum(counts, -1)[..., :-1]], -1
    )
    law[..., :, 0] = np.clip(1.0 - below, 0.0, None)  # P(D >= n)
    return law


def belief_update(belief, elapsed, service_rate) -> np.ndarray:
    r"""The belief after ``elapsed`` time units without an admission: the law of the
    pure-death chain (rate μ while busy) started from ``belief``.

    :math:`b_t(m) = \sum_n b(n)\,P\bigl((n - \mathrm{Poisson}(\mu t))^+ = m\bigr)`; an
    admission then shifts the belief by one (``numpy.concatenate([[0], b])``).

    Parameters
    ----------
    belief : array_like
        ``belief[n]`` = P(n in system), a probability vector (sums to 1 within 1e-9).
    elapsed : float
        Time t ≥ 0 since the belief was formed.
    service_rate : float
        μ > 0.

    Returns
    -------
    numpy.ndarray
        The belief at time t, on the same states.

    Raises
    ------
    ValueError
        ``belief`` not a probability vector, ``elapsed`` < 0 or not finite,
        ``service_rate`` ≤ 0.

    Examples
    --------
    From 2 in system, after t = 1 at μ = 1: P(2) = e^{-1}, P(1) = e^{-1}, P(0) = 1 − 2/e.

    >>> np.round(belief_update([0, 0, 1], 1.0, 1.0), 6)
    array([0.264241, 0.367879, 0.367879])

    References
    ----------
    .. [1] L. Kleinrock, Queueing Systems, Vol. I, Wiley (1975), Sec. 2.5 (pure-death
       process).
    """
    belief = np.asarray(belief, dtype=float)
    if belief.ndim != 1 or belief.size == 0 or not np.all(belief >= 0):
        raise ValueError("belief must be a non-empty vector of probabilities >= 0")
    if abs(belief.sum() - 1.0) > 1e-9:
        raise ValueError(f"belief must sum to 1, got {belief.sum()!r}")
    elapsed = nonnegative("elapsed", elapsed)
    service_rate = positive("service_rate", service_rate)
    return belief @ _depletion(service_count_law(elapsed, math.inf, service_rate, belief.size))


# ---------------------------------------------------------------------------
# (a) gap-dependent gates: exact welfare by the matrix-geometric method


@dataclass(frozen=True)
class GapGate:
    """A gate that depends on the previous inter-admission gap, and its welfare.

    After an admission whose preceding gap G lies in bin j, i.e.
    ``thresholds[j-1] < G <= thresholds[j]`` (0 and ∞ at the ends), the gate is
    ``gates[j]``.

    Attributes
    ----------
    thresholds : tuple of float
        Increasing gap thresholds θ_1 < ... < θ_{J-1} (empty: GA).
    gates : tuple of float
        Gates τ_1, ..., τ_J ≥ 0.
    welfare : float
        Its exact welfare per unit time (:func:`gap_gate_welfare`).

    Examples
    --------
    >>> q = GatedQueue(3.0, 1.0, 2.0, 1.0)
    >>> g = optimal_gap_gate(q)
    >>> len(g.thresholds), len(g.gates), bool(g.welfare > optimal_gate(q).welfare)
    (1, 2, True)

    References
    ----------
    .. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026).
    """

    thresholds: tuple[float, ...]
    gates: tuple[float, ...]
    welfare: float

    def describe(self) -> str:
        """A one-line description of the gate function.

        Returns
        -------
        str

        Examples
        --------
        >>> GapGate((1.5,), (2.0, 0.5), 0.3).describe()
        'gap-dependent gate: tau = 2 if previous gap <= 1.5, tau = 0.5 otherwise'
        """
        if not self.thresholds:
            return f"constant gate (GA): tau = {self.gates[0]:.6g}"
        parts = [f"tau = {self.gates[0]:.6g} if previous gap <= {self.thresholds[0]:.6g}"]
        for low, high, gate in zip(
            self.thresholds, self.thresholds[1:], self.gates[1:], strict=False
        ):
            parts.append(f"tau = {gate:.6g} if {low:.6g} < previous gap <= {high:.6g}")
        parts.append(f"tau = {self.gates[-1]:.6g} otherwise")
        return "gap-dependent gate: " + ", ".join(parts)


def _checked_family(thresholds, gates) -> tuple[np.ndarray, np.ndarray]:
    gates = np.atleast_1d(np.asarray(gates, dtype=float))
    thresholds = np.atleast_1d(np.asarray(thresholds, dtype=float))
    if gates.ndim != 1 or gates.size == 0:
        raise ValueError("gates must be a non-empty sequence of gate lengths")
    if not np.all(np.isfinite(gates) & (gates >= 0)):
        raise ValueError(f"gates must be finite and >= 0, got {gates.tolist()}")
    if thresholds.size != gates.size - 1:
        raise ValueError(
            f"thresholds must hold len(gates) - 1 = {gates.size - 1} values, got {thresholds.size}"
        )
    if not (np.all(np.isfinite(thresholds) & (thresholds > 0)) and np.all(np.diff(thresholds) > 0)):
        raise ValueError(
            f"thresholds must be finite, > 0 and strictly increasing, got {thresholds.tolist()}"
        )
    return thresholds, gates


def _log_partial_exponential(size: int, y: np.ndarray) -> np.ndarray:
    """L[d, ...] = log Σ_{i≤d} y^i/i!, d < size (so that log P(Poisson(y) ≤ d) = L − y),
    by a running log-sum-exp: no term underflows however large y is."""
    i = np.arange(size).reshape((size,) + (1,) * y.ndim)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(i == 0, 0.0, i * np.log(y)) - gammaln(i + 1)
    return np.logaddexp.accumulate(terms, axis=0)


def _blocks(thresholds, gates, arrival, mu) -> np.ndarray:
    """A[d, j, j'] = P(D = d, next gap in bin j' | gate τ_j), d < d_max."""
    # D = Poisson(μτ) + a geometric count in Exp(Λ), P(geometric ≥ n) = (μ/(Λ+μ))^n:
    # each part beyond d_max with probability below the tail mass
    d_max = int(stats.poisson.isf(_TAIL_MASS, mu * float(gates.max()))) + 2
    if not math.isinf(arrival):
        d_max += math.ceil(-math.log(_TAIL_MASS) / math.log1p(arrival / mu))
    d = np.arange(d_max)[:, None, None]
    tau = gates[None, :, None]
    edges = np.concatenate([[0.0], thresholds, [np.inf]])
    if math.isinf(arrival):
        bins = np.searchsorted(thresholds, gates, side="left")  # gap = gate, in bin j'
        into = (np.arange(gates.size)[None, :] == bins[:, None]).astype(float)
        return stats.poisson.pmf(d, mu * tau) * into[None]
    rate = arrival + mu
    low = np.maximum(edges[None, :-1] - gates[:, None], 0.0)  # E in (low, high]: bin j'
    high = np.maximum(edges[None, 1:] - gates[:, None], 0.0)
    # P(D = d, E ∈ (low, high]) = (Λ/r)(μ/r)^d e^{Λτ} [F_d(r(τ + low)) − F_d(r(τ + high))],
    # r = Λ + μ, F_d(y) = e^{−y} S_d(y), S_d the partial exponential sum; in logs
    # e^{Λτ − r(τ + low)} = e^{−μτ − r low} has no cancellation
    partial_low = _log_partial_exponential(d_max, rate * (gates[:, None] + low))
    with np.errstate(invalid="ignore"):
        partial_high = _log_partial_exponential(d_max, rate * (gates[:, None] + high))
        ratio = np.where(np.isinf(high), -np.inf, partial_high - partial_low - rate * (high - low))
    log_scale = math.log(arrival / rate) + d * math.log(mu / rate) - mu * tau - rate * low[None]
    return np.where(high > low, np.exp(log_scale + partial_low) * -np.expm1(ratio), 0.0)


def _stationary(matrix: np.ndarray) -> np.ndarray:
    """The stationary row vector of a unichain stochastic matrix (ValueError otherwise)."""
    size = matrix.shape[0]
    system = (matrix - np.eye(size)).T
    system[-1] = 1.0
    right = np.zeros(size)
    right[-1] = 1.0
    if np.linalg.cond(system) > 1e12:
        raise ValueError("the gap bins form more than one closed class (multichain policy)")
    return np.linalg.solve(system, right)


def _tails(blocks: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """W[i] = Σ_{m≥0} R^m A_{m+i}, i < d_max (W[0] = Σ R^d A_d, Horner from the top)."""
    tails = np.empty_like(blocks)
    tails[-1] = blocks[-1]
    for i in range(blocks.shape[0] - 2, -1, -1):
        tails[i] = blocks[i] + rate @ tails[i + 1]
    return tails


def _rate_matrix(blocks: np.ndarray) -> np.ndarray:
    r"""Minimal R = Σ R^d A_d: twenty steps of the U-based iteration
    R ← A_0 (I − Σ_{d≥1} R^{d−1} A_d)^{-1} from 0 (monotone towards the minimal
    solution), then Newton's method, whose derivative
    E ↦ Σ_i R^i E W_{i+1} − E (W as in :func:`_tails`) is the matrix
    :math:`\sum_i W_{i+1}^T \otimes R^i - I` on column-stacked E; the residual is
    checked at the end (Neuts 1981, Sec. 1.6; Latouche and Ramaswami 1999, Ch. 8)."""
    size = blocks.shape[1]
    rate = np.zeros((size, size))
    for _ in range(20):
        rate = blocks[0] @ np.linalg.inv(np.eye(size) - _tails(blocks, rate)[1])
    for _ in range(60):
        tails = _tails(blocks, rate)
        residual = tails[0] - rate
        if np.max(np.abs(residual)) < 1e-15:
            break
        power, derivative = np.eye(size), -np.eye(size * size)
        for tail in tails[1:]:
            derivative += np.kron(tail.T, power)
            power = power @ rate
        step = np.linalg.solve(derivative, -residual.flatten(order="F"))
        rate = rate + step.reshape((size, size), order="F")
    residual = np.max(np.abs(_tails(blocks, rate)[0] - rate))
    if not (residual < _RESIDUAL and np.max(np.abs(np.linalg.eigvals(rate))) < 1):
        raise ArithmeticError("the matrix-geometric rate matrix did not converge")
    return rate


def gap_gate_welfare(queue: GatedQueue, thresholds, gates) -> float:
    r"""Exact welfare per unit time of a gap-dependent gate (module notes, part (a)).

    Parameters
    ----------
    queue : GatedQueue
        Λ, μ, R, C; ν > 1.
    thresholds : sequence of float
        θ_1 < ... < θ_{J-1}, all > 0 (empty for GA).
    gates : sequence of float
        τ_1, ..., τ_J ≥ 0: the gate after a gap in bin j.

    Returns
    -------
    float
        (R − C(E[M] + 1)/μ) / E[T], M the number an admitted customer finds and T the
        inter-admission time, both under the stationary law of (M, bin).

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ν ≤ 1, bad thresholds or gates, a multichain bin chain (possible only at
        Λ = ∞), or an unstable policy (mean inter-admission time ≤ 1/μ).

    Examples
    --------
    One level is GA, and gives :func:`qtheory.gated.welfare_ga`:

    >>> from qtheory.gated.welfare import welfare_ga
    >>> q = GatedQueue(3.0, 1.0, 2.0, 1.0)
    >>> round(gap_gate_welfare(q, (), (1.2,)), 10) == round(float(welfare_ga(q, 1.2)), 10)
    True

    References
    ----------
    .. [1] M. F. Neuts, Matrix-Geometric Solutions in Stochastic Models, Johns Hopkins
       University Press (1981), Chapter 1.
    """
    queue = _checked_queue(queue)
    thresholds, gates = _checked_family(thresholds, gates)
    arrival, mu, reward, cost = _rates(queue)
    blocks = _blocks(thresholds, gates, arrival, mu)
    lost = np.max(np.abs(blocks.sum(axis=(0, 2)) - 1.0))
    if not lost < 1e-12:
        raise ArithmeticError(f"the blocks A_d lose {lost:.3g} of their mass")
    bins = _stationary(blocks.sum(axis=0))
    cycle = gates + (0.0 if math.isinf(arrival) else 1.0 / arrival)
    mean_gap = float(bins @ cycle)
    if not mean_gap > 1.0 / mu:
        raise ValueError(
            f"gates give mean inter-admission time {mean_gap:.6g} <= 1/service_rate: unstable"
        )
    rate = _rate_matrix(blocks)
    to_zero = np.cumsum(blocks[::-1], axis=0)[::-1][1:]  # B_M = Σ_{d > M} A_d
    boundary = to_zero[-1]
    for block in to_zero[-2::-1]:
        boundary = block + rate @ boundary
    empty = _stationary(boundary / boundary.sum(axis=1, keepdims=True))
    inverse = np.linalg.inv(np.eye(rate.shape[0]) - rate)
    empty = empty / (empty @ inverse).sum()
    mean_found = float(empty @ rate @ inverse @ inverse @ np.ones(rate.shape[0]))
    return (reward - cost * (mean_found + 1.0) / mu) / mean_gap


def optimal_gap_gate(queue: GatedQueue, *, levels: int = 2) -> GapGate:
    r"""The best gap-dependent gate with ``levels`` gate values (part (a) of the notes).

    Nelder–Mead over the thresholds (log-increments) and the gates (as squares, so
    that they stay ≥ 0), started at GA with the thresholds at quantiles of GA's gap;
    unstable points count as −∞.  The simplex keeps its best vertex, so the result is
    never below GA.  Only for Λ < ∞: at Λ = ∞ the gaps are the gates themselves, the
    family consists of deterministic gap sequences, and GA is optimal among them (module
    notes).

    Parameters
    ----------
    queue : GatedQueue
        Finite Λ; ν > 1.
    levels : int, keyword-only
        J ≥ 1 gate values (J = 1 returns GA); J − 1 thresholds.

    Returns
    -------
    GapGate
        The best gate found and its exact welfare.

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ν ≤ 1, ``levels`` < 1, or Λ = ∞.

    Examples
    --------
    A short previous gap (the queue probably still busy) calls for a longer gate:

    >>> g = optimal_gap_gate(GatedQueue(3.0, 1.0, 2.0, 1.0))
    >>> bool(g.gates[0] > g.gates[1])
    True

    References
    ----------
    .. [1] J. A. Nelder and R. Mead, "A simplex method for function minimization",
       The Computer Journal 7(4):308-313 (1965).
    """
    queue = _checked_queue(queue)
    levels = positive_int("levels", levels)
    if math.isinf(_rates(queue)[0]):
        raise ValueError(
            "arrival_rate must be finite for gap-dependent gates (at inf the gaps are the "
            "gates: GA is optimal, see the module notes)"
        )
    return _optimal_gap_gate(queue, levels)


@functools.lru_cache(maxsize=64)
def _optimal_gap_gate(queue: GatedQueue, levels: int) -> GapGate:
    """:func:`optimal_gap_gate` after validation (cached: the ladder asks again)."""
    from scipy.optimize import minimize

    arrival = _rates(queue)[0]
    ga = optimal_gate(queue)
    start_thresholds = ga.gate - np.log1p(-np.arange(1, levels) / levels) / arrival
    start = np.concatenate(
        [np.log(np.diff(np.concatenate([[0.0], start_thresholds]))),
         np.full(levels, math.sqrt(ga.gate))]
    )  # fmt: skip

    def unpack(x):
        return np.cumsum(np.exp(x[: levels - 1])), x[levels - 1 :] ** 2

    def loss(x):
        try:
            return -gap_gate_welfare(queue, *unpack(x))
        except (ValueError, ArithmeticError):
            return math.inf

    if levels == 1:
        return GapGate((), (float(ga.gate),), float(ga.welfare))
    result = minimize(loss, start, method="Nelder-Mead",
                      options={"xatol": 1e-7, "fatol": 1e-13 * abs(ga.welfare),
                               "maxiter": 400 * levels})  # fmt: skip
    thresholds, gates = unpack(result.x)
    return GapGate(tuple(map(float, thresholds)), tuple(map(float, gates)), -float(result.fun))


# ---------------------------------------------------------------------------
# (b) a full-memory policy by simulation: the belief threshold


@dataclass(frozen=True)
class BeliefThreshold:
    """The belief-threshold policy and its simulated welfare.

    The gate reopens at the first point of a time grid at which the expected number in
    system, under the belief, is at most ``threshold``.

    Attributes
    ----------
    threshold : float
        x > 0.
    welfare : qtheory.core.stats.Estimate
        Welfare per unit time with its 95% interval (t over independent paths).
    capped_mass : float
        Largest belief mass a path pushed past the support (the conditional mean it
        uses is short by at most this much per admission; checked below 1e-12).

    Examples
    --------
    >>> b = belief_threshold_welfare(GatedQueue(3.0, 1.0, 2.0, 1.0), 0.3, paths=50,
    ...                              admissions=200)
    >>> b.threshold, b.welfare.n, bool(b.capped_mass < 1e-12)
    (0.3, 50, True)

    References
    ----------
    .. [1] M. L. Puterman, Markov Decision Processes, Wiley (1994), Chapter 11.
    """

    threshold: float
    welfare: Estimate
    capped_mass: float


def _poisson_rows(means: np.ndarray, size: int) -> np.ndarray:
    """pmf[p, d] = P(Poisson(means[p]) = d), d < size."""
    d = np.arange(size)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_mean = np.where(d == 0, 0.0, d * np.log(means)[:, None])  # 0 log 0 = 0
    return np.exp(-means[:, None] + log_mean - gammaln(d + 1))


def _depleted(belief: np.ndarray, pmf: np.ndarray) -> np.ndarray:
    """Row-wise ``belief`` after the pure-death chain served Poisson(pmf) opportunities."""
    size = belief.shape[1]
    after = np.zeros_like(belief)
    for served in range(size - 1):
        after[:, 1 : size - served] += belief[:, served + 1 :] * pmf[:, served : served + 1]
    after[:, 0] = np.clip(1.0 - after[:, 1:].sum(axis=1), 0.0, None)
    return after


def _reopening(belief: np.ndarray, table: np.ndarray, threshold: float) -> np.ndarray:
    """Index of the first grid time at which the mean of the depleted belief is ≤ x
    (the last index if none): binary search, the mean decreasing along the grid."""
    low = np.zeros(belief.shape[0], dtype=int)
    high = np.full(belief.shape[0], table.shape[0] - 1)
    while np.any(low < high):
        middle = (low + high) // 2
        below = np.einsum("pk,pk->p", belief, table[middle]) <= threshold
        high = np.where(below, middle, high)
        low = np.where(below, low, middle + 1)
    return low


def belief_threshold_welfare(
    queue: GatedQueue,
    threshold: float,
    *,
    paths: int = 200,
    admissions: int = 2000,
    support: int = 48,
    seed: int = 11,
) -> BeliefThreshold:
    r"""Simulated welfare of the full-memory policy that reopens the gate when the
    expected number in system, given the admission history, falls to ``threshold``.

    Each path carries its belief (module notes): between admissions the pure-death
    chain, at an admission the shift.  The gate reopens at the first point of a grid of
    2049 times on [0, (2·support + 10)/μ] where :math:`E_b[N] \le x`.  Only the
    Exp(Λ) waits are random: the reward of an admission is its conditional expectation
    :math:`R - C(E_{b^-}[N] + 1)/\mu` given the history (:math:`b^-` the belief just
    before it), so the queue itself is never simulated.  Per path, welfare = total
    reward / total time after a warm-up of a tenth of the admissions (ratio bias of
    order 1/admissions); the interval is Student's t over the paths.

    Parameters
    ----------
    queue : GatedQueue
        Λ (``inf`` allowed: then every path is the same deterministic one), μ, R, C;
        ν > 1.
    threshold : float
        x > 0, in customers.
    paths : int, keyword-only
        Independent paths (≥ 2).
    admissions : int, keyword-only
        Admissions per path (≥ 10).
    support : int, keyword-only
        Belief support 0..support−1 (≥ 4); mass pushed beyond is tracked and must stay
        below 1e-12.
    seed : int, keyword-only
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    BeliefThreshold

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ν ≤ 1, a bad keyword, or a belief that outgrew its support.

    Examples
    --------
    With x above what one customer leaves, the gate never closes: at Λ = 0.5 < μ this
    is the M/M/1 queue with load 1/2, S = Λ(R − C/(μ − Λ)) = 0:

    >>> q = GatedQueue(0.5, 1.0, 2.0, 1.0)
    >>> b = belief_threshold_welfare(q, 5.0, paths=100, admissions=500, support=64)
    >>> bool(abs(b.welfare.mean) < 3 * b.welfare.halfwidth)
    True

    References
    ----------
    .. [1] M. L. Puterman, Markov Decision Processes, Wiley (1994), Sections 8.1 and
       11.1 (history-dependent policies).
    """
    queue = _checked_queue(queue)
    threshold = positive("threshold", threshold)
    paths, admissions = positive_int("paths", paths), positive_int("admissions", admissions)
    support = positive_int("support", support)
    if paths < 2 or admissions < 10 or support < 4:
        raise ValueError(
            f"paths must be >= 2, admissions >= 10 and support >= 4, got {paths}, "
            f"{admissions}, {support}"
        )
    arrival, mu, reward, cost = _rates(queue)
    times = np.linspace(0.0, (2 * support + 10) / mu, 2049)
    pmf = _poisson_rows(mu * times, support)
    counts = np.arange(support)
    below = np.cumsum(pmf, axis=1)[:, :-1]
    served = np.cumsum(pmf * counts, axis=1)[:, :-1]
    table = np.zeros((times.size, support))  # E[(n − Poisson(μ t))^+]
    table[:, 1:] = counts[1:] * below - served
    rng = np.random.default_rng(seed)
    belief = np.zeros((paths, support))
    belief[:, 1] = 1.0  # just admitted into an empty system
    total_reward, total_time, capped = np.zeros(paths), np.zeros(paths), np.zeros(paths)
    for step in range(admissions):
        gap = times[_reopening(belief, table, threshold)]
        if not math.isinf(arrival):
            gap = gap + rng.exponential(1.0 / arrival, paths)
        before = _depleted(belief, _poisson_rows(mu * gap, support))
        if step >= admissions // 10:
            total_reward += reward - cost * (before @ counts + 1.0) / mu
            total_time += gap
        capped += before[:, -1]
        belief = np.concatenate([np.zeros((paths, 1)), before[:, :-1]], axis=1)
        belief[:, -1] += before[:, -1]
    if capped.max() > 1e-12:
        raise ValueError(
            f"support must be larger: the belief pushed {capped.max():.3g} of its mass "
            f"past {support - 1} customers"
        )
    return BeliefThreshold(threshold, Estimate.of(total_reward / total_time), float(capped.max()))


def optimal_belief_threshold(
    queue: GatedQueue,
    *,
    paths: int = 200,
    admissions: int = 2000,
    support: int = 48,
    seed: int = 11,
) -> BeliefThreshold:
    r"""The best belief threshold x, and its welfare from a fresh simulation.

    The search uses common random numbers (seed ``seed``, a quarter of the paths, half
    the admissions): nine thresholds on a geometric grid over [0.02, 4], then ten
    golden-section steps around the best (a threshold whose belief outgrows the support
    counts as −∞); the chosen x is then simulated again with
    ``paths`` and ``admissions`` and seed ``seed + 1``, so that its estimate is not
    biased by the selection.

    Parameters
    ----------
    queue : GatedQueue
        Λ (``inf`` allowed), μ, R, C; ν > 1.
    paths, admissions, support, seed : int, keyword-only
        As :func:`belief_threshold_welfare`, for the final evaluation.

    Returns
    -------
    BeliefThreshold

    Raises
    ------
    TypeError, ValueError
        As :func:`belief_threshold_welfare`.

    Examples
    --------
    >>> b = optimal_belief_threshold(GatedQueue(3.0, 1.0, 2.0, 1.0), paths=8, admissions=200)
    >>> 0.1 < b.threshold < 1.0
    True

    References
    ----------
    .. [1] J. Kiefer, "Sequential minimax search for a maximum", Proceedings of the AMS
       4(3):502-506 (1953) (golden-section search).
    """
    search = {
        "paths": max(2, positive_int("paths", paths) // 4),
        "admissions": max(10, positive_int("admissions", admissions) // 2),
        "support": support,
        "seed": seed,
    }

    def welfare(x: float) -> float:
        try:
            return belief_threshold_welfare(queue, x, **search).welfare.mean
        except ValueError:  # the belief outgrew its support: a long queue, not a candidate
            return -math.inf

    grid = np.geomspace(0.02, 4.0, 9)
    values = [welfare(x) for x in grid]
    best = int(np.argmax(values))
    low, high = grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]
    ratio = (math.sqrt(5) - 1) / 2
    left, right = high - ratio * (high - low), low + ratio * (high - low)
    at_left, at_right = welfare(left), welfare(right)
    for _ in range(10):
        if at_left >= at_right:
            high, right, at_right = right, left, at_left
            left = high - ratio * (high - low)
            at_left = welfare(left)
        else:
            low, left, at_left = left, right, at_right
            right = low + ratio * (high - low)
            at_right = welfare(right)
    chosen = float(max((values[best], grid[best]), (at_left, left), (at_right, right))[1])
    return belief_threshold_welfare(
        queue, chosen, paths=paths, admissions=admissions, support=support, seed=seed + 1
    )


# ---------------------------------------------------------------------------
# (b) the relaxation that observes the queue at admissions: an upper bound


@dataclass(frozen=True)
class ObservedRelaxation:
    """The controller that also sees the number in system at each admission.

    Attributes
    ----------
    upper : float
        A bound ≥ the optimum of the relaxation (hence of full memory), by the
        certificate of the module notes.
    gain : float
        Welfare of the best policy on the gate grid (≤ the relaxation's optimum, so
        ``upper - gain`` bounds the certificate's slack).
    gates : tuple of float
        That policy: the gate after an admission that leaves k = 1, ..., K in system.
    states : int
        K, the cap of the number in system.
    top_mass : float
        Stationary probability of k = K under that policy.

    Examples
    --------
    >>> r = observed_relaxation(GatedQueue(float("inf"), 1.0, 2.0, 1.0))
    >>> bool(0 <= r.upper - r.gain < 1e-4), r.states
    (True, 48)

    References
    ----------
    .. [1] M. L. Puterman, Markov Decision Processes, Wiley (1994), Chapter 11.
    """

    upper: float
    gain: float
    gates: tuple[float, ...]
    states: int
    top_mass: float


def _count_table(gates: np.ndarray, arrival: float, mu: float, size: int) -> np.ndarray:
    """a[t, d] = P(D = d) for the gate ``gates[t]``, d < size: the law of
    :func:`~qtheory.gated.embedded_chain.service_count_law` for a whole grid at once
    (Poisson(μτ) convolved with the geometric count in Exp(Λ); tested against it)."""
    counts = np.arange(size)
    during_gate = stats.poisson.pmf(counts[None, :], mu * gates[:, None])
    if math.isinf(arrival):
        return during_gate
    after = stats.geom.pmf(counts + 1, arrival / (arrival + mu))
    lag = counts[None, :] - counts[:, None]  # d − i
    return during_gate @ np.where(lag >= 0, after[np.clip(lag, 0, size - 1)], 0.0)


class _CappedProblem:
    """The capped SMDP on k = 1..K with the gate-count table of a grid (module notes)."""

    def __init__(
        self, queue: GatedQueue, states: int, grid: np.ndarray, counts: np.ndarray | None = None
    ) -> None:
        self.arrival, self.mu, self.reward, self.cost = _rates(queue)
        self.states = states
        self.grid = grid
        self.sojourn = grid + (0.0 if math.isinf(self.arrival) else 1.0 / self.arrival)
        if counts is None:
            counts = _count_table(grid, self.arrival, self.mu, states + 1)
        self.counts = counts
        below = np.cumsum(self.counts, axis=1)[:, :-1]
        self.tail = np.clip(1.0 - np.concatenate([np.zeros((grid.size, 1)), below], 1), 0.0, None)
        served = np.arange(states + 1)[:, None]
        state = np.arange(1, states + 1)[None, :]
        self.left = state - served  # m = k − d (valid where > 0)

    @classmethod
    def joined(cls, queue: GatedQueue, states: int, *pieces) -> _CappedProblem:
        """The problem on the concatenated grids of ``pieces`` = (grid, counts or None)."""
        arrival, mu = _rates(queue)[:2]
        grids = [grid for grid, _ in pieces]
        tables = [
            _count_table(grid, arrival, mu, states + 1) if counts is None else counts
            for grid, counts in pieces
        ]
        return cls(queue, states, np.concatenate(grids), np.concatenate(tables))

    def _convolve(self, values: np.ndarray) -> np.ndarray:
        """Σ_{d<k} a[t, d] values[k − d], shape (grid, K), for ``values`` on m = 0..K."""
        matrix = np.where(self.left > 0, values[np.clip(self.left, 0, self.states)], 0.0)
        return self.counts @ matrix

    def continuation(self, bias: np.ndarray) -> np.ndarray:
        """v(m) = R − C(m + 1)/μ + h(min(m + 1, K)), m = 0..K."""
        found = np.arange(self.states + 1)
        return (
            self.reward
            - self.cost * (found + 1) / self.mu
            + bias[np.minimum(found, self.states - 1)]
        )

    def expected(self, bias: np.ndarray) -> np.ndarray:
        """N[t, k] = E v((k − D)^+) − h(k)."""
        v = self.continuation(bias)
        return self._convolve(v) + self.tail[:, 1:] * v[0] - bias[None, :]

    def evaluate(self, policy: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """(g, h, P) of a policy (grid index per state), h(1) = 0."""
        k = np.arange(1, self.states + 1)
        transition = np.zeros((self.states, self.states))
        rewards = np.zeros(self.states)
        for row, (state, t) in enumerate(zip(k, policy, strict=True)):
            law = np.zeros(self.states + 1)  # found m = 0..K
            law[1 : state + 1] = self.counts[t, :state][::-1]
            law[0] = self.tail[t, state]
            np.add.at(transition[row], np.minimum(np.arange(self.states + 1), self.states - 1), law)
            rewards[row] = self.reward - self.cost * (law @ np.arange(1, self.states + 2)) / self.mu
        system = np.eye(self.states) - transition
        system[:, 0] = self.sojourn[policy]  # unknowns (g, h(2), ..., h(K))
        solution = np.linalg.solve(system, rewards)
        return float(solution[0]), np.concatenate([[0.0], solution[1:]]), transition

    def solve(self, start: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        """Policy iteration from ``start`` (keeps an action unless beaten by 1e-12)."""
        policy = start
        for _ in range(200):
            gain, bias, transition = self.evaluate(policy)
            test = self.expected(bias) - gain * self.sojourn[:, None]
            best = np.argmax(test, axis=0)
            current = test[policy, np.arange(self.states)]
            better = test[best, np.arange(self.states)] > current + 1e-12 * (1 + np.abs(current))
            if not better.any():
                return gain, bias, policy, transition
            policy = np.where(better, best, policy)
        raise ArithmeticError("policy iteration did not converge in 200 steps")

    def certified_gain(self, bias: np.ndarray, gain: float) -> float:
        """The smallest g' that passes the cell bounds for ``bias`` (bisection)."""
        v = self.continuation(bias)
        worth = self.expected(bias)  # N[t, k]
        step = np.concatenate([[0.0], v[:-1] - v[1:]])  # w(m) = v(m − 1) − v(m), m ≥ 1
        slope = self.mu * self._convolve(step)  # N'[t, k]
        k = np.arange(1, self.states + 1)
        convex = np.array([
            max(0.0, np.max(np.diff(np.concatenate([step[state:0:-1], [0.0]])), initial=0.0))
            for state in k
        ])  # fmt: skip
        # N'' ≤ μ² max(Δ²φ)^+ P(D_τ < k), and P(D_τ < k) decreases in τ
        curvature = self.mu**2 * convex * (1.0 - self.tail[:-1, 1:])
        best_phi = np.array([v[: state + 1].max() for state in k]) - bias
        width = np.diff(self.grid)[:, None]

        def passes(candidate: float) -> bool:
            f = worth - candidate * self.sojourn[:, None]
            interpolated = np.maximum(f[:-1], f[1:]) + curvature * width**2 / 8
            taylor = np.maximum(
                f[:-1], f[:-1] + (slope[:-1] - candidate) * width + curvature * width**2 / 2
            )
            crude = best_phi - candidate * self.sojourn[:-1, None]  # N ≤ max φ
            cells = np.minimum(np.minimum(interpolated, taylor), crude) <= 0
            beyond = best_phi - candidate * self.sojourn[-1] <= 0
            return bool(cells.all() and beyond.all())

        scale = 1.0 + abs(gain)
        low, high = gain - 1e-9 * scale, gain + 1e-9 * scale
        if passes(low):
            raise ArithmeticError("the certificate passed below an achievable gain")
        while not passes(high):
            high = gain + 2 * (high - gain)
            if high - gain > 1e6 * scale:
                raise ArithmeticError("no finite certificate for this bias")
        while high - low > 1e-13 * scale:
            middle = 0.5 * (low + high)
            low, high = (low, middle) if passes(middle) else (middle, high)
        return high


def _default_states(queue: GatedQueue) -> int:
    """max(48, ⌈5ν/4⌉ + 16), at most 400: the relaxation keeps up to about ν customers
    when ν is large (and at Λ = ∞ a cap K ≤ ν − 1 makes instantaneous admissions pay)."""
    wanted = math.ceil(1.25 * queue.naor_ratio) + 16
    return min(MAX_DEFAULT_STATES, max(DEFAULT_STATES, wanted))


def _zeno(queue: GatedQueue, states: int) -> bool:
    """At Λ = ∞, whether admitting at once into a full capped system (K in it) pays:
    R − C(K + 1)/μ ≥ 0, i.e. K + 1 ≤ ν; the capped problem then has no finite optimum."""
    return math.isinf(_rates(queue)[0]) and states + 1 <= queue.naor_ratio


def observed_relaxation(
    queue: GatedQueue, *, states: int | None = None, grid: int = DEFAULT_GRID
) -> ObservedRelaxation:
    r"""Upper bound from the controller that also observes the queue at admissions.

    Policy iteration on the capped SMDP (k ≤ ``states``) over a gate grid gives a bias
    h; the certificate of the module notes then bounds the capped optimum over *all*
    gates τ ≥ 0, and the capped optimum bounds the uncapped one for every K.

    Parameters
    ----------
    queue : GatedQueue
        Λ (``inf`` allowed), μ, R, C; ν > 1.
    states : int or None, keyword-only
        K ≥ 2, the cap on the number in system after an admission (at Λ = ∞ also
        K ≥ ν); None: max(48, ⌈5ν/4⌉ + 16), at most 400.
    grid : int, keyword-only
        Points (≥ 16) of the gate grid: three quarters on [0, 4τ* + 6/μ] (τ* GA's
        optimal gate), a quarter on the next 2K/μ, and 64 geometric points beyond.

    Returns
    -------
    ObservedRelaxation

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ν ≤ 1, ``states`` < 2 (or, at Λ = ∞, K + 1 ≤ ν: then admitting at once to a
        full capped system pays and the capped problem has no finite optimum),
        ``grid`` < 16.
    ArithmeticError
        If policy iteration or the certificate fails (not seen on the tested grids).

    Examples
    --------
    Observing the queue at admissions is worth more than GA, and less than Naor's
    observable queue (R μ − C = 1 at Λ = ∞):

    >>> q = GatedQueue(float("inf"), 1.0, 2.0, 1.0)
    >>> r = observed_relaxation(q)
    >>> bool(optimal_gate(q).welfare < r.upper < 1.0), round(r.upper, 4)
    (True, 0.4221)

    References
    ----------
    .. [1] M. L. Puterman, Markov Decision Processes, Wiley (1994), Chapter 11.
    .. [2] L. I. Sennott, Stochastic Dynamic Programming and the Control of Queueing
       Systems, Wiley (1999), Chapter 7.
    """
    queue = _checked_queue(queue)
    states = _default_states(queue) if states is None else positive_int("states", states)
    grid = positive_int("grid", grid)
    if states < 2:
        raise ValueError(f"states must be >= 2, got {states}")
    if grid < 16:
        raise ValueError(f"grid must be >= 16, got {grid}")
    if _zeno(queue, states):
        raise ValueError(
            f"states must be >= nu - 1 = {queue.naor_ratio - 1:.6g} at arrival_rate = inf "
            f"(else admitting at once to a full capped system pays), got {states}"
        )
    return _observed_relaxation(queue, states, grid)


@functools.lru_cache(maxsize=64)
def _observed_relaxation(queue: GatedQueue, states: int, grid: int) -> ObservedRelaxation:
    """:func:`observed_relaxation` after validation (cached: the ladder asks again)."""
    arrival, mu = _rates(queue)[:2]
    ga = optimal_gate(queue)
    dense = 4 * ga.gate + 6 / mu
    middle = dense + 2 * states / mu
    near = np.concatenate(
        [np.linspace(0.0, dense, 3 * grid // 4), np.linspace(dense, middle, grid // 4 + 1)[1:]]
    )
    # at Λ = ∞ the gate 0 takes no time; the grid policy avoids it, the certificate not
    problem = _CappedProblem(queue, states, near[1:] if math.isinf(arrival) else near)
    start = np.full(states, int(np.argmin(np.abs(problem.grid - ga.gate))))
    gain, bias, policy, transition = problem.solve(start)
    v = problem.continuation(bias)
    best_phi = max(float(v[: k + 1].max() - bias[k - 1]) for k in range(1, states + 1))
    far = np.geomspace(middle, max(2 * middle, 1.01 * best_phi / gain), 65)[1:]
    head = ((near[:1], None),) if math.isinf(arrival) else ()  # τ = 0, left out above
    certificate = _CappedProblem.joined(
        queue, states, *head, (problem.grid, problem.counts), (far, None)
    )
    upper = certificate.certified_gain(bias, gain)
    return ObservedRelaxation(
        upper=float(upper),
        gain=gain,
        gates=tuple(float(problem.grid[t]) for t in policy),
        states=states,
        top_mass=float(stationary_dtmc(transition)[-1]),
    )


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
        ``relaxation.upper``, its grid policy and cap K); None at Λ = ∞ when the cap
        is below ν − 1 (ν > 401 with the default cap), where it has no finite optimum.
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
    .. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026).
    .. [2] B. Hajek, "The proof of a folk theorem on queuing delay with applications to
       routing in networks", Journal of the ACM 30(4):834-851 (1983).
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
    "exact: GA's optimum at arrival_rate = inf, an upper bound by Hajek's theorem (regular "
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
    by the regular-arrivals bound (``regular``).  Deterministic; 1-4 s at the defaults (no
    simulation), some 20 s more with ``simulate=True``.

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
        ν ≤ 1 or a bad keyword (named).

    Examples
    --------
    At Λ = ∞ GA is optimal among full-memory policies; the relaxation is looser:

    >>> q = GatedQueue(float("inf"), 1.0, 2.0, 1.0)
    >>> b = full_memory_bracket(q)
    >>> b.lower == b.upper == optimal_gate(q).welfare, b.width, round(b.upper, 4)
    (True, 0.0, 0.3734)
    >>> round(b.relaxation.upper, 4)
    0.4221

    References
    ----------
    .. [1] M. L. Puterman, Markov Decision Processes, Wiley (1994), Chapter 11.
    .. [2] B. Hajek, "The proof of a folk theorem on queuing delay with applications to
       routing in networks", Journal of the ACM 30(4):834-851 (1983).
    """
    queue = _checked_queue(queue)
    levels = positive_int("levels", levels)
    if not isinstance(simulate, bool):
        raise TypeError(f"simulate must be True or False, got {simulate!r}")
    ga = optimal_gate(queue)
    cap = _default_states(queue) if states is None else positive_int("states", states)
    relaxation = None  # at Λ = ∞ with ν > 401: the regular bound (= GA) stands alone
    if not _zeno(queue, cap):
        relaxation = observed_relaxation(queue, states=cap, grid=grid)
    arrival, mu, reward, cost = _rates(queue)
    regular = float(optimal_gate(GatedQueue(math.inf, mu, reward, cost)).welfare)
    if relaxation is None or regular <= relaxation.upper:
        upper, upper_evidence = regular, _REGULAR_EVIDENCE
    else:
        upper, upper_evidence = (
            relaxation.upper,
            (
                "exact: Bellman-inequality bound on the relaxation that also observes the "
                f"number in system at admissions (capped at K = {relaxation.states}, over all "
                "gates), evaluated in float64 without enclosing the rounding (numerical, not "
                "certified); it covers gate policies (gate, then the first arrival) only: a "
                "window rule is bounded only by Hajek's regular-arrivals bound "
                f"{regular:.6g}"
            ),
        )
    if math.isinf(arrival):
        gate = None
        lower, lower_policy = float(ga.welfare), f"constant gate (GA): tau = {ga.gate:.6g}"
        lower_evidence = "exact: GA's optimum (qtheory.gated.welfare.optimal_gate)"
    else:
        gate = optimal_gap_gate(queue, levels=levels)
        lower, lower_policy = gate.welfare, gate.describe()
        lower_evidence = "exact: matrix-geometric welfare of the policy (float64)"
    belief = None
    if simulate and not math.isinf(arrival):
        belief = optimal_belief_threshold(queue)
        if belief.welfare.mean > lower:
            lower = belief.welfare.mean
            lower_policy = (
                f"belief threshold: reopen the gate when E[N | admission history] <= "
                f"{belief.threshold:.6g}"
            )
            lower_evidence = (
                f"statistical: +-{belief.welfare.halfwidth:.2g} (95%, {belief.welfare.n} "
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


def _claim_grid(quick: bool) -> list[tuple[str, str]]:
    arrivals = CLAIM_ARRIVALS[:2] if quick else CLAIM_ARRIVALS
    ratios = CLAIM_RATIOS[:1] if quick else CLAIM_RATIOS
    return [(a, r) for a in arrivals for r in ratios]


def history_claims(*, quick: bool = False) -> list[Claim]:
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
    .. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026).
    .. [2] B. Hajek, "The proof of a folk theorem on queuing delay with applications to
       routing in networks", Journal of the ACM 30(4):834-851 (1983).
    """
    if not isinstance(quick, bool):
        raise TypeError(f"quick must be True or False, got {quick!r}")
    sizes = {"states": 24, "grid": 400} if quick else {}
    points = _claim_grid(quick)
    brackets = {(a, r): full_memory_bracket(GatedQueue(a, 1, r, 1), **sizes) for a, r in points}
    scope = (
        f"mu = C = 1; (Lambda, nu) in {{{', '.join(f'({a}, {r})' for a, r in points)}}}; "
        f"relaxation capped at K = {next(iter(brackets.values())).relaxation.states}"
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
    return [
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
