r"""How large must c be?  A sweep of SSS(c log N / N) over c and N.

Source: J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
overloaded loss network", arXiv:2601.14538 (2026), Theorem 2 (docs/loss-network.md):
:math:`C_\text{long} = R_\text{off} - R_W = O(1)` once :math:`W \ge c\log N/N` for a
large enough :math:`c`.

For every :math:`(N, c)` the simulator runs SSS(:math:`c\log N/N`) on common sample paths
(one path per :math:`(N, \text{replication})`, shared by every :math:`c`) and records
the H-loss rate and the mean idle count.  Their combination
:math:`r_L\mu\bar I + (r_H - r_L)\cdot\text{H-loss rate}` is SSS's cost against the fluid
bound (:data:`qtheory.lossnet.online.REGRET_IDENTITY`; exact for non-anticipating
policies, and within the measured timing gain of :mod:`qtheory.walks.epochs` for SSS).
Since :math:`C_\text{vol} = R_\text{fluid} - R_\text{off} = O(1)` (Theorem 1, measured by
:mod:`qtheory.lossnet.decomposition`), :math:`R_\text{off} - R_\text{SSS}` is bounded in
:math:`N` exactly when this cost is.  The idle part settles at an O(1) value; what can grow
is the loss part, like :math:`N^{1-e(c)}` where :math:`e(c)` is the large-deviation
exponent of the failure probability of :mod:`qtheory.walks.sss`.

:func:`loss_growth` fits the H-loss counts of each :math:`c` by a Poisson model
:math:`\text{rate} = A N^s` with the exposure (replications times the recorded time)
as offset, by maximum likelihood, with a 95% profile-likelihood interval on the growth
exponent :math:`s` widened for overdispersion (losses come in clusters); zero counts
are data, not dropped.  The loss rate is called *bounded* when the interval's upper end
is at most :data:`TOLERATED_GROWTH`, *growing* when its lower end is above 0, and
undetermined otherwise; :func:`smallest_bounded_constant` returns the smallest
:math:`c` of the grid from which on every :math:`c` is bounded.

Seeds: replication ``rep`` at ``N`` runs on
``qtheory.core.stats.replication_seed(SeedSequence([seed, N]), rep)`` (the package's one
replication-seed rule), shared by every :math:`c`.  Tasks carry
:data:`TASK_VERSION`, so results cached under an earlier seed rule are not reused.

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the overloaded
   loss network", arXiv:2601.14538 (2026).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from qtheory.core import limits, validation
from qtheory.core.cache import ResultCache, cached_map
from qtheory.core.executor import Executor, make_executor
from qtheory.core.stats import CONFIDENCE, Estimate, replication_seed
from qtheory.model.lossnet import LossNetwork, two_classes
from qtheory.sim.lossnet import simulate

__all__ = [
    "TASK_VERSION",
    "TOLERATED_GROWTH",
    "LossGrowth",
    "SweepPoint",
    "loss_growth",
    "smallest_bounded_constant",
    "sss_replication",
    "window_sweep",
]

TASK_VERSION = (
    2  # 2: seeds by qtheory.core.stats.replication_seed (1: SeedSequence([seed, N, rep]))
)
WARMUP = 3.0  # the run starts empty; the idle count settles within about 2 time units
TOLERATED_GROWTH = 0.1  # a loss rate growing no faster than N^0.1 counts as bounded
_SLOPE_RANGE = 50.0  # |s| beyond this is reported as infinite


def sss_replication(task: dict) -> dict:
    """One replication of SSS(c log N / N) for every c in ``task["cs"]``, on one path
    (without the look-ahead statistics, which the sweep does not read: SSS then decides
    by thresholds where they are cheaper than the scan, with the scan's decisions).

    Parameters
    ----------
    task : dict
        ``{"version": TASK_VERSION, "net": LossNetwork fields, "cs": [c, ...],
        "horizon": T, "seed": s, "rep": i}`` (plain JSON values, the cache key).

    Returns
    -------
    dict
        Per-c lists ``lost_h``, ``rejected_l`` (counts over (warm-up, T]) and
        ``mean_idle``.

    Raises
    ------
    ValueError
        If the task was made for another :data:`TASK_VERSION` or holds invalid values.

    Examples
    --------
    >>> task = {"version": TASK_VERSION, "cs": [4.0], "horizon": 8.0, "seed": 1, "rep": 0,
    ...         "net": {"servers": 20, "lambda_h": 0.6, "lambda_l": 0.8, "mu": 1.0,
    ...                 "r_h": 2.0, "r_l": 1.0}}
    >>> sorted(sss_replication(task))
    ['lost_h', 'mean_idle', 'rejected_l']
    """
    if not isinstance(task, dict) or task.get("version") != TASK_VERSION:
        raise ValueError(f"task must be a dict with version {TASK_VERSION}, got {task!r}")
    net = LossNetwork(**task["net"])
    seed = replication_seed(np.random.SeedSequence([task["seed"], net.servers]), task["rep"])
    out: dict[str, list] = {"lost_h": [], "rejected_l": [], "mean_idle": []}
    for c in task["cs"]:
        policy = f"sss:{net.window(c)!r}"
        result = simulate(net, policy, horizon=task["horizon"], warmup=WARMUP, seed=seed,
                          lookahead_stats=False)  # fmt: skip
        out["lost_h"].append(result.rejected_h)
        out["rejected_l"].append(result.rejected_l)
        out["mean_idle"].append(result.mean_idle.mean)
    return out


@dataclass(frozen=True)
class SweepPoint:
    """SSS(c log N / N) at one (N, c): replication means with 95% Student t intervals.

    Attributes
    ----------
    servers : int
        N.
    c : float
        The window constant.
    window : float
        W = c log N / N.
    horizon : float
        Simulated time per replication (the first :data:`WARMUP` discarded).
    reps : int
        Replications.
    lost_h : int
        H jobs lost, summed over the replications.
    loss_rate_h, mean_idle : Estimate
        H-loss rate and mean idle count.
    cost : Estimate
        r_L mu (mean idle) + (r_H - r_L)(H-loss rate) (the regret identity).

    Examples
    --------
    >>> e = Estimate.of([1.0, 3.0])
    >>> SweepPoint(100, 2.0, 0.09, 13.0, 2, 20, e, e, e).lost_h
    20
    """

    servers: int
    c: float
    window: float
    horizon: float
    reps: int
    lost_h: int
    loss_rate_h: Estimate
    mean_idle: Estimate
    cost: Estimate


def _horizon(net: LossNetwork, events: float) -> float:
    return max(WARMUP + 5.0, events / net.event_rate)


def window_sweep(
    net: LossNetwork,
    cs: Sequence[float],
    servers: Sequence[int],
    *,
    events: float = 2e6,
    reps: int = 4,
    seed: int = 0,
    executor: Executor | None = None,
    cache: ResultCache | None = None,
    progress: bool = True,
) -> list[SweepPoint]:
    """Simulate SSS(c log N / N) for every N in ``servers`` and c in ``cs``.

    Parameters
    ----------
    net : LossNetwork
        Rates and rewards (its own N is ignored).
    cs, servers : sequence of float, sequence of int
        The grids (c > 0; N >= 2).
    events : float, optional
        Events per replication: the horizon is ``events / net.event_rate`` (the event
        rate (lambda_H + lambda_L + mu) N), at least 8 time units (the first 3 are
        warm-up).
    reps : int, optional
        Replications per N (>= 2), each one path shared by all c.
    seed : int, optional
        Root seed (an integer >= 0); the results are a function of it.
    executor, cache : optional
        Where the replications run (default: a local process pool) and where their
        results are kept (default: none; pass a :class:`~qtheory.core.cache.ResultCache` to
        compute only what is missing on a rerun).
    progress : bool, optional
        Show a progress bar.

    Returns
    -------
    list of SweepPoint
        One per (N, c), N-major.

    Raises
    ------
    ValueError
        If a c or N is out of range, reps < 2, events <= 0, the seed is not an integer
        >= 0, or the sweep would simulate more events than :mod:`qtheory.core.limits` allows
        (``"events"``).

    References
    ----------
    See the module's References: Bray (2026), Theorem 2; docs/loss-network.md.

    Examples
    --------
    >>> from qtheory.core.executor import SerialExecutor
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> points = window_sweep(net, [1.0, 8.0], [50], events=2e4, executor=SerialExecutor(),
    ...                       progress=False)
    >>> [p.c for p in points], points[0].loss_rate_h.mean > points[1].loss_rate_h.mean
    ([1.0, 8.0], True)
    """
    net = two_classes(net)
    cs = [validation.positive("c", c) for c in _sequence("cs", cs)]
    servers = [_check_servers(n) for n in _sequence("servers", servers)]
    reps = validation.positive_int("reps", reps)
    if reps < 2:
        raise ValueError(f"reps must be >= 2 for confidence intervals, got {reps}")
    events = validation.positive("events", events)
    seed = validation.nonnegative_int("seed", seed)
    for n in servers:
        net.with_servers(n).window(min(cs))  # W = c log N / N must not underflow
    total = sum(_horizon(net.with_servers(n), events) * net.with_servers(n).event_rate
                for n in servers) * reps * len(cs)  # fmt: skip
    limits.require("events", total, parameter="events", what="the SSS window sweep")
    params = {name: getattr(net, name) for name in ("lambda_h", "lambda_l", "mu", "r_h", "r_l")}
    tasks = [
        {
            "version": TASK_VERSION,
            "net": {"servers": n, **params},
            "cs": cs,
            "horizon": _horizon(net.with_servers(n), events),
            "seed": seed,
            "rep": rep,
        }
        for n in servers
        for rep in range(reps)
    ]
    owned = executor is None
    executor = make_executor() if owned else executor
    try:
        if cache is None:
            results = executor.map(sss_replication, tasks, desc="SSS window sweep",
                                   progress=progress)  # fmt: skip
        else:
            results = cached_map(executor, sss_replication, tasks, cache=cache,
                                 desc="SSS window sweep", progress=progress)  # fmt: skip
    finally:
        if owned:
            executor.close()
    return [
        _point(net, n, j, c, tasks[i * reps]["horizon"], results[i * reps : (i + 1) * reps])
        for i, n in enumerate(servers)
        for j, c in enumerate(cs)
    ]


def _point(net: LossNetwork, n: int, j: int, c: float, horizon: float, runs) -> SweepPoint:
    # imported here, not by the module: the pool's workers import this module for
    # sss_replication alone, and this one loads Sympy
    from qtheory.lossnet.online import REGRET_IDENTITY

    scaled = net.with_servers(n)
    span = horizon - WARMUP
    loss = np.array([run["lost_h"][j] / span for run in runs])
    idle = np.array([run["mean_idle"][j] for run in runs])
    prob_full = loss / scaled.arrival_rate_h  # H-loss rate = λ_H N P(full)
    cost = REGRET_IDENTITY.float64(
        idle, prob_full, net.mu, net.lambda_h, n, net.r_h, net.r_l
    )  # fmt: skip
    return SweepPoint(
        n, c, scaled.window(c), horizon, len(runs), sum(run["lost_h"][j] for run in runs),
        Estimate.of(loss), Estimate.of(idle), Estimate.of(cost),
    )  # fmt: skip


def _sequence(name: str, values: object) -> list:
    if isinstance(values, str) or not isinstance(values, Sequence | np.ndarray):
        raise TypeError(f"{name} must be a sequence, got {values!r}")
    if len(values) == 0:
        raise ValueError(f"{name} must not be empty")
    return list(values)


@dataclass(frozen=True)
class LossGrowth:
    """Fitted H-loss rate A N^slope for one c, with a 95% interval [lower, upper] on the
    slope.

    The interval is a profile-likelihood interval: asymmetric about the slope and
    possibly unbounded (-inf / inf where the data do not bound it), so it is kept as its
    two ends rather than as a symmetric :class:`~qtheory.core.stats.Estimate`.

    Attributes
    ----------
    c : float
        The window constant.
    slope : float
        The maximum-likelihood growth exponent s (NaN when no loss was seen at any N).
    lower, upper : float
        The 95% interval on s.
    points : int
        Sweep points (values of N) fitted.
    losses : int
        H jobs lost in all of them.

    Examples
    --------
    >>> LossGrowth(8.0, -1.0, -2.0, -0.5, 5, 40).bounded
    True
    """

    c: float
    slope: float
    lower: float
    upper: float
    points: int
    losses: int

    @property
    def bounded(self) -> bool:
        """No loss at all, or growth faster than N^TOLERATED_GROWTH excluded.

        Returns
        -------
        bool
            ``losses == 0`` or the upper end of the 95% interval on the slope is at most
            :data:`TOLERATED_GROWTH` (0.1).

        References
        ----------
        See the module's References: Bray (2026), Theorem 2 (C_long = O(1) for a large
        enough c); docs/loss-network.md.

        Examples
        --------
        >>> LossGrowth(8.0, 0.3, 0.05, 0.6, 5, 40).bounded  # upper end 0.6 > 0.1
        False
        >>> LossGrowth(8.0, math.nan, -math.inf, math.inf, 5, 0).bounded  # no loss seen
        True
        """
        return self.losses == 0 or self.upper <= TOLERATED_GROWTH

    @property
    def growing(self) -> bool:
        """Growth detected: the interval lies above 0.

        Returns
        -------
        bool
            Whether the lower end of the 95% interval on the slope is above 0.  A result
            can be neither :attr:`bounded` nor growing (undetermined).

        Examples
        --------
        >>> LossGrowth(4.0, 0.4, 0.2, 0.6, 5, 300).growing
        True
        >>> g = LossGrowth(8.0, 0.05, -0.3, 0.4, 5, 12)
        >>> g.growing, g.bounded
        (False, False)
        """
        return self.lower > 0


def _profile_loglikelihood(slope: float, counts, exposure, log_n) -> float:
    """Poisson log-likelihood of rate A N^slope maximised over A (up to a constant):
    sum y_i s x_i - (sum y) log sum e_i exp(s x_i)."""
    total = counts.sum()
    return float(
        slope * (counts @ log_n) - total * np.logaddexp.reduce(np.log(exposure) + slope * log_n)
    )


def loss_growth(points: Sequence[SweepPoint], c: float) -> LossGrowth:
    """Poisson maximum-likelihood fit of the H-loss counts of one c against N.

    Model: counts_i ~ Poisson(e_i A N_i^s), e_i = reps (horizon - warm-up).  The slope is
    the maximiser of the profile log-likelihood l(s) (concave); the 95% interval is
    {s : 2 (l(s_hat) - l(s)) <= phi chi2_1(0.95)}, phi = max(1, Pearson chi2 / (k - 2))
    the overdispersion of the k points (clustered losses).

    Parameters
    ----------
    points : sequence of SweepPoint
        The sweep (:func:`window_sweep`).
    c : float
        The constant whose points are fitted.

    Returns
    -------
    LossGrowth
        The fit and its interval.

    Raises
    ------
    ValueError
        If no point has this c.

    References
    ----------
    .. [1] S. Asmussen, Applied Probability and Queues, 2nd ed. (Springer 2003)
       (rates of regenerative processes); the profile-likelihood interval is the
       classical likelihood-ratio interval of a Poisson log-linear model.

    Examples
    --------
    >>> e = Estimate.of([0.0, 1.0])  # the rate estimates do not enter the fit
    >>> pts = [SweepPoint(n, 1.0, 0.0, 13.0, 2, y, e, e, e)
    ...        for n, y in [(100, 10), (1000, 100), (10_000, 1000)]]
    >>> growth = loss_growth(pts, 1.0)
    >>> round(growth.slope, 6), growth.growing
    (1.0, True)
    """
    from scipy import optimize, stats  # loaded by the first fit, not by the sweep's workers

    chosen = sorted((p for p in _points(points) if p.c == c), key=lambda p: p.servers)
    if not chosen:
        raise ValueError(f"no sweep points with c = {c}")
    counts = np.array([p.lost_h for p in chosen], dtype=float)
    exposure = np.array([p.reps * (p.horizon - WARMUP) for p in chosen])
    log_n = np.log([p.servers for p in chosen])
    if counts.sum() == 0:
        return LossGrowth(c, math.nan, -math.inf, math.inf, len(chosen), 0)

    def loss(s: float) -> float:
        return -_profile_loglikelihood(s, counts, exposure, log_n)

    fit = optimize.minimize_scalar(loss, bounds=(-_SLOPE_RANGE, _SLOPE_RANGE), method="bounded",
                                   options={"xatol": 1e-10})  # fmt: skip
    slope = float(fit.x)
    fitted = exposure * np.exp(slope * log_n)
    fitted *= counts.sum() / fitted.sum()
    dof = len(chosen) - 2
    pearson = float(np.sum((counts - fitted) ** 2 / fitted)) / dof if dof > 0 else 1.0
    allowance = max(1.0, pearson) * stats.chi2.ppf(CONFIDENCE, 1) / 2

    def excess(s: float) -> float:
        return loss(s) - fit.fun - allowance

    lower = (optimize.brentq(excess, -_SLOPE_RANGE, slope)
             if excess(-_SLOPE_RANGE) > 0 else -math.inf)  # fmt: skip
    upper = (optimize.brentq(excess, slope, _SLOPE_RANGE)
             if excess(_SLOPE_RANGE) > 0 else math.inf)  # fmt: skip
    if slope <= -_SLOPE_RANGE + 1e-6:
        slope = -math.inf
    return LossGrowth(c, slope, float(lower), float(upper), len(chosen), int(counts.sum()))


def smallest_bounded_constant(points: Sequence[SweepPoint]) -> float:
    """The smallest c of the sweep from which on the H-loss rate is bounded in N.

    Parameters
    ----------
    points : sequence of SweepPoint
        The sweep (:func:`window_sweep`).

    Returns
    -------
    float
        The smallest c such that that c and every larger one of the sweep are
        :attr:`LossGrowth.bounded`; NaN if the largest c is not.

    Raises
    ------
    TypeError
        If ``points`` is not a sequence of SweepPoint.
    ValueError
        If ``points`` is empty.

    References
    ----------
    See the module's References: Bray (2026), Theorem 2; docs/loss-network.md.

    Examples
    --------
    >>> e = Estimate.of([0.0, 1.0])
    >>> pts = [SweepPoint(n, c, 0.0, 13.0, 2, y, e, e, e)
    ...        for c, counts in [(2.0, [10, 100, 1000]), (8.0, [30, 3, 0])]
    ...        for n, y in zip([100, 1000, 10_000], counts)]
    >>> smallest_bounded_constant(pts)
    8.0
    """
    points = _points(points)
    if not points:
        raise ValueError("points must hold at least one sweep point, got none")
    smallest = math.nan
    for c in sorted({p.c for p in points}, reverse=True):
        if not loss_growth(points, c).bounded:
            break
        smallest = c
    return smallest


def _points(points: object) -> list[SweepPoint]:
    if isinstance(points, str) or not isinstance(points, Sequence):
        raise TypeError(f"points must be a sequence of SweepPoint, got {points!r}")
    if not all(isinstance(p, SweepPoint) for p in points):
        raise TypeError("points must be a sequence of SweepPoint")
    return list(points)


def _check_servers(n: object) -> int:
    n = validation.positive_int("servers", n)
    if n < 2:
        raise ValueError(f"servers must be >= 2 (W = c log N / N), got {n}")
    return n
