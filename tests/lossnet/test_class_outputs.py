"""The n-class section of ``qtheory reproduce`` (qtheory.report.lossnet_classes), run in
isolation on a tiny plan: files, tables, claims and their verdicts."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest

from qtheory.core.claims import Evidence
from qtheory.core.stats import Estimate
from qtheory.lossnet.decomposition import fit_decomposition, run_designs
from qtheory.lossnet.designs import ClockDesign
from qtheory.report import lossnet_classes as outputs
from qtheory.report.decomposition_claims import decomposition_claims
from qtheory.report.lossnet_decomposition_sweep import Sweep
from qtheory.report.run import Run

TINY = dataclasses.replace(
    outputs.plan("quick"),
    clock={
        label: ((10, 6.0, 3), (20, 6.0, 3), (40, 6.0, 3)) for label, _ in outputs.PARAMETER_SETS
    },
    cs=(4.0, 64.0),
    warmup=2.0,
    min_fit_servers=10,
    regret_top=100,
    regret_grid=(1000, 3000),
)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The steps of a quick run with the tiny plan, serially, in a temporary folder."""
    tmp = tmp_path_factory.mktemp("classes")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(outputs, "plan", lambda size: TINY)
        patch.setenv("QTHEORY_CACHE_DIR", str(tmp / "cache"))
        run = Run(tmp / "out", quick=True, seed=3)
        paths = [path for _, step in outputs.steps(run) for path in step()]
    return tmp, run, paths


def test_steps_write_the_section_figures_and_claims(written):
    tmp, run, paths = written
    assert sorted(p.name for p in paths) == [
        "lossnet_classes.tex",
        "lossnet_classes_decomposition.pdf",
        "lossnet_classes_decomposition.png",
        "lossnet_classes_lookahead.pdf",
        "lossnet_classes_lookahead.png",
    ]
    text = (tmp / "out" / "derivations" / "lossnet_classes.tex").read_text()
    for label, _ in outputs.PARAMETER_SETS:
        assert f"tab:lossnet-classes-decomposition-{label}" in text
    for label in ("fluid", "online", "fits", "lookahead"):
        assert f"tab:lossnet-classes-{label}" in text
    assert len(re.findall(r"\\begin\{table\}", text)) == 4 + len(outputs.PARAMETER_SETS)
    # the Sympy fluid LP reached the table: class 2 marginal serves mu - lambda_1 of class 2
    assert r"\mu - \lambda_{1}" in text or r"- \lambda_{1} + \mu" in text
    # every claim stated from its record; names unique (bounded offsets named by set)
    sets = len(outputs.PARAMETER_SETS)
    assert len(run.claims) == 2 + sets + 5 * sets
    assert len({claim.name for claim in run.claims}) == len(run.claims)
    assert text.count(r"\paragraph{Claim") == len(run.claims)
    kinds = [claim.kind for claim in run.claims]
    assert kinds.count(Evidence.IDENTITY) == 2
    assert kinds.count(Evidence.FINITE_RANGE) == sets + 3 * sets
    assert kinds.count(Evidence.STATISTICAL) == 2 * sets
    assert any((tmp / "cache").rglob("*.json"))  # the replications went through the cache


def test_the_online_table_against_the_closed_form_constant(written):
    """c(n) log N printed next to the regret: c(n) = r_m mu / log(mu / Lambda_{m-1}) in
    closed form for set 3a (class 2 marginal, Lambda_1 = 0.3, r_2 = 2)."""
    tmp, _, _ = written
    text = (tmp / "out" / "derivations" / "lossnet_classes.tex").read_text()
    row = next(line for line in text.splitlines() if line.strip().startswith("3a & 1000 &"))
    cells = [cell.strip() for cell in row.rstrip("\\ ").split("&")]
    assert float(cells[4]) == pytest.approx(2 / math.log(1 / 0.3) * math.log(1000), abs=1e-4)
    assert float(cells[5]) == pytest.approx(float(cells[3]) - float(cells[4]), abs=2e-4)


def _tiny_sweep(label_index=0):
    label, net = outputs.PARAMETER_SETS[label_index]
    designs = [ClockDesign(net.with_servers(n), 8.0, 2.0, 3, 1, cs=[4.0]) for n in (10, 20, 40)]
    clock = tuple(run_designs(designs))
    return Sweep(label, net, clock, (), fit_decomposition(clock, min_servers=10))


def test_statistical_claims_can_fail():
    """A simulated R_k* far from the exact R_on, or a C_vol interval below 0, fails the
    claims (built from a real sweep with one estimate replaced)."""
    good = _tiny_sweep()
    by_name = {c.name.split(".")[-1]: c for c in decomposition_claims(good)}
    assert by_name["threshold_exact[3a]"].passed and by_name["clock_ordering[3a]"].passed
    far = Estimate(5.0, 0.1, 3, "t", 2)
    below = Estimate(-5.0, 0.1, 3, "t", 2)
    points = list(good.clock)
    points[1] = dataclasses.replace(points[1], threshold_check=far, c_vol=below)
    bad = dataclasses.replace(good, clock=tuple(points))
    by_name = {c.name.split(".")[-1]: c for c in decomposition_claims(bad)}
    assert not by_name["threshold_exact[3a]"].passed
    assert not by_name["clock_ordering[3a]"].passed
    assert by_name["clock_ordering[3a]"].value == -5.0


def test_the_constant_is_called_confirmed_only_where_the_fit_covers_it(written):
    """The verdict on c(n) is derived from each set's regret fit: "confirmed" where its
    95% interval covers c(n), "not confirmed" with both numbers otherwise, and the
    set's bounded-offset verdict next to it; nothing is decided in advance."""
    tmp, run, _ = written
    text = (tmp / "out" / "derivations" / "lossnet_classes.tex").read_text()
    assert "Does the exact regret bear out the heuristic constant" in text
    sweep = _tiny_sweep()
    fit = sweep.fits.regret
    lead = sweep.fits.leading_constant
    covering = dataclasses.replace(fit, slope=Estimate(lead + 0.01, 0.05, 40, "regression", 38))
    missing = dataclasses.replace(fit, slope=Estimate(2.175, 0.057, 40, "regression", 38))
    offset = next(c for c in run.claims if c.name == "lossnet.class_bounded_offset[3a]")
    for regret, confirmed in ((covering, True), (missing, False)):
        fits = dataclasses.replace(sweep.fits, regret=regret)
        verdict = outputs._constant_verdicts([dataclasses.replace(sweep, fits=fits)], [offset])
        if confirmed:
            assert "Confirmed: 3a; not confirmed: none." in verdict
            assert f"covers $c(n) = {lead:.4g}$: confirmed on this range" in verdict
        else:
            assert "Confirmed: none; not confirmed: 3a." in verdict
            assert "slope $2.175 \\pm 0.057$" in verdict
            assert f"against $c(n) = {lead:.4g}$, outside its 95\\% interval: not" in verdict
        assert ("holds)" if offset.passed else "fails)") in verdict


def test_slope_claims_scope_the_fitted_sizes():
    """The slope claims' range is the N the fits used (``fits.fit_servers``)."""
    sweep = _tiny_sweep()
    assert sweep.fits.fit_servers == (10, 20, 40)
    for claim in decomposition_claims(sweep)[:3]:
        assert claim.scope.startswith("$N = 10$, $20$, $40$ (3 sizes, simulated)")
        assert claim.estimate.n == 3


def test_plans():
    quick = outputs.plan("quick")
    assert list(quick.clock) == [label for label, _ in outputs.PARAMETER_SETS]
    assert [n for n, _, _ in quick.clock["3a"]] == [10, 30, 100, 300, 1000]
    assert quick.sets == outputs.PARAMETER_SETS and quick.in_process and not quick.job
    standard, paper = outputs.plan("standard"), outputs.plan("paper")
    assert standard.regret_grid[0] == 1000 and standard.regret_grid[-1] == 10**6
    assert paper.clock["4b"][-1][0] == 10**4 and len(paper.regret_grid) == 25
    assert not (standard.in_process or paper.in_process)
    # the n-class clock points keep their own seed streams, apart from the two-class ones
    assert {quick.stream, standard.stream, paper.stream} == {"classes"}
    with pytest.raises(ValueError, match="size must be"):
        outputs.plan("huge")
