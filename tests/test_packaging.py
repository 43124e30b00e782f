"""The package as it is shipped: one version, a license, a citation, the sdist's files,
the command's own options (``--version``, ``--print-completion``, ``python -m``) and the
CI steps that build and install it (issue 25).

The reference for every version check is ``pyproject.toml`` read with :mod:`tomllib`
(the one version source), never the code under test; the sdist's contents are computed
from ``MANIFEST.in`` by setuptools' own template reader and compared with ``git
ls-files`` (what ``check-manifest``, run by ``.ci/run``, also checks, there by building
the sdist).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

import qtheory
from qtheory.cli.program import main

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
VERSION = PYPROJECT["project"]["version"]


def run_main(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


# one version


def test_the_version_is_pyprojects_and_the_installed_metadatas():
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)
    assert qtheory.__version__ == metadata.version("qtheory") == VERSION


def test_the_version_outside_an_installation(monkeypatch, tmp_path):
    """Not installed: the checkout's pyproject.toml; neither: ``0+unknown``."""

    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    assert qtheory._version() == VERSION
    fake = tmp_path / "qtheory" / "__init__.py"
    fake.parent.mkdir()
    monkeypatch.setattr(qtheory, "__file__", str(fake))
    assert qtheory._version() == "0+unknown"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "other"\nversion = "9.9.9"\n')
    assert qtheory._version() == "0+unknown"  # another project's checkout


def test_qtheory_version_prints_the_metadata_version():
    assert run_main(["--version"]) == (0, f"qtheory {VERSION}\n", "")


@pytest.mark.parametrize("module", ["qtheory", "qtheory.cli"])
def test_python_dash_m_runs_the_command(module):
    """``python -m qtheory`` and ``python -m qtheory.cli`` are the ``qtheory`` command."""
    done = subprocess.run(
        [sys.executable, "-m", module, "--version"], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (0, f"qtheory {VERSION}\n")
    bad = subprocess.run(
        [sys.executable, "-m", module, "gated", "--bogus"], capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2 and "--bogus" in bad.stderr


def test_the_version_is_looked_up_only_when_asked_for():
    """``qtheory --help`` imports neither importlib.metadata nor shtab."""
    code = (
        "import contextlib, io, sys\n"
        "from qtheory.cli.program import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--help'])\n"
        "print('importlib.metadata' in sys.modules, 'shtab' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["False", "False"], done.stderr


def test_certificates_record_the_version(tmp_path):
    from qtheory.lossnet.claims import fluid_claim
    from qtheory.model.lossnet import LossNetwork
    from qtheory.report.claims import write_certificates

    [path] = write_certificates([fluid_claim(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0))], tmp_path)
    assert json.loads(path.read_text())["provenance"]["qtheory"] == VERSION


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout")
def test_provenance_names_the_checkouts_commit():
    """In a checkout the commit is git's HEAD (it once looked for .git inside the
    package and recorded "not a git checkout" everywhere)."""
    from qtheory.core.provenance import provenance

    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert provenance()["commit"].split(" + ")[0] == head


# license, citation, changelog, metadata


def test_the_license_is_mit_and_travels_with_the_distributions():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n\nCopyright (c) 2026 qtheory developers\n")
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text
    assert PYPROJECT["project"]["license"] == "MIT"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]


def test_the_metadata_names_authors_urls_classifiers_and_keywords():
    project = PYPROJECT["project"]
    assert project["authors"] == [{"name": "qtheory developers"}]
    assert project["urls"]["Homepage"] == "https://github.com/qtheory/qtheory"
    assert "Typing :: Typed" in project["classifiers"]
    python = {c.rsplit(" ", 1)[1] for c in project["classifiers"] if ":: Python :: 3." in c}
    assert "3.11" in python and project["requires-python"] == ">=3.11"
    assert len(project["keywords"]) >= 5


def test_py_typed_is_package_data():
    assert (ROOT / "qtheory" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["qtheory"]


def test_the_citation_is_valid_cff_and_cites_the_two_papers():
    cffconvert = pytest.importorskip("cffconvert")
    text = (ROOT / "CITATION.cff").read_text()
    citation = cffconvert.Citation(text)
    citation.validate()  # the CFF 1.2 JSON schema; raises when invalid
    cff = citation.cffobj
    assert cff["cff-version"] == "1.2.0"
    assert cff["version"] == VERSION and cff["license"] == "MIT"
    assert cff["authors"] == [{"name": "qtheory developers"}]
    references = (ROOT / "docs" / "references.md").read_text()
    cited = {ref["identifiers"][0]["value"]: ref for ref in cff["references"]}
    assert set(cited) == {"arXiv:2606.02464", "arXiv:2601.14538"}
    for identifier, ref in cited.items():  # the bibliography's title and first author
        entry = references.split(identifier)[0].rsplit("**[", 1)[1]
        assert f'"{ref["title"]}"' in entry.replace("\n", " ")
        assert ref["authors"][0]["family-names"] in entry


def test_the_changelog_starts_at_the_current_version():
    versions = re.findall(r"^## \[([^\]]+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert versions[0] == VERSION


# the sdist's files


def tracked_files() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    return [name for name in done.stdout.splitlines() if (ROOT / name).is_file()]


def manifest_files() -> set[str]:
    """The files MANIFEST.in puts in the sdist, by setuptools' reader of its template."""
    from setuptools.command.egg_info import FileList

    files = FileList()
    files.findall(str(ROOT))
    files.files = [str(Path(name).relative_to(ROOT)) for name in files.allfiles]
    files.allfiles = list(files.files)
    selected = FileList()
    selected.allfiles = files.allfiles
    for line in (ROOT / "MANIFEST.in").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            selected.process_template_line(line)
    return set(selected.files)


def test_the_sdist_carries_every_tracked_file():
    ignored = set(PYPROJECT["tool"]["check-manifest"]["ignore"])
    missing = sorted(set(tracked_files()) - manifest_files() - ignored)
    assert missing == []


def test_the_sdist_carries_what_building_and_testing_need():
    included = manifest_files()
    headers = {p.relative_to(ROOT).as_posix() for p in (ROOT / "qtheory/sim/src").glob("*.h")}
    helpers = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").glob("_*.py")}
    needed = {"LICENSE", "CITATION.cff", "CHANGELOG.md", ".ci/run", "tests/conftest.py",
              "qtheory/py.typed", "qtheory/verify/pins.json"}  # fmt: skip
    assert len(headers) >= 6 and helpers
    assert headers | helpers | needed <= included
    assert not any(name.endswith((".so", ".pyc")) for name in included)


# the CI steps


def test_ci_builds_installs_and_checks_the_package_before_the_test_command():
    lines = [
        line.strip()
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    last = lines[-1]
    steps = [
        r'-m build --quiet --sdist --outdir "\$work/sdist" \.$',
        r'-m pip wheel .* "\$work"/sdist/qtheory-\*\.tar\.gz$',
        r"auditwheel\" repair ",
        r'"\$smoke/python" -m pip install --quiet "\$wheel\[test,docs\]"$',
        r'"\$smoke/qtheory" gated --arrival-rate inf ',
        r'main\(\["verify", str\(repo / "derivations" / "certificates"\)\]\)',
        r'"\$smoke/check-manifest"$',
        r'"\$smoke/mypy"$',
        r'cd "\$work" && "\$smoke/sphinx-build" -W .* -b html "\$repo/docs" ',
    ]
    where = []
    for step in steps:
        found = [i for i, line in enumerate(lines) if re.search(step, line)]
        assert found, f".ci/run lacks the step {step}"
        where.append(found[0])
    assert where == sorted(where) and where[-1] < len(lines) - 1
    assert 'work="$(mktemp -d)"' in lines  # the fresh venv is outside the tree
    assert last.endswith("python -m pytest -n auto")


# shell completion


def test_print_completion_bash_completes_subcommands_and_options(tmp_path):
    status, script, _ = run_main(["--print-completion", "bash"])
    assert status == 0 and "complete" in script
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash")
    (tmp_path / "qtheory.bash").write_text(script)
    probe = (
        f"source {tmp_path / 'qtheory.bash'}\n"
        'complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=();\n'
        '  _shtab_qtheory; echo "${COMPREPLY[*]}"; }\n'
        "complete_words qtheory gat\n"
        "complete_words qtheory gated lad\n"
        "complete_words qtheory gated ladder --pha\n"
        "complete_words qtheory --print-c\n"
    )
    done = subprocess.run([bash, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines() == ["gated", "ladder", "--phases", "--print-completion"]


def test_print_completion_zsh_and_tcsh():
    """zsh gets every option; shtab's tcsh script completes the subcommand words."""
    status, script, _ = run_main(["--print-completion", "zsh"])
    assert status == 0 and script.startswith("#compdef qtheory") and "--arrival-rate" in script
    if shutil.which("zsh"):
        done = subprocess.run(["zsh", "-n"], input=script, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    status, script, _ = run_main(["--print-completion", "tcsh"])
    assert status == 0 and "complete qtheory" in script and "(sss)" in script


def test_print_completion_refuses_another_shell():
    status, out, err = run_main(["--print-completion", "fish"])
    assert status == 2 and out == ""
    assert "--print-completion" in err and "'fish'" in err and err.count("\n") == 1
