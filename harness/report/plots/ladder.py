"""The ladder chart: % of cuBLAS fp32 per rung of the fp32 SIMT ladder, the best CUDA and best Triton side by side."""

from __future__ import annotations

import re
import textwrap

from matplotlib.patches import Patch

from harness.report import anchors
from harness.report.measured import Measured
from harness.report.parts import ladder
from harness.report.plots.common import CUBLAS, CUDA, TRITON, Plot, cuda_triton_bars, figure, missing, png, sizes, style


def short(title: str) -> str:
    """A rung's label under its bars: the idea's title without its trailing parenthesis, wrapped to the bar pair."""
    return textwrap.fill(re.sub(r"\s*\([^)]*\)$", "", title), 11)


def ladder_points(m: Measured) -> list[tuple[str, float | None, float | None, str, str]]:
    """(rung title, best CUDA %, best Triton %, their kernel ids) on the sgemm headline problem, in ladder order."""
    part, problem = ladder(m), m.headline("sgemm")
    if part is None or problem is None:
        return []
    out = []
    for idea, kernels in part.ideas:
        cuda = m.best(m.timed_of(list(kernels), problem, "cuda", "fp32"))
        tri = m.best(m.timed_of(list(kernels), problem, "triton", "fp32"))
        if cuda or tri:
            out.append((idea.title, cuda.pct if cuda else None, tri.pct if tri else None,
                        cuda.kernel if cuda else "", tri.kernel if tri else ""))
    return out


def ladder_chart(m: Measured) -> Plot:
    key, title = anchors.LADDER, "The SIMT ladder: % of cuBLAS fp32 per rung"
    points = ladder_points(m)
    problem = m.headline("sgemm")
    if len(points) < 2 or problem is None:
        why = "one rung only (the headline table has its figures)" if points else "no fp32 SIMT sgemm kernel was timed"
        return missing(key, title, f"No ladder chart: {why}.")
    with sizes():
        fig = figure(10.7, 3.5)
        ax = fig.add_subplot()
        top = cuda_triton_bars(ax, [(p[1], p[2]) for p in points])
        ax.axhline(100.0, color=CUBLAS, linestyle="--", linewidth=1.2)
        ax.set_xticks(range(len(points)))
        ax.set_xticklabels([short(p[0]) for p in points], fontsize=9)
        ax.set_xlim(-0.6, len(points) - 0.4)
        ax.set_ylim(0, top)
        ax.set_ylabel(f"% of cuBLAS fp32, {problem.shape_label}")
        style(ax, grid="y")
        handles = [Patch(color=CUDA, label="best CUDA kernel of the rung"),
                   Patch(color=TRITON, label="best Triton counterpart of the rung"),
                   Patch(facecolor="none", edgecolor=CUBLAS, linestyle="--", label="cuBLAS fp32 = 100%")]
        fig.legend(handles=handles, loc="outside upper center", ncol=3, frameon=False)
        data = png(fig)
    missing_tri = [p[0] for p in points if p[2] is None]
    caption = (f"Each rung of the fp32 SIMT ladder in registry order (each adds one idea to the one before), on "
               f"{problem.label} on {m.header.device}: the fastest CUDA kernel of the rung (blue) and its fastest "
               f"Triton counterpart (orange), as % of cuBLAS fp32 timed by the same timer; the dashed line is cuBLAS."
               + (f" No Triton bar where none was timed: {', '.join(missing_tri)}." if missing_tri else ""))
    return Plot(key, title, caption, data, figure=fig)
