"""The roofline: one panel per part of the page (the SIMT ladder, tensor cores, GEMV), every idea of the part
numbered on its points, CUDA and Triton in their two colours."""

from __future__ import annotations

from matplotlib.ticker import NullFormatter

from harness.analysis.fp32_work import speed_intervals
from harness.analysis.measured import Measured
from harness.analysis.overview import best_points, parts
from harness.device.specs import spec
from harness.identity import CUBLAS_FP32
from harness.records.lines import Result
from harness.report import anchors
from harness.report.plots.common import (
    CUBLAS,
    CUDA,
    TRITON,
    Plot,
    figure,
    marker_key,
    missing,
    png,
    sizes,
    style,
    unclutter,
)
from harness.report.wording import CLASS, INTERVAL, baseline_label, part_title

MARKER = {"cuda": "o", "triton": "^"}
TF32 = CLASS["tf32"]
COLOUR = {"cuda": CUDA, "triton": TRITON}
# GEMV kernels all share one intensity: CUDA and Triton points are drawn this factor apart so both show.
DODGE = {"cuda": 0.93, "triton": 1.07}


def _x(m: Measured, r: Result, model: str, dodge: bool) -> float:
    """A point's intensity: the traffic model at the tile that ran (Measured.intensity), dodged for GEMV."""
    return (m.intensity(r) or 0.0) * (DODGE[model] if dodge else 1.0)


def _labels(ax, m: Measured, points: list[tuple[int, str, Result]], dodge: bool) -> list:
    """Each point's idea number, CUDA's to the right and Triton's to the left, with a leader line to the point; where
    points crowd (the ladder's rungs sit within a factor of three of intensity) unclutter() moves them apart."""
    out = []
    for n, model, r in sorted(points, key=lambda p: -(p[2].figures.tflops if p[2].figures else 0.0)):
        assert r.figures is not None
        right = model == "cuda"
        out.append(ax.annotate(str(n), (_x(m, r, model, dodge), r.figures.tflops), xytext=(16 if right else -16, 0),
                               textcoords="offset points", ha="left" if right else "right", va="center",
                               fontsize=9.5, color=COLOUR[model], fontweight="bold", zorder=5,
                               arrowprops={"arrowstyle": "-", "color": COLOUR[model], "linewidth": 0.6,
                                           "alpha": 0.7, "shrinkA": 0, "shrinkB": 4}))
    return out


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
    sheet, roof = spec(m.header.device), m.tensor_roof
    roof_at = (roof.at_mhz(sheet.tf32_mhz) if sheet is not None else roof.tflops) if roof is not None else None
    ridge = peaks.fp32_tflops * 1e3 / peaks.copy_gbps
    spans = speed_intervals(m)
    with sizes():
        fig = figure(12.6, 5.6)
        ratios = [2.2 if p.is_ladder else 1 for p, _ in panels]
        axes = fig.subplots(1, len(panels), squeeze=False, width_ratios=ratios)[0]
        labels: list = []
        markers: list = []
        for ax, (part, points) in zip(axes, panels, strict=True):
            problem = m.headline(part.op)
            assert problem is not None
            # cuBLAS only: the legend's grey square and cross (the Triton baseline has no idea to be numbered under)
            bases = [r for r in m.on(problem) if r.vendor and r.timed and r.figures and r.figures.intensity]
            drawn = [r.figures for r in [*(r for _, _, r in points), *bases] if r.figures]
            xs = [m.intensity(r) or 0.0 for r in [*(r for _, _, r in points), *bases] if r.figures]
            # GEMV's points sit far left of the ridge: its panel spans the points only
            span = xs if part.op == "sgemv" else [*xs, ridge]
            lo, hi = min(span) / 2.5, max(span) * 2.5
            ax.set(xscale="log", yscale="log")
            knee = min(ridge, hi)
            ax.plot([lo, knee], [peaks.copy_gbps * lo / 1e3, peaks.copy_gbps * knee / 1e3], color="#999999",
                    linewidth=1.6)
            if hi > ridge:
                ax.plot([ridge, hi], [peaks.fp32_tflops] * 2, color="#999999", linewidth=1.6)
            if not part.simt and (sheet is not None or roof is not None):
                # the spec's dotted line and the measured dash-dotted one below it, named in one label over both
                lines = [(sheet.tf32_tflops, ":", f"spec {sheet.tf32_tflops:g}")] if sheet is not None else []
                # the measured roof per SM cycle at the clock the sheet's figure is stated at: the two compare
                lines += [(roof_at, "-.", f"measured {roof_at:.0f}")] if roof_at is not None else []
                for y, dash, _ in lines:
                    ax.axhline(y, color="#999999", linestyle=dash, linewidth=1.3)
                ax.text(hi, max(y for y, _, _ in lines), f"{TF32} " + ", ".join(t for *_, t in lines), ha="right",
                        va="bottom", fontsize=9.5, color="#666666")
            for _, model, r in points:
                assert r.figures is not None
                x = _x(m, r, model, part.op == "sgemv")
                face = COLOUR[model] if r.precision != "tf32" else "white"
                if (rate := spans.get(r.key)) is not None:
                    y = r.figures.tflops
                    ax.errorbar([x], [y], yerr=[[max(y - rate[0], 0.0)], [max(rate[1] - y, 0.0)]],
                                fmt="none", ecolor="#222222", elinewidth=1.0, capsize=3, zorder=5)
                ax.scatter([x], [r.figures.tflops], s=110, marker=MARKER[model], color=face,
                           edgecolors=COLOUR[model], linewidths=1.6, zorder=4)
            ys = [f.tflops for f in drawn]
            bottom, top = min(ys) / 3, max([*ys, peaks.fp32_tflops]) * 3
            ax.set_ylim(bottom, top)
            labels += _labels(ax, m, points, part.op == "sgemv")
            markers += [(ax, _x(m, r, model, part.op == "sgemv"), r.figures.tflops) for _, model, r in points
                        if r.figures]
            for r in bases:
                assert r.figures is not None
                ax.scatter([r.figures.intensity], [r.figures.tflops], s=110,
                           marker="s" if r.impl_id == CUBLAS_FP32 else "X", color=CUBLAS, zorder=3)
            ax.set(xlim=(lo, hi), xlabel="FLOP per byte of the traffic model")
            ax.set_title(f"{part_title(part)}\n{problem.label}", loc="left")
            ax.xaxis.set_minor_formatter(NullFormatter())
            style(ax, grid="both")
        axes[0].set_ylabel("TFLOP/s")
        handles = [marker_key("o", CUDA, "best CUDA kernel", markersize=9),
                   marker_key("^", TRITON, "best Triton counterpart", markersize=9),
                   marker_key("o", "#444444", f"open: {TF32} inputs", markerfacecolor="white", markersize=9),
                   marker_key("s", CUBLAS, baseline_label("fp32"), markersize=9),
                   marker_key("X", CUBLAS, baseline_label("tf32"), markersize=9)]
        fig.legend(handles=handles, loc="outside lower center", frameon=False, ncol=len(handles))
        unclutter(fig, labels, markers)
        data = png(fig)
    numbering = "; ".join(f"{part_title(part)}: " + ", ".join(f"{n} {idea.title}" for n, (idea, _) in
                                                          enumerate(part.ideas, 1)) for part, _ in panels)
    caption = (f"One panel per part of the page, each on its op's headline problem on {m.header.device}. The roofs "
               f"are this run's measured FP32 FMA throughput ({peaks.fp32_tflops:.1f} TFLOP/s"
               + (f", flagged low: it ran {low.below:.1%} under the fp32 rows' clock, so the roof is drawn low"
                  if (low := m.peak_clock) is not None and low.low and low.below is not None else "")
               + f") and copy bandwidth "
               f"({peaks.copy_gbps:.0f} GB/s)"
               + (f"; the dotted line is the spec sheet's dense {TF32} ({sheet.source})" if sheet is not None and
                  any(not p.simt for p, _ in panels) else "")
               + (f"; the dash-dotted line the tensor cores' roof this run measured, {roof.text}"
                  + (f", drawn at the {sheet.tf32_mhz:.0f} MHz the sheet's figure is stated at ({roof_at:.0f} "
                     f"TFLOP/s, {roof.flop_per_sm_cycle / sheet.tf32_per_cycle:.1%} of the sheet's "
                     f"{sheet.tf32_per_cycle} FLOP per SM cycle)" if sheet is not None else "")
                  if roof is not None and any(not p.simt for p, _ in panels) else "")
               + ". Each idea's number sits beside its fastest CUDA kernel (blue circle) and fastest Triton "
               f"counterpart (orange triangle), per precision class (open: {TF32} inputs); grey square and cross: "
               f"{baseline_label('fp32')} and {baseline_label('tf32')}; the whisker on a point is the {INTERVAL} of "
               "its speed against its class's cuBLAS over "
               "the interleaved rounds. Intensity is FLOPs over the bytes the tile that ran must move (A re-read once "
               "per column of blocks, B once per row; a Triton point at its own launch's tile, as its record says); a "
               "point above the slanted roof got reuse from the caches that model does not count. Numbers: "
               + numbering + ".")
    return Plot(key, title, caption, data, figure=fig)
