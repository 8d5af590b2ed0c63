"""Accuracy against speed for users who need fp32: every fp32-class sgemm implementation's worst error over the
numerics layers against its TFLOP/s, the Pareto front of the two, and cuBLAS TF32 for reference.

The points are cuBLAS fp32, the SIMT summit (the rung declared so, CUDA and its Triton forms), every 3xTF32 row
and every row of Triton's bf16 splits, the Triton tutorial GEMM of each fp32 class, and cuBLAS TF32 (drawn, never on
the front: it is no fp32 answer). The error is the worst a record carries: normwise and componentwise, on the random,
subnormal and scaled layers (older files hold fewer; the caption says which were there). A caller with a speed
interval per record (a mapping from `Result.key` to (lo, hi) TFLOP/s) gets horizontal error bars.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter

from harness.analysis.fp32_work import ERROR_LAYERS, accuracy_front, summit
from harness.analysis.measured import Measured
from harness.catalog_types.kernel import PRECISION_CLASSES, PRECISIONS
from harness.identity import CUBLAS_FP32
from harness.records.lines import Result
from harness.report import anchors, fmt
from harness.report.plots.common import (
    CUBLAS,
    CUDA,
    GLUON,
    TRITON,
    Plot,
    figure,
    missing,
    model_colour,
    nest_hidden,
    png,
    sizes,
    style,
    unclutter,
)
from harness.report.wording import CLASS, INTERVAL, PRECISION_TEXT, baseline_label

# One marker per precision class, in the registry's order of the classes.
SHAPE = dict(zip(PRECISIONS, ("o", "^", "D", "v", "s"), strict=True))
SHAPE_NAME = {"o": "circle", "^": "triangle", "D": "diamond", "s": "square", "v": "downward triangle"}
# Speed intervals a caller may pass: Result.key -> (lo, hi) TFLOP/s.
Intervals = Mapping[tuple, tuple[float, float]]


def _short(m: Measured, r: Result) -> str:
    """A point's label: the kernel's name without namespace and arguments (and its B layout where the kernel also
    exists for row-major B), and the implementation."""
    if r.kernel is None:
        return r.label
    family = r.kernel.split("<")[0]
    name = family.split(".")[-1]
    kernel = r.kernel_facts
    if kernel is not None and kernel.b_layout == "kmajor" and any(
            k.id.split("<")[0] == family and k.b_layout == "row" for k in m.catalog.kernels):
        name += " (K-major B)"
    return f"{name} {r.label}"


def accuracy(m: Measured, intervals: Intervals | None = None) -> Plot:
    key, title = anchors.ACCURACY, "sgemm: accuracy against speed for fp32 work"
    problem = m.headline("sgemm")
    if problem is None:
        why = "this was a CPU run: nothing was timed" if m.header.mode == "cpu" else "no sgemm was timed"
        return missing(key, title, f"No accuracy-against-speed plot: {why}.")
    found = accuracy_front(m, problem)
    recs = [p.result for p in found.points]
    if not recs:
        return missing(key, title, f"No accuracy-against-speed plot: no timed fp32-class sgemm on {problem.label} "
                                   "carries a numerics error.")
    speeds, errors, front = [p.tflops for p in found.points], [p.error for p in found.points], list(found.front)
    with sizes():
        fig = figure(12.0, 6.4)
        ax = fig.add_subplot()
        if len(front) > 1:
            ax.plot([speeds[i] for i in front], [errors[i] for i in front], linestyle="--", color="#444444",
                    linewidth=1.2, zorder=3)
        barred = 0
        labels: list = []
        markers: list = []
        for i, r in enumerate(recs):
            colour = model_colour(r.impl_id)  # a baseline keeps its model's colour: cuBLAS grey, Triton's orange
            size = 150 if r.baseline else 70
            span = (intervals or {}).get(r.key)
            if span is not None:
                lo, hi = span
                ax.errorbar([speeds[i]], [errors[i]], xerr=[[max(speeds[i] - lo, 0.0)], [max(hi - speeds[i], 0.0)]],
                            fmt="none", ecolor=colour, elinewidth=1.2, capsize=3, zorder=4)
                barred += 1
            # the front's points over every other, the baselines' larger markers under the kernels' (nest_hidden
            # keeps a point under another in sight)
            ax.scatter([speeds[i]], [errors[i]], marker=SHAPE.get(r.precision, "o"), s=size, color=colour,
                       edgecolors="black" if r.baseline or i in front else "white",
                       linewidths=1.6 if i in front else 0.9, zorder=6 if i in front else 3.5 if r.baseline else 4)
            markers.append((ax, speeds[i], errors[i]))
            if i in front:
                # numbered at its lower right, where no point can be (it would beat this one on both), and named in
                # the legend: names beside close points would overlap
                labels.append(ax.annotate(str(front.index(i) + 1), (speeds[i], errors[i]), xytext=(8, -12),
                                          textcoords="offset points", fontsize=10, fontweight="bold",
                                          color="#222222", va="center"))
            if r.baseline:
                labels.append(ax.annotate(r.label, (speeds[i], errors[i]), xytext=(9, 9), textcoords="offset points",
                                          fontsize=9.5, color="#222222", va="center",
                                          arrowprops={"arrowstyle": "-", "color": "#888888", "linewidth": 0.6,
                                                      "shrinkA": 0, "shrinkB": 6}))
        ax.set_xscale("log")
        ax.set_yscale("log")
        # plain numbers on the speed axis, 1, 2, 3 and 5 of each decade (20, 30, 50, 100, 200): every minor tick
        # labelled would crowd its end of the decade
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(FuncFormatter(
            lambda v, _: f"{v:g}" if v > 0 and round(v / 10 ** math.floor(math.log10(v))) in (2, 3, 5) else ""))
        # Headroom for the labels of the markers at the extremes.
        ax.set_xlim(min(speeds) / 1.6, max(speeds) * 2.5)
        ax.set_ylim(min(errors) / 2.0, max(errors) * 3.0)
        ax.set_xlabel(f"TFLOP/s on {problem.label} (log)")
        ax.set_ylabel("worst error over the numerics layers (log)")
        style(ax, grid="both")
        present = sorted({r.precision for r in recs}, key=lambda p: list(SHAPE).index(p) if p in SHAPE else 9)
        handles: list = [Line2D([], [], marker=SHAPE.get(p, "o"), linestyle="", color="#555555", markersize=9,
                                label=PRECISION_TEXT.get(p, p)) for p in present]
        colours = [("CUDA kernel", CUDA), ("Triton", TRITON), ("cuBLAS", CUBLAS)]
        if any(r.impl_id.is_gluon for r in recs):  # a Gluon point has a colour of its own, named where one is drawn
            colours.insert(2, ("Gluon", GLUON))
        handles += [Patch(color=c, label=name) for name, c in colours]
        handles.append(Line2D([], [], linestyle="--", color="#444444",
                              label=f"Pareto front (classes against {baseline_label('fp32')}):"))
        # named without the class: the marker's shape gives it, and the shapes above give its label
        handles += [Line2D([], [], linestyle="", marker=f"${n}$", color="#222222", markersize=8,
                           label=_short(m, recs[i])) for n, i in enumerate(front, 1)]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
                  title="shape: precision\ncolour: implementation")
        nest_hidden(fig)
        unclutter(fig, labels, markers)
        data = png(fig)
    caption = (f"The fp32-class sgemm implementations timed on {problem.label} ({fmt.joined(_present(m, recs))}) "
               f"and {baseline_label('tf32')} for reference where it was timed: speed against the worst error each "
               "carries, "
               "the larger of the "
               "normwise forward error max|out − ref| / max(|α|·|A|·|B| + |β|·|C|) and the componentwise one "
               "(|out − ref| / (|α|·|A|·|B| + |β|·|C|), worst output) over " + _layers_text(recs) + ". Marker shape "
               "is the precision class (" + ", ".join(f"{PRECISION_TEXT.get(p, p)} "
                                                      f"{SHAPE_NAME[SHAPE.get(p, 'o')]}" for p in present)
               + "), colour the implementation; the baselines are the larger, outlined and labelled markers "
               "(hollow where a kernel's point lies under one; of two points at one place, the one drawn over is the "
               "smaller). The "
               f"dashed line is the Pareto front of the classes timed against {baseline_label('fp32')} (no other point "
               f"is both faster and more accurate), its points outlined, numbered and named in the legend; "
               f"{baseline_label('tf32')} is never on it. "
               "Faster is right, more accurate is lower." + _bars_text(barred, len(recs)))
    return Plot(key, title, caption, data, figure=fig)


def _present(m: Measured, recs: list[Result]) -> list[str]:
    """The families of points the chart holds, in words, for its caption."""
    splits = [p for p, c in PRECISION_CLASSES.items() if c.tensor_cores and c.yardstick == "fp32" and p != "3xtf32"]
    families = [(baseline_label("fp32"), lambda r: r.impl_id == CUBLAS_FP32),
                ("the SIMT summit", lambda r: r.kernel in summit(m)),
                (f"every {CLASS['3xtf32']} row", lambda r: not r.baseline and r.precision == "3xtf32"),
                ("Triton's bf16 splits", lambda r: r.precision in splits),
                ("the Triton tutorial GEMM of each fp32 class", lambda r: r.impl_id.is_triton_baseline)]
    return [name for name, has in families if any(has(r) for r in recs)]


def _layers_text(recs: list[Result]) -> str:
    """Which layers and measures the plotted records hold (older files predate the scaled layer and the
    componentwise error)."""
    layers = [name for name in ERROR_LAYERS if any(name in (r.numerics.layers if r.numerics else {}) for r in recs)]
    componentwise = any(v.componentwise is not None for r in recs if r.numerics for v in r.numerics.layers.values())
    text = " and ".join(f"the {name}" for name in layers) + (" layer" if len(layers) == 1 else " layers")
    missing_parts = [f"{name} layer" for name in ERROR_LAYERS if name not in layers]
    if not componentwise:
        missing_parts.append("componentwise error")
    if missing_parts:
        text += " (older records: no " + " and no ".join(missing_parts) + ")"
    return text


def _bars_text(barred: int, total: int) -> str:
    if not barred:
        return ""
    which = "every point" if barred == total else f"{barred} of the {total} points (not cuBLAS itself)"
    return (f" Horizontal bars on {which}: the {INTERVAL} of its speed against its class's cuBLAS over the "
            "interleaved rounds, as TFLOP/s (often narrower than the marker).")
