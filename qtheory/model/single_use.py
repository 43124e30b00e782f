"""Single-use resources: the overloaded loss network's parameters without departures.

N units and a horizon T.  Class H arrives Poisson(λ_H N) and class L Poisson(λ_L N)
on [0, T]; an accepted job pays r_H (resp. r_L < r_H) and keeps its unit for ever.  This
is the dynamic stochastic knapsack with two types (Kleywegt and Papastavrou,
Operations Research 46(1), 1998), the contrast that the loss-network papers draw with
reusable servers; its optima live in :mod:`qtheory.lossnet.single_use`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from qtheory.core import validation

__all__ = ["SingleUseNetwork"]


@dataclass(frozen=True)
class SingleUseNetwork:
    """Parameters of the single-use (no departures) two-class network, validated on
    construction.  The fields are those of :class:`~qtheory.model.lossnet.LossNetwork`
    with the horizon T in the place of μ.

    Parameters
    ----------
    servers : int
        N >= 1, the number of units.
    lambda_h, lambda_l : float
        Arrival rates per unit of classes H and L (the network sees λ_H N and λ_L N).
    horizon : float
        T > 0, the length of the selling period.
    r_h, r_l : float
        Rewards paid on acceptance, r_H > r_L > 0.

    Raises
    ------
    ValueError
        If a parameter is not a finite positive number (``servers`` not an integer
        >= 1), if r_H <= r_L, or if (λ_H + λ_L) N T r_H overflows float64.  No load
        condition is imposed: any λ_H, λ_L > 0 is a valid single-use network.

    References
    ----------
    .. [1] A. J. Kleywegt and J. D. Papastavrou, "The dynamic and stochastic knapsack
       problem", Operations Research 46(1):17-35 (1998).

    Examples
    --------
    >>> net = SingleUseNetwork(servers=100, lambda_h=0.6, lambda_l=0.8, horizon=1.0,
    ...                        r_h=2.0, r_l=1.0)
    >>> net.arrival_rate_h, net.mean_h, net.mean_l
    (60.0, 60.0, 80.0)
    >>> SingleUseNetwork(100, 0.6, 0.8, 0.0, 2.0, 1.0)
    Traceback (most recent call last):
    ...
    ValueError: horizon must be > 0, got 0.0
    """

    servers: int
    lambda_h: float
    lambda_l: float
    horizon: float
    r_h: float
    r_l: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "servers", validation.positive_int("servers", self.servers))
        for name in ("lambda_h", "lambda_l", "horizon", "r_h", "r_l"):
            object.__setattr__(self, name, validation.positive(name, getattr(self, name)))
        if not self.r_h > self.r_l:
            raise ValueError(f"r_h must be > r_l, got r_h={self.r_h}, r_l={self.r_l}")
        scale = (self.lambda_h + self.lambda_l) * self.servers * self.horizon * self.r_h
        if not math.isfinite(scale * max(1.0, self.r_h / self.r_l)):
            raise ValueError(
                "rates, rewards, horizon and servers overflow float64 "
                "((lambda_h + lambda_l) * servers * horizon * r_h must stay finite)"
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
    def mean_h(self) -> float:
        """λ_H N T, the mean number of H arrivals over the horizon."""
        return self.arrival_rate_h * self.horizon

    @property
    def mean_l(self) -> float:
        """λ_L N T, the mean number of L arrivals over the horizon."""
        return self.arrival_rate_l * self.horizon

    def with_servers(self, servers: int) -> SingleUseNetwork:
        """The same rates, horizon and rewards at another scale N.

        >>> SingleUseNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0).with_servers(1000).mean_l
        800.0
        """
        return SingleUseNetwork(
            servers, self.lambda_h, self.lambda_l, self.horizon, self.r_h, self.r_l
        )
