r"""The sweep behind the regret-decomposition reports, two classes
(:mod:`qtheory.report.lossnet_decomposition`) and n (:mod:`qtheory.report.lossnet_classes`):
one :class:`Plan` says which networks, which points and how they are fitted (the
two-class one is :func:`plan`), the designs it gives (:mod:`qtheory.lossnet.designs`) run
through the executor and the result cache, and :func:`sweep` returns one :class:`Sweep`
per parameter set.
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from qtheory.core.cache import ResultCache, cached_map, default_cache_dir
from qtheory.core.executor import (
    WEIGHTED_BAR,
    Executor,
    make_executor,
    start_method,
    task_weights,
)
from qtheory.lossnet.decomposition import DecompositionFits, fit_decomposition, run_designs
from qtheory.lossnet.designs import (
    ClockDecomposition,
    ClockDesign,
    JobDecomposition,
    JobDesign,
    RollingHorizonDesign,
    RollingHorizonResult,
)
from qtheory.lossnet.regret import RegretPoint
from qtheory.lossnet.tasks import regret_point, regret_point_task
from qtheory.model.lossnet import LossNetwork

if TYPE_CHECKING:
    from qtheory.report.run import Run

__all__ = [
    "PARAMETER_SETS",
    "Plan",
    "Sweep",
    "lookahead_threshold",
    "plan",
    "start_in_background",
    "stop_background",
    "sweep",
]


#: The regret slope is fitted on the exact regret up to this N in both sizes of run.
REGRET_TOP = 10**4
DESIGN_NOTE = "the clock and job information models of docs/information-models.md"

#: The parameter sets (label, network with a placeholder N): the default of the issue,
#: a lighter H load, and a heavier overload with a larger reward ratio.
PARAMETER_SETS: tuple[tuple[str, LossNetwork], ...] = (
    ("A", LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)),
    ("B", LossNetwork(10, 0.4, 1.2, 1.0, 2.0, 1.0)),
    ("C", LossNetwork(10, 0.5, 1.5, 1.0, 3.0, 1.0)),
)


@dataclass(frozen=True)
class Plan:
    """A sweep: the parameter sets, their points and how they are fitted.

    ``clock`` maps a parameter-set label to its (N, window T − T0, replications) points,
    ``job`` lists the job-model points (every set); ``cs`` are the lookahead constants,
    ``warmup`` is T0, and slopes are fitted over N >= ``min_fit_servers``; ``rolling``
    lists the points (first set only) of the rolling-horizon policy, run with the
    constants ``rolling_cs``; ``regret_grid`` lists the N of each set's exact online
    optimum curve.  The two-class sweep is :func:`plan`, the n-class one
    :func:`qtheory.report.lossnet_classes.plan`.

    Attributes
    ----------
    clock : mapping of str to tuple of (int, float, int)
        Per parameter-set label, the clock-model points (N, window T − T0,
        replications).
    job : tuple of (int, float, int)
        The job-model points (run for every set; two classes only).
    cs : tuple of float
        The lookahead constants c (W = c log N / N).
    warmup : float
        T0.
    min_fit_servers : int
        Slopes are fitted over N >= ``min_fit_servers``.
    rolling : tuple of (int, float, int), default ()
        The rolling-horizon points (first set only; two classes only).
    rolling_cs : tuple of float, default ()
        The constants of the rolling-horizon policy.
    sets : tuple of (str, LossNetwork), default :data:`PARAMETER_SETS`
        The parameter sets (label, network with a placeholder N).
    regret_top : int, default :data:`REGRET_TOP`
        The exact regret of the fits runs to this N.
    regret_grid : tuple of int, default ()
        The N of :attr:`Sweep.curve` (:func:`~qtheory.lossnet.regret.regret_curve`).
    stream : str, default ``"clock"``
        The name of the clock points' seed streams (:func:`point_seed`).
    in_process : bool, default False
        Run in this process when the run has no cluster (a sweep too small to pay for
        starting a process pool).
    desc : str, default ``"lossnet decomposition"``
        The progress bar's label.

    Examples
    --------
    >>> sizes = plan("quick")
    >>> sorted(sizes.clock), sizes.clock["A"][0], sizes.cs, sizes.warmup
    (['A', 'B', 'C'], (10, 30.0, 6), (1.0, 4.0, 16.0, 64.0), 3.0)
    """

    clock: Mapping[str, tuple[tuple[int, float, int], ...]]
    job: tuple[tuple[int, float, int], ...]
    cs: tuple[float, ...]
    warmup: float
    min_fit_servers: int
    rolling: tuple[tuple[int, float, int], ...] = ()
    rolling_cs: tuple[float, ...] = ()
    sets: tuple[tuple[str, LossNetwork], ...] = PARAMETER_SETS
    regret_top: int = REGRET_TOP
    regret_grid: tuple[int, ...] = ()
    stream: str = "clock"
    in_process: bool = False
    desc: str = "lossnet decomposition"


def plan(size: str) -> Plan:
    """The sweep of a run of the given size.

    Paper (``qtheory reproduce --paper``): ten N from 10 to 10^4; clock windows of 200
    with 10 replications up to N = 1000, then windows of 100 with 12 replications for
    set A and 8 for the others; job model at every N (8 replications); the
    rolling-horizon policy (a NumPy DP per L arrival) for set A up to
    N = 100.  The per-path standard deviation of R_off − R_k* times sqrt(window) is
    about 4.4 at N = 10^4 (set A), so the 95% half-width of C_vol is about 0.3 there
    (set A; 0.2 to 0.45 for the others, see the module docstring).

    Standard (the default): the same clock sweep (the banded offline DP makes the clock
    model cheap, and the slope claims need its power), the job model (a min-cost-flow
    LP per path) up to N = 464 with 4 replications, and the rolling horizon at N = 10
    and 22 with windows of 50 and 3 replications: about 140 s of CPU in all.

    Quick (CI-sized): N in {10, 30, 100, 300, 1000}, windows of 30 with 6 replications
    (clock), windows of 10 with 4 replications (job), rolling horizon at N = 10 and 30.

    Parameters
    ----------
    size : {"quick", "standard", "paper"}
        The size of run (:attr:`qtheory.report.run.Run.size`).

    Returns
    -------
    Plan

    Raises
    ------
    ValueError
        If ``size`` is not one of the three.

    Examples
    --------
    >>> [n for n, _, _ in plan("quick").clock["A"]], plan("quick").job[0]
    ([10, 30, 100, 300, 1000], (10, 10.0, 4))
    >>> [n for n, _, _ in plan("paper").clock["A"]]
    [10, 22, 46, 100, 215, 464, 1000, 2154, 4642, 10000]
    >>> plan("standard").clock == plan("paper").clock, plan("standard").job[-1]
    (True, (464, 20.0, 4))
    """
    labels = [label for label, _ in PARAMETER_SETS]
    if size == "quick":
        servers = (10, 30, 100, 300, 1000)
        return Plan(
            clock={label: tuple((n, 30.0, 6) for n in servers) for label in labels},
            job=tuple((n, 10.0, 4) for n in servers),
            cs=(1.0, 4.0, 16.0, 64.0),
            warmup=3.0,
            min_fit_servers=100,
            rolling=((10, 30.0, 4), (30, 30.0, 4)),
            rolling_cs=(1.0, 4.0, 16.0),
        )
    if size not in ("standard", "paper"):
        raise ValueError(f"size must be 'quick', 'standard' or 'paper', got {size!r}")
    servers = tuple(int(n) for n in np.unique(np.round(np.logspace(1, 4, 10))))

    def clock(top_reps: int) -> tuple[tuple[int, float, int], ...]:
        return tuple((n, 200.0, 10) if n <= 1000 else (n, 100.0, top_reps) for n in servers)

    common = {
        "clock": {label: clock(12 if label == "A" else 8) for label in labels},
        "cs": (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0),
        "warmup": 3.0,
        "min_fit_servers": 100,
        "rolling_cs": (1.0, 2.0, 4.0, 8.0, 16.0),
    }
    if size == "standard":
        return Plan(
            job=tuple((n, 20.0, 4) for n in servers if n <= 464),
            rolling=tuple((n, 50.0, 3) for n in (10, 22)),
            **common,
        )
    return Plan(
        job=tuple((n, 20.0, 8) if n <= 1000 else (n, 10.0, 8) for n in servers),
        rolling=tuple((n, 100.0, 6) for n in (10, 22, 46, 100)),
        **common,
    )


def lookahead_threshold(net: LossNetwork) -> float:
    r"""c* = 1 / (√μ − √λ_H)²: a heuristic (ours, not the paper's) for the constant beyond
    which SSS(c log N / N) keeps R_off − R_SSS bounded.

    SSS admits an L job unless the reject-all-L idle walk (up rate ≈ μN, down rate
    λ_H N near full) started from it hits 0 within W; an admission whose walk hits 0
    only after W costs an H job.  Conditioned on reaching 0, the walk has the two rates
    swapped, so that first passage is the busy period of an M/M/1 queue (arrival rate
    λ_H N, service rate μN), whose tail is about t^{-3/2} exp(−N(√μ − √λ_H)² t).  With
    Θ(N) admissions per unit time, R_off − R_SSS exceeds its O(1) floor by about
    N^{1 − c/c*} (c log N)^{-3/2} for W = c log N / N.

    The busy-period tail is that of the M/M/1 busy period (Kleinrock [1]_, Sec. 5.9);
    the claim that some c with W = c log N / N suffices is Bray's [2]_.

    Parameters
    ----------
    net : LossNetwork
        The network (only μ and λ_H are used; needs λ_H ≠ μ).

    Returns
    -------
    float
        1 / (√μ − √λ_H)².

    References
    ----------
    .. [1] L. Kleinrock, Queueing Systems, Vol. I: Theory, Wiley (1975).
    .. [2] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
       overloaded loss network", arXiv:2601.14538 (2026).

    Examples
    --------
    >>> # set A: 1 / (1 - sqrt(0.6))^2 = 1 / 0.225403^2
    >>> round(lookahead_threshold(PARAMETER_SETS[0][1]), 2)
    19.68
    """
    return 1.0 / (math.sqrt(net.mu) - math.sqrt(net.lambda_h)) ** 2


def point_seed(run: Run, info: str, label: str, servers: int) -> int:
    stream = run.seed_sequence(f"lossnet.decomposition/{info}/{label}/N={servers}")
    return int(stream.generate_state(1)[0])


@dataclass(frozen=True)
class Sweep:
    """The results of one parameter set: clock, job and rolling-horizon points in N
    order, the fits of the clock points, and the exact online optimum on the plan's
    regret grid.

    Attributes
    ----------
    label : str
        The parameter-set label (``"A"``, ``"B"``, ``"C"``; ``"3a"``, … for n classes).
    net : LossNetwork
        The set's network (with the placeholder N of :attr:`Plan.sets`).
    clock : tuple of ClockDecomposition
        The clock-model points.
    job : tuple of JobDecomposition
        The job-model points.
    fits : DecompositionFits
        The fits of the clock points (:func:`~qtheory.lossnet.decomposition.fit_decomposition`).
    rolling : tuple of RollingHorizonResult, default ()
        The rolling-horizon points (first set only).
    curve : tuple of RegretPoint, default ()
        The exact online optimum on :attr:`Plan.regret_grid`.

    Examples
    --------
    >>> from qtheory.lossnet.decomposition import fit_decomposition, run_designs
    >>> label, net = PARAMETER_SETS[0]
    >>> designs = [
    ...     ClockDesign(net.with_servers(n), 13.0, 3.0, 3, 7, cs=[1.0]) for n in (10, 20, 40)
    ... ]
    >>> clock = tuple(run_designs(designs))
    >>> result = Sweep(label, net, clock, (), fit_decomposition(clock, min_servers=10))
    >>> [p.servers for p in result.clock], result.fits.min_servers
    ([10, 20, 40], 10)
    """

    label: str
    net: LossNetwork
    clock: tuple[ClockDecomposition, ...]
    job: tuple[JobDecomposition, ...]
    fits: DecompositionFits
    rolling: tuple[RollingHorizonResult, ...] = ()
    curve: tuple[RegretPoint, ...] = ()


def _designs(run: Run, sizes: Plan) -> list[ClockDesign | JobDesign | RollingHorizonDesign]:
    designs: list[ClockDesign | JobDesign | RollingHorizonDesign] = []
    for index, (label, net) in enumerate(sizes.sets):
        for n, window, reps in sizes.clock[label]:
            seed = point_seed(run, sizes.stream, label, n)
            horizon = sizes.warmup + window
            designs.append(
                ClockDesign(net.with_servers(n), horizon, sizes.warmup, reps, seed, cs=sizes.cs)
            )
        for n, window, reps in sizes.job:
            seed = point_seed(run, "job", label, n)
            designs.append(
                JobDesign(net.with_servers(n), sizes.warmup + window, sizes.warmup, reps, seed)
            )
        for n, window, reps in sizes.rolling if index == 0 else ():
            seed = point_seed(run, "rolling", label, n)
            horizon = sizes.warmup + window
            designs.append(
                RollingHorizonDesign(
                    net.with_servers(n), horizon, sizes.warmup, reps, seed, cs=sizes.rolling_cs
                )
            )
    return designs


def sweep_cache(run: Run) -> ResultCache:
    """The result cache of the sweeps: :func:`~qtheory.core.cache.default_cache_dir` (set
    ``QTHEORY_CACHE_DIR`` to move it)."""
    return ResultCache(default_cache_dir())


def _executor(run: Run, sizes: Plan):
    """``make_executor(run.cluster)``, or this process for a plan ``in_process`` when the
    run has no cluster."""
    if run.cluster is None and sizes.in_process:
        return make_executor(workers=1)
    return make_executor(run.cluster)


def sweep(run: Run, sizes: Plan, *, progress: bool = True) -> list[Sweep]:
    """Run every design of ``sizes``, fit, and compute the exact online optimum on the
    plan's regret grid.

    All designs of the parameter sets go to one executor
    (``make_executor(run.cluster)``: a local process pool or a Dask cluster; this
    process for a plan ``in_process`` without a cluster) through
    :func:`~qtheory.lossnet.decomposition.run_designs`, with the on-disk result cache
    of :func:`~qtheory.core.cache.default_cache_dir`; each set's clock points are then fitted
    with :func:`~qtheory.lossnet.decomposition.fit_decomposition` (N >=
    ``sizes.min_fit_servers``, exact regret up to N = ``sizes.regret_top``).

    Parameters
    ----------
    run : qtheory.report.run.Run
        The run context (``size``, ``seed``, ``cluster``).
    sizes : Plan
        :func:`plan` (two classes) or :func:`qtheory.report.lossnet_classes.plan` (n
        classes) of ``run.size``, or a plan of one's own; every set needs at least 3 clock
        points with N >= ``sizes.min_fit_servers``.
    progress : bool, default True
        Show a progress bar.

    Returns
    -------
    list of Sweep
        One per parameter set, in the order of :attr:`Plan.sets`.

    Raises
    ------
    ValueError
        From the designs (invalid sizes, a run over the limits of :mod:`qtheory.core.limits`)
        or the fits (too few points).
    qtheory.core.executor.ClusterUnreachableError
        If ``run.cluster`` names a scheduler that does not answer.

    Examples
    --------
    A sweep starts a process pool and takes about 15 s even in the quick size, so this
    example only shows which sizes the quick run sweeps:

    >>> from qtheory.report.run import Run
    >>> run = Run("build", quick=True)
    >>> sizes = plan(run.size)
    >>> sum(len(points) for points in sizes.clock.values()), len(sizes.job), sizes.rolling
    (15, 5, ((10, 30.0, 4), (30, 30.0, 4)))
    """
    _wait_for_background(run, sizes, progress)
    designs, cache = _designs(run, sizes), sweep_cache(run)
    with _executor(run, sizes) as executor:
        results = run_designs(
            designs, executor=executor, cache=cache, desc=sizes.desc, progress=progress
        )
        curves = _curves(sizes, executor, cache, progress)
    sweeps: list[Sweep] = []
    for label, net in sizes.sets:
        mine = [r for r in results if r.net.with_servers(1) == net.with_servers(1)]
        clock = tuple(r for r in mine if isinstance(r, ClockDecomposition))
        job = tuple(r for r in mine if isinstance(r, JobDecomposition))
        rolling = tuple(r for r in mine if isinstance(r, RollingHorizonResult))
        fits = fit_decomposition(
            clock, min_servers=sizes.min_fit_servers, regret_top=sizes.regret_top
        )
        sweeps.append(Sweep(label, net, clock, job, fits, rolling, curves[label]))
    return sweeps


def _curves(
    sizes: Plan, executor: Executor, cache: ResultCache, progress: bool
) -> dict[str, tuple[RegretPoint, ...]]:
    """Each set's exact online optimum on the plan's regret grid
    (:func:`~qtheory.lossnet.regret.regret_curve`), its points as cached tasks run by
    ``executor`` (each point costs about N: the weight of its task)."""
    tasks = [regret_point_task(net, n) for _, net in sizes.sets for n in sizes.regret_grid]
    done = cached_map(
        executor, regret_point, tasks, cache=cache, desc=f"{sizes.desc}: exact optimum",
        progress=progress, weights=[task["servers"] for task in tasks],
    )  # fmt: skip
    points = [RegretPoint(**{**r, "reserves": tuple(r["reserves"])}) for r in done]
    size = len(sizes.regret_grid)
    return {
        label: tuple(points[i * size : (i + 1) * size]) for i, (label, _) in enumerate(sizes.sets)
    }


# ------------------------------------------------------------- ahead of the step


def start_in_background(run: Run, plans: Sequence[Plan]) -> None:
    """Start the replications of ``plans`` in a background process that fills the result
    cache, one plan after the other, while the run's other steps go on.

    ``qtheory reproduce`` calls this before its first step: the sweeps use both cores
    (a process pool), the derivations and figures before them only one, so each sweep
    is computed beside them instead of after them.  :func:`sweep` of a plan started here
    first waits for the background process to finish that plan and then runs as usual,
    finding every replication in the cache (:func:`sweep_cache`); so the numbers are
    those of a sweep run in the foreground (the same tasks, seeds and stored results).  If
    the background process fails, or the cache cannot be written, :func:`sweep` computes
    what is missing itself (and raises what a task raises).  Nothing starts for a run on
    a Dask cluster (``run.cluster``), or when the cache cannot be written: those sweeps
    run when their steps come.

    The process is recorded in ``run.pending`` under each plan's ``desc``;
    :func:`stop_background` ends it (``qtheory reproduce`` calls it when it finishes or
    fails).

    Parameters
    ----------
    run : qtheory.report.run.Run
        The run context.
    plans : sequence of Plan
        The sweeps to start, in the order to compute them (each ``desc`` distinct).

    Examples
    --------
    >>> from qtheory.report.run import Run
    >>> run = Run("build", quick=True, cluster="tcp://localhost:8786")
    >>> start_in_background(run, [plan("quick")]); run.pending
    {}
    """
    # the cache's folder is passed, not looked up there: a fork server's children see the
    # environment of its start, not this process's QTHEORY_CACHE_DIR
    directory = sweep_cache(run).directory
    if run.cluster is not None or not plans or not _writable(directory):
        return
    detached = dataclasses.replace(run, claims=[], pending={})
    context: Any = multiprocessing.get_context(start_method())  # a context with Process
    shared = [_Progress(context.Value("d", 0.0), context.Value("d", 0.0), context.Event())
              for _ in plans]  # fmt: skip
    process = context.Process(
        target=_fill_cache, args=(detached, list(plans), shared, directory), name="qtheory-sweeps"
    )
    process.start()
    for sizes, progress in zip(plans, shared, strict=True):
        run.pending[sizes.desc] = (process, progress)


def _writable(directory: Path) -> bool:
    """Whether a file can be written in ``directory`` (made if missing): a cache that
    cannot keep results gives the background process nothing to hand over."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            return True
    except OSError:
        return False


def stop_background(run: Run) -> None:
    """End the background process of :func:`start_in_background`, if one is still
    running (its pool's workers follow it: :func:`~qtheory.core.executor.watch_parent`),
    and forget it.

    Parameters
    ----------
    run : qtheory.report.run.Run
        The run context.

    Examples
    --------
    >>> from qtheory.report.run import Run
    >>> run = Run("build")
    >>> stop_background(run); run.pending
    {}
    """
    for process in {process for process, _ in run.pending.values()}:
        if process.is_alive():
            process.terminate()
        process.join()
    run.pending.clear()


@dataclass(frozen=True)
class _Progress:
    """What the background process shares about one plan: the weight of the replications
    it computes (``total``), the weight finished (``finished``; both
    ``multiprocessing.Value("d")``) and an event set once the plan is stored."""

    total: Any
    finished: Any
    stored: Any


class _Reporting(Executor):
    """An executor that adds the weight of each finished task to ``progress`` (the weights
    :func:`~qtheory.lossnet.decomposition.run_designs` passes: each task's cost)."""

    def __init__(self, inner: Executor, progress: _Progress) -> None:
        self.inner, self.progress = inner, progress

    def map(self, fn, tasks, *, on_result=None, weights=None, **options):
        tasks = list(tasks)
        weights = task_weights(weights, len(tasks))
        with self.progress.total.get_lock():  # the designs' replications, then the curves
            self.progress.total.value += sum(weights)

        def finished(index: int, result: dict[str, Any]) -> None:
            if on_result is not None:
                on_result(index, result)
            with self.progress.finished.get_lock():
                self.progress.finished.value += weights[index]

        return self.inner.map(fn, tasks, on_result=finished, weights=weights, **options)

    def close(self) -> None:
        self.inner.close()


def _fill_cache(run: Run, plans: list[Plan], shared: list[_Progress], directory: Path) -> None:
    """The background process: every plan's replications into the result cache in
    ``directory``, reporting each plan's progress to ``shared``.  Its warnings (a cache
    that cannot be written, say) are the foreground sweep's to give."""
    warnings.simplefilter("ignore")
    cache = ResultCache(directory)
    for sizes, progress in zip(plans, shared, strict=True):
        with _Reporting(_executor(run, sizes), progress) as executor:
            run_designs(_designs(run, sizes), executor=executor, cache=cache, progress=False)
            _curves(sizes, executor, cache, progress=False)
        progress.stored.set()


def _wait_for_background(run: Run, sizes: Plan, progress: bool) -> None:
    """Wait until the background process has stored ``sizes``, or has ended (failed or
    stopped: the sweep then computes what is missing), with a bar of its progress."""
    from tqdm import tqdm

    process, shared = run.pending.pop(sizes.desc, (None, None))
    if process is None:
        return
    bar = None
    try:
        while not shared.stored.wait(0.5) and process.is_alive():
            total = shared.total.value
            share = shared.finished.value / total if total > 0 else 0.0
            if bar is None:  # from the share already done: the ETA counts only what is left
                bar = tqdm(total=1.0, initial=share, desc=f"{sizes.desc} (background)",
                           bar_format=WEIGHTED_BAR, disable=not progress)  # fmt: skip
            bar.update(share - bar.n)
    finally:
        if bar is not None:
            bar.close()
