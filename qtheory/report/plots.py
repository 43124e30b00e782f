"""Paper-ready figures without pyplot.

Figures are built with :class:`matplotlib.figure.Figure` directly: no pyplot, no
backend selection and no change to the global ``rcParams``, so importing or using
this module never disturbs a user's interactive session.  PDF output is rendered by
matplotlib's PDF backend and PNG output by Agg, both chosen per call by
:meth:`~matplotlib.figure.Figure.savefig`.

The style (:data:`PAPER_RC`: 8--10 pt sizes that sit well in a 10--11 pt paper, Computer
Modern text and mathematics as in the LaTeX document -- ``cmr10`` and mathtext's ``cm``
set, tick labels in mathtext so that minus signs and powers of ten match -- light grid)
is applied with :func:`paper_style`, a :func:`matplotlib.rc_context`: :func:`new_figure`
creates the figure inside it and :func:`save_figure` renders inside it.  Artists that
read the style when *created* (legends, titles) match it if created inside
``with paper_style():`` or by :func:`legend`; :func:`save_figure` sets any text still in
another family (a legend made outside the style) in the paper's family, so that no
figure mixes serif and sans-serif.

Every figure draws its series with :func:`series_style`: one colour, marker and line
style per policy or method (:data:`SERIES`), the same in every figure, from the Okabe--Ito
palette that readers with any common colour-vision deficiency tell apart [1]_; no two
entries share a colour and a marker, so no two series differ by colour alone.  Ordered
parameter values of one series (several :math:`N`, :math:`c` or parameter sets) take
:func:`level_style`: shades of the colour-vision-safe ``cividis`` map, each with its own
marker and line style.  :func:`outside_legend` puts the legend beside or above the axes
(never over the data), :func:`integer_ticks` labels an integer axis with integers (also
on a log axis: 1, 2, 4, not :math:`10^0`), and :func:`residual_figure` adds a short panel
below the main one for a claim about a residual.

Examples
--------
>>> import tempfile
>>> fig, ax = new_figure()
>>> _ = ax.plot([0, 1, 2], [0, 1, 4], label="$x^2$")
>>> _ = ax.set_xlabel(r"load $\\rho$")
>>> [p.name for p in save_figure(fig, tempfile.mkdtemp(), "demo")]
['demo.pdf', 'demo.png']

References
----------
.. [1] M. Okabe and K. Ito, "Color Universal Design (CUD): how to make figures and
   presentations that are friendly to colorblind people" (2002, revised 2008),
   https://jfly.uni-koeln.de/color/.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib import ticker
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text

from qtheory.report.latex import write_if_changed

__all__ = [
    "OKABE_ITO",
    "PAPER_RC",
    "SERIES",
    "integer_ticks",
    "legend",
    "level_style",
    "new_figure",
    "outside_legend",
    "paper_style",
    "residual_figure",
    "save_figure",
    "series_style",
]

#: Resolution of PNG output (dots per inch).
PNG_DPI = 200

#: Style applied by :func:`paper_style` (a subset of ``rcParams``).
PAPER_RC: dict[str, Any] = {
    "font.family": "serif",
    "font.serif": ["cmr10", "DejaVu Serif"],  # Computer Modern, shipped with matplotlib
    "mathtext.fontset": "cm",
    "axes.formatter.use_mathtext": True,  # cmr10 has no minus sign: ticks in mathtext
    "axes.unicode_minus": True,
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 9.0,
    "xtick.labelsize": 8.0,
    "ytick.labelsize": 8.0,
    "legend.fontsize": 8.0,
    "legend.frameon": False,
    "axes.grid": True,
    "grid.linewidth": 0.5,
    "grid.alpha": 0.35,
    "axes.linewidth": 0.8,
    "lines.linewidth": 1.4,
    "lines.markersize": 4.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "pdf.fonttype": 42,  # embed TrueType: text stays selectable and editable
    "savefig.bbox": "standard",  # keep the exact figure size for the paper layout
}


#: The Okabe--Ito colour-blind-safe palette (name -> hex), and the grey of references.
OKABE_ITO: dict[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
    "grey": "#777777",
}

#: One style per series key, the same in every figure: (colour, marker, line style).
#: Policies have colours of their own (GA blue, RR vermillion, PFI green, SSS purple);
#: exact values are black, approximations and fits black or grey with their own markers.
SERIES: dict[str, tuple[str, str, str]] = {
    "GA": ("blue", "o", "-"),
    "RR": ("vermillion", "s", "--"),
    "PFI": ("bluish green", "D", "--"),
    "SSS": ("reddish purple", "^", "-"),
    "exact": ("black", "o", "-"),
    "asymptotic": ("black", "^", "--"),
    "leading term": ("grey", "v", ":"),
    "c log N": ("grey", "D", "--"),
    "c*": ("grey", "", ":"),
    "bound": ("black", "v", "none"),
    "coupled walk": ("orange", "^", "--"),
    "limit walk": ("sky blue", "v", ":"),
    "C_vol": ("bluish green", "o", "none"),
    "C_long": ("sky blue", "s", "none"),
    "C_short": ("orange", "D", "none"),
    "reusable": ("sky blue", "o", "-"),
    "single-use": ("orange", "s", "-"),
}

_VARIANT_LINES = ("-", "-.", ":", "--")
_LEVEL_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<")


def series_style(key: str, variant: int = 0) -> dict[str, Any]:
    """Keyword arguments for :meth:`~matplotlib.axes.Axes.plot` (or ``errorbar``) drawing
    the series ``key`` in its one style of :data:`SERIES`.

    Parameters
    ----------
    key : str
        A key of :data:`SERIES` (``"GA"``, ``"RR"``, ``"exact"``, …).
    variant : int, default 0
        A second case of the same series in one figure (another arrival rate, say): the
        same colour and marker, the marker open and the line style variant 1 dash-dotted,
        2 dotted, 3 dashed (variant 0 is the series' own).

    Returns
    -------
    dict
        ``color``, ``marker``, ``linestyle`` and, for a variant, ``markerfacecolor``.

    Raises
    ------
    ValueError
        If ``key`` is not in :data:`SERIES` or ``variant`` is not an integer in 0..3.

    Examples
    --------
    >>> series_style("GA")
    {'color': '#0072B2', 'marker': 'o', 'linestyle': '-'}
    >>> series_style("GA", variant=1)["linestyle"], series_style("GA", 1)["markerfacecolor"]
    ('-.', 'white')
    >>> series_style("nope")
    Traceback (most recent call last):
    ...
    ValueError: key must be a series of SERIES (GA, RR, PFI, ...), got 'nope'
    """
    if key not in SERIES:
        known = ", ".join(list(SERIES)[:3])
        raise ValueError(f"key must be a series of SERIES ({known}, ...), got {key!r}")
    if not (isinstance(variant, int) and 0 <= variant < len(_VARIANT_LINES)):
        raise ValueError(f"variant must be an integer in 0..3, got {variant!r}")
    colour, marker, line = SERIES[key]
    style: dict[str, Any] = {"color": OKABE_ITO[colour], "marker": marker, "linestyle": line}
    if variant:
        style["linestyle"] = _VARIANT_LINES[variant]
        style["markerfacecolor"] = "white"
    return style


def level_style(index: int, count: int) -> dict[str, Any]:
    """Keyword arguments drawing the ``index``-th of ``count`` ordered values of one
    parameter (several :math:`N`, say): a shade of ``cividis`` (dark to light, readable
    with any common colour-vision deficiency), with a marker and line style of its own,
    so that the levels never differ by colour alone.

    Parameters
    ----------
    index : int
        0 <= index < count.
    count : int
        The number of levels, 1 to 8.

    Returns
    -------
    dict
        ``color`` (an RGBA tuple), ``marker`` and ``linestyle``.

    Raises
    ------
    ValueError
        If ``count`` is not in 1..8 or ``index`` not in 0..count-1.

    Examples
    --------
    >>> [level_style(i, 3)["marker"] for i in range(3)]
    ['o', 's', '^']
    >>> level_style(3, 3)
    Traceback (most recent call last):
    ...
    ValueError: index must be an integer in 0..2 (count = 3), got 3
    """
    if not (isinstance(count, int) and 1 <= count <= len(_LEVEL_MARKERS)):
        raise ValueError(f"count must be an integer in 1..{len(_LEVEL_MARKERS)}, got {count!r}")
    if not (isinstance(index, int) and 0 <= index < count):
        raise ValueError(
            f"index must be an integer in 0..{count - 1} (count = {count}), got {index!r}"
        )
    shade = 0.0 if count == 1 else 0.8 * index / (count - 1)  # the top of cividis is pale
    return {
        "color": matplotlib.colormaps["cividis"](shade),
        "marker": _LEVEL_MARKERS[index],
        "linestyle": _VARIANT_LINES[index % len(_VARIANT_LINES)],
    }


@contextlib.contextmanager
def paper_style() -> Iterator[None]:
    """Context manager applying :data:`PAPER_RC` temporarily (``rcParams`` are
    restored on exit).

    Yields
    ------
    None
        Inside the block ``matplotlib.rcParams`` holds :data:`PAPER_RC`.

    Examples
    --------
    >>> import matplotlib
    >>> before = matplotlib.rcParams["font.size"]
    >>> with paper_style():
    ...     matplotlib.rcParams["font.size"]
    9.0
    >>> matplotlib.rcParams["font.size"] == before
    True
    """
    with matplotlib.rc_context(PAPER_RC):
        yield


def new_figure(width: float = 5.0, height: float = 3.5) -> tuple[Figure, Axes]:
    """A figure with one axes in the paper style, using constrained layout.

    Parameters
    ----------
    width, height : float
        Size in inches (5 x 3.5 fits a single-column text width at 0.8 scale).

    Returns
    -------
    (matplotlib.figure.Figure, matplotlib.axes.Axes)

    Examples
    --------
    >>> fig, ax = new_figure(4, 3)
    >>> tuple(float(v) for v in fig.get_size_inches())
    (4.0, 3.0)
    >>> fig.get_layout_engine().__class__.__name__
    'ConstrainedLayoutEngine'
    """
    for name, value in (("width", width), ("height", height)):
        if not (isinstance(value, int | float) and 0 < value < float("inf")):
            raise ValueError(f"{name} must be a positive finite number of inches, got {value!r}")
    with paper_style():
        fig = Figure(figsize=(width, height), layout="constrained")
        ax = fig.add_subplot()
        ax.grid(True, which="major", linewidth=0.5, alpha=0.35)
        ax.set_axisbelow(True)
        ax.tick_params(labelsize=PAPER_RC["xtick.labelsize"])
        ax.xaxis.label.set_fontsize(PAPER_RC["axes.labelsize"])
        ax.yaxis.label.set_fontsize(PAPER_RC["axes.labelsize"])
    return fig, ax


def legend(ax: Axes, **kwargs: Any) -> Legend:
    """``ax.legend(**kwargs)`` created inside :func:`paper_style` (the legend's font size
    and frame are read when it is created).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.legend`.

    Returns
    -------
    matplotlib.legend.Legend

    Examples
    --------
    >>> fig, ax = new_figure()
    >>> _ = ax.plot([0, 1], label="a")
    >>> box = legend(ax)
    >>> box.get_texts()[0].get_fontsize(), box.get_texts()[0].get_fontfamily()
    (8.0, ['serif'])
    """
    with paper_style():
        return ax.legend(**kwargs)


def outside_legend(ax: Axes, where: str = "right", **kwargs: Any) -> Legend:
    """A legend outside the data: to the right of the axes or above them (constrained
    layout makes room for it).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    where : {"right", "above"}
        Beside the axes (one entry a row) or above them (entries side by side, up to
        three a row).
    **kwargs
        Passed to :func:`legend` (``ncols``, ``handles``, …).

    Returns
    -------
    matplotlib.legend.Legend

    Raises
    ------
    ValueError
        If ``where`` is neither ``"right"`` nor ``"above"``.

    Examples
    --------
    >>> fig, ax = new_figure()
    >>> _ = ax.plot([0, 1], label="a")
    >>> bool(outside_legend(ax).get_bbox_to_anchor().x0 > ax.bbox.x1)
    True
    """
    if where == "right":
        placed = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0}
    elif where == "above":
        entries = len(kwargs.get("handles") or ax.get_legend_handles_labels()[0])
        placed = {
            "loc": "lower center",
            "bbox_to_anchor": (0.5, 1.02),
            "borderaxespad": 0.0,
            "ncols": min(3, max(1, entries)),
        }
    else:
        raise ValueError(f"where must be 'right' or 'above', got {where!r}")
    return legend(ax, **(placed | kwargs))


def integer_ticks(axis: Any) -> None:
    """Label an integer axis (``ax.xaxis`` or ``ax.yaxis``) with integers only: on a
    linear scale ticks at integers (:class:`~matplotlib.ticker.MaxNLocator` with
    ``integer=True``), on a log scale plain integer labels (1, 2, 4, 8, not
    :math:`10^0`, :math:`10^1`) at 1, 2 and 5 times the powers of ten.  Set the scale
    first.

    Parameters
    ----------
    axis : matplotlib.axis.Axis

    Examples
    --------
    >>> fig, ax = new_figure()
    >>> ax.set_xscale("log")
    >>> _ = ax.plot([1, 2, 4, 8], [0, 1, 2, 3])
    >>> integer_ticks(ax.xaxis)
    >>> fig.canvas.draw()
    >>> [t.get_text() for t in ax.get_xticklabels() if 1 <= t.get_position()[0] <= 8]
    ['1', '2', '5']
    """
    if axis.get_scale() == "log":
        axis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(ticker.FuncFormatter(lambda x, _: f"{x:.0f}"))
        axis.set_minor_formatter(ticker.NullFormatter())
    else:
        axis.set_major_locator(ticker.MaxNLocator(integer=True))


def residual_figure(width: float = 5.0, height: float = 4.4) -> tuple[Figure, Axes, Axes]:
    """A figure with a main panel and, below it on the same x axis, a shorter residual
    panel (a third of the height), in the paper style.

    Parameters
    ----------
    width, height : float
        Size in inches.

    Returns
    -------
    (matplotlib.figure.Figure, matplotlib.axes.Axes, matplotlib.axes.Axes)
        The figure, the main axes and the residual axes (x shared, the main panel's x
        tick labels hidden).

    Examples
    --------
    >>> fig, ax, rest = residual_figure()
    >>> len(fig.axes), ax.get_shared_x_axes().joined(ax, rest)
    (2, True)
    """
    fig, ax = new_figure(width, height)
    grid = fig.add_gridspec(2, 1, height_ratios=(2, 1))
    ax.set_subplotspec(grid[0])
    with paper_style():
        rest = fig.add_subplot(grid[1], sharex=ax)
        rest.grid(True, which="major", linewidth=0.5, alpha=0.35)
        rest.set_axisbelow(True)
        rest.tick_params(labelsize=PAPER_RC["xtick.labelsize"])
    ax.tick_params(labelbottom=False)
    return fig, ax, rest


def _paper_family(fig: Figure) -> None:
    """Set every text of ``fig`` not already in the paper's family in it (text made
    outside :func:`paper_style` takes the global default, often sans-serif)."""
    family = PAPER_RC["font.family"]
    for text in fig.findobj(Text):
        if text.get_fontfamily() != [family]:
            text.set_fontfamily(family)


@contextlib.contextmanager
def _quiet_font_dates() -> Iterator[None]:
    """Silence fontTools' warning that the Computer Modern fonts' (1997) creation dates
    "seem very low" while they are subset into a PDF; the logger's level is restored."""
    logger = logging.getLogger("fontTools.ttLib.tables._h_e_a_d")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _render(fig: Figure, fmt: str) -> bytes:
    buffer = io.BytesIO()
    if fmt == "pdf":
        # no creation date: identical bytes on reruns
        fig.savefig(buffer, format="pdf", metadata={"CreationDate": None})
    else:
        # no matplotlib version string
        fig.savefig(buffer, format="png", dpi=PNG_DPI, metadata={"Software": None})
    return buffer.getvalue()


def save_figure(fig: Figure, directory: str | os.PathLike[str], stem: str) -> list[Path]:
    """Write ``stem.pdf`` and ``stem.png`` (200 dpi) into ``directory``.

    The directory is created if needed.  Text in another font family than the paper's
    (e.g. a legend created outside :func:`paper_style`) is set in the paper's family
    first.  Metadata that changes between runs is
    left out (PDF ``CreationDate``, PNG ``Software``), so rendering the same figure
    twice gives identical bytes (checked by the tests, also across processes), and
    a file whose bytes did not change is not rewritten (its mtime stays put).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    directory : str or path
    stem : str
        File name without extension (no path separators).

    Returns
    -------
    list of pathlib.Path
        ``[directory/stem.pdf, directory/stem.png]``.

    Raises
    ------
    ValueError
        If ``fig`` is not a Figure or ``stem`` is not a bare file name.

    Examples
    --------
    >>> import tempfile
    >>> fig, ax = new_figure()
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     first = [p.read_bytes() for p in save_figure(fig, directory, "x")]
    ...     again = [p.read_bytes() for p in save_figure(fig, directory, "x")]
    >>> first == again
    True
    """
    if not isinstance(fig, Figure):
        raise ValueError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    if not stem or Path(stem).name != stem or stem in {".", ".."}:
        raise ValueError(f"stem must be a bare file name without folders, got {stem!r}")
    directory = Path(directory)
    _paper_family(fig)
    with paper_style(), _quiet_font_dates():
        # PNG first: constrained layout after an Agg draw is a fixed point of both
        # backends, while a PDF drawn first lays out differently in the last digit
        png = _render(fig, "png")
        rendered = [("pdf", _render(fig, "pdf")), ("png", png)]
    return [write_if_changed(directory / f"{stem}.{fmt}", data) for fmt, data in rendered]
