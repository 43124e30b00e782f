"""Tests of the figure helpers: files, formats, determinism, no global state."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import matplotlib
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from qtheory.report import new_figure, save_figure

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def sample_figure() -> Figure:
    fig, ax = new_figure()
    load = np.linspace(0.05, 0.95, 50)
    ax.plot(load, load / (1 - load), label=r"$L = \rho/(1-\rho)$")
    ax.plot(load, load**2 / (1 - load), "--", label=r"$L_q$")
    ax.set_xlabel(r"load $\rho$")
    ax.set_ylabel("mean number in system")
    ax.set_yscale("log")
    ax.legend()
    return fig


def test_new_figure_style():
    rc_before = dict(matplotlib.rcParams)
    fig, ax = new_figure(4.0, 2.5)
    assert isinstance(fig, Figure) and isinstance(ax, Axes)
    assert tuple(fig.get_size_inches()) == (4.0, 2.5)
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    assert ax.xaxis.label.get_fontsize() == 9.0
    assert dict(matplotlib.rcParams) == rc_before  # global state untouched


@pytest.mark.parametrize(("width", "height"), [(0, 3), (5, -1), (float("nan"), 3), ("5", 3)])
def test_new_figure_bad_size(width, height):
    with pytest.raises(ValueError, match="must be a positive finite number of inches"):
        new_figure(width, height)


def test_save_figure_writes_pdf_and_png(tmp_path):
    directory = tmp_path / "figures" / "gated"  # does not exist yet
    paths = save_figure(sample_figure(), directory, "mean_queue")
    assert paths == [directory / "mean_queue.pdf", directory / "mean_queue.png"]
    pdf, png = (path.read_bytes() for path in paths)
    assert pdf.startswith(b"%PDF") and len(pdf) > 1000
    assert png.startswith(PNG_SIGNATURE) and len(png) > 1000
    assert b"CreationDate" not in pdf
    assert b"matplotlib" not in png.lower()  # no Software tag
    # PNG at 200 dpi: 5 x 3.5 inches -> 1000 x 700 pixels (IHDR width/height)
    assert int.from_bytes(png[16:20], "big") == 1000
    assert int.from_bytes(png[20:24], "big") == 700


def test_save_figure_is_deterministic_and_skips_unchanged(tmp_path):
    fig = sample_figure()
    first = [p.read_bytes() for p in save_figure(fig, tmp_path / "a", "f")]
    again = [p.read_bytes() for p in save_figure(sample_figure(), tmp_path / "b", "f")]
    assert first == again  # a fresh rendering gives identical bytes, PDF and PNG

    paths = [tmp_path / "a" / "f.pdf", tmp_path / "a" / "f.png"]
    old = 1_000_000_000_000_000_000
    for path in paths:
        os.utime(path, ns=(old, old))
    save_figure(fig, tmp_path / "a", "f")
    assert [p.stat().st_mtime_ns for p in paths] == [old, old]  # not rewritten


def test_save_figure_identical_across_processes(tmp_path):
    """A rerun is a new process (with another hash seed): the bytes must not change,
    and neither pyplot nor the user's backend is touched."""
    script = textwrap.dedent(
        """
        import sys
        import matplotlib
        matplotlib.use("svg")  # the user's choice must survive
        import numpy as np
        from qtheory.report import new_figure, save_figure
        fig, ax = new_figure()
        ax.plot(np.arange(10), np.arange(10) ** 2, label=r"$\\tau^*$")
        ax.set_xlabel(r"$\\rho$")
        ax.legend()
        save_figure(fig, sys.argv[1], "f")
        assert "matplotlib.pyplot" not in sys.modules
        assert matplotlib.get_backend() == "svg"
        """
    )
    outputs = []
    for seed in ("1", "2"):
        directory = tmp_path / seed
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", script, str(directory)], check=True, env=env)
        outputs.append([(directory / name).read_bytes() for name in ("f.pdf", "f.png")])
    assert outputs[0] == outputs[1]


def test_save_figure_bad_input(tmp_path):
    with pytest.raises(ValueError, match="fig must be a matplotlib Figure"):
        save_figure("not a figure", tmp_path, "f")
    with pytest.raises(ValueError, match="stem must be a bare file name"):
        save_figure(sample_figure(), tmp_path, "sub/f")
    with pytest.raises(ValueError, match="stem must be a bare file name"):
        save_figure(sample_figure(), tmp_path, "")


def test_one_font_family_in_saved_figures(tmp_path):
    """A legend made outside the paper style (sans-serif by matplotlib's default) is set
    in the paper's Computer Modern family when saved; legend() makes it in the style."""
    from matplotlib.text import Text

    from qtheory.report.plots import PAPER_RC, legend

    assert PAPER_RC["font.serif"][0] == "cmr10" and PAPER_RC["mathtext.fontset"] == "cm"
    fig = sample_figure()  # ax.legend() outside the style
    with matplotlib.rc_context({"font.family": "sans-serif"}):
        fig.axes[0].set_title("made in sans-serif")
    assert any(t.get_fontfamily() != ["serif"] for t in fig.findobj(Text))
    save_figure(fig, tmp_path, "f")
    assert {tuple(t.get_fontfamily()) for t in fig.findobj(Text)} == {("serif",)}
    _, ax = new_figure()
    ax.plot([0, 1], label="a")
    assert legend(ax).get_texts()[0].get_fontsize() == PAPER_RC["legend.fontsize"]
