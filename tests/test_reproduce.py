"""End to end: ``qtheory reproduce --quick`` hands its run context to every step, writes
the claims report, is deterministic for a given seed, and its ``derivations/main.tex``
compiles with pdflatex to a PDF with every section.

The quick run is the session's one ``qtheory reproduce --out DIR --quick``
(``conftest.quick_reproduce``, shared with every end-to-end test); the tests that read
it are marked slow (it takes about half a minute).  The PDF is compiled in a copy, so
the shared output stays as the run wrote it.  Without pdflatex/pdftotext/pdffonts the
PDF tests are skipped, except under CI (the environment variable ``CI`` set), where they
fail: CI must install TeX (``.ci/run``).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import types
from fractions import Fraction
from pathlib import Path

import pytest

from qtheory import report
from qtheory.cli import build_parser, main
from qtheory.core.claims import Claim, Evidence, Origin
from qtheory.core.executor import SerialExecutor
from qtheory.core.stats import Estimate
from qtheory.gated.claims import gated_claims
from qtheory.lossnet.claims import lossnet_claims
from qtheory.lossnet.regret import regret_curve
from qtheory.report import gated as gated_outputs
from qtheory.report.claims import claim_paragraph, claims_markdown
from qtheory.report.lossnet import DEFAULT, servers_grid
from qtheory.report.reproduce import reproduce
from qtheory.report.run import DEFAULT_SEED, Run

TEX_TOOLS = ("pdflatex", "pdftotext", "pdffonts")
SECTIONS = (
    "Gated admission to an unobservable queue",
    "The value of memory",
    "The overloaded loss network: fluid bound and online optimum",
    "Claims report",
)


def require_tex() -> None:
    missing = [tool for tool in TEX_TOOLS if shutil.which(tool) is None]
    if missing:
        message = (
            f"{', '.join(missing)} not found: install texlive-latex-base "
            "texlive-latex-recommended texlive-fonts-recommended poppler-utils"
        )
        if os.environ.get("CI"):
            pytest.fail(f"CI must provide TeX: {message}")
        pytest.skip(message)


def compile_pdf(derivations: Path) -> Path:
    """pdflatex main.tex twice (the second pass resolves references); the PDF."""
    for _ in range(2):
        result = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex"],
            cwd=derivations,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stdout[-4000:]
    return derivations / "main.pdf"


def pdf_text(pdf: Path) -> str:
    """The PDF's text (pdftotext), whitespace collapsed."""
    text = subprocess.run(
        ["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    return " ".join(text.split())


def run_quietly(function, *args, **kwargs):
    """Call ``function``; return its result and what it printed."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        result = function(*args, **kwargs)
    return result, printed.getvalue()


@pytest.fixture
def quick(quick_reproduce):
    """The session's quick run (``conftest.quick_reproduce``): read it, never write into
    it."""
    return quick_reproduce


@pytest.fixture(scope="module")
def pdf(quick_reproduce, tmp_path_factory):
    """main.pdf of the quick run, compiled in a copy of its derivations and figures."""
    require_tex()
    copy = tmp_path_factory.mktemp("reproduce-pdf")
    for folder in ("derivations", "figures"):
        shutil.copytree(quick_reproduce.out / folder, copy / folder)
    return compile_pdf(copy / "derivations")


# ---------------------------------------------------------------------------
# the quick run


@pytest.mark.slow
def test_main_inputs_every_part_and_the_claims_report_last(quick):
    derivations = quick.out / "derivations"
    assert quick.written[-1] == derivations / "main.tex"
    inputs = re.findall(r"\\input\{([^}]*)\}", (derivations / "main.tex").read_text())
    assert {"gated", "lossnet"} <= set(inputs) and inputs[-1] == "claims"
    assert {derivations / "claims.md", derivations / "claims.tex"} <= set(quick.written)


@pytest.mark.slow
def test_claims_report_is_every_claim_recomputed(quick):
    # a second, separate computation of the gated and exact loss-network claims gives the
    # same report rows (determinism for the default seed); the sweep-based claims of the
    # other sections are not recomputed here (their own tests check them)
    points = regret_curve(DEFAULT, servers_grid(quick=True))
    expected = gated_claims(quick=True) + lossnet_claims(DEFAULT, points)
    written = (quick.out / "derivations" / "claims.md").read_text(encoding="utf-8")
    rows = [line for line in written.splitlines() if line.startswith("|")]
    expected_rows = [
        line for line in claims_markdown(expected).splitlines() if line.startswith("|")
    ]
    assert rows[: len(expected_rows)] == expected_rows
    total = len(rows) - 2  # header and rule
    failed = total - sum(" pass " in row for row in rows)
    [summary] = [line for line in quick.printed.splitlines() if line.startswith("claims: ")]
    counts, verdict = summary.removeprefix("claims: ").split("; ")
    assert sum(int(part.split()[0]) for part in counts.split(", ")) == total
    assert verdict.startswith(f"{failed} FAIL" if failed else "0 fail")
    assert f"seed {DEFAULT_SEED}" in written


@pytest.mark.slow
def test_verify_accepts_the_run_and_names_a_tampered_certificate(quick, tmp_path, capsys):
    certificates = sorted((quick.out / "derivations" / "certificates").glob("*.json"))
    assert certificates, "a reproduce run writes at least one certificate"
    assert main(["verify", str(quick.out)]) == 0
    assert f"all {len(certificates)} certificates hold" in capsys.readouterr().out
    # move the first claimed enclosure of each certificate off the true value (or, in an
    # exact certificate, change a digit of its longest number), one at a time
    for original in certificates:
        certificate = json.loads(original.read_text())
        where = shift_first_enclosure(certificate["data"]) or alter_longest_number(certificate)
        copy = tmp_path / original.name
        copy.write_text(json.dumps(certificate))
        assert main(["verify", str(tmp_path)]) == 1, f"{original.name}: tampered {where}"
        assert f"FAIL {certificate['claim']}:" in capsys.readouterr().err
        copy.unlink()


def shift_first_enclosure(data, path="data"):
    """Replace the first [lower, upper] pair of decimal strings in ``data`` by an interval
    just above it, which no longer holds the value it enclosed; the path of the pair."""
    items = data.items() if isinstance(data, dict) else enumerate(data)
    for key, value in items:
        if isinstance(value, list) and len(value) == 2 and all(map(is_decimal, value)):
            low, high = (Fraction(v) for v in value)
            step = max(high - low, abs(high) / 10**6, Fraction(1, 10**12))
            data[key] = [str(float(high + step)), str(float(high + 3 * step))]
            return f"{path}[{key!r}]"
        if isinstance(value, dict | list):
            found = shift_first_enclosure(value, f"{path}[{key!r}]")
            if found:
                return found
    return None


def numbers(data, path="data"):
    """Every (container, key, path) whose value is a number written as a string."""
    items = data.items() if isinstance(data, dict) else enumerate(data)
    for key, value in items:
        if isinstance(value, dict | list):
            yield from numbers(value, f"{path}[{key!r}]")
        elif is_decimal(value):
            yield data, key, f"{path}[{key!r}]"


def alter_longest_number(certificate):
    """Change a digit in the middle of the longest number of the certificate's data (a
    computed value: parameters are short); its path."""
    container, key, path = max(numbers(certificate["data"]), key=lambda c: len(c[0][c[1]]))
    text = container[key]
    spot = len(text.split("/")[0]) // 2
    container[key] = text[:spot] + str((int(text[spot]) + 5) % 10) + text[spot + 1 :]
    return path


def is_decimal(text) -> bool:
    try:
        return isinstance(text, str) and Fraction(text) is not None
    except ValueError:
        return False


@pytest.mark.slow
def test_gated_section_is_deterministic_for_a_seed_and_follows_it(quick, tmp_path):
    # rerun only the step that writes gated.tex (it holds the C simulations): the same seed
    # gives the same bytes, another seed changes the simulated numbers and nothing else
    first = (quick.out / "derivations" / "gated.tex").read_text()
    texts = {}
    for seed in (DEFAULT_SEED, DEFAULT_SEED + 1):
        run = Run(tmp_path / str(seed), quick=True, seed=seed)
        dict(gated_outputs.steps(run))["gated: derivations and tables"]()
        texts[seed] = (run.out / "derivations" / "gated.tex").read_text()
    assert texts[DEFAULT_SEED] == first
    lines = zip(first.splitlines(), texts[DEFAULT_SEED + 1].splitlines(), strict=True)
    changed = [old for old, new in lines if old != new]
    simulation = first[first.index(r"\label{tab:gated-simulation}") :]
    simulation = simulation[: simulation.index(r"\end{table}")]
    assert changed and all(line in simulation for line in changed)


@pytest.mark.slow
def test_pdf_has_every_section_and_resolves_its_references(pdf):
    text = pdf_text(pdf)
    titles = [
        title
        for part in pdf.parent.glob("*.tex")
        for title in re.findall(r"\\section\{([^}]*)\}", part.read_text())
    ]
    assert set(SECTIONS) <= set(titles)
    for title in titles:
        assert title in text
    claims = (pdf.parent / "claims.md").read_text(encoding="utf-8")
    counts = re.search(r"^(\d+ [a-z-]+(, \d+ [a-z-]+)*); \d+ (fail|FAIL)", claims, re.M)
    assert counts.group(1) in text
    log = pdf.with_suffix(".log").read_text(errors="replace")
    assert "undefined references" not in log


def layout_problems(pdf: Path) -> list[str]:
    """What the pdflatex log of ``pdf`` says does not fit the page: overfull boxes wider
    (or higher) than 1 pt and floats too large for a page."""
    log = pdf.with_suffix(".log").read_text(errors="replace")
    pattern = r"(Overfull \\[hv]box \(([\d.]+)pt too (?:wide|high)\).*)"
    problems = [line for line, width in re.findall(pattern, log) if float(width) > 1.0]
    return problems + re.findall(r".*Float too large.*", log)


@pytest.mark.slow
def test_pdf_layout_has_no_overfull_box_and_no_float_warning(pdf):
    """Every line and table of a quick run fits the page."""
    assert layout_problems(pdf) == []


def test_committed_document_fits_its_pages(tmp_path):
    """The committed paper-grade document (derivations/ and figures/, regenerated by
    ``qtheory reproduce --paper``) compiles, and every line and table fits the page."""
    require_tex()
    root = Path(__file__).resolve().parent.parent
    for folder in ("derivations", "figures"):
        shutil.copytree(root / folder, tmp_path / folder)
    assert layout_problems(compile_pdf(tmp_path / "derivations")) == []


@pytest.mark.slow
def test_pdf_fonts_are_all_scalable(pdf):
    # a Type 3 font is a METAFONT bitmap (a text symbol missing from the Type 1 fonts)
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True)
    assert "Type 3" not in fonts.stdout, fonts.stdout


# ---------------------------------------------------------------------------
# the run context, with a stand-in model


def fake_model(record: list[Run]) -> types.ModuleType:
    """A model whose one step writes a section and records one passing and one failing
    claim, the second full of LaTeX and Markdown special characters."""

    def steps(run: Run):
        record.append(run)

        def section() -> list[Path]:
            run.claims.append(
                Claim(
                    name="fake.good",
                    statement="a = b",
                    kind=Evidence.STATISTICAL,
                    passed=True,
                    origin=Origin.PAPER,
                    value=1.0,
                    reference=1.0,
                    estimate=Estimate(1.0, 0.05, 10, "t", 9),
                )
            )
            run.claims.append(
                Claim(
                    name="fake.bad",
                    statement=r"x_1 | y < z & 50% ~ {#} ^ \ >",
                    kind=Evidence.NUMERICAL,
                    passed=False,
                    origin=Origin.PACKAGE,
                    reason="a test",
                    value=2.0,
                    reference=1.0,
                )
            )
            stated = "\n\n".join(claim_paragraph(claim) for claim in run.claims[-2:])
            text = report.section("Fake model", "Body.\n\n" + stated, label="sec:fake")
            return [report.write_text(run.out / "derivations" / "fake.tex", text)]

        yield "fake: section", section

    module = types.ModuleType("qtheory_test_fake_model")
    module.steps = steps
    return module


def test_run_context_reaches_the_steps_and_the_report(tmp_path, monkeypatch):
    record: list[Run] = []
    monkeypatch.setitem(sys.modules, "qtheory_test_fake_model", fake_model(record))
    monkeypatch.setattr("qtheory.report.reproduce.MODELS", ("qtheory_test_fake_model",))
    probes: list[str] = []  # reproduce reaches the cluster once, before any step runs

    def probe(cluster):
        assert not record, "the cluster must be reached before the first step"
        probes.append(cluster)
        return SerialExecutor()

    monkeypatch.setattr("qtheory.core.executor.make_executor", probe)
    written, printed = run_quietly(
        reproduce, tmp_path, quick=True, progress=False, seed=5, cluster="tcp://127.0.0.1:8786"
    )
    [run] = record
    assert probes == ["tcp://127.0.0.1:8786"]
    assert (run.out, run.quick, run.seed, run.cluster) == (
        tmp_path,
        True,
        5,
        "tcp://127.0.0.1:8786",
    )
    assert printed.splitlines() == ["claims: 1 numerical, 1 statistical; 1 FAIL: fake.bad"]
    derivations = tmp_path / "derivations"
    main_tex = (derivations / "main.tex").read_text()
    assert re.findall(r"\\input\{([^}]*)\}", main_tex) == ["fake", "claims"]
    markdown = (derivations / "claims.md").read_text(encoding="utf-8")
    assert "| 1 ± 0.05 |" in markdown and "| FAIL |" in markdown and "seed 5, qtheory " in markdown
    require_tex()
    text = pdf_text(compile_pdf(derivations))
    assert "Fake model" in text and "Claims report" in text and "1 FAIL: fake.bad" in text
    assert "Contents" in text and "Abstract" in text and "python-flint" in text  # a paper's front
    # the special characters typeset as themselves (pdftotext shows ~ and ^ as accents)
    for piece in ("| y < z & 50%", "{#}", "\\ >"):
        assert piece in text


@pytest.mark.parametrize("size", ["quick", "standard", "paper"])
def test_claims_report_of_every_size_compiles(size, tmp_path, monkeypatch):
    """The run note differs by size (the standard one once had a bare ``10^5`` that
    stopped pdflatex); the claims report and main.tex of each size compile, and the note's
    mathematics and command-line options typeset as written."""
    monkeypatch.setitem(sys.modules, "qtheory_test_fake_model", fake_model([]))
    monkeypatch.setattr("qtheory.report.reproduce.MODELS", ("qtheory_test_fake_model",))
    flags = {"quick": size == "quick", "paper": size == "paper"}
    run_quietly(reproduce, tmp_path, progress=False, seed=5, **flags)
    derivations = tmp_path / "derivations"
    markdown = (derivations / "claims.md").read_text(encoding="utf-8")
    require_tex()
    text = pdf_text(compile_pdf(derivations))
    assert "seed 5" in text and "\\" not in text.replace("\\ >", "")
    if size != "quick":
        assert "(--paper)" in text or "; --paper runs" in text
        assert "--paper" in markdown
    if size == "standard":
        # pdftotext sets the exponent of 10^5 on the line as "105"
        assert "$N = 10^5$" in markdown and "window sweep to N = 105 ; --paper runs" in text


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seed": -1}, "seed must be an integer >= 0"),
        ({"seed": 1.5}, "seed must be an integer >= 0"),
        ({"seed": True}, "seed must be an integer >= 0"),
        ({"cluster": ""}, "cluster must be a scheduler address"),
    ],
)
def test_run_rejects_bad_context(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        Run(tmp_path, **kwargs)


def test_step_seeds_depend_on_the_seed_and_the_step_only(tmp_path):
    state = lambda run, step: run.seed_sequence(step).generate_state(4).tolist()  # noqa: E731
    one, other_folder = Run(tmp_path, seed=1), Run(tmp_path / "x", quick=True, seed=1)
    assert state(one, "gated.simulation") == state(other_folder, "gated.simulation")
    assert state(one, "gated.simulation") != state(Run(tmp_path, seed=2), "gated.simulation")
    assert state(one, "gated.simulation") != state(one, "lossnet.simulation")


def test_cli_options(tmp_path, capsys):
    parser = build_parser()
    defaults = parser.parse_args(["reproduce"])
    assert (defaults.seed, defaults.cluster) == (DEFAULT_SEED, None)
    assert defaults.out == Path("qtheory-output")  # its own folder, not the working one
    given = parser.parse_args(["reproduce", "--seed", "7", "--cluster", "tcp://h:8786"])
    assert (given.seed, given.cluster) == (7, "tcp://h:8786")
    assert main(["reproduce", "--out", str(tmp_path), "--seed", "-3"]) == 2
    assert "argument --seed: must be an integer in 0.." in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # refused before any step ran


@pytest.mark.parametrize("out", ["/etc/hostname", "/etc/hostname/below"])
def test_out_must_be_a_writable_directory(out):
    """The Python API refuses a file (or a path below one) before any step runs, naming
    out; before, NotADirectoryError came from the first step that wrote."""
    with pytest.raises(ValueError, match="out must be a directory"):
        reproduce(out, quick=True, progress=False)
