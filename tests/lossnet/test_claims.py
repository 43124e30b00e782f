"""Every claim record of the loss-network part passes on the CI-sized grid."""

import math
from functools import cache

import numpy as np
import pytest
from scipy import stats

from qtheory.lossnet.claims import lossnet_claims
from qtheory.lossnet.outputs import DEFAULT, servers_grid
from qtheory.lossnet.regret import fit_log_slope, regret_curve

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


def test_every_claim_says_what_it_measures():
    estimated = {"lossnet.log_regret"}  # the only record with a confidence interval
    for name, claim in claims().items():
        assert claim.quantity, name
        assert math.isnan(claim.ci_halfwidth) == (name not in estimated), name


def test_log_regret_interval_is_the_regression_interval():
    # independent route: the textbook standard error of a least-squares slope,
    # sqrt(SSR / (n - 2) / Sxx), times the 97.5% Student-t quantile with n - 2 dof
    points = [p for p in regret_curve(DEFAULT, servers_grid(quick=True)) if p.servers >= 10**3]
    x = np.log([p.servers for p in points])
    y = np.array([p.regret for p in points])
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (slope * x + intercept)
    n = len(points)
    stderr = np.sqrt(residual @ residual / (n - 2) / np.sum((x - x.mean()) ** 2))
    claim = claims()["lossnet.log_regret"]
    assert claim.value == pytest.approx(slope, rel=1e-9)
    assert claim.ci_halfwidth == pytest.approx(stats.t.ppf(0.975, n - 2) * stderr, rel=1e-9)


def test_log_fit_slope_is_a_regression_estimate():
    points = regret_curve(DEFAULT, servers_grid(quick=True))
    fit = fit_log_slope(points, min_servers=10**3)
    fitted = sum(p.servers >= 10**3 for p in points)
    assert (fit.slope.method, fit.slope.n, fit.slope.dof) == ("regression", fitted, fitted - 2)
    assert fit.slope.halfwidth == pytest.approx(claims()["lossnet.log_regret"].ci_halfwidth)
