r"""The regret decomposition of the overloaded loss network, estimated on common paths.

Bray (arXiv:2601.14538) splits the regret of the online optimum into three costs,

.. math:: R_{fluid} - R_{on} = \underbrace{R_{fluid} - R_{off}}_{C_{vol}}
          + \underbrace{R_{off} - R_W}_{C_{long}} + \underbrace{R_W - R_{on}}_{C_{short}},

and claims :math:`C_{vol} = O(1)`, :math:`C_{long} = O(1)` once the lookahead is
:math:`W \ge c\log N/N` (for a large enough constant :math:`c`), hence
:math:`C_{short} = \Theta(\log N)` because the left side is :math:`\Theta(\log N)` (Xie,
Gurvich and Küçükyavuz 2025).  This module measures each term in the ``clock``
information model (``docs/information-models.md``), where the offline optimum is the exact dynamic
programme of :func:`qtheory.sim.simulate`, and contrasts the ``job`` model.

What is exact and what is simulated (clock model)
-------------------------------------------------
:math:`R_{fluid}` (:func:`~qtheory.lossnet.fluid.fluid_bound`), :math:`R_{on}` and the
optimal reserve :math:`k^*` (:func:`~qtheory.lossnet.online.online_optimum`) are exact.
:math:`R_{off}`, :math:`R_{PFI}`, :math:`R_{SSS(W)}` (:math:`W = c\log N/N` for each
:math:`c`) and trunk reservation at :math:`k^*` are simulated on the *same* replications
(common random numbers).  :math:`R_W` itself is not computable; SSS(W) is a W-lookahead
policy, so :math:`R_{SSS(W)} \le R_W` and

* :math:`\hat C_{vol} = (R_{fluid} - R_{on}) - \overline{(R_{off} - R_{k^*})}`, the
  simulated :math:`R_{k^*}` being a control variate whose mean :math:`R_{on}` is known
  exactly;
* :math:`\hat C_{long}^{+} = \overline{R_{off} - R_{SSS}}`, an upper estimate of
  :math:`C_{long}`;
* :math:`\hat C_{short}^{-} = \overline{R_{SSS} - R_{k^*}}`, a lower estimate of
  :math:`C_{short}` (an unbiased estimate of :math:`R_{SSS} - R_{on}`);
* :math:`\overline{R_{off} - R_{PFI}}`, the cost of PFI's infinite-lookahead heuristic.

Bars are means over replications; each interval is a 95% Student t interval of the mean
of the per-replication values.  On every replication the three per-path terms add up to
the exact regret, so the three estimates do too (to rounding).

Why the variance is small
-------------------------
Each simulated reward rate is :math:`\Theta(N)` and fluctuates by
:math:`O(\sqrt{N/T'})` over a window of length :math:`T' = T - T_0` (the Poisson counts
of admitted H jobs).  On a common path every policy admits almost the same H jobs and
differs only in a few L decisions near the boundary, so a *difference* of two policies
fluctuates by far less.  Measured in the full sweep of
:mod:`qtheory.report.lossnet_decomposition` (default network λ_H = 0.6, λ_L = 0.8,
μ = 1, r_H = 2, r_L = 1), the per-path standard deviation times :math:`\sqrt{T'}` is
about 0.9 (N = 10), 1.8 (100), 3.6 (1000) and 4.4 (10^4) for
:math:`R_{off} - R_{k^*}`, against about 4, 12, 26 and 100 for :math:`R_{off}` alone:
the control variate saves a factor of about 20 (N = 10) to several hundred
(N >= 10^3) in replications.  Its coefficient is fixed at 1 (not fitted), so it adds no
bias and keeps the decomposition exactly additive.  The unpaired estimate
:math:`R_{fluid} - \overline{R_{off}}` is kept as ``c_vol_direct`` for comparison.

What bias the warm-up and the horizon leave
-------------------------------------------
* Start: every run starts with all servers idle and fills in about
  :math:`\log\frac{\lambda_H+\lambda_L}{\lambda_H+\lambda_L-\mu}/\mu` time units (1.25 for
  the default network); the clock-model state is the busy count alone, which then stays
  near full.  A warm-up :math:`T_0` of a few time units leaves no detectable bias (with
  :math:`T_0 = 1` the window still contains the fill and the estimates are visibly off;
  with :math:`T_0 = 3` they are not).  The threshold control variate sees the same start
  and absorbs most of what is left.
* End: the offline DP maximises the reward of the whole run (0, T] and knows that no H
  arrives after T, so near T it admits L jobs it would otherwise have turned away: an end
  bonus of O(1) reward in total, a bias :math:`+b/T'` in :math:`R_{off}`.  Measured at
  N = 1000 (default network, :math:`T_0 = 3`): :math:`\hat C_{vol}` is 2.35, 2.59, 2.79,
  2.89 for :math:`T'` = 2, 5, 20, 80, i.e. :math:`b \approx 1`.  So
  :math:`\hat C_{vol}` is biased down and :math:`\hat C_{long}^{+}` up by about
  :math:`1/T'` (0.01 at :math:`T' = 100`).  PFI and SSS scan the path past T (it is
  generated on demand), so they get no end bonus.

The job model
-------------
Every job shows its service time (``info="job"``); the offline optimum is the
min-cost-flow LP of :mod:`qtheory.lossnet.offline_job` (through
``simulate(..., info="job")``), which may prefer short jobs and beats the ordinary fluid
bound by :math:`\Theta(N)`: the paper's ordering :math:`R_{fluid} \ge R_{off}` belongs
to the clock model.  The proper upper bound is the duration-aware fluid bound
:math:`Nv` (:func:`~qtheory.lossnet.duration_fluid.duration_fluid_bound`); over a finite
window its rigorous form is :math:`E[D_{\theta^*}]/T'` with the path-wise dual bound
:math:`D_{\theta^*} \ge \mathrm{OFF}` (:mod:`qtheory.lossnet.duration_fluid`), whose
mean is known exactly.  :math:`D_{\theta^*}` is the control variate here:
:math:`\hat R_{off} = E[D]/T' - \overline{(D/T' - R_{off})}` (intervals 2.5 to 6 times
narrower than the plain mean's, N = 10 to 10^4).

n classes
---------
:class:`ClockDesign`, :func:`decomposition`, :func:`replication` and
:func:`fit_decomposition` also take an n-class
:class:`~qtheory.model.lossnet.LossNetwork` (clock model): the same sweep, task by
task through the same executor and cache, with :math:`R_{fluid}`
(:func:`~qtheory.lossnet.fluid.fluid_bound`, the fluid LP's value by the marginal
class), :math:`R_{on}` and the nested reserves :math:`(k_1, \dots, k_n)`
(:func:`~qtheory.lossnet.online.online_optimum`) exact, and the policies of
:mod:`qtheory.sim.lossnet` simulated on common paths: the offline dynamic
programme, PFI and SSS(W) generalised (class j judged on the future in which only the
classes better than j are admitted) and nested trunk reservation at the optimal reserves
as the control variate.  The estimators are those above; SSS(W) is still a W-lookahead
policy, so :math:`\hat C_{long}^{+} \ge C_{long}` and :math:`\hat C_{short}^{-}` is a
lower estimate of :math:`C_{short}`.  :func:`fit_decomposition` compares the regret's
slope with :math:`c(n) = r_m\mu/\log(\mu/(\lambda_1 + \dots + \lambda_{m-1}))`
(:func:`~qtheory.lossnet.regret.leading_constant`, m the marginal class).  A
task of an n-class network holds ``servers``, ``lambdas``, ``rewards`` and ``mu`` in
place of the six two-class fields (so two-class tasks keep their cache keys).  The job
model and the rolling-horizon policy stay two-class.  The offline programme of a
network whose marginal class is not the last is costed as the full one (O(events x N)
work, see :mod:`qtheory.sim.lossnet`), which bounds the N a sweep can reach (N = 1000
with a window of 100 is about 3e8 cells per replication); with one class below the
marginal one it runs as the programme of segments, about 16 times faster at N = 10^4.

A stronger lower bound on R_W: the rolling-horizon policy
---------------------------------------------------------
:func:`rolling_horizon` (RH) is a W-lookahead policy: at each L arrival it solves the
exact dynamic programme over the path's events in the next W time units, with the
online optimum's relative values (:func:`relative_values`) as terminal values, and
admits iff that says so (H is always admitted when a server is idle).  As W -> 0 it is
trunk reservation at :math:`k^*`; like SSS it sees no further than W, so
:math:`R_{RH} \le R_W` and :math:`\overline{R_{off} - R_{RH}}` is another upper estimate
of :math:`C_{long}` (:class:`RollingHorizonDesign`).  It is NumPy over the exported
:func:`~qtheory.sim.clock_path`: one backward pass over (events in the window) x (a band
of busy counts) per L arrival.  Measured CPU seconds per unit of simulated time (default
network, c = 16): 0.007 (N = 10), 0.035 (30), 0.16 (100), 0.65 (300), 2.8 (1000); about
proportional to c, so it is practical up to N of a few hundred.  In the full sweep
(N <= 100, 6 paths of length 100 each), RH with c = 16 comes within 0.02 of the offline
reward (:math:`\overline{R_{off} - R_{RH}} \le 0.02 \pm 0.02`) where SSS(W) stays about
1 below it: SSS is a loose lower bound on :math:`R_W`.

Seeds
-----
Replication ``rep`` of root seed ``seed`` draws its path from
``default_rng(qtheory.core.stats.replication_seed(seed, rep))`` =
``default_rng(SeedSequence(seed, spawn_key=(rep,)))`` -- exactly replication ``rep`` of
``simulate(..., reps=R, seed=seed)`` and ``compare(...)`` for any R > rep.  It is run as
``simulate(..., reps=1, seed=root)`` with the root whose replication 0 is that seed
(``SeedSequence(seed, n_children_spawned=rep)``), afresh for each policy, so every
policy sees the same path and each replication is a self-contained task that any
process can compute.

Costs
-----
A sweep is a batch of independent, cached replications: every design checks, before
any task runs, that one replication of each of its policies is within the limits of
:mod:`qtheory.core.limits` (:func:`qtheory.sim.lossnet_costs.require_run`; the rolling-horizon
programme's cells too) and that its task list fits in memory.  Totals over many
replications are not limited (the full reproduce sweep runs for about half an hour).

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026).
.. [2] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable resources:
   logarithmic regret in overloaded networks", Operations Research 73(4) (2025).
.. [3] M. L. Puterman, Markov Decision Processes, Wiley (1994): relative values of an
   average-reward policy (:func:`relative_values`).

Examples
--------
>>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
>>> d = decomposition(net, cs=[1.0, 8.0], horizon=40.0, warmup=3.0, reps=4, seed=1)
>>> d.reserve, round(d.regret, 4)
(2, 2.8694)
>>> total = d.c_vol.mean + d.at(8.0).c_long.mean + d.at(8.0).c_short.mean
>>> bool(abs(total - d.regret) < 1e-9)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from qtheory.core import validation
from qtheory.core.cache import ResultCache, cached_map
from qtheory.core.executor import Executor, SerialExecutor
from qtheory.core.records import Records
from qtheory.core.stats import SlopeFit, slope_on_log
from qtheory.lossnet.designs import (
    ClockDecomposition,
    ClockDesign,
    Design,
    JobDecomposition,
    JobDesign,
    RollingHorizonDesign,
    RollingHorizonResult,
)
from qtheory.lossnet.regret import leading_constant
from qtheory.lossnet.replication import replication
from qtheory.lossnet.tasks import OFFLINE, exact_optimum, task_network
from qtheory.model.lossnet import LossNetwork

__all__ = [
    "DecompositionFits",
    "decomposition",
    "fit_decomposition",
    "job_decomposition",
    "run_designs",
]


# ------------------------------------------------------------------- running


def _task_cost(task: dict[str, Any]) -> float:
    """Rough seconds of one replication (the offline DP at ~1e9 cells/s, the job LP at
    ~4e-5 s per job, ~1e-7 s per event for the other policies): the most expensive tasks
    are handed out first, so that a pool does not finish on one long task."""
    net = task_network(task)
    rate = net.event_rate
    events = rate * task["horizon"]
    cost = 1e-7 * events * len(task["policies"])
    if OFFLINE in task["policies"]:
        per_offline = (task["servers"] + 1) * 1e-9 if task["info"] == "clock" else 4e-5
        cost += per_offline * events
    for window in task.get("rolling_horizon", ()):  # one DP step (~5 us) per window event
        cost += 5e-6 * task["lambda_l"] * task["servers"] * task["horizon"] * rate * window
    return cost


def run_designs(
    designs: Sequence[ClockDesign | JobDesign | RollingHorizonDesign],
    *,
    executor: Executor | None = None,
    cache: ResultCache | None = None,
    desc: str | None = None,
    progress: bool = False,
) -> Records[ClockDecomposition | JobDecomposition | RollingHorizonResult]:
    """Estimate every design, with all their replications in one sweep.

    The replications of all designs go to ``executor`` together (so a pool works on
    several sweep points at once), the most expensive first; with ``cache``
    (:class:`qtheory.core.cache.ResultCache`) only the replications it lacks are computed.

    Parameters
    ----------
    designs
        :class:`ClockDesign`, :class:`JobDesign` and :class:`RollingHorizonDesign` points.
    executor
        From :func:`qtheory.core.executor.make_executor`; default: in this process.
    cache
        Default: none (everything is computed).
    desc, progress
        Progress-bar label and switch.

    Returns
    -------
    Records
        One :class:`ClockDecomposition`, :class:`JobDecomposition` or
        :class:`RollingHorizonResult` per design, in the order of ``designs`` (a list;
        ``.to_frame()`` gives one row per point, an estimate ``x`` as the columns ``x``
        and ``x_halfwidth``: :mod:`qtheory.core.records`).

    Raises
    ------
    ValueError
        If ``designs`` is not a sequence of designs, or (before any task runs) a design
        exceeds the limits of :mod:`qtheory.core.limits` (:meth:`Design.check_cost`).

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> designs = [ClockDesign(net.with_servers(n), 13.0, 3.0, 2, 7, cs=[1.0]) for n in (10, 20)]
    >>> points = run_designs(designs)
    >>> [type(r).__name__ for r in points]
    ['ClockDecomposition', 'ClockDecomposition']
    >>> frame = points.to_frame()
    >>> frame[["net_servers", "reserve"]].values.tolist(), "c_vol_halfwidth" in frame
    ([[10, 2], [20, 2]], True)
    >>> run_designs(designs[0])
    Traceback (most recent call last):
    ...
    ValueError: designs must be a sequence of designs, got ClockDesign(...)
    """
    if isinstance(designs, Design) or not isinstance(designs, Sequence):
        raise ValueError(f"designs must be a sequence of designs, got {designs!r}")
    for design in designs:
        if not isinstance(design, Design):
            raise ValueError(
                f"designs must hold ClockDesign, JobDesign or RollingHorizonDesign, got {design!r}"
            )
    executor = SerialExecutor() if executor is None else executor
    per_design = [design.tasks() for design in designs]
    tasks = [task for group in per_design for task in group]
    costs = [_task_cost(task) for task in tasks]
    order = sorted(range(len(tasks)), key=lambda i: -costs[i])
    ordered = [tasks[i] for i in order]
    # The bar advances by each task's cost: heavy tasks go first, and counted as one each
    # they made the ETA promise hours for minutes of work.
    bar = dict(desc=desc, progress=progress, weights=[costs[i] for i in order])
    if cache is None:
        done = executor.map(replication, ordered, **bar)
    else:
        done = cached_map(executor, replication, ordered, cache=cache, **bar)
    results: list[dict[str, Any]] = [{}] * len(tasks)
    for position, index in enumerate(order):
        results[index] = done[position]
    estimates, start = [], 0
    for design, group in zip(designs, per_design, strict=True):
        estimates.append(design.estimate(results[start : start + len(group)]))
        start += len(group)
    return Records(estimates)


def decomposition(
    net: LossNetwork,
    *,
    cs: Sequence[float],
    horizon: float,
    warmup: float,
    reps: int,
    seed: int,
    executor: Executor | None = None,
    cache: ResultCache | None = None,
    progress: bool = False,
) -> ClockDecomposition:
    """The clock-model decomposition at one N (see the module docstring).

    Parameters
    ----------
    net : LossNetwork
        N >= 2 (n classes: see the module docstring).
    cs : sequence of float
        Distinct constants c > 0; SSS runs with W = c log N / N for each.
    horizon, warmup : float
        T and T0 < T of every replication; statistics over (T0, T].
    reps : int
        Replications (>= 2).
    seed : int
        Root seed (>= 0); replication i draws its path from
        ``default_rng(SeedSequence(seed, spawn_key=(i,)))``.
    executor, cache, progress
        As in :func:`run_designs`.

    Returns
    -------
    ClockDecomposition

    Raises
    ------
    ValueError
        For invalid arguments (:class:`ClockDesign`) or a run over the limits of
        :mod:`qtheory.core.limits`.

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> d = decomposition(net, cs=[1.0], horizon=13.0, warmup=3.0, reps=2, seed=7)
    >>> d.reserve, len(d.lookahead), d.c_vol.n
    (2, 1, 2)
    >>> from qtheory.model.lossnet import LossNetwork
    >>> three = LossNetwork(100, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
    >>> d = decomposition(three, cs=[8.0], horizon=13.0, warmup=3.0, reps=2, seed=7)
    >>> d.reserve, round(d.regret, 4)
    ((0, 1, 29), 10.0573)
    """
    design = ClockDesign(net, horizon, warmup, reps, seed, cs=cs)
    (result,) = run_designs([design], executor=executor, cache=cache, progress=progress)
    return result


def job_decomposition(
    net: LossNetwork,
    *,
    horizon: float,
    warmup: float,
    reps: int,
    seed: int,
    executor: Executor | None = None,
    cache: ResultCache | None = None,
    progress: bool = False,
) -> JobDecomposition:
    """The job-model comparison at one N: offline LP, trunk reservation at k*, the
    duration-aware bound (arguments as in :func:`decomposition`).

    Parameters
    ----------
    net : LossNetwork
        The network.
    horizon, warmup : float
        T and T0 < T; statistics over (T0, T].
    reps : int
        Replications (>= 2).
    seed : int
        Root seed (>= 0).
    executor, cache, progress
        As in :func:`run_designs`.

    Returns
    -------
    JobDecomposition

    Raises
    ------
    ValueError
        For invalid arguments (:class:`JobDesign`) or a run over the limits of
        :mod:`qtheory.core.limits`.

    Examples
    --------
    >>> net = LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> j = job_decomposition(net, horizon=23.0, warmup=3.0, reps=3, seed=2)
    >>> j.offline_minus_fluid.mean > 0, j.min_dual_slack >= 0
    (True, True)
    """
    design = JobDesign(net, horizon, warmup, reps, seed)
    (result,) = run_designs([design], executor=executor, cache=cache, progress=progress)
    return result


# ----------------------------------------------------------------------- fits


@dataclass(frozen=True)
class DecompositionFits:
    """Slopes on log N over the points with N >= ``min_servers`` (one network).

    ``regret``: OLS on the exact regret R_fluid − R_on at ``regret_servers`` (a dense log
    grid: it is exact and costs O(N)), to compare with ``leading_constant``
    c = r_L μ / log(μ/λ_H) (n classes: c(n) = r_m μ / log(μ/(λ_1 + … + λ_{m−1})), m the
    marginal class); ``c_vol`` and ``c_short`` (at ``table_c``): WLS on the
    estimates; ``c_long``: WLS for each c, as ``(c, fit)`` pairs.

    Bray (2026) claims C_vol = O(1) and, for W = c log N / N with c large enough,
    C_long = O(1), hence C_short = Θ(log N) since the regret is Θ(log N) with the
    leading constant above (Xie, Gurvich & Küçükyavuz 2025).

    Attributes
    ----------
    min_servers : int
        Only points with N >= ``min_servers`` are fitted.
    fit_servers : tuple of int
        The N of the points the estimate fits (``c_vol``, ``c_short``, ``c_long``)
        used: those with N >= ``min_servers``, in the order given.
    table_c : float
        The constant c of the ``c_short`` fit.
    leading_constant : float
        c = r_L μ / log(μ/λ_H) (:func:`qtheory.lossnet.regret.leading_constant`); n
        classes: :func:`qtheory.lossnet.regret.leading_constant`.
    regret_servers : tuple of int
        The N of the exact-regret fit.
    regret : SlopeFit
        OLS of the exact regret on log N.
    c_vol, c_short : SlopeFit
        WLS of the C_vol and C_short (at ``table_c``) estimates.
    c_long : tuple of (float, SlopeFit)
        WLS of the C_long estimate for each c.

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> points = run_designs(
    ...     [ClockDesign(net.with_servers(n), 13.0, 3.0, 3, 7, cs=[1.0, 8.0]) for n in (10, 20, 40)]
    ... )
    >>> fits = fit_decomposition(points, min_servers=10)
    >>> fits.table_c, round(fits.leading_constant, 6), round(1 / math.log(1 / 0.6), 6)
    (8.0, 1.957615, 1.957615)
    >>> fits.regret_servers[0], fits.regret_servers[-1], fits.regret.weighting
    (10, 40, 'ols')
    >>> fits.fit_servers, fits.c_vol.slope.n
    ((10, 20, 40), 3)

    References
    ----------
    See the module's References:

    - Bray (2026);
    - Xie, Gurvich and Küçükyavuz (2025).
    """

    min_servers: int
    fit_servers: tuple[int, ...]
    table_c: float
    leading_constant: float
    regret_servers: tuple[int, ...]
    regret: SlopeFit
    c_vol: SlopeFit
    c_short: SlopeFit
    c_long: tuple[tuple[float, SlopeFit], ...]

    def c_long_at(self, c: float) -> SlopeFit:
        """The C_long fit of constant ``c``.

        Parameters
        ----------
        c : float
            One of the fitted constants.

        Returns
        -------
        SlopeFit

        Raises
        ------
        KeyError
            If ``c`` was not fitted.

        Examples
        --------
        >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> points = run_designs(
        ...     [ClockDesign(net.with_servers(n), 13.0, 3.0, 3, 7, cs=[1.0]) for n in (10, 20, 40)]
        ... )
        >>> fit_decomposition(points, min_servers=10).c_long_at(1.0).weighting
        'wls'
        """
        return dict(self.c_long)[c]

    @property
    def bounded_from(self) -> float:
        """The smallest c from which on no fitted C_long slope shows significant growth
        (:attr:`SlopeFit.bounded`; NaN if even the largest c's does).

        Examples
        --------
        >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> designs = [
        ...     ClockDesign(net.with_servers(n), 13.0, 3.0, 3, 7, cs=[1.0, 8.0])
        ...     for n in (10, 20, 40)
        ... ]
        >>> fits = fit_decomposition(run_designs(designs), min_servers=10)
        >>> [(c, fit.bounded) for c, fit in fits.c_long], fits.bounded_from
        ([(1.0, True), (8.0, True)], 1.0)
        """
        bounded = math.nan
        for c, fit in sorted(self.c_long, reverse=True):
            if not fit.bounded:
                break
            bounded = c
        return bounded


def _estimate_fit(points: Sequence[ClockDecomposition], pick: Callable) -> SlopeFit:
    """WLS of the estimates ``pick(point)`` on log N.  A zero standard error (every
    replication equal, which a discrete reward allows with few replications) is raised to
    the smallest positive one among the points rather than given infinite weight."""
    estimates = [pick(p) for p in points]
    stderrs = np.array([e.stderr for e in estimates])
    positive = stderrs[stderrs > 0]
    if positive.size == 0:
        raise ValueError("every estimate has a zero standard error: nothing to weight by")
    stderrs = np.maximum(stderrs, positive.min())
    return slope_on_log([p.servers for p in points], [e.mean for e in estimates], stderrs)


def fit_decomposition(
    points: Sequence[ClockDecomposition],
    *,
    min_servers: int = 100,
    table_c: float | None = None,
    regret_top: int | None = None,
) -> DecompositionFits:
    """Fit every term of the decomposition against log N (see :class:`DecompositionFits`).

    ``points`` share one network and the constants c; ``table_c`` defaults to the largest
    c; the exact regret is fitted on 40 log-spaced N from ``min_servers`` to
    ``regret_top`` (default: the largest N of the points).

    Parameters
    ----------
    points : sequence of ClockDecomposition
        One network (any N) and the same constants c.
    min_servers : int, default 100
        Fit only the points with N >= ``min_servers`` (at least 3 of them).
    table_c : float, optional
        The c of the C_short fit; default the largest c.
    regret_top : int, optional
        Largest N of the exact-regret grid (> ``min_servers``).

    Returns
    -------
    DecompositionFits

    Raises
    ------
    ValueError
        For fewer than 3 points with N >= ``min_servers``, points of different networks
        or constants, a ``table_c`` that is not one of the constants, a ``regret_top`` <=
        ``min_servers``, or estimates that all have a zero standard error.

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> points = run_designs(
    ...     [ClockDesign(net.with_servers(n), 13.0, 3.0, 3, 7, cs=[1.0]) for n in (10, 20, 40)]
    ... )
    >>> fits = fit_decomposition(points, min_servers=10, regret_top=100)
    >>> fits.regret_servers[-1], fits.c_vol.slope.n
    (100, 3)
    >>> fit_decomposition(points)  # min_servers=100: no point qualifies
    Traceback (most recent call last):
    ...
    ValueError: need at least 3 points with servers >= min_servers=100
    """
    chosen = [p for p in points if p.servers >= min_servers]
    if len(chosen) < 3:
        raise ValueError(f"need at least 3 points with servers >= min_servers={min_servers}")
    cs = [point.c for point in chosen[0].lookahead]
    nets = {p.net.with_servers(1) for p in chosen}
    if len(nets) != 1 or any([q.c for q in p.lookahead] != cs for p in chosen):
        raise ValueError("points must share one network and the same constants cs")
    table_c = max(cs) if table_c is None else table_c
    if table_c not in cs:
        raise ValueError(f"table_c must be one of {cs}, got {table_c!r}")
    top = max(p.servers for p in chosen) if regret_top is None else regret_top
    top = validation.positive_int("regret_top", top)
    if top <= min_servers:
        raise ValueError(f"regret_top must be > min_servers={min_servers}, got {top}")
    grid = tuple(int(n) for n in np.unique(np.round(np.geomspace(min_servers, top, 40))))
    net = chosen[0].net
    regret = [exact_optimum(net.with_servers(n))["regret"] for n in grid]
    return DecompositionFits(
        min_servers=min_servers,
        fit_servers=tuple(p.servers for p in chosen),
        table_c=table_c,
        leading_constant=leading_constant(net),
        regret_servers=grid,
        regret=slope_on_log(grid, regret),
        c_vol=_estimate_fit(chosen, lambda p: p.c_vol),
        c_short=_estimate_fit(chosen, lambda p: p.at(table_c).c_short),
        c_long=tuple((c, _estimate_fit(chosen, lambda p, c=c: p.at(c).c_long)) for c in cs),
    )
