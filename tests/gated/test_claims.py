"""Every claim record of the gated model passes (the report shows the same records)."""

import pytest

from qtheory.gated.claims import gated_claims


@pytest.mark.parametrize("claim", gated_claims(quick=True), ids=lambda c: c.name)
def test_claim_holds(claim):
    assert claim.passed, claim
