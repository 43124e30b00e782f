"""The documentation is checked code: README.md and docs/*.md.

- Every ```python block of README.md and of each docs/*.md page runs as a doctest with
  the installed package (the blocks of one file share a namespace, in order; line
  numbers in a failure are those of the Markdown file); every ``$ qtheory ...`` session
  of a ```console block of the README is rerun and must print exactly what it shows.
- Every page the code or the README cites under docs/ exists, and every relative link
  of the README and the pages resolves; every bibliography label a page uses is defined
  in docs/references.md.
- Every time the README states is the one benchmarks/bench_readme_times.py or
  bench_reproduce.py measured (their rounded strings, stored in
  benchmarks/readme_times.json and reproduce_times.json, appear in the README); the
  simulator's speed table in docs/loss-network.md is the one bench_lossnet_sim.py wrote
  (its rows stored in benchmarks/lossnet_sim.json under "docs").
- .ci/run ends with the README's test command.
"""

from __future__ import annotations

import doctest
import importlib.util
import json
import math
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
FENCE = re.compile(r"^```(\w*)\s*$")


def fenced_blocks(path: Path, language: str) -> list[tuple[int, str]]:
    """(first line number, text) of every fenced block of ``language`` in ``path``."""
    blocks, current, start, inside = [], [], 0, None
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        match = FENCE.match(line)
        if match and inside is None:
            inside, start, current = match.group(1), number + 1, []
        elif match and not match.group(1) and inside is not None:
            if inside == language:
                blocks.append((start, "\n".join(current)))
            inside = None
        elif inside is not None:
            current.append(line)
    assert inside is None, f"{path.name}: unclosed code fence"
    return blocks


def python_source(path: Path) -> str:
    """The file with everything outside its ```python blocks blanked, so that doctest
    line numbers are the file's."""
    lines = [""] * len(path.read_text().splitlines())
    for start, text in fenced_blocks(path, "python"):
        for offset, line in enumerate(text.splitlines()):
            lines[start - 1 + offset] = line
    return "\n".join(lines) + "\n"


def documented_files() -> list[Path]:
    return [README, *PAGES]


def with_examples() -> list[Path]:
    return [path for path in documented_files() if fenced_blocks(path, "python")]


@pytest.mark.parametrize("path", with_examples(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_python_examples_run(path):
    for start, text in fenced_blocks(path, "python"):
        assert ">>>" in text, f"{path.name}:{start}: a python block with no example tests nothing"
    test = doctest.DocTestParser().get_doctest(
        python_source(path), {"__name__": "__docs__"}, path.name, str(path), 0
    )
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
    assert runner.tries == len(test.examples) > 0


def console_sessions(path: Path) -> list[tuple[int, str, str]]:
    """(line, command, expected output) of every ``$ qtheory ...`` line of the ```console
    blocks of ``path``; the output is every line up to the next ``$`` line."""
    sessions = []
    for start, text in fenced_blocks(path, "console"):
        for offset, chunk in enumerate(re.split(r"^\$ ", text, flags=re.MULTILINE)[1:]):
            command, _, output = chunk.partition("\n")
            sessions.append((start + offset, command, output))
    return sessions


@pytest.mark.parametrize(
    ("line", "command", "expected"),
    console_sessions(README),
    ids=[command[:60] for _, command, _ in console_sessions(README)],
)
def test_readme_console_examples_print_what_the_readme_shows(line, command, expected, capsys):
    """Every terminal session shown in the README is rerun and prints exactly its text."""
    import shlex

    from qtheory.cli import main

    words = shlex.split(command)
    assert words[0] == "qtheory", f"README.md:{line}: a console example runs qtheory"
    assert main(words[1:]) == 0
    printed = capsys.readouterr().out
    assert _same_output(printed, expected), f"README.md:{line}: {command}\n{printed}"


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _same_output(printed: str, shown: str) -> bool:
    """The same text, with every number equal to 1e-9 relative (a float's last digits
    may differ on another machine of the same kind; the text around them may not)."""
    printed, shown = printed.rstrip("\n"), shown.rstrip("\n")
    if _NUMBER.split(printed) != _NUMBER.split(shown):
        return False
    pairs = zip(_NUMBER.findall(printed), _NUMBER.findall(shown), strict=True)
    return all(math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-300) for a, b in pairs)


def test_readme_has_python_examples():
    assert fenced_blocks(README, "python"), "the README's Python API examples are missing"


def test_doctest_line_numbers_are_the_files():
    """A failing example is reported at its line of the Markdown file."""
    path = README
    test = doctest.DocTestParser().get_doctest(python_source(path), {}, "x", str(path), 0)
    lines = path.read_text().splitlines()
    for example in test.examples:
        assert lines[example.lineno].lstrip().startswith(">>> " + example.source.split("\n")[0])


def cited_pages() -> set[str]:
    """docs/*.md names cited anywhere in the package, the tests or the README."""
    pattern = re.compile(r"docs/([\w.-]+\.md)")
    sources = [
        README,
        *ROOT.joinpath("qtheory").rglob("*.py"),
        *ROOT.joinpath("tests").rglob("*.py"),
    ]
    return {name for source in sources for name in pattern.findall(source.read_text())}


def test_every_cited_page_exists():
    missing = sorted(name for name in cited_pages() if not (DOCS / name).is_file())
    assert missing == []


def test_the_readme_links_every_page():
    readme = README.read_text()
    unlinked = [page.name for page in PAGES if f"(docs/{page.name})" not in readme]
    assert unlinked == []


@pytest.mark.parametrize("path", documented_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(path):
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # an absolute URL
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve() if file else path
        if not resolved.is_file():
            broken.append(target)
        elif anchor:
            headings = re.findall(r"^#+ (.+)$", resolved.read_text(), flags=re.MULTILINE)
            slugs = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}
            if anchor not in slugs:
                broken.append(target)
    assert broken == []


def test_bibliography_labels_are_defined():
    references = (DOCS / "references.md").read_text()
    defined = set(re.findall(r"^\*\*\[(\w+)\]\*\*", references, flags=re.MULTILINE))
    assert len(defined) == 15
    for page in PAGES:
        used = set(re.findall(r"\[([A-Z][A-Za-z]{1,3}\d\d)[,\]]", page.read_text()))
        assert used <= defined, (page.name, sorted(used - defined))


@pytest.mark.parametrize(
    "benchmark", ["bench_readme_times.py", "bench_reproduce.py"], ids=lambda name: name[6:-3]
)
def test_readme_times_are_the_measured_ones(benchmark):
    results = {
        "bench_readme_times.py": "readme_times.json",
        "bench_reproduce.py": "reproduce_times.json",
    }
    record = json.loads((ROOT / "benchmarks" / results[benchmark]).read_text())
    readme = README.read_text()
    missing = {key: text for key, text in record["readme"].items() if text not in readme}
    assert missing == {}, f"rerun benchmarks/{benchmark} and update README.md"


def test_simulator_speeds_are_the_measured_ones():
    """The speed section of docs/loss-network.md quotes what bench_lossnet_sim.py
    measured: its lines are the benchmark's docs_table of the record's measurements (a
    full run, not --quick), all in that section, the table's rows in order."""
    record = json.loads((ROOT / "benchmarks" / "lossnet_sim.json").read_text())
    spec = importlib.util.spec_from_file_location(
        "bench_lossnet_sim", ROOT / "benchmarks" / "bench_lossnet_sim.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert not record["quick"] and record["docs"] == bench.docs_table(record)
    page = (ROOT / "docs" / "loss-network.md").read_text()
    start = page.index("## How fast the C simulator runs")
    section = page[start : page.index("\n## ", start + 1)]
    missing = {key: text for key, text in record["docs"].items() if text not in section}
    assert missing == {}, "rerun benchmarks/bench_lossnet_sim.py and update the page"
    table = [line for line in section.splitlines() if line.startswith("| ")][1:]
    rows = ["ceiling"] + [rate for _, rate, _, _ in bench.DOCS_ROWS]
    assert table == [record["docs"][key] for key in rows]


def test_ci_runs_the_readme_test_command():
    quick_start = fenced_blocks(README, "bash")[0][1].splitlines()
    readme_command = quick_start[1].removeprefix(". .venv/bin/activate && ")
    ci = [
        line.strip()
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert ci[-1] == readme_command
    assert readme_command.endswith("python -m pytest -n auto")
