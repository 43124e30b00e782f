"""Simulation of the overloaded two-class loss network (docs/loss-network.md).

The sample paths, the policies and the offline optimum run in the C extension
:mod:`qtheory.sim._core` (``lossnet_simulate``, ``lossnet_path``); this module parses
policies, spawns independent replications and turns them into estimates with 95%
confidence intervals.

Information models
------------------
``clock``
    The future is the H and L arrival streams plus a uniformised departure clock:
    potential departures at rate N mu, each with a uniform mark U; a potential departure
    ends a service iff U < busy / N.  The event stream is drawn independently of the
    policy, so the same seed replays the same future under every policy (common random
    numbers).  Every policy is available: ``"threshold:K"``, ``"pfi"``, ``"sss:W"`` and
    ``"offline"``.
``job``
    Every arriving job carries its own Exp(mu) service time (drawn whether or not it is
    admitted).  Trunk reservation (``"threshold:K"``) runs in C; ``"offline"`` selects
    jobs on the exported path (:func:`job_path`) with the min-cost-flow LP of
    :mod:`qtheory.lossnet.offline_job`.  An offline policy can prefer short jobs here, so
    its right upper bound is the duration-aware fluid bound
    (:mod:`qtheory.lossnet.duration_fluid`), not the ordinary fluid LP.

Under a non-anticipating policy both models have the law of the loss network.

Policies
--------
``threshold:K``
    Trunk reservation: admit H iff a server is idle, admit L iff more than K are idle.
``pfi``
    Promise of future idleness.  An L arriving to I idle servers is judged on the
    hypothetical future in which it is admitted, every later L is rejected and every
    later H admitted; h = I - 1 is the hypothetical idle count just after admission.
    Admit iff h reaches floor(sqrt(N)) before it drops below 1, where "drops below 1"
    means h = 0 at any instant, the instant of admission included (so no L is admitted
    to I <= 1 idle; for N <= 3, where floor(sqrt(N)) = 1, an L is admitted exactly when
    I >= 2).  The scan runs until resolved,
    past the horizon if needed: about sqrt(N) (lambda_H + lambda_L + mu)/(mu - lambda_H)
    events per undecided L arrival.
``sss:W``
    Single short sensor: admit iff, in the same hypothetical future, h >= 1 at every
    instant of [t, t + W].  Scans only the window and stops as soon as the H arrivals
    left in it cannot bring h to 0.
``offline``
    Clock model only: the exact optimum over the path of (0, T] by backward dynamic
    programming over (event, busy count), O(events x N) work and
    O(sqrt(events) x N) memory.  It maximises the reward of the whole run (0, T] (no
    incentive to empty the system during the warm-up); the reported statistics are
    those of its optimal path in (T0, T] like for every other policy.  So with
    ``warmup=0`` the offline reward is >= every policy's on every path (exactly); with a
    warm-up the window rewards can differ in either direction by O(1) per path.

Every run starts with all servers idle at time 0; statistics are recorded in
(warmup, horizon].

Traces
------
:func:`trace` returns one replication event by event (:class:`Trace`): times, codes,
decisions and the idle count I(t_i) = N - busy just after each event, filled in by the C
run (in the clock model a potential departure ends a service iff its slot < busy, so
the busy count cannot be rebuilt from the codes without a sequential loop).  I(t) is
piecewise constant and right-continuous, I = N on [0, t_1), and I(t) = I(t_i) on
[t_i, t_{i+1}); this is the input of epoch and renewal-reward analyses (e.g. cycles
between visits of I to 1; :mod:`qtheory.walks.epochs`).  :meth:`Trace.mean_idle` gives
(T - T0)^{-1} integral_{T0}^{T} I(t) dt, the statistic ``mean_idle`` of
:func:`simulate`.  A trace keeps 17 bytes per event (about 55 at the peak, while the
C run grows its arrays and hands them over), so runs whose expected event count
(lambda_H + lambda_L + mu) N T exceeds ``MAX_TRACE_EVENTS`` = 5e7 are refused.

>>> net = LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0)
>>> tr = trace(net, "pfi", horizon=30.0, seed=4)
>>> bool(np.all((tr.idle >= 0) & (tr.idle <= 20)))
True
>>> visits_to_one = tr.times[(tr.idle == 1) & (np.diff(tr.idle, prepend=20) != 0)]
>>> bool(visits_to_one.size > 0)
True
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from qtheory._validation import nonnegative, positive, positive_int
from qtheory.lossnet.model import LossNetwork
from qtheory.lossnet.paths import ClockPath, JobPath
from qtheory.sim import _core
from qtheory.stats import Estimate, replication_seeds

__all__ = [
    "ClockPath",
    "Comparison",
    "JobPath",
    "PairedDifference",
    "SimulationResult",
    "Trace",
    "clock_path",
    "compare",
    "job_path",
    "parse_policy",
    "simulate",
    "trace",
]

INFO_MODELS = ("clock", "job")
LOOKAHEAD_POLICIES = ("pfi", "sss")


@dataclass(frozen=True)
class SimulationResult:
    """Estimates from ``reps`` independent replications of one policy.

    Attributes
    ----------
    policy, info : str
        The policy string (normalised, e.g. ``"threshold:3"``) and information model.
    servers, horizon, warmup, reps
        The run: N, T, T0 and the number of replications.
    reward_rate : qtheory.stats.Estimate
        Mean over replications of the reward earned in (T0, T] divided by T - T0, with
        the half-width of its 95% Student t interval (NaN when reps = 1).
    mean_idle : qtheory.stats.Estimate
        Time-average number of idle servers in (T0, T], with its 95% half-width.
    admitted_h, admitted_l, rejected_h, rejected_l : int
        Arrivals in (T0, T], summed over the replications.
    events : int
        Events processed in (0, T], summed over the replications (clock model: H, L and
        potential departures; job model: arrivals and departures).
    mean_lookahead : float
        Lookahead policies: future events scanned per L arrival in (T0, T] (0 for
        decisions taken without a scan); NaN for the other policies.
    mean_lookahead_time : float
        Lookahead policies: mean time from an L arrival to the last event scanned.
    reward_rates : numpy.ndarray
        The reward rate of each replication (for paired comparisons).
    """

    policy: str
    info: str
    servers: int
    horizon: float
    warmup: float
    reps: int
    reward_rate: Estimate
    mean_idle: Estimate
    admitted_h: int
    admitted_l: int
    rejected_h: int
    rejected_l: int
    events: int
    mean_lookahead: float
    mean_lookahead_time: float
    reward_rates: np.ndarray = field(repr=False, compare=False)


@dataclass(frozen=True)
class PairedDifference:
    """R[first] - R[second] estimated on common replications (95% Student t interval of
    the per-replication differences), and the smallest per-replication difference (for
    path-wise checks)."""

    first: str
    second: str
    difference: Estimate
    min_difference: float


@dataclass(frozen=True)
class Comparison:
    """Several policies run on the same replications (common random numbers)."""

    results: dict[str, SimulationResult]
    differences: list[PairedDifference]

    def difference(self, first: str, second: str) -> PairedDifference:
        """The paired difference R[first] - R[second] (any two of the policies)."""
        return _paired(self.results[first], self.results[second])


def _paired(first: SimulationResult, second: SimulationResult) -> PairedDifference:
    diff = first.reward_rates - second.reward_rates
    return PairedDifference(first.policy, second.policy, Estimate.of(diff), float(diff.min()))


@dataclass(frozen=True, eq=False)
class Trace:
    """One replication event by event, with its idle-server trajectory (:func:`trace`).

    Attributes
    ----------
    times : numpy.ndarray
        float64, the event times 0 < t_1 < t_2 < ... <= T (clock model: H, L and
        potential departures; job model: arrivals and departures).
    codes : numpy.ndarray
        int32: -1 for H, -2 for L; for a departure event the slot floor(U N) in the
        clock model (it ends a service iff slot < busy) and 0 in the job model.
    decisions : numpy.ndarray
        int8: 1 admitted, 0 rejected, -1 departure event.
    idle : numpy.ndarray
        int32: I(t_i) = N - busy just after event i.  The trajectory is I(t) = N on
        [0, t_1) and I(t) = I(t_i) on [t_i, t_{i+1}) (t_{n+1} = T).
    servers, horizon, policy, info
        N, T, the normalised policy string and the information model of the run.
    """

    times: np.ndarray
    codes: np.ndarray
    decisions: np.ndarray
    idle: np.ndarray
    servers: int
    horizon: float
    policy: str
    info: str

    def mean_idle(self, warmup: float = 0.0) -> float:
        """Time-average idle count over (T0, T], (T - T0)^{-1} integral_{T0}^{T} I(t) dt,
        of the piecewise-constant trajectory (the ``mean_idle`` of :func:`simulate` for
        one replication with ``warmup=T0``).

        >>> tr = Trace(np.array([1.0, 3.0]), np.array([-1, 0], dtype=np.int32),
        ...            np.array([1, -1], dtype=np.int8), np.array([1, 2], dtype=np.int32),
        ...            servers=2, horizon=4.0, policy="threshold:0", info="clock")
        >>> tr.mean_idle(), tr.mean_idle(warmup=2.0)  # (2 + 2 + 2) / 4 and (1 + 2) / 2
        (1.5, 1.5)
        """
        warmup = _check_warmup(warmup, self.horizon)
        first = int(np.searchsorted(self.times, warmup, side="right"))  # first t_i > T0
        level = self.idle[first - 1] if first > 0 else self.servers  # I(T0)
        edges = np.append(self.times[first:], self.horizon)
        area = level * (edges[0] - warmup) + np.dot(self.idle[first:], np.diff(edges))
        return float(area / (self.horizon - warmup))


def parse_policy(policy: str, servers: int) -> tuple[str, float]:
    """Split a policy string into the C policy name and its parameter.

    >>> parse_policy("threshold:3", 50), parse_policy("sss:0.1", 50), parse_policy("pfi", 50)
    (('threshold', 3.0), ('sss', 0.1), ('pfi', 0.0))
    >>> parse_policy("threshold:60", 50)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: policy 'threshold:K' needs an integer reserve K in 0..servers = 0..50, ...
    """
    if not isinstance(policy, str):
        raise ValueError(f"policy must be a string, got {policy!r}")
    name, colon, arg = policy.partition(":")
    if name == "threshold":
        if colon and arg.isascii() and arg.isdigit() and int(arg) <= servers:
            return name, float(int(arg))
        raise ValueError(
            f"policy 'threshold:K' needs an integer reserve K in 0..servers = 0..{servers}, "
            f"got {policy!r}"
        )
    if name == "sss":
        try:
            window = float(arg)
        except ValueError:
            window = math.nan
        if colon and 0 < window < math.inf:
            return name, window
        raise ValueError(f"policy 'sss:W' needs a finite window W > 0, got {policy!r}")
    if name in ("pfi", "offline") and not colon:
        return name, 0.0
    raise ValueError(f"policy must be 'threshold:K', 'pfi', 'sss:W' or 'offline', got {policy!r}")


def _check_run(net: LossNetwork, info: str, horizon: float, warmup: float) -> tuple[float, float]:
    if not isinstance(net, LossNetwork):
        raise ValueError(f"net must be a LossNetwork, got {net!r}")
    if info not in INFO_MODELS:
        raise ValueError(f"info must be 'clock' or 'job', got {info!r}")
    horizon = positive("horizon", horizon)
    return horizon, _check_warmup(warmup, horizon)


def _check_warmup(warmup: float, horizon: float) -> float:
    warmup = nonnegative("warmup", warmup)
    if not warmup < horizon:
        raise ValueError(f"warmup must be < horizon, got warmup={warmup}, horizon={horizon}")
    return warmup


def _run_one(
    net: LossNetwork,
    name: str,
    param: float,
    info: str,
    horizon: float,
    warmup: float,
    seed: object,
    trace: bool = False,
) -> dict:
    """One C run on the bit generator of ``default_rng(seed)``."""
    bit_generator = np.random.default_rng(seed).bit_generator
    with bit_generator.lock:  # the C code releases the GIL while it runs
        return _core.lossnet_simulate(
            bit_generator, info, name, param, net.servers, net.lambda_h, net.lambda_l,
            net.mu, net.r_h, net.r_l, horizon, warmup, trace=trace,
        )  # fmt: skip


def _run_reps(net, name, param, info, horizon, warmup, seeds, workers) -> list[dict]:
    def one(child: np.random.SeedSequence) -> dict:
        return _run_one(net, name, param, info, horizon, warmup, child)

    if workers == 1 or len(seeds) == 1:
        return [one(child) for child in seeds]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, seeds))


MAX_WINDOW_EVENTS = 1e8  # expected events in one SSS window
MAX_DP_CELLS = 2e11  # events x states of the offline DP (minutes at ~1e9 cells/s)
MAX_DP_BYTES = 2e9  # checkpoints: about 16 (N + 1) (sqrt(events) + 2) bytes
MAX_TRACE_EVENTS = 5e7  # expected events of one trace (peak about 55 bytes per event)


def _check_cost(net: LossNetwork, name: str, param: float, info: str, horizon: float) -> None:
    """Refuse runs whose cost is out of all proportion before any memory is taken."""
    event_rate = net.event_rate
    if name == "sss" and param * event_rate > MAX_WINDOW_EVENTS:
        raise ValueError(
            f"policy 'sss:W': the window holds about {param * event_rate:.3g} events; "
            f"W must keep it below {MAX_WINDOW_EVENTS:.0e}"
        )
    if name == "offline" and info == "clock":
        events = event_rate * horizon
        cells = events * (net.servers + 1)
        memory = 16 * (net.servers + 1) * (math.sqrt(events) + 2)
        if cells > MAX_DP_CELLS or memory > MAX_DP_BYTES:
            raise ValueError(
                f"offline DP needs about {cells:.3g} cells and {memory:.3g} bytes; "
                f"reduce servers or horizon (limits {MAX_DP_CELLS:.0e} cells, "
                f"{MAX_DP_BYTES:.0e} bytes)"
            )


def summarise(net, policy, info, horizon, warmup, runs: list[dict]) -> SimulationResult:
    """The :class:`SimulationResult` of replications ``runs`` of ``policy``: one dict
    per replication with the counts ``admitted_h``, ``admitted_l``, ``rejected_h``,
    ``rejected_l`` and ``events`` over (T0, T], ``idle_area`` (the integral of the idle
    count over (T0, T]) and the look-ahead counters ``l_arrivals_scored``,
    ``lookahead_events`` and ``lookahead_time`` (zero for other policies), as the C
    runs return them."""
    window = horizon - warmup
    rates = np.array([(net.r_h * d["admitted_h"] + net.r_l * d["admitted_l"]) / window
                      for d in runs])  # fmt: skip
    idle = np.array([d["idle_area"] / window for d in runs])
    total = {key: sum(d[key] for d in runs) for key in runs[0] if not key.startswith("trace")}
    lookahead = policy.partition(":")[0] in LOOKAHEAD_POLICIES
    scored = total["l_arrivals_scored"]
    return SimulationResult(
        policy=policy,
        info=info,
        servers=net.servers,
        horizon=horizon,
        warmup=warmup,
        reps=len(runs),
        reward_rate=Estimate.of(rates),
        mean_idle=Estimate.of(idle),
        admitted_h=total["admitted_h"],
        admitted_l=total["admitted_l"],
        rejected_h=total["rejected_h"],
        rejected_l=total["rejected_l"],
        events=total["events"],
        mean_lookahead=total["lookahead_events"] / scored if lookahead and scored else math.nan,
        mean_lookahead_time=total["lookahead_time"] / scored if lookahead and scored else math.nan,
        reward_rates=rates,
    )


def simulate(
    net: LossNetwork,
    policy: str,
    *,
    info: str = "clock",
    horizon: float,
    warmup: float = 0.0,
    reps: int = 1,
    seed: object = None,
    workers: int = 1,
) -> SimulationResult:
    """Simulate one policy in ``reps`` independent replications.

    Parameters
    ----------
    net : LossNetwork
        The model (validated on construction: overloaded, r_H > r_L).
    policy : str
        ``"threshold:K"`` (0 <= K <= N), ``"pfi"``, ``"sss:W"`` (W > 0) or ``"offline"``.
    info : str
        Information model, ``"clock"`` or ``"job"`` (job: threshold:K and offline).
    horizon, warmup : float
        T > 0 and 0 <= T0 < T; statistics are recorded in (T0, T].
    reps : int
        Independent replications; replication i uses the bit generator
        ``default_rng(SeedSequence(seed).spawn(reps)[i])`` (replay its path with
        :func:`clock_path` / :func:`job_path` and that child seed).
    seed : None, int or SeedSequence
        Root seed.  The same seed gives the same paths under every policy.
    workers : int
        Threads running replications in parallel (the C code releases the GIL).

    Returns
    -------
    SimulationResult

    Examples
    --------
    >>> net = LossNetwork(50, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> res = simulate(net, "threshold:3", horizon=200.0, warmup=10.0, reps=4, seed=1)
    >>> from qtheory.lossnet.fluid import fluid_bound
    >>> from qtheory.lossnet.online import threshold_table
    >>> exact = fluid_bound(net) - threshold_table(net).regret[3]
    >>> bool(abs(res.reward_rate.mean - exact) < 4 * res.reward_rate.halfwidth)
    True
    """
    horizon, warmup = _check_run(net, info, horizon, warmup)
    reps = positive_int("reps", reps)
    workers = positive_int("workers", workers)
    name, param = parse_policy(policy, net.servers)
    if info == "job" and name != "threshold":
        raise ValueError(
            f"policy {policy!r} is not simulated in the job model (threshold:K only; the "
            "job-model offline optimum is qtheory.lossnet.offline_job.simulate_offline_job)"
        )
    _check_cost(net, name, param, info, horizon)
    seeds = replication_seeds(seed, reps)
    runs = _run_reps(net, name, param, info, horizon, warmup, seeds, workers)
    return summarise(net, _normalise(name, param), info, horizon, warmup, runs)


def _normalise(name: str, param: float) -> str:
    if name == "threshold":
        return f"threshold:{int(param)}"
    if name == "sss":
        return f"sss:{param!r}"
    return name


def compare(
    net: LossNetwork,
    policies: list[str],
    *,
    info: str = "clock",
    horizon: float,
    warmup: float = 0.0,
    reps: int = 2,
    seed: object = None,
    workers: int = 1,
) -> Comparison:
    """Run several policies on the same ``reps`` replications (common random numbers) and
    estimate every paired difference R[a] - R[b] with a 95% Student t interval.

    Arguments as in :func:`simulate`; ``reps`` >= 2.

    Examples
    --------
    >>> net = LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> cmp = compare(net, ["offline", "pfi"], horizon=50.0, reps=3, seed=2)
    >>> cmp.difference("offline", "pfi").min_difference >= 0  # path by path
    True
    """
    horizon, warmup = _check_run(net, info, horizon, warmup)
    reps = positive_int("reps", reps)
    if reps < 2:
        raise ValueError(f"reps must be >= 2 for confidence intervals, got {reps}")
    workers = positive_int("workers", workers)
    if isinstance(policies, str) or len(policies) == 0:
        raise ValueError(f"policies must be a non-empty list of policy strings, got {policies!r}")
    parsed = [parse_policy(p, net.servers) for p in policies]
    names = [_normalise(name, param) for name, param in parsed]
    if len(set(names)) != len(names):
        raise ValueError(f"policies must be distinct, got {policies!r}")
    if info == "job" and any(name != "threshold" for name, _ in parsed):
        raise ValueError("only threshold:K policies are available in the job model")
    seeds = replication_seeds(seed, reps)
    results = {}
    for key, (name, param) in zip(names, parsed, strict=True):
        # Each policy gets fresh bit generators from the same child seeds: same paths.
        runs = _run_reps(net, name, param, info, horizon, warmup, seeds, workers)
        results[key] = summarise(net, key, info, horizon, warmup, runs)
    differences = [_paired(results[a], results[b]) for a, b in combinations(names, 2)]
    return Comparison(results, differences)


def clock_path(net: LossNetwork, horizon: float, seed: object = None) -> ClockPath:
    """The clock-model future of (0, horizon] drawn from ``default_rng(seed)``, exactly as
    :func:`simulate` draws it (pass a child of ``SeedSequence(seed).spawn(reps)`` to replay
    one replication).

    >>> path = clock_path(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), 1.0, seed=0)
    >>> bool(np.all(np.diff(path.times) > 0)), int(path.codes.max()) < 10
    (True, True)
    """
    return ClockPath(*_path(net, "clock", horizon, seed))


def job_path(net: LossNetwork, horizon: float, seed: object = None) -> JobPath:
    """The job-model arrivals of (0, horizon] (times, class, service time of every job,
    admitted or not) drawn from ``default_rng(seed)`` exactly as :func:`simulate` draws
    them; input for an offline interval-selection solver.

    >>> path = job_path(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), 1.0, seed=0)
    >>> path.arrival_times.size == path.is_l.size == path.service_times.size
    True
    """
    times, is_l, service = _path(net, "job", horizon, seed)
    return JobPath(times, is_l.astype(bool), service)


def trace(
    net: LossNetwork, policy: str, *, info: str = "clock", horizon: float, seed: object = None
) -> Trace:
    """One replication of ``policy`` over (0, horizon], event by event, with the idle
    count after every event.

    The run draws from ``default_rng(seed)`` exactly like :func:`clock_path` /
    :func:`job_path`; to replay replication i of ``simulate(..., reps=R, seed=s)`` pass
    ``SeedSequence(s).spawn(R)[i]``.  Policies and information models as in
    :func:`simulate`, except that the job model traces ``threshold:K`` only (its offline
    optimum is a min-cost-flow LP solved in Python, without an event trace).  For
    ``offline`` the trace follows the optimal path of the whole run (0, T].

    Parameters
    ----------
    net : LossNetwork
    policy : str
        ``"threshold:K"``, ``"pfi"``, ``"sss:W"`` or ``"offline"`` (clock model).
    info : str
        ``"clock"`` or ``"job"``.
    horizon : float
        T > 0, with (lambda_H + lambda_L + mu) N T <= 5e7 expected events.
    seed : None, int or SeedSequence

    Returns
    -------
    Trace

    Examples
    --------
    >>> net = LossNetwork(50, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> res = simulate(net, "threshold:3", horizon=100.0, warmup=10.0, seed=7)
    >>> tr = trace(net, "threshold:3", horizon=100.0, seed=np.random.SeedSequence(7).spawn(1)[0])
    >>> tr.times.size == res.events
    True
    >>> math.isclose(tr.mean_idle(10.0), res.mean_idle.mean, rel_tol=1e-9)
    True
    """
    horizon, _ = _check_run(net, info, horizon, 0.0)
    name, param = parse_policy(policy, net.servers)
    if info == "job" and name != "threshold":
        raise ValueError(
            f"trace: policy {policy!r} has no event trace in the job model (threshold:K only; "
            "the job-model offline optimum is a min-cost-flow LP solved in Python)"
        )
    events = net.event_rate * horizon
    if events > MAX_TRACE_EVENTS:
        raise ValueError(
            f"trace: about {events:.3g} events expected ((lambda_h + lambda_l + mu) * servers "
            f"* horizon, servers={net.servers}, horizon={horizon}); reduce horizon or servers "
            f"to keep it <= {MAX_TRACE_EVENTS:.0e}"
        )
    _check_cost(net, name, param, info, horizon)
    out = _run_one(net, name, param, info, horizon, 0.0, seed, trace=True)
    return Trace(
        times=out["trace_t"],
        codes=out["trace_code"],
        decisions=out["trace_decision"],
        idle=np.subtract(net.servers, out["trace_busy"], dtype=np.int32),
        servers=net.servers,
        horizon=horizon,
        policy=_normalise(name, param),
        info=info,
    )


def _path(net: LossNetwork, info: str, horizon: float, seed: object) -> tuple:
    horizon, _ = _check_run(net, info, horizon, 0.0)
    bit_generator = np.random.default_rng(seed).bit_generator
    with bit_generator.lock:
        return _core.lossnet_path(
            bit_generator, info, net.servers, net.lambda_h, net.lambda_l, net.mu, horizon
        )
