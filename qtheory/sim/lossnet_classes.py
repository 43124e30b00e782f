r"""Simulation of the overloaded loss network with n customer classes in the clock model.

The n-class network (``qtheory.model.classes.ClassNetwork``: N servers, class
j = 1..n arriving Poisson(λ_j N) with reward r_j, r_1 > … > r_n, a common service rate
μ) runs in the same C kernel as the two-class simulator (:mod:`qtheory.sim.lossnet`,
whose entry points are its n = 2 case: with the same seed a two-class network gives the
same events, decisions and statistics through either module).  The clock model is the
same: the future is the n arrival streams plus a uniformised departure clock at rate
Nμ whose potential departures carry uniform marks U and end a service iff
U < busy / N, drawn independently of the policy, so one seed replays one future under
every policy (common random numbers).  Arrivals of class j have event code -j.

Policies
--------
``threshold:k_1,...,k_n``
    Nested trunk reservation: admit class j iff more than k_j servers are idle, with
    integers 0 <= k_1 <= k_2 <= … <= k_n <= N (k_1 = 0: class 1 takes any idle
    server).  The optimal online policy is of this form [2]_ [3]_.
``pfi``
    Promise of future idleness, generalised.  Class 1 is admitted iff a server is idle.
    An arrival of class j >= 2 to I idle servers is judged on the hypothetical future in
    which it is admitted, every later arrival of a *better* class 1..j-1 is admitted and
    every later arrival of class j..n is rejected; with h = I - 1 the hypothetical idle
    count just after the admission, admit iff h reaches ⌊√N⌋ before it drops below 1
    (h = 0 at any instant, the admission's included; for N <= 3 a class j >= 2 is
    admitted exactly when I >= 2).  The promise is judged on the infinite future.
``sss:W``
    Single short sensor, generalised the same way: admit class j >= 2 iff in that same
    hypothetical future h >= 1 at every instant of [t, t + W].
``offline``
    The exact optimum over the path of (0, T]: the backward dynamic programme over
    (event, busy count), V_i(b) = max(V_{i+1}(b), r_j + V_{i+1}(b + 1)) at an arrival
    of class j; with the certified band of :mod:`qtheory.sim.lossnet` (its certificate
    uses the smallest reward r_n where the two-class one uses r_L).  The band's
    certificate, every arrival admitted at more than K idle servers, holds when the
    marginal class is the last one; when classes below it exist the offline optimum
    turns them away at idle counts of order N (the classes above overload the system and
    the optimum sees their bursts coming), and the full programme runs (O(events x N)
    work, about 1e9 cells per second; the cost estimate expects it).

For n = 2 both look-ahead rules are Bray's PFI and SSS(W) [1]_ (better class: H).  The
generalisation is the natural one because the hypothetical future is the fluid LP's
priority order: the LP serves classes in reward order, so from class j's point of view
the classes 1..j-1 are those the system would keep serving and j..n those it would
turn away first.  Within that future h moves up at rate about μN (departures) and down
at rate (λ_1 + … + λ_{j-1}) N (better arrivals), a drift N(μ - λ_1 - … - λ_{j-1}):
upward for every class up to the marginal class m (λ_1 + … + λ_{m-1} < μ), so the
promise of ⌊√N⌋ idle servers is kept with a probability that grows with the margin and
classes above m are admitted more readily than m itself; downward for the classes below
m, whose promise fails unless about √N servers are already idle -- as the fluid LP,
which serves them not at all, suggests.  The hypothetical walks are monotone in the
class (a worse class sees more downward steps), so the admission thresholds are nested
like trunk reservation's.

Every run starts with all servers idle at time 0; statistics are recorded in
(warmup, horizon].  Seeds, costs and traces follow :mod:`qtheory.sim.lossnet`
(replication i of ``seed=s`` draws from ``replication_seed(s, i)``; runs over the limits
of :mod:`qtheory.core.limits` are refused before they start).

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026).
.. [2] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable resources:
   logarithmic regret in overloaded networks", Operations Research 73(4) (2025).
.. [3] B. L. Miller, "A queueing reward system with several customer classes",
   Management Science 16(3):234-245 (1969).

Examples
--------
>>> from qtheory.model.classes import ClassNetwork
>>> net = ClassNetwork(100, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
>>> cmp = compare_classes(net, ["threshold:0,3,12", "pfi", "offline"], horizon=20.0,
...                       reps=2, seed=1)
>>> cmp.difference("offline", "pfi").min_difference >= 0
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from qtheory.core.stats import Estimate, replication_seeds, root_seed
from qtheory.core.validation import positive, positive_int
from qtheory.sim import lossnet, lossnet_policies

__all__ = [
    "ClassSimulationResult",
    "compare_classes",
    "parse_class_policy",
    "require_class_run",
    "simulate_classes",
    "trace_classes",
]


@dataclass(frozen=True)
class ClassSimulationResult:
    """Estimates from ``reps`` replications of one policy on the n-class network
    (:func:`simulate_classes`).

    Attributes
    ----------
    policy : str
        The normalised policy string (e.g. ``"threshold:0,2,5"``).
    servers, horizon, warmup, reps
        N, T, T0 and the number of replications.
    reward_rate, mean_idle : qtheory.core.stats.Estimate
        Mean over replications of the reward earned in (T0, T] per unit of time, and of
        the time-average idle count, with 95% Student t half-widths (NaN for reps = 1).
    admitted, rejected : tuple of int
        Arrivals of each class 1..n in (T0, T], summed over the replications.
    events : int
        Clock events processed in (0, T], summed over the replications.
    mean_lookahead, mean_lookahead_time : float
        Look-ahead policies: future events scanned, and time to the last one scanned, per
        arrival of classes 2..n in (T0, T]; NaN for the other policies.
    reward_rates : numpy.ndarray
        The reward rate of each replication (for paired comparisons).

    Examples
    --------
    >>> from qtheory.model.classes import ClassNetwork
    >>> net = ClassNetwork(20, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
    >>> res = simulate_classes(net, "pfi", horizon=10.0, reps=2, seed=1)
    >>> res.policy, len(res.admitted), res.reward_rates.shape
    ('pfi', 3, (2,))
    """

    policy: str
    servers: int
    horizon: float
    warmup: float
    reps: int
    reward_rate: Estimate
    mean_idle: Estimate
    admitted: tuple[int, ...]
    rejected: tuple[int, ...]
    events: int
    mean_lookahead: float
    mean_lookahead_time: float
    reward_rates: np.ndarray = field(repr=False, compare=False)


def require_class_run(net: object, policy: str, *, horizon: float, reps: int = 1):
    """Refuse, before it starts, an n-class clock-model run above the limits of
    :mod:`qtheory.core.limits` (ValueError naming the parameter to reduce); its cost otherwise.

    Parameters
    ----------
    net : ClassNetwork
        The network (read through its attributes).
    policy : str
        As :func:`simulate_classes` (``"threshold:k_1,...,k_n"``, ``"pfi"``,
        ``"sss:W"``, ``"offline"``).
    horizon : float, keyword-only
        Simulated time of one replication.
    reps : int, keyword-only, default 1
        Replications.

    Returns
    -------
    qtheory.sim.lossnet_costs.RunCost

    Examples
    --------
    >>> from qtheory.model.classes import ClassNetwork
    >>> net = ClassNetwork(100, (0.3, 0.9, 0.6), (3, 2, 1), 1.0)
    >>> round(require_class_run(net, "threshold:0,1,29", horizon=10.0).events)
    3800
    """
    name, param = parse_class_policy(policy, net)
    return lossnet.require_policy_run(net, name, param, "clock", horizon, reps)


def parse_class_policy(policy: str, net: object) -> tuple[str, object]:
    """Split an n-class policy string into the C policy name and its parameter.

    Parameters
    ----------
    policy : str
        ``"threshold:k_1,...,k_n"`` (n integers 0 <= k_1 <= … <= k_n <= N), ``"pfi"``,
        ``"sss:W"`` (finite W > 0) or ``"offline"``.
    net : ClassNetwork
        The network (its N and n).

    Returns
    -------
    tuple
        ``("threshold", (k_1, ..., k_n))``, ``("sss", W)``, ``("pfi", 0.0)`` or
        ``("offline", 0.0)``.

    Raises
    ------
    ValueError
        Naming ``policy`` and the rule it breaks.

    Examples
    --------
    >>> from qtheory.model.classes import ClassNetwork
    >>> net = ClassNetwork(50, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
    >>> parse_class_policy("threshold:0,2,7", net), parse_class_policy("sss:0.1", net)
    (('threshold', (0, 2, 7)), ('sss', 0.1))
    >>> parse_class_policy("threshold:0,7,2", net)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: policy 'threshold:k_1,...,k_n' needs nested reserves k_1 <= ... <= k_n, ...
    """
    net = _check_net(net)
    if not isinstance(policy, str):
        raise ValueError(f"policy must be a string, got {policy!r}")
    name, colon, arg = policy.partition(":")
    if name != "threshold":
        return lossnet_policies.parse_policy(policy, net.servers)
    parts = arg.split(",") if colon and len(arg) <= 20 * net.n_classes else []
    if len(parts) != net.n_classes or not all(
        p.isascii() and p.isdigit() and len(p) <= 19 and int(p) <= net.servers for p in parts
    ):
        raise ValueError(
            f"policy 'threshold:k_1,...,k_n' needs n = {net.n_classes} integer reserves in "
            f"0..servers = 0..{net.servers}, got {policy!r}"
        )
    reserves = tuple(int(p) for p in parts)
    if any(a > b for a, b in zip(reserves, reserves[1:], strict=False)):
        raise ValueError(
            "policy 'threshold:k_1,...,k_n' needs nested reserves k_1 <= ... <= k_n, "
            f"got {policy!r}"
        )
    return name, reserves


#: What an n-class network offers (``qtheory.model.classes.ClassNetwork``, validated on
#: construction; a higher layer, so read through its attributes, not imported).
_NETWORK_ATTRIBUTES = ("servers", "lambdas", "rewards", "mu", "n_classes", "event_rate")


def _check_net(net: object) -> object:
    if isinstance(net, lossnet.LossNetwork) or not all(
        hasattr(net, name) for name in _NETWORK_ATTRIBUTES
    ):
        raise ValueError(
            "net must be a qtheory.model.classes.ClassNetwork (for a two-class LossNetwork "
            f"pass qtheory.model.classes.as_classes(net)), got {type(net).__name__}"
        )
    return net


def _prepared(net, policy, horizon, warmup, reps, workers) -> tuple:
    """The validated network, policy (name, parameter), horizon, warmup, reps and workers."""
    net = _check_net(net)
    horizon = positive("horizon", horizon)
    warmup = lossnet_policies.check_warmup(warmup, horizon)
    reps = positive_int("reps", reps)
    workers = positive_int("workers", workers)
    name, param = parse_class_policy(policy, net)
    return net, name, param, horizon, warmup, reps, workers


def _summarise(
    net: object, policy: str, horizon: float, warmup: float, runs: list[dict]
) -> ClassSimulationResult:
    window = horizon - warmup
    rates = np.array([sum(r * a for r, a in zip(net.rewards, d["admitted"], strict=True)) / window
                      for d in runs])  # fmt: skip
    idle = np.array([d["idle_area"] / window for d in runs])
    scored = sum(d["arrivals_scored"] for d in runs)
    lookahead = policy.partition(":")[0] in lossnet.LOOKAHEAD_POLICIES and scored > 0
    return ClassSimulationResult(
        policy=policy,
        servers=net.servers,
        horizon=horizon,
        warmup=warmup,
        reps=len(runs),
        reward_rate=Estimate.of(rates),
        mean_idle=Estimate.of(idle),
        admitted=tuple(int(x) for x in np.sum([d["admitted"] for d in runs], axis=0)),
        rejected=tuple(int(x) for x in np.sum([d["rejected"] for d in runs], axis=0)),
        events=sum(d["events"] for d in runs),
        mean_lookahead=sum(d["lookahead_events"] for d in runs) / scored if lookahead else math.nan,
        mean_lookahead_time=(
            sum(d["lookahead_time"] for d in runs) / scored if lookahead else math.nan
        ),
        reward_rates=rates,
    )


def _runs(net, name, param, horizon, warmup, seeds, reps, workers) -> list[dict]:
    lossnet.require_policy_run(net, name, param, "clock", horizon, reps, workers)
    return lossnet.run_replications(net, name, param, "clock", horizon, warmup, seeds, workers)


def simulate_classes(
    net: object,
    policy: str,
    *,
    horizon: float,
    warmup: float = 0.0,
    reps: int = 1,
    seed: object = None,
    workers: int = 1,
) -> ClassSimulationResult:
    """Simulate one policy on the n-class network in ``reps`` replications (clock model).

    Parameters
    ----------
    net : ClassNetwork
        The model (``qtheory.model.classes.ClassNetwork``; a two-class
        :class:`~qtheory.model.lossnet.LossNetwork` through ``as_classes(net)``).
    policy : str
        ``"threshold:k_1,...,k_n"``, ``"pfi"``, ``"sss:W"`` or ``"offline"`` (module
        docstring).
    horizon, warmup : float
        T > 0 and 0 <= T0 < T; statistics are recorded in (T0, T].
    reps, workers : int
        Replications (>= 1) and threads running them (>= 1).
    seed : None, int >= 0, sequence of them, or numpy.random.SeedSequence
        Root seed, as in :func:`qtheory.sim.lossnet.simulate`: the same seed gives the
        same paths under every policy.

    Returns
    -------
    ClassSimulationResult

    Raises
    ------
    ValueError
        For invalid arguments (naming the parameter), and before anything runs when the
        run exceeds the limits of :mod:`qtheory.core.limits`.

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable
       resources: logarithmic regret in overloaded networks", Operations Research 73(4)
       (2025).

    Examples
    --------
    >>> from qtheory.model.classes import ClassNetwork
    >>> net = ClassNetwork(50, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
    >>> res = simulate_classes(net, "threshold:0,2,9", horizon=50.0, warmup=5.0, reps=3,
    ...                        seed=2)
    >>> res.admitted[0] > 0 and res.rejected[2] > res.admitted[2]
    True
    """
    net, name, param, horizon, warmup, reps, workers = _prepared(
        net, policy, horizon, warmup, reps, workers
    )
    seeds = replication_seeds(seed, reps)
    runs = _runs(net, name, param, horizon, warmup, seeds, reps, workers)
    return _summarise(net, lossnet_policies.normalised_policy(name, param), horizon, warmup, runs)


def compare_classes(
    net: object,
    policies: Sequence[str],
    *,
    horizon: float,
    warmup: float = 0.0,
    reps: int = 2,
    seed: object = None,
    workers: int = 1,
) -> lossnet.Comparison:
    """Run several policies on the same replications of the n-class network (common
    random numbers) and estimate every paired difference R[a] - R[b].

    Parameters
    ----------
    net : ClassNetwork
    policies : list or tuple of str
        Distinct policies (after normalisation), as in :func:`simulate_classes`.
    horizon, warmup, seed, workers
        As in :func:`simulate_classes`.
    reps : int
        Replications, >= 2.

    Returns
    -------
    qtheory.sim.lossnet.Comparison
        Results (:class:`ClassSimulationResult`) by normalised policy, and the paired
        differences.

    Raises
    ------
    ValueError
        For invalid arguments or runs over the limits of :mod:`qtheory.core.limits`.

    Examples
    --------
    >>> from qtheory.model.classes import ClassNetwork
    >>> net = ClassNetwork(30, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
    >>> cmp = compare_classes(net, ["offline", "sss:0.2"], horizon=20.0, reps=2, seed=4)
    >>> cmp.differences[0].min_difference >= 0
    True
    """
    if not isinstance(policies, list | tuple) or len(policies) == 0:
        raise ValueError(f"policies must be a non-empty list of policy strings, got {policies!r}")
    reps = positive_int("reps", reps)
    if reps < 2:
        raise ValueError(f"reps must be >= 2 for paired confidence intervals, got {reps}")
    prepared = [_prepared(net, p, horizon, warmup, reps, workers) for p in policies]
    net, _, _, horizon, warmup, reps, workers = prepared[0]
    keys = [lossnet_policies.normalised_policy(name, param) for _, name, param, *_ in prepared]
    if len(set(keys)) != len(keys):
        raise ValueError(f"policies must be distinct, got {policies!r}")
    for _, name, param, *_ in prepared:
        lossnet.require_policy_run(net, name, param, "clock", horizon, reps, workers)
    seeds = replication_seeds(seed, reps)
    results = {}
    for key, (_, name, param, *_) in zip(keys, prepared, strict=True):
        runs = lossnet.run_replications(net, name, param, "clock", horizon, warmup, seeds, workers)
        results[key] = _summarise(net, key, horizon, warmup, runs)
    differences = [
        lossnet.paired_difference(results[a], results[b]) for a, b in combinations(keys, 2)
    ]
    return lossnet.Comparison(results, differences)


def trace_classes(
    net: object, policy: str, *, horizon: float, seed: object = None
) -> lossnet.Trace:
    """One replication of ``policy`` on the n-class network over (0, horizon], event by
    event: times, codes (-j for an arrival of class j, else the departure slot),
    decisions and the idle count after every event.

    Parameters
    ----------
    net : ClassNetwork
    policy : str
        As in :func:`simulate_classes` (``offline``: the optimal path of (0, T]).
    horizon : float
        T > 0; the trace must fit the "memory" limit.
    seed : None, int >= 0, sequence of them, or numpy.random.SeedSequence
        The seed of this run (not a root): ``replication_seed(s, i)`` replays
        replication i of ``simulate_classes(..., seed=s)``.

    Returns
    -------
    qtheory.sim.lossnet.Trace

    Raises
    ------
    ValueError
        For invalid arguments, or a trace over the limits of :mod:`qtheory.core.limits`.

    Examples
    --------
    >>> from qtheory.model.classes import ClassNetwork
    >>> net = ClassNetwork(10, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
    >>> tr = trace_classes(net, "threshold:0,1,4", horizon=5.0, seed=3)
    >>> sorted(set(tr.codes[tr.codes < 0].tolist()))
    [-3, -2, -1]
    """
    net, name, param, horizon, _, _, _ = _prepared(net, policy, horizon, 0.0, 1, 1)
    lossnet.require_policy_run(net, name, param, "clock", horizon, trace=True)
    out = lossnet.run_one(net, name, param, "clock", horizon, 0.0, root_seed(seed), trace=True)
    return lossnet.Trace(
        times=out["trace_t"],
        codes=out["trace_code"],
        decisions=out["trace_decision"],
        idle=np.subtract(net.servers, out["trace_busy"], dtype=np.int32),
        servers=net.servers,
        horizon=horizon,
        policy=lossnet_policies.normalised_policy(name, param),
        info="clock",
    )
