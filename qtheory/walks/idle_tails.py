r"""Tail bounds on the idle process of the loss network and its hitting times, from the
Chernoff bounds of :mod:`qtheory.walks.chernoff` through couplings.

Let :math:`I` be the reject-all-L idle count of :class:`~qtheory.walks.idle.IdleWalk`
(up rate :math:`\mu(N - I)`, down rate :math:`\lambda_H N` while :math:`I \ge 1`).

*Idle count after a window* (:func:`idle_after_window_bound`).  Start at
:math:`I(0) = i` and fix a band :math:`b \ge i`, :math:`b < N`, and a level
:math:`m \ge 0`.  Build the process from two independent Poisson processes: H arrivals
:math:`A` of rate :math:`\lambda_H N` (each moves :math:`I` down, except at :math:`I = 0`
where the job is lost), and potential departures of rate :math:`\mu N` with independent
uniform marks :math:`V`, one being a real departure iff :math:`V < (N - I)/N`; this has the
law of :math:`I`.  Let :math:`D = A(W)` and let :math:`U` count the potential departures
in :math:`[0, W]` with :math:`V < (N - b)/N`: :math:`U \sim \text{Poisson}(\mu(N-b)W)`,
independent of :math:`D`.  Then

.. math:: P(I(W) \le m) \le P(i + U - D \le m) + P(D \ge b + 1 - m).

*Proof.*  On the event :math:`G` that :math:`I(s) \le b` for all :math:`s \le W`, every
potential departure counted by :math:`U` happens at a time when
:math:`V < (N-b)/N \le (N - I)/N`, so it is a real departure; the up-moves number at
least :math:`U` and the down-moves at most :math:`D`, hence :math:`I(W) \ge i + U - D`
and :math:`G \cap \{I(W) \le m\} \subseteq \{i + U - D \le m\}`.  Off :math:`G` the path
reaches :math:`b + 1` at some time :math:`s \le W`; to end at :math:`I(W) \le m` it then
makes at least :math:`b + 1 - m` down-moves in :math:`(s, W]`, each an H arrival, so
:math:`D \ge b + 1 - m`.  The union bound finishes the proof.  :math:`\square`

Each term is bounded by its Chernoff bound (Skellam lower tail, Poisson upper tail).  The
result (:class:`IdleWindowBound`) also carries the exact probabilities of the two coupled
events (``scipy.stats``), so that exact ≤ coupled ≤ Chernoff separates the loss of the
coupling from the loss of the Chernoff step.

*Climbing in steps* (:func:`climb_steps_tail_bound`).  Let :math:`T` be the number of
jumps the embedded chain needs to go from :math:`i < b` to :math:`b`, and let
:math:`S_n` be the walk with up-probability :math:`p_b = p(b)`.  Drive both by common
uniforms :math:`\xi_k`: the chain moves up iff :math:`\xi_k < p(I_{k-1})` and the walk
iff :math:`\xi_k < p_b`.  Before :math:`T` the chain is on :math:`\{0, \dots, b-1\}`,
where :math:`p(j) \ge p(b)` because :math:`p` decreases (and :math:`p(0) = 1`: the chain
is reflected at 0, an H arriving to no idle server is lost, which only pushes it up).  So
every walk up-step is a chain up-step, each chain increment is at least the walk's, and
:math:`I_n \ge i + S_n` for :math:`n \le T`.  On :math:`\{T > n\}`,
:math:`I_n \le b - 1`, hence

.. math:: P(T > n) \le P(S_n \le b - i - 1),

bounded by the walk's lower-tail Chernoff bound :math:`e^{-n I_{p_b}((b-i-1)/n)}`.

*Climbing in real time* (:func:`climb_time_tail_bound`).  Before the climb time
:math:`T_b` the path stays at most :math:`b - 1 \le b`, so the coupling above gives
:math:`I(t) \ge i + U - D` on :math:`\{T_b > t\}` with
:math:`U \sim \text{Poisson}(\mu(N-b)t)`, :math:`D \sim \text{Poisson}(\lambda_H N t)`, and
:math:`\{T_b > t\} \subseteq \{I(t) \le b - 1\}`:
:math:`P(T_b > t) \le P(i + U - D \le b - 1)` (Skellam lower tail).

*Hitting 0* (:func:`hit_zero_time_bound`).  Each down-move is an H arrival, so reaching 0
from :math:`i` by time :math:`t` needs at least :math:`i` H arrivals:
:math:`P(T_0 \le t) \le P(\text{Poisson}(\lambda_H N t) \ge i)` (Poisson upper tail).

References
----------
.. [1] A. Dembo and O. Zeitouni, Large Deviations Techniques and Applications, 2nd ed.
   (Springer 1998).
.. [2] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the overloaded
   loss network", arXiv:2601.14538 (2026).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from qtheory.core import validation
from qtheory.walks.chernoff import (
    log_poisson_tail_bound,
    log_skellam_tail_bound,
    log_walk_tail_bound,
)
from qtheory.walks.idle import IdleWalk, check_walk

__all__ = [
    "CoupledBound",
    "IdleWindowBound",
    "climb_steps_tail_bound",
    "climb_time_tail_bound",
    "hit_zero_time_bound",
    "idle_after_window_bound",
]


# ---------------------------------------------------------------------------
# the idle process: coupled variables and their Chernoff bounds


@dataclass(frozen=True)
class CoupledBound:
    """A probability bounded in two steps: P(event) <= P(coupled event) <= Chernoff.

    Attributes
    ----------
    log_coupled
        Log of the exact probability of the coupled event (``scipy.stats``; −inf where
        scipy's value underflows, below about 1e-308).
    log_chernoff
        Log of its Chernoff bound (the ``log_`` functions: finite far below that).

    References
    ----------
    See the module's References: Dembo and Zeitouni (1998), Sec. 2.2.

    Examples
    --------
    >>> bound = CoupledBound(math.log(0.01), math.log(0.05))
    >>> round(bound.coupled, 12), round(bound.chernoff, 12)
    (0.01, 0.05)
    """

    log_coupled: float
    log_chernoff: float

    @property
    def coupled(self) -> float:
        """The exact probability of the coupled event, ``exp(log_coupled)``.

        Returns
        -------
        float
            A probability in [0, 1] (0.0 where it underflows).

        Examples
        --------
        >>> round(CoupledBound(math.log(0.25), 0.0).coupled, 12)
        0.25
        """
        return math.exp(self.log_coupled)

    @property
    def chernoff(self) -> float:
        """The Chernoff bound, ``exp(log_chernoff)``.

        Returns
        -------
        float
            A bound in [0, 1] (0.0 where it underflows; 1.0 for the trivial bound).

        Examples
        --------
        >>> round(CoupledBound(math.log(0.25), 0.0).chernoff, 12)
        1.0
        """
        return math.exp(self.log_chernoff)


@dataclass(frozen=True)
class IdleWindowBound:
    r"""P(I(W) <= m) <= P(i + U − D <= m) + P(D >= b + 1 − m) (module docstring).

    While the idle count stays at or below the band :math:`b` its up rate is at least
    :math:`\mu(N - b)`, so up to the first exit above :math:`b` it dominates
    :math:`i + U - D` with :math:`U \sim \text{Poisson}(\mu(N - b)W)` and
    :math:`D \sim \text{Poisson}(\lambda_H N W)` the H arrivals; returning from above
    :math:`b` to :math:`m` needs :math:`D \ge b + 1 - m`.  Each term is bounded exactly
    (through the coupling) and by Chernoff.

    Attributes
    ----------
    drift : CoupledBound
        :math:`P(i + U - D \le m)`, the Skellam lower tail.
    escape : CoupledBound
        :math:`P(D \ge b + 1 - m)`, the Poisson upper tail.

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds and the Legendre transform);
    - Bray (2026), "Analytical Tools".

    Examples
    --------
    >>> bound = IdleWindowBound(
    ...     CoupledBound(math.log(0.01), math.log(0.02)),
    ...     CoupledBound(math.log(0.03), math.log(0.05)),
    ... )
    >>> round(bound.total.coupled, 12), round(bound.total.chernoff, 12)
    (0.04, 0.07)
    """

    drift: CoupledBound  # P(i + U − D <= m), U ~ Poisson(μ(N − b)W), D ~ Poisson(λ_H N W)
    escape: CoupledBound  # P(D >= b + 1 − m)

    @property
    def total(self) -> CoupledBound:
        """The union bound, through the coupling and through Chernoff (a sum of two
        probabilities or bounds: it can exceed 1 when W is long).

        Returns
        -------
        CoupledBound
            ``log(drift + escape)`` of the coupled probabilities and of the Chernoff
            bounds (``numpy.logaddexp``).

        Examples
        --------
        >>> half = CoupledBound(math.log(0.5), math.log(0.75))
        >>> total = IdleWindowBound(half, half).total
        >>> round(total.coupled, 12), round(total.chernoff, 12)
        (1.0, 1.5)
        """
        return CoupledBound(
            float(np.logaddexp(self.drift.log_coupled, self.escape.log_coupled)),
            float(np.logaddexp(self.drift.log_chernoff, self.escape.log_chernoff)),
        )


def _skellam_lower(up: float, down: float, x: int) -> CoupledBound:
    """P(U − D <= x) exactly and by Chernoff."""
    return CoupledBound(
        float(stats.skellam.logcdf(x, up, down)),
        float(log_skellam_tail_bound(up, down, x, "lower")),
    )


def _poisson_upper(mean: float, k: int) -> CoupledBound:
    """P(X >= k), X ~ Poisson(mean), exactly and by Chernoff."""
    return CoupledBound(
        float(stats.poisson.logsf(k - 1, mean)),
        float(log_poisson_tail_bound(mean, k, "upper")),
    )


def _band(walk: IdleWalk, band: int | None, low: int) -> int:
    """The band b (default floor(sqrt N)); b <= N − 1 keeps the coupled rate μ(N − b) > 0."""
    walk = check_walk(walk)
    return validation.integer_in("band", walk.band if band is None else band, low, walk.servers - 1)


def coupled_means(walk: IdleWalk, band: int, time: float) -> tuple[float, float]:
    """(μ(N − b)t, λ_H N t): means of the thinned departures U and the H arrivals D."""
    return walk.mu * (walk.servers - band) * time, walk.lambda_h * walk.servers * time


def idle_after_window_bound(
    walk: IdleWalk, window: float, start: int, level: int, band: int | None = None
) -> IdleWindowBound:
    """Bound P(I(W) <= m) for the reject-all-L idle count started at I(0) = i.

    Parameters
    ----------
    walk
        The idle process.
    window
        W > 0.
    start
        i, in 0..b.
    level
        m >= 0.
    band
        b, in max(i, 1)..N − 1; default floor(sqrt(N)).

    Returns
    -------
    IdleWindowBound
        The two terms of P(I(W) <= m) <= P(i + U − D <= m) + P(D >= b + 1 − m) (proof in
        the module docstring), each exactly and by Chernoff.

    Raises
    ------
    TypeError
        If ``walk`` is not an IdleWalk.
    ValueError
        If a level, band, time or step count is out of range (the message names it).

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds, Cramér's theorem);
    - Bray (2026), "Analytical Tools"; docs/loss-network.md.

    Examples
    --------
    >>> walk = IdleWalk(1000, 0.6, 1.0)
    >>> bound = idle_after_window_bound(walk, 4 * math.log(1000) / 1000, 16, 0)
    >>> print(f"{bound.total.coupled:.3e} <= {bound.total.chernoff:.3e}")
    5.378e-04 <= 3.934e-03
    """
    band = _band(walk, band, 1)
    start = validation.integer_in("start", start, 0, band)
    level = validation.integer_in("level", level, 0, walk.servers)
    up, down = coupled_means(walk, band, validation.positive("window", window))
    return IdleWindowBound(
        drift=_skellam_lower(up, down, level - start),
        escape=_poisson_upper(down, band + 1 - level),
    )


def climb_steps_tail_bound(
    walk: IdleWalk, start: int, steps: int, band: int | None = None
) -> CoupledBound:
    """Bound P(T > n), T the number of jumps of the embedded chain from i to b.

    P(T > n) <= P(S_n <= b − i − 1) for the walk with up-probability p_b (module
    docstring), exactly (binomial) and by Chernoff.

    Parameters
    ----------
    walk : IdleWalk
        The idle process.
    start : int
        i, in 0..b − 1.
    steps : int
        n >= 1 jumps.
    band : int, optional
        b, in 1..N − 1 (default floor(sqrt N)).

    Returns
    -------
    CoupledBound
        The coupled probability (exact) and its Chernoff bound, as logs.

    Raises
    ------
    TypeError
        If ``walk`` is not an IdleWalk.
    ValueError
        If a level, band, time or step count is out of range (the message names it).

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds, Cramér's theorem);
    - Bray (2026), "Analytical Tools"; docs/loss-network.md.

    Examples
    --------
    >>> walk = IdleWalk(1000, 0.6, 1.0)
    >>> bound = climb_steps_tail_bound(walk, 0, 400)
    >>> print(f"{bound.coupled:.3e} <= {bound.chernoff:.3e}")
    6.557e-04 <= 4.913e-03
    """
    band = _band(walk, band, 1)
    start = validation.integer_in("start", start, 0, band - 1)
    n = validation.positive_int("steps", steps)
    p = walk.coupled_up_probability(band)
    below = band - start - 1
    return CoupledBound(
        float(stats.binom.logcdf(math.floor((n + below) / 2), n, p)),
        float(log_walk_tail_bound(n, p, below, "lower")),
    )


def climb_time_tail_bound(
    walk: IdleWalk, start: int, time: float, band: int | None = None
) -> CoupledBound:
    """Bound P(T_b > t), T_b the time the idle count started at i < b takes to reach b.

    P(T_b > t) <= P(i + U − D <= b − 1), U ~ Poisson(μ(N − b)t), D ~ Poisson(λ_H N t)
    (module docstring), exactly (Skellam) and by Chernoff.

    Parameters
    ----------
    walk : IdleWalk
        The idle process.
    start : int
        i, in 0..b − 1.
    time : float
        t > 0.
    band : int, optional
        b, in 1..N − 1 (default floor(sqrt N)).

    Returns
    -------
    CoupledBound
        The coupled probability (exact) and its Chernoff bound, as logs.

    Raises
    ------
    TypeError
        If ``walk`` is not an IdleWalk.
    ValueError
        If a level, band, time or step count is out of range (the message names it).

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds, Cramér's theorem);
    - Bray (2026), "Analytical Tools"; docs/loss-network.md.

    Examples
    --------
    >>> walk = IdleWalk(1000, 0.6, 1.0)
    >>> bound = climb_time_tail_bound(walk, 0, 0.25)
    >>> print(f"{bound.coupled:.3e} <= {bound.chernoff:.3e}")
    8.637e-04 <= 6.794e-03
    """
    band = _band(walk, band, 1)
    start = validation.integer_in("start", start, 0, band - 1)
    up, down = coupled_means(walk, band, validation.positive("time", time))
    return _skellam_lower(up, down, band - 1 - start)


def hit_zero_time_bound(walk: IdleWalk, start: int, time: float) -> CoupledBound:
    """Bound P(T_0 <= t), T_0 the time the idle count started at i >= 1 takes to reach 0.

    P(T_0 <= t) <= P(Poisson(λ_H N t) >= i): every down-move is an H arrival.

    Parameters
    ----------
    walk : IdleWalk
        The idle process.
    start : int
        i, in 1..N.
    time : float
        t > 0.

    Returns
    -------
    CoupledBound
        The coupled probability (exact) and its Chernoff bound, as logs.

    Raises
    ------
    TypeError
        If ``walk`` is not an IdleWalk.
    ValueError
        If a level, band, time or step count is out of range (the message names it).

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds, Cramér's theorem);
    - Bray (2026), "Analytical Tools"; docs/loss-network.md.

    Examples
    --------
    >>> walk = IdleWalk(1000, 0.6, 1.0)
    >>> bound = hit_zero_time_bound(walk, 31, 4 * math.log(1000) / 1000)
    >>> print(f"{bound.coupled:.3e} <= {bound.chernoff:.3e}")
    9.890e-04 <= 6.869e-03
    """
    walk = check_walk(walk)
    start = validation.integer_in("start", start, 1, walk.servers)
    _, down = coupled_means(walk, 0, validation.positive("time", time))
    return _poisson_upper(down, start)
