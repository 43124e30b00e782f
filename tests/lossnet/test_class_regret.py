"""The n-class regret: its leading constant (Sympy) against the two-class one and
against the regret of the nested optimum, and the claims built on them."""

import math

import numpy as np
import pytest
import sympy as sp

from qtheory.lossnet import LossNetwork
from qtheory.lossnet.claims import (
    bounded_offset_claim,
    leading_constant_claim,
    lossnet_claims,
    regret_identity_claim,
)
from qtheory.lossnet.nested import policy_iteration
from qtheory.lossnet.regret import (
    RegretPoint,
    derive_leading_constant,
    leading_constant,
    regret_curve,
)

#: Three parameter sets: marginal class 3 of 4 (twice: the middle) and 4 of 4 (last).
NETS = [
    LossNetwork(10, (0.3, 0.5, 0.6, 0.2), (4, 3, 2, 1), 1.0),
    LossNetwork(10, (0.2, 0.3, 0.2, 0.9), (5, 3, 2, 1), 1.0),
    LossNetwork(10, (0.5, 0.3, 0.4, 0.4), (2, 1.9, 1.5, 1), 1.0),
]


def test_constant_depends_on_the_marginal_reward_and_the_rate_above_only():
    for n in (3, 4):
        for case in derive_leading_constant(n):
            m = case.marginal
            names = {s.name for s in case.constant.expr.free_symbols}
            assert names == {"mu", f"r_{m + 1}", *(f"lambda_{j + 1}" for j in range(m))}
            # the rates above enter only through their sum
            lambdas = sorted(
                (s for s in case.constant.expr.free_symbols if s.name.startswith("lambda")),
                key=lambda s: s.name,
            )
            total = sp.Symbol("T", positive=True)
            expr = case.constant.expr.subs(lambdas[0], total - sum(lambdas[1:]))
            assert all(sp.diff(expr, s) == 0 for s in lambdas[1:])


@pytest.mark.parametrize("params", [(0.6, 0.8, 1.0, 2.0, 1.0), (0.3, 2.0, 0.7, 5.0, 0.5)])
def test_two_class_constant_and_curve_are_the_two_class_ones(params):
    """Two classes: c against r_L mu / log(mu / lambda_H) written here, and the nested
    policy iteration (the n-class route) against the certified two-class curve."""
    lam_h, _, mu, _, r_l = params
    net = LossNetwork(10, *params)
    assert leading_constant(net) == pytest.approx(r_l * mu / math.log(mu / lam_h), rel=1e-14)
    grid = [100, 10**4]
    for n, certified in zip(grid, regret_curve(net, grid), strict=True):
        ours = policy_iteration(net.with_servers(n))
        assert ours.reserves == certified.reserves
        assert ours.regret == pytest.approx(certified.regret, rel=1e-9)


def test_constant_against_a_hand_computation():
    # class 3 marginal (0.8 < 1 < 1.4): c = r_3 mu / log(mu / (lambda_1 + lambda_2))
    assert leading_constant(NETS[0]) == pytest.approx(2.0 / math.log(1 / 0.8), rel=1e-14)
    # class 4 marginal (0.7 < 1 < 1.6)
    assert leading_constant(NETS[1]) == pytest.approx(1.0 / math.log(1 / 0.7), rel=1e-14)


@pytest.mark.parametrize("net", NETS, ids=lambda net: f"marginal{net.marginal}")
def test_regret_minus_c_log_n_stays_in_a_narrow_band(net):
    """N = 10^3..10^5 here (the benchmark covers 10^3..10^6): the spread of
    regret - c log N stays below 0.2 c log 10, while the regret itself grows by more than
    c log 10 per decade would allow a wrong slope to hide."""
    grid = np.unique(np.round(np.logspace(3, 5, 5)).astype(int)).tolist()
    points = regret_curve(net, grid)
    claim = bounded_offset_claim(net, points)
    assert claim.passed, claim.value
    c = leading_constant(net)
    growth = points[-1].regret - points[0].regret
    assert growth == pytest.approx(2 * c * math.log(10), rel=0.25)


def test_bounded_offset_claim_fails_for_a_wrong_slope():
    net = NETS[0]
    c = leading_constant(net)
    fake = [
        RegretPoint(n, 0.0, 0.0, 1.5 * c * math.log(n), (0, 0, 0, n), 0.0, 0.0)
        for n in (10**3, 10**4, 10**5)
    ]
    claim = bounded_offset_claim(net, fake)
    assert not claim.passed and claim.value == pytest.approx(0.5 * c * math.log(100), rel=1e-12)


def test_bounded_offset_claim_refuses_bad_points():
    with pytest.raises(TypeError, match="RegretPoint"):
        bounded_offset_claim(NETS[0], [1, 2])
    with pytest.raises(ValueError, match="at least 2 distinct"):
        bounded_offset_claim(NETS[0], regret_curve(NETS[0], [1000]))
    with pytest.raises(ValueError, match="min_servers = 1000"):
        bounded_offset_claim(NETS[0], regret_curve(NETS[0], [100, 200]))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_identity_and_constant_claims_pass(n):
    for claim in (regret_identity_claim(n), leading_constant_claim(n)):
        assert claim.passed and str(claim.kind) == "identity", claim.name


def test_the_n_class_identity_holds_at_two_classes_too():
    """The general route (every marginal class of a symbolic n-class network), which the
    public call keeps for n >= 3, also proves the n = 2 case: the two-class claim is its
    special case, checked here by the general code (a private test oracle)."""
    from qtheory.lossnet.claims import _class_regret_identity

    claim = _class_regret_identity(2)
    assert claim.name == "lossnet.class_regret_identity" and claim.passed and claim.value == 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_two_classes_take_the_two_class_identity(n):
    """One call for two classes or n: n = 2 is the two-class claim (H and L), more
    classes the claim over every marginal class."""
    expected = "lossnet.regret_identity" if n == 2 else "lossnet.class_regret_identity"
    assert regret_identity_claim(n).name == expected


@pytest.mark.parametrize("n", [1, 2.5, "3"])
def test_identity_claim_refuses_a_bad_class_count(n):
    with pytest.raises((TypeError, ValueError), match="n"):
        regret_identity_claim(n)


def test_lossnet_claims_lists_every_class_claim():
    net = NETS[1]
    claims = lossnet_claims(net, regret_curve(net, [10**3, 10**4]))
    assert [c.name for c in claims] == [
        "lossnet.class_regret_identity",
        "lossnet.class_leading_constant",
        "lossnet.class_bounded_offset",
    ]
    assert all(c.passed for c in claims)
