"""The overloaded two-class loss network.

Sources: J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
overloaded loss network" (arXiv:2601.14538); Xie, Gurvich and Küçükyavuz, "Dynamic
allocation of reusable resources: logarithmic regret in overloaded networks"
(Operations Research 73(4), 2025).

N identical servers and no queue.  Class H arrives Poisson(λ_H N) and class L
Poisson(λ_L N); an admitted job holds one server for an Exp(μ) time and pays r_H
(resp. r_L < r_H) on admission.  The network is overloaded: λ_H < μ < λ_H + λ_L, so
capacity suffices for H alone but not for everybody.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from qtheory.core import validation

__all__ = ["LossNetwork", "as_network"]


@dataclass(frozen=True)
class LossNetwork:
    """Parameters of the two-class loss network, validated on construction.

    Parameters
    ----------
    servers : int
        N >= 1, the number of servers.
    lambda_h, lambda_l : float
        Arrival rates per server of classes H and L (the network sees λ_H N and λ_L N).
    mu : float
        Service rate of every job.
    r_h, r_l : float
        Rewards paid on admission, r_H > r_L > 0.

    Raises
    ------
    ValueError
        If a parameter is not a finite positive number (``servers`` not an integer
        >= 1), if λ_H >= μ (class H alone must fit), if λ_H + λ_L <= μ (the network
        must be overloaded), if r_H <= r_L, or if the rates overflow float64.

    References
    ----------
    .. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
       overloaded loss network", arXiv:2601.14538 (2026).
    .. [2] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable
       resources: logarithmic regret in overloaded networks", Operations Research
       73(4) (2025).

    Examples
    --------
    >>> net = LossNetwork(servers=100, lambda_h=0.6, lambda_l=0.8, mu=1.0, r_h=2.0, r_l=1.0)
    >>> net.arrival_rate_h, net.arrival_rate_l
    (60.0, 80.0)
    >>> LossNetwork(servers=100, lambda_h=1.2, lambda_l=0.8, mu=1.0, r_h=2.0, r_l=1.0)
    Traceback (most recent call last):
    ...
    ValueError: lambda_h must be < mu (class H alone must fit), got lambda_h=1.2, mu=1.0
    """

    servers: int
    lambda_h: float
    lambda_l: float
    mu: float
    r_h: float
    r_l: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "servers", validation.positive_int("servers", self.servers))
        for name in ("lambda_h", "lambda_l", "mu", "r_h", "r_l"):
            object.__setattr__(self, name, validation.positive(name, getattr(self, name)))
        if not self.lambda_h < self.mu:
            raise ValueError(
                "lambda_h must be < mu (class H alone must fit), "
                f"got lambda_h={self.lambda_h}, mu={self.mu}"
            )
        if not self.mu < self.lambda_h + self.lambda_l:
            raise ValueError(
                "lambda_h + lambda_l must be > mu (the network is overloaded), "
                f"got lambda_h + lambda_l={self.lambda_h + self.lambda_l}, mu={self.mu}"
            )
        if not self.r_h > self.r_l:
            raise ValueError(f"r_h must be > r_l, got r_h={self.r_h}, r_l={self.r_l}")
        scale = (self.lambda_h + self.lambda_l) * self.servers * max(self.r_h, self.mu)
        if not math.isfinite(scale * max(1.0, self.r_h / self.r_l)):
            raise ValueError(
                "rates, rewards and servers overflow float64 "
                "((lambda_h + lambda_l) * servers * r_h must stay finite)"
            )

    @property
    def arrival_rate_h(self) -> float:
        """λ_H N, the arrival rate of class H."""
        return self.lambda_h * self.servers

    @property
    def arrival_rate_l(self) -> float:
        """λ_L N, the arrival rate of class L."""
        return self.lambda_l * self.servers

    @property
    def event_rate(self) -> float:
        """(λ_H + λ_L + μ) N, the rate of clock-model events (H and L arrivals and
        potential departures); it bounds the job model's event rate."""
        return (self.lambda_h + self.lambda_l + self.mu) * self.servers

    def window(self, c: float) -> float:
        """The look-ahead window W = c log N / N of the SSS(W) policy (c > 0; N >= 2, so
        that W > 0).

        >>> LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0).window(2.0) == 2 * math.log(100) / 100
        True
        """
        c = validation.positive("c", c)
        if self.servers < 2:
            raise ValueError(f"window c log N / N needs servers >= 2, got servers={self.servers}")
        window = c * math.log(self.servers) / self.servers
        if not window > 0:
            raise ValueError(f"c is too small: c log N / N underflows to 0 (c={c!r})")
        return window

    def with_servers(self, servers: int) -> LossNetwork:
        """The same rates and rewards at another scale N.

        >>> LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0).with_servers(1000).arrival_rate_l
        800.0
        """
        return LossNetwork(servers, self.lambda_h, self.lambda_l, self.mu, self.r_h, self.r_l)


def as_network(net: object, name: str = "net") -> LossNetwork:
    """``net`` after checking that it is a :class:`LossNetwork`.

    Parameters
    ----------
    net : object
        The value passed by the caller.
    name : str, optional
        The parameter's name, for the error message (default ``"net"``).

    Returns
    -------
    LossNetwork
        ``net`` itself.

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.

    Examples
    --------
    >>> as_network(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)).servers
    10
    >>> as_network(10)
    Traceback (most recent call last):
    ...
    TypeError: net must be a LossNetwork, got int 10
    """
    return validation.instance(name, net, LossNetwork)
