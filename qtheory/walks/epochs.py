r"""Epochs of the idle-server process and the renewal-reward theorem.

Source: J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
overloaded loss network" (arXiv:2601.14538): the proofs of Theorems 1 and 2 cut time into
epochs between successive visits of the idle count to 1, bound the expected idleness and
the expected rejections per epoch, and turn them into long-run rates by the
renewal-reward theorem.

An *epoch* here is the time between two successive entrances of the idle count
:math:`I` into the level ``reset`` (1 by default).  Per epoch we record its length
:math:`L`, its idle area :math:`A = \int I\,dt`, the H jobs lost and admitted and the L
jobs rejected and admitted.  If the epochs are i.i.d. (any admission policy that decides
on the current idle count only, such as trunk reservation: the entrances into a level are
regeneration times of a positive recurrent Markov chain), the renewal-reward theorem gives
the long-run rates as ratios of per-epoch means,

.. math:: \bar I = \frac{E[A]}{E[L]}, \qquad
          \text{H-loss rate} = \frac{E[\text{H lost}]}{E[L]}, \qquad
          R = \frac{r_H E[\text{H admitted}] + r_L E[\text{L admitted}]}{E[L]},

and the cost against the fluid bound is :math:`R_\text{fluid} - R`.  For a
non-anticipating policy that cost also equals
:math:`r_L\mu\bar I + (r_H - r_L)\cdot\text{H-loss rate}`
(:data:`qtheory.lossnet.online.REGRET_IDENTITY`: throughput is :math:`\mu` times the
mean busy count).  A policy that looks ahead (PFI, SSS, the offline optimum) in the
clock model can time admissions against the departure marks, so for it the identity is
only checked, not assumed; :func:`renewal_reward` reports both.

:func:`markov_epoch_means` computes the per-epoch means exactly (first passage on the
CTMC, :func:`qtheory.exact.ctmc.accumulated_reward`: an independent route from the
stationary distribution); :func:`epochs_from_trace` cuts a simulated trajectory
(:func:`qtheory.sim.lossnet.trace`) into epochs and :func:`renewal_reward` turns them into
rates with regenerative confidence intervals (:class:`qtheory.core.stats.Estimate`).

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026); docs/loss-network.md.
.. [2] S. Asmussen, Applied Probability and Queues, 2nd ed. (Springer 2003), Ch. VI
   (regenerative processes, the renewal-reward theorem) and Ch. IV.4 (regenerative
   simulation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sparse

from qtheory.core import limits, validation
from qtheory.core.stats import Estimate
from qtheory.exact.ctmc import accumulated_reward, generator
from qtheory.lossnet.fluid import fluid_bound
from qtheory.lossnet.online import REGRET_IDENTITY
from qtheory.model.lossnet import LossNetwork, two_classes

__all__ = [
    "EpochMeans",
    "Epochs",
    "RenewalReward",
    "epochs_from_trace",
    "markov_epoch_means",
    "renewal_reward",
    "trunk_reservation_generator",
]

_BYTES_PER_LEVEL = 600  # generator, LU factors of the first-passage solves, rewards
_TRACE_FIELDS = ("servers", "horizon", "times", "codes", "decisions", "idle")


@dataclass(frozen=True)
class EpochMeans:
    """Expected totals over one epoch (exact), and the long-run rates they give.

    Attributes
    ----------
    length : float
        E[L], the mean epoch length.
    idle_area : float
        E[A], the mean of the integral of the idle count over an epoch.
    lost_h, rejected_l, admitted_h, admitted_l : float
        Mean numbers of H jobs lost, L jobs rejected, H and L jobs admitted per epoch.

    References
    ----------
    See the module's References: Asmussen (2003), Ch. VI (the renewal-reward theorem).

    Examples
    --------
    >>> m = EpochMeans(length=2.0, idle_area=3.0, lost_h=0.1, rejected_l=4.0,
    ...                admitted_h=5.0, admitted_l=6.0)
    >>> round(m.mean_idle, 6), round(m.loss_rate_h, 6)
    (1.5, 0.05)
    """

    length: float
    idle_area: float
    lost_h: float
    rejected_l: float
    admitted_h: float
    admitted_l: float

    @property
    def mean_idle(self) -> float:
        """Long-run mean idle count E[A] / E[L] (renewal reward).

        Returns
        -------
        float
            The time-average number of idle servers.

        References
        ----------
        See the module's References: Asmussen (2003), Ch. VI (the renewal-reward theorem).

        Examples
        --------
        >>> m = EpochMeans(length=2.0, idle_area=3.0, lost_h=0.1, rejected_l=4.0,
        ...                admitted_h=5.0, admitted_l=6.0)
        >>> round(m.mean_idle, 6)  # 3 / 2
        1.5
        """
        return self.idle_area / self.length

    @property
    def loss_rate_h(self) -> float:
        """Long-run rate of H jobs lost.

        Returns
        -------
        float
            E[H lost per epoch] / E[L], H jobs lost per unit time.

        References
        ----------
        See the module's References: Asmussen (2003), Ch. VI (the renewal-reward theorem).

        Examples
        --------
        >>> m = EpochMeans(length=2.0, idle_area=3.0, lost_h=0.1, rejected_l=4.0,
        ...                admitted_h=5.0, admitted_l=6.0)
        >>> round(m.loss_rate_h, 6)  # 0.1 / 2
        0.05
        """
        return self.lost_h / self.length

    @property
    def rejection_rate_l(self) -> float:
        """Long-run rate of L jobs rejected.

        Returns
        -------
        float
            E[L rejected per epoch] / E[L], L jobs rejected per unit time.

        References
        ----------
        See the module's References: Asmussen (2003), Ch. VI (the renewal-reward theorem).

        Examples
        --------
        >>> m = EpochMeans(length=2.0, idle_area=3.0, lost_h=0.1, rejected_l=4.0,
        ...                admitted_h=5.0, admitted_l=6.0)
        >>> round(m.rejection_rate_l, 6)  # 4 / 2
        2.0
        """
        return self.rejected_l / self.length

    def reward_rate(self, net: LossNetwork) -> float:
        """Long-run reward rate (r_H E[H admitted] + r_L E[L admitted]) / E[L] of ``net``'s
        rewards.

        Parameters
        ----------
        net : LossNetwork
            The network whose rewards ``r_h`` and ``r_l`` are used (its rates do not enter
            here: the means are taken as given).

        Returns
        -------
        float
            Reward per unit time.

        Raises
        ------
        TypeError
            If ``net`` is not a :class:`~qtheory.model.lossnet.LossNetwork`.

        References
        ----------
        See the module's References: Asmussen (2003), Ch. VI (the renewal-reward theorem).

        Examples
        --------
        >>> m = EpochMeans(length=2.0, idle_area=3.0, lost_h=0.1, rejected_l=4.0,
        ...                admitted_h=5.0, admitted_l=6.0)
        >>> net = LossNetwork(4, 0.6, 0.8, 1.0, 2.0, 1.0)  # r_H = 2, r_L = 1
        >>> round(m.reward_rate(net), 6)  # (2 * 5 + 1 * 6) / 2
        8.0
        """
        _network(net)
        return (net.r_h * self.admitted_h + net.r_l * self.admitted_l) / self.length


def trunk_reservation_generator(net: LossNetwork, reserve: int) -> sparse.csr_matrix:
    """Generator of the idle count 0..N under trunk reservation with ``reserve`` k.

    Up (a service ends) at rate mu (N - i); down at rate lambda_H N (i >= 1) plus
    lambda_L N when i > k (an L is admitted only while more than k servers are idle).

    Parameters
    ----------
    net : LossNetwork
        The network.
    reserve : int
        The trunk reserve k, 0..N.

    Returns
    -------
    scipy.sparse.csr_matrix, shape (N + 1, N + 1)
        The generator (:func:`qtheory.exact.ctmc.generator`), indexed by the idle count.

    Raises
    ------
    TypeError
        If ``net`` is not a LossNetwork.
    ValueError
        If ``reserve`` is not an integer in 0..N, or N + 1 levels exceed the memory
        limit (:mod:`qtheory.core.limits`).

    References
    ----------
    See the module's References: Bray (2026); docs/loss-network.md.

    Examples
    --------
    >>> Q = trunk_reservation_generator(LossNetwork(2, 0.6, 0.8, 1.0, 2.0, 1.0), 1)
    >>> Q.toarray().round(6)
    array([[-2. ,  2. ,  0. ],
           [ 1.2, -2.2,  1. ],
           [ 0. ,  2.8, -2.8]])
    """
    _require_levels(_network(net))
    reserve = validation.integer_in("reserve", reserve, 0, net.servers, bounds="0..servers")
    n, levels = net.servers, np.arange(net.servers + 1, dtype=float)
    up = net.mu * (n - levels)
    down = net.arrival_rate_h * (levels >= 1) + net.arrival_rate_l * (levels > reserve)
    return generator(sparse.diags([up[:-1], down[1:]], [1, -1], format="csr"))


def markov_epoch_means(net: LossNetwork, reserve: int, *, reset: int = 1) -> EpochMeans:
    r"""Exact per-epoch means under trunk reservation, by first passage.

    From an entrance into level :math:`r` (``reset``) the chain stays an
    :math:`\text{Exp}(q_r)` time, then moves to :math:`r \pm 1` and accumulates reward
    until it re-enters :math:`r`:

    .. math:: E[F] = \frac{f_r}{q_r} + \frac{u_r}{q_r} a_f(r+1) + \frac{d_r}{q_r} a_f(r-1),

    where :math:`a_f(j) = E_j[\int_0^{\tau_r} f(I_t)\,dt]`
    (:func:`qtheory.exact.ctmc.accumulated_reward`) and :math:`f` is 1 (length),
    :math:`i` (idle area), :math:`\lambda_H N 1\{i = 0\}` (H lost), and so on.

    Parameters
    ----------
    net : LossNetwork
        The network.
    reserve : int
        The trunk reserve k, 0..N.
    reset : int, optional
        Keyword only: the level whose entrances start epochs, 0..N.

    Returns
    -------
    EpochMeans
        The exact per-epoch means.

    Raises
    ------
    TypeError
        If ``net`` is not a LossNetwork.
    ValueError
        If ``reserve`` or ``reset`` is not an integer in 0..N, or the chain exceeds the
        memory limit.

    References
    ----------
    See the module's References:

    - Asmussen (2003), Ch. VI;
    - Bray (2026); docs/loss-network.md.

    Examples
    --------
    The renewal-reward mean idle count equals the stationary mean (Kac), another route:

    >>> from qtheory.exact.ctmc import stationary
    >>> net = LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> m = markov_epoch_means(net, reserve=3)
    >>> pi = stationary(trunk_reservation_generator(net, 3))
    >>> bool(abs(m.mean_idle - pi @ np.arange(21)) < 1e-12)
    True
    """
    Q = trunk_reservation_generator(net, reserve)
    reset = validation.integer_in("reset", reset, 0, net.servers, bounds="0..servers")
    levels = np.arange(net.servers + 1, dtype=float)
    rewards = {
        "length": np.ones_like(levels),
        "idle_area": levels,
        "lost_h": net.arrival_rate_h * (levels == 0),
        "rejected_l": net.arrival_rate_l * (levels <= reserve),
        "admitted_h": net.arrival_rate_h * (levels >= 1),
        "admitted_l": net.arrival_rate_l * (levels > reserve),
    }
    up = Q[reset, reset + 1] if reset < net.servers else 0.0
    down = Q[reset, reset - 1] if reset > 0 else 0.0
    leave = up + down
    means = {}
    for name, f in rewards.items():
        a = accumulated_reward(Q, reset, f)
        above = a[reset + 1] if reset < net.servers else 0.0
        below = a[reset - 1] if reset > 0 else 0.0
        means[name] = float((f[reset] + up * above + down * below) / leave)
    return EpochMeans(**means)


@dataclass(frozen=True)
class Epochs:
    """Complete epochs cut from one simulated trajectory (arrays, one entry per epoch).

    Attributes
    ----------
    start : numpy.ndarray
        Entrance times into the reset level.
    length, idle_area, lost_h, rejected_l, admitted_h, admitted_l : numpy.ndarray
        Totals over each epoch, as in :class:`EpochMeans`.

    Examples
    --------
    >>> ep = Epochs(*(np.array([1.0, 2.0]) for _ in range(7)))
    >>> ep.count
    2
    """

    start: np.ndarray
    length: np.ndarray
    idle_area: np.ndarray
    lost_h: np.ndarray
    rejected_l: np.ndarray
    admitted_h: np.ndarray
    admitted_l: np.ndarray

    @property
    def count(self) -> int:
        """The number of complete epochs.

        Returns
        -------
        int
            The length of the per-epoch arrays.

        Examples
        --------
        >>> Epochs(*(np.zeros(3) for _ in range(7))).count
        3
        """
        return int(np.size(self.length))


def epochs_from_trace(trace, *, reset: int = 1, warmup: float = 0.0) -> Epochs:
    """Cut a simulated trajectory into epochs between entrances into ``reset``.

    Parameters
    ----------
    trace : qtheory.sim.lossnet.Trace
        One run's events (times, codes: -1 H, -2 L, else a departure; decisions: 1
        admit, 0 reject) and the idle count after each event; the run starts with all
        N servers idle at time 0.  Any object with the attributes ``servers``,
        ``horizon``, ``times``, ``codes``, ``decisions`` and ``idle`` will do.
    reset : int, optional
        Keyword only: the level whose entrances start epochs, 0..N.
    warmup : float, optional
        Keyword only: only epochs starting at or after ``warmup`` are kept; the last,
        unfinished epoch is dropped.

    Returns
    -------
    Epochs
        The complete epochs (possibly none).

    Raises
    ------
    TypeError
        If ``trace`` lacks one of the attributes above.
    ValueError
        If ``reset`` is not an integer in 0..N, ``warmup`` is negative, or the arrays
        have different lengths.

    References
    ----------
    See the module's References: Asmussen (2003), Ch. VI.

    Examples
    --------
    >>> from qtheory.sim.lossnet import trace
    >>> net = LossNetwork(30, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> ep = epochs_from_trace(trace(net, "threshold:2", horizon=20.0, seed=1), warmup=2.0)
    >>> ep.count > 100, bool(np.all(ep.length > 0))
    (True, True)
    """
    servers, horizon, times, codes, decisions, idle = _trace_arrays(trace)
    reset = validation.integer_in("reset", reset, 0, servers, bounds="0..servers")
    warmup = validation.nonnegative("warmup", warmup)
    # An entrance: idle == reset after the event and not before it (N before the first).
    at = np.flatnonzero(idle == reset)
    before = np.where(at > 0, idle[at - 1], servers)
    entrances = at[before != reset]
    entrances = entrances[times[entrances] >= warmup]
    # Event k holds idle[k] on [t_k, t_{k+1}): the areas of an epoch come from the events
    # with indices in [e_j, e_{j+1}), its arrivals from (e_j, e_{j+1}] (the arrival that
    # re-enters the reset level closes the epoch it belongs to).  The areas are
    # differences of the running sum of idle x holding time over all events (in place,
    # one array of the trace's length); the arrivals are counted at the entrances only.
    area = np.diff(times, append=horizon)
    area *= idle
    np.cumsum(area, out=area)
    totals = {"idle_area": np.diff(np.where(entrances > 0, area[entrances - 1], 0.0))}
    arrivals = {
        "lost_h": (codes == -1) & (decisions == 0),
        "rejected_l": (codes == -2) & (decisions == 0),
        "admitted_h": (codes == -1) & (decisions == 1),
        "admitted_l": (codes == -2) & (decisions == 1),
    }
    for name, flags in arrivals.items():
        before_next = np.searchsorted(np.flatnonzero(flags), entrances + 1)  # indices <= e_j
        totals[name] = np.diff(before_next).astype(float)
    starts = times[entrances]
    return Epochs(start=starts[:-1], length=np.diff(starts), **totals)


def _trace_arrays(trace: object) -> tuple:
    """(servers, horizon, times, codes, decisions, idle) of a trace, validated."""
    missing = [name for name in _TRACE_FIELDS if not hasattr(trace, name)]
    if missing:
        raise TypeError(
            f"trace must be a qtheory.sim.lossnet.Trace (with {', '.join(_TRACE_FIELDS)}), "
            f"got {type(trace).__name__} without {', '.join(missing)}"
        )
    servers = validation.positive_int("trace.servers", trace.servers)
    horizon = validation.nonnegative("trace.horizon", trace.horizon)
    arrays = [np.asarray(getattr(trace, name)) for name in _TRACE_FIELDS[2:]]
    sizes = {a.size for a in arrays}
    if any(a.ndim != 1 for a in arrays) or len(sizes) != 1:
        raise ValueError("trace.times, codes, decisions and idle must be 1-D of one length")
    times, codes, decisions, idle = arrays
    return servers, horizon, times.astype(float, copy=False), codes, decisions, idle


@dataclass(frozen=True)
class RenewalReward:
    r"""Long-run rates from simulated epochs, each an :class:`~qtheory.core.stats.Estimate`.

    Each rate is a ratio of per-epoch sums; its 95% interval is the delta-method
    (regenerative) interval :math:`z\,s_Z/(ar L\sqrt n)` with
    :math:`Z_k = F_k - \hat r L_k`, method ``"normal"``: the standard error of a ratio
    estimator comes from the central limit theorem for the i.i.d. pairs
    :math:`(F_k, L_k)`, not from replications, so there is no t distribution to use
    (and the epoch counts are in the hundreds or more).  The epochs of a look-ahead
    policy are not exactly i.i.d., so for PFI and SSS the intervals are approximate.

    Attributes
    ----------
    epochs : int
        Number of epochs.
    mean_length : float
        Mean epoch length.
    mean_idle, loss_rate_h, rejection_rate_l, reward_rate : Estimate
        Long-run mean idle count, H-loss rate, L-rejection rate and reward rate.
    cost : Estimate
        R_fluid − reward rate.  Its interval is wide at large N (the reward counts every
        arrival).
    identity_cost : Estimate
        r_L mu (mean idle) + (r_H − r_L)(H-loss rate): the same cost for a
        non-anticipating policy, with a much narrower interval.
    timing_gain : Estimate
        Admission rate − mu (N − mean idle): 0 in expectation for a non-anticipating
        policy (throughput = mu E[busy]); a look-ahead policy in the clock model can make
        it positive by admitting just before departure marks that then end a service.
        ``cost = identity_cost − r_L timing_gain`` up to the zero-mean noise
        (r_H − r_L)(λ_H N − empirical H arrival rate) of the arrival counts.

    References
    ----------
    See the module's References: Asmussen (2003), Ch. IV.4 (regenerative simulation, the
    ratio estimator and its CLT).

    Examples
    --------
    >>> ep = Epochs(*(np.array([1.0, 2.0, 3.0]) for _ in range(7)))
    >>> rr = renewal_reward(ep, LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> rr.mean_idle.mean, rr.mean_idle.method
    (1.0, 'normal')
    """

    epochs: int
    mean_length: float
    mean_idle: Estimate
    loss_rate_h: Estimate
    rejection_rate_l: Estimate
    reward_rate: Estimate
    cost: Estimate
    identity_cost: Estimate
    timing_gain: Estimate


def _ratio(numerator: np.ndarray, length: np.ndarray) -> Estimate:
    """The ratio estimator sum F / sum L with its regenerative (delta-method) interval."""
    rate = numerator.sum() / length.sum()
    residual = numerator - rate * length
    stderr = residual.std(ddof=1) / (length.mean() * math.sqrt(length.size))
    return Estimate.from_stderr(float(rate), float(stderr), int(length.size), method="normal")


def renewal_reward(epochs: Epochs, net: LossNetwork) -> RenewalReward:
    """Long-run rates of one policy from its epochs (see :class:`RenewalReward`).

    Parameters
    ----------
    epochs : Epochs
        At least 2 complete epochs (:func:`epochs_from_trace`).
    net : LossNetwork
        The network the epochs were simulated on (its rates and rewards enter).

    Returns
    -------
    RenewalReward
        The rates with their 95% regenerative intervals.

    Raises
    ------
    TypeError
        If ``epochs`` is not an Epochs or ``net`` not a LossNetwork.
    ValueError
        If there are fewer than 2 epochs, or an epoch has a non-finite total.

    References
    ----------
    See the module's References:

    - Asmussen (2003), Ch. IV.4 and VI;
    - Bray (2026); docs/loss-network.md.

    Examples
    --------
    >>> from qtheory.sim.lossnet import trace
    >>> net = LossNetwork(30, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> ep = epochs_from_trace(trace(net, "threshold:2", horizon=200.0, seed=3), warmup=5.0)
    >>> rr = renewal_reward(ep, net)
    >>> exact = markov_epoch_means(net, reserve=2).mean_idle
    >>> rr.mean_idle.method, bool(abs(rr.mean_idle.mean - exact) < 2 * rr.mean_idle.halfwidth)
    ('normal', True)
    """
    if not isinstance(epochs, Epochs):
        raise TypeError(
            f"epochs must be an Epochs (epochs_from_trace), got {type(epochs).__name__}"
        )
    _network(net)
    if epochs.count < 2:
        raise ValueError(f"epochs must hold at least 2 complete epochs, got {epochs.count}")
    names = ("length", "idle_area", "lost_h", "rejected_l", "admitted_h", "admitted_l")
    columns = [getattr(epochs, name) for name in names]
    if not all(np.all(np.isfinite(np.asarray(c, dtype=float))) for c in columns):
        raise ValueError("epochs must hold finite totals")
    if not np.all(np.asarray(epochs.length) > 0):
        raise ValueError("epochs must have lengths > 0")
    reward = net.r_h * epochs.admitted_h + net.r_l * epochs.admitted_l
    reward_rate = _ratio(reward, epochs.length)
    identity_terms = REGRET_IDENTITY.float64(
        epochs.idle_area, epochs.lost_h / net.arrival_rate_h, net.mu, net.lambda_h,
        net.servers, net.r_h, net.r_l,
    )  # fmt: skip
    busy_area = net.servers * epochs.length - epochs.idle_area
    admitted = epochs.admitted_h + epochs.admitted_l
    return RenewalReward(
        epochs=epochs.count,
        mean_length=float(np.mean(epochs.length)),
        mean_idle=_ratio(epochs.idle_area, epochs.length),
        loss_rate_h=_ratio(epochs.lost_h, epochs.length),
        rejection_rate_l=_ratio(epochs.rejected_l, epochs.length),
        reward_rate=reward_rate,
        cost=reward_rate.negated().shifted(fluid_bound(net)),
        identity_cost=_ratio(identity_terms, epochs.length),
        timing_gain=_ratio(admitted - net.mu * busy_area, epochs.length),
    )


def _network(net: object) -> LossNetwork:
    return two_classes(net)


def _require_levels(net: LossNetwork) -> None:
    limits.require(
        "memory",
        _BYTES_PER_LEVEL * (net.servers + 1.0),
        parameter="servers",
        what="the exact chain of the idle count",
    )
