"""The bar charts, % of a reference per implementation: sgemm % of cuBLAS grouped by idea and sgemv % of copy bandwidth
per shape (horizontal bars), and the two ladder charts, % of cuBLAS per rung with the best CUDA and best Triton side
by side: the fp32 SIMT ladder (against cuBLAS fp32), and Hopper's tensor-core ladder, TF32 and 3xTF32 each against
its class's cuBLAS (the rungs are harness/analysis/steps.py's: for Hopper chains(), the mma.sync rung, then each
wgmma rung of that precision)."""

from __future__ import annotations

import re
import textwrap

from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from harness.analysis import anchors, fmt
from harness.analysis.claims import published_pct
from harness.analysis.measured import Measured
from harness.analysis.steps import hopper_points, ladder_rungs
from harness.analysis.wording import PRECISION_TEXT, baseline_label
from harness.baselines import cublas_of
from harness.catalog_types.kernel import PRECISION_CLASSES, PRECISIONS, precision_caveat
from harness.identity import ImplId
from harness.records.lines import Result
from harness.report.plots.common import (
    CUBLAS,
    CUDA,
    PUBLISHED,
    TRITON,
    Plot,
    cuda_triton_bars,
    figure,
    missing,
    model_colour,
    png,
    sizes,
    style,
)

ROW_IN = 0.19           # inches per bar row: the longest chart (130 rows) stays under two screens

# Characters per line of an idea title heading a group of bars.
TITLE_CHARS = 60


def _label(r: Result) -> str:
    text = f"{r.kernel} · {r.label}" if r.kernel else r.label
    # fp32 and 3xTF32 share a chart (both against cuBLAS fp32): the precision is named where it is not fp32; where
    # the implementation's name already says it (Triton's bf16 splits), a class that is not fp32-accurate is marked,
    # and the caption says the mark (the caveat in full would widen the chart past the page)
    if r.precision == "fp32":
        return text
    if r.precision in r.label:
        return f"{text} {CAVEAT_MARK}" if precision_caveat(r.precision) else text
    return f"{text} ({PRECISION_TEXT.get(r.precision, r.precision)})"


CAVEAT_MARK = "†"


def sgemm_bars(m: Measured, baseline: str = "cublas") -> Plot:
    """Each sgemm implementation's % of cuBLAS, grouped by idea; `baseline` picks the precision classes."""
    classes = {p for p in PRECISIONS if cublas_of(p) == baseline}
    key = anchors.BARS.format(op="sgemm") + ("" if baseline == "cublas" else "-tf32")
    vs = baseline_label(next(iter(sorted(classes))))
    title = f"sgemm: % of {vs} per kernel, grouped by idea"
    problem = m.headline("sgemm")
    if problem is None:
        why = "this was a CPU run: nothing was timed" if m.header.mode == "cpu" else "no sgemm was timed"
        return missing(key, title, f"No sgemm bar chart: {why}.")
    rows: list[tuple[str, Result | None]] = []
    for idea, kernels in m.ideas:
        ids = {k.id for k in kernels}
        recs = [r for r in m.on(problem) if r.kernel in ids and r.precision in classes and m.pct(r) is not None]
        if recs:
            # an idea's title heads its group; a long one (the Hopper ladder's) wraps rather than widening the PNG,
            # and takes a row of its own per line
            heading = textwrap.wrap(idea.title, TITLE_CHARS)
            rows += [(line, None) for line in heading]
            rows += [(_label(r), r) for r in recs]
    if not rows:
        return missing(key, title, f"No sgemm bar chart against {vs}: no kernel of that precision class was timed "
                                   f"beside it on {problem.label}.")
    with sizes():
        fig = figure(12.6, 1.4 + ROW_IN * len(rows))
        ax = fig.add_subplot()
        values = [m.pct(r) or 0.0 for _, r in rows if r is not None]
        pubs = [p for _, r in rows if r is not None and r.impl_id.is_cuda
                and (p := published_pct(m.catalog.by_id[r.kernel or ""], m.catalog)) is not None]
        top = max([100.0, *values, *pubs]) * 1.13
        for y, (_, r) in enumerate(rows):
            if r is None:
                continue
            value = m.pct(r) or 0.0
            ax.barh(y, value, height=0.72, color=model_colour(r.impl_id))
            pub = published_pct(m.catalog.by_id[r.kernel or ""], m.catalog) if r.impl_id.is_cuda else None
            if pub is not None:
                ax.plot([pub], [y], marker="D", markersize=7, color=PUBLISHED, linestyle="", zorder=5)
            # The figure goes after the bar and the diamond, so neither hides it.
            end = max(value, pub + top * 0.008 if pub is not None else 0.0)
            ax.text(end + top * 0.006, y, f"{value:.1f}%", va="center", ha="left", fontsize=9.5, color="#333333")
        ax.axvline(100.0, color=CUBLAS, linestyle="--", linewidth=1.2)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([label for label, _ in rows])
        for tick, (_, r) in zip(ax.get_yticklabels(), rows, strict=True):
            if r is None:
                tick.set_fontweight("bold")
        ax.set_ylim(len(rows) - 0.4, -0.6)
        ax.set_xlim(0, top)
        ax.set_xlabel(f"% of {vs} on {problem.label} (same timer; higher is faster)")
        style(ax)
        models = {r.model for _, r in rows if r is not None}
        handles = [Patch(color=c, label=name) for model, c, name in (("cuda", CUDA, "CUDA kernel"),
                                                                     ("triton", TRITON, "Triton counterpart"))
                   if model in models]
        handles.append(Line2D([], [], color=CUBLAS, linestyle="--", label=f"{vs} = 100%"))
        if pubs:
            handles.append(Line2D([], [], marker="D", color=PUBLISHED, linestyle="",
                                  label="the document's own % of cuBLAS, on its GPU"))
        fig.legend(handles=handles, loc="outside upper center", ncol=len(handles), frameon=False)
        data = png(fig)
    caption = (f"{problem.label} on {m.header.device}: one bar per implementation, "
               + fmt.joined([w for model, w in (("cuda", "blue for the CUDA kernel"),
                                                ("triton", "orange for each Triton counterpart"))
                             if model in models])
               + " (named after the kernel id), grouped under each idea's title, the "
               f"number beside each bar its % of {vs}; the dashed line is {vs}."
               + (" Diamonds: the % of cuBLAS the kernel's document published on its own GPU, a shape to compare "
                  "rather than a target." if pubs else " No kernel drawn here has a published % of cuBLAS."))
    marked = dict.fromkeys(f"{PRECISION_CLASSES[r.precision].text} is {precision_caveat(r.precision)}"
                           for _, r in rows if r is not None and _label(r).endswith(CAVEAT_MARK))
    if marked:
        caption += f" {CAVEAT_MARK}: " + "; ".join(marked) + "."
    return Plot(key, title, caption, data, figure=fig)


def gemv_bars(m: Measured) -> Plot:
    """% of the measured copy bandwidth per implementation, one panel per sgemv shape."""
    key, title = anchors.GEMV, "sgemv: % of the measured copy bandwidth, per shape"
    problems = [p for p in m.problems if p.op == "sgemv" and any(r.timed for r in m.on(p))]
    if not problems:
        why = "this was a CPU run: nothing was timed" if m.header.mode == "cpu" else "no sgemv was timed"
        return missing(key, title, f"No sgemv bandwidth chart: {why}.")
    if m.header.peaks is None:
        return missing(key, title, "No sgemv bandwidth chart: the run header holds no measured copy bandwidth.")
    impls: list[tuple[str | None, str]] = []
    for p in problems:
        for r in m.on(p):
            if r.timed and r.precision == "fp32" and (r.kernel, r.impl) not in impls:
                impls.append((r.kernel, r.impl))
    value: dict[tuple, float] = {}
    labels: dict[tuple, str] = {}
    models: dict[tuple, ImplId] = {}
    for p in problems:
        for r in m.on(p):
            if r.timed and r.figures is not None and r.figures.pct_peak is not None:
                value[(r.kernel, r.impl, p)] = r.figures.pct_peak
                labels[(r.kernel, r.impl)] = _label(r)
                models[(r.kernel, r.impl)] = r.impl_id
    with sizes():
        fig = figure(12.6, 1.6 + ROW_IN * len(impls))
        axes = fig.subplots(1, len(problems), sharey=True, squeeze=False)[0]
        top = max([100.0, *value.values()]) * 1.25
        for ax, p in zip(axes, problems, strict=True):
            for y, impl in enumerate(impls):
                v = value.get((*impl, p))
                if v is None:
                    continue
                ax.barh(y, v, height=0.72, color=model_colour(models[impl]))
                ax.text(v + top * 0.02, y, f"{v:.0f}", va="center", ha="left", fontsize=9.5, color="#333333")
            ax.axvline(100.0, color=CUBLAS, linestyle="--", linewidth=1.1)
            ax.set_xlim(0, top)
            ax.set_xticks([0, 50, 100])
            ax.set_title(p.shape_label, fontsize=10.5)
            style(ax)
        axes[0].set_yticks(range(len(impls)))
        axes[0].set_yticklabels([labels.get(i, str(i)) for i in impls])
        axes[0].set_ylim(len(impls) - 0.4, -0.6)
        fig.supxlabel("% of the measured device-to-device copy bandwidth (bytes of A, x and y once)", fontsize=10.5)
        handles = [Patch(color=CUBLAS, label="cuBLAS fp32"), Patch(color=CUDA, label="CUDA kernel"),
                   Patch(color=TRITON, label="Triton counterpart"),
                   Line2D([], [], color=CUBLAS, linestyle="--", label="copy bandwidth = 100%")]
        fig.legend(handles=handles, loc="outside upper center", ncol=4, frameon=False)
        data = png(fig)
    caption = (f"Each panel is one sgemv shape (M x N) on {m.header.device}; one bar per implementation (grey cuBLAS "
               f"fp32, blue CUDA, orange Triton), its number the % of the {m.header.peaks.copy_gbps:.0f} GB/s "
               f"copy bandwidth the run measured; the dashed line is that bandwidth.")
    return Plot(key, title, caption, data, figure=fig)


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
        # a rung's name over two lines (wgmma / persistent): nine names on one line each run into their neighbours
        ax.set_xticklabels([f"{name.replace('_', chr(10), 1).replace('_', ' ')}\n{PRECISION_CLASSES[prec].text}"
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
