"""The gated.optimum checker: produced certificates hold, and every altered number or
parameter makes it fail with a message that names what."""

import copy
import json

import pytest

from qtheory.gated import GatedQueue
from qtheory.gated.certified import certified_optimum
from qtheory.verify import CertificateError, check_certificate
from qtheory.verify.gated import CHECKS
from qtheory.verify.statements import certificate as written

CASES = [
    ("inf", 1, 2, 1),
    ("inf", 1, "1.01", 1),
    ("0.5", 1, 10, 1),  # both rules admit everybody
    (2, 1, "1e30", 1),
    ("inf", 1, "1.000000000000000000000000000001", 1),
]


def _certificate(params, dps=40):
    return json.loads(json.dumps(certified_optimum(GatedQueue(*params), dps=dps).certificate))


@pytest.mark.parametrize("params", CASES)
def test_a_produced_certificate_holds(params):
    check_certificate(_certificate(params))


def _fails(certificate, message):
    with pytest.raises(CertificateError, match=message):
        check_certificate(certificate)


def test_moving_an_endpoint_of_the_gate_fails_naming_it():
    certificate = _certificate(("inf", 1, 2, 1))
    gate = certificate["data"]["values"]["gate"]
    gate[1] = gate[0]
    _fails(certificate, "gated.optimum: gate: the checker's enclosure .* is not inside")


@pytest.mark.parametrize(
    "name", ["root", "welfare_ga", "rate_rr", "welfare_rr", "price_of_forgetting"]
)
def test_shifting_any_value_fails_naming_it(name):
    certificate = _certificate(("inf", 1, 3, 1))
    value = certificate["data"]["values"][name]
    value[0] = value[1]
    value[1] = str(2 * float(value[1]))
    _fails(certificate, f"{name}: ")


def test_a_wider_interval_than_the_digits_claimed_fails():
    certificate = _certificate(("inf", 1, 2, 1), dps=20)
    certificate["data"]["values"]["welfare_ga"][0] = "0"
    _fails(certificate, "welfare_ga: the interval .* is wider than 1e-20 relative")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("reward", "3", "S' > 0 is not proved|S' < 0 is not proved"),
        ("arrival_rate", "2", "S' > 0 is not proved|S' < 0 is not proved"),
        ("reward", "1", "nu = R mu / C = 1 is not > 1"),
    ],
)
def test_a_certificate_for_other_parameters_fails(field, value, message):
    certificate = _certificate(("inf", 1, 2, 1))
    certificate["data"]["parameters"][field] = value
    _fails(certificate, message)


def test_the_boundary_certificate_for_other_parameters_fails():
    certificate = _certificate(("0.5", 1, 10, 1))
    wrong = copy.deepcopy(certificate)
    wrong["data"]["parameters"]["reward"] = "11"  # τ* = 0 still, but S* moves
    _fails(wrong, "welfare_ga")
    wrong = copy.deepcopy(certificate)
    wrong["data"]["parameters"]["arrival_rate"] = "inf"
    _fails(wrong, "case 'boundary' but the gate constraint cannot bind")


def test_a_wrong_bracket_or_case_fails():
    certificate = _certificate(("inf", 1, 2, 1))
    wrong = copy.deepcopy(certificate)
    c0, c1 = wrong["data"]["bracket"]
    wrong["data"]["bracket"] = [c1, str(2 * float(c1))]
    _fails(wrong, "S' > 0 is not proved at the lower end of the bracket")
    wrong = copy.deepcopy(certificate)
    wrong["data"]["bracket"] = ["1e-9", c0]
    _fails(wrong, "not ordered above w_L|S' < 0 is not proved")
    wrong = copy.deepcopy(certificate)
    wrong["data"]["routing_case"] = "boundary"
    _fails(wrong, "routing case 'boundary' is wrong")
    wrong = copy.deepcopy(certificate)
    wrong["data"]["case"] = "boundary"
    _fails(wrong, "case 'boundary' but the gate constraint cannot bind")


def test_malformed_data_is_reported():
    certificate = _certificate(("inf", 1, 2, 1))
    del certificate["data"]["bracket"]
    _fails(certificate, "malformed data")


def test_grid_certificates_fail_naming_the_point():
    from qtheory.gated.certified import certified_asymptotics, certified_dominance

    grid = certified_asymptotics("heavy", ("2",), (1, 2), constant="5/2")
    data = copy.deepcopy(grid.certificate["data"])
    CHECKS["asymptotics"](data)
    data["constant"] = "1"
    with pytest.raises(CertificateError, match=r"point 0 \(Lambda = 2, R = 10\): \|ratio - 1\|"):
        CHECKS["asymptotics"](data)  # refuted by the checker itself
    data["regime"] = "light"
    with pytest.raises(CertificateError, match="nu - 1 >= 1/e|not proved"):
        CHECKS["asymptotics"](data)
    slow = copy.deepcopy(grid.certificate["data"])
    slow["points"] = [certified_optimum(GatedQueue("0.5", 1, 10, 1), dps=5).certificate["data"]]
    with pytest.raises(CertificateError, match="heavy traffic needs Lambda > mu"):
        CHECKS["asymptotics"](slow)
    _, dominance = certified_dominance(["0.5", "0.9"], ["2"])
    data = copy.deepcopy(dominance["data"])
    CHECKS["dominance"](data)
    data["points"][1] = ["9/10", "9/10"]  # τ = 0: random routing itself
    with pytest.raises(CertificateError, match=r"point 1 \(load 9/10, Lambda = 9/10\): the gate"):
        CHECKS["dominance"](data)


def test_the_claims_grid_certificates_fail_when_tampered():
    from qtheory.gated.claims import optimal_gate_claim, pof_at_least_one_claim

    produced = pof_at_least_one_claim(quick=True).certificate
    check_certificate(written("gated.pof_at_least_one", produced["checker"], produced["data"]))
    data = copy.deepcopy(produced["data"])
    data["points"][3]["parameters"]["reward"] = "7"
    with pytest.raises(CertificateError, match="point 3 .*: S' [<>] 0 is not proved"):
        CHECKS["pof_grid"](data)  # the checker refutes it; the claim's pins too (test_forgery)
    optima = copy.deepcopy(optimal_gate_claim().certificate["data"])
    optima["points"][0]["values"]["gate"][0] = "2"
    with pytest.raises(CertificateError, match="point 0 .*: gate: the checker's enclosure"):
        CHECKS["optima"](optima)


REGION = {"arrival_rate": ["1/2", "inf"], "service_rate": ["1", "1"],
          "reward": ["1001/1000", "1000"], "cost": ["1", "1"]}  # fmt: skip


@pytest.mark.parametrize("arrival", [["inf", "inf"], ["1/2", "inf"], ["3", "3"], ["1/2", "3"]])
def test_a_region_of_positive_arrival_rates_up_to_inf_holds(arrival):
    # Lambda in (0, inf]: [inf, inf] is the degenerate range of Lambda = inf fixed
    CHECKS["pof_region"]({"box": {**REGION, "arrival_rate": arrival}})


@pytest.mark.parametrize(
    ("key", "ends", "message"),
    [
        ("arrival_rate", ["inf", "3"], r"arrival_rate: the range \[inf, 3\] must satisfy 0 <"),
        ("arrival_rate", ["0", "inf"], r"arrival_rate: the range \[0, inf\] must satisfy 0 <"),
        ("arrival_rate", ["-1", "inf"], r"arrival_rate: the range \[-1, inf\] must satisfy 0 <"),
        ("arrival_rate", ["0", "0"], r"arrival_rate: the range \[0, 0\] must satisfy 0 <"),
        ("arrival_rate", ["3", "2"], r"arrival_rate: the range \[3, 2\] must satisfy 0 <"),
        ("service_rate", ["-1", "1"], r"service_rate: the range \[-1, 1\] must satisfy 0 <"),
        ("reward", ["inf", "inf"], "reward: only the arrival rate may be infinite"),
        ("cost", ["1", "inf"], "cost: only the arrival rate may be infinite"),
    ],
)
def test_a_region_with_an_end_outside_0_inf_or_out_of_order_fails_naming_it(key, ends, message):
    with pytest.raises(CertificateError, match=message):
        CHECKS["pof_region"]({"box": {**REGION, key: ends}})
