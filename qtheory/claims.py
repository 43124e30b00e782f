"""Claims from the papers as checkable records.

Every claim a paper makes becomes a function that computes the quantities involved and
returns a :class:`Claim`: the report and the tests consume the same records.
"""

from __future__ import annotations

from dataclasses import dataclass


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
    """

    name: str
    statement: str
    value: float
    reference: float
    tolerance: float
    passed: bool
    source: str
