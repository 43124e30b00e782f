"""A number from the command line does not pay for what it does not use.

``qtheory gated ... --json`` and ``qtheory lossnet online ... --json`` run without
importing Sympy (their formulas' evaluators are generated code, tests/test_codegen.py),
matplotlib, pandas, tqdm, scipy.stats, Arb or the report stack, and ``qtheory --help``
imports no subcommand.  ``qtheory gated ladder`` imports none of them either, nor does
``qtheory walks sss ... --json``: its Chernoff, ruin and idle-walk formulas are generated
code too, and its Poisson pmf comes from scipy.special;
``qtheory table`` and ``qtheory check`` import Arb (their values are certified) but
neither Sympy nor pandas, and ``qtheory check`` refuses a bad parameter before it
imports Arb; neither imports scipy.stats (the Claim record's statistics import it on
first use: it cost ``qtheory check`` 0.4 s of its start).  Each
check runs in a fresh interpreter and reads ``sys.modules``; how long a start takes is
measured, as a ratio, by benchmarks/bench_readme_times.py.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: Top-level packages (and qtheory modules) a quick number must not import.
HEAVY = ("sympy", "matplotlib", "pandas", "tqdm", "flint", "scipy.stats", "qtheory.report.latex",
         "qtheory.report.plots", "qtheory.report.claims")  # fmt: skip

GATED = ["gated", "--arrival-rate", "inf", "--service-rate", "1", "--reward", "2",
         "--cost", "1", "--json"]  # fmt: skip
LOSSNET = ["lossnet", "online", "--servers", "1000", "--lambda-h", "0.6", "--lambda-l", "0.8",
           "--mu", "1", "--r-h", "2", "--r-l", "1", "--json"]  # fmt: skip


def modules_after(code: str) -> tuple[str, set[str]]:
    """(stdout before the report, the modules loaded) after running ``code`` in a fresh
    interpreter."""
    script = f"{code}\nimport sys\nprint('\\nMODULES', ' '.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    out, _, modules = done.stdout.rpartition("\nMODULES ")
    return out, set(modules.split())


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


@pytest.mark.parametrize("argv", [GATED, LOSSNET], ids=["gated", "lossnet online"])
def test_a_number_imports_nothing_heavy(argv):
    out, modules = modules_after(f"from qtheory.cli import main\nmain({argv!r})")
    assert heavy(modules) == []
    assert "qtheory.gated.derivation" not in modules and "qtheory.core.symbolic" not in modules
    assert json.loads(out)  # it did print its numbers


def test_gated_number_is_the_one_the_derivation_gives():
    """The generated evaluators give the documented optimum (qtheory.gated docstring)."""
    out, _ = modules_after(f"from qtheory.cli import main\nmain({GATED!r})")
    values = json.loads(out)
    assert round(values["tau_star"], 6) == 2.063581 and round(values["pof"], 6) == 2.176128


@pytest.mark.parametrize(
    "argv", [["--help"], ["gated", "--help"], ["lossnet", "--help"], ["walks", "sss", "--help"]]
)
def test_help_imports_nothing_heavy(argv):
    out, modules = modules_after(f"from qtheory.cli import main\nassert main({argv!r}) == 0")
    assert heavy(modules) == [] and "usage: qtheory" in out
    if argv == ["--help"]:
        assert not any(m.endswith(".command") or m == "qtheory.report.reproduce" for m in modules)


@pytest.mark.parametrize("package", ["qtheory.gated", "qtheory.lossnet", "qtheory.walks"])
def test_packages_import_sympy_and_arb_only_when_asked(package):
    _, modules = modules_after(f"import {package}")
    assert heavy(modules) == []
    _, modules = modules_after(f"import {package} as p\n[getattr(p, n) for n in p.__all__]")
    assert "sympy" in modules and "flint" in modules  # every public name still resolves


LADDER = ["gated", "ladder", "--arrival-rate", "3", "--service-rate", "1", "--reward", "2",
          "--cost", "1", "--phases", "2"]  # fmt: skip
CHECK = ["check", "gated.dominance", "--arrival-rate", "3", "--service-rate", "1", "--reward",
         "2", "--cost", "1"]  # fmt: skip
TABLE = ["table", "lossnet", "--servers", "100,1000", "--lambda-h", "0.6", "--lambda-l", "0.8",
         "--mu", "1", "--r-h", "2", "--r-l", "1", "--format", "markdown"]  # fmt: skip
SYMBOLIC = ("qtheory.gated.derivation", "qtheory.core.symbolic")


def test_the_ladder_imports_nothing_heavy():
    out, modules = modules_after(f"from qtheory.cli import main\nmain({LADDER!r})")
    assert heavy(modules) == [] and not set(SYMBOLIC) & modules
    assert "ordered: True" in out


@pytest.mark.parametrize(
    ("argv", "allowed"),
    [(TABLE, {"flint"}), (CHECK, {"flint"})],
    ids=["table", "check"],
)
def test_a_table_and_a_check_import_only_arb(argv, allowed):
    """Certified values need Arb; neither needs Sympy, pandas, scipy.stats or the report's
    LaTeX."""
    out, modules = modules_after(f"from qtheory.cli import main\nmain({argv!r})")
    roots = {next(h for h in HEAVY if m == h or m.startswith(h + ".")) for m in heavy(modules)}
    assert roots <= allowed
    assert not {"sympy", "pandas"} & {m.split(".")[0] for m in modules}
    assert not set(SYMBOLIC) & modules and out


@pytest.mark.parametrize(
    "argv",
    [
        [*CHECK[:6], "2x", *CHECK[7:]],  # --reward 2x
        ["check", "gated.optimal_gate", "--arrival-rate", "3", "--service-rate", "1",
         "--reward", "0.5", "--cost", "1"],  # nu = 1/2 <= 1
        ["check", "lossnet.online_optimum", "--servers", "100", "--lambda-h", "1.6",
         "--lambda-l", "0.8", "--mu", "1", "--r-h", "2", "--r-l", "1"],
        ["check", "walks.ruin", "--servers", "500", "--lambda-h", "0.6", "--mu", "1",
         "--level", "300"],
    ],
    ids=["typo", "nu", "network", "level"],
)  # fmt: skip
def test_a_bad_check_parameter_is_refused_before_the_heavy_imports(argv):
    """A typo in ``qtheory check NAME ...`` parameters was reported after 7.6 s of
    imports; the model's record checks it first."""
    code = f"from qtheory.cli import main\nassert main({argv!r}) == 2"
    _, modules = modules_after(code)
    assert heavy(modules) == [] and "qtheory.gated.certified" not in modules


WALKS = ["walks", "sss", "--servers", "1000", "--lambda-h", "0.6", "--lambda-l", "0.8", "--mu",
         "1", "--r-h", "2", "--r-l", "1", "--c", "8", "--json"]  # fmt: skip
DERIVATIONS = ("qtheory.walks.chernoff_derivation", "qtheory.model.lossnet_symbols")


def test_walks_sss_derives_nothing():
    """``qtheory walks sss`` took 4.7 times the bare import baseline while it derived its
    Chernoff bounds with Sympy on every run; it now calls the generated evaluators."""
    out, modules = modules_after(f"from qtheory.cli import main\nmain({WALKS!r})")
    roots = {next(h for h in HEAVY if m == h or m.startswith(h + ".")) for m in heavy(modules)}
    assert roots == set()
    assert "sympy" not in {m.split(".")[0] for m in modules}
    assert not {*SYMBOLIC, *DERIVATIONS} & modules
    values = json.loads(out)
    assert 0 < values["failure_exact"] <= values["failure_bound"] < 1  # the bound bounds it


SIMULATE = ["lossnet", "simulate", "--servers", "50", "--lambda-h", "0.6", "--lambda-l", "0.8",
            "--mu", "1", "--r-h", "2", "--r-l", "1", "--policy", "threshold:2", "--horizon",
            "20", "--warmup", "2", "--reps", "2", "--json"]  # fmt: skip


def test_a_clock_model_simulation_loads_no_lp_solver():
    """``qtheory lossnet simulate`` imported the job model's LP (scipy.optimize's HiGHS,
    scipy.sparse) for every policy; only ``--info job --policy offline`` needs it."""
    out, modules = modules_after(f"from qtheory.cli import main\nmain({SIMULATE!r})")
    assert heavy(modules) == []
    assert "qtheory.lossnet.offline_job" not in modules
    assert not {"scipy.optimize", "scipy.sparse"} & modules
    assert json.loads(out)["reward_rate"] > 0


def test_reproduce_shows_its_bar_before_the_models_load(tmp_path):
    """``qtheory reproduce`` printed nothing for the 2.5 s its models' modules (Sympy,
    Matplotlib) took to load; its bar is now on stderr first.  Here the first model's
    import fails: the bar must already be there."""
    code = (
        "import sys\n"
        "from qtheory.report import reproduce as r\n"
        "r.MODELS = ('qtheory_no_such_model',)\n"
        "try:\n"
        f"    r.reproduce({str(tmp_path)!r}, quick=True)\n"
        "except ModuleNotFoundError:\n"
        "    pass\n"
        "print('sympy' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "qtheory reproduce" in done.stderr and "loading the models" in done.stderr
    assert done.stdout.strip() == "False"  # nothing heavy loaded before the bar
