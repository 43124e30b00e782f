r"""Why a window :math:`W = c\log N/N` is enough: the failure of SSS and its bound.

Source: J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
overloaded loss network" (arXiv:2601.14538), Theorem 2 (:math:`C_\text{long} = O(1)`
when :math:`W \ge c\log N/N`); the random-walk steps are those of
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

**The constant.**  With :math:`W = c\log N/N` and :math:`m = y\log N`, as
:math:`N \to \infty` the two terms are :math:`N^{-c\,S(y/c)}` and
:math:`N^{-y\theta}`, :math:`\theta = \log(\mu/\lambda_H)`, where :math:`S` is the
Cramér rate of :math:`U - D` per unit mean (:func:`qtheory.walks.chernoff.derive_skellam`,
means :math:`\mu` and :math:`\lambda_H`).  The loss rate bound stays bounded when
:math:`\max_y \min(c\,S(y/c), y\theta) \ge 1`; the smallest such :math:`c` is
:func:`critical_window_constant`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np
import scipy.sparse as sparse
from scipy import optimize

from qtheory import _validation
from qtheory.exact.ctmc import accumulated_reward, generator, hitting_probabilities, transient
from qtheory.lossnet.model import LossNetwork
from qtheory.walks import chernoff
from qtheory.walks.idle import IdleWalk
from qtheory.walks.ruin import walk_ruin_probability

__all__ = [
    "FailureBound",
    "critical_window_constant",
    "failure_bound",
    "failure_probability",
    "loss_rate_bound",
    "losses_per_failure",
    "losses_per_failure_bound",
    "window",
]


def window(net: LossNetwork, c: float) -> float:
    """W = c log N / N.

    >>> window(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0), 2.0) == 2 * math.log(100) / 100
    True
    """
    c = _validation.positive("c", c)
    if net.servers < 2:
        raise ValueError(f"servers must be >= 2 for a window c log N / N, got {net.servers}")
    return c * math.log(net.servers) / net.servers


def _walk(net: LossNetwork) -> IdleWalk:
    walk = IdleWalk.from_network(net)
    if walk.band < 2:
        raise ValueError(f"servers must be >= 4 (a band floor(sqrt N) >= 2), got {net.servers}")
    return walk


def failure_probability(net: LossNetwork, window_length: float, *, start: int = 1) -> float:
    r"""Exact :math:`\varepsilon_h` (see the module notes) from the CTMC.

    :math:`\sum_{x=1}^{b-1} P_h(J \ge 1 \text{ on } [0,W], \tau_b > W, J(W) = x)\,
    P_x(\text{hit } 0 \text{ before } b)`: the transient distribution at :math:`W` of the
    chain on the levels 0..b with 0 and b made absorbing (uniformisation,
    :func:`qtheory.exact.ctmc.transient`) times the exact ruin probabilities
    (:func:`qtheory.exact.ctmc.hitting_probabilities`).

    >>> net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> 0 < failure_probability(net, window(net, 1.0)) < 0.2
    True
    """
    walk = _walk(net)
    window_length = _validation.positive("window_length", window_length)
    start = _check_start(start, walk.band)
    band = _band_generator(walk)
    inside = np.ones(walk.band + 1)
    inside[[0, walk.band]] = 0.0
    absorbing_ends = sparse.diags(inside) @ band
    at_window = transient(absorbing_ends, start, window_length, tolerance=1e-300)[0]
    ruin = hitting_probabilities(band, target=0, avoid=walk.band)
    return float(at_window[1 : walk.band] @ ruin[1 : walk.band])


def _band_generator(walk: IdleWalk) -> sparse.csr_matrix:
    """The generator restricted to the levels 0..b (all that matters until b is hit)."""
    band = walk.band
    return generator(walk.generator()[: band + 1, : band + 1])  # diagonal recomputed


@dataclass(frozen=True)
class FailureBound:
    """The bound B_h on the failure probability and its parts (see the module notes).

    ``level`` is the optimised m; ``window_term`` is the Chernoff bound on
    P(h + U - D <= m) and ``ruin_term`` the ruin probability of the walk with p_b from
    m + 1 before b.
    """

    level: int
    window_term: float
    ruin_term: float

    @property
    def total(self) -> float:
        return self.window_term + self.ruin_term


def failure_bound(net: LossNetwork, window_length: float, *, start: int = 1) -> FailureBound:
    r"""The bound :math:`B_h = \min_m [P(h + U - D \le m) + h^{p_b}_{m+1}]
    \ge \varepsilon_h`.

    >>> net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> w = window(net, 4.0)
    >>> failure_probability(net, w) <= failure_bound(net, w).total < 1
    True
    """
    walk = _walk(net)
    window_length = _validation.positive("window_length", window_length)
    start = _check_start(start, walk.band)
    levels = np.arange(0, walk.band)  # m = 0..b-1 (m + 1 <= b)
    up = walk.mu * (walk.servers - walk.band) * window_length
    down = walk.lambda_h * walk.servers * window_length
    window_terms = np.exp(chernoff.log_skellam_tail_bound(up, down, levels - start, "lower"))
    ruin_terms = walk_ruin_probability(walk.coupled_up_probability(), levels + 1, walk.band)
    best = int(np.argmin(window_terms + ruin_terms))
    return FailureBound(int(levels[best]), float(window_terms[best]), float(ruin_terms[best]))


def losses_per_failure(net: LossNetwork) -> float:
    """Exact kappa = E_0[H jobs lost before the idle count reaches b] (first passage)."""
    walk = _walk(net)
    lost = np.zeros(walk.band + 1)
    lost[0] = net.arrival_rate_h
    return float(accumulated_reward(_band_generator(walk), walk.band, lost)[0])


def losses_per_failure_bound(net: LossNetwork) -> float:
    """kappa <= (lambda_H / mu) / (1 - h_1) with h_1 the ruin probability of the walk
    with p_b from level 1 before b (an upper bound on the chain's, by coupling)."""
    walk = _walk(net)
    ruin = float(walk_ruin_probability(walk.coupled_up_probability(), 1, walk.band))
    return (net.lambda_h / net.mu) / (1.0 - ruin)


def loss_rate_bound(net: LossNetwork, c: float) -> float:
    """lambda_L N B_1 kappa: the bound on SSS(c log N / N)'s H-loss rate, up to the
    exp(-Omega(sqrt N)) term of losses after the band is reached (module notes)."""
    bound = failure_bound(net, window(net, c))
    return net.arrival_rate_l * bound.total * losses_per_failure_bound(net)


@cache
def _skellam_rate(mu: float, lambda_h: float, x: float) -> float:
    """S(x): Cramér rate of U - D per unit of c log N (means mu, lambda_H), x <= mu - lambda_H."""
    return -float(chernoff.log_skellam_tail_bound(mu, lambda_h, x, "lower"))


def critical_window_constant(net: LossNetwork) -> float:
    r"""Smallest c with :math:`\max_y \min(c S(y/c), y\theta) \ge 1` (module notes).

    At the optimum the two exponents are equal to 1: :math:`y = 1/\theta` and
    :math:`c\,S(1/(\theta c)) = 1`, solved for :math:`c` (the left side increases from
    0 at :math:`c = 1/(\theta(\mu - \lambda_H))`, where the window's mean drift just
    reaches :math:`y\log N`).

    >>> c = critical_window_constant(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> round(c, 4) > 1 / (math.log(1 / 0.6) * 0.4)
    True
    """
    theta = math.log(net.mu / net.lambda_h)
    lowest = 1.0 / (theta * (net.mu - net.lambda_h))

    def excess(c: float) -> float:
        return c * _skellam_rate(net.mu, net.lambda_h, 1.0 / (theta * c)) - 1.0

    upper = 2.0 * lowest
    while excess(upper) < 0:
        upper *= 2.0
    return float(optimize.brentq(excess, lowest, upper, xtol=1e-13, rtol=1e-13))


def _check_start(start: object, band: int) -> int:
    start = _validation.positive_int("start", start)
    if start >= band:
        raise ValueError(f"start must be in 1..band - 1 = 1..{band - 1}, got {start}")
    return start
