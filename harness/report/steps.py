"""The hardware counters and the ladders' steps, as tables of the declared columns (harness/analysis/columns.py).

The counters `rosetta profile --results` (or `rosetta run --profile`) stored with a run's records, one table per idea:
a row whose counters describe another launch than the timed one (ncu's kernel time far from the timed median) is
greyed with both times, and no cause is read from it (causes.py). The SIMT ladder and Hopper's chains one rung at a
time (harness/analysis/steps.py): each rung's step against the rung before, with its interval and call, and what
moved."""

from __future__ import annotations

from harness.analysis.causes import COUNTER_TOLERANCE, tied
from harness.analysis.measured import Measured
from harness.analysis.steps import HopperStep, LadderStep, hopper_steps, ladder_steps
from harness.catalog_types.kernel import Kernel
from harness.report.columns import COUNTERS, STEPS_LEGEND, step_columns
from harness.report.doc import Cell, Table
from harness.report.metrics import Metric
from harness.report.tables import table
from harness.report.wording import PRECISION_TEXT, baseline_label

# The Hopper table's title in the wgmma idea's section (folded there: the Hopper ladder chart shows the same figures).
HOPPER_TITLE = "Rung by rung: what each Hopper idea gained, and what moved"


def counters_table(m: Measured, kernels: list[Kernel]) -> Table:
    """One row per profiled record of these kernels, in the run's order; empty when none was profiled. A column whose
    counter is zero or absent in every row says nothing here and is left out."""
    ids = {k.id for k in kernels}
    rows = [r for p in m.problems for r in m.on(p) if r.kernel in ids and r.resources and r.resources.profile]
    shown = [c for c in COUNTERS if any(r.resources.profile.get(c[1]) for r in rows)]
    out = Table([("problem", False), ("kernel", False), ("implementation", False),
                 *((label, True) for label, _, _ in shown)], cls="counters")
    untied = []
    for r in rows:
        counters, off = r.resources.profile, tied(r) is False
        untied += [f"{r.kernel} [{r.label}]"] if off else []
        cells = [Cell("—", num=True, cls="muted") if key not in counters else
                 Cell(f"{write(counters[key])} ≠ timed {r.timing.median_ms:.3f}", num=True, cls="bad")
                 if key == "duration_ns" and off and r.timing is not None else
                 Cell(write(counters[key]), num=True, cls="muted" if off else "") for _, key, write in shown]
        out.add([Cell(r.problem.shape_label), Cell(r.kernel or "", code=True), Cell(r.label), *cells],
                "untied" if off else "")
    out.notes += [
        "Read by Nsight Compute, one launch per implementation in the timed configuration, clocks not locked "
        "(--clock-control none), so the kernel time is the one the timed runs see, give or take the replay.",
        "DRAM / model: bytes read and written in DRAM over the fewest any implementation must move (A, B and C once). "
        "Global reads / kFMA: warp-wide global load and cp.async instructions per thousand FMAs. Bytes / cp.async: "
        "512 is a float4 copy by every lane of a warp, 128 a 4-byte one. smem, L2: shared-memory and L2 throughput, "
        "% of their peak over the kernel's time."]
    if untied:
        out.notes.append(f"Counters are read only where ncu's kernel time is within {COUNTER_TOLERANCE:.0%} of the "
                         "timed median (and, for an autotuned row, the profiled launch ran the timed configuration). "
                         "The rows marked ≠ describe another launch than the one timed, and no cause is read from "
                         "them: " + "; ".join(untied) + ".")
    return out


LADDER: list[Metric[LadderStep]] = [
    Metric("rung", lambda m, s: s.rung.number),
    Metric("adds", lambda m, s: s.rung.idea.title, num=False),
    *step_columns("cuda", "CUDA", lambda s: s.cuda),
    *step_columns("triton", "Triton", lambda s: s.triton),
]
HOPPER: list[Metric[HopperStep]] = [
    Metric("problem", lambda m, s: s.problem.shape_label, num=False),
    Metric("class", lambda m, s: PRECISION_TEXT[s.precision], num=False),
    Metric("rung", lambda m, s: s.name, num=False, code=True),
    *step_columns("cuda", "CUDA", lambda s: s.cuda),
    *step_columns("triton", "Triton", lambda s: s.triton),
]


def ladder_steps_table(m: Measured) -> Table:
    """One row per rung of the ladder chart, numbered as the chart: the idea it adds, CUDA's and the rung's own Triton
    counterpart's % of cuBLAS on the headline problem, and each one's step against the rung before."""
    problem = m.headline("sgemm")
    out = table(m, LADDER, ladder_steps(m) if problem else [], "ladder-steps")
    if problem is not None:
        out.notes = [f"On {problem.label}, fp32; % cuBLAS as everywhere on the page. A rung with two tiles is "
                     "represented by its fastest; rungs are numbered as in the chart above; Triton is the rung's own "
                     "counterpart (the chart's Triton bar is the fastest of any form, the tuners' picks included).",
                     STEPS_LEGEND]
    return out


def hopper_steps_table(m: Measured) -> Table:
    """One row per rung and problem of Hopper's chains: CUDA's and Triton's % of the class's cuBLAS and their steps."""
    out = table(m, HOPPER, hopper_steps(m), "hopper-steps")
    if out.rows:
        out.notes = [f"% cuBLAS against the class's own, given B^T as every rung here reads B: "
                     f"{baseline_label('tf32', 'kmajor')} for {PRECISION_TEXT['tf32']}, "
                     f"{baseline_label('3xtf32', 'kmajor')} for {PRECISION_TEXT['3xtf32']}. Each chain starts from "
                     "the mma.sync rung (rosetta.tc_gemm, B K-major: the fastest of its tiles) and follows the "
                     "wgmma rungs in registry order; Triton: each rung's counterpart (for the mma.sync rung, the "
                     "fastest of its forms).", STEPS_LEGEND]
    return out

