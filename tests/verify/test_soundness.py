"""Soundness holes of ``qtheory verify``: each tampered certificate below used to pass and
must now raise :class:`CertificateError`, while the genuine one still holds."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
from flint import fmpq

from qtheory.gated import GatedQueue
from qtheory.gated.certified import certified_optimum
from qtheory.lossnet.certified import certified_fluid, certified_online_optimum
from qtheory.model.lossnet import LossNetwork
from qtheory.verify import CertificateError, check_certificate, verify
from qtheory.verify.expected import EXPECTED, REPRODUCED
from qtheory.verify.gated import CHECKS as GATED
from qtheory.verify.statements import render
from qtheory.verify.walks import CHECKS as WALKS
from qtheory.verify.walks import _window_row, side_of

COMMITTED = Path(__file__).resolve().parents[2] / "derivations" / "certificates"
NET = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)


def committed(name: str) -> dict:
    return json.loads((COMMITTED / f"{name}.json").read_text())


def fails(certificate: dict, message: str) -> None:
    with pytest.raises(CertificateError, match=message):
        check_certificate(certificate)


def restated(certificate: dict) -> dict:
    """The certificate with the statement its (tampered) data states."""
    return {**certificate, "statement": render(certificate["claim"], certificate["data"])}


def small_walks(name: str = "walks.bounds", count: int = 15) -> dict:
    """The committed walks certificate cut to its first items (fast to check)."""
    certificate = committed(name)
    certificate["data"]["items"] = certificate["data"]["items"][:count]
    return certificate


# 1. claim name -> checker and pinned data


def test_every_reproduced_claim_is_pinned_and_committed():
    assert set(REPRODUCED) <= set(EXPECTED)
    assert {p.stem for p in COMMITTED.glob("*.json")} == set(REPRODUCED)
    for name in REPRODUCED:
        assert committed(name)["checker"] == EXPECTED[name][0]


def test_an_unknown_claim_name_fails():
    genuine = committed("lossnet.fluid")
    check_certificate(genuine)
    fails({**genuine, "claim": "walks.anything"}, "unknown claim name 'walks.anything'")
    fails({**genuine, "claim": "demo"}, "unknown claim name")


def test_a_claim_run_through_another_checker_fails():
    genuine = {**committed("lossnet.fluid")}
    check_certificate(genuine)
    # the heavy-rate data run as a PoF >= 1 grid: passes that checker, not the claim
    heavy = committed("gated.pof_heavy_rate")
    fails({**heavy, "checker": "gated.pof_grid"}, "checked by 'regions.remainder'")
    fails({**genuine, "checker": "lossnet.online"}, "checked by 'lossnet.fluid'")


def test_lossnet_fluid_for_another_network_fails():
    other = certified_fluid(NET.with_servers(50)).certificate  # genuine, but N = 50
    check_certificate(other)  # under its own (user-level) name it holds
    data = {**other["data"], "closed_form": True}
    fails(restated({**other, "claim": "lossnet.fluid", "data": data}), r"\['servers'\]")
    genuine = committed("lossnet.fluid")
    no_closed_form = copy.deepcopy(genuine)
    del no_closed_form["data"]["closed_form"]
    fails(no_closed_form, "closed_form")


def test_trunk_reservation_pinned_reserve_and_rates():
    genuine = committed("lossnet.trunk_reservation")
    check_certificate(genuine)
    for key, value in [("reserve", 5), ("servers", 101), ("r_h", "3"), ("lambda_l", "1")]:
        tampered = copy.deepcopy(genuine)
        tampered["data"][key] = value
        fails(restated(tampered), rf"\['{key}'\]: the claim fixes")


def test_asymptotic_constants_are_pinned():
    for name, constant in [("gated.pof_heavy_rate", "5/2"), ("gated.pof_light_rate", "3/2")]:
        genuine = committed(name)
        check_certificate(genuine)
        looser = copy.deepcopy(genuine)
        looser["data"]["constant"] = "100"  # a much weaker bound the checker would accept
        fails(restated(looser), rf"\['constant'\]: the claim fixes '{constant}'")
    swapped = copy.deepcopy(committed("gated.pof_heavy_rate"))
    swapped["data"]["regime"] = "light"
    fails(restated(swapped), r"\['regime'\]: the claim fixes 'heavy'")


def test_minimum_digits_are_pinned():
    few = certified_optimum(GatedQueue("inf", 1, 3, 1), dps=10).certificate["data"]
    genuine = committed("gated.optimal_gate")
    tampered = copy.deepcopy(genuine)
    tampered["data"]["points"][0] = few  # a genuine optimum at the point, 10 digits, not 30
    fails(restated(tampered), r"\['points'\]\[0\]\['dps'\]: the claim fixes 30, the data says 10")
    online = committed("lossnet.online_optimum")
    check_certificate(online)
    case = certified_online_optimum(NET.with_servers(10), dps=10).certificate["data"]
    tampered = copy.deepcopy(online)
    tampered["data"]["cases"][0] = case
    fails(restated(tampered), r"\['cases'\]\[0\]\['dps'\]: the claim fixes 20, the data says 10")
    other = copy.deepcopy(online)
    other["data"]["cases"][0]["r_h"] = "3"
    fails(restated(other), r"\['cases'\]\[0\]\['r_h'\]: the claim fixes '2'")


def test_walks_pinned_rates_and_sss_family():
    genuine = committed("walks.sss_failure_bound")
    check_certificate(genuine)
    mixed = copy.deepcopy(genuine)
    mixed["data"]["items"] = small_walks()["data"]["items"]  # other bounds, same rates
    fails(mixed, r"\['items'\]\[0\]\['c'\]: missing")  # the set is checked first
    rates = copy.deepcopy(genuine)
    rates["data"]["lambda_h"] = "0.61"
    fails(restated(rates), r"\['lambda_h'\]: the claim fixes '3/5'")


def test_user_level_names_map_to_their_checkers():
    optimum = certified_optimum(GatedQueue("inf", 1, 2, 1), dps=10).certificate
    assert optimum["claim"] == "gated.optimum"
    check_certificate(json.loads(json.dumps(optimum)))
    fails({**optimum, "checker": "gated.optima"}, "checked by 'gated.optimum'")
    online = certified_online_optimum(NET.with_servers(10), dps=10).certificate
    assert online["claim"] == "lossnet.online"
    check_certificate(online)
    assert certified_fluid(NET).certificate["claim"] == "lossnet.fluid_lp"


def test_verify_reports_missing_reproduced_certificates(tmp_path):
    for name in ("gated.dominance", "gated.pof_light_rate"):
        shutil.copy(COMMITTED / f"{name}.json", tmp_path)
    failures = verify(tmp_path)
    missing = sorted(set(REPRODUCED) - {"gated.dominance", "gated.pof_light_rate"})
    assert failures == [f"missing certificate: {name}" for name in missing]


# 2. gated dps


@pytest.mark.parametrize("dps", [-400, 0, True, "30", 30.0, None])
def test_gated_dps_must_be_a_positive_integer(dps):
    genuine = certified_optimum(GatedQueue("inf", 1, 2, 1), dps=10).certificate
    check_certificate(genuine)
    tampered = copy.deepcopy(genuine)
    tampered["data"]["dps"] = dps
    for pair in tampered["data"]["values"].values():
        pair[0], pair[1] = "0", "100"  # any interval passed at dps = -400
    fails(tampered, "dps must be an integer >= 1")


def test_gated_widths_compare_exactly():
    genuine = certified_optimum(GatedQueue("inf", 1, 2, 1), dps=10).certificate
    tampered = copy.deepcopy(genuine)
    tampered["data"]["dps"] = 400  # claims 400 digits for a 10-digit interval
    fails(tampered, "wider than 1e-400 relative")


# 3. lossnet online widths


def test_lossnet_online_widths_are_checked():
    genuine = certified_online_optimum(NET, dps=20).certificate
    check_certificate(genuine)
    for name in ("online", "regret"):
        wide = copy.deepcopy(genuine)
        low, high = wide["data"][name]
        wide["data"][name] = [str(float(low) - 1), str(float(high) + 1)]
        fails(wide, f"{name}: the interval .* is wider than 1e-20 relative")
    for dps in (None, 0, True, -5):
        bad = copy.deepcopy(genuine)
        bad["data"]["dps"] = dps
        fails(bad, "dps must be an integer >= 1|malformed data")


# 4. gated dominance rates


@pytest.mark.parametrize(
    ("service_rate", "point", "message"),
    [("-1", ["1/2", "inf"], "mu = -1 must be positive"),
     ("0", ["1/2", "inf"], "must be positive|malformed"),
     ("1", ["1/2", "-2"], "Lambda must be positive"),
     ("1", ["1/2", "0"], "Lambda must be positive")],
)  # fmt: skip
def test_dominance_rejects_nonpositive_rates(service_rate, point, message):
    data = {"service_rate": "1", "precision_bits": 64, "points": [["1/2", "2"]]}
    GATED["dominance"](data)
    tampered = {**data, "service_rate": service_rate, "points": [point]}
    with pytest.raises((CertificateError, ValueError, ZeroDivisionError), match=message):
        GATED["dominance"](tampered)


# 5. walks rates and sides


def test_walks_rates_must_be_overloaded_and_positive():
    data = small_walks()["data"]
    WALKS["bounds"](data)
    for rates in [("1/2", "1", "1/4"), ("6/5", "1", "4/5"), ("-3/5", "1", "4/5"),
                  ("3/5", "0", "4/5")]:  # fmt: skip
        tampered = {**data, **dict(zip(("lambda_h", "mu", "lambda_l"), rates, strict=True))}
        with pytest.raises(CertificateError, match="lambda_h < mu < lambda_h \\+ lambda_l"):
            WALKS["bounds"](tampered)


def test_walks_side_is_derived_from_family_and_bound():
    genuine = committed("walks.bounds")
    for item in genuine["data"]["items"]:  # the committed sides agree with the rule
        assert item["side"] == side_of(item)
    items = genuine["data"]["items"]
    lower = {(i["family"], i.get("bound")) for i in items if i["side"] == "lower"}
    assert lower == {("ruin", "walk_pinf"), ("climb", "steps_pinf"), ("climb", "time_pinf"),
                     ("descent", "steps"), ("descent", "time")}  # fmt: skip
    small = small_walks()
    index = next(k for k, i in enumerate(small["data"]["items"]) if i["side"] == "lower")
    flipped = copy.deepcopy(small)
    flipped["data"]["items"][index]["side"] = "upper"
    with pytest.raises(CertificateError, match="side must be 'lower' for this bound"):
        WALKS["bounds"](flipped["data"])
    unsided = copy.deepcopy(small)
    for item in unsided["data"]["items"]:
        del item["side"]
    WALKS["bounds"](unsided["data"])  # the checker does not need the certificate's side


# 6. statements checked on a grid say so


def test_grid_statements_name_the_grid():
    for name in ("gated.dominance", "gated.pof_at_least_one", "gated.optimal_gate"):
        points = len(committed(name)["data"]["points"])
        assert f"At each of the {points} points" in committed(name)["statement"]
        assert "listed in the certificate" in committed(name)["statement"]
    for name in ("gated.pof_heavy_rate", "gated.pof_light_rate"):  # a whole range
        statement = committed(name)["statement"]
        assert statement.startswith("For every") and "boxes of the certificate" in statement


# 7. walks idle_window truncation


def test_idle_window_truncation_lies_above_m():
    # N = 2500 (b = 50), start 0, a short window: the Poisson series alone needs ~44
    # levels, below m = 50; the truncated chain must still reach above m
    row, _ = _window_row(fmpq(3, 5), fmpq(1), fmpq(4, 5), 2500, fmpq(1, 100), 0, False, 128, 51)
    assert len(row) - 1 > 50
    short, _ = _window_row(fmpq(3, 5), fmpq(1), fmpq(4, 5), 2500, fmpq(1, 100), 0, False, 128)
    assert len(short) - 1 < 50  # the case the lemma's m < top excluded before the fix
