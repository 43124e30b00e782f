"""Asymptotic forms against mpmath at 60 digits at points approaching each limit."""

import mpmath
import pytest
import sympy as sp

from qtheory.gated.asymptotics import (
    arrival_rate,
    check_heavy_traffic,
    check_light_traffic,
    derive_light_traffic,
    excess,
    pof_asymptotics,
    service_rate,
)
from qtheory.model.gated import GatedQueue


@pytest.mark.parametrize("arrival", ["inf", "3"])
def test_light_traffic_error_vanishes_like_epsilon(arrival):
    for exponent in (8, 16, 30):
        for check in check_light_traffic(exponent, arrival, dps=60):
            # corrections are O(eps) relative (measured: about 0.05 eps)
            assert check.relative_error < mpmath.mpf(10) ** -exponent / 10, check


def test_pof_diverges_while_absolute_gain_vanishes():
    values = [check_light_traffic(k, dps=40) for k in (4, 8, 16)]
    pofs = [v[0].exact for v in values]
    gains = [v[2].exact for v in values]
    assert pofs[0] < pofs[1] < pofs[2] and pofs[2] > 1e14  # ~ 4/(eps log(1/eps))
    assert all(0 < g < 2 * mpmath.mpf(10) ** -k for g, k in zip(gains, (4, 8, 16), strict=True))


def test_sympy_branch_choice():
    """The principal branch would give sigma -> e^{K+1} >= 1; W_{-1} gives sigma in (0,1)."""
    light = derive_light_traffic()
    point = {excess: sp.Rational(1, 10**6), service_rate: 1, arrival_rate: 2}
    value = light.root.subs(point).evalf(30)
    principal = light.root.replace(sp.LambertW, lambda z, k: sp.LambertW(z)).subs(point).evalf(30)
    assert 0 < value < 1e-6 and principal > 1


@pytest.mark.parametrize("arrival", ["inf", "2"])
def test_heavy_traffic_error_vanishes_like_inverse_sqrt_nu(arrival):
    for exponent in (8, 16, 24):
        for check in check_heavy_traffic(exponent, arrival, dps=60):
            assert check.relative_error < 2 * mpmath.mpf(10) ** (-exponent / 2), check


def test_heavy_traffic_gain_is_the_hand_derived_form():
    """S_GA - S_RR ~ C(nu - 2 sqrt(m nu)) - C(nu - 2 sqrt(nu) + 1) -> 2C(1 - sqrt(m)) sqrt(nu)."""
    from qtheory.gated.asymptotics import cost, derive_heavy_traffic, naor_ratio

    heavy = derive_heavy_traffic()
    expected = 2 * cost * (1 - sp.sqrt(heavy.variability)) * sp.sqrt(naor_ratio)
    assert sp.simplify(heavy.welfare_gain - expected) == 0
    m = (1 + service_rate**2 / arrival_rate**2) / 2
    assert sp.simplify(heavy.variability - m) == 0


def test_light_traffic_leading_term():
    light = derive_light_traffic()
    assert sp.simplify(light.price_of_forgetting_leading - 4 / (excess * sp.log(1 / excess))) == 0


@pytest.mark.parametrize("regime", ["light", "heavy"])
def test_general_parameters_reduce_to_the_unit_queue_by_scaling(regime):
    """PoF and the relative errors depend on (Λ/μ, ν) only: time scales with 1/μ and money
    with C.  So the check at (Λ, μ, R, C) = (6, 2, R, 3) must give the PoF of the unit queue
    (Λ/μ, 1, ν, 1) -- an independent route through the μ = C = 1 code path -- and τ* scaled
    by 1/μ."""
    reward, nu = (
        ("1.500000000000000000015", "1.00000000000000000001")
        if regime == "light"
        else ("1.5e12", "1e12")
    )
    general = pof_asymptotics(GatedQueue("6", "2", reward, "3"), regime=regime, dps=25)
    unit = pof_asymptotics(GatedQueue("3", "1", nu, "1"), regime=regime, dps=25)
    tol = mpmath.mpf(10) ** -22
    assert abs(general[0].exact / unit[0].exact - 1) < tol
    assert abs(general[0].relative_error / unit[0].relative_error - 1) < mpmath.mpf(10) ** -6
    gate = 2 if regime == "light" else 1  # the row of tau*
    assert abs(general[gate].exact * 2 / unit[gate].exact - 1) < tol


def test_light_leading_form_error_follows_its_derived_order():
    """|PoF / (4/(ε log 1/ε)) − 1| shrinks like log log(1/ε)/log(1/ε) (certified constant
    3/2 on the claims' grid): check the bound at ε = 1e-10, 1e-40 for μ = 2, C = 3."""
    for exponent in (10, 40):
        reward = "1.5" + "0" * (exponent - 2) + "15"  # ν = 1 + 10^-exponent
        leading = pof_asymptotics(GatedQueue("inf", "2", reward, "3"), regime="light", dps=15)[1]
        log_inv = exponent * mpmath.log(10)
        assert leading.relative_error <= 1.5 * mpmath.log(log_inv) / log_inv


@pytest.mark.parametrize(
    ("queue", "regime", "message"),
    [
        (GatedQueue("1", "2", "10", "1"), "heavy", "arrival_rate must be > service_rate"),
        (GatedQueue("inf", "1", "2", "1"), "medium", "regime must be"),
        (GatedQueue("inf", "1", "1", "1"), "light", "nu"),
    ],
)
def test_bad_input_names_the_rule(queue, regime, message):
    with pytest.raises(ValueError, match=message):
        pof_asymptotics(queue, regime=regime, dps=10)


def test_default_regime_follows_nu():
    assert pof_asymptotics(GatedQueue("inf", 1, "1.01", 1), dps=8)[0].point == "nu-1=0.01"
    assert pof_asymptotics(GatedQueue("inf", 1, "50", 1), dps=8)[0].quantity == "PoF-1"


@pytest.mark.parametrize("arrival", ["inf", "3", "1.2", "1e6"])
def test_generated_asymptotes_are_the_sympy_route_at_high_precision(arrival):
    """pof_asymptotics evaluates the forms by generated code (qtheory.gated._generated);
    at 80 digits it agrees with the Sympy route (evaluate_asymptote: lambdify of the
    derived forms) to the last few digits, at points approaching each limit."""
    from qtheory.gated import _generated
    from qtheory.gated.asymptotics import (
        _FORMS,
        asymptotic_formulas,
        cost,
        derive_heavy_traffic,
        evaluate_asymptote,
        naor_ratio,
    )

    derived = {"light": derive_light_traffic(), "heavy": derive_heavy_traffic()}
    symbols = {"excess": excess, "naor_ratio": naor_ratio}
    assert len(asymptotic_formulas()) == 2 * len(_FORMS)
    with mpmath.workdps(80):
        mu, c = mpmath.mpf(2), mpmath.mpf(3)
        lam = mpmath.mpf(arrival)
        for name, (regime, field, minus, variable) in _FORMS.items():
            points = ("1e-3", "1e-12", "1e-40") if variable == "excess" else ("4", "1e8", "1e30")
            for point in map(mpmath.mpf, points):
                values = {symbols[variable]: point, service_rate: mu, cost: c}
                expected = evaluate_asymptote(getattr(derived[regime], field) - minus, values,
                                              arrival)  # fmt: skip
                if mpmath.isinf(lam):
                    got = getattr(_generated, f"{name}_at_infinite_arrival_mp")(point, mu, c)
                else:
                    got = getattr(_generated, f"{name}_mp")(point, mu, lam, c)
                assert abs(got / expected - 1) < mpmath.mpf(10) ** -75, (name, point)


def test_pof_asymptotics_runs_no_sympy_derivation():
    """The first call in a fresh process evaluates generated code: neither Sympy nor the
    derivation is imported (it took 10-19 s when it re-ran the derivation)."""
    import subprocess
    import sys

    code = (
        "from qtheory.gated import GatedQueue\n"
        "from qtheory.gated.asymptotics import pof_asymptotics\n"
        "for regime, reward in (('light', '1.0000000001'), ('heavy', '1e6')):\n"
        "    pof_asymptotics(GatedQueue('3', '1', reward, '1'), regime=regime, dps=20)\n"
        "import sys\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'sympy'"
        " or m in ('qtheory.gated.derivation', 'qtheory.core.symbolic')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_huge_light_traffic_exponent_is_refused_before_spelling_nu():
    """Regression: check_light_traffic built the decimal 1 + 10^-exponent (exponent
    characters) before any limit check; a fuzzed exponent of 3e9 grew the test process
    past 20 GB.  It is refused at once on the digits it would need, naming exponent."""
    from qtheory.gated.asymptotics import check_light_traffic

    with pytest.raises(ValueError, match=r"^exponent: .*digits, above the limit"):
        check_light_traffic(3 * 10**9, dps=20)
