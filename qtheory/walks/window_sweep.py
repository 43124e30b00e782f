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

:func:`loss_growth` fits :math:`\log(\text{H-loss rate})` against :math:`\log N` for
each :math:`c` (weighted least squares, 95% interval), and :func:`smallest_bounded_constant`
returns the smallest :math:`c` of the grid whose fitted growth exponent is :math:`\le 0`
within its interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from qtheory import _validation
from qtheory.cache import ResultCache, cached_map
from qtheory.executor import Executor, make_executor
from qtheory.lossnet.model import LossNetwork
from qtheory.sim.lossnet import simulate

__all__ = [
    "LossGrowth",
    "SweepPoint",
    "loss_growth",
    "smallest_bounded_constant",
    "sss_replication",
    "window_sweep",
]

CONFIDENCE = 0.95
WARMUP = 3.0  # the run starts empty; the idle count settles within about 2 time units


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
        out["mean_idle"].append(result.mean_idle)
    return out


@dataclass(frozen=True)
class SweepPoint:
    """SSS(c log N / N) at one (N, c): means over replications and 95% half-widths."""

    servers: int
    c: float
    window: float
    horizon: float
    reps: int
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
        n, c, c * math.log(n) / n, horizon, len(runs),
        *_mean_and_halfwidth(loss), *_mean_and_halfwidth(idle), *_mean_and_halfwidth(cost),
    )  # fmt: skip


@dataclass(frozen=True)
class LossGrowth:
    """Fitted H-loss rate ~ A N^slope for one c (95% interval on the slope)."""

    c: float
    slope: float
    slope_halfwidth: float
    points: int

    @property
    def bounded(self) -> bool:
        """The loss rate does not grow: slope <= 0 within the interval."""
        return self.slope - self.slope_halfwidth <= 0.0


def loss_growth(points: Sequence[SweepPoint], c: float) -> LossGrowth:
    """Weighted least squares of log(H-loss rate) on log N for one c.

    Each point's weight is 1/Var(log rate) ≈ (rate / s.e.)²; points with no loss at all
    carry no information about a power law and are left out (if fewer than 3 points
    remain, the slope is -inf when the losses vanish at the large N, else NaN).
    """
    chosen = sorted((p for p in points if p.c == c), key=lambda p: p.servers)
    if not chosen:
        raise ValueError(f"no sweep points with c = {c}")
    usable = [p for p in chosen if p.loss_rate_h > 0 and p.loss_rate_h_halfwidth > 0]
    if len(usable) < 3:
        vanishing = chosen[-1].loss_rate_h == 0
        return LossGrowth(c, -math.inf if vanishing else math.nan, 0.0, len(usable))
    t_reps = stats.t.ppf(0.5 + CONFIDENCE / 2, usable[0].reps - 1)
    x = np.log([p.servers for p in usable])
    y = np.log([p.loss_rate_h for p in usable])
    se = np.array([p.loss_rate_h_halfwidth / t_reps / p.loss_rate_h for p in usable])
    w = 1.0 / se**2
    xm = np.sum(w * x) / w.sum()
    slope = float(np.sum(w * (x - xm) * y) / np.sum(w * (x - xm) ** 2))
    resid = y - (np.sum(w * y) / w.sum() + slope * (x - xm))
    dof = len(usable) - 2
    # Scale by the residual variance when the points scatter more than their errors say.
    scale = max(1.0, float(np.sum(w * resid**2)) / dof)
    se_slope = math.sqrt(scale / np.sum(w * (x - xm) ** 2))
    return LossGrowth(c, slope, float(stats.t.ppf(0.975, dof) * se_slope), len(usable))


def smallest_bounded_constant(points: Sequence[SweepPoint]) -> float:
    """The smallest c of the sweep from which on (that c and every larger one) the H-loss
    rate does not grow with N; NaN if the largest c already grows."""
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
