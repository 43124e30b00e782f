"""Every claim record of the gated model passes (the report shows the same records)."""

from functools import cache

import pytest

from qtheory.gated.claims import gated_claims

NAMES = [
    "gated.dominance",
    "gated.pof_at_least_one",
    "gated.optimal_gate",
    "gated.pof_unbounded",
    "gated.heavy_traffic",
    "gated.embedded_chain",
]


@cache
def claims():
    return {claim.name: claim for claim in gated_claims(quick=True)}


@pytest.mark.parametrize("name", NAMES)
def test_claim_holds(name):
    claim = claims()[name]
    assert claim.passed, claim


def test_every_claim_is_tested():
    assert sorted(claims()) == sorted(NAMES)
