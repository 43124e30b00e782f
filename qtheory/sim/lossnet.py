"""Simulation of the overloaded loss network with two classes or n
(:class:`~qtheory.model.lossnet.LossNetwork`; docs/loss-network.md,
docs/information-models.md).

The sample paths, the policies and the offline optimum run in the C extension
:mod:`qtheory.sim._core` (one n-class kernel; ``lossnet_simulate`` and ``lossnet_path``
are its two-class entry points, which also run the job model, and with the same seed a
two-class network gives the same events, decisions and statistics through either entry
point); this module parses policies, checks what a run will cost before it starts,
derives the replications' seeds and turns the replications into estimates with 95%
confidence intervals (:class:`qtheory.core.stats.Estimate`).  The model and the policies
PFI and SSS(W) are Bray's [1]_; trunk reservation and the logarithmic regret of the
online optimum are from Xie, Gurvich and Küçükyavuz [2]_.

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
    Trunk reservation with reserve K: admit H iff a server is idle, admit L iff more
    than K are idle.
``pfi``
    Promise of future idleness.  An L arriving to I idle servers is judged on the
    hypothetical future in which it is admitted, every later L is rejected and every
    later H admitted; h = I - 1 is the hypothetical idle count just after admission.
    Admit iff h reaches floor(sqrt(N)) before it drops below 1, where "drops below 1"
    means h = 0 at any instant, the instant of admission included (so no L is admitted
    to I <= 1 idle; for N <= 3, where floor(sqrt(N)) = 1, an L is admitted exactly when
    I >= 2).  The promise is judged on the infinite future, past the horizon if needed.
    A literal scan would examine about sqrt(N) (lambda_H + lambda_L + mu)/(mu - lambda_H)
    events per undecided L arrival (measured: 0.4 to 0.5 of that for N = 100 to 10^4);
    the C code takes the same decisions in O(1) amortised work per event instead.  The
    hypothetical walk's step at each event is nondecreasing in h, so walks from one
    event never cross and the outcome is monotone in the starting value: L is admitted
    iff I - 1 >= theta(m), a threshold of the next event index m with the backward
    recursion theta(m) = g_m(theta(m + 1)) (g_H(x) = min(x + 1, s), g_L(x) = x, and
    for a departure slot c, g_c(x) = x - 1 if x >= 2 and c <= N - x, else x).  The
    recursion runs backward over blocks of the future from both ends 1 and s =
    floor(sqrt N); where the two envelopes meet, theta is exact whatever lies beyond
    (coupling from the past).  The reported look-ahead statistics are still those of
    the literal scan (events scanned, time to the last event scanned), obtained by
    following the pending walks forward together, grouped by hypothetical idle count.
``sss:W``
    Single short sensor: admit iff, in the same hypothetical future, h >= 1 at every
    instant of [t, t + W].  Scans only the window and stops as soon as the H arrivals
    left in it cannot bring h to 0.
``offline``
    Clock model only: the exact optimum over the path of (0, T] by backward dynamic
    programming over (event, busy count).  The full programme costs O(events x N) work
    and O(sqrt(events) x N) memory; by default only a band of idle counts 0..K is kept
    (K = 32 first: O(events x K) work), with a certificate that the optimum admits
    every arrival at more than K idle servers.  With delta_i(k) the value of the k-th
    idle server before event i, the values outside the band are carried by the stack
    (delta_i(K + 1), ..., delta_i(N)): a departure pops its top into the band and puts
    a 0 at the depth of its slot, and an arrival pushes min(r, delta_{i+1}(K)) and
    shifts the rest one deeper -- exactly, as long as every entry is <= r_L, which holds
    by induction if every push is <= r_L, i.e. if delta_{i+1}(K) <= r_L at every H
    arrival.  That check is the certificate; when it fails (or the top of the stack
    would be needed beyond the part kept) the band doubles, and the full programme
    runs once 4 K + 1 >= N.  The band runs only when the rewards make every value an
    exact float64 (both integer multiples of one power of two g, with
    max(r_H, r_L) (events + 1) 2 / g < 2^53: 2 and 1, 1.5 and 1, ...; otherwise the full
    programme runs), so its values and decisions are the full programme's bit for bit.
    No programme of more cells than the "dp_cells" limit is started: a certificate that
    fails below that size raises ``ValueError``.  It maximises the reward of the whole
    run (0, T] (no incentive to empty the system during the warm-up); the reported statistics are
    those of its optimal path in (T0, T] like for every other policy.  So with
    ``warmup=0`` the offline reward is >= every policy's on every path (exactly); with a
    warm-up the window rewards can differ in either direction by O(1) per path.

n classes
---------
With n classes (class j = 1..n arriving Poisson(λ_j N) with reward r_j, r_1 > … > r_n,
a common μ; clock model only, arrivals of class j have event code -j) the policies are:

``threshold:k_1,...,k_n``
    Nested trunk reservation: admit class j iff more than k_j servers are idle, with
    integers 0 <= k_1 <= k_2 <= … <= k_n <= N (k_1 = 0: class 1 takes any idle
    server).  The optimal online policy is of this form [2]_ [4]_.
``pfi``
    Promise of future idleness, generalised.  Class 1 is admitted iff a server is idle.
    An arrival of class j >= 2 to I idle servers is judged on the hypothetical future in
    which it is admitted, every later arrival of a *better* class 1..j-1 is admitted and
    every later arrival of class j..n is rejected; with h = I - 1, admit iff h reaches
    floor(sqrt(N)) before it drops below 1, as for two classes.
``sss:W``
    Single short sensor, generalised the same way: admit class j >= 2 iff in that same
    hypothetical future h >= 1 at every instant of [t, t + W].
``offline``
    The same backward programme over (event, busy count), V_i(b) = max(V_{i+1}(b),
    r_j + V_{i+1}(b + 1)) at an arrival of class j, with the band certificate using the
    smallest reward r_n where two classes use r_L.  The certificate (every arrival
    admitted at more than K idle servers) holds when the marginal class is the last one;
    when classes below it exist the optimum turns them away at some idle counts of order
    N and admits them at others.  With exactly one class below the marginal one the
    programme of segments runs instead: the band, and outside it the values of the idle
    servers as blocks of values <= r_n (where class n is admitted) and > r_n, on which an
    arrival of class n acts block by block; exact, with the full programme's decisions
    bit for bit, and about 16 times faster at N = 10^4 (``offline_band`` is then 32 or
    64).  With more classes below the marginal one the full programme runs (O(events x
    N) work; the cost estimate expects it, and bounds the programme of segments too).

For n = 2 the look-ahead rules are Bray's PFI and SSS(W) (better class: H).  The
hypothetical future is the fluid LP's priority order: the LP serves classes in reward
order, so from class j's point of view the classes 1..j-1 are those the system would
keep serving and j..n those it would turn away first.  In that future h drifts by
N(μ - λ_1 - … - λ_{j-1}): upward for every class up to the marginal class m, so
classes above m are admitted more readily than m itself, and downward for the classes
below m, whose promise fails unless about √N servers are already idle (the fluid LP
serves them not at all).  The hypothetical walks are monotone in the class, so the
admission thresholds are nested like trunk reservation's.

Every run starts with all servers idle at time 0; statistics are recorded in
(warmup, horizon].

Seeds
-----
Replication i of ``simulate(..., seed=s)`` draws its future from the bit generator
``default_rng(qtheory.core.stats.replication_seed(s, i))`` (for an integer s:
``SeedSequence(s, spawn_key=(i,))``, the i-th child of ``SeedSequence(s).spawn``), and so
do :func:`simulate_policies`, :func:`compare`, :mod:`qtheory.lossnet.offline_job` and the
decomposition (:mod:`qtheory.lossnet.decomposition`).  The events of a clock-model run do
not depend on the policy, so :func:`simulate_policies` (and :func:`compare`) draw each
replication's path once and replay it to every policy (``_core.lossnet_source``: the
events are kept, and drawn further only when a run needs one not drawn yet; while the
paths alive at once take at most
:data:`~qtheory.sim.lossnet_runs.SHARED_PATH_BYTES`), with the numbers of one
:func:`simulate` per policy and 15--20% less CPU for the decomposition's dozen policies
per path at N = 10^3 to 10^4.  A ``SeedSequence`` passed as ``seed`` is
never advanced, so passing one object twice replays the same paths.  :func:`clock_path`,
:func:`job_path` and :func:`trace` take the seed of the run itself: pass
``replication_seed(s, i)`` to replay replication i.

Costs
-----
Every entry point estimates what it will cost before anything is allocated
(:func:`run_cost`, :func:`path_cost`: expected events including the look-ahead scans,
peak bytes, cells of the offline dynamic programme) and refuses, with a ``ValueError``
naming the parameter to reduce, what exceeds the limits of :mod:`qtheory.core.limits`
("events", "memory", "dp_cells"; lift them with :func:`qtheory.core.limits.raised`).

Traces
------
:func:`trace` returns one replication event by event (:class:`Trace`): times, codes,
decisions and the idle count I(t_i) = N - busy just after each event, filled in by the C
run (in the clock model a potential departure ends a service iff its slot < busy, so
the busy count cannot be rebuilt from the codes without a sequential loop).  I(t) is
piecewise constant and right-continuous, I = N on [0, t_1), and I(t) = I(t_i) on
[t_i, t_{i+1}); this is the input of epoch and renewal-reward analyses [3]_ (e.g.
cycles between visits of I to 1; :mod:`qtheory.walks.epochs`).  :meth:`Trace.mean_idle`
gives (T - T0)^{-1} integral_{T0}^{T} I(t) dt, the statistic ``mean_idle`` of
:func:`simulate`.  A trace keeps 17 bytes per event (about 68 at the peak, while the C
run grows its arrays and hands them over); the "memory" limit bounds it.

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026).
.. [2] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable resources:
   logarithmic regret in overloaded networks", Operations Research 73(4) (2025).
.. [3] S. Asmussen, Applied Probability and Queues, 2nd ed., Springer (2003).
.. [4] B. L. Miller, "A queueing reward system with several customer classes",
   Management Science 16(3):234-245 (1969).

Examples
--------
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
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from qtheory.core.stats import Estimate, replication_seeds, root_seed
from qtheory.core.validation import positive_int
from qtheory.model.lossnet import LossNetwork, as_network, two_classes
from qtheory.model.paths import ClockPath, JobPath
from qtheory.sim import _core
from qtheory.sim.lossnet_costs import path_cost, require_path, require_policy_run
from qtheory.sim.lossnet_policies import (
    check_job_policy,
    check_run,
    check_warmup,
    normalised_policy,
    parse_policy,
)
from qtheory.sim.lossnet_runs import SHARED_PATH_BYTES, run_one, run_policies

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
    "simulate",
    "simulate_policies",
    "summarise",
    "trace",
]

LOOKAHEAD_POLICIES = ("pfi", "sss")


# ------------------------------------------------------------------ results


@dataclass(frozen=True)
class SimulationResult:
    """Estimates from ``reps`` independent replications of one policy (:func:`simulate`).

    Attributes
    ----------
    policy, info : str
        The policy string (normalised, e.g. ``"threshold:3"``) and information model.
    servers, horizon, warmup, reps
        The run: N, T, T0 and the number of replications.
    reward_rate : qtheory.core.stats.Estimate
        Mean over replications of the reward earned in (T0, T] divided by T - T0, with
        the half-width of its 95% Student t interval (NaN when reps = 1).
    mean_idle : qtheory.core.stats.Estimate
        Time-average number of idle servers in (T0, T], with its 95% half-width.
    admitted, rejected : tuple of int
        Arrivals of each class 1..n (H, L for two classes) in (T0, T], summed over the
        replications.
    events : int
        Events processed in (0, T], summed over the replications (clock model: arrivals
        and potential departures; job model: arrivals and departures).
    mean_lookahead : float
        Lookahead policies: future events scanned per arrival of classes 2..n (L) in
        (T0, T] (0 for decisions taken without a scan); NaN for the other policies and
        for a run with ``lookahead_stats=False``.
    mean_lookahead_time : float
        Lookahead policies: mean time from such an arrival to the last event scanned
        (NaN where ``mean_lookahead`` is).
    reward_rates : numpy.ndarray
        The reward rate of each replication (for paired comparisons).

    Examples
    --------
    >>> res = simulate(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), "pfi", horizon=20.0,
    ...                reps=3, seed=1)
    >>> res.policy, res.reps, res.reward_rate.n, res.reward_rates.shape
    ('pfi', 3, 3, (3,))
    """

    policy: str
    info: str
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

    def _two_class(self, counts: tuple[int, ...], name: str) -> tuple[int, int]:
        if len(counts) != 2:
            raise AttributeError(
                f"{name}_h and {name}_l are the counts of two classes; with {len(counts)} "
                f"classes read {name}"
            )
        return counts[0], counts[1]

    @property
    def admitted_h(self) -> int:
        """Two classes: H arrivals admitted (``admitted[0]``)."""
        return self._two_class(self.admitted, "admitted")[0]

    @property
    def admitted_l(self) -> int:
        """Two classes: L arrivals admitted (``admitted[1]``)."""
        return self._two_class(self.admitted, "admitted")[1]

    @property
    def rejected_h(self) -> int:
        """Two classes: H arrivals rejected (``rejected[0]``)."""
        return self._two_class(self.rejected, "rejected")[0]

    @property
    def rejected_l(self) -> int:
        """Two classes: L arrivals rejected (``rejected[1]``)."""
        return self._two_class(self.rejected, "rejected")[1]


@dataclass(frozen=True)
class PairedDifference:
    """R[first] - R[second] estimated on common replications.

    Attributes
    ----------
    first, second : str
        The two normalised policy strings.
    difference : qtheory.core.stats.Estimate
        Mean of the per-replication differences with its 95% Student t interval.
    min_difference : float
        The smallest per-replication difference (for path-wise checks).

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> d = compare(net, ["offline", "pfi"], horizon=20.0, reps=2, seed=1).differences[0]
    >>> (d.first, d.second), d.min_difference >= 0
    (('offline', 'pfi'), True)
    """

    first: str
    second: str
    difference: Estimate
    min_difference: float


@dataclass(frozen=True)
class Comparison:
    """Several policies run on the same replications (common random numbers).

    Attributes
    ----------
    results : dict
        Normalised policy string -> its :class:`SimulationResult`.
    differences : list of PairedDifference
        Every pair, in the order the policies were given.

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> cmp = compare(net, ["threshold:1", "pfi", "offline"], horizon=20.0, reps=2, seed=1)
    >>> sorted(cmp.results), len(cmp.differences)
    (['offline', 'pfi', 'threshold:1'], 3)
    """

    results: dict[str, SimulationResult]
    differences: list[PairedDifference]

    def difference(self, first: str, second: str) -> PairedDifference:
        """The paired difference R[first] - R[second] of any two of the policies.

        Parameters
        ----------
        first, second : str
            Normalised policy strings, keys of :attr:`results`.

        Returns
        -------
        PairedDifference

        Raises
        ------
        ValueError
            If either policy was not compared.

        Examples
        --------
        >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> cmp = compare(net, ["offline", "pfi"], horizon=20.0, reps=2, seed=1)
        >>> cmp.difference("pfi", "offline").min_difference <= 0
        True
        """
        for name in (first, second):
            if not isinstance(name, str) or name not in self.results:
                raise ValueError(
                    f"policies must be among the compared {sorted(self.results)}, got {name!r}"
                )
        return paired_difference(self.results[first], self.results[second])


def paired_difference(first: SimulationResult, second: SimulationResult) -> PairedDifference:
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

    Examples
    --------
    >>> tr = trace(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), "threshold:2", horizon=5.0,
    ...            seed=3)
    >>> tr.times.size == tr.codes.size == tr.decisions.size == tr.idle.size
    True
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
        """Time-average idle count over (T0, T], (T - T0)^{-1} integral_{T0}^{T} I(t) dt.

        The integral of the piecewise-constant trajectory: the ``mean_idle`` of
        :func:`simulate` for one replication with ``warmup=T0``.

        Parameters
        ----------
        warmup : float
            T0, with 0 <= T0 < T.

        Returns
        -------
        float

        Raises
        ------
        ValueError
            If ``warmup`` is not a number in [0, T).

        Examples
        --------
        >>> tr = Trace(np.array([1.0, 3.0]), np.array([-1, 0], dtype=np.int32),
        ...            np.array([1, -1], dtype=np.int8), np.array([1, 2], dtype=np.int32),
        ...            servers=2, horizon=4.0, policy="threshold:0", info="clock")
        >>> tr.mean_idle(), tr.mean_idle(warmup=2.0)  # (2 + 2 + 2) / 4 and (1 + 2) / 2
        (1.5, 1.5)
        """
        warmup = check_warmup(warmup, self.horizon)
        first = int(np.searchsorted(self.times, warmup, side="right"))  # first t_i > T0
        level = self.idle[first - 1] if first > 0 else self.servers  # I(T0)
        edges = np.append(self.times[first:], self.horizon)
        area = level * (edges[0] - warmup) + np.dot(self.idle[first:], np.diff(edges))
        return float(area / (self.horizon - warmup))


def _counts(run: dict, name: str) -> tuple[int, ...]:
    """A replication's per-class counts: the n-class kernel's list ``name``, or the
    two-class kernel's ``name_h`` and ``name_l``."""
    return tuple(run[name]) if name in run else (run[f"{name}_h"], run[f"{name}_l"])


def summarise(
    net: LossNetwork,
    policy: str,
    info: str,
    horizon: float,
    warmup: float,
    runs: list[dict],
    lookahead_stats: bool = True,
) -> SimulationResult:
    """The :class:`SimulationResult` of the replications ``runs`` of ``policy``.

    Parameters
    ----------
    net : LossNetwork
    policy, info : str
        The normalised policy string and the information model (recorded as given).
    horizon, warmup : float
        T and T0 of every replication.
    runs : list of dict
        One dict per replication, as the C runs return them: the per-class counts over
        (T0, T] (``admitted`` and ``rejected`` lists from the n-class entry point,
        ``admitted_h``, ``admitted_l``, ``rejected_h``, ``rejected_l`` from the
        two-class one), ``events``, ``idle_area`` (the integral of the idle count over
        (T0, T]) and the look-ahead counters (``arrivals_scored`` or
        ``l_arrivals_scored``, ``lookahead_events``, ``lookahead_time``; zero for other
        policies).
    lookahead_stats : bool, default True
        Whether the runs recorded the look-ahead statistics (False: the means are NaN).

    Returns
    -------
    SimulationResult
        Student t intervals over the replications (NaN half-widths for one).

    Raises
    ------
    ValueError
        If ``runs`` is empty.

    Examples
    --------
    >>> net = LossNetwork(2, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> run = dict(admitted_h=3, admitted_l=1, rejected_h=0, rejected_l=2, events=9,
    ...            idle_area=4.0, l_arrivals_scored=0, lookahead_events=0, lookahead_time=0.0)
    >>> res = summarise(net, "threshold:0", "clock", 4.0, 0.0, [run, run])
    >>> res.reward_rate.mean, res.mean_idle.mean, res.admitted  # (2 * 3 + 1) / 4
    (1.75, 1.0, (6, 2))
    """
    if not isinstance(runs, list) or not runs:
        raise ValueError(f"runs must be a non-empty list of replication dicts, got {runs!r}")
    window = horizon - warmup
    rewards = as_network(net).rewards
    admitted = [_counts(d, "admitted") for d in runs]
    rates = np.array([sum(r * a for r, a in zip(rewards, counts, strict=True)) / window
                      for counts in admitted])  # fmt: skip
    idle = np.array([d["idle_area"] / window for d in runs])
    scored = sum(d.get("arrivals_scored", d.get("l_arrivals_scored", 0)) for d in runs)
    lookahead = (lookahead_stats and policy.partition(":")[0] in LOOKAHEAD_POLICIES
                 and scored > 0)  # fmt: skip
    return SimulationResult(
        policy=policy,
        info=info,
        servers=net.servers,
        horizon=horizon,
        warmup=warmup,
        reps=len(runs),
        reward_rate=Estimate.of(rates),
        mean_idle=Estimate.of(idle),
        admitted=tuple(int(x) for x in np.sum(admitted, axis=0)),
        rejected=tuple(int(x) for x in np.sum([_counts(d, "rejected") for d in runs], axis=0)),
        events=sum(d["events"] for d in runs),
        mean_lookahead=sum(d["lookahead_events"] for d in runs) / scored if lookahead else math.nan,
        mean_lookahead_time=(
            sum(d["lookahead_time"] for d in runs) / scored if lookahead else math.nan
        ),
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
    lookahead_stats: bool = True,
) -> SimulationResult:
    """Simulate one policy in ``reps`` independent replications.

    Parameters
    ----------
    net : LossNetwork
        The model (validated on construction: overloaded, rewards decreasing).
    policy : str
        ``"threshold:K"`` (two classes: reserve 0 <= K <= N), ``"threshold:k_1,...,k_n"``
        (n classes: nested reserves), ``"pfi"``, ``"sss:W"`` (W > 0) or ``"offline"``
        (see the module docstring).
    info : str
        Information model, ``"clock"`` or ``"job"`` (job: a two-class network and
        ``threshold:K`` only; its offline optimum is
        :func:`qtheory.lossnet.offline_job.simulate_offline_job`).
    horizon, warmup : float
        T > 0 and 0 <= T0 < T; statistics are recorded in (T0, T].
    reps : int
        Independent replications, >= 1.  With one, the half-widths are NaN (no interval
        from one value); :func:`compare` and the command line need 2.
    seed : None, int >= 0, sequence of them, or numpy.random.SeedSequence
        Root seed: replication i draws from ``default_rng(replication_seed(seed, i))``
        (:func:`qtheory.core.stats.replication_seed`; replay it with :func:`clock_path`,
        :func:`job_path` or :func:`trace`).  The same seed gives the same paths under
        every policy; a ``SeedSequence`` is not advanced.  Generators are refused.
    workers : int
        Threads running replications in parallel (the C code releases the GIL).
    lookahead_stats : bool, default True
        Record the look-ahead statistics of ``pfi`` and ``sss:W`` (``mean_lookahead``,
        ``mean_lookahead_time``).  False leaves them NaN and changes no decision; PFI,
        whose statistics follow every undecided arrival's hypothetical walk to its end,
        then runs about 1.7 times as fast, and two-class SSS about 1.5 times where it
        decides by thresholds instead of scanning its windows (windows of at most 1024
        expected events, few of them holding a departure that might not end a
        service: docs/loss-network.md).

    Returns
    -------
    SimulationResult

    Raises
    ------
    ValueError
        For invalid arguments (naming the parameter), and before anything runs when
        the expected events, memory or offline-DP cells exceed :mod:`qtheory.core.limits`
        (see :func:`run_cost`).
    TypeError
        If ``lookahead_stats`` is not True or False.

    References
    ----------
    See the module's References:

    - Bray (2026);
    - Xie, Gurvich and Küçükyavuz (2025).

    Examples
    --------
    Trunk reservation against its exact long-run reward (a birth-death chain):

    >>> net = LossNetwork(50, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> res = simulate(net, "threshold:3", horizon=200.0, warmup=10.0, reps=4, seed=1)
    >>> from qtheory.lossnet.fluid import fluid_bound
    >>> from qtheory.lossnet.online import threshold_table
    >>> exact = fluid_bound(net) - threshold_table(net).regret[3]
    >>> bool(abs(res.reward_rate.mean - exact) < 4 * res.reward_rate.halfwidth)
    True

    Nested trunk reservation with three classes:

    >>> three = LossNetwork(50, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
    >>> res = simulate(three, "threshold:0,2,9", horizon=50.0, warmup=5.0, reps=3, seed=2)
    >>> res.admitted[0] > 0 and res.rejected[2] > res.admitted[2]
    True
    """
    (result,) = simulate_policies(net, [policy], info=info, horizon=horizon, warmup=warmup,
                                  reps=reps, seed=seed, workers=workers,
                                  lookahead_stats=lookahead_stats).values()  # fmt: skip
    return result


def simulate_policies(
    net: LossNetwork,
    policies: Sequence[str],
    *,
    info: str = "clock",
    horizon: float,
    warmup: float = 0.0,
    reps: int = 1,
    seed: object = None,
    workers: int = 1,
    lookahead_stats: bool = True,
) -> dict[str, SimulationResult]:
    """Run several policies on the same ``reps`` replications (common random numbers):
    replication i of every policy is replication i of ``simulate(net, policy, ...,
    seed=seed)``, the same numbers, but in the clock model its path is drawn once and
    replayed to each policy instead of drawn again per policy.

    Parameters
    ----------
    net : LossNetwork
    policies : list or tuple of str
        Distinct policies (after normalisation), as in :func:`simulate`.
    info, horizon, warmup, reps, seed, workers, lookahead_stats
        As in :func:`simulate`.

    Returns
    -------
    dict of str to SimulationResult
        By normalised policy string, in the order of ``policies``.

    Raises
    ------
    ValueError
        For invalid arguments, and when a policy (or the path the clock-model policies
        share) exceeds the limits of :mod:`qtheory.core.limits` (each policy is checked
        as in :func:`simulate`).
    TypeError
        If ``lookahead_stats`` is not True or False.

    Examples
    --------
    >>> net = LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> both = simulate_policies(net, ["offline", "pfi"], horizon=50.0, reps=2, seed=2)
    >>> alone = simulate(net, "pfi", horizon=50.0, reps=2, seed=2)
    >>> bool(np.array_equal(both["pfi"].reward_rates, alone.reward_rates))
    True
    """
    horizon, warmup = check_run(net, info, horizon, warmup)
    reps = positive_int("reps", reps)
    workers = positive_int("workers", workers)
    if not isinstance(lookahead_stats, bool):
        raise TypeError(f"lookahead_stats must be True or False, got {lookahead_stats!r}")
    if not isinstance(policies, list | tuple) or len(policies) == 0:
        raise ValueError(f"policies must be a non-empty list of policy strings, got {policies!r}")
    parsed = [parse_policy(p, net) for p in policies]
    names = [normalised_policy(name, param) for name, param in parsed]
    if len(set(names)) != len(names):
        raise ValueError(f"policies must be distinct, got {policies!r}")
    for (name, _), policy in zip(parsed, policies, strict=True):
        check_job_policy(name, policy, info)
    for name, param in parsed:
        require_policy_run(net, name, param, info, horizon, reps, workers)
    # the shared paths, one per running replication, only where they are small: a run
    # of threshold or look-ahead policies alone needs only its ring of events
    share = info == "clock" and len(parsed) > 1
    if share:
        paths = min(reps, workers) * path_cost(net, info="clock", horizon=horizon).memory
        share = paths <= SHARED_PATH_BYTES
    seeds = replication_seeds(seed, reps)

    def one(child: np.random.SeedSequence) -> list[dict]:
        return run_policies(net, parsed, info, horizon, warmup, child, share, lookahead_stats)

    if workers == 1 or reps == 1:
        runs = [one(child) for child in seeds]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            runs = list(pool.map(one, seeds))
    return {
        key: summarise(net, key, info, horizon, warmup, [run[k] for run in runs], lookahead_stats)
        for k, key in enumerate(names)
    }


def compare(
    net: LossNetwork,
    policies: Sequence[str],
    *,
    info: str = "clock",
    horizon: float,
    warmup: float = 0.0,
    reps: int = 2,
    seed: object = None,
    workers: int = 1,
) -> Comparison:
    """Run several policies on the same ``reps`` replications (common random numbers,
    :func:`simulate_policies`) and estimate every paired difference R[a] - R[b] with a
    95% Student t interval.

    Parameters
    ----------
    net : LossNetwork
    policies : list or tuple of str
        Distinct policies (after normalisation), as in :func:`simulate`.
    info, horizon, warmup, seed, workers
        As in :func:`simulate`.
    reps : int
        Replications, >= 2 (a paired interval needs two).

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        For invalid arguments, and when the policies together exceed the limits of
        :mod:`qtheory.core.limits` (each is checked as in :func:`simulate`).

    Examples
    --------
    >>> net = LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> cmp = compare(net, ["offline", "pfi"], horizon=50.0, reps=3, seed=2)
    >>> cmp.difference("offline", "pfi").min_difference >= 0  # path by path
    True
    """
    reps = positive_int("reps", reps)
    if reps < 2:
        raise ValueError(f"reps must be >= 2 for paired confidence intervals, got {reps}")
    results = simulate_policies(net, policies, info=info, horizon=horizon, warmup=warmup,
                                reps=reps, seed=seed, workers=workers)  # fmt: skip
    differences = [paired_difference(results[a], results[b]) for a, b in combinations(results, 2)]
    return Comparison(results, differences)


# ------------------------------------------------------------------ paths and traces


def clock_path(net: LossNetwork, horizon: float, seed: object = None) -> ClockPath:
    """The clock-model future of (0, horizon], drawn from ``default_rng(seed)`` exactly
    as :func:`simulate` draws it.

    Parameters
    ----------
    net : LossNetwork
    horizon : float
        T > 0.
    seed : None, int >= 0, sequence of them, or numpy.random.SeedSequence
        The seed of this path (not a root): pass
        ``qtheory.core.stats.replication_seed(s, i)`` to replay replication i of
        ``simulate(..., seed=s)``.

    Returns
    -------
    ClockPath
        Event times and codes (-1 H, -2 L, else the departure slot).

    Raises
    ------
    ValueError
        For invalid arguments, or when the path's memory exceeds the "memory" limit
        (:func:`path_cost`).

    Examples
    --------
    >>> path = clock_path(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), 1.0, seed=0)
    >>> bool(np.all(np.diff(path.times) > 0)), int(path.codes.max()) < 10
    (True, True)
    """
    return ClockPath(*_path(net, "clock", horizon, seed))


def job_path(net: LossNetwork, horizon: float, seed: object = None) -> JobPath:
    """The job-model arrivals of (0, horizon] (times, class, service time of every job,
    admitted or not), drawn from ``default_rng(seed)`` exactly as :func:`simulate` draws
    them; the input of the offline interval-selection solver.

    Parameters
    ----------
    net : LossNetwork
    horizon : float
        T > 0.
    seed : None, int >= 0, sequence of them, or numpy.random.SeedSequence
        The seed of this path, as in :func:`clock_path`.

    Returns
    -------
    JobPath

    Raises
    ------
    ValueError
        For invalid arguments, or when the path's memory exceeds the "memory" limit.

    Examples
    --------
    >>> path = job_path(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), 1.0, seed=0)
    >>> path.arrival_times.size == path.is_l.size == path.service_times.size
    True
    """
    times, is_l, service = _path(net, "job", horizon, seed)
    return JobPath(times, is_l.astype(bool), service)


def _path(net: LossNetwork, info: str, horizon: float, seed: object) -> tuple:
    horizon, _ = check_run(two_classes(net), info, horizon, 0.0)  # the path has H and L
    require_path(net, info=info, horizon=horizon)
    bit_generator = np.random.PCG64(root_seed(seed))
    with bit_generator.lock:
        return _core.lossnet_path(
            bit_generator, info, net.servers, net.lambda_h, net.lambda_l, net.mu, horizon
        )


def trace(
    net: LossNetwork,
    policy: str,
    *,
    info: str = "clock",
    horizon: float,
    seed: object = None,
) -> Trace:
    """One replication of ``policy`` over (0, horizon], event by event, with the idle
    count after every event.

    The run draws from ``default_rng(seed)`` exactly like :func:`clock_path` /
    :func:`job_path`.  Policies and information models as in :func:`simulate`, except
    that the job model traces ``threshold:K`` only (its offline optimum is a
    min-cost-flow LP solved in Python, without an event trace).  For ``offline`` the
    trace follows the optimal path of the whole run (0, T].

    Parameters
    ----------
    net : LossNetwork
    policy : str
        As in :func:`simulate` (``offline``: clock model).
    info : str
        ``"clock"`` or ``"job"``.
    horizon : float
        T > 0; the trace (about 68 bytes per event at the peak) must fit the "memory"
        limit.
    seed : None, int >= 0, sequence of them, or numpy.random.SeedSequence
        The seed of this run (not a root): ``qtheory.core.stats.replication_seed(s, i)``
        replays replication i of ``simulate(..., seed=s)``.

    Returns
    -------
    Trace

    Raises
    ------
    ValueError
        For invalid arguments, or when the run exceeds the limits of
        :mod:`qtheory.core.limits` (:func:`run_cost` with ``trace=True``).

    References
    ----------
    See the module's References: Asmussen (2003): renewal-reward analyses of such
    trajectories.

    Examples
    --------
    >>> from qtheory.core.stats import replication_seed
    >>> net = LossNetwork(50, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> res = simulate(net, "threshold:3", horizon=100.0, warmup=10.0, seed=7)
    >>> tr = trace(net, "threshold:3", horizon=100.0, seed=replication_seed(7, 0))
    >>> tr.times.size == res.events
    True
    >>> math.isclose(tr.mean_idle(10.0), res.mean_idle.mean, rel_tol=1e-9)
    True
    """
    horizon, _ = check_run(net, info, horizon, 0.0)
    name, param = parse_policy(policy, net)
    if info == "job" and name != "threshold":
        raise ValueError(
            f"trace: policy {policy!r} has no event trace in the job model (threshold:K only; "
            "the job-model offline optimum is a min-cost-flow LP solved in Python)"
        )
    require_policy_run(net, name, param, info, horizon, trace=True)
    out = run_one(net, name, param, info, horizon, 0.0, root_seed(seed), trace=True)
    return Trace(
        times=out["trace_t"],
        codes=out["trace_code"],
        decisions=out["trace_decision"],
        idle=np.subtract(net.servers, out["trace_busy"], dtype=np.int32),
        servers=net.servers,
        horizon=horizon,
        policy=normalised_policy(name, param),
        info=info,
    )
