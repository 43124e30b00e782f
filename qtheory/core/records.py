"""Lists of result records, and their pandas DataFrames.

A function that returns several records of one kind (the points of a regret curve, the
points of a decomposition sweep, the claims of a model) returns them as
:class:`Records`, a ``list`` that also has :meth:`Records.to_frame`: one row per record,
one column per field, in field order.  A row is made once, by :func:`record_row`:

* a record that defines ``to_row()`` gives its own row (a :class:`~qtheory.core.claims.Claim`
  keeps its verdict and numbers and leaves its LaTeX statement and certificate out);
* a :class:`~qtheory.core.stats.Estimate` field ``x`` becomes the columns ``x`` (the mean)
  and ``x_halfwidth`` (its 95% half-width), so that the numbers stay numbers;
* an :class:`~qtheory.core.enclosure.Enclosure` field ``x`` becomes ``x_lower`` and
  ``x_upper``, as :class:`decimal.Decimal` (the bounds are exact decimals: nothing of
  the certificate is rounded away);
* a dataclass field ``net`` is spread into ``net_servers``, ``net_lambda_h``, …;
* an enumeration becomes its value, anything else is kept as it is (tuples included).

pandas is imported by :meth:`Records.to_frame` only, so returning :class:`Records` costs
nothing.
"""

from __future__ import annotations

import dataclasses
import enum
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Records", "record_row"]

Record = TypeVar("Record")


class Records(list[Record]):
    """A list of records with :meth:`to_frame` (see the module docstring).

    It is a ``list`` in every other respect: it compares equal to the list of the same
    records, slices to a list, and can be built from any iterable.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Point:
    ...     servers: int
    ...     regret: float
    >>> points = Records([Point(10, 2.8), Point(100, 6.6)])
    >>> points == [Point(10, 2.8), Point(100, 6.6)]
    True
    >>> print(points.to_frame().to_string(index=False))
     servers  regret
          10     2.8
         100     6.6
    """

    def to_frame(self) -> pd.DataFrame:
        """One row per record (:func:`record_row`), columns in field order.

        Returns
        -------
        pandas.DataFrame
            Empty (no columns) for no records.
        """
        import pandas as pd

        return pd.DataFrame([record_row(record) for record in self])


def record_row(record: object) -> dict[str, Any]:
    """A record as one flat row: column name to value (rules in the module docstring).

    Parameters
    ----------
    record : dataclass instance, or an object with ``to_row()``

    Returns
    -------
    dict

    Raises
    ------
    TypeError
        If ``record`` is neither.

    Examples
    --------
    >>> from qtheory.core.stats import Estimate
    >>> from qtheory.core.enclosure import Enclosure
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Run:
    ...     label: str
    ...     gap: Estimate
    ...     bound: Enclosure
    >>> row = record_row(Run("A", Estimate(2.5, 0.25, 40), Enclosure("1.25e+0", "1.5e+0")))
    >>> for column, value in row.items():
    ...     print(column, repr(value))
    label 'A'
    gap 2.5
    gap_halfwidth 0.25
    bound_lower Decimal('1.25')
    bound_upper Decimal('1.5')
    """
    own = getattr(record, "to_row", None)
    if callable(own):
        return dict(own())
    if not dataclasses.is_dataclass(record) or isinstance(record, type):
        raise TypeError(
            f"record must be a dataclass instance or define to_row(), got {record!r:.60}"
        )
    row: dict[str, Any] = {}
    for item in dataclasses.fields(record):
        _add(row, item.name, getattr(record, item.name))
    return row


def _add(row: dict[str, Any], name: str, value: object) -> None:
    """Put the field ``name`` into ``row`` as one column or several."""
    from qtheory.core.enclosure import Enclosure
    from qtheory.core.stats import Estimate

    if isinstance(value, Estimate):
        row[name], row[f"{name}_halfwidth"] = value.mean, value.halfwidth
    elif isinstance(value, Enclosure):
        row[f"{name}_lower"], row[f"{name}_upper"] = Decimal(value.lower), Decimal(value.upper)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for key, inner in record_row(value).items():
            row[f"{name}_{key}"] = inner
    elif isinstance(value, enum.Enum):
        row[name] = value.value
    else:
        row[name] = value
