"""Tests of the shared figure style: one style per series, legends outside the data,
integer ticks, residual panels, and that every figure of the report uses them (no titles,
no ad hoc colours or format strings)."""

from __future__ import annotations

import ast
import inspect
import io
import warnings

import matplotlib.colors
import numpy as np
import pytest

from qtheory.report import (
    gated,
    gated_ladder,
    lossnet,
    lossnet_classes,
    lossnet_decomposition,
    single_use,
    walks,
)
from qtheory.report.plots import (
    OKABE_ITO,
    SERIES,
    integer_ticks,
    level_style,
    new_figure,
    outside_legend,
    residual_figure,
    save_figure,
    series_style,
)

#: Every figure function of the report, by module.
FIGURES = {
    gated: ("_welfare_figure", "_pof_figure", "_sojourn_figure"),
    gated_ladder: ("_pof_figure",),
    lossnet: ("_regret_figure", "_threshold_figure"),
    lossnet_classes: ("_lookahead_figure",),
    lossnet_decomposition: ("decomposition_figure", "_lookahead_figure"),
    single_use: ("contrast_figure",),
    walks: ("_ruin_figure", "_epoch_figure", "_sweep_figure"),
}
CASES = [(module, name) for module, names in FIGURES.items() for name in names]
PLOTTING = {"plot", "semilogx", "semilogy", "loglog", "errorbar", "axhline", "axvline"}


def _function(module, name: str) -> ast.FunctionDef:
    tree = ast.parse(inspect.getsource(module))
    found = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name]
    assert len(found) == 1, f"{module.__name__}.{name} not found once"
    return found[0]


def _calls(node: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Call)]


def _name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


# ------------------------------------------------------------------ the style table


def test_series_unique_by_colour_and_marker():
    pairs = [(colour, marker) for colour, marker, _ in SERIES.values()]
    assert len(set(pairs)) == len(pairs)
    assert {colour for colour, _ in pairs} <= set(OKABE_ITO)


def test_policies_have_colours_of_their_own():
    policies = {key: SERIES[key][0] for key in ("GA", "RR", "PFI", "SSS")}
    assert len(set(policies.values())) == len(policies)


def test_okabe_ito_values():
    # the published palette (Okabe and Ito 2008), as 8-bit RGB
    published = {
        "orange": (230, 159, 0),
        "sky blue": (86, 180, 233),
        "bluish green": (0, 158, 115),
        "yellow": (240, 228, 66),
        "blue": (0, 114, 178),
        "vermillion": (213, 94, 0),
        "reddish purple": (204, 121, 167),
    }
    for name, rgb in published.items():
        got = tuple(round(255 * v) for v in matplotlib.colors.to_rgb(OKABE_ITO[name]))
        assert got == rgb, name


def test_series_style_is_plot_kwargs():
    fig, ax = new_figure()
    for key in SERIES:
        for variant in range(4):
            ax.plot([1, 2], [1, 2], **series_style(key, variant))
    assert series_style("RR")["color"] == OKABE_ITO["vermillion"]
    one, two = series_style("GA"), series_style("GA", 1)
    assert one["color"] == two["color"] and one["marker"] == two["marker"]
    assert one["linestyle"] != two["linestyle"]


@pytest.mark.parametrize("key", ["ga", "", "Erlang", None])
def test_series_style_unknown_key(key):
    with pytest.raises(ValueError, match=f"key must be a series of SERIES .*got {key!r}"):
        series_style(key)


@pytest.mark.parametrize("variant", [-1, 4, 1.0, "1"])
def test_series_style_bad_variant(variant):
    with pytest.raises(ValueError, match="variant must be an integer in 0..3"):
        series_style("GA", variant)


def test_level_style_never_colour_alone():
    for count in range(1, 9):
        styles = [level_style(i, count) for i in range(count)]
        assert len({s["marker"] for s in styles}) == count
        colours = [matplotlib.colors.to_hex(s["color"]) for s in styles]
        assert len(set(colours)) == count


@pytest.mark.parametrize(("index", "count"), [(0, 0), (0, 9), (3, 3), (-1, 3), (0.0, 2)])
def test_level_style_bad_arguments(index, count):
    with pytest.raises(ValueError, match="must be an integer in"):
        level_style(index, count)


# ------------------------------------------------------------------ helpers


@pytest.mark.parametrize("where", ["right", "above"])
def test_outside_legend_does_not_cover_the_axes(where, tmp_path):
    fig, ax = new_figure()
    for key in ("GA", "RR", "exact", "asymptotic"):
        ax.plot(np.arange(5), np.arange(5) ** 2, **series_style(key), label=f"a long label {key}")
    box = outside_legend(ax, where)
    with warnings.catch_warnings():  # e.g. "constrained_layout not applied"
        warnings.simplefilter("error")
        save_figure(fig, tmp_path, "legend")  # lays the figure out for PNG and PDF
    fig.savefig(io.BytesIO(), format="png", dpi=fig.dpi)  # the geometry at the figure's dpi
    legend, axes = box.get_window_extent(), ax.get_window_extent()
    assert not legend.overlaps(axes)
    inside = fig.bbox
    assert inside.x0 <= legend.x0 and legend.x1 <= inside.x1 + 1
    assert inside.y0 <= legend.y0 and legend.y1 <= inside.y1 + 1


def test_outside_legend_bad_place():
    fig, ax = new_figure()
    with pytest.raises(ValueError, match="where must be 'right' or 'above', got 'inside'"):
        outside_legend(ax, "inside")


def test_integer_ticks_log_and_linear():
    fig, ax = new_figure()
    ax.set_xscale("log")
    ax.plot([1, 2, 4, 8, 16, 32, 64], np.arange(7))
    ax.set_ylim(-0.3, 2.6)
    integer_ticks(ax.xaxis)
    integer_ticks(ax.yaxis)
    fig.canvas.draw()
    low, high = ax.get_xlim()
    shown = [t for t in ax.get_xticklabels() if low <= t.get_position()[0] <= high]
    assert [t.get_text() for t in shown] == ["1", "2", "5", "10", "20", "50"]
    ticks = [t for t in ax.get_yticks() if -0.3 <= t <= 2.6]
    assert ticks and all(float(t).is_integer() for t in ticks)


def test_residual_figure_shares_x():
    fig, ax, rest = residual_figure()
    ax.semilogx([1, 10, 100], [1, 2, 3])
    assert rest.get_xscale() == "log"
    assert ax.get_position().y0 > rest.get_position().y1  # the residual panel is below
    assert ax.get_position().height > rest.get_position().height


# ------------------------------------------------------------------ every figure


@pytest.mark.parametrize(("module", "name"), CASES, ids=[f"{m.__name__}.{n}" for m, n in CASES])
def test_figure_functions_use_the_shared_style(module, name):
    calls = _calls(_function(module, name))
    names = {_name(call) for call in calls}
    assert not names & {"set_title", "suptitle", "title"}, "titles belong in the caption"
    assert "outside_legend" in names and "legend" not in names
    assert names & {"series_style", "level_style"}
    for call in calls:
        if _name(call) not in PLOTTING:
            continue
        strings = [a for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        assert not strings, f"line {call.lineno}: a format string instead of series_style"
        ad_hoc = {k.arg for k in call.keywords} & {"fmt", "color", "c", "marker", "linestyle"}
        assert not ad_hoc, f"line {call.lineno}: {ad_hoc} instead of series_style"


def test_no_titles_anywhere_in_the_figure_modules():
    for module in FIGURES:
        assert "set_title" not in inspect.getsource(module), module.__name__
