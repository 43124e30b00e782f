r"""The loss network's admission policies as plain Python decision rules on a clock path,
for two classes or n.

The simulator decides in C (:mod:`qtheory.sim._core`): PFI by an O(1) threshold
recursion rather than by scanning the future (:mod:`qtheory.sim.lossnet`).  Here each
policy is written as it is defined, one event at a time, slow and readable: these are
the oracles the C kernel is tested against, decision by decision (``tests/sim``).

A clock path (:class:`~qtheory.model.paths.ClockPath`) is a stream of events: ``-j`` an
arrival of class j (two classes: ``-1`` H, ``-2`` L), else a potential departure with
slot ``c`` in 0..N-1, which ends a service iff ``c < busy``.  Class 1 is admitted iff a
server is idle; the policies differ in how they decide an arrival of class j ≥ 2 to I
idle servers (the strings of :func:`~qtheory.sim.lossnet_policies.parse_policy`):

``threshold:K`` (two classes), ``threshold:k_1,...,k_n``
    (Nested) trunk reservation: admit iff I > k_j, with k_1 = 0 and, for two classes,
    k_2 = K [2]_.
``pfi``
    Promise of future idleness [1]_: in the hypothetical future where this arrival is
    admitted, every later arrival of a better class 1..j−1 admitted and every later one
    of class j..n rejected, the idle count h = I − 1 reaches ⌊√N⌋ before it reaches 0
    (:func:`pfi_promise`).
``sss:W``
    Single short sensor [1]_: in the same future, h ≥ 1 at every event of
    [t, t + W] (:func:`sss_promise`).

In that hypothetical future a better arrival takes an idle server (h − 1), the others
are turned away and a departure slot c frees a server iff c < N − h, the hypothetical
busy count.

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026): PFI and SSS(W).
.. [2] B. L. Miller, "A queueing reward system with several customer classes",
   Management Science 16(3):234-245 (1969).

Examples
--------
>>> from qtheory.model.paths import ClockPath
>>> path = ClockPath(np.array([0.1, 0.2, 0.3, 0.4]), np.array([-2, -1, -2, 0]))
>>> from qtheory.model.lossnet import LossNetwork
>>> net = LossNetwork(4, 0.6, 0.8, 1.0, 2.0, 1.0)
>>> replay(path, net, "threshold:2").decisions.tolist()  # idle 4 > 2, H, idle 2 = K
[1, 1, 0, -1]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from qtheory.core.validation import nonnegative, positive_int
from qtheory.model.lossnet import LossNetwork
from qtheory.model.paths import ClockPath
from qtheory.sim.lossnet_policies import parse_policy

__all__ = ["Replay", "pfi_promise", "replay", "sss_promise"]


def _step(code: int, idle: int, servers: int, klass: int) -> int:
    """The hypothetical idle count after one event of the future judged for class
    ``klass``: a better arrival (code −1..−(klass − 1)) takes a server."""
    if -klass < code < 0:
        return idle - 1
    if code >= 0 and code < servers - idle:
        return idle + 1
    return idle


def pfi_promise(
    codes: Sequence[int], start: int, idle: int, servers: int, klass: int = 2
) -> tuple[bool, int, int]:
    """PFI's decision for an arrival of class ``klass`` (default 2: L) to ``idle`` idle
    servers, by the literal scan of the future from event index ``start``.

    Parameters
    ----------
    codes : sequence of int
        The path's event codes (module docstring); a list is fastest.
    start : int
        The index of the first event after the arrival.
    idle : int
        I, the idle servers the L finds.
    servers : int
        N.
    klass : int, default 2
        j ≥ 2, the arriving class.

    Returns
    -------
    (bool, int, int)
        Whether the L is admitted, the events scanned and the index of the last one
        (−1 when the decision needed no scan: I − 1 < 1 or I − 1 ≥ ⌊√N⌋).

    Raises
    ------
    ValueError
        If the path ends before the promise is decided.

    Examples
    --------
    >>> pfi_promise(np.array([0, 0, -1]), 0, 2, 9)  # h = 1, 2, then ⌊√9⌋ = 3
    (True, 2, 1)
    >>> pfi_promise(np.array([-1]), 0, 2, 9)  # the H takes the last hypothetical server
    (False, 1, 0)
    """
    target, h = math.isqrt(servers), idle - 1
    if h < 1:
        return False, 0, -1
    if h >= target:
        return True, 0, -1
    for m in range(start, len(codes)):
        h = _step(int(codes[m]), h, servers, klass)
        if h == 0 or h >= target:
            return h >= target, m - start + 1, m
    raise ValueError("the path ends before the PFI promise is decided; draw a longer path")


def sss_promise(
    times: Sequence[float],
    codes: Sequence[int],
    start: int,
    now: float,
    idle: int,
    servers: int,
    window: float,
    klass: int = 2,
) -> bool:
    """SSS(W)'s decision for an arrival of class ``klass`` (default 2: L) at ``now`` to
    ``idle`` idle servers: the hypothetical idle count stays ≥ 1 at every event of
    [now, now + W].

    Parameters
    ----------
    times, codes : sequence
        The path's event times and codes.
    start : int
        The index of the first event after the arrival.
    now : float
        The arrival time t.
    idle : int
        I, the idle servers the L finds.
    servers : int
        N.
    window : float
        W > 0.
    klass : int, default 2
        j ≥ 2, the arriving class.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If the path ends before t + W.

    Examples
    --------
    >>> times, codes = np.array([0.5, 0.6, 2.0]), np.array([-1, -1, -1])
    >>> sss_promise(times, codes, 0, 0.0, 3, 9, 1.0), sss_promise(times, codes, 0, 0.0, 3, 9, 0.55)
    (False, True)
    """
    h = idle - 1
    if h < 1:
        return False
    for m in range(start, len(codes)):
        if times[m] > now + window:
            return True
        h = _step(int(codes[m]), h, servers, klass)
        if h < 1:
            return False
    raise ValueError("the path ends before the SSS window closes; draw a longer path")


@dataclass(frozen=True)
class Replay:
    """A policy's decisions on a clock path, event by event.

    Attributes
    ----------
    decisions : numpy.ndarray of int8
        1 an arrival admitted, 0 rejected, −1 a departure event (the C trace's
        ``trace_decision``).
    lookahead_events : int
        PFI: events its promises scanned, over the arrivals of classes ≥ 2 after the
        warm-up (0 for the other policies).
    lookahead_time : float
        PFI: the summed time from each such arrival to the last event its promise
        scanned.
    scored : int
        The arrivals of classes ≥ 2 after the warm-up.

    Examples
    --------
    >>> from qtheory.model.paths import ClockPath
    >>> path = ClockPath(np.array([0.1, 0.2, 0.3]), np.array([-2, 0, 0]))
    >>> from qtheory.model.lossnet import LossNetwork
    >>> run = replay(path, LossNetwork(4, 0.6, 0.8, 1.0, 2.0, 1.0), "pfi")
    >>> run.decisions.tolist(), run.lookahead_events  # h = 3 ≥ ⌊√4⌋: no scan
    ([1, -1, -1], 0)
    """

    decisions: np.ndarray
    lookahead_events: int
    lookahead_time: float
    scored: int


def replay(
    path: ClockPath,
    net: LossNetwork | int,
    policy: str,
    *,
    events: int | None = None,
    warmup: float = 0.0,
) -> Replay:
    """Run ``policy`` on the first ``events`` events of ``path`` from an empty network.

    The promises of PFI and SSS look past event ``events`` when they need to, so the
    path must extend beyond the decisions asked for.

    Parameters
    ----------
    path : ClockPath
        The future (e.g. :func:`qtheory.sim.clock_path` over a longer horizon).
    net : LossNetwork or int
        The network: the rules read only its N (and its n for a nested threshold), so
        an int N stands for a two-class network of that size whatever its rates.
    policy : str
        ``"threshold:K"`` (two classes) or ``"threshold:k_1,...,k_n"``, ``"pfi"`` or
        ``"sss:W"``.
    events : int, optional
        How many events to decide (default: all of them).
    warmup : float, keyword-only, default 0
        The look-ahead statistics count the arrivals after this time.

    Returns
    -------
    Replay

    Raises
    ------
    ValueError
        A bad policy (``"offline"`` has no decision rule), ``events`` beyond the path,
        or a promise the path is too short to decide.

    Examples
    --------
    >>> from qtheory.model.lossnet import LossNetwork
    >>> from qtheory.model.paths import ClockPath
    >>> net = LossNetwork(4, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
    >>> path = ClockPath(np.array([0.1, 0.2, 0.3, 5.0]), np.array([-3, -2, -3, -1]))
    >>> replay(path, net, "threshold:0,1,2", events=3).decisions.tolist()  # 4 > 2, 3 > 1, 2
    [1, 1, 0]
    """
    if isinstance(net, LossNetwork) and net.n_classes > 2:
        servers = net.servers
        name, param = parse_policy(policy, net)
    elif isinstance(net, LossNetwork | int) and not isinstance(net, bool):
        servers = positive_int("net", net) if isinstance(net, int) else net.servers
        name, param = parse_policy(policy, servers)
        param = (0, int(param)) if name == "threshold" else param
    else:
        raise TypeError(f"net must be a LossNetwork or an int N, got {type(net).__name__}")
    if name == "offline":
        raise ValueError("policy 'offline' is the offline optimum, not a decision rule")
    warmup = nonnegative("warmup", warmup)
    times, codes = np.asarray(path.times).tolist(), np.asarray(path.codes).tolist()
    n = len(codes) if events is None else positive_int("events", events)
    if n > len(codes):
        raise ValueError(f"events must be <= the path's {len(codes)} events, got {n}")
    busy, decisions = 0, np.empty(n, dtype=np.int8)
    scanned, scan_time, scored = 0, 0.0, 0
    for i in range(n):
        code = codes[i]
        if code >= 0:
            decisions[i] = -1
            busy -= int(code < busy)
            continue
        klass, idle = -code, servers - busy
        if name == "threshold":
            admit = idle > param[klass - 1]
        elif klass == 1:
            admit = idle > 0
        elif name == "sss":
            admit = sss_promise(times, codes, i + 1, times[i], idle, servers, param, klass)
        else:
            admit, length, last = pfi_promise(codes, i + 1, idle, servers, klass)
            if times[i] > warmup:
                scanned += length
                scan_time += times[last] - times[i] if length else 0.0
        if klass >= 2 and times[i] > warmup:
            scored += 1
        busy += int(admit)
        decisions[i] = int(admit)
    return Replay(decisions, scanned, float(scan_time), scored)
