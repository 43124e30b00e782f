r"""How large must c be?  A sweep of SSS(c log N / N) over c and N.

Source: J. Bray, arXiv:2601.14538, Theorem 2: :math:`C_\text{long} = R_\text{off} -
R_W = O(1)` once :math:`W \ge c\log N/N` for a large enough :math:`c`.

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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from qtheory import _validation
from qtheory.cache import ResultCache, cached_map
from qtheory.executor import Executor, make_executor
from qtheory.lossnet.model import LossNetwork
from qtheory.sim.lossnet import simulate

__all__ = [
    "TOLERATED_GROWTH",
    "LossGrowth",
    "SweepPoint",
    "loss_growth",
    "smallest_bounded_constant",
    "sss_replication",
    "window_sweep",
]

CONFIDENCE = 0.95
WARMUP = 3.0  # the run starts empty; the idle count settles within about 2 time units
TOLERATED_GROWTH = 0.1  # a loss rate growing no faster than N^0.1 counts as bounded
_SLOPE_RANGE = 50.0  # |s| beyond this is reported as infinite


def sss_replication(task: dict) -> dict:
    """One replication of SSS(c log N / N) for every c in ``task["cs"]``, on one path.

    The path's seed is ``SeedSequence([task["seed"], N, task["rep"]])``, so every c (and
    every rerun) sees the same future.  Returns per-c H losses, L rejections and mean
    idle count over (warmup, horizon].
    """
    net = LossNetwork(**task["net"])
    seed = np.random.SeedSequence([task["seed"], net.servers, task["rep"]])
    out: dict[str, list] = {"lost_h": [], "rejected_l": [], "mean_idle": []}
    for c in task["cs"]:
        window = c * math.log(net.servers) / net.servers
        result = simulate(net, f"sss:{window!r}", horizon=task["horizon"], warmup=WARMUP, seed=seed)
        out["lost_h"].append(result.rejected_h)
        out["rejected_l"].append(result.rejected_l)
        out["mean_idle"].append(result.mean_idle.mean)
    return out


@dataclass(frozen=True)
class SweepPoint:
    """SSS(c log N / N) at one (N, c): means over replications and 95% half-widths."""

    servers: int
    c: float
    window: float
    horizon: float
    reps: int
    lost_h: int  # H jobs lost, summed over the replications
    loss_rate_h: float
    loss_rate_h_halfwidth: float
    mean_idle: float
    mean_idle_halfwidth: float
    cost: float  # r_L mu (mean idle) + (r_H - r_L)(H-loss rate)
    cost_halfwidth: float


def _mean_and_halfwidth(values: np.ndarray) -> tuple[float, float]:
    t = stats.t.ppf(0.5 + CONFIDENCE / 2, values.size - 1)
    return float(values.mean()), float(t * values.std(ddof=1) / math.sqrt(values.size))


def _horizon(net: LossNetwork, events: float) -> float:
    rate = (net.lambda_h + net.lambda_l + net.mu) * net.servers
    return max(WARMUP + 5.0, events / rate)


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
    cs, servers
        The grids (c > 0; N >= 2).
    events : float
        Events per replication: the horizon is ``events / ((lambda_H + lambda_L + mu) N)``,
        at least 8 time units (the first 3 are warm-up).
    reps : int
        Replications per N (>= 2), each one path shared by all c.
    seed : int
        Root seed; the results are a function of it.
    executor, cache
        Where the replications run (default: a local process pool) and where their
        results are kept (default: none; pass a :class:`~qtheory.cache.ResultCache` to
        compute only what is missing on a rerun).

    Examples
    --------
    >>> from qtheory.executor import SerialExecutor
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> points = window_sweep(net, [1.0, 8.0], [50], events=2e4, executor=SerialExecutor(),
    ...                       progress=False)
    >>> [p.c for p in points], points[0].loss_rate_h > points[1].loss_rate_h
    ([1.0, 8.0], True)
    """
    cs = [_validation.positive("c", c) for c in cs]
    servers = [_check_servers(n) for n in servers]
    reps = _validation.positive_int("reps", reps)
    if reps < 2:
        raise ValueError(f"reps must be >= 2 for confidence intervals, got {reps}")
    events = _validation.positive("events", events)
    params = {name: getattr(net, name) for name in ("lambda_h", "lambda_l", "mu", "r_h", "r_l")}
    tasks = [
        {
            "net": {"servers": n, **params},
            "cs": cs,
            "horizon": _horizon(net.with_servers(n), events),
            "seed": int(seed),
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
    span = horizon - WARMUP
    loss = np.array([run["lost_h"][j] / span for run in runs])
    idle = np.array([run["mean_idle"][j] for run in runs])
    cost = net.r_l * net.mu * idle + (net.r_h - net.r_l) * loss
    return SweepPoint(
        n, c, c * math.log(n) / n, horizon, len(runs), sum(run["lost_h"][j] for run in runs),
        *_mean_and_halfwidth(loss), *_mean_and_halfwidth(idle), *_mean_and_halfwidth(cost),
    )  # fmt: skip


@dataclass(frozen=True)
class LossGrowth:
    """Fitted H-loss rate A N^slope for one c, with a 95% interval [lower, upper] on the
    slope (profile likelihood; -inf / inf where the data do not bound it; slope NaN when
    no loss was seen at any N)."""

    c: float
    slope: float
    lower: float
    upper: float
    points: int
    losses: int

    @property
    def bounded(self) -> bool:
        """No loss at all, or growth faster than N^TOLERATED_GROWTH excluded."""
        return self.losses == 0 or self.upper <= TOLERATED_GROWTH

    @property
    def growing(self) -> bool:
        """Growth detected: the interval lies above 0."""
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

    Examples
    --------
    >>> pts = [SweepPoint(n, 1.0, 0.0, 13.0, 2, y, y / 20, 0.0, 0.0, 0.0, 0.0, 0.0)
    ...        for n, y in [(100, 10), (1000, 100), (10_000, 1000)]]
    >>> growth = loss_growth(pts, 1.0)
    >>> round(growth.slope, 6), growth.growing
    (1.0, True)
    """
    chosen = sorted((p for p in points if p.c == c), key=lambda p: p.servers)
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
    """The smallest c of the sweep from which on (that c and every larger one) the H-loss
    rate is bounded in N (:attr:`LossGrowth.bounded`); NaN if the largest c is not."""
    smallest = math.nan
    for c in sorted({p.c for p in points}, reverse=True):
        if not loss_growth(points, c).bounded:
            break
        smallest = c
    return smallest


def _check_servers(n: object) -> int:
    n = _validation.positive_int("servers", n)
    if n < 2:
        raise ValueError(f"servers must be >= 2 (W = c log N / N), got {n}")
    return n
