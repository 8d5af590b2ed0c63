"""What every plot shares: the Plot record, sizes that stay legible at the page's width, colours, PNG output.

Every plot is drawn on its own matplotlib Figure (never pyplot), so nothing here touches global
backend state and rendering a report inside a test or a run cannot open a window. Figures are drawn
at DPI pixels per inch and shown at their natural size, at most MAX_WIDTH pixels wide (the page's
content width at a 1400-pixel window), with no text under 9 points: at least 12 pixels on screen.
"""

from __future__ import annotations

import io
import struct
from contextlib import AbstractContextManager
from dataclasses import dataclass

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from harness.identity import ImplId
from harness.report import doc

DPI = 100
MAX_WIDTH = 1300            # pixels: the page shows images at natural size up to this width
WIDTH_IN = 12.6             # inches: 1260 pixels, plus the saved padding

CUDA = "#2f5d9e"
TRITON = "#d9711c"
GLUON = "#2e8b57"           # the third model: Triton's layout-level language with the CUDA kernel's decisions
CUBLAS = "#6b6b6b"
PUBLISHED = "#111111"

_RC = {"font.size": 10.5, "axes.titlesize": 11.5, "axes.labelsize": 10.5, "xtick.labelsize": 10,
       "ytick.labelsize": 10, "legend.fontsize": 10, "legend.title_fontsize": 10.5, "figure.titlesize": 12,
       "svg.fonttype": "none"}


@dataclass
class Plot:
    key: str                    # anchor part and file-name part: <stem>-<key>.png
    title: str
    caption: str                # says what is drawn, and nothing is drawn that it does not say
    png: bytes | None           # None: no data for this plot in these results
    missing: str = ""           # why there is no image, in one sentence
    figure: Figure | None = None

    @property
    def size(self) -> tuple[int, int]:
        """Natural width and height in pixels, read from the PNG header."""
        return struct.unpack(">II", self.png[16:24]) if self.png else (0, 0)

    def block(self) -> doc.Figure:
        """The plot as the page shows it, at its natural size."""
        return doc.Figure(self.key, self.title, self.caption, self.png, self.missing, *self.size)


def missing(key: str, title: str, why: str) -> Plot:
    return Plot(key, title, "", None, why)


def sizes() -> AbstractContextManager:
    """Font sizes for every figure drawn inside: legible at DPI, set for this block only."""
    return matplotlib.rc_context(_RC)


def png(fig: Figure) -> bytes:
    """The figure as PNG bytes; drawn inside sizes(), like the figure itself."""
    buf = io.BytesIO()
    # No timestamp in the PNG metadata: the same results render to the same bytes.
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight", pad_inches=0.12, metadata={"Software": None})
    return buf.getvalue()


def figure(width_in: float, height_in: float) -> Figure:
    """A figure whose labels and legends are laid out inside its size (constrained layout), so its PNG is
    as wide as asked: WIDTH_IN at most keeps it under MAX_WIDTH pixels."""
    return Figure(figsize=(min(width_in, WIDTH_IN), height_in), layout="constrained")


@dataclass(frozen=True)
class Bar:
    """A bar's value with its 95% interval (None: a file of single bursts), and whether it repeats a launch already
    drawn (the same Triton kernel in the same configuration, timed again as another kernel's row: an A/A pair)."""

    value: float
    lo: float | None = None
    hi: float | None = None
    repeat: bool = False

    @property
    def top(self) -> float:
        return max(self.value, self.hi or 0.0)


def bar(ax, x: float, b: Bar, colour: str, width: float, horizontal: bool = False) -> None:
    """One bar with its interval as an error bar; a repeat is drawn hatched and hollow."""
    style_ = {"facecolor": "white", "edgecolor": colour, "hatch": "////", "linewidth": 1.0} if b.repeat \
        else {"color": colour}
    if horizontal:
        ax.barh(x, b.value, height=width, **style_)
    else:
        ax.bar(x, b.value, width=width, **style_)
    if b.lo is not None and b.hi is not None:
        err = [[max(b.value - b.lo, 0.0)], [max(b.hi - b.value, 0.0)]]
        ax.errorbar(*((b.value, x) if horizontal else (x, b.value)), **({"xerr": err} if horizontal else {"yerr": err}),
                    fmt="none", ecolor="#222222", elinewidth=1.0, capsize=2.5, zorder=4)


REPEAT_KEY = "Hatched: the same Triton kernel in the same configuration as a bar before it, timed again (an A/A pair)"


def repeat_patch(colour: str = TRITON, label: str = "same launch as a bar before (A/A)") -> Patch:
    return Patch(facecolor="white", edgecolor=colour, hatch="////", label=label)


def model_bars(ax, groups: list[tuple[Bar | None, ...]], colours: tuple[str, ...] = (CUDA, TRITON)) -> float:
    """A bar per model (in `colours`' order: CUDA, Triton, and Gluon where given) at each x position, each with its
    interval and labelled with its value above it (a None draws nothing); returns the y limit that leaves room for the
    labels."""
    top = max([100.0, *(b.top for group in groups for b in group if b is not None)]) * 1.12
    width = 0.76 / len(colours)
    for x, group in enumerate(groups):
        for i, (b, colour) in enumerate(zip(group, colours, strict=True)):
            if b is None:
                continue
            dx = (i - (len(colours) - 1) / 2) * width
            bar(ax, x + dx, b, colour, width)
            value_label(ax, x + dx, b.top + top * 0.01, f"{b.value:.0f}", ha="center", va="bottom", fontsize=9)
    return top


VALUE = "value"   # the gid of a bar's value label, which off_lines moves off a reference line


def value_label(ax, x: float, y: float, text: str, **style: object) -> None:
    ax.text(x, y, text, color="#333333", gid=VALUE, **style)


def off_lines(fig: Figure, pad: float = 3.0) -> None:
    """Move each value label a dashed or dotted reference line runs through (a bar just short of 100%) off it, `pad`
    pixels clear: short of the line where it fits between it and the bar's end, else past it, else (a vertical bar
    whose label past the line meets another) inside the bar under its end. A label on the line is struck through, and
    one on a ground of its own hides the line it is read against."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    r = canvas.get_renderer()
    for ax in fig.axes:
        back = ax.transData.inverted()
        for line in [ln for ln in ax.lines if ln.get_linestyle() in ("--", ":", "-.") and len(ln.get_xdata()) == 2]:
            xs, ys = line.get_xdata(), line.get_ydata()
            (x0, y0), (x1, y1) = line.get_transform().transform([(xs[0], ys[0]), (xs[1], ys[1])])
            across = ys[0] == ys[1]   # a horizontal line: the label moves along y
            for t in [t for t in ax.texts if t.get_gid() == VALUE]:
                b = text_box(t, r)
                lo, hi, at, size = (b.y0, b.y1, y0, b.height) if across else (b.x0, b.x1, x0, b.width)
                if not (lo < at < hi and b.overlaps(Bbox.from_extents(min(x0, x1), min(y0, y1), max(x0, x1) + 1,
                                                                      max(y0, y1) + 1))):
                    continue
                short = at - pad - size >= lo
                edge = at - pad if short else at + pad
                if across:
                    t.set_y(back.transform((b.x0, edge))[1])
                    t.set_va("top" if short else "bottom")
                    if not short and any(text_box(t, r).overlaps(text_box(o, r)) for o in ax.texts if o is not t):
                        t.set_y(back.transform((b.x0, lo - pad))[1])   # inside the bar, under its end
                        t.set_va("top")
                        t.set_color("white") if _solid(ax, t.get_position()[0]) else t.set_bbox(
                            {"facecolor": "white", "edgecolor": "none", "pad": 0.5})
                else:
                    t.set_x(back.transform((edge, b.y0))[0])
                    t.set_ha("right" if short else "left")


def _solid(ax, x: float) -> bool:
    """Whether the bar at x is drawn solid (not hatched as a repeat)."""
    return any(p.get_x() <= x <= p.get_x() + p.get_width() and not p.get_hatch() for p in ax.patches)


def nest_hidden(fig: Figure, share: float = 0.4) -> None:
    """Keep every scatter point in sight: where a filled point drawn over another covers more than `share` of it, the
    one over it is drawn hollow if it is the larger (a baseline's marker over a kernel's), else at a third of its
    area, again if need be (implementations at the same speed and error), so the one under shows around it."""
    FigureCanvasAgg(fig).draw()
    for ax in fig.axes:
        points = sorted((c for c in ax.collections if isinstance(c, PathCollection) and len(c.get_offsets()) == 1),
                        key=lambda c: (c.get_zorder(), ax.collections.index(c)))
        for j, over in enumerate(points):
            for _ in range(3):
                b = _marker_box(fig, over)
                under = next((_marker_box(fig, u) for u in points[:j] if _covers(b, _marker_box(fig, u), share)), None)
                faces = over.get_facecolors()
                if under is None or not len(faces) or not faces[0][3]:   # nothing under it, or already hollow
                    break
                if b.width > under.width + 0.5:
                    over.set_facecolor("none")
                else:
                    over.set_sizes(over.get_sizes() / 3)


def _covers(over: Bbox, under: Bbox, share: float) -> bool:
    w, h = min(under.x1, over.x1) - max(under.x0, over.x0), min(under.y1, over.y1) - max(under.y0, over.y0)
    return w > 0 and h > 0 and w * h > share * under.width * under.height


def _marker_box(fig: Figure, c: PathCollection) -> Bbox:
    x, y = c.get_offset_transform().transform(c.get_offsets())[0]
    r = (c.get_sizes()[0] ** 0.5) / 2 * fig.dpi / 72
    return Bbox.from_extents(x - r, y - r, x + r, y + r)


def style(ax, grid: str = "x") -> None:
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(True, axis=grid, color="#e3e3e3", linewidth=0.8)
    ax.set_axisbelow(True)


def drawn_texts(fig: Figure) -> list[Text]:
    """Every text a reader sees in a drawn figure: visible, not empty, and for a tick label, one whose tick lies inside
    its axis's view (matplotlib keeps labels of ticks outside the limits, and draws none of them)."""
    hidden: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                if not lo - 1e-9 * abs(hi - lo) <= tick.get_loc() <= hi + 1e-9 * abs(hi - lo):
                    hidden |= {id(tick.label1), id(tick.label2)}
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and id(t) not in hidden]


def text_box(t: Text, renderer) -> Bbox:
    """The box of a text's letters (an annotation's without its leader line)."""
    return Text.get_window_extent(t, renderer)


def unclutter(fig: Figure, labels: list, markers: list | None = None, step: float = 3.0, tries: int = 80) -> None:
    """Move annotations placed in offset points (`labels`, in order of priority) up or down, a few points at a time,
    until none overlaps another text of the figure or a marker (`markers`: (axes, x, y) in data coordinates): the
    first keeps its place, each later one the nearest free one."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    mine = {id(a) for a in labels}
    fixed = [text_box(t, renderer) for t in drawn_texts(fig) if id(t) not in mine]
    radius = 7.0 * DPI / 72
    for ax, x, y in markers or []:
        px, py = ax.transData.transform((x, y))
        fixed.append(Bbox.from_extents(px - radius, py - radius, px + radius, py + radius))
    placed: list = []
    for a in labels:
        dx, dy = a.xyann
        for k in range(tries):
            shift = step * ((k + 1) // 2) * (1 if k % 2 else -1)
            a.xyann = (dx, dy + shift)
            box = text_box(a, renderer)
            if not any(box.overlaps(b) for b in [*fixed, *placed]):
                break
        placed.append(text_box(a, renderer))


def min_text_pt(fig: Figure) -> float:
    """The smallest font size of any visible text in a figure (what a reader has to read)."""
    found = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(found) if found else 0.0


def figure_legend(fig: Figure, handles: list, loc: str = "outside upper center") -> None:
    """A legend outside the axes, in as few rows as fit the figure's width, entries spread evenly over the rows.
    Constrained layout makes room for it above or below the axes but cannot narrow it, and the tight bounding box
    of the saved PNG grows to hold it: one row of many entries (a run with Gluon rows adds one) would widen the
    image past MAX_WIDTH whatever the figure's width, so it is measured and wrapped instead."""
    renderer = FigureCanvasAgg(fig).get_renderer()
    n, one_row = len(handles), None
    for rows in range(1, n + 1):
        ncol = -(-n // rows)
        legend = fig.legend(handles=handles, loc=loc, ncol=ncol, frameon=False)
        box = legend.get_window_extent(renderer)
        one_row = one_row or box.height
        if ncol == 1 or box.width <= fig.bbox.width:
            break
        legend.remove()
    # the figure grows by the legend's added rows, so the axes keep the height they were given
    width, height = fig.get_size_inches()
    fig.set_size_inches(width, height + (box.height - one_row) / fig.dpi)


def marker_key(marker: str, colour: str, label: str, **style: object) -> Line2D:
    """A legend entry: the marker alone, no line."""
    return Line2D([], [], marker=marker, linestyle="", color=colour, label=label, **style)


def model_colour(impl: ImplId) -> str:
    """CUDA blue, Gluon green, Triton orange (counterparts and the Triton baseline), cuBLAS grey."""
    return CUDA if impl.is_cuda else GLUON if impl.is_gluon else TRITON if impl.runs_triton else CUBLAS
