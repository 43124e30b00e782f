"""The documentation site (Sphinx, MyST pages, numpydoc API reference; docs/conf.py).

``.ci/run`` builds the whole site with ``-W`` (a minute or more); here, in seconds: every
page and every public module is in the site's tables of contents, the configuration's
two helpers do what they say, and a small site built with the same configuration fails
on a broken link or cross-reference and passes without one.
"""

from __future__ import annotations

import pkgutil
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

import qtheory

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
API = DOCS / "api"


@pytest.fixture(scope="module")
def conf() -> dict:
    pytest.importorskip("sphinx")
    return runpy.run_path(str(DOCS / "conf.py"))


def toctree_entries(page: Path) -> list[str]:
    blocks = re.findall(r"^:::\{toctree\}\n(.*?)^:::", page.read_text(), re.M | re.S)
    return [
        line.strip()
        for block in blocks
        for line in block.splitlines()
        if line.strip() and not line.startswith(":")
    ]


def public_modules() -> set[str]:
    names = {"qtheory"}
    for info in pkgutil.walk_packages(qtheory.__path__, "qtheory."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            names.add(info.name)
    return names


def test_every_page_is_in_the_sites_contents():
    pages = {page.stem for page in DOCS.glob("*.md")} - {"index"}
    listed = set(toctree_entries(DOCS / "index.md"))
    assert pages | {"api/index"} == listed


def test_every_public_module_has_its_api_page(conf):
    """A new module needs ``docs/api/NAME.rst`` (an ``automodule``) and a line in
    docs/api/index.md (``python tools/api_pages.py`` writes both); the modules of
    ``UNBUILT`` in docs/conf.py are left out."""
    listed = toctree_entries(API / "index.md")
    assert len(listed) == len(set(listed))
    expected = public_modules() - set(conf["UNBUILT"])
    assert set(listed) == expected, "run python tools/api_pages.py"
    for name in listed:
        text = (API / f"{name}.rst").read_text()
        assert f".. automodule:: {name}\n" in text
    assert {page.stem for page in API.glob("*.rst")} == expected


def test_a_reexported_name_resolves_to_its_module(conf):
    canonical = conf["_canonical"]
    from qtheory.gated import gim1_root

    assert canonical("qtheory.gated.root") == "qtheory.gated.gim1_root.root"
    assert gim1_root.root.__module__ == "qtheory.gated.gim1_root"
    assert canonical("qtheory.gated.gim1_root.root") is None  # already its own name
    assert canonical("qtheory.gated.no_such_name") is None
    assert canonical("numpy.exp") is None


def test_bars_of_absolute_values_are_escaped_and_nothing_else(conf):
    lines = [
        "the error |PoF/L - 1| is below 1e-30, ``a|b`` stays, :math:`|x|` too",
        "",
        ">>> abs(-1) == len('|')",
        "True",
        "",
        "Example::",
        "",
        "    |literal|",
        "",
        "| a line block",
        "+-----+-----+",
    ]
    conf["_escape_bars"](None, "function", "f", None, {}, lines)
    assert lines[0] == (r"the error \|PoF/L - 1\| is below 1e-30, ``a|b`` stays, :math:`|x|` too")
    assert lines[2:] == [
        ">>> abs(-1) == len('|')", "True", "", "Example::", "", "    |literal|", "",
        "| a line block", "+-----+-----+",
    ]  # fmt: skip


def build(tmp_path: Path, pages: dict[str, str]) -> subprocess.CompletedProcess:
    """Build a small site with docs/conf.py's configuration, warnings as errors."""
    source = tmp_path / "source"
    source.mkdir(parents=True)
    (source / "conf.py").write_text(
        f"import runpy\nglobals().update(runpy.run_path({str(DOCS / 'conf.py')!r}))\n"
    )
    for name, text in pages.items():
        (source / name).write_text(text)
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(source), str(tmp_path / "html")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_a_broken_link_or_cross_reference_fails_the_build(tmp_path, conf):
    documented = ".. py:function:: qtheory.exact.matrix_analytic.qbd_solve()\n"
    good = build(
        tmp_path / "good",
        {
            "index.md": "# Site\n\nSee [the API](api.rst), {py:func}`qtheory.exact.qbd_solve`.\n\n"
            ":::{toctree}\napi\n:::\n",
            "api.rst": "API\n===\n\n" + documented,
        },
    )
    assert good.returncode == 0, good.stderr
    broken = build(
        tmp_path / "broken",
        {
            "index.md": "# Site\n\nSee [a page](missing.md).\n\n:::{toctree}\napi\n:::\n",
            "api.rst": "API\n===\n\n:func:`qtheory.gated.no_such_function`\n\n" + documented,
        },
    )
    assert broken.returncode != 0
    assert "missing.md" in broken.stderr
    assert "qtheory.gated.no_such_function" in broken.stderr
