"""The roofline: GEMM and GEMV in separate panels, one colour per idea, its best CUDA and best Triton as points."""

from __future__ import annotations

from matplotlib.lines import Line2D

from harness.report import anchors
from harness.report.measured import Measured
from harness.report.plots.common import CUBLAS, PALETTE, Plot, figure, legend_columns, missing, png, sizes, style
from harness.run.records import Result

MARKER = {"cuda": "o", "triton": "^"}
# GEMV kernels all share one intensity: CUDA and Triton points are drawn this factor apart so both show.
DODGE = {"cuda": 0.9, "triton": 1.1}


def _point(ax, r: Result, colour: str, marker: str, size: float, dodge: float = 1.0) -> None:
    assert r.figures is not None
    ax.scatter([r.figures.intensity * dodge], [r.figures.tflops], s=size, marker=marker, color=colour,
               edgecolors="white", linewidths=1.0, zorder=4)


def roofline(m: Measured) -> Plot:
    key, title = anchors.ROOFLINE, "Roofline: the best CUDA and Triton kernel of each idea"
    peaks = m.header.peaks
    problems = {op: m.headline(op) for op in m.ops}
    if not any(problems.values()):
        why = "this was a CPU run: nothing was timed" if m.header.mode == "cpu" else "nothing was timed"
        return missing(key, title, f"No roofline: {why}.")
    if peaks is None:
        return missing(key, title, "No roofline: the run header holds no measured peaks.")
    colour = {idea.key: PALETTE[i % len(PALETTE)] for i, (idea, _) in enumerate(m.ideas)}
    ops = [op for op, p in problems.items() if p is not None]
    ridge = peaks.fp32_tflops * 1e3 / peaks.copy_gbps
    shown: dict[str, str] = {}
    with sizes():
        fig = figure(12.6, 6.4)
        axes = fig.subplots(1, len(ops), squeeze=False)[0]
        for ax, op in zip(axes, ops, strict=True):
            problem = problems[op]
            assert problem is not None
            points = []
            for idea, kernels in m.ideas:
                if kernels[0].op != op:
                    continue
                for model in ("cuda", "triton"):
                    best = m.best(m.timed_of(kernels, problem, model, "fp32"))
                    if best and best.result.figures and best.result.figures.intensity:
                        points.append((best.result, colour[idea.key], MARKER[model]))
                        shown[idea.key] = idea.title
            for impl, marker in (("cublas", "s"), ("cublas-tf32", "X")):
                base = next((r for r in m.on(problem) if r.impl == impl and r.timed and r.figures), None)
                if base is not None and base.figures and base.figures.intensity:
                    points.append((base, CUBLAS, marker))
            xs = [r.figures.intensity for r, _, _ in points if r.figures]
            # GEMV intensities sit far left of the ridge: that panel shows its points, not the flat roof.
            lo, hi = (min(xs) / 3, max(xs) * 3) if op == "sgemv" else (min([*xs, ridge]) / 3, max([*xs, ridge]) * 3)
            ax.set_xscale("log")
            ax.set_yscale("log")
            knee = min(ridge, hi)
            ax.plot([lo, knee], [peaks.copy_gbps * lo / 1e3, peaks.copy_gbps * knee / 1e3], color="#999999",
                    linewidth=1.6)
            if hi > ridge:
                ax.plot([ridge, hi], [peaks.fp32_tflops, peaks.fp32_tflops], color="#999999", linewidth=1.6)
            # A point that lands on one already drawn is drawn at under half its size: a dot inside a ring.
            drawn: list[tuple[float, float, float]] = []
            for r, c, marker in points:
                assert r.figures is not None
                dodge = DODGE.get(r.model, 1.0) if op == "sgemv" else 1.0
                x, y = r.figures.intensity * dodge, r.figures.tflops
                under = [size for dx, dy, size in drawn if abs(dx / x - 1) < 0.06 and abs(dy / y - 1) < 0.06]
                size = 0.4 * min(under) if under else 170.0
                _point(ax, r, c, marker, size=size, dodge=dodge)
                drawn.append((x, y, size))
            ax.set_xlim(lo, hi)
            ax.set_title(f"{'GEMM' if op == 'sgemm' else 'GEMV'}: {problem.label}", loc="left")
            ax.set_xlabel("operational intensity (FLOP per byte of the traffic model)")
            ax.set_ylabel("TFLOP/s")
            style(ax, grid="both")
        idea_handles = [Line2D([], [], marker="o", linestyle="", color=c, label=shown[k], markersize=9)
                        for k, c in colour.items() if k in shown]
        model_handles = [Line2D([], [], marker=mk, linestyle="", color="#444444", label=name, markersize=9)
                         for name, mk in (("best CUDA kernel", "o"), ("best Triton counterpart", "^"),
                                          ("cuBLAS fp32", "s"), ("cuBLAS TF32", "X"))]
        handles = model_handles + idea_handles
        fig.legend(handles=handles, loc="outside lower center", frameon=False,
                   ncol=legend_columns([h.get_label() for h in handles]))
        data = png(fig)
    caption = (f"The roofs are this run's measured FP32 FMA throughput ({peaks.fp32_tflops:.1f} TFLOP/s) and copy "
               f"bandwidth ({peaks.copy_gbps:.0f} GB/s). Per idea (one colour each), the circle is its fastest "
               "fp32 CUDA kernel and the triangle its fastest fp32 Triton counterpart on the panel's problem; grey "
               "square and cross: cuBLAS fp32 and TF32 (tensor cores: the FP32 roof does not bound it). Intensity "
               "is FLOPs over the bytes each kernel's tiling must move (A re-read once per column of blocks, B once "
               "per row); a point above the slanted roof got reuse from the caches that model does not count. A point "
               "that would hide an earlier one is drawn smaller, inside it; the GEMV "
               "kernels share one intensity, so there CUDA is drawn slightly left of it and Triton slightly right.")
    return Plot(key, title, caption, data, figure=fig)
