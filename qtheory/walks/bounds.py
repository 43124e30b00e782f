"""A bound set against the exact value it bounds: the record every check in
:mod:`qtheory.walks` returns, and the report and the tests consume."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["BoundCheck"]


@dataclass(frozen=True)
class BoundCheck:
    """One bound evaluated next to the exact quantity.

    Attributes
    ----------
    name : str
        What is bounded, e.g. ``"P_i(hit 0 before b)"``.
    servers : int
        N.
    point : str
        Where it is evaluated, in words (e.g. ``"i=1, b=10"``).
    direction : str
        ``"upper"`` (bound >= exact is claimed) or ``"lower"`` (bound <= exact).
    bound, exact : float
        The two values.
    log_exact : float, optional
        The natural logarithm of the exact value where that value is beyond float64
        (``exact`` is then inf), computed in log space; None otherwise.
    spec : dict, optional
        The bound's family and exact arguments (integers, rationals as text), from
        which :func:`qtheory.walks.certify.enclose` encloses both sides in ball
        arithmetic; None for a check that is not certified.

    Raises
    ------
    ValueError
        If ``direction`` is not ``"upper"`` or ``"lower"``.

    References
    ----------
    .. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
       overloaded loss network", arXiv:2601.14538 (2026); docs/loss-network.md (the
       bounds each check sets against its exact value).

    Examples
    --------
    >>> check = BoundCheck("P(X >= 5)", 10, "X ~ Poisson(2)", "upper", 0.1, 0.05)
    >>> check.holds, round(check.ratio, 6)
    (True, 2.0)
    """

    name: str
    servers: int
    point: str
    direction: str
    bound: float
    exact: float
    spec: dict | None = field(default=None, compare=False)
    log_exact: float | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.direction not in ("upper", "lower"):
            raise ValueError(f"direction must be 'upper' or 'lower', got {self.direction!r}")

    @property
    def holds(self) -> bool:
        """Whether the bound is on its claimed side of the exact value.

        Returns
        -------
        bool
            ``bound >= exact`` for an upper bound, ``bound <= exact`` for a lower one
            (equality holds; NaN in either value gives False).

        Examples
        --------
        >>> BoundCheck("p", 4, "i=1", "lower", 0.3, 0.25).holds
        False
        >>> BoundCheck("p", 4, "i=1", "lower", 0.25, 0.25).holds
        True
        """
        if self.direction == "upper":
            return self.bound >= self.exact
        return self.bound <= self.exact

    def holds_within(self, slack: float) -> bool:
        """Whether the bound is on its side up to a relative ``slack`` (round-off of the
        two evaluations where the bound is tight).

        An upper bound holds within ``slack`` when ``bound >= exact * (1 - slack)``, a
        lower bound when ``bound <= exact * (1 + slack)``.

        Parameters
        ----------
        slack : float
            Relative tolerance, e.g. ``1e-12``; 0 gives :attr:`holds` (for exact >= 0).

        Returns
        -------
        bool
            Whether the bound is on its side up to the tolerance.

        Examples
        --------
        >>> BoundCheck("p", 4, "i=1", "upper", 0.5 - 1e-16, 0.5).holds
        False
        >>> BoundCheck("p", 4, "i=1", "upper", 0.5 - 1e-16, 0.5).holds_within(1e-12)
        True
        """
        if self.direction == "upper":
            return self.bound >= self.exact * (1 - slack)
        return self.bound <= self.exact * (1 + slack)

    @property
    def ratio(self) -> float:
        """bound / exact (tightness: 1 is exact; NaN when exact is 0).

        Returns
        -------
        float
            ``bound / exact``, or ``math.nan`` when ``exact == 0``.

        Examples
        --------
        >>> round(BoundCheck("p", 4, "i=1", "upper", 0.3, 0.25).ratio, 6)
        1.2
        >>> math.isnan(BoundCheck("p", 4, "i=1", "upper", 0.3, 0.0).ratio)
        True
        """
        return self.bound / self.exact if self.exact != 0 else math.nan

    @property
    def log_ratio(self) -> float:
        """log(bound / exact), from :attr:`log_exact` where the exact value is beyond
        float64 (where :attr:`ratio` is 0).

        Returns
        -------
        float
            ``log(bound) - log(exact)``; ``-inf`` for a bound of 0, NaN when exact is 0 or
            either is negative.

        Examples
        --------
        >>> check = BoundCheck("E[T]", 4, "i=1", "lower", 1.0, math.inf, log_exact=1000.0)
        >>> check.ratio, check.log_ratio
        (0.0, -1000.0)
        """
        exact = self.log_exact if self.log_exact is not None else _log(self.exact)
        return _log(self.bound) - exact if exact > -math.inf else math.nan


def _log(x: float) -> float:
    """The natural logarithm, -inf at 0 and NaN below."""
    if math.isnan(x) or x < 0:
        return math.nan
    return math.log(x) if x > 0 else -math.inf
