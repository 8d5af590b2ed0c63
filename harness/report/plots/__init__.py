"""The report's plots, each a PNG with a caption, or a sentence saying why the results cannot draw it."""

from __future__ import annotations

from harness.analysis.fp32_work import speed_intervals
from harness.analysis.measured import Measured
from harness.report.plots.accuracy import accuracy
from harness.report.plots.bars import gemv_bars, hopper_chart, ladder_chart, sgemm_bars
from harness.report.plots.common import MAX_WIDTH, Plot, min_text_pt
from harness.report.plots.roofline import roofline
from harness.report.plots.sweep import time_vs_size

__all__ = ["MAX_WIDTH", "Plot", "all_plots", "ladder_chart", "min_text_pt"]


def all_plots(m: Measured) -> list[Plot]:
    """Every plot in reading order, the ladder chart first; a TF32 bar chart only where TF32 kernels were timed."""
    out: list[Plot] = [ladder_chart(m)]
    if "sgemm" in m.ops:
        out.append(sgemm_bars(m, "cublas"))
        tf32 = sgemm_bars(m, "cublas-tf32")
        if tf32.png:
            out.append(tf32)
        hopper = hopper_chart(m)
        if hopper.png:
            out.append(hopper)
    if "sgemv" in m.ops:
        out.append(gemv_bars(m))
    out.append(roofline(m))
    if "sgemm" in m.ops:
        out.append(accuracy(m, speed_intervals(m)))
    out += [time_vs_size(m, op) for op in m.ops]
    return out
