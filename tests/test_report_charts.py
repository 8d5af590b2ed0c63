"""The charts of a committed H100 run: an interval on every bar and point that has one, no text over another text, one
reference class per axis, one kernel in one configuration drawn once (or hatched as the A/A pair it is), and sizes
that are categories never joined by a line."""

from __future__ import annotations

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.transforms import Bbox

from harness.analysis.measured import Measured
from harness.analysis.record import read_beside
from harness.analysis.steps import ladder_rungs
from harness.catalog_types.kernel import PRECISION_CLASSES
from harness.records.file import load
from harness.report.plots import all_plots
from harness.report.plots.common import CUBLAS, DPI, drawn_texts, text_box
from harness.report.wording import baseline_label
from tests.recorded import H100_RUN, REPO, recorded_gpu_run

RUN = REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T102241Z.jsonl"


def marker_boxes(fig: Figure) -> list[Bbox]:
    """The box of every marker drawn in the figure's axes (scatter points and line markers), in pixels."""
    out = []
    for ax in fig.axes:
        for c in ax.collections:
            if not isinstance(c, PathCollection):
                continue
            sizes = c.get_sizes()
            for i, xy in enumerate(c.get_offset_transform().transform(c.get_offsets())):
                r = (sizes[i % len(sizes)] ** 0.5) / 2 * fig.dpi / 72 if len(sizes) else 0.0
                out.append(Bbox.from_extents(xy[0] - r, xy[1] - r, xy[0] + r, xy[1] + r))
        for line in ax.lines:
            # an error bar's caps are its ends, not points of their own
            if line.get_marker() in (None, "None", "", " ", "_", "|") or not line.get_visible():
                continue
            r = line.get_markersize() / 2 * fig.dpi / 72
            for x, y in ax.transData.transform(line.get_xydata()):
                out.append(Bbox.from_extents(x - r, y - r, x + r, y + r))
    return out


def clashes(fig: Figure, slack: float = 0.5) -> list[tuple[str, str]]:
    """What a reader cannot read, the figure drawn as its PNG is: two texts whose boxes overlap, a text over a marker,
    and a text on a dashed or dotted reference line, horizontal or vertical (a value label on the 100% line: struck
    through, or, on a ground of its own, hiding the line it is read against)."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    texts = [(t, text_box(t, renderer)) for t in drawn_texts(fig)]

    def over(a: Bbox, b: Bbox) -> bool:
        return min(a.x1, b.x1) - max(a.x0, b.x0) > slack and min(a.y1, b.y1) - max(a.y0, b.y0) > slack

    out = [(a.get_text(), b.get_text()) for i, (a, ba) in enumerate(texts) for b, bb in texts[i + 1:] if over(ba, bb)]
    inside = [(t, box) for t, box in texts if any(t in ax.texts for ax in fig.axes)]
    out += [(t.get_text(), "a marker") for t, box in inside for mb in marker_boxes(fig) if over(box, mb)]
    for ax in fig.axes:
        for line in ax.lines:
            xs, ys = line.get_xdata(), line.get_ydata()
            if line.get_linestyle() not in ("--", ":", "-.") or len(ys) != 2:
                continue
            (x0, y0), (x1, y1) = line.get_transform().transform([(xs[0], ys[0]), (xs[1], ys[1])])
            for t, box in inside:
                if t not in ax.texts:
                    continue
                across = (ys[0] == ys[1] and box.y0 + slack < y0 < box.y1 - slack
                          and min(x0, x1) < box.x1 and box.x0 < max(x0, x1))
                down = (xs[0] == xs[1] and box.x0 + slack < x0 < box.x1 - slack
                        and min(y0, y1) < box.y1 and box.y0 < max(y0, y1))
                if across or down:
                    out.append((t.get_text(), "a reference line"))
    return out


NEWEST = H100_RUN


@pytest.fixture(scope="module")
def m() -> Measured:
    return Measured(load(RUN), read_beside(RUN))


@pytest.fixture(scope="module")
def plots(m: Measured) -> dict:
    return {p.key: p for p in all_plots(m) if p.png}


@pytest.fixture(scope="module")
def newest() -> dict:
    """The charts of the newest full run: Gluon bars and points beside CUDA's, Triton's and cuBLAS's."""
    return {p.key: p for p in all_plots(Measured(load(NEWEST), read_beside(NEWEST))) if p.png}


def _bars(ax, yardsticks: bool = True) -> list[Rectangle]:
    """The bars of an axis; without `yardsticks`, leaving out cuBLAS's own (grey: no interval against itself)."""
    return [p for p in ax.patches if isinstance(p, Rectangle) and p.get_height() > 0 and p.get_width() > 0
            and (yardsticks or to_hex(p.get_facecolor()) != CUBLAS)]


def _whiskers(ax) -> int:
    return sum(len(c.get_segments()) for c in ax.collections if isinstance(c, LineCollection))


def test_no_text_of_any_chart_lies_over_another_text_a_marker_or_a_reference_line(plots: dict, newest: dict) -> None:
    for drawn in (plots, newest):
        assert set(drawn) >= {"ladder", "bars-sgemm", "hopper-ladder", "gemv-bandwidth", "roofline", "accuracy"}
        crowded = {key: clashes(p.figure)[:3] for key, p in drawn.items()}
        assert {k: v for k, v in crowded.items() if v} == {}


def hidden_markers(fig: Figure, share: float = 0.6) -> list[tuple[int, int]]:
    """Scatter points a reader cannot see: a point whose box lies, for more than `share` of its area, under a filled
    point drawn over it (higher zorder, or the same and later) that is at least as large. A smaller point drawn over a
    larger one leaves both seen (nested)."""
    out = []
    for ax in fig.axes:
        drawn = []   # (zorder, order, box, filled)
        for order, c in enumerate(ax.collections):
            if not isinstance(c, PathCollection) or not len(c.get_offsets()):
                continue
            sizes = c.get_sizes()
            faces = c.get_facecolors()
            for i, xy in enumerate(c.get_offset_transform().transform(c.get_offsets())):
                r = (sizes[i % len(sizes)] ** 0.5) / 2 * fig.dpi / 72
                filled = len(faces) > 0 and faces[i % len(faces)][3] > 0 and to_hex(faces[i % len(faces)]) != "#ffffff"
                drawn.append((c.get_zorder(), order, Bbox.from_extents(xy[0] - r, xy[1] - r, xy[0] + r, xy[1] + r),
                              filled))
        for i, (z, n, box, _) in enumerate(drawn):
            for j, (z2, n2, over, filled) in enumerate(drawn):
                if j == i or not filled or (z2, n2) <= (z, n) or over.width < box.width - 0.5:
                    continue
                w = min(box.x1, over.x1) - max(box.x0, over.x0)
                h = min(box.y1, over.y1) - max(box.y0, over.y0)
                if w > 0 and h > 0 and w * h > share * box.width * box.height:
                    out.append((i, j))
    return out


def test_no_point_of_the_accuracy_chart_is_hidden_under_another(plots: dict, newest: dict) -> None:
    """Front point 3 (wgmma_3xtf32_rs CUDA) lay under point 4 (its Gluon form), and the fastest fp32 CUDA and Gluon
    points under cuBLAS fp32's larger marker: every point must show."""
    for drawn in (plots, newest):
        assert hidden_markers(drawn["accuracy"].figure) == []


def test_a_chart_taller_than_a_screen_has_its_value_axis_at_the_top_too(plots: dict, newest: dict) -> None:
    """The sgemm bar chart is some 2,500 px tall: its % axis is read at both ends."""
    for drawn in (plots, newest):
        tall = [p for p in drawn.values() if p.size[1] > 1000]
        assert tall
        for p in tall:
            for ax in p.figure.axes:
                if not ax.patches:
                    continue
                ticks = ax.xaxis.get_major_ticks()
                assert any(t.label2.get_visible() for t in ticks) and any(t.label1.get_visible() for t in ticks), p.key


def test_no_legend_or_label_widens_a_chart_past_its_figure() -> None:
    """The PNG is as wide as the figure plus the saved padding: a legend too wide for its figure (one row of entries,
    the Gluon one added) grew the tight bounding box, and the sgemm bar chart past the page's width, whatever the
    figure's own width. Read from the newest recorded run, the one with the most entries."""
    path = recorded_gpu_run()
    if path is None:
        pytest.skip("no recorded GPU run under results/")
    for p in all_plots(Measured(load(path))):
        if p.png:
            allowed = p.figure.get_figwidth() * DPI + 2 * 0.12 * DPI + 2
            assert p.size[0] <= allowed, f"{p.key}: {p.size[0]} px wide, its figure {p.figure.get_figwidth() * DPI:.0f}"


def test_the_accuracy_charts_front_is_drawn_over_every_other_point(plots: dict) -> None:
    ax = plots["accuracy"].figure.axes[0]
    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    front = [c for c in points if c.get_linewidths()[0] == pytest.approx(1.6)]
    assert front and min(c.get_zorder() for c in front) > max(c.get_zorder() for c in points if c not in front)


@pytest.mark.parametrize("key", ["ladder", "hopper-ladder", "bars-sgemm", "bars-sgemm-tf32", "gemv-bandwidth"])
def test_every_bar_carries_its_interval(m: Measured, plots: dict, key: str) -> None:
    """Every bar but the yardsticks' carries its 95% interval, where its rounds give one: a seed kernel slow enough to
    take part in 3 or 5 rounds only has none (their range covers the median with 75% or 94%), and draws no whisker."""
    fig = plots[key].figure
    few = sum(1 for r in m.all if r.timed and (c := m.vs(r, "cublas")) is not None and c.verdict is not None
              and not c.verdict.time.at_level)
    for ax in fig.axes:
        assert _whiskers(ax) >= len(_bars(ax, yardsticks=False)) - few, (key, _whiskers(ax), len(_bars(ax)))
    assert any(_bars(ax) for ax in fig.axes)
    assert "interval" in plots[key].caption


def test_every_roofline_point_with_an_interval_carries_it(plots: dict) -> None:
    fig = plots["roofline"].figure
    # every marker but cuBLAS's own (grey: the yardsticks, no interval against themselves)
    points = [c for ax in fig.axes for c in ax.collections if isinstance(c, PathCollection)
              and to_hex(c.get_edgecolor()[0]) != CUBLAS]
    assert points and sum(_whiskers(ax) for ax in fig.axes) >= len(points)


def test_each_axis_of_the_hopper_ladder_holds_one_reference_class(plots: dict) -> None:
    axes = [ax for ax in plots["hopper-ladder"].figure.axes if _bars(ax)]
    labels = [ax.get_ylabel() for ax in axes]
    assert len(axes) == 2
    cublas = {baseline_label(p) for p in PRECISION_CLASSES}
    assert all(sum(name in label for name in cublas) == 1 for label in labels), labels
    assert labels[0] != labels[1]


def test_one_triton_kernel_in_one_configuration_is_drawn_once_or_hatched_as_an_a_a_pair(m: Measured,
                                                                                       plots: dict) -> None:
    # the ladder's Triton bars, independently: a rung's best Triton launches the same compiled kernel as an earlier
    # rung's where module, configuration as it ran and class agree
    seen, repeats = set(), 0
    for rung in ladder_rungs(m):
        for best in (rung.cuda, rung.triton):
            if best is None:
                continue
            r = best.result
            c = m.counterpart(r)
            key = (c.module, tuple(sorted((k, str(v)) for k, v in m.config(r).items())), r.precision) if c else r.key
            repeats += key in seen
            seen.add(key)
    ax = next(ax for ax in plots["ladder"].figure.axes if _bars(ax))
    hatched = [b for b in _bars(ax) if b.get_hatch()]
    assert repeats > 0 and len(hatched) == repeats
    assert "A/A" in plots["ladder"].caption


def test_sizes_that_are_categories_are_never_joined_by_a_line(plots: dict) -> None:
    fig = plots["time-sgemv"].figure
    joined = [line for ax in fig.axes for line in ax.lines if line.get_linestyle() not in ("None", "", " ")
              and len(line.get_xdata()) > 1]
    assert joined == []
