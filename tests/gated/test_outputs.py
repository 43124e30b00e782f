"""The generated gated section: the RR optimum with its case split, asymptotics with
\\sim and stated remainder orders, every claim stated from its record."""

import re
from functools import cache

from qtheory.gated.claims import gated_claims
from qtheory.report.claims import claim_paragraph
from qtheory.report.gated import _certified_table, _formulas


@cache
def claims():
    return {claim.name: claim for claim in gated_claims(quick=True)}


@cache
def text():
    return _formulas(claims())


def test_the_rr_optimum_shows_its_condition():
    body = text()
    assert "\\begin{cases}" in body
    assert "\\Lambda \\ge \\mu - \\sqrt{\\mu C/R}" in body
    assert "\\Lambda < \\mu - \\sqrt{\\mu C/R}" in body
    # the unconditional closed forms of S_RR* and PoF are gone
    assert not re.search(r"\\mathrm\{PoF\} &= \\frac\{S_GA", body)
    assert "it would give 4.675, while admitting everybody gives the certified optimum 4" in body


def test_asymptotics_use_sim_with_remainder_orders():
    body = text()
    light = body[body.index("\\paragraph{As $\\nu=1+\\varepsilon\\downarrow 1$.}") :]
    assert "\\mathrm{PoF} &\\sim" in light
    assert "O(\\log\\log(1/\\varepsilon)/\\log(1/\\varepsilon))" in light
    heavy = body[body.index("\\paragraph{As $\\nu\\to\\infty$") :]
    assert "\\mathrm{PoF} - 1 &\\sim" in heavy and "O(\\nu^{-1/2})" in heavy
    assert "this package's construction" in light and "this package's construction" in heavy


def test_every_claim_but_the_chain_is_stated_from_its_record_in_the_derivation():
    body = text()
    for name, claim in claims().items():
        if name != "gated.embedded_chain":
            assert claim_paragraph(claim) in body, name


def test_the_certified_table_shows_shared_digits():
    table = _certified_table()
    assert "2.0635810683587488784134170\\ldots" in table  # τ* at Λ = ∞, ν = 2
    assert "$0$ & $1$" in table  # Λ = 0.5, ν = 10: τ* = 0 and PoF = 1 exactly


def test_formulas_are_printed_in_a_papers_form():
    """Display forms, not Sympy's canonical rewrites: tau named in the welfare (no nested
    fractions), 1 - sigma rather than sigma - 1, notation's upright subscripts."""
    body = text()
    assert "\\frac{1}{\\tau + \\frac{1}{\\Lambda}}" in body  # theta_GA = 1/(tau + 1/Lambda)
    # the gate as one logarithm: tau = log(Lambda/(sigma(Lambda + mu(1 - sigma))))/(mu(1 - sigma))
    gate = "\\frac{\\Lambda}{\\sigma \\left(\\Lambda + \\mu \\left(1 - \\sigma\\right)\\right)}"
    assert gate in body
    assert "\\sigma - 1" not in body and "- \\frac{- \\log" not in body
    assert "S_{\\mathrm{GA}}" in body and "S_{GA}" not in body
    assert "\\frac{4}{\\varepsilon \\log{\\left(\\frac{1}{\\varepsilon} \\right)}}" in body


def test_the_asymptotics_table_is_mathematics():
    from qtheory.report.gated import _asymptotic_table

    table = _asymptotic_table(quick=True)
    assert "$\\nu - 1 = 10^{-4}$" in table and "$\\nu = 10^{16}$" in table
    assert "$S_{\\mathrm{GA}}^* - S_{\\mathrm{RR}}^*$" in table
    for ascii_form in ("nu-1=", "S\\_GA", "tau*", "e+", "e-0"):
        assert ascii_form not in table, ascii_form
