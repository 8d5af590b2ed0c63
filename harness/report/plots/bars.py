"""The bar charts, % of a reference per implementation, each bar with its 95% interval: sgemm % of cuBLAS grouped by
idea and sgemv % of copy bandwidth per shape (horizontal bars), and the two ladder charts, % of cuBLAS per rung with
the best CUDA and best Triton side by side: the fp32 SIMT ladder, and Hopper's tensor-core ladder, one panel per
precision class, each against its class's cuBLAS (one reference per axis; the rungs are harness/analysis/steps.py's:
for Hopper chains(), the mma.sync rung, then each wgmma rung of that precision). One Triton kernel launched alike for
several CUDA kernels is one launch: drawn once, and hatched where a later row times it again (an A/A pair)."""

from __future__ import annotations

import re
import textwrap

from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from harness.analysis.claims import published_pct
from harness.analysis.measured import Best, Measured
from harness.analysis.overview import MODELS
from harness.analysis.steps import chains, ladder_rungs, rung_name
from harness.baselines import cublas_of
from harness.catalog_types.kernel import PRECISION_CLASSES, PRECISIONS, precision_caveat
from harness.records.lines import Result
from harness.report import anchors, fmt
from harness.report.plots.common import (
    CUBLAS,
    CUDA,
    GLUON,
    PUBLISHED,
    REPEAT_KEY,
    TRITON,
    Bar,
    Plot,
    bar,
    figure,
    figure_legend,
    missing,
    model_bars,
    model_colour,
    off_lines,
    png,
    repeat_patch,
    sizes,
    style,
    value_label,
)
from harness.report.wording import INTERVAL, PRECISION_TEXT, baseline_label

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


class Launches:
    """The launches already drawn on a chart: a record whose launch (Measured.launch) is among them repeats one."""

    def __init__(self, m: Measured) -> None:
        self.m, self.seen = m, set()

    def bar(self, r: Result, span: tuple[float | None, float | None, float | None], scale: float = 1.0) -> Bar:
        key = (self.m.launch(r), r.problem)
        repeat = key in self.seen
        self.seen.add(key)
        value, lo, hi = (v * scale if v is not None else None for v in span)
        return Bar(value or 0.0, lo, hi, repeat)

    def best(self, b: Best | None) -> Bar | None:
        return self.bar(b.result, b.interval) if b is not None else None


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
    launches = Launches(m)
    bars = {y: launches.bar(r, m.interval(r)) for y, (_, r) in enumerate(rows) if r is not None}
    with sizes():
        fig = figure(12.6, 1.4 + ROW_IN * len(rows))
        ax = fig.add_subplot()
        pubs = {y: p for y, (_, r) in enumerate(rows) if r is not None and r.impl_id.is_cuda
                and (p := published_pct(m.catalog.by_id[r.kernel or ""], m.catalog)) is not None}
        top = max([100.0, *(b.top for b in bars.values()), *pubs.values()]) * 1.13
        for y, (_, r) in enumerate(rows):
            if r is None:
                continue
            b = bars[y]
            bar(ax, y, b, model_colour(r.impl_id), 0.72, horizontal=True)
            pub = pubs.get(y)
            if pub is not None:
                ax.plot([pub], [y], marker="D", markersize=7, color=PUBLISHED, linestyle="", zorder=5)
            # The figure goes after the bar, its interval and the diamond, so none hides it.
            end = max(b.top, pub + top * 0.008 if pub is not None else 0.0)
            value_label(ax, end + top * 0.006, y, f"{b.value:.1f}%", va="center", ha="left", fontsize=9.5)
        ax.axvline(100.0, color=CUBLAS, linestyle="--", linewidth=1.2)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([label for label, _ in rows])
        for tick, (_, r) in zip(ax.get_yticklabels(), rows, strict=True):
            if r is None:
                tick.set_fontweight("bold")
        ax.set_ylim(len(rows) - 0.4, -0.6)
        ax.set_xlim(0, top)
        ax.set_xlabel(f"% of {vs} on {problem.label} (same timer; higher is faster)")
        # the chart runs over two screens and more: its scale at the top as well as at the bottom
        ax.tick_params(axis="x", top=True, labeltop=True)
        style(ax)
        models = {r.model for _, r in rows if r is not None}
        handles = [Patch(color=c, label=name) for model, c, name in (("cuda", CUDA, "CUDA kernel"),
                                                                     ("triton", TRITON, "Triton counterpart"),
                                                                     ("gluon", GLUON, "Gluon form"))
                   if model in models]
        handles.append(Line2D([], [], color=CUBLAS, linestyle="--", label=f"{vs} = 100%"))
        if any(b.repeat for b in bars.values()):
            handles.append(repeat_patch())
        if pubs:
            handles.append(Line2D([], [], marker="D", color=PUBLISHED, linestyle="",
                                  label="the document's own % of cuBLAS, on its GPU"))
        figure_legend(fig, handles)
        off_lines(fig)
        data = png(fig)
    caption = (f"{problem.label} on {m.header.device}: one bar per implementation, "
               + fmt.joined([w for model, w in (("cuda", "blue for the CUDA kernel"),
                                                ("triton", "orange for each Triton counterpart"),
                                                ("gluon", "green for each Gluon form (the CUDA kernel's decisions)"))
                             if model in models])
               + " (named after the kernel id), grouped under each idea's title, the "
               f"number beside each bar its % of {vs}, the black whisker its {INTERVAL} over the interleaved "
               f"rounds; the dashed line is {vs}."
               + (f" {REPEAT_KEY}." if any(b.repeat for b in bars.values()) else "")
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
    impls = list(dict.fromkeys(
        r.kernel_impl for p in problems for r in m.on(p) if r.timed and r.precision == "fp32"))
    bars: dict[tuple, tuple[Bar, Result]] = {}
    launches = Launches(m)
    for p in problems:
        for r in m.on(p):
            if r.timed and r.figures is not None and r.figures.pct_peak is not None:
                pct, lo, hi = m.interval(r)
                # the interval of its speed against cuBLAS, carried to its share of the bandwidth
                bars[(*r.kernel_impl, p)] = (launches.bar(r, (pct, lo, hi), r.figures.pct_peak / pct if pct else 1.0),
                                             r)
    with sizes():
        fig = figure(12.6, 1.6 + ROW_IN * len(impls))
        axes = fig.subplots(1, len(problems), sharey=True, squeeze=False)[0]
        top = max([100.0, *(b.top for b, _ in bars.values())]) * 1.25
        for ax, p in zip(axes, problems, strict=True):
            for y, impl in enumerate(impls):
                if (found := bars.get((*impl, p))) is None:
                    continue
                b, r = found
                bar(ax, y, b, model_colour(r.impl_id), 0.72, horizontal=True)
                value_label(ax, b.top + top * 0.02, y, f"{b.value:.0f}", va="center", ha="left", fontsize=9.5)
            ax.axvline(100.0, color=CUBLAS, linestyle="--", linewidth=1.1)
            ax.set_xlim(0, top)
            ax.set_xticks([0, 50, 100])
            ax.set_title(p.shape_label, fontsize=10.5)
            style(ax)
        labels = {r.kernel_impl: _label(r) for _, r in bars.values()}
        axes[0].set_yticks(range(len(impls)))
        axes[0].set_yticklabels([labels.get(i, str(i)) for i in impls])
        axes[0].set_ylim(len(impls) - 0.4, -0.6)
        fig.supxlabel("% of the measured device-to-device copy bandwidth (bytes of A, x and y once)", fontsize=10.5)
        handles = [Patch(color=CUBLAS, label=baseline_label("fp32")), Patch(color=CUDA, label="CUDA kernel"),
                   Patch(color=TRITON, label="Triton counterpart"),
                   Line2D([], [], color=CUBLAS, linestyle="--", label="copy bandwidth = 100%")]
        repeats = any(b.repeat for b, _ in bars.values())
        handles += [repeat_patch()] if repeats else []
        figure_legend(fig, handles)
        off_lines(fig)
        data = png(fig)
    caption = (f"Each panel is one sgemv shape (M x N) on {m.header.device}; one bar per implementation (grey "
               f"{baseline_label('fp32')}, blue CUDA, orange Triton), its number the % of the "
               f"{m.header.peaks.copy_gbps:.0f} GB/s copy bandwidth the run measured (from its median time), the "
               f"whisker the {INTERVAL} of its speed against cuBLAS over the interleaved rounds, carried to that "
               "share; the dashed line is that bandwidth." + (f" {REPEAT_KEY}." if repeats else ""))
    return Plot(key, title, caption, data, figure=fig)


def short(title: str) -> str:
    """A rung's label under its bars: the idea's title without its trailing parenthesis, wrapped to the bar pair."""
    return textwrap.fill(re.sub(r"\s*\([^)]*\)$", "", title), 11)


def ladder_chart(m: Measured) -> Plot:
    vs = baseline_label("fp32")
    key, title = anchors.LADDER, f"The SIMT ladder: % of {vs} per rung"
    rungs = ladder_rungs(m)
    problem = m.headline("sgemm")
    if len(rungs) < 2 or problem is None:
        why = "one rung only (the headline table has its figures)" if rungs else "no fp32 SIMT sgemm kernel was timed"
        return missing(key, title, f"No ladder chart: {why}.")
    launches = Launches(m)
    gluon = any(r.gluon for r in rungs)
    groups = [(launches.best(r.cuda), launches.best(r.triton), *([launches.best(r.gluon)] if gluon else []))
              for r in rungs]
    repeats = [r.number for r, (_, tri, *_) in zip(rungs, groups, strict=True) if tri is not None and tri.repeat]
    # the rung whose Triton bar first drew each repeated launch
    first = {r.number: next(q.number for q in rungs if q.triton and m.launch(q.triton.result) == m.launch(
        r.triton.result)) for r in rungs if r.number in repeats and r.triton}
    with sizes():
        fig = figure(10.7, 2.6)  # short: the chart ends on the first screen, under the headline table
        ax = fig.add_subplot()
        top = model_bars(ax, groups, (CUDA, TRITON, GLUON) if gluon else (CUDA, TRITON))
        ax.axhline(100.0, color=CUBLAS, linestyle="--", linewidth=1.2)
        ax.set_xticks(range(len(rungs)))
        # The rung's number on a line of its own, as the steps table under the chart numbers its rows
        ax.set_xticklabels([f"{r.number}.\n{short(r.idea.title)}" for r in rungs], fontsize=8)
        ax.set_xlim(-0.6, len(rungs) - 0.4)
        ax.set_ylim(0, top)
        ax.set_ylabel(f"% of {vs}")
        style(ax, grid="y")
        # short labels, one row: the chart must end within the first screen, under the headline table
        handles = [Patch(color=CUDA, label="best CUDA kernel"),
                   Patch(color=TRITON, label="best Triton counterpart"),
                   *([Patch(color=GLUON, label="best Gluon form")] if gluon else []),
                   Patch(facecolor="none", edgecolor=CUBLAS, linestyle="--", label=f"{vs} = 100%"),
                   *([repeat_patch(label="a launch again (A/A)")] if repeats else [])]
        figure_legend(fig, handles)
        off_lines(fig)
        data = png(fig)
    missing_tri = [r.idea.title for r in rungs if r.triton is None]
    caption = (f"Each rung of the fp32 SIMT ladder in registry order, numbered as in the table below (each adds one "
               f"idea to the one before), on {problem.label} on {m.header.device}: the fastest CUDA kernel of the rung "
               "(blue) and its fastest Triton counterpart (orange)" + (", and its fastest Gluon form (green: the "
                                                                         "CUDA kernel's decisions in Gluon) where it "
                                                                         "has one" if gluon else "")
               + f", as % of {vs} timed by the same timer, each with "
               f"its {INTERVAL} over the interleaved rounds (the whisker); the dashed line is cuBLAS."
               + (" Hatched: a Triton bar that is the same kernel in the same configuration as an earlier rung's, "
                  "timed again as this rung's row (an A/A pair): "
                  + fmt.joined([f"rung {n} repeats rung {first[n]}'s" for n in repeats]) + "." if repeats else "")
               + (f" No Triton bar where none was timed: {', '.join(missing_tri)}." if missing_tri else ""))
    return Plot(key, title, caption, data, figure=fig)


def hopper_chart(m: Measured) -> Plot:
    key, title = anchors.HOPPER_LADDER, "Hopper's tensor-core ladder: % of the class's cuBLAS per rung"
    problem = m.headline("sgemm")
    panels = []
    launches = Launches(m)
    for precision, rungs in chains(m) if problem else []:
        points = []
        for kernels in rungs:
            cuda, tri, glu = m.bests(kernels, problem, precision, MODELS)
            if cuda or tri:
                points.append((rung_name(cuda, kernels), launches.best(cuda), launches.best(tri), launches.best(glu)))
        if any(name.startswith("wgmma") for name, *_ in points):
            panels.append((precision, points))
    if problem is None or not panels:
        return missing(key, title, "No Hopper ladder chart: no wgmma rung was timed.")
    repeats = any(b is not None and b.repeat for _, points in panels for _, *group in points for b in group)
    gluon = any(g is not None for _, points in panels for *_, g in points)
    colours = (CUDA, TRITON, GLUON) if gluon else (CUDA, TRITON)
    with sizes():
        fig = figure(10.7, 3.6)
        axes = fig.subplots(1, len(panels), squeeze=False, width_ratios=[len(p) for _, p in panels])[0]
        for ax, (precision, points) in zip(axes, panels, strict=True):
            top = model_bars(ax, [tuple(group[:len(colours)]) for _, *group in points], colours)
            ax.axhline(100.0, color=CUBLAS, linestyle="--", linewidth=1.2)
            ax.set_xticks(range(len(points)))
            # a rung's name over two lines (wgmma / persistent): names on one line run into their neighbours
            ax.set_xticklabels([name.replace("_", "\n", 1).replace("_", " ") for name, *_ in points], fontsize=9)
            ax.set_xlim(-0.6, len(points) - 0.4)
            ax.set_ylim(0, top)
            ax.set_title(PRECISION_TEXT[precision], loc="left")
            ax.set_ylabel(f"% of {baseline_label(precision, 'kmajor')}")
            style(ax, grid="y")
        handles = [Patch(color=CUDA, label="CUDA rung"), Patch(color=TRITON, label="its Triton counterpart"),
                   *([Patch(color=GLUON, label="its Gluon form")] if gluon else []),
                   Patch(facecolor="none", edgecolor=CUBLAS, linestyle="--", label="the class's cuBLAS = 100%"),
                   *([repeat_patch()] if repeats else [])]
        figure_legend(fig, handles)
        off_lines(fig)
        data = png(fig)
    caption = (f"Each tensor-core rung on {problem.label} on {m.header.device}, one panel per precision class, each "
               "against the cuBLAS of its class ("
               + "; ".join(f"{PRECISION_TEXT[p]}: {baseline_label(p, 'kmajor')}" for p, _ in panels)
               + f"), timed by the same timer, with its {INTERVAL} over the interleaved rounds (the whisker): the "
               "mma.sync rung each chain starts from (tc_gemm, B K-major, its fastest tile), then each wgmma rung in "
               "registry order; blue the CUDA kernel, orange its Triton counterpart (for the mma.sync rung, the "
               "fastest of its forms)" + (", green its Gluon form (the CUDA kernel's decisions in Gluon)" if gluon
                                         else "") + ". The dashed line is cuBLAS."
               + (f" {REPEAT_KEY}." if repeats else ""))
    return Plot(key, title, caption, data, figure=fig)
