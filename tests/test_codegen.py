"""The committed evaluator modules are what the derivations generate today.

``tools/generate_evaluators.py`` writes ``qtheory/gated/_generated.py``,
``qtheory/lossnet/_generated.py`` and ``qtheory/walks/_generated.py`` from the Sympy
derivations; the numerical modules (and
so the command line) call those evaluators without running Sympy.  These tests regenerate
the modules and compare, so a changed formula cannot leave a stale evaluator behind.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from qtheory.core.symbolic import Formula
from qtheory.gated import _generated as gated_generated
from qtheory.gated.derivation import derive
from qtheory.lossnet import _generated as lossnet_generated
from qtheory.lossnet.fluid import derive_fluid

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "generate_evaluators.py"


def load_generator():
    spec = importlib.util.spec_from_file_location("generate_evaluators", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generator = load_generator()


@pytest.mark.parametrize("path", sorted(generator.TARGETS))
def test_committed_module_equals_the_regenerated_one(path):
    assert (ROOT / path).read_text() == generator.source(path), (
        f"{path} is stale: run python tools/generate_evaluators.py"
    )


def test_check_passes_in_a_fresh_process_with_another_hash_seed():
    """The text does not depend on the process (set order, hash seed): ``--check`` in a
    fresh interpreter agrees with the committed files."""
    env = dict(os.environ, PYTHONHASHSEED="12345")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], cwd=ROOT, env=env, capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_a_changed_formula_is_stale_until_regenerated(tmp_path, monkeypatch):
    """Write the modules into a scratch tree, change a formula: --check fails naming the
    module, and regenerating makes it pass again with the new formula's code."""
    monkeypatch.setattr(generator, "ROOT", tmp_path)
    for path in generator.TARGETS:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    assert generator.main([]) == 0
    assert generator.stale() == []

    origin, evaluators = generator.TARGETS["qtheory/lossnet/_generated.py"]
    bound = derive_fluid().bound(1)
    changed = Formula(bound.name, 2 * bound.expr, bound.args)

    def changed_evaluators():
        return [(changed, backend) for _, backend in evaluators()[:2]] + evaluators()[2:]

    monkeypatch.setitem(
        generator.TARGETS, "qtheory/lossnet/_generated.py", (origin, changed_evaluators)
    )
    assert generator.stale() == ["qtheory/lossnet/_generated.py"]
    assert generator.main(["--check"]) == 1
    assert generator.main([]) == 0
    assert generator.stale() == []
    text = (tmp_path / "qtheory/lossnet/_generated.py").read_text()
    assert changed.source("float64") in text and bound.source("float64") not in text


def test_generated_evaluators_compute_what_the_formulas_compute():
    f = derive()
    args = (mpmath.mpf("0.7"), mpmath.mpf(1), mpmath.mpf("0.5"), mpmath.mpf(3), mpmath.mpf(1))
    with mpmath.workdps(40):
        assert gated_generated.welfare_ga_mp(*args) == f.welfare_ga.mp(*args)
        expected = f.welfare_ga.expr.subs(f.welfare_ga.substitutions).subs(
            dict(zip(f.welfare_ga.args, map(sp.Float, args, [40] * 5), strict=True))
        )
        assert abs(gated_generated.welfare_ga_mp(*args) - mpmath.mpf(str(expected))) < 1e-35
    assert lossnet_generated.fluid_bound_float64(100, 0.6, 1.0, 2.0, 1.0) == 160.0


@pytest.mark.parametrize("name", ["poisson", "skellam", "walk"])
def test_each_chernoff_bound_calls_the_evaluators_of_its_whole_derivation(name):
    """qtheory.walks.chernoff finds a family's generated evaluators by the names of its
    derivation's Formulas (NAME_weight_k, ...): its route names every one of them, no
    more, so a derivation that gains a term cannot leave its evaluator uncalled."""
    from qtheory.walks import chernoff, chernoff_derivation

    family = getattr(chernoff_derivation, f"derive_{name}")()
    route = getattr(chernoff, f"_{name.upper()}")
    kinds = ("weight", "deviation", "tilted_mean")
    used = {f"{name}_mean"} | {f"{name}_{kind}_{k}" for kind in kinds for k in range(route.terms)}
    used |= {f"{name}_{a}{side}" for a in route.auxiliary for side in ("", "_negative_x")}
    formulas = [family.mean, *family.weights, *family.deviations, *family.tilted_means]
    formulas += [form for a in family.auxiliary for form in (a.nonnegative_x, a.negative_x)]
    assert used == {formula.name for formula in formulas}
    assert route.auxiliary == tuple(a.symbol.name for a in family.auxiliary)  # in their order
