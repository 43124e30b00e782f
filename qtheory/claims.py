"""Claims from the papers as checkable records.

Every claim a paper makes becomes a function that computes the quantities involved and
returns a :class:`Claim`: the report and the tests consume the same records.
"""

from __future__ import annotations

from dataclasses import dataclass

from qtheory import report


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


def claims_table(claims: list[Claim], *, caption: str, label: str) -> str:
    """A booktabs table of claims: statement, measured value, reference, pass/FAIL."""
    rows = [[c.statement, c.value, c.reference, "pass" if c.passed else "FAIL"] for c in claims]
    return report.table(
        ["claim", "value", "reference", ""],
        rows,
        caption=caption,
        label=label,
        formats={1: ".6g", 2: ".6g"},
        alignment="p{0.5\\linewidth}rrl",
    )
