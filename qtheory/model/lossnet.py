r"""The overloaded loss network: one record, :class:`LossNetwork`, for two classes or n.

N identical servers and no queue.  Class j = 1..n arrives Poisson(λ_j N); an admitted
job holds one server for an Exp(μ) time and pays r_j on admission, with
r_1 > r_2 > … > r_n > 0.  The network is overloaded, Σ_j λ_j > μ, while class 1 alone
fits, λ_1 < μ.  The fluid LP admits the classes in reward order until the capacity μ is
used up; the *marginal* class m is the one that fills it,

.. math:: \bar\lambda_{m-1} < \mu < \bar\lambda_m,
          \qquad \bar\lambda_j = \lambda_1 + \dots + \lambda_j,

so classes above m are served in full, class m in part and classes below m not at all.
A partial sum equal to μ (a degenerate fluid LP, whose dual is not unique) is rejected.

Two classes are the case the proofs are written for: class H = 1 and L = 2, with
λ_H < μ < λ_H + λ_L and r_H > r_L.  :class:`LossNetwork` takes them in either input
form, ``LossNetwork(N, lambda_h, lambda_l, mu, r_h, r_l)`` or
``LossNetwork(N, lambdas, rewards, mu)``; both give the same record, and every routine
of :mod:`qtheory.lossnet` reads :attr:`LossNetwork.n_classes` to take the two-class
closed forms where they apply.

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026).
.. [2] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable
   resources: logarithmic regret in overloaded networks", Operations Research 73(4)
   (2025).
.. [3] B. L. Miller, "A queueing reward system with several customer classes",
   Management Science 16(3):234-245 (1969).
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from qtheory.core import validation

__all__ = ["LossNetwork", "TwoClassesOnlyError", "as_network", "number_of_classes", "two_classes"]

_P = inspect.Parameter
#: The two input forms after ``servers``: n classes, and two classes H and L.
_CLASSES_FORM = inspect.Signature(
    [_P(n, _P.POSITIONAL_OR_KEYWORD) for n in ("lambdas", "rewards", "mu")]
)
_TWO_CLASS_FORM = inspect.Signature(
    [_P(n, _P.POSITIONAL_OR_KEYWORD) for n in ("lambda_h", "lambda_l", "mu", "r_h", "r_l")]
)
_TWO_CLASS_NAMES = frozenset(("lambda_h", "lambda_l", "r_h", "r_l"))


class TwoClassesOnlyError(ValueError, AttributeError):
    """A two-class field (``lambda_h``, ``lambda_l``, ``r_h``, ``r_l``) asked of a network
    with more classes: a ValueError naming the per-class entry to use instead, and an
    AttributeError, so that ``hasattr`` and ``getattr(net, name, default)`` see a
    missing attribute.

    Examples
    --------
    >>> three = LossNetwork(10, (0.3, 0.9, 0.6), (3, 2, 1), 1.0)
    >>> three.r_l  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qtheory.model.lossnet.TwoClassesOnlyError: r_l is defined for two classes ...: use rewards[1]
    >>> hasattr(three, "r_l"), getattr(three, "lambda_h", None)
    (False, None)
    """


def _is_sequence(value: object) -> bool:
    """A sequence of per-class values: a list or tuple, or a 1-D array."""
    if isinstance(value, str):
        return False
    return isinstance(value, Sequence) or getattr(value, "ndim", None) == 1


def _rates(name: str, values: Any) -> tuple[float, ...]:
    if not _is_sequence(values):
        raise ValueError(f"{name} must be a sequence of numbers, got {values!r:.60}")
    return tuple(validation.positive(f"{name}[{i}]", v) for i, v in enumerate(values))


@dataclass(frozen=True, init=False)
class LossNetwork:
    """Parameters of the overloaded loss network, validated on construction.

    Two input forms, one record::

        LossNetwork(servers, lambdas, rewards, mu)               # n >= 2 classes
        LossNetwork(servers, lambda_h, lambda_l, mu, r_h, r_l)   # two classes, H and L

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
    lambda_h, lambda_l, r_h, r_l : float
        The two-class form: ``lambdas = (lambda_h, lambda_l)``,
        ``rewards = (r_h, r_l)``.

    Attributes
    ----------
    n_classes : int
        n >= 2.
    marginal : int
        The 0-based index of the marginal class (the class the fluid LP serves in part).
    lambda_h, lambda_l, r_h, r_l : float
        With two classes, λ_1, λ_2, r_1 and r_2 (a ValueError with more).

    Raises
    ------
    ValueError
        Naming the parameter (in the form it was given): a non-positive or non-finite
        value (``servers`` not an integer >= 1), lengths that differ or n < 2, rewards
        not strictly decreasing, λ_1 >= μ (class 1 alone must fit), Σ λ_j <= μ (not
        overloaded), a partial sum λ_1 + … + λ_j equal to μ (degenerate fluid LP), or
        rates that overflow float64.
    TypeError
        If the arguments fit neither form.

    Examples
    --------
    >>> net = LossNetwork(servers=100, lambda_h=0.6, lambda_l=0.8, mu=1.0, r_h=2.0, r_l=1.0)
    >>> net
    LossNetwork(servers=100, lambdas=(0.6, 0.8), rewards=(2.0, 1.0), mu=1.0)
    >>> net == LossNetwork(100, (0.6, 0.8), (2, 1), 1), net.arrival_rate_h
    (True, 60.0)
    >>> three = LossNetwork(100, (0.3, 0.9, 0.6), (3, 2, 1), 1)
    >>> three.n_classes, three.marginal
    (3, 1)
    >>> LossNetwork(servers=100, lambda_h=1.2, lambda_l=0.8, mu=1.0, r_h=2.0, r_l=1.0)
    Traceback (most recent call last):
    ...
    ValueError: lambda_h must be < mu (class H alone must fit), got lambda_h=1.2, mu=1.0
    >>> LossNetwork(100, (0.3, 0.5), (1, 2), 1)
    Traceback (most recent call last):
    ...
    ValueError: rewards must be strictly decreasing (r_1 > r_2 > ...), got rewards=(1.0, 2.0)
    """

    servers: int
    lambdas: tuple[float, ...]
    rewards: tuple[float, ...]
    mu: float

    def __init__(self, servers: int, *args: object, **kwargs: object) -> None:
        if _TWO_CLASS_NAMES & set(kwargs) and {"lambdas", "rewards"} & set(kwargs):
            raise TypeError(
                "LossNetwork takes lambdas and rewards or lambda_h, lambda_l, r_h and r_l, "
                f"not both: got {', '.join(sorted(kwargs))}"
            )
        two_class = bool(_TWO_CLASS_NAMES & set(kwargs)) or (
            bool(args) and "lambdas" not in kwargs and isinstance(args[0], numbers.Real)
        )
        form = _TWO_CLASS_FORM if two_class else _CLASSES_FORM
        try:
            given = form.bind(*args, **kwargs).arguments
        except TypeError as exc:
            raise TypeError(f"LossNetwork(servers, {', '.join(form.parameters)}): {exc}") from None
        setattr_ = object.__setattr__
        setattr_(self, "servers", validation.positive_int("servers", servers))
        if two_class:
            pair = {name: validation.positive(name, given[name]) for name in form.parameters}
            setattr_(self, "lambdas", (pair["lambda_h"], pair["lambda_l"]))
            setattr_(self, "rewards", (pair["r_h"], pair["r_l"]))
        else:
            setattr_(self, "lambdas", _rates("lambdas", given["lambdas"]))
            setattr_(self, "rewards", _rates("rewards", given["rewards"]))
        setattr_(self, "mu", validation.positive("mu", given["mu"]))
        if two_class:
            self._check_two_class()
        else:
            self._check_classes()

    def _check_two_class(self) -> None:
        (lambda_h, lambda_l), (r_h, r_l), mu = self.lambdas, self.rewards, self.mu
        if not lambda_h < mu:
            raise ValueError(
                f"lambda_h must be < mu (class H alone must fit), got lambda_h={lambda_h}, mu={mu}"
            )
        if not mu < lambda_h + lambda_l:
            raise ValueError(
                "lambda_h + lambda_l must be > mu (the network is overloaded), "
                f"got lambda_h + lambda_l={lambda_h + lambda_l}, mu={mu}"
            )
        if not r_h > r_l:
            raise ValueError(f"r_h must be > r_l, got r_h={r_h}, r_l={r_l}")
        self._check_overflow("(lambda_h + lambda_l) * servers * r_h", self._partial_sums()[-1])

    def _check_classes(self) -> None:
        lambdas, rewards, mu = self.lambdas, self.rewards, self.mu
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
        if not lambdas[0] < mu:
            raise ValueError(
                "lambdas[0] must be < mu (class 1 alone must fit), "
                f"got lambdas[0]={lambdas[0]}, mu={mu}"
            )
        partial = self._partial_sums()
        if not partial[-1] > mu:
            raise ValueError(
                "sum(lambdas) must be > mu (the network is overloaded), "
                f"got sum(lambdas)={partial[-1]}, mu={mu}"
            )
        if mu in partial:
            raise ValueError(
                "no partial sum lambdas[0] + ... + lambdas[j] may equal mu (the fluid LP "
                f"would be degenerate), got partial sums {partial}, mu={mu}"
            )
        self._check_overflow("sum(lambdas) * servers * rewards[0]", partial[-1])

    def _partial_sums(self) -> tuple[float, ...]:
        """λ_1 + … + λ_j for each j, correctly rounded (inf beyond float64)."""
        sums = []
        for j in range(len(self.lambdas)):
            try:
                sums.append(math.fsum(self.lambdas[: j + 1]))
            except OverflowError:  # fsum refuses an intermediate beyond float64
                sums.append(math.inf)
        return tuple(sums)

    def _check_overflow(self, product: str, total: float) -> None:
        """Refuse rates whose ``total`` λ_1 + … + λ_n, times N and the rewards, leaves
        float64."""
        top, bottom = self.rewards[0], self.rewards[-1]
        scale = total * self.servers * max(top, self.mu)
        if not math.isfinite(scale * (top / bottom)):
            raise ValueError(
                f"rates, rewards and servers overflow float64 ({product} must stay finite)"
            )

    @property
    def n_classes(self) -> int:
        """n, the number of classes."""
        return len(self.lambdas)

    @property
    def marginal(self) -> int:
        """The 0-based index m of the marginal class: λ_1 + … + λ_m < μ < λ_1 + … + λ_{m+1}
        in 1-based terms, i.e. the first class whose partial sum exceeds μ.

        >>> LossNetwork(10, (0.3, 0.5, 0.6, 0.2), (4, 3, 2, 1), 1.0).marginal
        2
        """
        return next(j for j, total in enumerate(self._partial_sums()) if total > self.mu)

    @property
    def arrival_rates(self) -> tuple[float, ...]:
        """λ_j N, the arrival rate of each class."""
        return tuple(rate * self.servers for rate in self.lambdas)

    @property
    def event_rate(self) -> float:
        """(Σ λ_j + μ) N, the rate of clock-model events (arrivals and potential
        departures); it bounds the job model's event rate."""
        return (math.fsum(self.lambdas) + self.mu) * self.servers

    def _two(self, values: tuple[float, ...], name: str, index: int) -> float:
        if len(values) != 2:
            raise TwoClassesOnlyError(
                f"{name} is defined for two classes (H and L); this network has "
                f"{len(values)}: use {'lambdas' if name.startswith('lambda') else 'rewards'}"
                f"[{index}]"
            )
        return values[index]

    @property
    def lambda_h(self) -> float:
        """λ_H = λ_1, two classes only."""
        return self._two(self.lambdas, "lambda_h", 0)

    @property
    def lambda_l(self) -> float:
        """λ_L = λ_2, two classes only."""
        return self._two(self.lambdas, "lambda_l", 1)

    @property
    def r_h(self) -> float:
        """r_H = r_1, two classes only."""
        return self._two(self.rewards, "r_h", 0)

    @property
    def r_l(self) -> float:
        """r_L = r_2, two classes only."""
        return self._two(self.rewards, "r_l", 1)

    @property
    def arrival_rate_h(self) -> float:
        """λ_H N, the arrival rate of class H (two classes only)."""
        return self.lambda_h * self.servers

    @property
    def arrival_rate_l(self) -> float:
        """λ_L N, the arrival rate of class L (two classes only)."""
        return self.lambda_l * self.servers

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
        return LossNetwork(servers, self.lambdas, self.rewards, self.mu)


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


def two_classes(net: object, name: str = "net") -> LossNetwork:
    """``net`` after checking that it is a :class:`LossNetwork` of two classes (H and
    L), for the routines written for two classes only (the random-walk bounds, the job
    model).

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
    ValueError
        If it has more than two classes.

    Examples
    --------
    >>> two_classes(LossNetwork(10, (0.3, 0.9, 0.6), (3, 2, 1), 1.0))
    Traceback (most recent call last):
    ...
    ValueError: net must have two classes (H and L), got 3
    """
    net = as_network(net, name)
    if net.n_classes != 2:
        raise ValueError(f"{name} must have two classes (H and L), got {net.n_classes}")
    return net


def number_of_classes(n: object) -> int:
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
    >>> number_of_classes(3)
    3
    >>> number_of_classes(1)
    Traceback (most recent call last):
    ...
    ValueError: n must be >= 2, got 1
    """
    n = validation.positive_int("n", n)
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    return n
