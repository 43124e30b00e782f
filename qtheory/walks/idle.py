r"""The idle-server process under "reject every L" and the random walks that bound it.

Source: J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
overloaded loss network" (arXiv:2601.14538), the coupling and random-walk arguments
behind Theorems 1 and 2 (docs/loss-network.md).

Under the hypothetical policy that admits every H and rejects every L (the future PFI and
SSS look at), the number of idle servers :math:`I \in \{0, \dots, N\}` is a birth–death
chain: it moves up (a service ends) at rate :math:`\mu (N - I)` and down (an H job is
admitted) at rate :math:`\lambda_H N` while :math:`I \ge 1`; at :math:`I = 0` an H arrival
is lost and nothing moves down.  Its embedded jump chain moves up with probability

.. math:: p(i) = \frac{\mu (N - i)}{\mu (N - i) + \lambda_H N}, \qquad i \ge 1,

decreasing in :math:`i`.  On the band :math:`1 \le I \le b - 1` it is therefore squeezed
between two simple random walks (same-level coupling of the jump chains):

.. math:: p_b = p(b) \le p(i) \le p_\infty = \frac{\mu}{\mu + \lambda_H},

where :math:`p_\infty = \lim_{N\to\infty} p(\lfloor\sqrt N\rfloor)`.  With :math:`p_b` the
walk is *less* likely to climb than the chain (it gives upper bounds on ruin
probabilities and climbing times); with :math:`p_\infty` it is *more* likely (lower bounds).
PFI's band is :math:`b = \lfloor\sqrt N\rfloor`.

The level-indexed arrays (:meth:`IdleWalk.up_rates` and the like) hold all
:math:`N + 1` levels; past the memory limit of :mod:`qtheory.core.limits` they are refused
with a ``ValueError`` naming ``servers`` (the SSS routes of :mod:`qtheory.walks.sss` only
need the levels :math:`0..b`).

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026); docs/loss-network.md.

>>> walk = IdleWalk(servers=100, lambda_h=0.6, mu=1.0)
>>> walk.band, round(walk.coupled_up_probability(), 6), round(walk.limit_up_probability, 6)
(10, 0.6, 0.625)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sparse

from qtheory.core import limits, validation
from qtheory.exact.ctmc import generator
from qtheory.model.lossnet import LossNetwork, two_classes
from qtheory.walks import _generated

if TYPE_CHECKING:  # the Sympy side is imported when first asked for (__getattr__)
    import sympy as sp

__all__ = [
    "IdleWalk",
    "UP_PROBABILITY",  # noqa: F822 (a Sympy object, made on first use by __getattr__)
    "band_level",  # noqa: F822 (likewise)
    "check_walk",
    "derive_limit_up_probability",
    "level",  # noqa: F822 (likewise)
]


@cache
def _symbolic() -> SimpleNamespace:
    """The Sympy side (:func:`__getattr__`), made on first use."""
    import sympy as sp

    from qtheory.core.symbolic import Formula
    from qtheory.model.lossnet_symbols import lambda_h, mu, servers

    level = sp.Symbol("i", nonnegative=True)  # idle servers
    return SimpleNamespace(
        level=level,
        band_level=sp.Symbol("b", positive=True),  # upper edge of the band (PFI: floor(sqrt N))
        UP_PROBABILITY=Formula(
            "idle_up_probability",
            mu * (servers - level) / (mu * (servers - level) + lambda_h * servers),
            (servers, lambda_h, mu, level),
        ),
    )


def __getattr__(name: str) -> object:
    """The Sympy symbols ``level`` (i, the idle servers) and ``band_level`` (b, the upper
    edge of the band) and the Formula ``UP_PROBABILITY``, p(i): the probability that the
    next move of the reject-all-L idle count is up.  They are made when first asked for,
    so that importing this module does not import Sympy (the walk's numbers call the
    evaluator generated from ``UP_PROBABILITY``, ``qtheory/walks/_generated.py``)."""
    if name in ("level", "band_level", "UP_PROBABILITY"):
        return getattr(_symbolic(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_BYTES_PER_LEVEL = 64  # a few float arrays and a sparse tridiagonal generator


@cache
def derive_limit_up_probability() -> sp.Expr:
    r"""Sympy's :math:`\lim_{N\to\infty} p(\sqrt N)`, the drift of the walk near zero.

    Returns
    -------
    sympy.Expr
        :math:`\mu/(\mu + \lambda_H)`.

    References
    ----------
    See the module's References: Bray (2026); docs/loss-network.md.

    Examples
    --------
    >>> derive_limit_up_probability()
    mu/(lambda_H + mu)
    """
    import sympy as sp

    from qtheory.model.lossnet_symbols import servers

    at_band = _symbolic().UP_PROBABILITY.expr.subs(_symbolic().level, sp.sqrt(servers))
    return sp.simplify(sp.limit(at_band, servers, sp.oo))


@dataclass(frozen=True)
class IdleWalk:
    """The reject-all-L idle process of a loss network with N servers.

    Parameters
    ----------
    servers : int
        N >= 1.
    lambda_h, mu : float
        Per-server H arrival rate and service rate, 0 < lambda_h < mu (the L rate and the
        rewards do not enter).

    Raises
    ------
    ValueError
        If ``servers`` is not an integer >= 1, a rate is not finite and > 0, or
        lambda_h >= mu.

    References
    ----------
    See the module's References: Bray (2026), the coupling behind Theorems 1 and 2;
    docs/loss-network.md.

    Examples
    --------
    >>> walk = IdleWalk.from_network(LossNetwork(4, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> walk.up_rates(), walk.down_rates()
    (array([4., 3., 2., 1., 0.]), array([0. , 2.4, 2.4, 2.4, 2.4]))
    """

    servers: int
    lambda_h: float
    mu: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "servers", validation.positive_int("servers", self.servers))
        for name in ("lambda_h", "mu"):
            object.__setattr__(self, name, validation.positive(name, getattr(self, name)))
        if not self.lambda_h < self.mu:
            raise ValueError(f"lambda_h must be < mu, got lambda_h={self.lambda_h}, mu={self.mu}")

    @classmethod
    def from_network(cls, net: LossNetwork) -> IdleWalk:
        """The idle process of ``net`` under reject-all-L (TypeError for another type).

        Parameters
        ----------
        net : LossNetwork
            The network; its servers, H arrival rate and service rate are kept (the L
            rate and the rewards do not enter).

        Returns
        -------
        IdleWalk
            ``IdleWalk(net.servers, net.lambda_h, net.mu)``.

        Raises
        ------
        TypeError
            If ``net`` is not a :class:`~qtheory.model.lossnet.LossNetwork`.
        ValueError
            If ``net.lambda_h >= net.mu`` (see the class).

        Examples
        --------
        >>> walk = IdleWalk.from_network(LossNetwork(4, 0.6, 0.8, 1.0, 2.0, 1.0))
        >>> walk.servers, walk.lambda_h, walk.mu
        (4, 0.6, 1.0)
        """
        net = two_classes(net)
        return cls(net.servers, net.lambda_h, net.mu)

    def _levels(self) -> np.ndarray:
        """The levels 0..N as floats, after the memory estimate of their arrays."""
        limits.require(
            "memory",
            _BYTES_PER_LEVEL * (self.servers + 1.0),
            parameter="servers",
            what="arrays over the idle levels 0..N",
        )
        return np.arange(self.servers + 1, dtype=float)

    @property
    def band(self) -> int:
        """PFI's target level floor(sqrt(N)).

        Returns
        -------
        int
            :math:`b = \\lfloor\\sqrt N\\rfloor` (``math.isqrt``, exact for every N).

        References
        ----------
        See the module's References: Bray (2026), the policy PFI; docs/loss-network.md.

        Examples
        --------
        >>> IdleWalk(4, 0.6, 1.0).band, IdleWalk(10, 0.6, 1.0).band
        (2, 3)
        """
        return math.isqrt(self.servers)

    def up_rates(self) -> np.ndarray:
        """mu (N - i) for i = 0..N.

        The rate at which a service ends, i.e. the idle count moves up, at level i.

        Returns
        -------
        numpy.ndarray
            Float array of length N + 1.

        Raises
        ------
        ValueError
            If the arrays over the N + 1 levels are above the memory limit of
            :mod:`qtheory.core.limits` (the message names ``servers``).

        Examples
        --------
        >>> IdleWalk(4, 0.6, 1.0).up_rates()
        array([4., 3., 2., 1., 0.])
        """
        return self.mu * (self.servers - self._levels())

    def down_rates(self) -> np.ndarray:
        """lambda_H N for i = 1..N, and 0 at i = 0 (an H arriving to no idle server is lost).

        Returns
        -------
        numpy.ndarray
            Float array of length N + 1.

        Raises
        ------
        ValueError
            If the arrays over the N + 1 levels are above the memory limit of
            :mod:`qtheory.core.limits` (the message names ``servers``).

        Examples
        --------
        >>> IdleWalk(4, 0.6, 1.0).down_rates()
        array([0. , 2.4, 2.4, 2.4, 2.4])
        """
        rates = np.full_like(self._levels(), self.lambda_h * self.servers)
        rates[0] = 0.0
        return rates

    def generator(self) -> sparse.csr_matrix:
        """Sparse CTMC generator on the levels 0..N (for :mod:`qtheory.exact.ctmc`).

        Tridiagonal: :math:`Q_{i,i+1} = \\mu(N - i)`, :math:`Q_{i,i-1} = \\lambda_H N`
        for :math:`i \\ge 1`, and each diagonal entry minus its row's off-diagonal sum.

        Returns
        -------
        scipy.sparse.csr_matrix
            The (N + 1) x (N + 1) generator; its rows sum to 0.

        Raises
        ------
        ValueError
            If the arrays over the N + 1 levels are above the memory limit of
            :mod:`qtheory.core.limits` (the message names ``servers``).

        References
        ----------
        .. [1] S. Asmussen, Applied Probability and Queues, 2nd ed. (Springer 2003),
           Ch. II (Markov jump processes).

        Examples
        --------
        >>> q = IdleWalk(2, 0.6, 1.0).generator().toarray()
        >>> q.round(6).tolist()
        [[-2.0, 2.0, 0.0], [1.2, -2.2, 1.0], [0.0, 1.2, -1.2]]
        """
        up, down = self.up_rates(), self.down_rates()
        rates = sparse.diags([up[:-1], down[1:]], [1, -1], format="csr")
        return generator(rates)

    def up_probabilities(self) -> np.ndarray:
        """p(i) of the embedded jump chain for i = 0..N (p(0) = 1, p(N) = 0).

        :math:`p(i) = \\mu(N - i)/(\\mu(N - i) + \\lambda_H N)` for :math:`i \\ge 1`
        (``UP_PROBABILITY``), decreasing in :math:`i`.

        Returns
        -------
        numpy.ndarray
            Float array of length N + 1.

        Raises
        ------
        ValueError
            If the arrays over the N + 1 levels are above the memory limit of
            :mod:`qtheory.core.limits` (the message names ``servers``).

        References
        ----------
        See the module's References: Bray (2026); docs/loss-network.md.

        Examples
        --------
        >>> IdleWalk(4, 0.6, 1.0).up_probabilities().round(6)  # 3/5.4, 2/4.4, 1/3.4
        array([1.      , 0.555556, 0.454545, 0.294118, 0.      ])
        """
        probabilities = _generated.idle_up_probability_float64(
            self.servers, self.lambda_h, self.mu, self._levels()
        )
        probabilities[0] = 1.0
        return probabilities

    def coupled_up_probability(self, band: int | None = None) -> float:
        """p_b = p(b), the up-probability of the walk that the chain dominates on I <= b.

        Parameters
        ----------
        band : int, optional
            b, an integer in 1..N (default floor(sqrt(N))).

        Returns
        -------
        float
            mu (N - b) / (mu (N - b) + lambda_H N).

        Raises
        ------
        ValueError
            If ``band`` is not an integer in 1..N.

        Examples
        --------
        >>> round(IdleWalk(100, 0.6, 1.0).coupled_up_probability(20), 6)  # 80 / (80 + 60)
        0.571429
        """
        band = self.band if band is None else self._check_band(band)
        return float(
            _generated.idle_up_probability_float64(
                self.servers, self.lambda_h, self.mu, float(band)
            )
        )

    @property
    def limit_up_probability(self) -> float:
        """p_inf = mu / (mu + lambda_H), an upper bound on p(i) for every i >= 1.

        The limit of :math:`p(\\lfloor\\sqrt N\\rfloor)` as :math:`N \\to \\infty`
        (:func:`derive_limit_up_probability`); the walk with this up-probability climbs
        more easily than the chain (lower bounds on ruin probabilities).

        Returns
        -------
        float
            :math:`\\mu/(\\mu + \\lambda_H)`.

        References
        ----------
        See the module's References: Bray (2026); docs/loss-network.md.

        Examples
        --------
        >>> round(IdleWalk(4, 0.6, 1.0).limit_up_probability, 6)  # 1 / 1.6
        0.625
        """
        return self.mu / (self.mu + self.lambda_h)

    def _check_band(self, band: object) -> int:
        band = validation.positive_int("band", band)
        if band > self.servers:
            raise ValueError(f"band must be <= servers = {self.servers}, got {band}")
        return band


def check_walk(walk: object) -> IdleWalk:
    """``walk`` after checking that it is an :class:`IdleWalk`.

    Parameters
    ----------
    walk : object
        The value to check.

    Returns
    -------
    IdleWalk
        ``walk`` itself.

    Raises
    ------
    TypeError
        If ``walk`` is not an IdleWalk (the message names ``walk``).

    Examples
    --------
    >>> check_walk(IdleWalk(4, 0.6, 1.0)).band
    2
    """
    if not isinstance(walk, IdleWalk):
        raise TypeError(f"walk must be an IdleWalk, got {type(walk).__name__}")
    return walk
