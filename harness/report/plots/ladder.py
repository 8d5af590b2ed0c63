"""The ladder chart: % of cuBLAS fp32 per rung of the fp32 SIMT ladder, the best CUDA and best Triton side by side."""

from __future__ import annotations

import re
import textwrap

from matplotlib.patches import Patch

from harness.analysis.measured import Measured
from harness.analysis.steps import ladder_rungs
from harness.report import anchors
from harness.report.plots.common import CUBLAS, CUDA, TRITON, Plot, cuda_triton_bars, figure, missing, png, sizes, style


def short(title: str) -> str:
    """A rung's label under its bars: the idea's title without its trailing parenthesis, wrapped to the bar pair."""
    return textwrap.fill(re.sub(r"\s*\([^)]*\)$", "", title), 11)


def ladder_chart(m: Measured) -> Plot:
    key, title = anchors.LADDER, "The SIMT ladder: % of cuBLAS fp32 per rung"
    rungs = ladder_rungs(m)
    problem = m.headline("sgemm")
    if len(rungs) < 2 or problem is None:
        why = "one rung only (the headline table has its figures)" if rungs else "no fp32 SIMT sgemm kernel was timed"
        return missing(key, title, f"No ladder chart: {why}.")
    with sizes():
        fig = figure(10.7, 3.5)
        ax = fig.add_subplot()
        top = cuda_triton_bars(ax, [(r.cuda.pct if r.cuda else None, r.triton.pct if r.triton else None)
                                    for r in rungs])
        ax.axhline(100.0, color=CUBLAS, linestyle="--", linewidth=1.2)
        ax.set_xticks(range(len(rungs)))
        # The rung's number on a line of its own, as the steps table under the chart numbers its rows
        ax.set_xticklabels([f"{r.number}.\n{short(r.idea.title)}" for r in rungs], fontsize=8)
        ax.set_xlim(-0.6, len(rungs) - 0.4)
        ax.set_ylim(0, top)
        ax.set_ylabel(f"% of cuBLAS fp32, {problem.shape_label}")
        style(ax, grid="y")
        handles = [Patch(color=CUDA, label="best CUDA kernel of the rung"),
                   Patch(color=TRITON, label="best Triton counterpart of the rung"),
                   Patch(facecolor="none", edgecolor=CUBLAS, linestyle="--", label="cuBLAS fp32 = 100%")]
        fig.legend(handles=handles, loc="outside upper center", ncol=3, frameon=False)
        data = png(fig)
    missing_tri = [r.idea.title for r in rungs if r.triton is None]
    caption = (f"Each rung of the fp32 SIMT ladder in registry order, numbered as in the table below (each adds one "
               f"idea to the one before), on {problem.label} on {m.header.device}: the fastest CUDA kernel of the rung "
               f"(blue) and its fastest Triton counterpart (orange), as % of cuBLAS fp32 timed by the same timer; the "
               f"dashed line is cuBLAS."
               + (f" No Triton bar where none was timed: {', '.join(missing_tri)}." if missing_tri else ""))
    return Plot(key, title, caption, data, figure=fig)
