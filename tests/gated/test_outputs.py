"""The generated gated section: the RR optimum with its case split, asymptotics with
\\sim and stated remainder orders, every claim stated from its record."""

import re
from functools import cache

from qtheory.gated.claims import gated_claims
from qtheory.gated.outputs import _certified_table, _formulas
from qtheory.report.claims import claim_paragraph


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
