r"""Why a window :math:`W = c\log N/N` is enough: the failure of SSS and its bound.

Source: J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
overloaded loss network" (arXiv:2601.14538; docs/loss-network.md), Theorem 2
(:math:`C_\text{long} = O(1)` when :math:`W \ge c\log N/N`); the random-walk steps are those of
:mod:`qtheory.walks.chernoff` and :mod:`qtheory.walks.ruin`.

**Where SSS loses H jobs.**  Let :math:`t` be an L admission of SSS(W), leaving
:math:`h \ge 1` servers idle, and :math:`J` the reject-all-L idle process from
:math:`(t, h)` (:class:`~qtheory.walks.idle.IdleWalk`).  Until the next L admission
the real idle count *is* :math:`J`, and SSS admitted because :math:`J \ge 1` on
:math:`[t, t + W]`.  So an H job is lost only after :math:`t + W`, and only if
:math:`J` hits 0 then.  With :math:`\tau_b` the first time :math:`J` reaches the band
:math:`b = \lfloor\sqrt N\rfloor`, call *failure* the event that :math:`J \ge 1` on
:math:`[0, W]`, :math:`\tau_b > W`, and :math:`J` hits 0 after :math:`W` but before
:math:`\tau_b`:

.. math:: \varepsilon_h = P_h\bigl(J \ge 1 \text{ on } [0, W],\ \tau_b > W,\
          J \text{ hits } 0 \text{ before } b\bigr)
          \le B_h = \min_m \Bigl[P\bigl(h + U - D \le m\bigr)
          + P^{p_b}_{m+1}(\text{hit } 0 \text{ before } b)\Bigr].

Proof: split on :math:`J(W) \le m` (Markov property at :math:`W`; ruin probabilities
decrease in the start level).  On :math:`\{\tau_b > W\}` the path stays below
:math:`b`, where services end at rate :math:`\mu(N - J) \ge \mu(N - b)`, so thinning
gives :math:`J(W) \ge h + U - D` with :math:`U \sim \text{Poisson}(\mu(N-b)W)` and
:math:`D \sim \text{Poisson}(\lambda_H N W)` the H arrivals (an H lost at 0 only
helps); the Chernoff bound of the Skellam lower tail
(:func:`qtheory.walks.chernoff.log_skellam_tail_bound`) bounds its probability.  The
ruin probability of the walk with up-probability :math:`p_b` bounds the chain's
(:mod:`qtheory.walks.ruin`).  :math:`B_h` decreases in :math:`h` (only the first term
depends on it), so :math:`\sup_{h \ge 1} \varepsilon_h \le B_1`; the exact
:math:`\varepsilon_h` itself need not be monotone in :math:`h`.

After a failure the H jobs lost before :math:`J` reaches :math:`b` number
:math:`\kappa = E_0[\text{H lost before } \tau_b]` in expectation (strong Markov at the
hit of 0), :math:`\kappa \le (\lambda_H/\mu)/(1 - h^{p_b}_1)` (each visit to 0 lasts
:math:`\text{Exp}(\mu N)` and loses :math:`\lambda_H/\mu` H jobs on average; the visits
number :math:`1/P_1(\text{reach } b \text{ before } 0)`).  With at most
:math:`\lambda_L N` L admissions per unit time,

.. math:: \text{H-loss rate of SSS}(W) \le \lambda_L N\,B_1\,\kappa
          \;+\; (\text{losses after } J \text{ reached } b),

and the last term is :math:`e^{-\Omega(\sqrt N)}`: to fall back from :math:`b` to 0 with
no L admitted, :math:`J` must meet L arrivals at levels :math:`\ge b/2` and have each
rejected, which needs :math:`\ge b/2` H arrivals inside one window (Poisson mean
:math:`\lambda_H c\log N`), or fall :math:`b/2` levels before the next L arrival
(probability :math:`(\lambda_H/(\lambda_H+\lambda_L))^{b/2}`).  That term is stated, not
evaluated, here: at small N (say N < 1000) it is not negligible.

**Arguments.**  Every function here takes the network and the window constant
:math:`c` (positional, second), never the window length: the window is
:math:`W = c\log N/N` = ``net.window(c)`` (:meth:`LossNetwork.window`, the one home of
that formula, which refuses :math:`c \le 0`, :math:`N < 2` and a :math:`W` that
underflows).  The exact routes work on the levels :math:`0..b` only (memory and time
:math:`O(\sqrt N)` per uniformisation step) and refuse, before any work, what exceeds
:mod:`qtheory.core.limits`.

**The constant.**  With :math:`W = c\log N/N` and :math:`m = y\log N`, as
:math:`N \to \infty` the two terms are :math:`N^{-c\,S(y/c)}` and
:math:`N^{-y\theta}`, :math:`\theta = \log(\mu/\lambda_H)`, where :math:`S` is the
Cramér rate of :math:`U - D` per unit mean (:func:`qtheory.walks.chernoff.derive_skellam`,
means :math:`\mu` and :math:`\lambda_H`).  The loss rate bound stays bounded when
:math:`\max_y \min(c\,S(y/c), y\theta) \ge 1`; the smallest such :math:`c` is
:func:`critical_window_constant`.

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the overloaded
   loss network", arXiv:2601.14538 (2026).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np
import scipy.sparse as sparse
from scipy import optimize, special

from qtheory.core import limits, validation
from qtheory.exact.ctmc import accumulated_reward, generator, hitting_probabilities, transient
from qtheory.model.lossnet import LossNetwork, two_classes
from qtheory.walks import chernoff
from qtheory.walks.idle import IdleWalk
from qtheory.walks.ruin import walk_ruin_probability

__all__ = [
    "FailureBound",
    "critical_window_constant",
    "failure_bound",
    "failure_probabilities",
    "failure_probability",
    "loss_rate_bound",
    "losses_per_failure",
    "losses_per_failure_bound",
]

_BYTES_PER_LEVEL = 400  # sparse generator, its transpose, LU factors and work vectors


def _walk(net: object) -> IdleWalk:
    """The reject-all-L idle process of ``net``, with a band b >= 2, whose levels 0..b
    fit in memory."""
    net = two_classes(net)
    walk = IdleWalk.from_network(net)
    if walk.band < 2:
        raise ValueError(f"servers must be >= 4 (a band floor(sqrt N) >= 2), got {net.servers}")
    limits.require(
        "memory",
        _BYTES_PER_LEVEL * (walk.band + 1.0),
        parameter="servers",
        what="the exact chain on the levels 0..floor(sqrt N)",
    )
    return walk


def _band_generator(walk: IdleWalk) -> sparse.csr_matrix:
    """The reject-all-L generator on the levels 0..b (all that matters until b is hit;
    built on those levels only, O(b) memory): up μ(N − i), down λ_H N (i >= 1)."""
    band = walk.band
    levels = np.arange(band + 1, dtype=float)
    up = walk.mu * (walk.servers - levels[:-1])
    down = np.full(band, walk.lambda_h * walk.servers)
    return generator(sparse.diags([up, down], [1, -1], format="csr"))


def _uniformisation_steps(walk: IdleWalk, window: float) -> float:
    """Terms of the Poisson series of the uniformised chain over ``window``: about
    ν W + 8 sqrt(ν W), ν = μ N + λ_H N the largest exit rate on the band."""
    mean = (walk.mu + walk.lambda_h) * walk.servers * window
    return mean + 8.0 * math.sqrt(mean) + 20.0


def failure_probability(net: LossNetwork, c: float, *, start: int = 1) -> float:
    r"""Exact failure probability :math:`\varepsilon_h` of SSS(c log N / N), from the CTMC.

    :math:`\sum_{x=1}^{b-1} P_h(J \ge 1 \text{ on } [0,W], \tau_b > W, J(W) = x)\,
    P_x(\text{hit } 0 \text{ before } b)`: the transient distribution at :math:`W` of the
    chain on the levels 0..b with 0 and b made absorbing (uniformisation,
    :func:`qtheory.exact.ctmc.transient`) times the exact ruin probabilities
    (:func:`qtheory.exact.ctmc.hitting_probabilities`); see the module notes.

    Parameters
    ----------
    net : LossNetwork
        The network, N >= 4.
    c : float
        Window constant c > 0: W = ``net.window(c)`` = c log N / N.
    start : int, optional
        Keyword only: idle servers h left by the L admission, 1..b − 1.

    Returns
    -------
    float
        :math:`\varepsilon_h`.

    Raises
    ------
    TypeError
        If ``net`` is not a LossNetwork.
    ValueError
        If N < 4, ``c`` <= 0 (or W underflows), ``start`` is out of range, or the
        uniformisation would exceed :mod:`qtheory.core.limits` (``"memory"``: about 8 bytes
        per term of the Poisson series, (μ + λ_H) c log N terms; ``"dp_cells"``: terms
        times levels).

    References
    ----------
    See the module's References: Bray (2026), Theorem 2; docs/loss-network.md.

    Examples
    --------
    >>> net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> 0 < failure_probability(net, 1.0) < 0.2
    True
    """
    walk = _walk(net)
    window = net.window(c)
    start = _check_start(start, walk.band)
    steps = _uniformisation_steps(walk, window)
    limits.require("memory", 8.0 * steps, parameter="c", what="the Poisson series of the window")
    limits.require(
        "dp_cells", 3.0 * steps * (walk.band + 1), parameter="c", what="the window's transient"
    )
    band = _band_generator(walk)
    inside = np.ones(walk.band + 1)
    inside[[0, walk.band]] = 0.0
    absorbing_ends = sparse.diags(inside) @ band
    at_window = transient(absorbing_ends, start, window, tolerance=1e-300)[0]
    ruin = hitting_probabilities(band, target=0, avoid=walk.band)
    return float(at_window[1 : walk.band] @ ruin[1 : walk.band])


def failure_probabilities(net: LossNetwork, c: float) -> np.ndarray:
    r"""Exact :math:`\varepsilon_h` of SSS(c log N / N) for every :math:`h = 0..b`.

    The failure probability as a function of the start, :math:`\varepsilon = e^{WQ_a} r`
    with :math:`Q_a` the generator on 0..b with 0 and b absorbing and :math:`r_x` the
    ruin probability before b for :math:`1 \le x \le b-1` (:math:`r_0 = r_b = 0`: a
    path absorbed by :math:`W` is not a failure), by backward uniformisation
    (:math:`\sum_k \text{Poisson}(\nu W; k)\,P^k r`, :math:`P = I + Q_a/\nu`); one pass
    gives every start, where :func:`failure_probability` runs one forward pass per start.
    A series of more than :data:`DIRECT_TERMS` terms (a long window) starts
    :data:`SERIES_SIGMAS` standard deviations below its mean, the skipped power of P by
    repeated squaring, so its cost is O(sqrt(ν W)) steps rather than O(ν W).
    :math:`\varepsilon_0 = \varepsilon_b = 0` (no window starts at 0 idle servers; a start
    at b has :math:`\tau_b = 0`), and :math:`\varepsilon_h` is not monotone in h.

    Parameters
    ----------
    net : LossNetwork
        The network, N >= 4.
    c : float
        Window constant c > 0: W = ``net.window(c)``.

    Returns
    -------
    numpy.ndarray, shape (b + 1,)
        :math:`\varepsilon_0, \dots, \varepsilon_b`.

    Raises
    ------
    TypeError
        If ``net`` is not a LossNetwork.
    ValueError
        If N < 4, ``c`` <= 0 (or W underflows), or the work exceeds :mod:`qtheory.core.limits`
        (as for :func:`failure_probability`).

    References
    ----------
    .. [1] S. Asmussen, Applied Probability and Queues, 2nd ed. (Springer 2003),
       Ch. II (uniformisation).

    Examples
    --------
    >>> eps = failure_probabilities(LossNetwork(1000, 0.6, 0.8, 1.0, 2.0, 1.0), 4.0)
    >>> [round(float(x), 5) for x in eps[1:5]], int(np.argmax(eps))
    ([0.00486, 0.00734, 0.00819, 0.00798], 3)
    """
    walk = _walk(net)
    window = net.window(c)
    steps = _uniformisation_steps(walk, window)
    rate = (walk.mu + walk.lambda_h) * walk.servers
    first = _series_start(rate * window, steps)
    terms = math.ceil(steps) + 1 - first
    levels = walk.band + 1
    limits.require("memory", 8.0 * terms, parameter="c", what="the Poisson series of the window")
    limits.require(
        "dp_cells",
        (3.0 * levels + STEP_CELLS) * terms + levels**3 * max(first, 1).bit_length(),
        parameter="c",
        what="the window's transient",
    )
    band = _band_generator(walk)
    inside = np.ones(levels)
    inside[[0, walk.band]] = 0.0
    absorbing_ends = sparse.diags(inside) @ band
    jump = sparse.identity(levels, format="csr") + absorbing_ends / rate
    vector = hitting_probabilities(band, target=0, avoid=walk.band) * inside
    if first:
        jump = jump.toarray()
        vector = _power_times(jump, first, vector)
    ks, mean = np.arange(first, math.ceil(steps) + 1), rate * window
    # the Poisson pmf as scipy.stats.poisson computes it, without importing scipy.stats
    weights = np.exp(special.xlogy(ks, mean) - special.gammaln(ks + 1) - mean)
    total = weights[0] * vector
    for weight in weights[1:]:
        vector = jump @ vector
        total += weight * vector
    return total


#: The Poisson series of a long window starts this many standard deviations below its
#: mean: the Poisson mass below is under e^{-800}, nothing in float64 next to the terms
#: kept (every term is a probability times a weight).
SERIES_SIGMAS = 40.0

#: Series of at most this many terms are summed from k = 0 (every result of the
#: committed tables is one of them); longer ones skip their negligible head.
DIRECT_TERMS = 20_000

#: Work of one term of the series in the unit of the ``dp_cells`` limit, beyond the
#: matrix-vector product: the interpreter's overhead of a step, a few microseconds
#: (float64 cells at about 1e9 per second).
STEP_CELLS = 5_000


def _series_start(mean: float, steps: float) -> int:
    """The first term k of the Poisson(``mean``) series: 0 for a short series, else
    mean − :data:`SERIES_SIGMAS` sqrt(mean)."""
    if steps <= DIRECT_TERMS:
        return 0
    return max(0, math.floor(mean - SERIES_SIGMAS * math.sqrt(mean)))


def _power_times(matrix: np.ndarray, power: int, vector: np.ndarray) -> np.ndarray:
    """``matrix^power @ vector`` by repeated squaring: O(log power) dense products of a
    non-negative matrix, so no cancellation and a small relative error per entry."""
    while power:
        if power & 1:
            vector = matrix @ vector
        power >>= 1
        if power:
            matrix = matrix @ matrix
    return vector


@dataclass(frozen=True)
class FailureBound:
    r"""The bound :math:`B_h` on the failure probability and its parts (module notes).

    Attributes
    ----------
    level : int
        The optimised m.
    window_term : float
        The Chernoff bound on :math:`P(h + U - D \le m)`.
    ruin_term : float
        The ruin probability of the walk with :math:`p_b` from m + 1 before b.

    References
    ----------
    See the module's References: Bray (2026), Theorem 2; docs/loss-network.md.

    Examples
    --------
    >>> round(FailureBound(level=3, window_term=0.25, ruin_term=0.5).total, 6)
    0.75
    """

    level: int
    window_term: float
    ruin_term: float

    @property
    def total(self) -> float:
        r""":math:`B_h` = window_term + ruin_term.

        A union bound: the SSS window fails if the idle count ends the window at or below
        :math:`m` (``window_term``) or if, from :math:`m + 1`, it is ruined before
        reaching :math:`b` (``ruin_term``).  It can exceed 1.

        Returns
        -------
        float
            ``window_term + ruin_term``.

        References
        ----------
        See the module's References: Bray (2026), Theorem 2; docs/loss-network.md.

        Examples
        --------
        >>> round(FailureBound(level=2, window_term=0.125, ruin_term=0.0625).total, 6)
        0.1875
        """
        return self.window_term + self.ruin_term


def failure_bound(net: LossNetwork, c: float, *, start: int = 1) -> FailureBound:
    r"""The bound :math:`B_h = \min_m [P(h + U - D \le m) + h^{p_b}_{m+1}]
    \ge \varepsilon_h` for SSS(c log N / N).

    Parameters
    ----------
    net : LossNetwork
        The network, N >= 4.
    c : float
        Window constant c > 0: W = ``net.window(c)``.
    start : int, optional
        Keyword only: idle servers h left by the L admission, 1..b − 1.

    Returns
    -------
    FailureBound
        The optimal m and the two terms; ``.total`` is :math:`B_h`.

    Raises
    ------
    TypeError
        If ``net`` is not a LossNetwork.
    ValueError
        If N < 4, ``c`` <= 0 (or W underflows), ``c`` is so small that the float64
        Skellam bound cannot resolve the window's event means next to the band (about
        1e-300 of it), or ``start`` is out of range.

    References
    ----------
    See the module's References: Bray (2026), Theorem 2; docs/loss-network.md.

    Examples
    --------
    >>> net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> failure_probability(net, 4.0) <= failure_bound(net, 4.0).total < 1
    True
    """
    walk = _walk(net)
    window = net.window(c)
    start = _check_start(start, walk.band)
    levels = np.arange(0, walk.band)  # m = 0..b-1 (m + 1 <= b)
    up = walk.mu * (walk.servers - walk.band) * window
    down = walk.lambda_h * walk.servers * window
    try:
        log_terms = chernoff.log_skellam_tail_bound(up, down, levels - start, "lower")
    except ValueError as error:  # the means are too small for float64 next to the band
        raise ValueError(
            f"c is too small for the float64 Chernoff bound: the window's event means "
            f"({up:.3g}, {down:.3g}) are beyond float64 next to the band b = {walk.band} "
            f"({error}), got c={c!r}"
        ) from None
    window_terms = np.exp(log_terms)
    ruin_terms = walk_ruin_probability(walk.coupled_up_probability(), levels + 1, walk.band)
    best = int(np.argmin(window_terms + ruin_terms))
    return FailureBound(int(levels[best]), float(window_terms[best]), float(ruin_terms[best]))


def losses_per_failure(net: LossNetwork) -> float:
    """Exact kappa = E_0[H jobs lost before the idle count reaches b] (first passage).

    Parameters
    ----------
    net : LossNetwork
        The network, N >= 4.

    Returns
    -------
    float
        kappa, from :func:`qtheory.exact.ctmc.accumulated_reward` on the levels 0..b.

    Raises
    ------
    TypeError
        If ``net`` is not a LossNetwork.
    ValueError
        If N < 4 or the band exceeds the memory limit.

    References
    ----------
    See the module's References: Bray (2026), Theorem 2; docs/loss-network.md.

    Examples
    --------
    >>> net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> losses_per_failure(net) <= losses_per_failure_bound(net)
    True
    """
    walk = _walk(net)
    lost = np.zeros(walk.band + 1)
    lost[0] = net.arrival_rate_h
    return float(accumulated_reward(_band_generator(walk), walk.band, lost)[0])


def losses_per_failure_bound(net: LossNetwork) -> float:
    """The bound kappa <= (lambda_H / mu) / (1 - h_1).

    h_1 is the ruin probability of the walk with p_b from level 1 before b, an upper
    bound on the chain's (coupling, :mod:`qtheory.walks.ruin`).

    Parameters
    ----------
    net : LossNetwork
        The network, N >= 4.

    Returns
    -------
    float
        The bound on kappa.

    Raises
    ------
    TypeError
        If ``net`` is not a LossNetwork.
    ValueError
        If N < 4.

    References
    ----------
    See the module's References: Bray (2026), Theorem 2; docs/loss-network.md.

    Examples
    --------
    >>> net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> 0.6 < losses_per_failure_bound(net) < 2.0
    True
    """
    walk = _walk(net)
    ruin = float(walk_ruin_probability(walk.coupled_up_probability(), 1, walk.band))
    return (net.lambda_h / net.mu) / (1.0 - ruin)


def loss_rate_bound(net: LossNetwork, c: float) -> float:
    """The bound lambda_L N B_1 kappa on the H-loss rate of SSS(c log N / N).

    Up to the exp(-Omega(sqrt N)) term of losses after the band is reached (module
    notes).

    Parameters
    ----------
    net : LossNetwork
        The network, N >= 4.
    c : float
        Window constant c > 0: W = ``net.window(c)``.

    Returns
    -------
    float
        lambda_L N B_1 times the bound on kappa.

    Raises
    ------
    TypeError
        If ``net`` is not a LossNetwork.
    ValueError
        If N < 4 or ``c`` <= 0 (or W underflows).

    References
    ----------
    See the module's References: Bray (2026), Theorem 2; docs/loss-network.md.

    Examples
    --------
    >>> net = LossNetwork(1000, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> loss_rate_bound(net, 16.0) < loss_rate_bound(net, 8.0) < net.arrival_rate_h
    True
    """
    bound = failure_bound(net, c)
    return net.arrival_rate_l * bound.total * losses_per_failure_bound(net)


@cache
def _skellam_rate(mu: float, lambda_h: float, x: float) -> float:
    """S(x): Cramér rate of U - D per unit of c log N (means mu, lambda_H), x <= mu - lambda_H."""
    return -float(chernoff.log_skellam_tail_bound(mu, lambda_h, x, "lower"))


def critical_window_constant(net: LossNetwork) -> float:
    r"""The critical constant: the smallest c with
    :math:`\max_y \min(c S(y/c), y\theta) \ge 1` (module notes).

    At the optimum the two exponents are equal to 1: :math:`y = 1/\theta` and
    :math:`c\,S(1/(\theta c)) = 1`, solved for :math:`c` (the left side increases from
    0 at :math:`c = 1/(\theta(\mu - \lambda_H))`, where the window's mean drift just
    reaches :math:`y\log N`).

    Parameters
    ----------
    net : LossNetwork
        The network (only λ_H and μ enter).

    Returns
    -------
    float
        The critical c beyond which the bound :func:`loss_rate_bound` stays bounded in N.

    Raises
    ------
    TypeError
        If ``net`` is not a LossNetwork.

    References
    ----------
    See the module's References: Bray (2026), Theorem 2; docs/loss-network.md.

    .. [1] A. Dembo and O. Zeitouni, Large Deviations Techniques and Applications, 2nd
       ed. (Springer 1998), Sec. 2.2 (Cramér's theorem).

    Examples
    --------
    >>> c = critical_window_constant(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> round(c, 2), c > 1 / (math.log(1 / 0.6) * 0.4)
    (28.67, True)
    """
    net = two_classes(net)
    theta = math.log(net.mu / net.lambda_h)
    lowest = 1.0 / (theta * (net.mu - net.lambda_h))

    def excess(c: float) -> float:
        return c * _skellam_rate(net.mu, net.lambda_h, 1.0 / (theta * c)) - 1.0

    upper = 2.0 * lowest
    while excess(upper) < 0:
        upper *= 2.0
    return float(optimize.brentq(excess, lowest, upper, xtol=1e-13, rtol=1e-13))


def _check_start(start: object, band: int) -> int:
    start = validation.positive_int("start", start)
    if start >= band:
        raise ValueError(f"start must be in 1..band - 1 = 1..{band - 1}, got {start}")
    return start
