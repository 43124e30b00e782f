"""The house's shape: the folders of ``qtheory`` are its layers, the import graph has no
circle and no arrow running up a layer, and nothing in the repository cites a file
outside it.

The layers, lowest first, are the table of ``docs/architecture.md`` (read here, so the
page and the check cannot disagree): a module may import modules of its own layer or of
lower ones, never of a higher one; package ``__init__`` modules only re-export their own
package (or a parameter record of the model layer, by name in their ``_LAZY`` map).
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "qtheory"


def read_layers() -> list[tuple[str, tuple[str, ...]]]:
    """(layer name, its folders as dotted package names), lowest first, from the table
    under ``## Layers`` in ``docs/architecture.md``."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    layers = []
    for row in re.findall(r"^\| (\d+)\. ([^|]+?) \| ([^|]+) \|", section, re.M):
        folders = re.findall(r"`(qtheory/\w+)/`", row[2])
        assert int(row[0]) == len(layers) + 1 and folders, f"malformed layer row {row}"
        layers.append((row[1], tuple(f.replace("/", ".") for f in folders)))
    return layers


LAYERS = read_layers()


def layer_of(module: str) -> int:
    """The layer of ``module``: the one whose folder holds it."""
    for index, (_, folders) in enumerate(LAYERS):
        if any(module == f or module.startswith(f + ".") for f in folders):
            return index
    raise AssertionError(f"{module} is in no folder of the layer table of docs/architecture.md")


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(path: Path, known: set[str]) -> set[str]:
    """Every ``qtheory`` module that ``path`` imports, lazily (inside functions) or not."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names]
            if not any(n in known for n in names):
                names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        found.update(n for n in names if n in known and n.startswith("qtheory"))
    return found


EXTENSIONS = {"qtheory.sim._core"}  # compiled: a leaf of the engines layer
GRAPH = {name: imports(path, set(modules()) | EXTENSIONS) for name, path in modules().items()}
GRAPH.update({name: set() for name in EXTENSIONS})
PACKAGES = {name for name, path in modules().items() if path.name == "__init__.py"}


def test_no_import_cycle():
    """Depth-first search over module edges (package re-exports resolved to the module)."""
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for target in sorted(GRAPH[node]):
            if state.get(target) == 1:
                cycle = (
                    stack[stack.index(target) :] + [target] if target in stack else [node, target]
                )
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target, [*stack, target])
        state[node] = 2

    for node in sorted(GRAPH):
        if node not in state:
            visit(node, [node])


# qtheory.__main__ is the `python -m qtheory` entry point: it imports only qtheory.cli.program
@pytest.mark.parametrize("module", sorted(set(GRAPH) - PACKAGES - {"qtheory", "qtheory.__main__"}))
def test_no_upward_import(module):
    mine = layer_of(module)
    for target in GRAPH[module]:
        resolved = [target] if target not in PACKAGES else sorted(GRAPH[target] - PACKAGES)
        for name in resolved:
            if name in PACKAGES:
                continue
            assert layer_of(name) <= mine, (
                f"{module} ({LAYERS[mine][0]}) imports {name} ({LAYERS[layer_of(name)][0]})"
            )


def test_package_inits_reexport_their_own_package():
    """(and the lazy-package helper ``qtheory.core.lazy`` that resolves those names)"""
    for package in PACKAGES - {"qtheory"}:
        for target in GRAPH[package] - {"qtheory.core.lazy"}:
            assert target.startswith(package + "."), f"{package}/__init__ imports {target}"


def test_nothing_cites_a_file_outside_the_repository():
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    pattern = re.compile(r"DESIGN\.md|\.\./shared|shared/papers|shared/DESIGN")
    offenders = [
        name
        for name in tracked
        if name != "tests/test_architecture.py"
        and (ROOT / name).is_file()
        and pattern.search((ROOT / name).read_text(errors="ignore"))
    ]
    assert offenders == []


def test_the_certificate_checker_is_independent():
    """``qtheory.verify`` re-checks certificates without the code that produced them: its
    modules import the standard library, python-flint and ``qtheory.verify`` only."""
    import sys

    allowed = set(sys.stdlib_module_names) | {"flint", "__future__"}
    for path in sorted((PACKAGE / "verify").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                ok = name.split(".")[0] in allowed or re.fullmatch(r"qtheory\.verify(\.\w+)*", name)
                assert ok, f"{path.relative_to(ROOT)} imports {name}"


def _private_uses(path: Path) -> list[str]:
    """``from M import _x`` and ``m._x`` on an imported qtheory module ``m`` in ``path``
    (a package's own private modules, ``_generated`` and the C extension ``_core``, are
    its public parts' implementation and may be imported from the package)."""
    tree = ast.parse(path.read_text())
    found, aliases = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("qtheory"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full in GRAPH:
                    aliases.add(alias.asname or alias.name)
                elif alias.name.startswith("_") and alias.name != "__version__":
                    found.append(f"from {node.module} import {alias.name}")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def test_no_module_uses_another_modules_private_names():
    offenders = {name: uses for name, path in modules().items() if (uses := _private_uses(path))}
    assert offenders == {}


@pytest.mark.parametrize("package", sorted(PACKAGES - {"qtheory"}))
def test_every_lazy_name_resolves(package):
    """Each name of a package's ``_LAZY`` map is defined by the module it names."""
    import importlib

    module = importlib.import_module(package)
    for name in getattr(module, "_LAZY", {}):
        value = getattr(module, name)  # AttributeError when the map names the wrong module
        assert getattr(value, "__name__", name) == name
        # a submodule of the same name, once imported, would hide the public name
        assert not (PACKAGE / package.split(".", 1)[1].replace(".", "/") / f"{name}.py").exists()


def test_no_module_is_a_folder_in_disguise():
    """No module over 1000 lines (the generated evaluators aside): a module that large
    mixes roles and is split by them."""
    long = {
        name: n
        for name, path in modules().items()
        if path.name != "_generated.py" and (n := len(path.read_text().splitlines())) > 1000
    }
    assert long == {}


#: Functions of a lower layer that evaluate a function they are given (a root finder
#: evaluating a model's first-order condition): the call back up is the caller's own code.
CALLBACK_TAKERS = {("core", "bracketed_root_mp")}


def _folder_walks(argv: list[str]) -> dict[str, int]:
    """Run ``qtheory ARGV`` in this process and return, for each stack seen at a call into
    ``qtheory``, the folders it passes (``cli > lossnet > sim``) when a folder appears in
    two separate runs of it: a climb back into a folder already left on the way down.  A
    call made by a :data:`CALLBACK_TAKERS` function to the function it was given is not a
    climb."""
    import contextlib
    import io
    import os
    import sys

    from qtheory.cli.program import main

    prefix = str(PACKAGE) + os.sep

    def folder(frame) -> str | None:
        """The folder of ``qtheory`` holding the frame's code (None: outside, or a module
        of the package's root)."""
        path = frame.f_code.co_filename
        head, slash, _ = path[len(prefix) :].partition(os.sep)
        return head if path.startswith(prefix) and slash else None

    def walks(frame) -> list[list[str]]:
        """The stack's folders, outermost first, cut after each callback taker."""
        frames = []
        while frame is not None:
            if (where := folder(frame)) is not None:
                frames.append((where, frame.f_code.co_name))
            frame = frame.f_back
        segments: list[list[str]] = [[]]
        for where, name in reversed(frames):
            segments[-1].append(where)
            if (where, name) in CALLBACK_TAKERS:
                segments.append([])
        return [[f for i, f in enumerate(seg) if i == 0 or seg[i - 1] != f] for seg in segments]

    climbs: dict[str, int] = {}

    def profile(frame, event, arg):
        # a climb starts where a call crosses into another folder
        if event == "call" and (where := folder(frame)) is not None:
            back = frame.f_back
            if back is None or folder(back) != where:
                for runs in walks(frame):
                    if len(runs) != len(set(runs)):
                        key = " > ".join(runs)
                        climbs[key] = climbs.get(key, 0) + 1

    with contextlib.redirect_stdout(io.StringIO()):
        sys.setprofile(profile)
        try:
            assert main(argv) == 0
        finally:
            sys.setprofile(None)
    return climbs


@pytest.mark.parametrize(
    "argv",
    [
        ["lossnet", "simulate", "--servers", "100", "--lambda-h", "0.6", "--lambda-l", "0.8",
         "--mu", "1", "--r-h", "2", "--r-l", "1", "--policy", "pfi", "--horizon", "20",
         "--reps", "2", "--seed", "1"],
        ["gated", "ladder", "--arrival-rate", "3", "--service-rate", "1", "--reward", "2",
         "--cost", "1", "--phases", "2", "--json"],
    ],
    ids=["lossnet simulate", "gated ladder"],
)  # fmt: skip
def test_a_command_passes_each_folder_once_on_the_way_down(argv):
    """From the command line to the kernel, every stack of calls passes each folder in one
    run (``cli > lossnet > sim > core``), never back into one it has left; a root finder
    calling the function it was given is the caller's own code, not a climb."""
    assert _folder_walks(argv) == {}
