"""Every claim record of the loss-network part passes on the CI-sized grid."""

from functools import cache

import pytest

from qtheory.lossnet.claims import lossnet_claims
from qtheory.lossnet.outputs import DEFAULT, servers_grid
from qtheory.lossnet.regret import regret_curve

NAMES = [
    "lossnet.fluid",
    "lossnet.trunk_reservation",
    "lossnet.log_regret",
    "lossnet.bounded_offset",
]


@cache
def claims():
    points = regret_curve(DEFAULT, servers_grid(quick=True))
    return {claim.name: claim for claim in lossnet_claims(DEFAULT, points)}


@pytest.mark.parametrize("name", NAMES)
def test_claim_holds(name):
    assert claims()[name].passed, claims()[name]


def test_every_claim_is_tested():
    assert sorted(claims()) == sorted(NAMES)
