"""Accuracy against speed: every sgemm implementation's forward error against its TFLOP/s."""

from __future__ import annotations

from matplotlib.lines import Line2D

from harness.registry import BY_ID
from harness.report import anchors
from harness.report.measured import PRECISION_TEXT, Measured
from harness.report.plots.common import (
    CUBLAS,
    CUDA,
    TRITON,
    Plot,
    figure,
    missing,
    model_colour,
    png,
    sizes,
    style,
)
from harness.run.records import Result

SHAPE = {"fp32": "o", "tf32": "^", "3xtf32": "D"}
SHAPE_NAME = {"o": "circle", "^": "triangle", "D": "diamond"}


def _error(r: Result) -> float | None:
    v = r.numerics.random if r.numerics else None
    return v.error if v is not None and v.error else None


def _tf32_conversions(m: Measured, recs: list[Result]) -> str:
    """How each TF32 implementation on the plot turns fp32 into TF32 (registry facts the mapping claims prove on
    the compiled code), and the error each way gives: truncation's error is about twice rounding's."""
    ways: dict[str, list[float]] = {}
    for r in recs:
        kernel = BY_ID.get(r.kernel or "")
        if r.precision != "tf32" or kernel is None or (e := _error(r)) is None:
            continue
        counterpart = m.counterpart(r)
        text = counterpart.tf32_rounding(kernel) if counterpart is not None else kernel.tf32_rounding
        if text:
            ways.setdefault(text, []).append(e)
    if not ways:
        return ""
    def span(errs: list[float]) -> str:
        return f"{min(errs):.1e}" + (f" to {max(errs):.1e}" if max(errs) > min(errs) else "")

    return " How fp32 becomes TF32: " + "; ".join(
        f"{way}: {len(errs)} {'implementation' if len(errs) == 1 else 'implementations'}, forward error {span(errs)}"
        for way, errs in ways.items()) + "."


def accuracy(m: Measured) -> Plot:
    key, title = anchors.ACCURACY, "sgemm: accuracy against speed"
    problem = m.headline("sgemm")
    if problem is None:
        why = "this was a CPU run: nothing was timed" if m.header.mode == "cpu" else "no sgemm was timed"
        return missing(key, title, f"No accuracy-against-speed plot: {why}.")
    recs = [r for r in m.on(problem) if r.timed and r.figures and _error(r)]
    if not recs:
        return missing(key, title, f"No accuracy-against-speed plot: no timed sgemm on {problem.label} carries a "
                                   "random-layer error.")
    with sizes():
        fig = figure(12.0, 5.8)
        ax = fig.add_subplot()
        for r in recs:
            assert r.figures is not None
            colour = model_colour(r.model)  # a baseline keeps its model's colour: cuBLAS grey, Triton's orange
            size = 150 if r.baseline else 70
            ax.scatter([r.figures.tflops], [_error(r)], marker=SHAPE.get(r.precision, "o"), s=size, color=colour,
                       edgecolors="black" if r.baseline else "white", linewidths=0.9, zorder=5 if r.baseline else 4)
            if r.baseline:
                ax.annotate(r.label, (r.figures.tflops, _error(r)), xytext=(8, 6), textcoords="offset points",
                            fontsize=10, color="#222222")
        ax.set_xscale("log")
        ax.set_yscale("log")
        # Headroom for the labels of the cuBLAS markers, which sit at the extremes.
        xs = [r.figures.tflops for r in recs if r.figures]
        ys = [e for r in recs if (e := _error(r))]
        ax.set_xlim(min(xs) / 1.6, max(xs) * 2.5)
        ax.set_ylim(min(ys) / 1.6, max(ys) * 2.5)
        ax.set_xlabel(f"TFLOP/s on {problem.label} (log)")
        ax.set_ylabel("forward error, random layer (log)")
        style(ax, grid="both")
        present = sorted({r.precision for r in recs}, key=lambda p: list(SHAPE).index(p) if p in SHAPE else 9)
        handles = [Line2D([], [], marker=SHAPE.get(p, "o"), linestyle="", color="#555555", markersize=9,
                          label=PRECISION_TEXT.get(p, p)) for p in present]
        handles += [Line2D([], [], marker="s", linestyle="", color=c, markersize=9, label=name)
                    for name, c in (("CUDA kernel", CUDA), ("Triton counterpart", TRITON), ("cuBLAS", CUBLAS))]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
                  title="shape: precision\ncolour: implementation")
        data = png(fig)
    caption = (f"Every sgemm implementation timed on {problem.label}: its speed against its forward error on the "
               "random numerics layer, max|out − ref| / max(|α|·|A|·|B| + |β|·|C|). Marker shape is the precision "
               "class (" + ", ".join(f"{PRECISION_TEXT.get(p, p)} {SHAPE_NAME[SHAPE.get(p, 'o')]}" for p in present)
               + "), colour "
               "the implementation; the baselines (cuBLAS fp32 and TF32 in grey, the Triton tutorial GEMM of each "
               "class in orange) are the larger, outlined and labelled markers. Faster is "
               "right, more accurate is lower." + _tf32_conversions(m, recs))
    return Plot(key, title, caption, data, figure=fig)
