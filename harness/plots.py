"""PNG plots of a results file: % of cuBLAS, roofline, time against size, compiled resources.

Every plot is drawn on its own matplotlib Figure (never pyplot), so nothing here touches global
backend state and rendering a report inside a test or a run cannot open a window. A plot whose data
is not in the results (a CPU run has no timings) comes back with no image and a sentence saying why:
the report prints that sentence where the image would be.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass

# Figure.savefig renders PNG through Agg by itself: no backend is chosen, so importing this module
# never changes the backend of a program that uses pyplot.
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from harness.registry import BY_ID, KERNELS, SEEDS
from harness.results import Results

CUDA_COLOUR = "#2f5d9e"
TRITON_COLOURS = ("#e07b24", "#f2b36b", "#b8541a")
CUBLAS_COLOUR = "#555555"
PUBLISHED_COLOUR = "#111111"
# Kernel colours for plots with many kernels: distinguishable, print-friendly.
_KERNEL_PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
    "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d", "#31a354",
    "#756bb1", "#636363", "#9c9ede", "#cedb9c",
)
_MODEL_MARKER = {"cuda": "o", "triton": "^", "cublas": "s", "cublas-tf32": "X"}
# The seeds' own problem (every GEMM worklog benchmarks 4096^3): their published % of cuBLAS is for it.
SEED_SGEMM = {"op": "sgemm", "M": 4096, "N": 4096, "K": 4096}


@dataclass(frozen=True)
class Plot:
    key: str            # file-name part: <stem>-<key>.png beside the Markdown
    title: str
    caption: str
    png: bytes | None   # None: no data for this plot in these results
    missing: str = ""   # why there is no image, in one sentence


# ---------------------------------------------------------------------------------------------------
# Selection helpers, shared with the report so that tables and plots pick the same records
# ---------------------------------------------------------------------------------------------------
def problem_key(problem: dict | None) -> tuple:
    p = problem or {}
    return (p.get("op"), p.get("M"), p.get("N"), p.get("K", 1), p.get("alpha", 1.0), p.get("beta", 0.0))


def problem_label(problem: dict | None) -> str:
    p = problem or {}
    if p.get("op") == "sgemv":
        return f"sgemv {p.get('M')}x{p.get('N')}"
    if p.get("op") == "sgemm":
        text = f"sgemm {p.get('M')}x{p.get('N')}x{p.get('K')}"
        alpha, beta = p.get("alpha", 1.0), p.get("beta", 0.0)
        return text if (alpha, beta) == (1.0, 0.0) else f"{text} alpha={alpha:g} beta={beta:g}"
    return "unknown problem"


def problem_flops(problem: dict | None) -> float:
    p = problem or {}
    try:
        return 2.0 * p["M"] * p["N"] * (p.get("K", 1) if p.get("op") == "sgemm" else 1)
    except (KeyError, TypeError):
        return 0.0


def timed(records: Iterable[dict]) -> list[dict]:
    """Records with a measured time: the only ones that can be plotted against time or cuBLAS."""
    return [r for r in records if r.get("status") == "ok" and (r.get("timing") or {}).get("median_ms")]


_KERNEL_ORDER = {k.id: i for i, k in enumerate(KERNELS)}


def record_order(rec: dict) -> tuple:
    """Baselines first, then the registry's order, CUDA before its Triton counterparts."""
    kid = rec.get("kernel")
    impl = str(rec.get("impl", ""))
    if not kid:
        return (0, 0, 0 if impl == "cublas" else 1, impl)
    kernel = BY_ID.get(kid)
    if kernel is None:
        return (2, 0, 0, f"{kid} {impl}")
    names = [f"triton:{c.name}" for c in kernel.counterparts]
    within = 0 if impl == "cuda" else 1 + (names.index(impl) if impl in names else len(names))
    return (1, _KERNEL_ORDER[kid], within, impl)


def impl_label(rec: dict) -> str:
    impl = str(rec.get("impl", "?"))
    if impl == "cublas":
        return "cuBLAS fp32"
    if impl == "cublas-tf32":
        return "cuBLAS TF32"
    return "CUDA" if impl == "cuda" else "Triton " + impl.split(":", 1)[-1]


def headline_problem(records: list[dict], op: str) -> dict | None:
    """The problem of an op to show one bar chart for: the seeds' 4096^3 when timed, else the one most
    implementations were timed on (ties: the biggest, then the first run)."""
    recs = [r for r in timed(records) if r.get("op") == op]
    if not recs:
        return None
    counts: dict[tuple, int] = {}
    first: dict[tuple, tuple[int, dict]] = {}
    for i, r in enumerate(recs):
        key = problem_key(r.get("problem"))
        counts[key] = counts.get(key, 0) + 1
        first.setdefault(key, (i, r["problem"]))
    for _, problem in first.values():
        if all(problem.get(d) == v for d, v in SEED_SGEMM.items()) and problem.get("beta", 0.0) == 0.0:
            return problem
    best = max(counts, key=lambda k: (counts[k], problem_flops(first[k][1]), -first[k][0]))
    return first[best][1]


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    # No timestamp in the PNG metadata: the same results render to the same bytes.
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()


def _style(ax) -> None:
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(True, axis="y", color="#e3e3e3", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.tick_params(labelsize=8.5)


def _short(kernel_id: str) -> str:
    # Template arguments make labels long; the report's tables carry the full id.
    if len(kernel_id) <= 24:
        return kernel_id
    return kernel_id.replace("gemm_block_tiling_", "").replace("<", "\n<")


def _kernel_colours(kernel_ids: Iterable[str]) -> dict[str, str]:
    ids = sorted(set(kernel_ids), key=lambda k: _KERNEL_ORDER.get(k, 10_000))
    return {k: _KERNEL_PALETTE[i % len(_KERNEL_PALETTE)] for i, k in enumerate(ids)}


# ---------------------------------------------------------------------------------------------------
# The plots
# ---------------------------------------------------------------------------------------------------
def pct_cublas(results: Results, op: str) -> Plot:
    """Grouped bars: each kernel's CUDA and Triton % of cuBLAS fp32, the seed's published % as a marker."""
    key, title = f"pct-cublas-{op}", f"{op}: % of cuBLAS fp32 per kernel"
    problem = headline_problem(results.results, op)
    if problem is None:
        why = ("this was a CPU run (Triton interpreter, numerics only): nothing was timed"
               if results.run.get("mode") == "cpu" else f"no {op} implementation was timed in this run")
        return Plot(key, title, "", None, f"No % of cuBLAS plot for {op}: {why}.")
    pkey = problem_key(problem)
    recs = [r for r in timed(results.results)
            if problem_key(r.get("problem")) == pkey and r.get("kernel") and r.get("pct_cublas") is not None]
    if not recs:
        return Plot(key, title, "", None, f"No % of cuBLAS plot for {op}: cuBLAS fp32 was not timed on "
                                          f"{problem_label(problem)}, so there is no yardstick.")
    groups: dict[str, list[dict]] = {}
    for r in sorted(recs, key=record_order):
        groups.setdefault(r["kernel"], []).append(r)
    width_per = max(len(v) for v in groups.values())
    fig = Figure(figsize=(max(7.5, 0.95 * len(groups) + 2.5), 4.6))
    ax = fig.add_subplot()
    bar_w = 0.8 / max(width_per, 1)
    top = 100.0
    legend: dict[str, object] = {}
    gpus: set[str] = set()
    for gi, (kid, members) in enumerate(groups.items()):
        for mi, r in enumerate(members):
            x = gi - 0.4 + bar_w * (mi + 0.5)
            value = float(r["pct_cublas"])
            top = max(top, value)
            if r["impl"] == "cuda":
                colour, name = CUDA_COLOUR, "CUDA"
            else:
                ti = sum(1 for m in members[:mi] if m["impl"] != "cuda")
                colour, name = TRITON_COLOURS[ti % len(TRITON_COLOURS)], f"Triton counterpart {ti + 1}"
            bar = ax.bar(x, value, bar_w * 0.92, color=colour)
            legend.setdefault(name, bar)
            label = f"{value:.1f}" if value < 100 else f"{value:.0f}"
            ax.annotate(f"{label}\n{r['impl'].split(':')[-1]}", (x, value), textcoords="offset points",
                        xytext=(0, 2), ha="center", va="bottom", fontsize=6.5, color="#333333")
        kernel = BY_ID.get(kid)
        published = kernel.published.pct_cublas if kernel and kernel.published else None
        if published is not None:
            top = max(top, published)
            gpus.add(SEEDS[kernel.seed].gpu if kernel.seed else "?")
            mark = ax.scatter([gi - 0.4 + bar_w * 0.5], [published], marker="D", s=34, color=PUBLISHED_COLOUR,
                              zorder=5)
            legend.setdefault("published", mark)
    legend["cuBLAS fp32 = 100%"] = ax.axhline(100.0, color=CUBLAS_COLOUR, linestyle="--", linewidth=1)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([_short(k) for k in groups], rotation=35, ha="right", fontsize=7.5)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_ylim(0, top * 1.18)
    ax.set_ylabel("% of cuBLAS fp32 (same problem, same timer)")
    ax.set_title(f"{title} — {problem_label(problem)}", fontsize=10.5, loc="left")
    _style(ax)
    if "published" in legend:
        legend[f"published by the seed on its own GPU ({', '.join(sorted(gpus))})"] = legend.pop("published")
    # Outside the axes: inside, it would cover the bars of whichever kernel reaches cuBLAS.
    ax.legend(list(legend.values()), list(legend.keys()), fontsize=7.5, frameon=False, loc="upper left",
              bbox_to_anchor=(1.01, 1.0))
    caption = (f"{problem_label(problem)} on {results.run.get('device', '?')}. Bars: this run; diamonds: the "
               f"figure each seed published for the same kernel on its own GPU (different hardware, so a "
               f"shape to compare, not a target).")
    return Plot(key, title, caption, _png(fig))


def roofline(results: Results) -> Plot:
    """Log-log roofline from the run's measured peaks, every timed implementation as a point."""
    key, title = "roofline", "Roofline (measured peaks)"
    peaks = results.run.get("peaks") or {}
    recs = [r for r in timed(results.results) if r.get("intensity") and r.get("tflops")]
    if not recs:
        why = ("this was a CPU run: nothing was timed" if results.run.get("mode") == "cpu"
               else "no record has both a time and an operational intensity")
        return Plot(key, title, "", None, f"No roofline: {why}.")
    if not peaks.get("fp32_tflops") or not peaks.get("copy_gbps"):
        return Plot(key, title, "", None, "No roofline: the run header holds no measured peaks.")
    peak, bw = float(peaks["fp32_tflops"]), float(peaks["copy_gbps"])
    xs = [float(r["intensity"]) for r in recs]
    lo, hi = min([*xs, 0.1]) / 2, max([*xs, peak * 1e3 / bw]) * 3
    fig = Figure(figsize=(9.5, 5.4))
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.set_yscale("log")
    ridge = peak * 1e3 / bw
    ax.plot([lo, ridge], [bw * lo / 1e3, peak], color="#888888", linewidth=1.6)
    ax.plot([ridge, hi], [peak, peak], color="#888888", linewidth=1.6)
    ax.annotate(f"FP32 FMA peak {peak:.1f} TFLOP/s", (hi, peak), xytext=(-4, 4), textcoords="offset points",
                ha="right", fontsize=8, color="#555555")
    ax.annotate(f"copy bandwidth {bw:.0f} GB/s", (lo * 1.5, bw * lo * 1.5 / 1e3), xytext=(2, 8),
                textcoords="offset points", fontsize=8, color="#555555", rotation=0)
    colours = _kernel_colours(r["kernel"] for r in recs if r.get("kernel"))
    kernel_handles: dict[str, object] = {}
    for r in sorted(recs, key=record_order):
        model = "cublas-tf32" if r.get("impl") == "cublas-tf32" else str(r.get("model", "cuda"))
        colour = colours.get(r.get("kernel") or "", CUBLAS_COLOUR if model == "cublas" else "#000000")
        h = ax.scatter(float(r["intensity"]), float(r["tflops"]), marker=_MODEL_MARKER.get(model, "o"), s=38,
                       color=colour, edgecolors="white", linewidths=0.6, zorder=4)
        kernel_handles.setdefault(r.get("kernel") or impl_label(r), h)
    _style(ax)
    ax.grid(True, which="both", axis="both", color="#eeeeee", linewidth=0.6)
    ax.set_xlim(lo, hi)
    ax.set_xlabel("operational intensity (FLOP per byte of the kernel's traffic model)")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"{title} — {results.run.get('device', '?')}", fontsize=10.5, loc="left")
    model_handles = [Line2D([], [], linestyle="", marker=_MODEL_MARKER[model], color="#444444", label=name)
                     for name, model in (("CUDA", "cuda"), ("Triton", "triton"), ("cuBLAS fp32", "cublas"),
                                         ("cuBLAS TF32", "cublas-tf32"))]
    # The inside legend goes in through add_artist, which clips to the axes: the outside one must be last.
    ax.add_artist(ax.legend(handles=model_handles, fontsize=7, frameon=False, loc="lower right",
                            title="implementation", title_fontsize=7.5))
    ax.legend(list(kernel_handles.values()), list(kernel_handles.keys()), fontsize=7, frameon=False,
              loc="upper left", bbox_to_anchor=(1.01, 1.0), title="kernel", title_fontsize=7.5)
    caption = ("Intensity is FLOPs over the bytes each kernel must move by its tiling (A re-read once per "
               "column of blocks, B once per row of blocks); the roofs are this run's measured FP32 FMA "
               "throughput and device copy bandwidth. A point above the slanted roof got reuse from L1/L2 "
               "that the traffic model does not count (naive kernels). TF32 cuBLAS runs on tensor cores: the "
               "FP32 roof does not bound it.")
    return Plot(key, title, caption, _png(fig))


def time_vs_size(results: Results) -> list[Plot]:
    """Median time against problem size, one line per implementation, for each op run at several sizes."""
    out: list[Plot] = []
    recs = timed(results.results)
    ops = [op for op in ("sgemm", "sgemv") if any(r.get("op") == op for r in results.results)]
    for op in ops:
        key, title = f"time-{op}", f"{op}: time against problem size"
        mine = [r for r in recs if r.get("op") == op]
        problems: dict[tuple, dict] = {}
        for r in mine:
            problems.setdefault(problem_key(r.get("problem")), r["problem"])
        if len(problems) < 2:
            why = ("nothing was timed (CPU run)" if not mine else
                   f"the results hold one {op} size; `rosetta run --sweep` times sgemm at 256..8192")
            out.append(Plot(key, title, "", None, f"No time-against-size plot for {op}: {why}."))
            continue
        order = sorted(problems, key=lambda k: (problem_flops(problems[k]), list(problems).index(k)))
        pos = {k: i for i, k in enumerate(order)}
        lines: dict[tuple[str, str], list[tuple[int, float]]] = {}
        for r in sorted(mine, key=record_order):
            lines.setdefault((r.get("kernel") or "", r["impl"]), []).append(
                (pos[problem_key(r["problem"])], float(r["timing"]["median_ms"])))
        colours = _kernel_colours(k for k, _ in lines if k)
        fig = Figure(figsize=(max(8.0, 0.8 * len(order) + 4), 5.0))
        ax = fig.add_subplot()
        ax.set_yscale("log")
        for (kid, impl), pts in lines.items():
            pts.sort()
            style = {"cuda": "-", "cublas": "-", "cublas-tf32": ":"}.get(impl, "--")
            colour = colours.get(kid, "#000000" if impl == "cublas" else "#777777")
            label = f"{kid} [{impl}]" if kid else impl_label({"impl": impl})
            ax.plot([p for p, _ in pts], [t for _, t in pts], style, marker=_MODEL_MARKER.get(
                "cublas-tf32" if impl == "cublas-tf32" else impl.split(":")[0], "o"), markersize=4,
                color=colour, linewidth=2.2 if impl == "cublas" else 1.3, label=label)
        ax.set_xticks(range(len(order)))
        ax.set_xticklabels([problem_label(problems[k]).split(" ", 1)[1] for k in order], rotation=30,
                           ha="right", fontsize=8)
        ax.set_ylabel("median time (ms, log scale)")
        ax.set_xlabel("problem (ordered by FLOPs)")
        ax.set_title(f"{title} — {results.run.get('device', '?')}", fontsize=10.5, loc="left")
        _style(ax)
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        caption = "Solid: CUDA and cuBLAS fp32; dashed: Triton counterparts; dotted: cuBLAS TF32."
        out.append(Plot(key, title, caption, _png(fig)))
    return out


def resource_usage(results: Results) -> Plot:
    """Registers and shared memory per compiled implementation: what each compiler chose (no GPU needed)."""
    key, title = "resources", "Registers and shared memory per implementation"
    seen: dict[tuple[str, str], dict] = {}
    for r in sorted(results.results, key=record_order):
        res = r.get("resources") or {}
        if r.get("kernel") and "registers" in res:
            seen.setdefault((r["kernel"], r["impl"]), res)
    if not seen:
        return Plot(key, title, "", None, "No resource plot: no record carries compiled resource usage "
                                          "(neither nvcc nor Triton's compiler reported any).")
    labels = [f"{k}  [{impl}]" for k, impl in seen]
    regs = [int(res.get("registers") or 0) for res in seen.values()]
    smem = [float(res.get("shared_bytes") or 0) / 1024 for res in seen.values()]
    colours = [CUDA_COLOUR if impl == "cuda" else TRITON_COLOURS[0] for _, impl in seen]
    height = max(2.8, 0.24 * len(labels) + 1.2)
    fig = Figure(figsize=(10.5, height))
    ax_r, ax_s = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [1.2, 1]})
    y = list(range(len(labels)))
    ax_r.barh(y, regs, color=colours, height=0.72)
    ax_s.barh(y, smem, color=colours, height=0.72)
    for yi, (res, value) in enumerate(zip(seen.values(), regs, strict=True)):
        spill = int(res.get("spills") or 0)
        text = f"{value}" + (f"  spills {spill} B" if spill else "")
        ax_r.annotate(text, (value, yi), xytext=(3, 0), textcoords="offset points", va="center", fontsize=7,
                      color="#b00020" if spill else "#333333")
    for yi, value in enumerate(smem):
        ax_s.annotate(f"{value:.1f}", (value, yi), xytext=(3, 0), textcoords="offset points", va="center",
                      fontsize=7, color="#333333")
    ax_r.set_yticks(y)
    ax_r.set_yticklabels(labels, fontsize=7)
    ax_r.invert_yaxis()
    ax_r.set_xlabel("registers per thread")
    ax_s.set_xlabel("shared memory per block (KiB)")
    ax_r.set_xlim(0, max(regs) * 1.35 + 1)
    ax_s.set_xlim(0, max(smem) * 1.25 + 1)
    for ax in (ax_r, ax_s):
        _style(ax)
        ax.grid(True, axis="x", color="#e3e3e3", linewidth=0.8)
        ax.grid(False, axis="y")
    ax_r.legend(handles=[Line2D([], [], color=CUDA_COLOUR, linewidth=6, label="CUDA (nvcc)"),
                         Line2D([], [], color=TRITON_COLOURS[0], linewidth=6, label="Triton")],
                fontsize=7.5, frameon=False, loc="lower right")
    fig.suptitle(title, fontsize=10.5, x=0.01, ha="left")
    sources = sorted({str(res.get("source", "?")) for res in seen.values()})
    caption = "Compiled for sm_90; as reported by: " + "; ".join(sources) + "."
    return Plot(key, title, caption, _png(fig))


def all_plots(results: Results) -> list[Plot]:
    """Every plot of the report in reading order; missing ones carry their reason instead of an image."""
    ops = [op for op in ("sgemm", "sgemv") if any(r.get("op") == op for r in results.results)]
    return [*(pct_cublas(results, op) for op in ops), roofline(results), *time_vs_size(results),
            resource_usage(results)]
