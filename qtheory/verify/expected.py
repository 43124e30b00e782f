r"""What each certificate's claim name commits it to: its checker and, for the claims of
``qtheory reproduce``, exactly the set it quantifies over.

A certificate names its claim, its checker and its data; without this table any data
that some checker accepts would pass under any claim's name.  :data:`EXPECTED` maps each
claim name that ``qtheory reproduce`` certifies (:data:`REPRODUCED`) and each user-level
certificate name (``gated.optimum`` from :func:`qtheory.gated.certified_optimum`,
``lossnet.fluid_lp``, ``lossnet.online`` and ``lossnet.optimality`` from
:mod:`qtheory.lossnet.certified`, and the names of the certificates that
``qtheory check --certificate`` writes) to a :class:`Spec`: the checker it must use and the
*index* of its data, the part that says what is claimed (the parameters, every grid
point, every N, the digits) as opposed to what is computed (the enclosures).

For a claim of ``qtheory reproduce`` the index must equal, element for element and in
exact rationals, the one the claim fixes for the run's size (``quick``, or ``full`` for
the standard and paper sizes, which certify the same sets): :data:`PINS`, read from
``pins.json`` beside this module (written by ``python tools/generate_pins.py`` from a
quick and a full run; ``tests/verify`` checks that the reproduce run writes exactly these
sets).  Any dropped, added, swapped or edited element fails, naming the first that
differs.  User-level names pin no set: their statement, rendered from the data by
:mod:`qtheory.verify.statements`, says which parameters they are about.

Examples
--------
>>> pinned = PINS["lossnet.trunk_reservation"]["full"]
>>> check_expected("lossnet.trunk_reservation", "lossnet.optimality", {**pinned, "servers": 50})
Traceback (most recent call last):
...
qtheory.verify.CertificateError: data['servers']: the claim fixes 100, the data says 50
>>> check_expected("gated.dominance", "gated.optima", {})
Traceback (most recent call last):
...
qtheory.verify.CertificateError: the claim is checked by 'gated.dominance', not 'gated.optima'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from qtheory.verify import CertificateError
from qtheory.verify._arith import rational

__all__ = ["EXPECTED", "PINS", "REPRODUCED", "SIZES", "Spec", "check_expected", "index_of"]

#: The sizes of a reproduce run whose certified sets differ.
SIZES = ("quick", "full")


class Spec(NamedTuple):
    """What a claim name commits a certificate to.

    Examples
    --------
    >>> EXPECTED["gated.pof_light_rate"].checker
    'regions.remainder'
    """

    #: The checker, ``"model.kind"``.
    checker: str
    #: data -> the part of it that states what is claimed (None: the whole data).
    index: Callable[[Mapping], object] | None = None


def _without(*keys: str) -> Callable[[Mapping], dict]:
    def index(data: Mapping) -> dict:
        return {k: v for k, v in data.items() if k not in keys}

    return index


def _points(*keys: str) -> Callable[[Mapping], dict]:
    """The index of a grid certificate: its fields ``keys`` and, for each point, its
    parameters and digits."""

    def index(data: Mapping) -> dict:
        points = [{k: p[k] for k in ("parameters", "dps") if k in p} for p in data["points"]]
        return {**{k: data[k] for k in keys}, "points": points}

    return index


def _dominance(data: Mapping) -> dict:
    return {"service_rate": data["service_rate"], "points": data["points"]}


def _cases(data: Mapping) -> dict:
    computed = ("bits", "online", "regret", "fluid", "reserve")
    cases = [{k: v for k, v in case.items() if k not in computed} for case in data["cases"]]
    return {"cases": cases}


def _regions(data: Mapping) -> dict:
    """A region certificate claims its regime, constant and ranges; the points and boxes
    are the proof."""
    regions = [{k: r[k] for k in ("parameters", "range")} for r in data["regions"]]
    return {"regime": data["regime"], "constant": data["constant"], "regions": regions}


def _items(data: Mapping) -> dict:
    rates = {k: data[k] for k in ("lambda_h", "lambda_l", "mu")}
    computed = ("bound_enclosure", "exact_enclosure")
    return {
        **rates,
        "items": [{k: v for k, v in item.items() if k not in computed} for item in data["items"]],
    }


#: claim name -> its checker and the index of its data.
EXPECTED: dict[str, Spec] = {
    "gated.dominance": Spec("gated.dominance", _dominance),
    "gated.optimal_gate": Spec("gated.optima", _points()),
    "gated.pof_at_least_one": Spec("gated.pof_grid", _points()),
    "gated.pof_heavy_rate": Spec("regions.remainder", _regions),
    "gated.pof_light_rate": Spec("regions.remainder", _regions),
    "lossnet.fluid": Spec("lossnet.fluid"),
    "lossnet.online_optimum": Spec("lossnet.online", _cases),
    "lossnet.trunk_reservation": Spec("lossnet.optimality", _without("gain", "online", "bias")),
    "walks.bounds": Spec("walks.bounds", _items),
    "walks.sss_failure_bound": Spec("walks.bounds", _items),
    # user-level certificates: the checker only
    "gated.optimum": Spec("gated.optimum"),
    "gated.cost_optimum": Spec("cost_optimum.optimum"),
    "gated.asymptotics": Spec("gated.asymptotics"),
    "gated.pof_grid": Spec("gated.pof_grid"),
    "gated.pof_region": Spec("gated.pof_region"),
    "gated.dominance_grid": Spec("gated.dominance"),
    "gated.remainder_region": Spec("regions.remainder"),
    "walks.bound_items": Spec("walks.bounds"),
    "lossnet.fluid_lp": Spec("lossnet.fluid"),
    "lossnet.online": Spec("lossnet.online"),
    "lossnet.optimality": Spec("lossnet.optimality"),
}

#: The claims ``qtheory reproduce`` certifies: a folder of its certificates holds all.
REPRODUCED = (
    "gated.dominance",
    "gated.optimal_gate",
    "gated.pof_at_least_one",
    "gated.pof_heavy_rate",
    "gated.pof_light_rate",
    "lossnet.fluid",
    "lossnet.online_optimum",
    "lossnet.trunk_reservation",
    "walks.bounds",
    "walks.sss_failure_bound",
)

#: claim of :data:`REPRODUCED` -> size -> the index its certificate must have.
PINS: dict[str, dict[str, object]] = json.loads(
    (Path(__file__).with_name("pins.json")).read_text(encoding="utf-8")
)


def index_of(name: str, data: Mapping) -> object:
    """The index of ``data`` for the claim ``name`` (see the module docstring).

    Parameters
    ----------
    name : str
        A claim name of :data:`EXPECTED`.
    data : mapping

    Examples
    --------
    >>> index_of("gated.optimal_gate", {"points": [{"parameters": {"reward": "3"},
    ...                                             "dps": 30, "values": {}}]})
    {'points': [{'parameters': {'reward': '3'}, 'dps': 30}]}
    """
    index = EXPECTED[name].index
    return dict(data) if index is None else index(data)


def _same_number(value, pinned) -> bool:
    if isinstance(value, bool) or isinstance(pinned, bool):
        return value is pinned
    if isinstance(value, int) and isinstance(pinned, int):
        return value == pinned
    if isinstance(value, str) and isinstance(pinned, str):
        if value == pinned:
            return True
        try:
            return rational(value) == rational(pinned)
        except ValueError:
            return False
    return False


def first_difference(value, pinned, where: str = "data") -> str | None:
    """Where ``value`` first differs from ``pinned`` (rationals compared exactly; lists
    element by element, mappings key by key), or None when they agree.

    Examples
    --------
    >>> first_difference({"N": [10, 20]}, {"N": [10, 30]})
    "data['N'][1]: the claim fixes 30, the data says 20"
    >>> first_difference(["0.6"], ["3/5"]) is None
    True
    """
    if isinstance(pinned, Mapping):
        if not isinstance(value, Mapping):
            return f"{where}: the claim fixes {_short(pinned)}, the data says {_short(value)}"
        for key in pinned:
            if key not in value:
                return f"{where}[{key!r}]: missing (the claim fixes {_short(pinned[key])})"
            found = first_difference(value[key], pinned[key], f"{where}[{key!r}]")
            if found:
                return found
        extra = [key for key in value if key not in pinned]
        return f"{where}[{extra[0]!r}]: not part of the claim" if extra else None
    if isinstance(pinned, list):
        if not isinstance(value, list):
            return (
                f"{where}: the claim fixes a list of {len(pinned)}, the data says {_short(value)}"
            )
        for position, (v, p) in enumerate(zip(value, pinned, strict=False)):
            found = first_difference(v, p, f"{where}[{position}]")
            if found:
                return found
        if len(value) != len(pinned):
            position = min(len(value), len(pinned))
            fixed = _short(pinned[position]) if position < len(pinned) else "nothing"
            return (
                f"{where}[{position}]: the claim fixes {len(pinned)} elements, the data has "
                f"{len(value)} (the claim's element here: {fixed})"
            )
        return None
    if _same_number(value, pinned):
        return None
    return f"{where}: the claim fixes {_short(pinned)}, the data says {_short(value)}"


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_expected(name: str, checker: str, data) -> frozenset[str] | None:
    """Reject an unknown claim name, another checker, or data whose index is not the one
    the claim fixes; return the sizes whose set the data has (None for user-level names).

    Parameters
    ----------
    name, checker : str
        The certificate's claim and checker names.
    data : mapping
        The certificate's data.

    Returns
    -------
    frozenset of str, or None
        The run sizes (``"quick"``, ``"full"``) whose set the data has, for a claim of
        ``qtheory reproduce`` (both where the two sizes certify the same set).

    Raises
    ------
    CertificateError
        Naming the first element that differs from the claim's set.

    Examples
    --------
    >>> check_expected("gated.optimum", "gated.optimum", {}) is None  # holds
    True
    >>> check_expected("demo", "gated.optimum", {})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: unknown claim name 'demo' (no pinned checker)
    """
    if name not in EXPECTED:
        raise CertificateError(f"unknown claim name {name!r} (no pinned checker)")
    expected = EXPECTED[name].checker
    if checker != expected:
        raise CertificateError(f"the claim is checked by {expected!r}, not {checker!r}")
    if not isinstance(data, Mapping):
        raise CertificateError("the data is not a mapping")
    if name not in PINS:
        return None
    index = index_of(name, data)
    differences = {size: first_difference(index, pinned) for size, pinned in PINS[name].items()}
    sizes = frozenset(size for size, found in differences.items() if found is None)
    if sizes:
        return sizes
    # name the difference from the size whose set has as many elements
    raise CertificateError(differences[_nearest_size(name, index)])


def _nearest_size(name: str, index) -> str:
    def count(value) -> int:
        if isinstance(value, Mapping):
            return sum(count(v) for v in value.values() if isinstance(v, list))
        return len(value) if isinstance(value, list) else 0

    target = count(index)
    sizes = PINS[name]
    return min(sizes, key=lambda size: abs(count(sizes[size]) - target))
