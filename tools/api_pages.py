"""Write the API pages of the documentation site: ``docs/api/NAME.rst`` (an
``automodule``) for every public module of ``qtheory``, and its line in the toctree of
its layer in ``docs/api/index.md``; pages of modules that are gone are removed.

    python tools/api_pages.py

Existing pages are kept as they are.  ``tests/test_docs_site.py`` checks that every
public module has its page (the modules of ``UNBUILT`` in ``docs/conf.py`` aside), so a
new module fails that test until this script has run.
"""

from __future__ import annotations

import importlib
import pkgutil
import runpy
from pathlib import Path

import qtheory

ROOT = Path(__file__).resolve().parent.parent
API = ROOT / "docs" / "api"


def public_modules() -> set[str]:
    """``qtheory`` and every module or package under it without a private part."""
    found = {"qtheory"}
    for info in pkgutil.walk_packages(qtheory.__path__, "qtheory."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            found.add(info.name)
    return found


def page(name: str) -> str:
    """An ``automodule`` page; a package's page shows its docstring only (its names are
    documented in the modules that define them)."""
    title = f"``{name}``"
    text = f"{title}\n{'=' * len(title)}\n\n.. automodule:: {name}\n"
    if hasattr(importlib.import_module(name), "__path__"):
        text += "   :no-members:\n"
    return text


def main() -> None:
    unbuilt = set(runpy.run_path(str(ROOT / "docs" / "conf.py"))["UNBUILT"])
    modules = public_modules() - unbuilt
    have = {path.stem for path in API.glob("*.rst")}
    for gone in sorted(have - modules):
        (API / f"{gone}.rst").unlink()
        print("removed", gone)
    lines = [
        line
        for line in (API / "index.md").read_text().splitlines()
        if not line.startswith("qtheory") or line in modules
    ]
    for name in sorted(modules - have):
        (API / f"{name}.rst").write_text(page(name))
        layer = f"qtheory.{name.split('.')[1]}"
        rows = [i for i, line in enumerate(lines) if line == layer or line.startswith(layer + ".")]
        lines[rows[0] : rows[-1] + 1] = sorted({lines[i] for i in rows} | {name})
        print("added", name)
    (API / "index.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
