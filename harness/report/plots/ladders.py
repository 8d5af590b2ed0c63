"""The two ladder charts, % of cuBLAS per rung with the best CUDA and best Triton side by side: the fp32 SIMT ladder
(against cuBLAS fp32), and Hopper's tensor-core ladder, TF32 and 3xTF32 each against its class's cuBLAS (the rungs
are harness/analysis/steps.py's: for Hopper chains(), the mma.sync rung, then each wgmma rung of that precision)."""

from __future__ import annotations

import re
import textwrap

from matplotlib.patches import Patch

from harness.analysis.measured import Measured
from harness.analysis.steps import hopper_points, ladder_rungs
from harness.registry import PRECISION_CLASSES
from harness.report import anchors
from harness.report.plots.common import CUBLAS, CUDA, TRITON, Plot, cuda_triton_bars, figure, missing, png, sizes, style
from harness.report.wording import baseline_label


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


def hopper_chart(m: Measured) -> Plot:
    key, title = anchors.HOPPER_LADDER, "Hopper's tensor-core ladder: % of the class's cuBLAS per rung"
    points = hopper_points(m)
    problem = m.headline("sgemm")
    if problem is None or not any(name.startswith("wgmma") for name, *_ in points):
        return missing(key, title, "No Hopper ladder chart: no wgmma rung was timed.")
    with sizes():
        fig = figure(10.7, 3.6)
        ax = fig.add_subplot()
        top = cuda_triton_bars(ax, [(p[2], p[3]) for p in points])
        # the two chains measure against different baselines: a gap and a divider between them
        split = next((i for i, p in enumerate(points) if p[1] != points[0][1]), None)
        if split is not None:
            ax.axvline(split - 0.5, color="#999999", linewidth=0.8)
        ax.axhline(100.0, color=CUBLAS, linestyle="--", linewidth=1.2)
        ax.set_xticks(range(len(points)))
        ax.set_xticklabels([f"{name.replace('_', ' ')}\n{PRECISION_CLASSES[prec].text}"
                            for name, prec, _, _ in points], fontsize=9)
        ax.set_xlim(-0.6, len(points) - 0.4)
        ax.set_ylim(0, top)
        ax.set_ylabel(f"% of the class's cuBLAS, {problem.shape_label}")
        style(ax, grid="y")
        handles = [Patch(color=CUDA, label="CUDA rung"), Patch(color=TRITON, label="its Triton counterpart"),
                   Patch(facecolor="none", edgecolor=CUBLAS, linestyle="--", label="the class's cuBLAS = 100%")]
        fig.legend(handles=handles, loc="outside upper center", ncol=3, frameon=False)
        data = png(fig)
    caption = (f"Each tensor-core rung on {problem.label} on {m.header.device}, as % of the cuBLAS of its class "
               f"({baseline_label('tf32')} for TF32, {baseline_label('3xtf32')} for fp32-accurate 3xTF32), timed by "
               f"the same timer: the mma.sync rung each chain starts from (tc_gemm, B K-major, its fastest tile), then "
               f"each wgmma rung in registry order; blue the CUDA kernel, orange its Triton counterpart (for the "
               f"mma.sync rung, the fastest of its forms). The dashed line is cuBLAS.")
    return Plot(key, title, caption, data, figure=fig)
