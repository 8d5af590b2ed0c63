"""The roofline: one panel per part of the page (the SIMT ladder, tensor cores, GEMV), every idea of the part
numbered on its points, CUDA and Triton in their two colours."""

from __future__ import annotations

import math

from matplotlib.ticker import NullFormatter

from harness.analysis import anchors
from harness.analysis.measured import Measured
from harness.analysis.overview import best_points, parts
from harness.identity import CUBLAS_FP32
from harness.records.lines import Result
from harness.report.plots.common import CUBLAS, CUDA, TRITON, Plot, figure, marker_key, missing, png, sizes, style
from harness.specs import spec

MARKER = {"cuda": "o", "triton": "^"}
COLOUR = {"cuda": CUDA, "triton": TRITON}
# GEMV kernels all share one intensity: CUDA and Triton points are drawn this factor apart so both show.
DODGE = {"cuda": 0.93, "triton": 1.07}


def spread(ys: list[float], gap: float) -> list[float]:
    """Label heights for sorted heights `ys`, at least `gap` apart: each run of colliding labels is centred on the
    mean of its points, so an isolated label stays level with its point."""
    def start(c: list[float]) -> float:
        return sum(c) / len(c) - (len(c) - 1) * gap / 2

    clusters, i = [[y] for y in ys], 0
    while i < len(clusters) - 1:
        lo, hi = clusters[i], clusters[i + 1]
        if start(hi) - (sum(lo) / len(lo) + (len(lo) - 1) * gap / 2) < gap:
            # merged runs are centred anew: the run below may now collide with it, those further down cannot
            clusters[i:i + 2], i = [lo + hi], max(i - 1, 0)
        else:
            i += 1
    return [start(c) + k * gap for c in clusters for k in range(len(c))]


def _labels(ax, points: list[tuple[int, str, Result]], dodge: bool, span: float) -> None:
    """Each point's idea number, CUDA's to the right and Triton's to the left, spread apart vertically where points
    crowd (the ladder's rungs sit within a factor of three of intensity), with a leader line to the point."""
    gap = 0.04 * span
    for model, factor in (("cuda", 1.9), ("triton", 1 / 1.9)):
        mine = sorted(((math.log10(r.figures.tflops), n, r) for n, mo, r in points if mo == model and r.figures),
                      key=lambda e: e[0])
        placed = spread([y for y, _, _ in mine], gap)
        for (_, n, r), ly in zip(mine, placed, strict=True):
            assert r.figures is not None
            x = r.figures.intensity * (DODGE[model] if dodge else 1.0)
            ax.annotate(str(n), (x, r.figures.tflops), xytext=(x * factor, 10 ** ly), textcoords="data",
                        ha="left" if model == "cuda" else "right", va="center", fontsize=9.5, color=COLOUR[model],
                        fontweight="bold", zorder=5,
                        arrowprops={"arrowstyle": "-", "color": COLOUR[model], "linewidth": 0.6, "alpha": 0.7})


def roofline(m: Measured) -> Plot:
    key, title = anchors.ROOFLINE, "Roofline: the best CUDA and Triton kernel of each idea, one panel per part"
    peaks = m.header.peaks
    if not any(m.headline(op) for op in m.ops):
        why = "this was a CPU run: nothing was timed" if m.header.mode == "cpu" else "nothing was timed"
        return missing(key, title, f"No roofline: {why}.")
    if peaks is None:
        return missing(key, title, "No roofline: the run header holds no measured peaks.")
    panels = [(p, pts) for p in parts(m) if (pts := best_points(m, p))]
    if not panels:
        return missing(key, title, "No roofline: no kernel with a traffic model was timed.")
    sheet = spec(m.header.device)
    ridge = peaks.fp32_tflops * 1e3 / peaks.copy_gbps
    with sizes():
        fig = figure(12.6, 5.6)
        ratios = [2.2 if p.is_ladder else 1 for p, _ in panels]
        axes = fig.subplots(1, len(panels), squeeze=False, width_ratios=ratios)[0]
        for ax, (part, points) in zip(axes, panels, strict=True):
            problem = m.headline(part.op)
            assert problem is not None
            # cuBLAS only: the legend's grey square and cross (the Triton baseline has no idea to be numbered under)
            bases = [r for r in m.on(problem) if r.vendor and r.timed and r.figures and r.figures.intensity]
            drawn = [r.figures for r in [*(r for _, _, r in points), *bases] if r.figures]
            xs = [f.intensity for f in drawn]
            # GEMV's points sit far left of the ridge: its panel spans the points only
            span = xs if part.op == "sgemv" else [*xs, ridge]
            lo, hi = min(span) / 2.5, max(span) * 2.5
            ax.set(xscale="log", yscale="log")
            knee = min(ridge, hi)
            ax.plot([lo, knee], [peaks.copy_gbps * lo / 1e3, peaks.copy_gbps * knee / 1e3], color="#999999",
                    linewidth=1.6)
            if hi > ridge:
                ax.plot([ridge, hi], [peaks.fp32_tflops] * 2, color="#999999", linewidth=1.6)
            if not part.simt and sheet is not None:
                ax.axhline(sheet.tf32_tflops, color="#999999", linestyle=":", linewidth=1.4)
                ax.text(hi, sheet.tf32_tflops, f"TF32 spec {sheet.tf32_tflops:g}", ha="right", va="bottom",
                        fontsize=9.5, color="#666666")
            for _, model, r in points:
                assert r.figures is not None
                x = r.figures.intensity * (DODGE[model] if part.op == "sgemv" else 1.0)
                face = COLOUR[model] if r.precision != "tf32" else "white"
                ax.scatter([x], [r.figures.tflops], s=110, marker=MARKER[model], color=face,
                           edgecolors=COLOUR[model], linewidths=1.6, zorder=4)
            ys = [f.tflops for f in drawn]
            bottom, top = min(ys) / 3, max([*ys, peaks.fp32_tflops]) * 3
            ax.set_ylim(bottom, top)
            _labels(ax, points, part.op == "sgemv", math.log10(top / bottom))
            for r in bases:
                assert r.figures is not None
                ax.scatter([r.figures.intensity], [r.figures.tflops], s=110,
                           marker="s" if r.impl_id == CUBLAS_FP32 else "X", color=CUBLAS, zorder=3)
            ax.set(xlim=(lo, hi), xlabel="FLOP per byte of the traffic model")
            ax.set_title(f"{part.title}\n{problem.label}", loc="left")
            ax.xaxis.set_minor_formatter(NullFormatter())
            style(ax, grid="both")
        axes[0].set_ylabel("TFLOP/s")
        handles = [marker_key("o", CUDA, "best CUDA kernel", markersize=9),
                   marker_key("^", TRITON, "best Triton counterpart", markersize=9),
                   marker_key("o", "#444444", "open: TF32 inputs", markerfacecolor="white", markersize=9),
                   marker_key("s", CUBLAS, "cuBLAS fp32", markersize=9),
                   marker_key("X", CUBLAS, "cuBLAS TF32", markersize=9)]
        fig.legend(handles=handles, loc="outside lower center", frameon=False, ncol=len(handles))
        data = png(fig)
    numbering = "; ".join(f"{part.title}: " + ", ".join(f"{n} {idea.title}" for n, (idea, _) in
                                                          enumerate(part.ideas, 1)) for part, _ in panels)
    caption = (f"One panel per part of the page, each on its op's headline problem on {m.header.device}. The roofs "
               f"are this run's measured FP32 FMA throughput ({peaks.fp32_tflops:.1f} TFLOP/s) and copy bandwidth "
               f"({peaks.copy_gbps:.0f} GB/s)"
               + (f"; the dotted line is the spec sheet's dense TF32 ({sheet.source})" if sheet is not None and
                  any(not p.simt for p, _ in panels) else "")
               + ". Each idea's number sits beside its fastest CUDA kernel (blue circle) and fastest Triton "
               "counterpart (orange triangle), per precision class (open: TF32 inputs); grey square and cross: cuBLAS "
               "fp32 and TF32. Intensity is FLOPs over the bytes each kernel's tiling must move (A re-read once per "
               "column of blocks, B once per row); a point above the slanted roof got reuse from the caches that "
               "model does not count. Numbers: " + numbering + ".")
    return Plot(key, title, caption, data, figure=fig)
