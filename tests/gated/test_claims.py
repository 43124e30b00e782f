"""Every claim record of the gated model passes (the report shows the same records)."""

import math
import re
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


def test_every_claim_says_what_it_measures():
    # every gated claim is computed, not estimated: no confidence interval
    for claim in claims().values():
        assert claim.quantity, claim.name
        assert math.isnan(claim.ci_halfwidth), claim.name


@pytest.mark.parametrize("name", ["gated.pof_unbounded", "gated.heavy_traffic"])
def test_relative_tolerance_is_the_stated_one(name):
    # these statements promise a relative tolerance: the record must carry that number,
    # and the measured value must lie within it of the asymptote
    claim = claims()[name]
    stated = re.search(r"to relative ([0-9.e+-]+)", claim.statement)
    assert stated and float(stated.group(1)) == claim.tolerance
    assert abs(claim.value / claim.reference - 1) <= claim.tolerance
