"""qtheory: executable, verifiable queueing theory.

Gated admission to unobservable queues (:mod:`qtheory.gated`; Hassin and Ravner,
arXiv:2606.02464) and the overloaded loss network (:mod:`qtheory.lossnet`; Bray,
arXiv:2601.14538): Sympy derivations, float64, mpmath and Arb evaluators generated from
them, exact solvers, a C simulator, certificates that :mod:`qtheory.verify` re-checks,
and the ``qtheory`` command (:mod:`qtheory.cli`; also ``python -m qtheory``).  The
layers are described in ``docs/architecture.md``.

``qtheory.__version__`` is the version of the installed distribution, the ``version``
of ``pyproject.toml`` (read through :mod:`importlib.metadata`, the one version source);
in a source checkout that is not installed it is read from the checkout's
``pyproject.toml``, and ``"0+unknown"`` when neither exists.  It is looked up on first
use, so importing the package (every ``qtheory`` command does) costs nothing for it.

Examples
--------
>>> import qtheory
>>> from importlib import metadata
>>> qtheory.__version__ == metadata.version("qtheory")
True
"""

from __future__ import annotations

__all__ = ["__version__"]


def _version() -> str:
    """The installed distribution's version, else the source checkout's, else
    ``"0+unknown"``."""
    from importlib import metadata

    try:
        return metadata.version("qtheory")
    except metadata.PackageNotFoundError:
        import tomllib
        from pathlib import Path

        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        try:
            project = tomllib.loads(pyproject.read_text())["project"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "0+unknown"
        return str(project["version"]) if project.get("name") == "qtheory" else "0+unknown"


def __getattr__(name: str) -> str:
    """``__version__``, computed once (PEP 562)."""
    if name == "__version__":
        version = globals()["__version__"] = _version()
        return version
    raise AttributeError(f"module 'qtheory' has no attribute {name!r}")
