r"""``qtheory table``: LaTeX (booktabs), Markdown and CSV tables for your own parameter
grids, one column per requested quantity.

Each parameter option takes a comma-separated list; the table has one row per point of
their Cartesian product, each list in the order given and the model's parameters in the
order of their constructor, the first varying slowest (Λ, μ, R, C for ``gated``; N,
λ_H, λ_L, μ, r_H, r_L for ``lossnet``; N, λ_H, μ, i for ``walks``).  Every value is
computed as a certified enclosure in Arb ball arithmetic
(:func:`qtheory.gated.certified.certified_optimum`,
:func:`qtheory.lossnet.certified.certified_online_optimum`; the walks' values are exact
rationals, :func:`qtheory.walks.certify.enclose`) and rounded to ``--dps``
significant digits (round half to even) only when both ends of the enclosure round to the
same decimal, so every printed digit is correctly rounded; if a value sits too close to a
rounding boundary to decide, the precision is raised, and the command fails (exit 1)
rather than print a digit it cannot prove.

Examples::

    qtheory table gated --reward 1.5,2,4 --arrival-rate inf,3 \
        --columns tau_star,welfare_ga,welfare_rr,pof --dps 20 --format latex
    qtheory table lossnet --servers 100,1000,10000 --lambda-h 0.6 --lambda-l 0.8 \
        --mu 1 --r-h 2 --r-l 1 --columns reserve,online,regret --format markdown

In LaTeX and Markdown the headers are mathematics (``$\tau^*$``, ``$R_{\mathrm{on}}$``);
parameters that take a single value are stated in the caption rather than given a
column.  CSV keeps the plain names (``tau_star``) for programs.  From Python,
:func:`gated_table`, :func:`lossnet_table` and :func:`walks_table` return a pandas
DataFrame and
:func:`to_latex`, :func:`to_markdown` and :func:`to_csv` write it; with ``frame=False``
they return a :class:`Table` instead, the same rows without pandas (whose import costs
more than the rest of a small table: the command line takes this route), which the three
writers take as well.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Iterable, Sequence
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation, localcontext
from typing import TYPE_CHECKING, Any

from qtheory.core import notation
from qtheory.core.printing import latex_number, positional

if TYPE_CHECKING:  # pandas and the report stack load only when a table is made
    import pandas as pd

__all__ = [
    "GATED_COLUMNS",
    "LOSSNET_COLUMNS",
    "MAX_ROWS",
    "NARROWEST_TEXT_WIDTH_PT",
    "WALKS_COLUMNS",
    "TEXT_WIDTH_PT",
    "Table",
    "correctly_rounded",
    "gated_table",
    "lossnet_table",
    "walks_table",
    "to_csv",
    "to_latex",
    "to_markdown",
]

#: The text width (pt) a LaTeX table is sized for: A4 or US letter with 1-inch margins.
TEXT_WIDTH_PT = 450
#: The narrowest text width (pt) a table is guarded for: ``article``'s default (345 pt).
#: A table estimated wider at normal size is shrunk to the line width where it would
#: not fit (graphicx's ``\resizebox``, only when needed).
NARROWEST_TEXT_WIDTH_PT = 345

#: The largest grid (rows) a table may have.
MAX_ROWS = 10_000

#: Quantity of ``qtheory table gated`` -> (field of CertifiedOptimum, LaTeX header); the
#: headers are the quantities' notation (:mod:`qtheory.core.notation`).
GATED_COLUMNS = {
    name: (field, notation.math(name))
    for name, field in (
        ("sigma_star", "root"),
        ("tau_star", "gate"),
        ("throughput_ga", "throughput"),
        ("welfare_ga", "welfare_ga"),
        ("rate_rr", "rate_rr"),
        ("welfare_rr", "welfare_rr"),
        ("pof", "price_of_forgetting"),
    )
}
#: Quantity of ``qtheory table lossnet`` -> (field of CertifiedOnlineOptimum, LaTeX header).
LOSSNET_COLUMNS = {
    name: (field, notation.math(name))
    for name, field in (
        ("fluid", "fluid"),
        ("online", "online"),
        ("regret", "regret"),
        ("reserve", "reserve"),
        ("p_full", "prob_full"),
        ("mean_idle", "mean_idle"),
    )
}
#: Quantity of ``qtheory table walks`` -> (the bound family and side of
#: :func:`qtheory.walks.certify.enclose`, LaTeX header).  Band b = ⌊√N⌋, PFI's target.
WALKS_COLUMNS = {
    "ruin": (("ruin", "walk_pb", "exact"), r"$P_i(0 \text{ before } b)$"),
    "ruin_walk_pb": (("ruin", "walk_pb", "bound"), r"walk $p_b$ (upper)"),
    "ruin_walk_pinf": (("ruin", "walk_pinf", "bound"), r"walk $p_\infty$ (lower)"),
    "ruin_limit_pb": (("ruin", "limit_pb", "bound"), r"$(q_b/p_b)^i$ (upper)"),
    "climb_steps": (("climb", "steps_pb", "exact"), r"$E_i[\text{steps to } b]$"),
    "climb_steps_walk_pb": (("climb", "steps_pb", "bound"), r"walk $p_b$ (upper)"),
    "climb_steps_walk_pinf": (("climb", "steps_pinf", "bound"), r"walk $p_\infty$ (lower)"),
    "climb_time": (("climb", "time_pb", "exact"), r"$E_i[T_b]$"),
    "climb_time_walk_pb": (("climb", "time_pb", "bound"), r"walk $p_b$$/q_{\min}$ (upper)"),
}
#: Parameter -> LaTeX symbol (:mod:`qtheory.core.notation`).
PARAMETERS = {
    name: notation.latex(name)
    for name in (
        "arrival_rate", "service_rate", "reward", "cost", "servers", "lambda_h", "lambda_l",
        "mu", "r_h", "r_l", "level",
    )
}  # fmt: skip
_GATED_PARAMETERS = ("arrival_rate", "service_rate", "reward", "cost")
_LOSSNET_PARAMETERS = ("servers", "lambda_h", "lambda_l", "mu", "r_h", "r_l")
_WALKS_PARAMETERS = ("servers", "lambda_h", "mu", "level")
_MODEL_NAMES = {
    "gated": "Gated admission to the unobservable M/M/1 queue",
    "lossnet": "Online optimum of the overloaded two-class loss network",
    "walks": "The reject-all-L idle process and the walks that bound it, band $b = "
    r"\lfloor\sqrt N\rfloor$",
}


def correctly_rounded(lower: str, upper: str, digits: int) -> str | None:
    """The decimal of ``digits`` significant digits that every number in
    [``lower``, ``upper``] rounds to (half to even), or None if they round differently.

    Parameters
    ----------
    lower, upper : str
        Decimal bounds of an enclosure (e.g. :attr:`qtheory.core.enclosure.Enclosure.lower`).
    digits : int
        Significant digits, >= 1.

    Returns
    -------
    str or None
        Scientific notation ``'d.ddde+N'`` (``'0'`` for zero).

    Raises
    ------
    TypeError
        ``lower`` or ``upper`` not a str, ``digits`` not an int.
    ValueError
        ``lower`` or ``upper`` not a finite decimal, ``lower`` > ``upper``, or
        ``digits`` < 1 (each naming the parameter and the value).

    Examples
    --------
    >>> correctly_rounded("1.41421356e+0", "1.41421357e+0", 5)
    '1.4142e+0'
    >>> correctly_rounded("2.4999e+0", "2.5001e+0", 1) is None
    True
    >>> correctly_rounded("5e-1", "5e-1", 3)
    '5.00e-1'
    >>> correctly_rounded("abc", "abc", 5)
    Traceback (most recent call last):
    ...
    ValueError: lower must be a finite decimal string, got 'abc'
    """
    ends = {name: _decimal(name, text) for name, text in (("lower", lower), ("upper", upper))}
    if not ends["lower"] <= ends["upper"]:
        raise ValueError(f"lower must be <= upper, got {lower!r} > {upper!r}")
    if isinstance(digits, bool) or not isinstance(digits, int):
        raise TypeError(f"digits must be an int, got {type(digits).__name__}")
    if digits < 1:
        raise ValueError(f"digits must be >= 1, got {digits}")
    rounded = [_round(value, digits) for value in ends.values()]
    return rounded[0] if rounded[0] == rounded[1] else None


def _decimal(name: str, text: object) -> Decimal:
    """``text`` as a finite Decimal; a TypeError or ValueError naming ``name``."""
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a decimal string, got {type(text).__name__}")
    try:
        value = Decimal(text)
    except InvalidOperation:
        value = Decimal("NaN")
    if not value.is_finite():
        raise ValueError(f"{name} must be a finite decimal string, got {text!r}")
    return value


def _round(value: Decimal, digits: int) -> str:
    if value == 0:
        return "0"
    exponent = value.adjusted() - digits + 1
    with localcontext() as context:
        context.prec = max(digits + 10, len(value.as_tuple().digits) + 10)
        rounded = value.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_EVEN)
    if rounded.adjusted() != value.adjusted():  # 9.99 -> 10.0: one digit too many
        return _round(rounded, digits)
    return f"{rounded:.{digits - 1}e}".replace("E", "e")


def _grid(parameters: dict[str, Sequence[Any]]) -> list[dict[str, Any]]:
    for name, values in parameters.items():
        if isinstance(values, str | int | float):
            parameters[name] = [values]
        elif len(values) == 0:
            raise ValueError(f"{name} must have at least one value")
    size = 1
    for values in parameters.values():
        size *= len(values)
    if size > MAX_ROWS:
        raise ValueError(f"the grid has {size} rows; at most {MAX_ROWS} are allowed")
    names = list(parameters)
    return [
        dict(zip(names, point, strict=True)) for point in itertools.product(*parameters.values())
    ]


def _digits(dps: object) -> int:
    """``dps`` checked by :func:`qtheory.core.precision.check_dps` (imported here: NumPy and
    mpmath load only when a table is computed, not for ``--help``)."""
    from qtheory.core.precision import check_dps

    return check_dps(dps)


def _columns(columns: Iterable[str] | str, known: dict[str, Any]) -> list[str]:
    if isinstance(columns, str):
        columns = columns.split(",")
    columns = [column.strip() for column in columns]
    if not columns:
        raise ValueError("columns must name at least one quantity")
    for column in columns:
        if column not in known:
            raise ValueError(
                f"columns: unknown quantity {column!r}; choose from {', '.join(known)}"
            )
    return columns


def _rounded_values(compute, columns: list[str], known: dict[str, Any], dps: int) -> list:
    """Each column's correctly rounded value (a Decimal of ``dps`` significant digits, an
    int as it is), raising the precision when undecided (while the ``dps`` limit of
    :mod:`qtheory.core.limits` allows)."""
    tried = 0
    for working in (dps + 5, 2 * dps + 20, 4 * dps + 60):
        try:
            optimum = compute(working)
        except ValueError:
            if tried == 0:
                raise  # the requested digits themselves are out of reach
            break  # a higher precision is above the limit: give up with what we have
        tried = working
        values, undecided = [], None
        for column in columns:
            value = getattr(optimum, known[column][0])
            if isinstance(value, int):
                values.append(value)
                continue
            rounded = correctly_rounded(value.lower, value.upper, dps)
            if rounded is None:
                undecided = column
                break
            values.append(Decimal(rounded))
        if undecided is None:
            return values
    raise ArithmeticError(
        f"{undecided} cannot be correctly rounded to {dps} digits "
        f"(it lies on a rounding boundary to {tried} digits)"
    )


class Table:
    """A table's rows without pandas: what :func:`gated_table`, :func:`lossnet_table`
    and :func:`walks_table` return with ``frame=False``, and what :func:`to_latex`,
    :func:`to_markdown` and :func:`to_csv` write as they write the DataFrame of the
    same rows.

    Parameters
    ----------
    rows : list of dict
        One dict per row, keyed by the parameter and column names.
    attrs : dict
        ``model``, ``parameters``, ``columns`` and ``dps``, as a DataFrame's ``attrs``.

    Examples
    --------
    >>> table = gated_table(arrival_rate="inf", reward=["4", "2"], columns="pof", frame=False)
    >>> table.names, table.rows[1]["pof"]
    (['arrival_rate', 'service_rate', 'reward', 'cost', 'pof'], Decimal('2.17613'))
    >>> table.to_frame().equals(gated_table(arrival_rate="inf", reward=["4", "2"], columns="pof"))
    True
    """

    def __init__(self, rows: list[dict[str, Any]], attrs: dict[str, Any]) -> None:
        self.rows, self.attrs = rows, attrs

    @property
    def names(self) -> list[str]:
        """The parameter names, then the column names."""
        return [*self.attrs["parameters"], *self.attrs["columns"]]

    def to_frame(self) -> pd.DataFrame:
        """The rows as the pandas DataFrame the table functions return by default."""
        import pandas as pd

        frame = pd.DataFrame(self.rows, columns=self.names)
        frame.attrs.update(self.attrs)
        return frame


def _frame(
    rows: list[dict[str, Any]],
    model: str,
    parameters: Sequence[str],
    columns: list[str],
    dps: int,
    frame: bool,
) -> pd.DataFrame | Table:
    table = Table(rows, dict(model=model, parameters=list(parameters), columns=columns, dps=dps))
    return table.to_frame() if frame else table


def _records(frame: pd.DataFrame | Table) -> list:
    """The rows of a DataFrame or a :class:`Table`, each indexable by column name."""
    if isinstance(frame, Table):
        return frame.rows
    return [row for _, row in frame.iterrows()]


def _distinct(frame: pd.DataFrame | Table, name: str) -> int:
    """How many different texts the column ``name`` holds."""
    if isinstance(frame, Table):
        return len({str(row[name]) for row in frame.rows})
    return frame[name].astype(str).nunique()


def gated_table(
    *,
    arrival_rate: Sequence[str] | str,
    reward: Sequence[str] | str,
    service_rate: Sequence[str] | str = "1",
    cost: Sequence[str] | str = "1",
    columns: Iterable[str] | str = ("tau_star", "welfare_ga", "welfare_rr", "pof"),
    dps: int = 6,
    frame: bool = True,
) -> pd.DataFrame | Table:
    r"""Certified, correctly rounded optima of the gated-admission model over a grid.

    Parameters
    ----------
    arrival_rate, reward, service_rate, cost : str or sequence of str
        The values of Λ ('inf' allowed), R, μ (default 1) and C (default 1), read as
        the exact decimals they spell; the grid is their Cartesian product.
    columns : iterable of str or comma-separated str
        Quantities, among :data:`GATED_COLUMNS`: ``sigma_star``, ``tau_star``,
        ``throughput_ga``, ``welfare_ga``, ``rate_rr``, ``welfare_rr``, ``pof``.
    dps : int, default 6
        Significant digits of every value.
    frame : bool, default True
        False: return a :class:`Table` of the same rows (pandas is not imported).

    Returns
    -------
    pandas.DataFrame or Table
        One row per grid point: the parameters as the exact decimals they spell, then
        each quantity correctly rounded to ``dps`` significant digits, all as
        :class:`decimal.Decimal` (``Decimal('1.55648')``: it keeps every digit, trailing
        zeros included, so ``frame.pof.max()`` and comparisons work without a cast and
        lose nothing; ``frame.astype({"pof": float})`` for plotting).  ``frame.attrs``
        records the model, parameter names, columns and ``dps`` for :func:`to_latex`.

    Raises
    ------
    ValueError
        An unknown column, an invalid parameter (naming it), ν = Rμ/C ≤ 1, ``dps``
        outside 1..the digit limit, or more than :data:`MAX_ROWS` rows.
    ArithmeticError
        If a value cannot be proved to round one way.

    Examples
    --------
    ν = 4, Λ = ∞: S_RR* = C(√ν − 1)² = 1 and PoF = S_GA* (see ``qtheory gated``):

    >>> frame = gated_table(arrival_rate="inf", reward=["4", "2"], dps=6)
    >>> print(frame[["reward", "welfare_rr", "pof"]].to_string(index=False))
    reward welfare_rr     pof
         4    1.00000 1.52961
         2   0.171573 2.17613
    >>> frame.pof.max(), frame.loc[frame.reward == 2, "pof"].item()
    (Decimal('2.17613'), Decimal('2.17613'))
    """
    from qtheory.gated.certified import certified_optimum
    from qtheory.model.gated import GatedQueue

    dps = _digits(dps)
    columns = _columns(columns, GATED_COLUMNS)
    points = _grid(
        {"arrival_rate": arrival_rate, "service_rate": service_rate, "reward": reward, "cost": cost}
    )
    rows = []
    for point in points:
        text = {name: str(value).strip() for name, value in point.items()}
        queue = GatedQueue(**text)  # validates every parameter, naming it
        values = _rounded_values(
            lambda digits, q=queue: certified_optimum(q, dps=digits), columns, GATED_COLUMNS, dps
        )
        parameters = {name: Decimal(value) for name, value in text.items()}
        rows.append({**parameters, **dict(zip(columns, values, strict=True))})
    return _frame(rows, "gated", _GATED_PARAMETERS, columns, dps, frame)


def lossnet_table(
    *,
    servers: Sequence[int] | int,
    lambda_h: Sequence[float] | float,
    lambda_l: Sequence[float] | float,
    mu: Sequence[float] | float,
    r_h: Sequence[float] | float,
    r_l: Sequence[float] | float,
    columns: Iterable[str] | str = ("reserve", "online", "regret"),
    dps: int = 6,
    frame: bool = True,
) -> pd.DataFrame | Table:
    r"""Certified, correctly rounded online optima of the loss network over a grid.

    Parameters
    ----------
    servers : int or sequence of int
        Numbers of servers N.
    lambda_h, lambda_l, mu, r_h, r_l : float or sequence of float
        Per-server arrival rates, service rate and rewards, read as the decimals they
        print as (0.6 is 3/5); the grid is the Cartesian product of all six.
    columns : iterable of str or comma-separated str
        Quantities, among :data:`LOSSNET_COLUMNS`: ``fluid``, ``online``, ``regret``,
        ``reserve`` (the optimal reserve k*, an integer), ``p_full``, ``mean_idle``.
    dps : int, default 6
        Significant digits of every real value.
    frame : bool, default True
        False: return a :class:`Table` (pandas is not imported).

    Returns
    -------
    pandas.DataFrame or Table
        As :func:`gated_table`: the parameters as given, k* an int, every other
        quantity a :class:`decimal.Decimal` of ``dps`` significant digits.

    Raises
    ------
    ValueError
        An unknown column, invalid parameters (naming them), ``dps`` outside 1..the
        digit limit, or more than :data:`MAX_ROWS` rows.
    ArithmeticError
        If a value cannot be proved to round one way.

    Examples
    --------
    >>> frame = lossnet_table(servers=[10, 100], lambda_h=0.6, lambda_l=0.8, mu=1,
    ...                       r_h=2, r_l=1, columns="reserve,fluid,online", dps=8)
    >>> print(frame[["servers", "reserve", "fluid", "online"]].to_string(index=False))
     servers  reserve     fluid    online
          10        2 16.000000 13.130627
         100        4 160.00000 153.38271
    """
    from qtheory.lossnet.certified import certified_online_optimum
    from qtheory.model.lossnet import LossNetwork

    dps = _digits(dps)
    columns = _columns(columns, LOSSNET_COLUMNS)
    points = _grid(
        {
            "servers": servers,
            "lambda_h": lambda_h,
            "lambda_l": lambda_l,
            "mu": mu,
            "r_h": r_h,
            "r_l": r_l,
        }
    )
    rows = []
    for point in points:
        net = LossNetwork(*(point[name] for name in _LOSSNET_PARAMETERS))
        values = _rounded_values(
            lambda digits, n=net: certified_online_optimum(n, dps=digits),
            columns,
            LOSSNET_COLUMNS,
            dps,
        )
        rows.append({**point, **dict(zip(columns, values, strict=True))})
    return _frame(rows, "lossnet", _LOSSNET_PARAMETERS, columns, dps, frame)


def walks_table(
    *,
    servers: Sequence[int] | int,
    lambda_h: Sequence[float] | float,
    mu: Sequence[float] | float,
    level: Sequence[int] | int,
    columns: Iterable[str] | str = ("ruin", "ruin_walk_pb", "ruin_walk_pinf"),
    dps: int = 6,
    frame: bool = True,
) -> pd.DataFrame | Table:
    r"""The random-walk bounds behind PFI and SSS next to the exact values they bound,
    correctly rounded, over a grid.

    The reject-all-L idle process of N servers (up at rate μ(N − j), down at λ_H N)
    started at ``level`` i idle servers, with band b = ⌊√N⌋: its ruin probability
    P_i(0 before b), mean steps and time to climb to b, and the walks with constant
    up-probability p_b (an upper bound) and p_∞ = μ/(μ + λ_H) (a lower bound).  Values
    are exact rationals (Arb balls for none of these columns), so every digit is
    correct.

    Parameters
    ----------
    servers : int or sequence of int
        N >= 4.
    lambda_h, mu : float or sequence of float
        λ_H < μ, read as the decimals they print as.
    level : int or sequence of int
        i in 1..b − 1.
    columns : iterable of str or comma-separated str
        Among :data:`WALKS_COLUMNS`.
    dps : int, default 6
        Significant digits.
    frame : bool, default True
        False: return a :class:`Table` (pandas is not imported).

    Returns
    -------
    pandas.DataFrame or Table
        As :func:`gated_table`: the parameters as given, the values Decimals.

    Raises
    ------
    ValueError
        An unknown column, N < 4, a level outside 1..b − 1, λ_H ≥ μ, or more than
        :data:`MAX_ROWS` rows.

    Examples
    --------
    The exact ruin probability lies between its two walk bounds:

    >>> frame = walks_table(servers=100, lambda_h=0.6, mu=1, level=[1, 3], dps=5)
    >>> print(frame[["level", "ruin_walk_pinf", "ruin", "ruin_walk_pb"]].to_string(index=False))
     level ruin_walk_pinf    ruin ruin_walk_pb
         1        0.59757 0.61183      0.66078
         3        0.21123 0.23255      0.28388
    """
    from qtheory.walks.certify import enclose

    dps = _digits(dps)
    columns = _columns(columns, WALKS_COLUMNS)
    points = _grid({"servers": servers, "lambda_h": lambda_h, "mu": mu, "level": level})
    rows = []
    for point in points:
        n, i = point["servers"], point["level"]
        _require_walk(n, i, point["lambda_h"], point["mu"])
        sides = {}
        for column in columns:
            (family, bound, side), _ = WALKS_COLUMNS[column]
            spec = {"family": family, "N": n, "i": i, "bound": bound}
            pair = enclose(spec, point["lambda_h"], point["mu"], point["mu"])
            sides[column] = _enclosure(pair[0] if side == "bound" else pair[1], dps + 5)
        values = _rounded_values(lambda _digits, v=sides: _Values(v), columns, _ATTRIBUTES, dps)
        rows.append({**point, **dict(zip(columns, values, strict=True))})
    return _frame(rows, "walks", _WALKS_PARAMETERS, columns, dps, frame)


class _Values:
    """Enclosures by column name, read by :func:`_rounded_values` as attributes."""

    def __init__(self, values: dict) -> None:
        self.__dict__.update(values)


#: Column -> (attribute of :class:`_Values`, header), for :func:`_rounded_values`.
_ATTRIBUTES = {column: (column, header) for column, (_, header) in WALKS_COLUMNS.items()}


def _require_walk(n: int, level: int, lambda_h: object, mu: object) -> None:
    import math

    from qtheory.core.enclosure import exact

    if not (isinstance(n, int) and n >= 4):
        raise ValueError(f"servers must be an integer >= 4, got {n!r}")
    band = math.isqrt(n)
    if not (isinstance(level, int) and 1 <= level <= band - 1):
        raise ValueError(
            f"level must be an integer in 1..{band - 1} (b - 1, b = isqrt(N)), got {level!r}"
        )
    if not 0 < exact(lambda_h, name="lambda_h") < exact(mu, name="mu"):
        raise ValueError(
            f"lambda_h must be in (0, mu) (the idle process drifts up), got {lambda_h!r}"
        )


def _enclosure(value, digits: int):
    """An Arb ball or an exact rational as an :class:`~qtheory.core.enclosure.Enclosure`."""
    from fractions import Fraction

    import flint

    from qtheory.core.enclosure import Enclosure

    if isinstance(value, flint.fmpq):
        exact = Fraction(int(value.p), int(value.q))
        return Enclosure.from_bounds(exact, exact, digits)
    return Enclosure.from_arb(value, digits)


#: Model -> its quantities.
_MODELS = {"gated": GATED_COLUMNS, "lossnet": LOSSNET_COLUMNS, "walks": _ATTRIBUTES}


def _known(frame: pd.DataFrame | Table) -> dict[str, Any]:
    return _MODELS[frame.attrs.get("model", "gated")]


def _shown_parameters(frame: pd.DataFrame | Table) -> tuple[list[str], list[str]]:
    """(parameters that vary, so get a column; parameters fixed, stated in the caption)."""
    names = frame.attrs.get("parameters", [])
    varying = [name for name in names if _distinct(frame, name) > 1]
    return varying, [name for name in names if name not in varying]


def _text(value: object) -> str:
    """A cell's text: a Decimal in scientific notation with all its digits
    (``Decimal('1.50')`` -> ``'1.50e+0'``; ``'inf'`` for infinity), anything else as
    ``str`` prints it."""
    if isinstance(value, Decimal):
        return f"{value:e}" if value.is_finite() else str(float(value))
    return str(value).strip()


#: The exponents a table cell writes out; beyond them it is m × 10^e.
_WRITTEN_OUT = (-4, 5)


def _decimal_tex(text: object) -> str:
    """A cell as LaTeX mathematics (no dollars): ``'1.5e-4'`` -> ``0.00015``,
    ``'1.5e-7'`` -> ``1.5\\times 10^{-7}``, ``inf`` -> ``\\infty``."""
    return latex_number(_text(text), written_out=_WRITTEN_OUT)


def _plain(text: object) -> str:
    """A cell for Markdown and CSV: positional notation for moderate exponents."""
    text = _text(text)
    exponent = text.lower().partition("e")[2]
    if exponent and _WRITTEN_OUT[0] <= int(exponent) <= _WRITTEN_OUT[1]:
        return positional(text.lower())
    return text


def _default_caption(frame: pd.DataFrame | Table, fixed: list[str]) -> str:
    model = frame.attrs.get("model", "gated")
    first = _records(frame)[0]
    settings = ", ".join(f"${PARAMETERS[name]} = {_value_tex(first[name])}$" for name in fixed)
    where = f" at {settings}" if settings else ""
    evidence = "exact (rational arithmetic)" if model == "walks" else "certified (Arb)"
    return (
        f"{_MODEL_NAMES[model]}{where}; values {evidence} and correctly rounded "
        f"to {frame.attrs.get('dps')} significant digits."
    )


def _value_tex(value: object) -> str:
    if isinstance(value, float):  # also NumPy's float64, whose repr names its type
        value = int(value) if value.is_integer() else repr(float(value))
    return _decimal_tex(value)


def to_latex(
    frame: pd.DataFrame | Table, *, caption: str | None = None, label: str | None = None
) -> str:
    r"""A booktabs ``table`` float of a :func:`gated_table` or :func:`lossnet_table` frame.

    Parameters
    ----------
    frame : pandas.DataFrame or Table
        A frame made by :func:`gated_table`, :func:`lossnet_table` or
        :func:`walks_table` (or their :class:`Table`).
    caption : str, optional
        LaTeX caption (verbatim); default: the model, the fixed parameters and the digits.
    label : str, optional
        ``\label`` key; default ``"tab:gated"`` or ``"tab:lossnet"``.

    Returns
    -------
    str
        Needs ``\usepackage{booktabs}`` and ``\usepackage{dcolumn}`` (every column is
        aligned on its decimal point), and ``amsmath`` for the walks' headers.
        Headers are mathematics; parameters with one value appear in the default caption
        instead of a column.  A wide table (many digits or columns) is set in the largest
        of ``\small``, ``\footnotesize`` and ``\scriptsize`` that fits
        :data:`TEXT_WIDTH_PT` (estimated from its digits); one estimated wider than
        :data:`NARROWEST_TEXT_WIDTH_PT` at normal size is also shrunk to the line width
        where that is narrower, which needs ``\usepackage{graphicx}``.

    Examples
    --------
    >>> frame = gated_table(arrival_rate="inf", reward=["4", "2"], dps=6, columns="pof")
    >>> print(to_latex(frame, caption="PoF.", label="tab:pof"), end="")
    \begin{table}[htbp]
      \centering
      \caption{PoF.}
      \label{tab:pof}
      \begin{tabular}{D{.}{.}{-1}D{.}{.}{-1}}
        \toprule
        \multicolumn{1}{c}{$R$} & \multicolumn{1}{c}{$\mathrm{PoF}$} \\
        \midrule
        4 & 1.52961 \\
        2 & 2.17613 \\
        \bottomrule
      \end{tabular}
    \end{table}
    """
    from qtheory.report.latex import Latex, table  # its Sympy loads only for equations

    varying, fixed = _shown_parameters(frame)
    known, columns = _known(frame), frame.attrs.get("columns", [])
    headers = [f"${PARAMETERS[name]}$" for name in varying]
    headers += [known[column][1] for column in columns]
    rows = [[_decimal_tex(row[name]) for name in (*varying, *columns)] for row in _records(frame)]
    return table(
        headers,
        [[Latex(f"${cell}$") for cell in row] for row in rows],
        caption=caption or _default_caption(frame, fixed),
        label=label or "tab:" + frame.attrs.get("model", "gated"),
        alignment="d" * len(headers),
        size=_size(headers, rows),
        fit=_width(headers, rows, 10) > NARROWEST_TEXT_WIDTH_PT,
    )


def _size(headers: list[str], rows: list[list[str]]) -> str | None:
    """The largest font size at which the table is estimated to fit :data:`TEXT_WIDTH_PT`."""
    for size, points in ((None, 10), ("small", 9), ("footnotesize", 8)):
        if _width(headers, rows, points) <= TEXT_WIDTH_PT:
            return size
    return "scriptsize"


def _width(headers: list[str], rows: list[list[str]], points: int) -> float:
    """The estimated width (pt) of the table at a font of ``points`` pt: a digit is half an
    em wide, a header about five digits, a column gap 12 pt."""

    def chars(cell: str) -> int:
        return (
            1
            if "infty" in cell
            else sum(c.isdigit() or c in ".-" for c in cell) + (4 if "times" in cell else 0)
        )

    widths = [max([5, *(chars(row[j]) for row in rows)]) for j in range(len(headers))]
    return sum(widths) * points / 2 + 12 * len(headers)


def to_markdown(frame: pd.DataFrame | Table, *, caption: str | None = None) -> str:
    r"""A Markdown (GitHub) table of a :func:`gated_table` or :func:`lossnet_table` frame.

    Parameters
    ----------
    frame : pandas.DataFrame or Table
        A frame made by :func:`gated_table`, :func:`lossnet_table` or
        :func:`walks_table` (or their :class:`Table`).
    caption : str, optional
        A line above the table; default as in :func:`to_latex`.

    Returns
    -------
    str
        Headers as ``$...$`` mathematics (rendered by GitHub), numbers right-aligned.

    Examples
    --------
    >>> frame = gated_table(arrival_rate="inf", reward=["4", "2"], dps=6, columns="pof")
    >>> print(to_markdown(frame, caption="PoF."), end="")
    PoF.
    <BLANKLINE>
    | $R$ | $\mathrm{PoF}$ |
    | ---: | ---: |
    | 4 | 1.52961 |
    | 2 | 2.17613 |
    """
    varying, fixed = _shown_parameters(frame)
    known, columns = _known(frame), frame.attrs.get("columns", [])
    headers = [f"${PARAMETERS[name]}$" for name in varying]
    headers += [known[column][1] for column in columns]
    lines = [
        caption or _default_caption(frame, fixed),
        "",
        "| " + " | ".join(headers) + " |",
        "| " + " | ".join(["---:"] * len(headers)) + " |",
    ]
    for row in _records(frame):
        cells = [
            ("∞" if _text(row[n]).lower() == "inf" else _plain(row[n]))
            for n in (*varying, *columns)
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def to_csv(frame: pd.DataFrame | Table) -> str:
    """CSV of every parameter and quantity, headed by their plain names.

    Parameters
    ----------
    frame : pandas.DataFrame or Table
        A frame made by :func:`gated_table`, :func:`lossnet_table` or
        :func:`walks_table` (or their :class:`Table`: the same text, written by the
        :mod:`csv` module instead of pandas).

    Returns
    -------
    str
        Plain decimals with every significant digit (``1.50``, ``0.171573``; positional
        for exponents −4..5, ``2.50e-9`` beyond), ``inf`` for infinity, written by the
        :mod:`csv` module for a DataFrame and a :class:`Table` alike.

    Examples
    --------
    >>> frame = gated_table(arrival_rate="inf", reward="4", dps=6, columns="welfare_rr,pof")
    >>> print(to_csv(frame), end="")
    arrival_rate,service_rate,reward,cost,welfare_rr,pof
    inf,1,4,1,1.00000,1.52961
    >>> to_csv(gated_table(arrival_rate="inf", reward="4", columns="welfare_rr,pof",
    ...                    frame=False)) == to_csv(frame)
    True
    """
    names = frame.names if isinstance(frame, Table) else list(frame.columns)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(names)
    writer.writerows([_plain(row[name]) for name in names] for row in _records(frame))
    return text.getvalue()
