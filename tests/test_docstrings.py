"""Documentation as checked code: every public function and class of ``qtheory`` (named in
its module's ``__all__``, or a module-level function without a leading underscore) has a
numpydoc docstring with an ``Examples`` section (run by the doctests), and every public
function that takes arguments has a ``Parameters`` section."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import qtheory


def public_objects():
    for info in pkgutil.walk_packages(qtheory.__path__, "qtheory."):
        if info.name == "qtheory.sim._core":  # the C extension: wrapped, not public
            continue
        module = importlib.import_module(info.name)
        names = getattr(module, "__all__", None)
        if names is None:
            names = [
                name
                for name, obj in vars(module).items()
                if not name.startswith("_") and inspect.isfunction(obj)
            ]
        for name in names:
            obj = getattr(module, name)
            if getattr(obj, "__module__", None) != module.__name__:
                continue  # re-exported: checked where it is defined
            if inspect.isfunction(obj) or inspect.isclass(obj):
                yield f"{module.__name__}.{name}", obj


def missing_sections(obj) -> list[str]:
    doc = inspect.getdoc(obj) or ""
    needed = ["Examples"]
    if inspect.isfunction(obj) and inspect.signature(obj).parameters:
        needed.append("Parameters")
    return [section for section in needed if f"{section}\n---" not in doc]


def test_every_public_object_has_parameters_and_examples():
    objects = dict(public_objects())
    assert len(objects) > 250  # the walk found the package
    gaps = {name: missing for name, obj in objects.items() if (missing := missing_sections(obj))}
    assert gaps == {}
