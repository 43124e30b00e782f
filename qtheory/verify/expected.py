r"""What each certificate's claim name commits it to: its checker and its pinned data.

A certificate names its claim, its checker and its data; without this table any data
that some checker accepts would pass under any claim's name.  :data:`EXPECTED` maps each
claim name that ``qtheory reproduce`` certifies (:data:`REPRODUCED`) and each user-level
certificate name (``gated.optimum`` from :func:`qtheory.gated.certified_optimum`,
``lossnet.fluid_lp``, ``lossnet.online`` and ``lossnet.optimality`` from
:mod:`qtheory.lossnet.certified`) to the checker it must use and a function that rejects
data contradicting the fields its statement fixes (the parameters, constants and digits,
not the run's size).  User-level names pin no data: their statement is the data.

Examples
--------
>>> check_expected("lossnet.fluid", "lossnet.fluid", {"servers": "50"})
Traceback (most recent call last):
...
qtheory.verify.CertificateError: servers: the claim fixes 100, the data says '50'
>>> check_expected("gated.dominance", "gated.optima", {})
Traceback (most recent call last):
...
qtheory.verify.CertificateError: the claim is checked by 'gated.dominance', not 'gated.optima'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction

from qtheory.verify import CertificateError

__all__ = ["EXPECTED", "REPRODUCED", "check_expected"]

#: The overloaded two-class network of the paper: λ_H, λ_L, μ, r_H, r_L.
NETWORK = {"lambda_h": "3/5", "lambda_l": "4/5", "mu": "1", "r_h": "2", "r_l": "1"}


def _same(value, pinned) -> bool:
    """Whether a data field equals the pinned value (rationals compared exactly)."""
    if isinstance(pinned, bool) or isinstance(value, bool):
        return value is pinned
    if isinstance(pinned, list):
        return (
            isinstance(value, list)
            and len(value) == len(pinned)
            and all(_same(v, p) for v, p in zip(value, pinned, strict=True))
        )
    try:
        return Fraction(str(value)) == Fraction(str(pinned))
    except (ValueError, ZeroDivisionError):
        return value == pinned


def _fields(pinned: Mapping, where: str = "") -> Callable[[Mapping], None]:
    def check(data: Mapping) -> None:
        for key, value in pinned.items():
            if key not in data:
                raise CertificateError(f"{where}{key}: missing (the claim fixes {value})")
            if not _same(data[key], value):
                raise CertificateError(
                    f"{where}{key}: the claim fixes {value}, the data says {data[key]!r}"
                )

    return check


def _at_least(data: Mapping, key: str, least: int, where: str = "") -> None:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise CertificateError(f"{where}{key}: the claim needs at least {least}, got {value!r}")


def _each(key: str, check: Callable[[Mapping, str], None]) -> Callable[[Mapping], None]:
    def every(data: Mapping) -> None:
        entries = data.get(key)
        if not isinstance(entries, list) or not entries:
            raise CertificateError(f"{key}: the certificate lists none")
        for index, entry in enumerate(entries):
            check(entry, f"{key}[{index}].")

    return every


def _optimal_gate(point: Mapping, where: str) -> None:
    _at_least(point, "dps", 30, where)  # the statement says 30 digits


def _online_case(case: Mapping, where: str) -> None:
    _fields(NETWORK, where)(case)
    _at_least(case, "dps", 20, where)  # the statement says 20 significant digits


def _sss_item(item: Mapping, where: str) -> None:
    if item.get("family") != "sss":
        family = item.get("family")
        raise CertificateError(f"{where}family: the claim is about 'sss', got {family!r}")


def _walk_rates(data: Mapping) -> None:
    _fields({k: NETWORK[k] for k in ("lambda_h", "lambda_l", "mu")})(data)


def _both(*checks: Callable[[Mapping], None]) -> Callable[[Mapping], None]:
    def check(data: Mapping) -> None:
        for one in checks:
            one(data)

    return check


def _free(data: Mapping) -> None:
    """No pinned field."""


#: claim name -> (checker, data check).
EXPECTED: dict[str, tuple[str, Callable[[Mapping], None]]] = {
    "gated.dominance": ("gated.dominance", _free),
    "gated.optimal_gate": ("gated.optima", _each("points", _optimal_gate)),
    "gated.pof_at_least_one": ("gated.pof_grid", _free),
    "gated.pof_heavy_rate": (
        "gated.asymptotics", _fields({"regime": "heavy", "constant": "5/2"})
    ),
    "gated.pof_light_rate": (
        "gated.asymptotics", _fields({"regime": "light", "constant": "3/2"})
    ),
    "lossnet.fluid": (
        "lossnet.fluid",
        _fields({"servers": "100", "arrival_rates": ["3/5", "4/5"], "service_rates": ["1", "1"],
                 "rewards": ["2", "1"], "closed_form": True, "value": "160"}),
    ),
    "lossnet.online_optimum": ("lossnet.online", _each("cases", _online_case)),
    "lossnet.trunk_reservation": (
        "lossnet.optimality", _fields({**NETWORK, "servers": 100, "reserve": 4})
    ),
    "walks.bounds": ("walks.bounds", _walk_rates),
    "walks.sss_failure_bound": ("walks.bounds", _both(_walk_rates, _each("items", _sss_item))),
    # user-level certificates: the checker only
    "gated.optimum": ("gated.optimum", _free),
    "lossnet.fluid_lp": ("lossnet.fluid", _free),
    "lossnet.online": ("lossnet.online", _free),
    "lossnet.optimality": ("lossnet.optimality", _free),
}  # fmt: skip

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


def check_expected(name: str, checker: str, data) -> None:
    """Reject an unknown claim name, another checker, or data contradicting the pins.

    Parameters
    ----------
    name, checker : str
        The certificate's claim and checker names.
    data : mapping
        The certificate's data.

    Raises
    ------
    CertificateError
        Naming the field that contradicts the claim.

    Examples
    --------
    >>> check_expected("gated.optimum", "gated.optimum", {})  # holds
    >>> check_expected("demo", "gated.optimum", {})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: unknown claim name 'demo' (no pinned checker)
    """
    if name not in EXPECTED:
        raise CertificateError(f"unknown claim name {name!r} (no pinned checker)")
    expected, pins = EXPECTED[name]
    if checker != expected:
        raise CertificateError(f"the claim is checked by {expected!r}, not {checker!r}")
    if not isinstance(data, Mapping):
        raise CertificateError("the data is not a mapping")
    pins(data)
