r"""Claims from the papers as checkable records.

Every claim a paper makes becomes a function that computes the quantities involved and
returns a :class:`Claim`: the report (:mod:`qtheory.report.claims`) and the tests
consume the same records.

Examples
--------
>>> slope = Claim("demo.slope", "regret ~ c log N", 1.01, 1.0, 0.05, True, "a paper",
...               quantity="fitted slope", ci_halfwidth=0.02)
>>> exact = Claim("demo.exact", "an identity", 0.0, 0.0, 1e-12, False, "a book")
>>> claims_summary([slope, exact])
'1 of 2 claims pass; FAIL: demo.exact'
>>> from qtheory.stats import Estimate
>>> fitted = Estimate(1.01, 0.02, 12, "regression", 10)
>>> Claim("demo.fit", "regret ~ c log N", fitted.mean, 1.0, 0.05, True, "a paper",
...       estimate=fitted).ci_halfwidth
0.02
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from qtheory.stats import Estimate

__all__ = ["Claim", "claims_summary"]


@dataclass(frozen=True)
class Claim:
    """One checked statement.

    Attributes
    ----------
    name
        Short identifier, e.g. ``"gated.dominance"``.
    statement
        The claim in words, as the paper states it.
    value
        The measured quantity.
    reference
        The value or bound it is compared with.
    tolerance
        The allowed discrepancy (absolute unless ``statement`` says otherwise).
    passed
        Whether the check held.
    source
        Where the claim comes from (paper and section).
    quantity
        What ``value`` measures, e.g. ``"fitted slope of regret on log N"``.
    ci_halfwidth
        Half-width of the 95% confidence interval of ``value``; NaN when ``value`` is
        exact (computed, not estimated).  Set from ``estimate`` when that is given;
        passing it directly is the older form, kept until every claim passes
        ``estimate``.
    estimate
        The :class:`~qtheory.stats.Estimate` behind ``value`` (its ``mean``) when
        ``value`` is estimated; None when it is exact.

    Raises
    ------
    ValueError
        If both ``estimate`` and a different ``ci_halfwidth`` are given, or
        ``estimate`` is not an :class:`~qtheory.stats.Estimate`.

    Examples
    --------
    >>> from qtheory.stats import Estimate
    >>> claim = Claim("demo.mean", "the mean is 1", 1.02, 1.0, 0.05, True, "none",
    ...               estimate=Estimate(1.02, 0.03, 10, "t", 9))
    >>> claim.ci_halfwidth, math.isnan(Claim("x", "s", 1.0, 1.0, 0.0, True, "S").ci_halfwidth)
    (0.03, True)
    >>> Claim("x", "s", 1.0, 1.0, 0.0, True, "S", ci_halfwidth=0.1,
    ...       estimate=Estimate(1.0, 0.2, 10, "t", 9))
    Traceback (most recent call last):
    ...
    ValueError: ci_halfwidth 0.1 disagrees with estimate.halfwidth 0.2; pass estimate only
    """

    name: str
    statement: str
    value: float
    reference: float
    tolerance: float
    passed: bool
    source: str
    quantity: str = ""
    ci_halfwidth: float = math.nan
    estimate: Estimate | None = None

    def __post_init__(self) -> None:
        if self.estimate is None:
            return
        if not isinstance(self.estimate, Estimate):
            raise ValueError(f"estimate must be a qtheory.stats.Estimate, got {self.estimate!r}")
        given = self.ci_halfwidth
        if not (math.isnan(given) or given == self.estimate.halfwidth):
            raise ValueError(
                f"ci_halfwidth {given!r} disagrees with estimate.halfwidth "
                f"{self.estimate.halfwidth!r}; pass estimate only"
            )
        object.__setattr__(self, "ci_halfwidth", self.estimate.halfwidth)


def claims_summary(claims: Sequence[Claim]) -> str:
    """One line: how many claims pass, and the names of those that fail.

    Parameters
    ----------
    claims : sequence of Claim

    Returns
    -------
    str
        ``"k of n claims pass"``, followed by ``"; FAIL: name, ..."`` when some fail.

    Examples
    --------
    >>> claims_summary([Claim("a", "s", 1.0, 1.0, 0.0, True, "S")])
    '1 of 1 claims pass'
    >>> claims_summary([Claim("a", "s", 1.0, 1.0, 0.0, True, "S"),
    ...                 Claim("b", "s", 2.0, 1.0, 0.5, False, "S")])
    '1 of 2 claims pass; FAIL: b'
    """
    failed = [c.name for c in claims if not c.passed]
    line = f"{len(claims) - len(failed)} of {len(claims)} claims pass"
    return line + (f"; FAIL: {', '.join(failed)}" if failed else "")
