"""Time against problem size, for ops a run measured at several sizes (`rosetta run --sweep`).

One colour meaning for the whole figure: blue CUDA, orange Triton, black/grey cuBLAS; kernels are told apart by
marker. The sizes are categories in order of their FLOPs, so no line joins them (a line would say something of the
sizes between); each point has the 95% interval of its speed against its class's cuBLAS, carried to its time and
rate. Square (cube) sizes are labelled upright, other shapes (LLM shapes, tall or wide matrices) in grey italics."""

from __future__ import annotations

from matplotlib.lines import Line2D

from harness.analysis.measured import Measured
from harness.baselines import cublas_of
from harness.problems import Problem
from harness.records.lines import Result
from harness.report import anchors, fmt
from harness.report.plots.common import CUDA, TRITON, Plot, figure, figure_legend, missing, png, sizes, style
from harness.report.wording import INTERVAL, baseline_label

MARKERS = ("o", "s", "D", "v", "P", "*", "h", "X", "<", ">")
BASELINE_COLOUR = {"cublas": "#222222", "cublas-tf32": "#8a8a8a"}


def _rate(r: Result, op: str) -> float:
    assert r.figures is not None
    return r.figures.tflops if op == "sgemm" else r.figures.gbps


def in_sequence(p: Problem) -> bool:
    """A square (GEMV) or cube (GEMM) size: the one family of shapes a line may join."""
    return len({p.M, p.N} | ({p.K} if p.op == "sgemm" else set())) == 1


def _colour(impl: str) -> str:
    return CUDA if impl == "cuda" else TRITON if impl.startswith("triton") else BASELINE_COLOUR.get(impl, "#555555")


def time_vs_size(m: Measured, op: str) -> Plot:
    key, title = anchors.TIME.format(op=op), f"{op}: time and rate against problem size"
    problems = sorted({r.problem for r in m.all if r.op == op and r.timed}, key=lambda p: (p.flops, p.key))
    if len(problems) < 2:
        why = ("nothing was timed (CPU run)" if m.header.mode == "cpu" else
               f"the results hold {len(problems)} timed {op} size{'s' if len(problems) != 1 else ''}; "
               "`rosetta run --sweep` times sgemm at 256..8192 and LLM-shaped problems")
        return missing(key, title, f"No time-against-size plot for {op}: {why}.")
    impls = list(dict.fromkeys(r.kernel_impl for p in problems for r in m.on(p) if r.timed))
    kernels = list(dict.fromkeys(k for k, _ in impls if k))
    rate = "TFLOP/s" if op == "sgemm" else "GB/s"
    with sizes():
        fig = figure(12.6, 7.2)
        ax_t, ax_r = fig.subplots(1, 2)
        handles = []
        for kernel, impl in impls:
            pts = [(x, r) for x, p in enumerate(problems) for r in m.on(p)
                   if r.kernel == kernel and r.impl == impl and r.timed and r.timing and r.figures]
            if not pts:
                continue
            first = pts[0][1]
            colour = _colour(impl)
            marker = "_" if kernel is None else MARKERS[kernels.index(kernel) % len(MARKERS)]
            # implementations side by side within a size, so that neither hides the other's interval
            dx = 0.3 * (impls.index((kernel, impl)) / max(len(impls) - 1, 1) - 0.5)
            for ax, value, inverse in ((ax_t, lambda r: r.timing.median_ms, True),
                                       (ax_r, lambda r: _rate(r, op), False)):
                for x, r in pts:
                    pct, lo, hi = m.interval(r)
                    if pct and lo and hi:
                        # the speed interval against cuBLAS: a time scales inversely with it, a rate directly
                        v = value(r)
                        span = (v * pct / hi, v * pct / lo) if inverse else (v * lo / pct, v * hi / pct)
                        ax.errorbar([x + dx], [v], yerr=[[v - span[0]], [span[1] - v]], fmt="none", ecolor=colour,
                                    elinewidth=1.0, capsize=2)
                ax.plot([x + dx for x, _ in pts], [value(r) for _, r in pts], linestyle="", marker=marker,
                        markersize=7, color=colour, markeredgecolor="white" if marker != "_" else colour,
                        markeredgewidth=0.8)
            label = first.label if kernel is None else f"{kernel} · {first.label}"
            handles.append(Line2D([], [], color=colour, linestyle="", marker=marker, label=label))
        for ax, ylabel, heading in ((ax_t, "median time, ms (log)", "time"), (ax_r, f"{rate} (log)", rate)):
            ax.set_xticks(range(len(problems)))
            ax.set_xticklabels([p.shape_label for p in problems], rotation=35, ha="right")
            for tick, p in zip(ax.get_xticklabels(), problems, strict=True):
                if not in_sequence(p):
                    tick.set(color="#666666", fontstyle="italic")
            ax.set(yscale="log", ylabel=ylabel)
            ax.set_title(heading, loc="left")
            style(ax, grid="both")
        figure_legend(fig, handles, loc="outside lower center")
        data = png(fig)
    shapes = "square" if op == "sgemv" else "cube"
    others = [p.shape_label for p in problems if not in_sequence(p)]
    caption = (f"Every {op} implementation timed at two or more sizes on {m.header.device}, sizes ordered by their "
               f"FLOPs: median time (left) and {rate} (right), both on log scales. Colour is the model throughout: "
               "blue CUDA, orange Triton, " + fmt.joined([f"{colour} {baseline_label(p)}" for p, colour in
                                                          (("fp32", "black"), ("tf32", "grey"))
                                                          if (None, cublas_of(p)) in impls]) + "; each "
               "kernel has its own marker, and the implementations of a size stand side by side within it, each with "
               f"the {INTERVAL} of its speed against its cuBLAS over the interleaved rounds. The sizes are "
               f"categories, not a scale, so no line joins them; the {shapes} sizes are labelled upright"
               + (f", the other shapes ({', '.join(others)}) in grey italics." if others else "."))
    return Plot(key, title, caption, data, figure=fig)
