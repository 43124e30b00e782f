"""Packages whose public names load on first use (PEP 562), so that importing one
submodule (a command's, say) does not import every model and its NumPy, SciPy, Sympy
or Arb.

A package calls :func:`lazy_package` with its name -> submodule map.  Importing a
submodule normally binds it as the package's attribute, which would hide a public
function of the same name (``qtheory.walks.window_sweep`` the function vs the module):
such a binding is dropped, the submodule stays in ``sys.modules``.
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

    def __setattr__(self, name: str, value: object) -> None:
        if not (name in self.__dict__.get("_LAZY", {}) and isinstance(value, types.ModuleType)):
            super().__setattr__(name, value)


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
    >>> import qtheory.walks.window_sweep  # binding the submodule does not hide the function
    >>> callable(qtheory.walks.window_sweep), qtheory.walks.window_sweep.__module__
    (True, 'qtheory.walks.window_sweep')
    """
    module = sys.modules[name]
    module._LAZY = lazy
    module.__class__ = _LazyPackage
