r"""The offline optimum of the loss network in the ``job`` information model.

In the ``job`` model (``docs/information-models.md``) every job carries its own service
time, and the offline policy sees all of them in advance.  Admitting job :math:`j`
occupies one server during the half-open interval :math:`[a_j, a_j + s_j)`, so the
offline optimum is a *maximum-weight N-track interval selection*: choose a set of jobs,
at most :math:`N` of them overlapping at any time, of largest total reward.

It is solved as a min-cost flow, written as a linear programme and handed to HiGHS
(:func:`scipy.optimize.linprog`, ``method="highs"``) with sparse constraints.  The nodes
are the distinct start times in increasing order plus a sink; a *timeline* arc joins
consecutive nodes (cost 0, uncapacitated: it carries the idle servers); job :math:`j`
is an arc of capacity 1 and cost :math:`-r_j` from the node of its start to the first
node at or after its end (a server freed at :math:`t` can serve a job starting at
:math:`t`).  :math:`N` units flow from the first node to the sink.  The constraint
matrix is a network matrix, hence totally unimodular, so the LP has an integral optimal
vertex; :func:`max_weight_interval_selection` checks that the returned solution is
integral, that the selected jobs never overlap more than :math:`N` deep, and that their
reward equals the LP optimum, which certifies optimality (an integral feasible point
attaining the value of the relaxation) [2]_.

Two independent routes serve as checks: :func:`single_track_selection`, the classic
O(n log n) weighted-interval-scheduling dynamic programme for :math:`N = 1`, and
:func:`brute_force_selection`, which enumerates every subset of a tiny instance.

Horizon convention (what makes :func:`offline_job_optimum` an upper bound)
---------------------------------------------------------------------------
Rewards are counted for jobs arriving in :math:`(T_0, T]`.  Jobs arriving at or before
:math:`T_0` (the warm-up) and after :math:`T` carry reward 0; they may be selected but
only take capacity, so the optimum leaves them out, and the value equals the offline
optimum of a system that is *empty at* :math:`T_0`.  A job arriving in :math:`(T_0, T]`
earns its whole reward even if it runs past :math:`T`, and nothing after :math:`T`
constrains it except the other such jobs.  For any policy whatsoever (online,
lookahead or offline, whatever its state at :math:`T_0`), the jobs it admits with
arrivals in :math:`(T_0, T]` never overlap more than :math:`N` deep, so they are a
feasible selection here: the value is an upper bound on every policy's reward counted
over :math:`(T_0, T]` on the same path.  The price is an end effect of order
:math:`N` (the optimum fills the servers at :math:`T` with whatever is left), which
vanishes per unit time as the horizon grows; :mod:`qtheory.lossnet.duration_fluid`
quantifies it.

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026); see ``docs/loss-network.md``.
.. [2] R. K. Ahuja, T. L. Magnanti and J. B. Orlin, Network Flows: Theory, Algorithms,
   and Applications (Prentice Hall 1993), min-cost flow and total unimodularity.

Examples
--------
>>> import numpy as np
>>> sol = offline_job_optimum(
...     arrival_times=[0.5, 1.0, 1.5, 2.0], classes=[1, 0, 1, 0],
...     service_times=[2.0, 0.5, 0.3, 1.0], servers=1, r_h=2.0, r_l=1.0, horizon=3.0)
>>> sol.value, sol.selected.tolist(), (sol.admitted_h, sol.admitted_l)
(5.0, [False, True, True, True], (2, 1))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sparse
from scipy.optimize import linprog

from qtheory.core import limits, validation
from qtheory.core.stats import replication_seeds
from qtheory.model.lossnet import LossNetwork
from qtheory.model.paths import JobPath
from qtheory.sim.lossnet import SimulationResult, job_path, summarise
from qtheory.sim.lossnet_costs import require_path

__all__ = [
    "IntervalSelection",
    "JobPath",
    "JobWindow",
    "OfflineJobSolution",
    "brute_force_selection",
    "job_window",
    "max_overlap",
    "max_weight_interval_selection",
    "offline_job_optimum",
    "sample_job_path",
    "single_track_selection",
]

INTEGRALITY_TOLERANCE = 1e-6
# HiGHS dual simplex: it returns a basic (vertex) solution, which total unimodularity
# makes integral; devex pricing measured about 1.5-2x faster than HiGHS's default choice
# on paths of 10^4 - 5 * 10^4 jobs (interior point was slower still).
HIGHS_METHOD = "highs-ds"
#: Peak memory of the LP per job (HiGHS and the sparse constraint matrix; measured about
#: 3.1 kB per job at N = 100 and 28,000 to 112,000 jobs, rounded up).
LP_BYTES_PER_JOB = 4000
HIGHS_OPTIONS = {"simplex_dual_edge_weight_strategy": "devex"}
BRUTE_FORCE_LIMIT = 16  # 2**16 subsets


@dataclass(frozen=True)
class IntervalSelection:
    """An optimal selection of intervals: its total weight and a boolean mask.

    Attributes
    ----------
    value : float
        Total weight of the selected intervals.
    selected : numpy.ndarray of bool, shape (n,)
        True for each selected interval, in the input order.

    Examples
    --------
    >>> IntervalSelection(3.0, np.array([False, True])).selected.tolist()
    [False, True]
    """

    value: float
    selected: np.ndarray


def _intervals(starts, ends, weights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    starts, ends, weights = (np.asarray(v, dtype=float) for v in (starts, ends, weights))
    if not starts.ndim == ends.ndim == weights.ndim == 1 or not (
        starts.size == ends.size == weights.size
    ):
        raise ValueError("starts, ends and weights must be 1-D arrays of equal length")
    for name, values in (("starts", starts), ("ends", ends), ("weights", weights)):
        if not np.all(np.isfinite(values)):
            raise ValueError(f"{name} must be finite (no NaN or inf)")
    if not np.all(ends > starts):
        raise ValueError("ends must be > starts (every interval has positive length)")
    return starts, ends, weights


def max_overlap(starts, ends) -> int:
    r"""Largest number of half-open intervals ``[start, end)`` covering one instant.

    An interval ending at :math:`t` does not overlap one starting at :math:`t`.

    Parameters
    ----------
    starts, ends : array_like of float, shape (n,)
        Left and right ends of the intervals.

    Returns
    -------
    int
        :math:`\max_t \#\{j : s_j \le t < e_j\}` (0 for no intervals).

    Examples
    --------
    >>> max_overlap([0.0, 1.0, 0.5], [1.0, 2.0, 1.5])
    2
    >>> max_overlap([], [])
    0
    """
    starts, ends = np.asarray(starts, dtype=float), np.asarray(ends, dtype=float)
    if starts.size == 0:
        return 0
    times = np.concatenate([starts, ends])
    steps = np.concatenate([np.ones(starts.size, int), -np.ones(ends.size, int)])
    order = np.lexsort((steps, times))  # at equal times, ends (-1) before starts (+1)
    return int(np.cumsum(steps[order]).max())


def max_weight_interval_selection(starts, ends, weights, tracks: int) -> IntervalSelection:
    """Maximum-weight set of half-open intervals, at most ``tracks`` overlapping.

    Solved as the min-cost flow LP of the module docstring by HiGHS.  Intervals of
    weight ≤ 0 are never selected.  The returned selection is checked to be integral,
    feasible and of weight equal to the LP optimum; a ``RuntimeError`` is raised if not.

    Parameters
    ----------
    starts, ends, weights : array_like of float, shape (n,)
        1-D arrays of equal length, finite, ``ends > starts``.
    tracks : int
        N ≥ 1, the number of servers.

    Returns
    -------
    IntervalSelection
        The optimal weight and the mask of the selected intervals.

    Raises
    ------
    ValueError
        If the arrays are not 1-D of equal length, not finite, an interval has
        ``end <= start``, or ``tracks`` is not an integer ≥ 1.
    RuntimeError
        If HiGHS fails, or its solution is not integral, not feasible or not of the LP
        optimum's weight (never expected: the constraint matrix is totally unimodular).

    References
    ----------
    See the module's References: Ahuja, Magnanti and Orlin (1993), min-cost flow and total
    unimodularity.

    Examples
    --------
    Intervals [0, 3), [1, 2), [2, 3), [0, 1) of weights 2, 1, 1, 1: one track takes the
    three short ones (3 > 2), two tracks take all four (depth 2 everywhere).

    >>> sel = max_weight_interval_selection([0, 1, 2, 0], [3, 2, 3, 1], [2, 1, 1, 1], 1)
    >>> sel.value, sel.selected.tolist()
    (3.0, [False, True, True, True])
    >>> max_weight_interval_selection([0, 1, 2, 0], [3, 2, 3, 1], [2, 1, 1, 1], 2).value
    5.0
    """
    starts, ends, weights = _intervals(starts, ends, weights)
    tracks = validation.positive_int("tracks", tracks)
    selected = np.zeros(starts.size, dtype=bool)
    useful = np.flatnonzero(weights > 0)
    if useful.size == 0:
        return IntervalSelection(0.0, selected)
    start, end, weight = starts[useful], ends[useful], weights[useful]
    # Nodes: distinct start times, then a sink (index `points.size`).
    points = np.unique(start)
    tail = np.searchsorted(points, start)
    head = np.searchsorted(points, end, side="left")  # first start at or after the end
    n_nodes, n_jobs = points.size + 1, useful.size
    n_timeline = n_nodes - 1
    # Columns: timeline arcs k -> k+1, then job arcs. Rows: flow balance at nodes
    # 0 .. n_nodes - 2 (out - in = N at the source, 0 elsewhere); the sink's row is
    # implied by the others.
    arc_tail = np.concatenate([np.arange(n_timeline), tail])
    arc_head = np.concatenate([np.arange(1, n_nodes), head])
    columns = np.arange(n_timeline + n_jobs)
    keep = arc_head < n_nodes - 1
    rows = np.concatenate([arc_tail, arc_head[keep]])
    cols = np.concatenate([columns, columns[keep]])
    vals = np.concatenate([np.ones(columns.size), -np.ones(int(keep.sum()))])
    balance = sparse.csr_array((vals, (rows, cols)), shape=(n_nodes - 1, n_timeline + n_jobs))
    supply = np.zeros(n_nodes - 1)
    supply[0] = tracks
    cost = np.concatenate([np.zeros(n_timeline), -weight])
    bounds = np.zeros((n_timeline + n_jobs, 2))
    bounds[:n_timeline, 1] = np.inf  # idle servers: at most N is implied by the balance
    bounds[n_timeline:, 1] = 1.0
    result = linprog(
        cost, A_eq=balance, b_eq=supply, bounds=bounds, method=HIGHS_METHOD, options=HIGHS_OPTIONS
    )
    if not result.success:
        raise RuntimeError(f"HiGHS failed on the interval-selection LP: {result.message}")
    chosen = result.x[n_timeline:]
    deviation = float(np.max(np.abs(chosen - np.round(chosen))))
    if deviation > INTEGRALITY_TOLERANCE:
        raise RuntimeError(f"LP solution is not integral (max deviation {deviation:.3g})")
    picked = chosen > 0.5
    value = float(weight[picked].sum())
    lp_value = -float(result.fun)
    if not math.isclose(value, lp_value, rel_tol=1e-9, abs_tol=1e-9):
        raise RuntimeError(f"rounded selection has weight {value}, LP optimum {lp_value}")
    if max_overlap(start[picked], end[picked]) > tracks:
        raise RuntimeError("rounded selection overlaps more than `tracks` deep")
    selected[useful[picked]] = True
    return IntervalSelection(value, selected)


def single_track_selection(starts, ends, weights) -> IntervalSelection:
    """Weighted interval scheduling (one track), the classic O(n log n) DP.

    Sort by end; ``best[i]`` is the optimum over the first ``i`` intervals;
    ``best[i] = max(best[i-1], w_i + best[p(i)])`` with ``p(i)`` the number of intervals
    ending at or before interval ``i`` starts.

    Parameters
    ----------
    starts, ends, weights : array_like of float, shape (n,)
        1-D arrays of equal length, finite, ``ends > starts``.

    Returns
    -------
    IntervalSelection
        The optimal weight and the mask of the selected intervals (intervals of
        weight ≤ 0 are never selected).

    Raises
    ------
    ValueError
        If the arrays are not 1-D of equal length, not finite, or an interval has
        ``end <= start``.

    Examples
    --------
    >>> sel = single_track_selection([0, 1, 2, 0], [3, 2, 3, 1], [2, 1, 1, 1])
    >>> sel.value, sel.selected.tolist()
    (3.0, [False, True, True, True])
    """
    starts, ends, weights = _intervals(starts, ends, weights)
    order = np.argsort(ends, kind="stable")
    s, e, w = starts[order], ends[order], weights[order]
    before = np.searchsorted(e, s, side="right")  # intervals (in order) ending <= start
    best = [0.0] * (s.size + 1)
    for i in range(s.size):
        best[i + 1] = max(best[i], w[i] + best[before[i]])
    selected = np.zeros(s.size, dtype=bool)
    i = s.size
    while i > 0:
        if w[i - 1] > 0 and w[i - 1] + best[before[i - 1]] >= best[i - 1]:
            selected[order[i - 1]] = True
            i = int(before[i - 1])
        else:
            i -= 1
    return IntervalSelection(float(best[-1]), selected)


def brute_force_selection(starts, ends, weights, tracks: int) -> IntervalSelection:
    """Exhaustive search over all subsets (tiny instances only: at most 16 intervals).

    Every subset is checked against the depth limit on every elementary segment between
    consecutive endpoints; the best feasible one is returned.

    Parameters
    ----------
    starts, ends, weights : array_like of float, shape (n,)
        1-D arrays of equal length (at most 16), finite, ``ends > starts``.
    tracks : int
        N ≥ 1, the number of servers.

    Returns
    -------
    IntervalSelection
        The optimal weight and a mask of an optimal subset.

    Raises
    ------
    ValueError
        On invalid intervals or ``tracks``, or more than 16 intervals.

    Examples
    --------
    >>> brute_force_selection([0, 1, 2, 0], [3, 2, 3, 1], [2, 1, 1, 1], 2).value
    5.0
    """
    starts, ends, weights = _intervals(starts, ends, weights)
    tracks = validation.positive_int("tracks", tracks)
    if starts.size > BRUTE_FORCE_LIMIT:
        raise ValueError(
            f"brute force takes at most {BRUTE_FORCE_LIMIT} intervals, got {starts.size}"
        )
    points = np.unique(np.concatenate([starts, ends]))
    left, right = points[:-1], points[1:]
    covers = (starts[None, :] <= left[:, None]) & (right[:, None] <= ends[None, :])
    subsets = (np.arange(2**starts.size)[:, None] >> np.arange(starts.size)) & 1
    depth = subsets @ covers.T.astype(int)
    feasible = np.all(depth <= tracks, axis=1) if depth.size else np.ones(len(subsets), bool)
    values = np.where(feasible, subsets @ weights, -np.inf)
    best = int(np.argmax(values))
    return IntervalSelection(float(values[best]), subsets[best].astype(bool))


def sample_job_path(net: LossNetwork, horizon: float, rng) -> JobPath:
    """Sample a ``job``-model path on ``(0, horizon]`` with NumPy (an independent route
    to the paths that :func:`qtheory.sim.lossnet.job_path` exports from C).

    H arrives Poisson(λ_H N) and L Poisson(λ_L N), merged: the total count is
    Poisson((λ_H + λ_L) N T), the times are sorted uniforms and each job is H with
    probability λ_H / (λ_H + λ_L); service times are Exp(μ).

    Parameters
    ----------
    net : LossNetwork
        The loss network.
    horizon : float
        T > 0.
    rng : numpy.random.Generator or seed
        A :class:`numpy.random.Generator` (or anything :func:`numpy.random.default_rng`
        accepts, e.g. a seed or a ``SeedSequence``).

    Returns
    -------
    JobPath
        Arrival times (sorted), classes and service times of the jobs in (0, T].

    Raises
    ------
    ValueError
        If ``horizon`` is not a finite number > 0.

    Examples
    --------
    The expected number of jobs is (λ_H + λ_L) N T = 600:

    >>> net = LossNetwork(50, 0.6, 0.6, 1.0, 2.0, 1.0)
    >>> path = sample_job_path(net, 10.0, np.random.default_rng(1))
    >>> path.arrival_times.size, bool(np.all(np.diff(path.arrival_times) >= 0))
    (601, True)
    """
    horizon = validation.positive("horizon", horizon)
    rng = np.random.default_rng(rng)
    total_rate = (net.lambda_h + net.lambda_l) * net.servers
    count = int(rng.poisson(total_rate * horizon))
    arrival_times = np.sort(rng.uniform(0.0, horizon, count))
    is_l = rng.random(count) >= net.lambda_h / (net.lambda_h + net.lambda_l)
    service_times = rng.exponential(1.0 / net.mu, count)
    return JobPath(arrival_times, is_l, service_times)


@dataclass(frozen=True)
class JobWindow:
    """The validated jobs of a path that arrive in ``(warmup, horizon]``: their positions
    ``index`` in the input, arrival ``start``, ``service`` time, class ``kind`` (0 = H,
    1 = L) and reward ``weight``; ``total`` is the number of input jobs.

    Attributes
    ----------
    index : numpy.ndarray of int, shape (k,)
        Positions in the input of the jobs arriving in ``(warmup, horizon]``.
    start, service : numpy.ndarray of float, shape (k,)
        Their arrival and service times.
    kind : numpy.ndarray of int, shape (k,)
        Their classes, 0 (H) or 1 (L).
    weight : numpy.ndarray of float, shape (k,)
        Their rewards, ``r_h`` or ``r_l``.
    total : int
        Number of jobs in the input (inside the window or not).
    servers : int
        N.
    horizon, warmup : float
        The window ``(warmup, horizon]``.

    Examples
    --------
    >>> w = job_window([0.0, 1.0, 2.0], [0, 1, 0], [1.0, 1.0, 1.0], 3, 2.0, 1.0, 2.0, 0.0)
    >>> w.weight.tolist(), w.total
    ([1.0, 2.0], 3)
    """

    index: np.ndarray
    start: np.ndarray
    service: np.ndarray
    kind: np.ndarray
    weight: np.ndarray
    total: int
    servers: int
    horizon: float
    warmup: float


def job_window(
    arrival_times, classes, service_times, servers, r_h, r_l, horizon, warmup
) -> JobWindow:
    """Validate a ``job``-model path and its parameters; keep the jobs in the window.

    Parameters
    ----------
    arrival_times : array_like of float, shape (n,)
        Non-decreasing, finite.
    classes : array_like of int, shape (n,)
        0 (H) or 1 (L), one per job.
    service_times : array_like of float, shape (n,)
        Finite and > 0.
    servers : int
        N ≥ 1.
    r_h, r_l : float
        Rewards on admission, > 0.
    horizon, warmup : float
        The window ``(warmup, horizon]``; finite, ``horizon > warmup``.

    Returns
    -------
    JobWindow
        The jobs arriving in ``(warmup, horizon]`` with their rewards, and the
        validated parameters.

    Raises
    ------
    ValueError
        If the arrays are not 1-D of equal length, the arrival times are not finite or
        not sorted, a service time is not finite and > 0, a class is not 0 or 1, or a
        parameter is invalid (``horizon <= warmup`` included).

    Examples
    --------
    >>> job_window([0.0, 1.0, 2.0], [0, 1, 0], [1.0, 1.0, 1.0], 3, 2.0, 1.0, 2.0, 0.0).index
    array([1, 2])
    >>> job_window([1.0, 0.0], [0, 1], [1.0, 1.0], 3, 2.0, 1.0, 2.0, 0.0)
    Traceback (most recent call last):
    ...
    ValueError: arrival_times must be sorted (non-decreasing)
    """
    arrivals = np.asarray(arrival_times, dtype=float)
    service = np.asarray(service_times, dtype=float)
    kinds = np.asarray(classes)
    if not arrivals.ndim == kinds.ndim == service.ndim == 1 or not (
        arrivals.size == kinds.size == service.size
    ):
        raise ValueError(
            "arrival_times, classes and service_times must be 1-D arrays of equal length"
        )
    if not np.all(np.isfinite(arrivals)):
        raise ValueError("arrival_times must be finite (no NaN or inf)")
    if np.any(np.diff(arrivals) < 0):
        raise ValueError("arrival_times must be sorted (non-decreasing)")
    if not np.all(np.isfinite(service) & (service > 0)):
        raise ValueError("service_times must be finite and > 0")
    if not np.all((kinds == 0) | (kinds == 1)):
        raise ValueError("classes must be 0 (H) or 1 (L)")
    servers = validation.positive_int("servers", servers)
    r_h = validation.positive("r_h", r_h)
    r_l = validation.positive("r_l", r_l)
    horizon = validation.real("horizon", horizon)
    warmup = validation.real("warmup", warmup)
    if not (math.isfinite(horizon) and math.isfinite(warmup) and horizon > warmup):
        raise ValueError(
            f"horizon must be finite and > warmup, got horizon={horizon}, warmup={warmup}"
        )
    index = np.flatnonzero((arrivals > warmup) & (arrivals <= horizon))
    kind = kinds[index].astype(int)
    return JobWindow(
        index=index,
        start=arrivals[index],
        service=service[index],
        kind=kind,
        weight=np.where(kind == 0, r_h, r_l),
        total=int(arrivals.size),
        servers=servers,
        horizon=horizon,
        warmup=warmup,
    )


@dataclass(frozen=True)
class OfflineJobSolution:
    """The ``job``-model offline optimum on one path.

    ``value`` is the total reward of the selected jobs arriving in ``(warmup, horizon]``
    and ``reward_rate = value / (horizon - warmup)``.  ``selected`` is a boolean mask
    over the input jobs; ``counted_h`` and ``counted_l`` are the numbers of jobs of each
    class arriving in the window.

    Attributes
    ----------
    value : float
        Total reward of the selected jobs.
    reward_rate : float
        ``value / (horizon - warmup)``.
    selected : numpy.ndarray of bool, shape (n,)
        True for each selected input job.
    admitted_h, admitted_l : int
        Selected jobs of each class.
    counted_h, counted_l : int
        Jobs of each class arriving in the window.
    method : str
        The solver used: ``"lp"``, ``"dp"`` or ``"brute"``.

    Examples
    --------
    >>> sol = offline_job_optimum([0.5, 1.0], [1, 0], [1.0, 1.0], servers=1, r_h=2.0,
    ...                           r_l=1.0, horizon=2.0)
    >>> sol.value, sol.reward_rate, (sol.admitted_h, sol.counted_l), sol.method
    (2.0, 1.0, (1, 1), 'lp')
    """

    value: float
    reward_rate: float
    selected: np.ndarray
    admitted_h: int
    admitted_l: int
    counted_h: int
    counted_l: int
    method: str


METHODS = ("lp", "dp", "brute")


def offline_job_optimum(
    arrival_times,
    classes,
    service_times,
    *,
    servers: int,
    r_h: float,
    r_l: float,
    horizon: float,
    warmup: float = 0.0,
    method: str = "lp",
) -> OfflineJobSolution:
    """Offline optimum in the ``job`` model: reward of the best job selection.

    See the module docstring for the horizon convention: rewards count for arrivals in
    ``(warmup, horizon]``; the value equals the optimum of a system empty at
    ``warmup`` and bounds every policy's reward over that window on the same path.

    Parameters
    ----------
    arrival_times : array_like of float, shape (n,)
        Non-decreasing, finite.
    classes : array_like of int, shape (n,)
        0 (H) or 1 (L), one per job.
    service_times : array_like of float, shape (n,)
        Finite and > 0.
    servers : int
        N ≥ 1.
    r_h, r_l : float
        Rewards on admission, > 0.
    horizon, warmup : float
        The window ``(warmup, horizon]``; ``horizon > warmup`` (``warmup`` defaults
        to 0).
    method : {"lp", "dp", "brute"}, optional
        ``"lp"`` (min-cost flow LP with HiGHS, the default), ``"dp"`` (weighted interval
        scheduling, ``servers == 1`` only) or ``"brute"`` (at most 16 jobs in the window).

    Returns
    -------
    OfflineJobSolution
        The optimal reward, its rate over the window, the selection and the counts.

    Raises
    ------
    ValueError
        If ``method`` is unknown, the path or a parameter is invalid (see
        :func:`job_window`), ``method="dp"`` with ``servers != 1``, or
        ``method="brute"`` with more than 16 jobs in the window.
    RuntimeError
        If the LP route fails its certificate (see
        :func:`max_weight_interval_selection`).

    References
    ----------
    See the module's References: Ahuja, Magnanti and Orlin (1993), min-cost flow and total
    unimodularity.

    Examples
    --------
    >>> net = LossNetwork(1, 0.6, 0.6, 1.0, 2.0, 1.0)
    >>> path = sample_job_path(net, 40.0, 7)
    >>> kw = dict(servers=1, r_h=2.0, r_l=1.0, horizon=40.0, warmup=5.0)
    >>> lp = offline_job_optimum(path.arrival_times, path.classes, path.service_times, **kw)
    >>> dp = offline_job_optimum(
    ...     path.arrival_times, path.classes, path.service_times, method="dp", **kw)
    >>> lp.value == dp.value, lp.value
    (True, 37.0)
    >>> offline_job_optimum([0.0], [2], [1.0], servers=1, r_h=2, r_l=1, horizon=1)
    Traceback (most recent call last):
    ...
    ValueError: classes must be 0 (H) or 1 (L)
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    jobs = job_window(arrival_times, classes, service_times, servers, r_h, r_l, horizon, warmup)
    start, kind, weight, servers = jobs.start, jobs.kind, jobs.weight, jobs.servers
    end = start + jobs.service
    if method == "lp":
        chosen = max_weight_interval_selection(start, end, weight, servers)
    elif method == "dp":
        if servers != 1:
            raise ValueError(f"method='dp' needs servers == 1, got servers={servers}")
        chosen = single_track_selection(start, end, weight)
    else:
        chosen = brute_force_selection(start, end, weight, servers)
    selected = np.zeros(jobs.total, dtype=bool)
    selected[jobs.index[chosen.selected]] = True
    return OfflineJobSolution(
        value=chosen.value,
        reward_rate=chosen.value / (jobs.horizon - jobs.warmup),
        selected=selected,
        admitted_h=int(np.count_nonzero(chosen.selected & (kind == 0))),
        admitted_l=int(np.count_nonzero(chosen.selected & (kind == 1))),
        counted_h=int(np.count_nonzero(kind == 0)),
        counted_l=int(np.count_nonzero(kind == 1)),
        method=method,
    )


def simulate_offline_job(
    net: LossNetwork,
    *,
    horizon: float,
    warmup: float = 0.0,
    reps: int = 1,
    seed: object = None,
) -> SimulationResult:
    """The ``job``-model offline optimum on ``reps`` replications, summarised like
    :func:`qtheory.sim.lossnet.simulate` (same seeds: replication i runs on the path
    :func:`qtheory.sim.lossnet.job_path` draws from the i-th replication seed, so the
    result pairs with ``simulate(net, "threshold:K", info="job", ...)`` on common paths).

    Jobs count if they arrive in (T0, T]; the system is empty at T0 for the offline
    selection (see the module docstring), so the reward rate bounds every policy's on
    the same paths.

    Parameters
    ----------
    net : LossNetwork
        The network.
    horizon : float
        T > 0, the end of the window.
    warmup : float, optional
        T0 < T, the start of the window (default 0).
    reps : int, optional
        Number of replications (default 1).
    seed : object, optional
        Root seed of the replication seeds (:func:`qtheory.core.stats.replication_seeds`).

    Returns
    -------
    SimulationResult
        Per-replication reward rates and counts, with policy ``"offline"`` and
        ``info="job"``.

    Raises
    ------
    ValueError
        For invalid arguments, or when the paths or the LP (about
        :data:`LP_BYTES_PER_JOB` bytes per job) exceed the :mod:`qtheory.core.limits`.

    References
    ----------
    See the module's References: Bray (2026); ``docs/information-models.md``.

    Examples
    --------
    >>> net = LossNetwork(5, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> from qtheory.sim.lossnet import simulate
    >>> off = simulate_offline_job(net, horizon=30.0, reps=2, seed=3)
    >>> tr = simulate(net, "threshold:1", info="job", horizon=30.0, reps=2, seed=3)
    >>> bool(all(off.reward_rates >= tr.reward_rates))  # path by path
    True
    """
    cost = require_path(net, info="job", horizon=horizon, reps=reps)
    limits.require(
        "memory",
        LP_BYTES_PER_JOB * cost.events,
        parameter="horizon",
        what=f"the min-cost-flow LP over about {cost.events:.3g} jobs",
    )
    runs = []
    for child in replication_seeds(seed, reps):
        path = job_path(net, horizon, child)
        solution = offline_job_optimum(
            path.arrival_times, path.classes, path.service_times,
            servers=net.servers, r_h=net.r_h, r_l=net.r_l, horizon=horizon, warmup=warmup,
        )  # fmt: skip
        chosen = solution.selected
        ends = np.minimum(path.arrival_times[chosen] + path.service_times[chosen], horizon)
        busy_area = float(np.sum(ends - path.arrival_times[chosen]))
        runs.append({
            "admitted_h": solution.admitted_h,
            "admitted_l": solution.admitted_l,
            "rejected_h": solution.counted_h - solution.admitted_h,
            "rejected_l": solution.counted_l - solution.admitted_l,
            "idle_area": net.servers * (horizon - warmup) - busy_area,
            "events": int(path.arrival_times.size + chosen.sum()),  # arrivals, departures
            "l_arrivals_scored": 0,
            "lookahead_events": 0,
            "lookahead_time": 0.0,
        })  # fmt: skip
    return summarise(net, "offline", "job", horizon, warmup, runs)
