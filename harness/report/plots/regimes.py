"""The regimes chart: for each headline implementation of a sustained file, its burst and its sustained throughput
side by side, and its energy per launch in the sustained regime with the interval over the rounds
(harness/analysis/regimes.py RegimeStudy)."""

from __future__ import annotations

from harness.analysis.regimes import RegimeStudy, sustained_pct
from harness.identity import ImplId
from harness.report.plots.common import Plot, figure, missing, model_colour, png, sizes, style
from harness.report.wording import INTERVAL, PRECISION_TEXT

KEY = "regimes"
TITLE = "Burst against sustained: throughput and energy per GEMM"
ROW_IN = 0.42
BURST_ALPHA = 0.35   # the burst bar: the implementation's colour, light; the sustained bar: the same, solid


def regimes_plot(study: RegimeStudy | None) -> Plot:
    rows = [r for r in study.rows if r.key[2][0] == "sgemm"] if study is not None else []  # GEMV: its table only
    if study is None or not rows:
        return missing(KEY, TITLE, "no sustained-regime sgemm row in or beside this run (rosetta run --regime "
                       "sustained)")
    # the kernel id on a line of its own: the ids of tensor-core kernels are long
    labels = [f"{r.label.replace(' · ', chr(10))} ({PRECISION_TEXT.get(r.precision, r.precision)})" for r in rows]
    colours = [model_colour(ImplId.from_json(r.key[1])) for r in rows]
    ys = list(range(len(rows)))[::-1]
    with sizes():
        fig = figure(12.6, 1.4 + ROW_IN * 1.4 * len(rows))
        speed, energy = fig.subplots(1, 2, sharey=True, width_ratios=(3, 2))
        for y, r, colour in zip(ys, rows, colours, strict=True):
            speed.barh(y + 0.2, r.burst_tflops, height=0.38, color=colour, alpha=BURST_ALPHA)
            speed.barh(y - 0.2, r.sustained_tflops, height=0.38, color=colour)
            speed.text(r.sustained_tflops, y - 0.2, f" {r.sustained_tflops:.0f} ({sustained_pct(r):.0f}%)",
                       va="center", fontsize=9)
            speed.text(r.burst_tflops, y + 0.2, f" {r.burst_tflops:.0f}", va="center", fontsize=9, color="#555555")
            if r.energy is not None:
                j = r.energy.joules
                err = [[j.value - j.lo], [j.hi - j.value]] if j.lo is not None and j.hi is not None else None
                energy.barh(y, j.value, height=0.5, color=colour, xerr=err, ecolor="#333333", capsize=3)
                energy.text(j.hi or j.value, y, f" {j.value:#.3g} J", va="center", fontsize=9)
        speed.set_yticks(ys, labels)
        speed.set_xlabel("TFLOP/s (light: burst, solid: sustained)")
        energy.set_xlabel("joules per GEMM, sustained")
        for ax in (speed, energy):
            style(ax)
        speed.set_xlim(0, max(max(r.burst_tflops, r.sustained_tflops) for r in rows) * 1.25)
        joules = [r.energy.joules.hi or r.energy.joules.value for r in rows if r.energy is not None]
        if joules:
            energy.set_xlim(0, max(joules) * 1.35)
        image = png(fig)
    caption = (f"From {study.source}: each headline implementation after an idle gap, its burst and its steady state "
               f"(the rule: {study.rule.text()}). Left: the light bar is the burst (the first launches after the "
               "gap), the solid bar the steady state, its figure followed by its % of the burst's. Right: joules per "
               f"launch in the steady state, with the {INTERVAL} over the rounds. CUDA blue, Triton orange, Gluon "
               "green, cuBLAS grey.")
    return Plot(KEY, TITLE, caption, image, figure=fig)
