"""A work is written out once per module (issue 21, item 6): no bibliography entry of a
numpydoc References section (the whitespace-normalised text of a ``.. [n]`` entry, label
left out) appears in more than one docstring (module, class, function or method) of the
same module.  A work that several functions cite is listed in the module docstring's
References, and the functions name it in prose ("See the module's References: Dembo and
Zeitouni (1998), Sec. 2.2").

The modules are read with ``ast``, not imported, so every file under ``qtheory/`` is
checked, also those that import optional dependencies.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "qtheory"

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
ENTRY = re.compile(r"^(\s*)\.\. \[([^\]]+)\]\s*(.*)$")


def entries(doc: str) -> list[str]:
    """The normalised texts of the ``.. [label] text`` entries of a docstring: an entry
    goes on over the non-blank lines indented deeper than its ``..``."""
    lines = doc.expandtabs().splitlines()
    found = []
    index = 0
    while index < len(lines):
        match = ENTRY.match(lines[index])
        index += 1
        if not match:
            continue
        indent, parts = len(match.group(1)), [match.group(3)]
        while (
            index < len(lines)
            and lines[index].strip()
            and len(lines[index]) - len(lines[index].lstrip()) > indent
        ):
            parts.append(lines[index])
            index += 1
        found.append(" ".join(" ".join(parts).split()))
    return found


def docstrings(source: str) -> list[tuple[str, str]]:
    """(name, docstring) of a module's docstring and of every class, function and method
    in it."""
    tree = ast.parse(source)
    nodes = [tree, *(node for node in ast.walk(tree) if isinstance(node, DEFINITIONS))]
    found = []
    for node in nodes:
        doc = ast.get_docstring(node, clean=False)
        if doc:
            found.append((getattr(node, "name", "<module>"), doc))
    return found


def repeated(source: str) -> dict[str, list[str]]:
    """Each entry that occurs in more than one docstring: the docstrings it occurs in."""
    where = defaultdict(list)
    for name, doc in docstrings(source):
        for text in dict.fromkeys(entries(doc)):
            where[text].append(name)
    return {text: names for text, names in where.items() if len(names) > 1}


def count(found: dict[str, list[str]]) -> int:
    return sum(len(names) for names in found.values())


def modules() -> dict[str, dict[str, list[str]]]:
    root = PACKAGE.parent
    return {
        path.relative_to(root).as_posix(): repeated(path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


@pytest.fixture(scope="module")
def found() -> dict[str, dict[str, list[str]]]:
    return modules()


def test_the_parser_reads_entries_and_finds_repeats():
    source = '''"""Module.

References
----------
.. [1] A. Author, A Book
   (Publisher 2000).
"""


def f():
    """F.

    References
    ----------
    .. [1] B. Other, Paper (2001).
    .. [2] A. Author,   A Book (Publisher
       2000).
    """
'''
    assert entries(docstrings(source)[0][1]) == ["A. Author, A Book (Publisher 2000)."]
    assert repeated(source) == {"A. Author, A Book (Publisher 2000).": ["<module>", "f"]}
    assert count(repeated(source)) == 2


def test_no_module_repeats_a_bibliography_entry(found):
    assert len(found) > 100  # the walk found the package
    sources = [path.read_text(encoding="utf-8") for path in PACKAGE.rglob("*.py")]
    total = sum(len(entries(doc)) for source in sources for _, doc in docstrings(source))
    assert total > 100  # and its References entries
    offenders = {path: repeats for path, repeats in found.items() if repeats}
    assert offenders == {}
