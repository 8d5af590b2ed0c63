"""Time against problem size, for ops a run measured at several sizes (`rosetta run --sweep`)."""

from __future__ import annotations

from matplotlib.lines import Line2D

from harness.report import anchors
from harness.report.measured import Measured
from harness.report.plots.common import PALETTE, Plot, figure, legend_columns, missing, png, sizes, style
from harness.run.records import Result

# One colour per kernel; the line style says which implementation of it.
LINESTYLE = ("-", "--", "-.", (0, (1, 1)))
BASELINE_COLOUR = {"cublas": "#222222", "cublas-tf32": "#8a8a8a"}


def _rate(r: Result, op: str) -> float:
    assert r.figures is not None
    return r.figures.tflops if op == "sgemm" else r.figures.gbps


def time_vs_size(m: Measured, op: str) -> Plot:
    key, title = anchors.TIME.format(op=op), f"{op}: time and rate against problem size"
    problems = sorted({r.problem for r in m.all if r.op == op and r.timed}, key=lambda p: (p.flops, p.key))
    if len(problems) < 2:
        why = ("nothing was timed (CPU run)" if m.header.mode == "cpu" else
               f"the results hold {len(problems)} timed {op} size{'s' if len(problems) != 1 else ''}; "
               "`rosetta run --sweep` times sgemm at 256..8192 and LLM-shaped problems")
        return missing(key, title, f"No time-against-size plot for {op}: {why}.")
    impls: list[tuple[str | None, str]] = []
    for p in problems:
        for r in m.on(p):
            if r.timed and (r.kernel, r.impl) not in impls:
                impls.append((r.kernel, r.impl))
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
            if kernel is None:
                colour, style_ = BASELINE_COLOUR.get(impl, "#555555"), ":"
            else:
                colour = PALETTE[kernels.index(kernel) % len(PALETTE)]
                style_ = LINESTYLE[[i for k, i in impls if k == kernel].index(impl) % len(LINESTYLE)]
            xs = [x for x, _ in pts]
            ax_t.plot(xs, [r.timing.median_ms for _, r in pts if r.timing], linestyle=style_, marker="o",
                      markersize=5, color=colour, linewidth=1.7)
            ax_r.plot(xs, [_rate(r, op) for _, r in pts], linestyle=style_, marker="o", markersize=5, color=colour,
                      linewidth=1.7)
            label = first.label if kernel is None else f"{kernel} · {first.label}"
            handles.append(Line2D([], [], color=colour, linestyle=style_, marker="o", label=label))
        for ax in (ax_t, ax_r):
            ax.set_xticks(range(len(problems)))
            ax.set_xticklabels([p.shape_label for p in problems], rotation=35, ha="right")
            ax.set_yscale("log")
            style(ax, grid="both")
        ax_t.set_ylabel("median time, ms (log)")
        ax_r.set_ylabel(f"{rate} (log)")
        ax_t.set_title("time", loc="left")
        ax_r.set_title(rate, loc="left")
        fig.legend(handles=handles, loc="outside lower center", frameon=False,
                   ncol=legend_columns([h.get_label() for h in handles]))
        data = png(fig)
    caption = (f"Every {op} implementation timed at two or more sizes on {m.header.device}, sizes ordered by their "
               f"FLOPs: median time (left) and {rate} (right), both on log scales. One colour per kernel: its CUDA "
               "kernel solid, its Triton counterparts dashed (a second one dash-dotted); cuBLAS dotted, fp32 "
               "black and TF32 grey.")
    return Plot(key, title, caption, data, figure=fig)
