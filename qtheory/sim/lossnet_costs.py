r"""What a loss-network simulation will cost before it runs: events, memory and dynamic
programme cells of one replication and of a whole run (:func:`run_cost`,
:func:`path_cost`), and the guards that refuse a run beyond the limits of
:mod:`qtheory.core.limits` before any work (:func:`require_run`, :func:`require_path`),
naming the parameter to reduce.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from qtheory.core import limits
from qtheory.core.validation import positive, positive_int
from qtheory.model.lossnet import LossNetwork
from qtheory.sim.lossnet_policies import (
    check_info,
    check_job_policy,
    check_net,
    check_run,
    normalised_policy,
    parse_policy,
)

__all__ = [
    "RunCost",
    "path_cost",
    "require_path",
    "require_run",
    "run_cost",
]


# ------------------------------------------------------------------ costs

#: Bytes per element of the C arrays: a clock event (time, code, H count), a job (time,
#: service time, class), a traced event (time, code, decision, busy count) and a
#: completion time of the job model's heap.
_CLOCK_EVENT_BYTES, _JOB_BYTES, _TRACE_BYTES, _HEAP_BYTES = 16, 24, 17, 8
#: Bytes per buffered event of the two-class SSS scan besides the event: the summary
#: (8 bytes) of each block of 8 events that lets the scan skip the block (kept for windows
#: of 64 expected events or more; counted for every window, an upper bound).
_SSS_BLOCK_BYTES = 1
#: A doubling array peaks at about 3 elements per element held (old and new block
#: during a realloc, capacity up to twice the size).
_GROWTH = 3
#: What a replication costs besides its events: about 30 us of Python (some 1000
#: events of C time) and about 2 kB of seeds and results.
_REPLICATION_EVENTS, _REPLICATION_BYTES = 1e3, 2e3


@dataclass(frozen=True)
class RunCost:
    """What a run is expected to cost, estimated before it starts.

    Attributes
    ----------
    events : float
        Expected events processed, look-ahead scans included (the "events" limit).
    memory : float
        Peak bytes allocated (the "memory" limit).
    dp_cells : float
        Cells of the offline dynamic programme, events x (K + 1) (the "dp_cells" limit):
        K = N for the full programme (here: N <= 129), K = 64 for the certified band.

    Examples
    --------
    >>> cost = run_cost(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0), "offline", horizon=10.0)
    >>> round(cost.dp_cells)  # (N + 1) cells for each of 2.4 N T = 2400 events
    242400
    """

    events: float
    memory: float
    dp_cells: float


def _pfi_walks(net: object) -> float:
    """Expected pending PFI walks per event, an upper estimate: a class-j arrival
    (probability lambda_j / (sum lambda + mu) per event, j >= 2) starts a walk whose
    hypothetical idle count moves over floor(sqrt N) with drift |mu - (lambda_1 + ... +
    lambda_{j-1})| per unit of time per server against (sum lambda + mu) events (for two
    classes: sqrt(N) (lambda_H + lambda_L + mu) / (mu - lambda_H) events per L arrival)."""
    lambdas = net.lambdas
    total = sum(lambdas) + net.mu
    scan = [math.isqrt(net.servers) * total / abs(net.mu - sum(lambdas[:j]))
            for j in range(1, len(lambdas))]  # fmt: skip
    return sum(rate / total * events for rate, events in zip(lambdas[1:], scan, strict=True))


#: PFI's threshold refills: the ring of events and thresholds (16 + 4 bytes per event)
#: spans 4096 + 64 floor(sqrt N) events, doubled when the thresholds take longer to
#: settle; allow four times that.  Its look-ahead statistics keep a 40-byte record per
#: walk from the oldest unresolved one on, a chunk of walks being read back (4 bytes an
#: event of it, and a record per walk), and per class 2..n 36 bytes per hypothetical idle
#: count 0..floor(sqrt N) (a power of 2 above it: the ring of walk ends and the groups).
_PFI_SPAN_BYTES, _PFI_WALK_BYTES, _PFI_SLOT_BYTES = 4 * (_CLOCK_EVENT_BYTES + 4), 40, 36


def _pfi_walk_chunk(servers: int) -> int:
    """The events of one backward pass of PFI's look-ahead statistics: 16 floor(sqrt N)
    rounded up to a power of 2 from 4096 to 65536 (walk_chunk in lossnet.c)."""
    chunk = 4096
    while chunk < 65536 and chunk < 16 * math.isqrt(servers):
        chunk *= 2
    return chunk


#: The first band of the certified offline programme (QT_LN_BAND in lossnet.h).
_OFFLINE_BAND = 32

#: Bands up to this width keep the admission bits of the whole path, 8 bytes an event
#: (QT_LN_ONE_PASS_BAND in lossnet.c); wider ones those of one segment of sqrt(events).
_ONE_PASS_BAND = 64


def _offline_width(net: object, events: float) -> int:
    """The band K the offline programme is expected to keep: twice the first band (one
    widening) when the band runs at all (rewards with exact float64 arithmetic over
    ``events`` events and N > 4 x 32 + 1) and its certificate is expected to hold, else
    N (the full programme).  The certificate (every arrival admitted at more than K idle
    servers) fails when classes below the marginal class exist: the offline optimum turns
    them away at idle counts of order N (the classes above them overload the system).
    With one such class the C run takes the programme of segments instead (the band and
    the stack of idle-server values as blocks, lossnet.c): it is costed here as the full
    programme, which it undercuts in the runs measured (its work, the blocks walked and
    the entries moved, was 1/13 to 1/15 of the full programme's cells for the report's
    sets 3a and 4a and a lower class of half the load, N = 10^4 and 10^5), and its cuts
    stay within half the memory this estimate allows for the full programme's checkpoints
    (past that it gives way to the full programme); C counts its work against the
    "dp_cells" limit as it runs.  With more classes below the marginal one the full
    programme runs.  A certificate that keeps failing costs more; the C run refuses to
    exceed the "dp_cells" limit."""
    rewards = net.rewards
    grain = min(_grain_exponent(reward) for reward in rewards)
    exact = math.ldexp(max(rewards) * (events + 1) * 2, -grain) < 2.0**53
    marginal_last = net.marginal == len(rewards) - 1
    if exact and marginal_last and 4 * _OFFLINE_BAND + 1 < net.servers:
        return min(2 * _OFFLINE_BAND, net.servers)
    return net.servers


def _grain_exponent(reward: float) -> int:
    """g with reward = odd x 2^g (the largest power of two dividing a positive float)."""
    mantissa, exponent = math.frexp(reward)
    odd = int(math.ldexp(mantissa, 53))
    return exponent - 53 + (odd & -odd).bit_length() - 1


def _replication_cost(
    net: LossNetwork, name: str, param: float, info: str, horizon: float, trace: bool
) -> tuple[RunCost, str]:
    """The cost of one replication and the parameter to blame when it is too much
    (``policy`` when the SSS window dominates, else ``horizon``)."""
    lambdas = net.lambdas
    events = net.event_rate * horizon
    scored = sum(lambdas[1:]) * net.servers * horizon  # arrivals of classes 2..n (L)
    scans = memory = cells = 0.0
    if info == "job":
        arrivals = sum(rate * net.servers for rate in lambdas) * horizon
        memory = _GROWTH * _HEAP_BYTES * (1024 + min(net.servers, arrivals))
    elif name == "pfi":
        # The backward threshold pass of each class 2..n visits every event about once
        # more, and so does the backward pass of its walks for the look-ahead statistics
        # (the look-ahead scan itself no longer runs).
        scans = 2 * (len(lambdas) - 1) * events
        span = 4096 + 64 * math.isqrt(net.servers)
        chunk = _pfi_walk_chunk(net.servers)
        slots = 1 << (math.isqrt(net.servers) + 1).bit_length()
        memory = _GROWTH * (
            (len(lambdas) - 1) * (_PFI_SPAN_BYTES * span + _PFI_SLOT_BYTES * slots)
            + _PFI_WALK_BYTES * (chunk + _pfi_walks(net))
            + 4 * chunk
        )
    elif name == "sss":
        window_events = param * net.event_rate
        scans = scored * window_events
        memory = _GROWTH * (_CLOCK_EVENT_BYTES + _SSS_BLOCK_BYTES) * (1024 + window_events)
    elif name == "offline":
        width = _offline_width(net, events)
        cells = events * (width + 1)
        # checkpoints of the band (K + 1) and its stack (< 2 K), the admission bits of a
        # segment (K / 64 words an event) and the band's buffer (2 (K + 1))
        checkpoints = 8.0 * (4 * width + 3) * (math.sqrt(events) + 2)
        if width <= _ONE_PASS_BAND:  # one segment: the whole path's bits
            checkpoints += 8.0 * events
        memory = _GROWTH * _CLOCK_EVENT_BYTES * events + checkpoints
    if trace:
        memory += (_GROWTH + 1) * _TRACE_BYTES * events  # grown arrays, then NumPy copies
    blame = "policy" if name == "sss" and (scans > events or memory > 1e8) else "horizon"
    return RunCost(events + scans, memory, cells), blame


def _total_cost(one: RunCost, reps: int, workers: int) -> RunCost:
    return RunCost(
        events=reps * (one.events + _REPLICATION_EVENTS),
        memory=min(reps, workers) * one.memory + reps * _REPLICATION_BYTES,
        dp_cells=reps * one.dp_cells,
    )


def run_cost(
    net: LossNetwork,
    policy: str,
    *,
    info: str = "clock",
    horizon: float,
    reps: int = 1,
    workers: int = 1,
    trace: bool = False,
) -> RunCost:
    """The expected cost of ``simulate(net, policy, info=info, horizon=horizon, reps=reps,
    workers=workers)`` (or of :func:`trace` with ``trace=True``), without running it.

    Per replication: (lambda_H + lambda_L + mu) N T events (``net.event_rate``), plus
    for PFI twice as many again (the backward passes of its thresholds and of its
    look-ahead statistics) and for SSS(W) the window's (lambda_H + lambda_L + mu) N W
    events per L arrival; memory for the look-ahead buffer (PFI: its refills of
    4096 + 64 sqrt(N) events and the walks of its look-ahead statistics), the job
    model's heap
    of completion times (up to N), the offline path and checkpoints
    (8 (4 K + 3) (sqrt(events) + 2) bytes, plus 8 bytes an event of admission bits for
    K <= 64) and the trace; events x (K + 1) cells for
    the offline programme, where K = 64 when its certified band is expected to run (one
    widening of the first band, 32) and K = N for the full programme (rewards without
    exact float64 arithmetic, or N <= 129).  Replications running in parallel
    (``workers``) add their memory; each replication adds about 1000 events' worth of
    Python and 2 kB.

    Parameters
    ----------
    net : LossNetwork
    policy : str
        As in :func:`simulate`.
    info : str
        ``"clock"`` or ``"job"``.
    horizon : float
        T > 0.
    reps, workers : int
        Replications and threads, >= 1.
    trace : bool
        Whether every event is recorded (:func:`trace`).

    Returns
    -------
    RunCost

    Raises
    ------
    ValueError
        For invalid arguments (as :func:`simulate`).

    Examples
    --------
    >>> net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> round(run_cost(net, "threshold:3", horizon=10.0).events)  # 2.4 * 100 * 10 + 1000
    3400
    >>> run_cost(net, "sss:0.5", horizon=10.0).events > run_cost(net, "pfi", horizon=10.0).events
    True
    """
    name, param, info, horizon, reps, workers = _checked_run_arguments(
        net, policy, info, horizon, reps, workers, trace
    )
    one, _ = _replication_cost(net, name, param, info, horizon, trace)
    return _total_cost(one, reps, workers)


def _checked_run_arguments(net, policy, info, horizon, reps, workers, trace) -> tuple:
    """The validated arguments of :func:`run_cost` and :func:`require_run`: the C policy
    name and parameter, ``info``, ``horizon``, ``reps`` and ``workers``."""
    horizon, _ = check_run(net, info, horizon, 0.0)
    reps = positive_int("reps", reps)
    workers = positive_int("workers", workers)
    if not isinstance(trace, bool):
        raise ValueError(f"trace must be True or False, got {trace!r}")
    name, param = parse_policy(policy, net)
    check_job_policy(name, policy, info)
    return name, param, info, horizon, reps, workers


def path_cost(net: LossNetwork, *, info: str, horizon: float) -> RunCost:
    """The expected cost of one :func:`clock_path` or :func:`job_path` of (0, horizon]:
    its entries (clock events, or job arrivals) and the peak bytes of drawing it in C
    (a growing array of 16-byte events or 24-byte jobs) and copying it to NumPy.

    The job-model offline optimum (:mod:`qtheory.lossnet.offline_job`) draws such paths;
    its own work (the LP) comes on top.

    Parameters
    ----------
    net : LossNetwork
    info : str
        ``"clock"`` or ``"job"``.
    horizon : float
        T > 0.

    Returns
    -------
    RunCost
        ``events``: expected entries of the path; ``memory``: peak bytes;
        ``dp_cells``: 0.

    Raises
    ------
    ValueError
        For invalid arguments.

    Examples
    --------
    >>> net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> cost = path_cost(net, info="job", horizon=10.0)
    >>> round(cost.events), cost.memory > 24 * cost.events
    (1400, True)
    """
    check_net(net)
    info = check_info(info)
    horizon = positive("horizon", horizon)
    if info == "clock":
        entries = net.event_rate * horizon
        memory = entries * (_GROWTH * _CLOCK_EVENT_BYTES + 8 + 4)
    else:
        entries = (net.arrival_rate_h + net.arrival_rate_l) * horizon
        memory = entries * (_GROWTH * _JOB_BYTES + 8 + 1 + 8)
    return RunCost(entries, memory, 0.0)


def require_path(net: LossNetwork, *, info: str, horizon: float, reps: int = 1) -> RunCost:
    """Refuse ``reps`` paths of :func:`path_cost` whose memory (one at a time) or entries
    exceed :mod:`qtheory.core.limits`; for callers that draw paths (:func:`clock_path`,
    :func:`job_path`, :mod:`qtheory.lossnet.offline_job`).

    Parameters
    ----------
    net : LossNetwork
    info : str
        ``"clock"`` or ``"job"``.
    horizon : float
        T > 0.
    reps : int
        Paths drawn one after the other, >= 1.

    Returns
    -------
    RunCost
        The cost of one path (:func:`path_cost`).

    Raises
    ------
    ValueError
        For invalid arguments, or naming ``horizon`` (``reps``) when one path (all of
        them) exceeds the "memory" ("events") limit.

    Examples
    --------
    >>> net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> round(require_path(net, info="job", horizon=10.0).events)
    1400
    >>> require_path(net, info="job", horizon=1e12)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: horizon: the job-model path (N = 100, horizon = 1e+12) needs ... bytes, ...
    """
    cost = path_cost(net, info=info, horizon=horizon)
    reps = positive_int("reps", reps)
    what = f"the {info}-model path (N = {net.servers}, horizon = {horizon:g})"
    limits.require("memory", cost.memory, parameter="horizon", what=what)
    total = reps * (cost.events + _REPLICATION_EVENTS)
    limits.require("events", total, parameter="reps", what=f"{reps} paths")
    return cost


def require_run(
    net: LossNetwork,
    policy: str,
    *,
    info: str = "clock",
    horizon: float,
    reps: int = 1,
    workers: int = 1,
    trace: bool = False,
) -> RunCost:
    """Refuse, before anything is allocated, a run whose :func:`run_cost` exceeds the
    limits of :mod:`qtheory.core.limits` (one replication, then all of them).

    Parameters
    ----------
    net, policy, info, horizon, reps, workers, trace
        As in :func:`run_cost`.

    Returns
    -------
    RunCost
        The cost of the whole run.

    Raises
    ------
    ValueError
        For invalid arguments, or naming the parameter to reduce: ``horizon`` (or
        ``policy`` for an SSS window that dominates) when one replication exceeds the
        "events", "memory" or "dp_cells" limit, ``reps`` or ``workers`` when all of them
        do.

    Examples
    --------
    >>> net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> round(require_run(net, "threshold:3", horizon=10.0, reps=2).events)
    6800
    >>> require_run(net, "threshold:3", horizon=10.0, reps=10**9)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: reps: 1000000000 replications of 'threshold:3' needs ... events, ...
    """
    name, param, info, horizon, reps, workers = _checked_run_arguments(
        net, policy, info, horizon, reps, workers, trace
    )
    return require_policy_run(net, name, param, info, horizon, reps, workers, trace)


def require_policy_run(
    net: LossNetwork,
    name: str,
    param: float,
    info: str,
    horizon: float,
    reps: int = 1,
    workers: int = 1,
    trace: bool = False,
) -> RunCost:
    """Refuse (ValueError naming the parameter to reduce) a run above the limits; return
    its total cost."""
    one, blame = _replication_cost(net, name, param, info, horizon, trace)
    what = (
        f"one replication of {normalised_policy(name, param)!r} ({info} model, N = {net.servers}, "
        f"horizon = {horizon:g})"
    )
    limits.require("events", one.events, parameter=blame, what=what)
    limits.require("memory", one.memory, parameter=blame, what=what)
    limits.require("dp_cells", one.dp_cells, parameter="horizon", what=f"the offline DP of {what}")
    total = _total_cost(one, reps, workers)
    what = f"{reps} replications of {normalised_policy(name, param)!r}"
    limits.require("events", total.events, parameter="reps", what=what)
    limits.require("dp_cells", total.dp_cells, parameter="reps", what=f"the offline DP of {what}")
    parallel = (
        "workers" if workers > 1 and min(reps, workers) * one.memory > total.memory / 2 else "reps"
    )
    limits.require("memory", total.memory, parameter=parallel, what=f"{what} ({workers} at a time)")
    return total
