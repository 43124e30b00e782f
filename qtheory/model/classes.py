r"""The overloaded loss network with n customer classes.

N identical servers and no queue.  Class j = 1..n arrives Poisson(λ_j N); an admitted
job holds one server for an Exp(μ) time and pays r_j on admission, with
r_1 > r_2 > … > r_n > 0.  The network is overloaded, Σ_j λ_j > μ, while class 1 alone
fits, λ_1 < μ.  The fluid LP admits the classes in reward order until the capacity μ is
used up; the *marginal* class m is the one that fills it,

.. math:: \bar\lambda_{m-1} < \mu < \bar\lambda_m,
          \qquad \bar\lambda_j = \lambda_1 + \dots + \lambda_j,

so classes above m are served in full, class m in part and classes below m not at all.
A partial sum equal to μ (a degenerate fluid LP, whose dual is not unique) is rejected.

With n = 2 this is :class:`qtheory.model.lossnet.LossNetwork` (class H = 1, L = 2);
:func:`as_classes` turns either into a :class:`ClassNetwork`, so that every n-class
routine also accepts the two-class network, and :func:`as_two_class` turns a two-class
:class:`ClassNetwork` into a :class:`LossNetwork` (for the two-class closed forms).

References
----------
.. [1] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable
   resources: logarithmic regret in overloaded networks", Operations Research 73(4)
   (2025).
.. [2] B. L. Miller, "A queueing reward system with several customer classes",
   Management Science 16(3):234-245 (1969).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from qtheory.core import validation
from qtheory.model.lossnet import LossNetwork

__all__ = ["ClassNetwork", "as_classes", "as_two_class", "class_count"]


def _rates(name: str, values: object) -> tuple[float, ...]:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise ValueError(f"{name} must be a sequence of numbers, got {values!r:.60}")
    return tuple(validation.positive(f"{name}[{i}]", v) for i, v in enumerate(values))


@dataclass(frozen=True)
class ClassNetwork:
    """Parameters of the n-class loss network, validated on construction.

    Parameters
    ----------
    servers : int
        N >= 1, the number of servers.
    lambdas : sequence of float
        λ_1, …, λ_n > 0, the arrival rates per server (the network sees λ_j N).
    rewards : sequence of float
        r_1 > … > r_n > 0, the rewards paid on admission.
    mu : float
        Service rate of every job.

    Attributes
    ----------
    n_classes : int
        n >= 2.
    marginal : int
        The 0-based index of the marginal class (the class the fluid LP serves in part).

    Raises
    ------
    ValueError
        Naming the parameter: lengths that differ or n < 2, a non-positive or
        non-finite value, rewards not strictly decreasing, λ_1 >= μ (class 1 alone must
        fit), Σ λ_j <= μ (not overloaded), a partial sum λ_1 + … + λ_j equal to μ
        (degenerate fluid LP), or rates that overflow float64.

    Examples
    --------
    >>> net = ClassNetwork(servers=100, lambdas=(0.3, 0.9, 0.6), rewards=(3, 2, 1), mu=1)
    >>> net.n_classes, net.marginal
    (3, 1)
    >>> ClassNetwork(100, (0.3, 0.5), (1, 2), 1)
    Traceback (most recent call last):
    ...
    ValueError: rewards must be strictly decreasing (r_1 > r_2 > ...), got rewards=(1.0, 2.0)
    """

    servers: int
    lambdas: tuple[float, ...]
    rewards: tuple[float, ...]
    mu: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "servers", validation.positive_int("servers", self.servers))
        lambdas = _rates("lambdas", self.lambdas)
        rewards = _rates("rewards", self.rewards)
        object.__setattr__(self, "lambdas", lambdas)
        object.__setattr__(self, "rewards", rewards)
        object.__setattr__(self, "mu", validation.positive("mu", self.mu))
        if len(lambdas) != len(rewards):
            raise ValueError(
                "lambdas and rewards must have the same length, "
                f"got {len(lambdas)} rates and {len(rewards)} rewards"
            )
        if len(lambdas) < 2:
            raise ValueError(f"lambdas must name at least 2 classes, got {len(lambdas)}")
        if any(not a > b for a, b in zip(rewards, rewards[1:], strict=False)):
            raise ValueError(
                f"rewards must be strictly decreasing (r_1 > r_2 > ...), got rewards={rewards}"
            )
        if not lambdas[0] < self.mu:
            raise ValueError(
                "lambdas[0] must be < mu (class 1 alone must fit), "
                f"got lambdas[0]={lambdas[0]}, mu={self.mu}"
            )
        partial = [math.fsum(lambdas[: j + 1]) for j in range(len(lambdas))]
        if not partial[-1] > self.mu:
            raise ValueError(
                "sum(lambdas) must be > mu (the network is overloaded), "
                f"got sum(lambdas)={partial[-1]}, mu={self.mu}"
            )
        if self.mu in partial:
            raise ValueError(
                "no partial sum lambdas[0] + ... + lambdas[j] may equal mu (the fluid LP "
                f"would be degenerate), got partial sums {tuple(partial)}, mu={self.mu}"
            )
        scale = partial[-1] * self.servers * max(rewards[0], self.mu)
        if not math.isfinite(scale * rewards[0] / rewards[-1]):
            raise ValueError(
                "rates, rewards and servers overflow float64 "
                "(sum(lambdas) * servers * rewards[0] must stay finite)"
            )

    @property
    def n_classes(self) -> int:
        """n, the number of classes."""
        return len(self.lambdas)

    @property
    def marginal(self) -> int:
        """The 0-based index m of the marginal class: λ_1 + … + λ_m < μ < λ_1 + … + λ_{m+1}
        in 1-based terms, i.e. the first class whose partial sum exceeds μ.

        >>> ClassNetwork(10, (0.3, 0.5, 0.6, 0.2), (4, 3, 2, 1), 1.0).marginal
        2
        """
        total = 0.0
        for j, rate in enumerate(self.lambdas):
            total = math.fsum((total, rate))
            if total > self.mu:
                return j
        raise AssertionError("unreachable: the constructor checks sum(lambdas) > mu")

    @property
    def arrival_rates(self) -> tuple[float, ...]:
        """λ_j N, the arrival rate of each class."""
        return tuple(rate * self.servers for rate in self.lambdas)

    @property
    def event_rate(self) -> float:
        """(Σ λ_j + μ) N, the rate of clock-model events (arrivals and potential
        departures)."""
        return (math.fsum(self.lambdas) + self.mu) * self.servers

    def with_servers(self, servers: int) -> ClassNetwork:
        """The same rates and rewards at another scale N.

        >>> ClassNetwork(10, (0.3, 0.5, 0.6), (3, 2, 1), 1).with_servers(1000).arrival_rates
        (300.0, 500.0, 600.0)
        """
        return ClassNetwork(servers, self.lambdas, self.rewards, self.mu)


def class_count(n: object) -> int:
    """``n``, a number of classes of a symbolic network, after checking that it is an
    integer >= 2.

    Parameters
    ----------
    n : int
        The number of classes.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``n`` is not an integer >= 2 (naming ``n``).

    Examples
    --------
    >>> class_count(3)
    3
    >>> class_count(1)
    Traceback (most recent call last):
    ...
    ValueError: n must be >= 2, got 1
    """
    n = validation.positive_int("n", n)
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    return n


def as_classes(net: object, name: str = "net") -> ClassNetwork:
    """``net`` as a :class:`ClassNetwork`: a two-class :class:`LossNetwork` becomes the
    network with classes (H, L); a :class:`ClassNetwork` is returned as it is.

    Parameters
    ----------
    net : ClassNetwork or LossNetwork
        The value passed by the caller.
    name : str, optional
        The parameter's name, for the error message (default ``"net"``).

    Returns
    -------
    ClassNetwork

    Raises
    ------
    TypeError
        If ``net`` is neither.

    Examples
    --------
    >>> two = LossNetwork(servers=100, lambda_h=0.6, lambda_l=0.8, mu=1.0, r_h=2.0, r_l=1.0)
    >>> as_classes(two)
    ClassNetwork(servers=100, lambdas=(0.6, 0.8), rewards=(2.0, 1.0), mu=1.0)
    """
    if isinstance(net, ClassNetwork):
        return net
    two = validation.instance(name, net, (LossNetwork, ClassNetwork))
    return ClassNetwork(two.servers, (two.lambda_h, two.lambda_l), (two.r_h, two.r_l), two.mu)


def as_two_class(net: object, name: str = "net") -> LossNetwork:
    """``net`` as a two-class :class:`LossNetwork`: a :class:`ClassNetwork` of two classes
    becomes the network with classes (H, L) = (1, 2); a :class:`LossNetwork` is returned
    as it is.

    Parameters
    ----------
    net : LossNetwork or ClassNetwork
        The value passed by the caller.
    name : str, optional
        The parameter's name, for the error message (default ``"net"``).

    Returns
    -------
    LossNetwork

    Raises
    ------
    TypeError
        If ``net`` is neither network.
    ValueError
        If ``net`` has more than two classes.

    Examples
    --------
    >>> as_two_class(ClassNetwork(100, (0.6, 0.8), (2.0, 1.0), 1.0))
    LossNetwork(servers=100, lambda_h=0.6, lambda_l=0.8, mu=1.0, r_h=2.0, r_l=1.0)
    """
    net = as_classes(net, name)
    if net.n_classes != 2:
        raise ValueError(f"{name} must have two classes, got {net.n_classes}")
    (lambda_h, lambda_l), (r_h, r_l) = net.lambdas, net.rewards
    return LossNetwork(net.servers, lambda_h, lambda_l, net.mu, r_h, r_l)
