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

Examples
--------
>>> import tempfile
>>> fig, ax = new_figure()
>>> _ = ax.plot([0, 1, 2], [0, 1, 4], label="$x^2$")
>>> _ = ax.set_xlabel(r"load $\\rho$")
>>> [p.name for p in save_figure(fig, tempfile.mkdtemp(), "demo")]
['demo.pdf', 'demo.png']
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
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text

from qtheory.report.latex import write_if_changed

__all__ = ["PAPER_RC", "legend", "new_figure", "paper_style", "save_figure"]

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
