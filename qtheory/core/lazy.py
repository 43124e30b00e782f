"""Packages whose public names load on first use (PEP 562), so that importing one
submodule (a command's, say) does not import every model and its NumPy, SciPy, Sympy
or Arb.

A package calls :func:`lazy_package` with its name -> submodule map.  No public name
is also the name of a submodule (``tests/test_architecture.py``): importing the
submodule binds it as the package's attribute and would hide the name.
"""

from __future__ import annotations

import importlib
import sys
import types

__all__ = ["lazy_package"]


class _LazyPackage(types.ModuleType):
    """A package module that resolves the names of its ``_LAZY`` map on first use."""

    def __getattr__(self, name: str) -> object:
        lazy = self.__dict__.get("_LAZY", {})
        if name not in lazy:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        module = lazy[name]
        if not module.startswith("qtheory."):
            module = f"{self.__name__}.{module}"
        return getattr(importlib.import_module(module), name)

    def __dir__(self) -> list[str]:
        return sorted({*self.__dict__, *self.__dict__.get("_LAZY", {})})


def lazy_package(name: str, lazy: dict[str, str]) -> None:
    """Make package ``name`` import each public name of ``lazy`` from its submodule on
    first use.

    Parameters
    ----------
    name : str
        The package's ``__name__``.
    lazy : dict of str to str
        Public name -> the module that defines it: a submodule's name relative to the
        package, or an absolute ``qtheory.…`` name (a model's parameter record, which
        lives in :mod:`qtheory.model`).

    Examples
    --------
    >>> import qtheory.walks
    >>> qtheory.walks.window_sweep.__module__  # imported on first use
    'qtheory.walks.lookahead_sweep'
    """
    module = sys.modules[name]
    module._LAZY = lazy
    module.__class__ = _LazyPackage
