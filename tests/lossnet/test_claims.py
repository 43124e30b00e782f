"""Every claim record of the loss-network part passes on the CI-sized grid, says what
kind of evidence it has, and its certificates pass the independent checker."""

import json
import math
import re
from functools import cache

import numpy as np
import pytest
from scipy import stats

from qtheory.core.claims import Evidence, Origin
from qtheory.lossnet.claims import lossnet_claims, online_optimum_claim
from qtheory.lossnet.online import online_optimum
from qtheory.lossnet.regret import fit_log_slope, leading_constant, regret_curve
from qtheory.report.lossnet import DEFAULT, servers_grid
from qtheory.verify import CertificateError, check_certificate
from qtheory.verify.statements import certificate

KINDS = {
    "lossnet.regret_identity": (Evidence.IDENTITY, Origin.PACKAGE),
    "lossnet.fluid": (Evidence.CERTIFIED, Origin.PAPER),
    "lossnet.trunk_reservation": (Evidence.CERTIFIED, Origin.PAPER),
    "lossnet.online_optimum": (Evidence.CERTIFIED, Origin.PACKAGE),
    "lossnet.bounded_offset": (Evidence.FINITE_RANGE, Origin.HEURISTIC),
}


@cache
def points():
    return tuple(regret_curve(DEFAULT, servers_grid(quick=True)))


@cache
def claims():
    return {claim.name: claim for claim in lossnet_claims(DEFAULT, list(points()))}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_claim_holds_with_its_kind_and_origin(name):
    claim = claims()[name]
    assert claim.passed, claim
    assert (claim.kind, claim.origin) == KINDS[name]
    assert claim.quantity and claim.hypotheses
    assert math.isnan(claim.ci_halfwidth)  # nothing here is a statistical estimate


def test_every_claim_is_tested():
    assert sorted(claims()) == sorted(KINDS)


@pytest.mark.parametrize(
    "name", [n for n, (kind, _) in KINDS.items() if kind is Evidence.CERTIFIED]
)
def test_certificates_pass_the_checker(name):
    # under the user-level name of its checker: these N are the test's, not the claim's
    # pinned set (the reproduce run's certificates are verified in tests/test_reproduce.py)
    claim = claims()[name]
    checker = claim.certificate["checker"]
    user = {"lossnet.fluid": "lossnet.fluid_lp"}.get(checker, checker)
    written = certificate(user, checker, claim.certificate["data"])
    check_certificate(json.loads(json.dumps(written)))


def test_statements_write_mathematics_in_latex():
    ascii_math = re.compile(r"R_fluid|R_on|lambda_H|lambda_L|>=|<=|\bmu\b")
    for claim in claims().values():
        for text in (claim.statement, *claim.hypotheses, claim.scope, claim.quantity):
            outside = re.sub(r"\$[^$]*\$", "", text)
            assert not ascii_math.search(outside), (claim.name, text)
            assert text.count("$") % 2 == 0, (claim.name, text)


def test_finite_range_claim_states_its_range():
    claim = claims()["lossnet.bounded_offset"]
    top = max(p.servers for p in points())
    assert top == 10**5 and "10^{5}" in claim.scope and "10^{5}" in claim.statement
    assert "from $1000$" in claim.scope


def test_bounded_offset_against_the_float_table():
    # independent route: the spread of regret - c log N from the float64 table of every
    # reserve (the curve itself comes from the certified enclosures)
    sizes = [p.servers for p in points() if p.servers >= 1000]
    regrets = [online_optimum(DEFAULT.with_servers(n)).regret for n in sizes]
    c = leading_constant(DEFAULT)
    offsets = [r - c * np.log(n) for r, n in zip(regrets, sizes, strict=True)]
    assert claims()["lossnet.bounded_offset"].value == pytest.approx(np.ptp(offsets), abs=1e-9)


def test_regret_curve_agrees_with_the_float_table():
    for p in points():
        table = online_optimum(DEFAULT.with_servers(p.servers))
        assert p.reserves == (0, table.reserve)
        assert p.regret == pytest.approx(table.regret, rel=1e-12)
        assert p.online == pytest.approx(table.online, rel=1e-14)
        assert p.prob_full == pytest.approx(table.prob_full, rel=1e-12)
        assert p.mean_idle == pytest.approx(table.mean_idle, rel=1e-12)


def test_online_claim_certifies_every_grid_point():
    cases = claims()["lossnet.online_optimum"].certificate["data"]["cases"]
    assert [case["servers"] for case in cases] == [p.servers for p in points()]
    assert [case["reserve"] for case in cases] == [p.reserves[1] for p in points()]


def test_online_claim_certificate_with_a_wrong_reserve_fails():
    claim = online_optimum_claim(DEFAULT, [10, 1000])
    data = json.loads(json.dumps(claim.certificate["data"]))
    data["cases"][1]["reserve"] += 1
    with pytest.raises(CertificateError, match=r"cases\[1\] \(N = 1000\): reserve"):
        check_certificate(certificate("lossnet.online", "lossnet.online", data))


def test_log_fit_slope_interval_is_the_95_percent_regression_interval():
    # independent route: the textbook standard error of a least-squares slope,
    # sqrt(SSR / (n - 2) / Sxx), times the 97.5% Student-t quantile with n - 2 dof
    chosen = [p for p in points() if p.servers >= 10**3]
    x = np.log([p.servers for p in chosen])
    y = np.array([p.regret for p in chosen])
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (slope * x + intercept)
    n = len(chosen)
    stderr = np.sqrt(residual @ residual / (n - 2) / np.sum((x - x.mean()) ** 2))
    fit = fit_log_slope(list(points()), min_servers=10**3)
    assert (fit.slope.method, fit.slope.n, fit.slope.dof) == ("regression", n, n - 2)
    assert fit.slope.mean == pytest.approx(slope, rel=1e-9)
    assert fit.slope.halfwidth == pytest.approx(stats.t.ppf(0.975, n - 2) * stderr, rel=1e-9)
