r"""The belief of the unobservable M/M/1 queue's controller, and the belief-threshold
policy that uses it.

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

The *belief-threshold* policy reopens the gate when
:math:`E[N_t \mid \text{history}] \le x`; it uses the whole history.  It is simulated
with the belief carried along each path and each admission's reward replaced by its
conditional expectation given the history, so only the Exp(Λ) waits are random and
the interval is narrow (:func:`belief_threshold_welfare`).

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [2] M. L. Puterman, Markov Decision Processes: Discrete Stochastic Dynamic
   Programming, Wiley (1994).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from qtheory.core import limits
from qtheory.core.stats import Estimate
from qtheory.core.validation import nonnegative, positive, positive_int
from qtheory.gated.embedded_chain import service_count_law
from qtheory.gated.welfare import float64_rates
from qtheory.model.gated import GatedQueue, checked_queue

__all__ = [
    "BeliefThreshold",
    "belief_threshold_welfare",
    "belief_update",
    "optimal_belief_threshold",
]


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
    See the module's References: Puterman (1994), Chapter 11.
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


#: The belief-threshold simulation's defaults (paths, admissions, support), against
#: which :func:`require_belief` blames the argument that grew most.
DEFAULT_SIZES = {"paths": 200, "admissions": 2000, "support": 48}
#: Points of the reopening grid.
_GRID_POINTS = 2049
#: dp_cells of one Python-level step (NumPy calls on one support level of all paths:
#: about 7 µs measured, at 1e9 cells per second).
_STEP_CELLS = 7000
#: The threshold search: a geometric grid, then golden-section steps (two to start).
_SEARCH_POINTS, _GOLDEN_STEPS = 9, 10
_SEARCH_RUNS = _SEARCH_POINTS + 2 + _GOLDEN_STEPS


def require_belief(paths: int, admissions: int, support: int, *, runs: int = 1) -> None:
    """Refuse, before any work, ``runs`` simulations (:func:`belief_threshold_welfare`)
    whose memory or work exceeds :mod:`qtheory.core.limits`: the reopening grid's tables
    (2049 × support floats) and a few paths × support arrays; per admission a
    Python-level step per support level and about paths × support² + 30 paths × support
    cells (the depletion, the Poisson rows, the reopening search).

    Parameters
    ----------
    paths, admissions, support : int
        As :func:`belief_threshold_welfare`.
    runs : int, keyword-only
        How many such simulations.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        Above the ``memory`` or the ``dp_cells`` limit, naming the argument that grew
        most against :data:`DEFAULT_SIZES` (support counting twice: the cost is
        quadratic in it).

    Examples
    --------
    >>> require_belief(200, 2000, 48)  # the defaults: within the limits
    >>> require_belief(200, 2000, 10**5)
    Traceback (most recent call last):
    ...
    ValueError: support: 1 simulation(s) of the belief threshold (200 paths, 2000 ...
    """
    growth = {
        "paths": paths / DEFAULT_SIZES["paths"],
        "admissions": admissions / DEFAULT_SIZES["admissions"],
        "support": (support / DEFAULT_SIZES["support"]) ** 2,
    }
    parameter = max(growth, key=growth.__getitem__)
    what = (
        f"{runs} simulation(s) of the belief threshold ({paths} paths, {admissions} "
        f"admissions, support {support})"
    )
    memory = 8.0 * support * (5 * _GRID_POINTS + 10 * paths)
    limits.require("memory", memory, parameter=parameter, what=what)
    step = support * _STEP_CELLS + paths * support**2 + 30 * paths * support
    limits.require("dp_cells", runs * admissions * step, parameter=parameter, what=what)


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
        ν ≤ 1, a bad keyword, parameters that float64 cannot carry, a simulation above
        :mod:`qtheory.core.limits` (:func:`require_belief`, refused before it starts),
        or a belief that outgrew its support.

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
    See the module's References: Puterman (1994), Sections 8.1 and 11.1
    (history-dependent policies).
    """
    queue = checked_queue(queue, worthwhile=True)
    threshold = positive("threshold", threshold)
    paths, admissions = positive_int("paths", paths), positive_int("admissions", admissions)
    support = positive_int("support", support)
    if paths < 2 or admissions < 10 or support < 4:
        raise ValueError(
            f"paths must be >= 2, admissions >= 10 and support >= 4, got {paths}, "
            f"{admissions}, {support}"
        )
    arrival, mu, reward, cost = float64_rates(queue)
    require_belief(paths, admissions, support)
    times = np.linspace(0.0, (2 * support + 10) / mu, _GRID_POINTS)
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
        As :func:`belief_threshold_welfare`; the search's 21 simulations and the final
        one are estimated (:func:`require_belief`) before the first starts.

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
        "support": positive_int("support", support),
        "seed": seed,
    }
    # up front: the search below counts a refused simulation as a failed candidate
    require_belief(search["paths"], search["admissions"], support, runs=_SEARCH_RUNS)
    require_belief(paths, admissions, support)

    def welfare(x: float) -> float:
        try:
            return belief_threshold_welfare(queue, x, **search).welfare.mean
        except ValueError:  # the belief outgrew its support: a long queue, not a candidate
            return -math.inf

    grid = np.geomspace(0.02, 4.0, _SEARCH_POINTS)
    values = [welfare(x) for x in grid]
    best = int(np.argmax(values))
    low, high = grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]
    ratio = (math.sqrt(5) - 1) / 2
    left, right = high - ratio * (high - low), low + ratio * (high - low)
    at_left, at_right = welfare(left), welfare(right)
    for _ in range(_GOLDEN_STEPS):
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
