"""The checker of the random-walk bounds (qtheory.verify.walks): a certificate produced by
qtheory.walks.certify passes; an altered number fails and the message names what.

Reference values come from routes independent of both: hand-worked rationals and
mpmath sums."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import mpmath
import pytest
from conftest import FUZZ, anything
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from qtheory.model.lossnet import LossNetwork
from qtheory.verify import CertificateError
from qtheory.verify._arith import precision
from qtheory.verify.walks import CHECKS, _inside, item_values
from qtheory.walks import certify, chernoff_checks, hitting, ruin, sss
from qtheory.walks.bounds import BoundCheck
from qtheory.walks.idle import IdleWalk

NET = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
RATES = {"lambda_h": "3/5", "mu": "1", "lambda_l": "4/5"}
FAMILIES = {"ruin", "climb", "descent", "poisson", "skellam", "walk", "events", "idle_window",
            "hit_zero", "climb_jumps", "climb_time", "sss"}  # fmt: skip


def _sss_check(net: LossNetwork, c: float) -> BoundCheck:
    bound = sss.failure_bound(net, c)
    spec = {"family": "sss", "N": net.servers, "c": repr(c), "h": 1, "m": bound.level}
    return BoundCheck("SSS", net.servers, f"c={c}", "upper", bound.total,
                      sss.failure_probability(net, c), spec=spec)  # fmt: skip


def decide(certificate: dict) -> None:
    """The walks checker on a certificate's data (these items are not a reproduce claim's
    pinned set, which tests/verify/test_forgery.py covers), its message named as verify's."""
    try:
        CHECKS["bounds"](certificate["data"])
    except CertificateError as error:
        raise CertificateError(f"walks.bounds: {error}") from None
    except (KeyError, TypeError, ValueError) as error:
        raise CertificateError(f"walks.bounds: malformed data ({error!r})") from None


@pytest.fixture(scope="module")
def produced():
    walk = IdleWalk.from_network(NET)
    checks = ruin.ruin_checks(walk, [1, 5]) + hitting.hitting_checks(walk, [1, 5])
    checks += chernoff_checks.chernoff_checks(NET, c_values=[1.0, 4.0]) + [_sss_check(NET, 8.0)]
    done, certificate = certify.certify(checks, NET.lambda_h, NET.mu, NET.lambda_l)
    return checks, done, {"claim": "walks.bounds", "statement": "test", **certificate}


def test_a_produced_certificate_passes(produced):
    checks, done, certificate = produced
    assert len(done) == len(checks) and all(c.certified for c in done)
    assert {item["family"] for item in certificate["data"]["items"]} == FAMILIES
    decide(json.loads(json.dumps(certificate)))  # as written to disk


def _altered(certificate: dict, index: int, **changes) -> dict:
    altered = copy.deepcopy(certificate)
    altered["data"]["items"][index].update(changes)
    return altered


def test_an_altered_enclosure_fails_naming_the_item_and_the_side(produced):
    _, _, certificate = produced
    item = certificate["data"]["items"][0]
    low, high = item["bound_enclosure"]
    shifted = [str(Fraction(low) * 2), str(Fraction(high) * 2)]
    named = r"walks.bounds: item \(family=ruin, N=100, i=1, bound=walk_pb\): the bound .* is not"
    with pytest.raises(CertificateError, match=named + " in the claimed enclosure"):
        decide(_altered(certificate, 0, bound_enclosure=shifted))
    low, high = item["exact_enclosure"]
    with pytest.raises(CertificateError, match="the exact value .* is not in the claimed"):
        decide(_altered(certificate, 0, exact_enclosure=[low, low]))


def test_a_wrong_side_or_parameter_fails(produced):
    _, _, certificate = produced
    with pytest.raises(CertificateError, match=r"bound=walk_pb\): side must be 'upper'"):
        decide(_altered(certificate, 0, side="lower"))
    sss_index = next(k for k, item in enumerate(certificate["data"]["items"])
                     if item["family"] == "sss")  # fmt: skip
    with pytest.raises(CertificateError, match=r"family=sss.*c=16.0.*not in the claimed"):
        decide(_altered(certificate, sss_index, c="16.0"))
    altered = copy.deepcopy(certificate)
    altered["data"]["lambda_h"] = "0.61"
    # other rates: the checker's own values leave the claimed enclosures (a reproduce
    # claim's name pins the rates too: tests/verify/test_forgery.py)
    with pytest.raises(CertificateError, match="is not in the claimed enclosure"):
        decide(altered)


def test_malformed_data_is_named():
    with pytest.raises(CertificateError, match="the certificate lists no items"):
        data = {**RATES, "prec": 128, "items": []}
        decide({"claim": "walks.bounds", "checker": "walks.bounds", "data": data})
    item = {"family": "nowhere", "N": 100, "side": "upper"}
    with pytest.raises(CertificateError, match="unknown family 'nowhere'"):
        decide({"claim": "walks.bounds", "checker": "walks.bounds",
                           "data": {**RATES, "prec": 128, "items": [item]}})  # fmt: skip


def _values(item: dict) -> tuple[float, float]:
    with precision(128):
        bound, exact = item_values(RATES, item)
    return tuple(float(x) if isinstance(x, fmpq) else float(x.mid()) for x in (bound, exact))


def test_checker_values_against_hand_worked_rationals():
    # N = 4, b = 2: rho_1 = d_1/u_1 = 2.4/3, h_1 = rho_1/(1 + rho_1) = 4/9; the walk with
    # p_b = p(2) = 2/(2 + 2.4) = 5/11 has r = 6/5 and ruin (r - r^2)/(1 - r^2) = 6/11.
    bound, exact = _values({"family": "ruin", "N": 4, "i": 1, "bound": "walk_pb"})
    assert bound == pytest.approx(6 / 11, rel=1e-15) and exact == pytest.approx(4 / 9, rel=1e-15)
    # climb in steps from 1 to 2 on 0..2: tau_0 = 1, tau_1 = (1 + q(1) tau_0)/p(1) with
    # p(1) = 3/5.4 = 5/9: tau_1 = (1 + 4/9)/(5/9) = 13/5.
    _, exact = _values({"family": "climb", "N": 4, "i": 1, "bound": "steps_pb"})
    assert exact == pytest.approx(13 / 5, rel=1e-15)


def test_checker_probabilities_against_mpmath_sums():
    walk = IdleWalk(100, 0.6, 1.0)
    window = NET.window(4.0)
    down = mpmath.mpf(0.6) * 100 * mpmath.mpf(4) * mpmath.log(100) / 100
    for x, tail in ((40, "upper"), (5, "lower")):
        reference = sum(mpmath.exp(-down) * down**k / mpmath.factorial(k)
                        for k in (range(x, 400) if tail == "upper" else range(x + 1)))  # fmt: skip
        _, exact = _values({"family": "poisson", "N": 100, "c": "4.0", "x": x, "tail": tail})
        assert exact == pytest.approx(float(reference), rel=1e-12)
    # P(T_0 <= W) from i = 5: the same probability by the package's float CTMC route
    _, exact = _values({"family": "hit_zero", "N": 100, "c": "4.0", "i": 5,
                        "route": "coupling"})  # fmt: skip
    assert exact == pytest.approx(
        chernoff_checks._exact_hit_zero_time_cdf(walk, 5, window), rel=1e-9
    )


def test_checker_and_producer_agree_on_every_family(produced):
    _, done, _ = produced
    seen = set()
    for c in done:
        family = c.check.spec["family"]
        if family in seen:
            continue
        seen.add(family)
        with precision(128):
            bound, exact = item_values(RATES, c.check.spec)
            for ball, enclosure in ((bound, c.bound), (exact, c.exact)):
                assert _inside(ball, [enclosure.lower, enclosure.upper]), (family, enclosure)
    assert seen == FAMILIES


@pytest.fixture(scope="module")
def small_items():
    """One item per family at N = 16 (a quick certificate to tamper with)."""
    net = NET.with_servers(16)
    walk = IdleWalk.from_network(net)
    checks = ruin.ruin_checks(walk, [1]) + hitting.hitting_checks(walk, [1])
    checks += chernoff_checks.chernoff_checks(net, c_values=[1.0]) + [_sss_check(net, 16.0)]
    _, certificate = certify.certify(checks, NET.lambda_h, NET.mu, NET.lambda_l)
    firsts = {}
    for item in certificate["data"]["items"]:
        firsts.setdefault(item["family"], item)
    assert set(firsts) == FAMILIES
    return certificate["data"], list(firsts.values())


@settings(FUZZ, max_examples=60)
@given(index=st.integers(0, len(FAMILIES) - 1), key_index=st.integers(0, 20), value=anything)
def test_any_tampered_field_is_a_certificate_error(small_items, index, key_index, value):
    data, items = small_items
    item = copy.deepcopy(items[index])
    key = sorted(item)[key_index % len(item)]
    item[key] = value
    certificate = {"claim": "walks.bounds", "checker": "walks.bounds",
                   "data": {**data, "items": [item]}}  # fmt: skip
    try:
        decide(certificate)
    except CertificateError as error:
        assert str(error).startswith("walks.bounds: ")
