"""The gated.cost_optimum checker (qtheory.verify.cost_optimum): produced certificates
hold, and a forger's tampered bracket, wrong cost family, wrong case or wrong enclosure
is refused, with its statement restated to match (a forger's best effort) or not."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from qtheory.gated import GatedQueue
from qtheory.gated.cost_certified import certified_cost_optimum
from qtheory.gated.costs import holding_cost, sojourn_cost
from qtheory.verify import CertificateError, check_certificate, verify
from qtheory.verify.statements import render

PRODUCED = {
    "power:2": (("inf", 1, 4, 1), sojourn_cost("power:2")),
    "power:5/2 at 1/2": (("0.5", 1, 4, 1), sojourn_cost("power:2.5")),
    "exponential:1/2": (("inf", 1, 4, 1), sojourn_cost("exponential:0.5")),
    "holding:2 at 3/2": (("1.5", 1, 4, 1), holding_cost("power:2")),
    "holding:1 boundary": (("0.2", 1, 3, 1), holding_cost("power:1")),
    "power:2 boundary": (("0.5", 1, 50, 1), sojourn_cost("power:2")),
    "power:2 at 1/2": (("0.5", 1, 20, 1), sojourn_cost("power:2")),
}
_MADE: dict[str, dict] = {}
#: 1 + 1e-60: far inside the brackets, whose ends are about 1e-42 apart (relative).
TINY = "1." + "0" * 59 + "1"


def produced(name: str) -> dict:
    """A fresh JSON copy of the certificate of PRODUCED[name] (each computed once)."""
    if name not in _MADE:
        params, cost = PRODUCED[name]
        _MADE[name] = certified_cost_optimum(GatedQueue(*params), cost, dps=30).certificate
    return json.loads(json.dumps(_MADE[name]))


def scaled(text: str, factor: str) -> str:
    """The rational ``text`` times ``factor``, exactly (a fraction string)."""
    return str(Fraction(text) * Fraction(factor))


def restated(certificate: dict) -> dict:
    return {**certificate, "statement": render(certificate["claim"], certificate["data"])}


def fails(certificate: dict, message: str) -> None:
    with pytest.raises(CertificateError, match=message):
        check_certificate(certificate)


@pytest.mark.parametrize("name", list(PRODUCED))
def test_a_produced_certificate_holds(name, tmp_path):
    certificate = produced(name)
    assert check_certificate(certificate) is None  # a user-level name: no pinned set
    path = tmp_path / "gated.cost_optimum.json"
    path.write_text(json.dumps(certificate))
    report = verify(path)
    assert not report and report.statements == [("gated.cost_optimum", certificate["statement"])]


def test_a_bracket_moved_off_the_maximiser_fails():
    certificate = produced("power:2")
    c0, c1 = certificate["data"]["bracket"]
    certificate["data"]["bracket"] = [c0, scaled(c0, TINY)]
    fails(restated(certificate), r"S' < 0 is not proved at the upper end")  # both below w*
    certificate["data"]["bracket"] = [scaled(c1, TINY), "9"]
    fails(restated(certificate), r"S' > 0 is not proved at the lower end")
    certificate["data"]["bracket"] = [c1, c0]
    fails(restated(certificate), "is not ordered")


def test_a_bracket_where_the_exponential_cost_is_infinite_fails():
    """c0 = 1/2: u = 1 − e^{−1/2} ≈ 0.39 < θ, where C/(u − θ) < 0 would make N > 0."""
    certificate = produced("exponential:1/2")
    certificate["data"]["bracket"][0] = "0.5"
    fails(restated(certificate), "u > theta is not proved at c0 = 0.5")


def test_a_bracket_below_the_gate_bound_fails():
    certificate = produced("holding:2 at 3/2")
    certificate["data"]["parameters"]["arrival_rate"] = "1/2"  # w0 = log 2 > c0 now
    certificate["data"]["bracket"][0] = "0.5"
    fails(restated(certificate), "not proved above the gate bound")


def test_a_tampered_routing_bracket_fails():
    certificate = produced("exponential:1/2")
    c0, c1 = certificate["data"]["routing_bracket"]
    certificate["data"]["routing_bracket"] = [
        c0,
        scaled(c0, TINY),
    ]
    fails(restated(certificate), r"S_RR' < 0 is not proved at c1")
    certificate["data"]["routing_bracket"] = [c0, "0.6"]  # u = 0.4 < θ: beyond finite cost
    fails(restated(certificate), r"is not ordered in \(0, 1/2\)")


@pytest.mark.parametrize(
    ("cost", "message"),
    [
        ({"kind": "sojourn", "family": "deadline", "shape": "1"}, "deadline:1 has no uniqueness"),
        ({"kind": "sojourn", "family": "power", "shape": "1/2"}, "power:1/2 has no uniqueness"),
        ({"kind": "holding", "family": "power", "shape": "3"}, "holding power:3 has no uniq"),
        ({"kind": "sojourn", "family": "exponential", "shape": "1"}, "exponential:1 has no"),
        ({"kind": "sojourn", "family": "callable", "shape": "1"}, "callable:1 has no"),
    ],
)
def test_a_family_without_the_uniqueness_property_fails(cost, message):
    certificate = produced("power:2")
    certificate["data"]["cost"] = cost
    fails(restated(certificate), message)


def test_another_certified_family_fails_on_its_numbers():
    """power:2's bracket and values under power:3 (or holding power:2): the brackets do
    not bracket that cost's maximiser, or the values are not its values."""
    for cost in ({"kind": "sojourn", "family": "power", "shape": "3"},
                 {"kind": "holding", "family": "power", "shape": "2"}):  # fmt: skip
        certificate = produced("power:2")
        certificate["data"]["cost"] = cost
        fails(restated(certificate), "is not proved|is not inside")


def test_a_statement_that_is_not_its_datas_fails():
    certificate = produced("power:2")
    assert "$C W^{2}$" in certificate["statement"]
    certificate["statement"] = certificate["statement"].replace("$C W^{2}$", "$C W^{3}$")
    fails(certificate, "the statement is not the one its data states")


@pytest.mark.parametrize(
    "name", ["root", "gate", "welfare_ga", "rate_rr", "welfare_rr", "price_of_forgetting"]
)
def test_a_wrong_enclosure_fails_naming_it(name):
    certificate = produced("power:5/2 at 1/2")
    value = certificate["data"]["values"][name]
    value[0], value[1] = value[1], scaled(value[1], "1.0000000000000000000000001")  # just above
    fails(certificate, f"{name}: the checker's enclosure .* is not inside")


def test_a_wider_interval_than_the_digits_claimed_fails():
    certificate = produced("holding:2 at 3/2")
    certificate["data"]["values"]["welfare_rr"][0] = "0"
    fails(certificate, "welfare_rr: the interval .* is wider than 1e-30 relative")
    boundary = produced("power:2 boundary")
    boundary["data"]["values"]["gate"] = ["0", "1e-40"]
    fails(boundary, "gate: the interval .* is wider")


def test_a_wrong_case_fails():
    interior = produced("power:5/2 at 1/2")  # Λ < μ, but g(μ − Λ) > R: τ = 0 loses
    forged = copy.deepcopy(interior)
    forged["data"].update(case="boundary", bracket=None)
    fails(restated(forged), r"R > g\(mu - Lambda\) is not proved")
    positive = produced("power:2 at 1/2")  # g(μ − Λ) = 8 < R = 20, but τ* > 0
    positive["data"].update(case="boundary", bracket=None)
    fails(restated(positive), r"S' < 0 at tau = 0 is not proved")
    above = produced("power:2")  # Λ = ∞: τ = 0 admits everybody, unstably
    above["data"].update(case="boundary", bracket=None)
    fails(restated(above), "tau = 0 is not a stable gate")
    routing = copy.deepcopy(interior)
    routing["data"].update(routing_case="boundary", routing_bracket=None)
    fails(restated(routing), r"S_RR'\(Lambda\) >= 0 is not proved")
    boundary = produced("power:2 boundary")
    boundary["data"].update(routing_case="interior", routing_bracket=["0.1", "0.2"])
    fails(restated(boundary), r"S_RR'\(Lambda\) < 0 is not proved")


def test_another_checker_or_a_hostile_precision_fails():
    certificate = produced("power:2")
    fails({**certificate, "checker": "gated.optimum"}, "checked by 'cost_optimum.optimum'")
    certificate["data"]["precision_bits"] = 10**9
    fails(certificate, "malformed data .*precision must be an integer of bits")
