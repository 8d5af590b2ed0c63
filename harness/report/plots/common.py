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
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text

from harness.identity import ImplId

DPI = 100
MAX_WIDTH = 1300            # pixels: the page shows images at natural size up to this width
WIDTH_IN = 12.6             # inches: 1260 pixels, plus the saved padding

CUDA = "#2f5d9e"
TRITON = "#d9711c"
CUBLAS = "#6b6b6b"
PUBLISHED = "#111111"
# Distinguishable, print-friendly; one per idea (roofline) or per line (sweeps). As many as the registry has ideas
# (a test holds it to that), so no two ideas share a colour on the roofline.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#aec7e8", "#ffbb78", "#98df8a",
           "#ff9896", "#c5b0d5", "#c49c94", "#9edae5")

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


def cuda_triton_bars(ax, pairs: list[tuple[float | None, float | None]], width: float = 0.38) -> float:
    """A CUDA bar and a Triton bar per x position, each labelled with its value (a None draws nothing); returns the
    y limit that leaves room for the labels."""
    top = max([100.0, *(v for pair in pairs for v in pair if v is not None)]) * 1.12
    for x, pair in enumerate(pairs):
        for value, dx, colour in zip(pair, (-width / 2, width / 2), (CUDA, TRITON), strict=True):
            if value is None:
                continue
            ax.bar(x + dx, value, width=width, color=colour)
            ax.text(x + dx, value + top * 0.01, f"{value:.0f}", ha="center", va="bottom", fontsize=9, color="#333333")
    return top


def style(ax, grid: str = "x") -> None:
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(True, axis=grid, color="#e3e3e3", linewidth=0.8)
    ax.set_axisbelow(True)


def min_text_pt(fig: Figure) -> float:
    """The smallest font size of any visible text in a figure (what a reader has to read)."""
    found = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(found) if found else 0.0


def legend_columns(labels: list[str]) -> int:
    """How many legend columns fit across the figure for these labels (about 150 characters of 10-point text
    span the figure's width), so a legend below the axes never widens the image."""
    return max(1, min(4, 150 // (max((len(label) for label in labels), default=1) + 6)))


def marker_key(marker: str, colour: str, label: str, **style: object) -> Line2D:
    """A legend entry: the marker alone, no line."""
    return Line2D([], [], marker=marker, linestyle="", color=colour, label=label, **style)


def model_colour(impl: ImplId) -> str:
    """CUDA blue, Triton orange (counterparts and the Triton baseline), cuBLAS grey."""
    return CUDA if impl.is_cuda else TRITON if impl.runs_triton else CUBLAS
