"""Remainder bounds proved on whole ranges (qtheory.gated.remainder_regions) and their
checker (qtheory.verify.regions): a true range is proved and verifies, with the bound
holding at points between the box ends by an independent mpmath route
(tests/gated/test_remainder.py); a false range fails or is refused, never proved; a
certificate with a box removed or a point moved fails."""

from __future__ import annotations

import copy
import random
from fractions import Fraction

import pytest
from _pof_reference import true_heavy, true_light

from qtheory.gated.remainder_regions import remainder_region
from qtheory.verify import CertificateError
from qtheory.verify.regions import check_remainder_region


def certificate(regime: str, region, constant: str) -> dict:
    return {"regime": regime, "constant": constant, "regions": [region.data]}


@pytest.fixture(scope="module")
def light():
    return remainder_region("light", "inf", 1, 1, "1e-4", "1/10", constant="3/2")


@pytest.fixture(scope="module")
def heavy():
    return remainder_region("heavy", "2", 1, 1, "4", "40", constant="5/2")


def test_true_ranges_are_proved_and_verify(light, heavy):
    assert light.passed and heavy.passed
    assert 1.4 < light.worst < 1.5 and 2.4 < heavy.worst < 2.5  # the tight ends
    check_remainder_region(certificate("light", light, "3/2"))
    check_remainder_region(certificate("heavy", heavy, "5/2"))


@pytest.mark.parametrize("regime", ["light", "heavy"])
def test_the_bound_holds_between_the_box_ends(regime, light, heavy):
    # points strictly inside boxes, not computed by the prover: the independent route
    region = light if regime == "light" else heavy
    values = [v for v in _ends(regime, region)]
    rng = random.Random(7)
    for a, b in rng.sample(list(zip(values, values[1:], strict=False)), 6):
        inner = a + (b - a) * Fraction(rng.randint(1, 99), 100)
        if regime == "light":
            remainder, bound = true_light("inf", 1, str(1 + inner), 1)
        else:
            remainder, bound = true_heavy("2", 1, str(inner), 1)
        assert remainder < bound, (regime, float(inner))


def _ends(regime, region):
    points = region.data["points"]
    order = [box[0] for box in region.data["boxes"]] + [region.data["boxes"][-1][1]]
    rewards = [Fraction(points[i]["parameters"]["reward"]) for i in order]
    return [r - 1 for r in rewards] if regime == "light" else rewards


@pytest.mark.parametrize(
    ("regime", "arrival", "low", "high", "constant"),
    [
        ("light", "inf", "1/10", "3/10", "3/2"),  # fails from epsilon = 0.1195 on
        ("light", "inf", "1e-4", "1/10", "1"),  # a constant too small everywhere
        ("heavy", "2", "3", "5", "5/2"),  # fails below nu = 3.914
        ("heavy", "inf", "10", "100", "1/2"),
    ],
)
def test_a_false_range_fails_and_is_never_proved(regime, arrival, low, high, constant):
    region = remainder_region(regime, arrival, 1, 1, low, high, constant=constant)
    assert not region.passed and region.failed_at is not None and region.data == {}


def test_the_box_cap_refuses_rather_than_runs_on():
    with pytest.raises(ValueError, match="max_boxes"):
        remainder_region("light", "inf", 1, 1, "1e-30", "1/10", constant="3/2", max_boxes=100)


def test_a_tampered_region_fails(light):
    genuine = certificate("light", light, "3/2")
    for position in (0, len(light.data["boxes"]) // 2, len(light.data["boxes"]) - 1):
        gap = copy.deepcopy(genuine)
        del gap["regions"][0]["boxes"][position]
        with pytest.raises(CertificateError, match="do not cover|boxes end at"):
            check_remainder_region(gap)
    wider = copy.deepcopy(genuine)
    wider["regions"][0]["range"] = ["1e-5", "1/10"]  # a range the boxes do not start at
    with pytest.raises(CertificateError, match="do not cover"):
        check_remainder_region(wider)
    looser = copy.deepcopy(genuine)
    looser["constant"] = "1"
    with pytest.raises(CertificateError, match="is not proved"):
        check_remainder_region(looser)
    other = copy.deepcopy(genuine)
    other["regions"][0]["points"][3]["parameters"]["cost"] = "2"
    with pytest.raises(CertificateError, match="point 3 has cost = 2"):
        check_remainder_region(other)
