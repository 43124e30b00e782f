"""Symbolic identities of the gated model, checked by Sympy itself."""

import sympy as sp

from qtheory.gated import derivation as d


def test_gate_of_root_solves_the_root_equation():
    f = d.derive()
    lhs = f.root_equation.lhs
    rhs = f.root_equation.rhs.subs(d.gate, f.gate_of_root.expr)
    assert sp.simplify(sp.expand_log(sp.log(rhs) - sp.log(lhs), force=True)) == 0


def test_mean_interarrival_and_deterministic_limit():
    f = d.derive()
    assert sp.simplify(f.mean_interarrival - (d.gate + 1 / d.arrival_rate)) == 0
    s = d.transform_variable
    assert f.interarrival_lst_deterministic == sp.exp(-s * d.gate)


def test_rr_optimum_is_a_stationary_point_and_welfare_closed_form():
    f = d.derive()
    slope = sp.diff(f.welfare_rr.expr, d.admission_rate).subs(
        d.admission_rate, f.rr_optimal_rate.expr
    )
    assert sp.simplify(slope) == 0
    # Edelson-Hildebrand: S_RR* = R mu (1 - nu^{-1/2})^2 with nu = R mu / C.
    nu = d.naor_ratio
    textbook = (nu * d.cost / d.service_rate) * d.service_rate * (1 - 1 / sp.sqrt(nu)) ** 2
    assert sp.simplify(f.rr_optimal_welfare.expr - textbook) == 0


def test_mean_sojourn_is_wait_plus_service():
    f = d.derive()
    assert sp.simplify(f.mean_sojourn.expr - 1 / (d.service_rate * (1 - d.root))) == 0


def test_dominance_identity_holds():
    lhs, rhs = d.dominance_identity()
    assert sp.simplify(lhs - rhs) == 0
    a = sp.Symbol("a", positive=True)
    # e^a - 1 - a has only positive Taylor coefficients beyond order 1
    series = sp.series(sp.exp(a) - 1 - a, a, 0, 8).removeO()
    assert all(c > 0 for c in sp.Poly(series, a).coeffs())


def test_numeric_forms_use_accurate_primitives():
    f = d.derive()
    text = str(f.gate_of_root.numeric_expr)
    assert "log1p" in text and "expm1" in text


def test_rr_forms_without_cancellation_equal_the_display_forms():
    """C eps^2/(sqrt(1+eps)+1)^2 is C(sqrt(nu)-1)^2 and the rate is mu - sqrt(mu C/R)."""
    f = d.derive()
    nu = 1 + d.naor_excess
    welfare = f.rr_optimal_welfare.expr.subs(d.naor_ratio, nu)
    assert sp.simplify(f.rr_optimal_welfare_excess.expr - welfare) == 0
    rate = f.rr_optimal_rate.expr.subs(d.reward, nu * d.cost / d.service_rate)
    assert sp.simplify(f.rr_optimal_rate_excess.expr - rate) == 0
    # no difference of O(1) terms is left: every term of the numerator is a product
    for form in (f.rr_optimal_welfare_excess, f.rr_optimal_rate_excess):
        assert not isinstance(sp.numer(sp.together(form.expr)), sp.Add), form.expr
