"""The hardware counters and the ladders' steps, as tables of the declared columns (harness/report/columns.py).

The counters `rosetta profile --results` (or `rosetta run --profile`) stored with a run's records, one table per idea:
a row whose counters describe another launch than the timed one (ncu's kernel time far from the timed median) is
greyed with both times, and no cause is read from it (causes.py). The SIMT ladder and Hopper's chains one rung at a
time (harness/analysis/steps.py): each rung's step against the rung before, with its interval and call, and what
moved."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.analysis.causes import COUNTER_TOLERANCE, tied
from harness.analysis.measured import Measured
from harness.analysis.steps import HopperStep, LadderStep, Moved, Step, hopper_steps, ladder_steps
from harness.catalog_types.kernel import Kernel
from harness.report import fmt
from harness.report.doc import Cell, Table
from harness.report.metrics import CALLS, Metric, call_style, verdict_text
from harness.report.tables import table
from harness.report.wording import PRECISION_TEXT, baseline_label

# ---------------------------------------------------------------------------------------------- counters, steps
# (column, the counter it shows, how it is written); a counter the profile lacks is shown as a dash.
COUNTERS: tuple[tuple[str, str, Callable[[float], str]], ...] = (
    ("FMA pipe", "fma_pipe_pct", lambda v: f"{v:.1f}%"),
    ("tensor pipe", "tensor_pipe_pct", lambda v: f"{v:.1f}%"),
    ("smem", "smem_throughput_pct", lambda v: f"{v:.1f}%"),
    ("L2", "l2_throughput_pct", lambda v: f"{v:.1f}%"),
    ("smem bank conflicts", "smem_bank_conflicts", lambda v: f"{v:.3g}"),
    ("DRAM / model", "dram_vs_model", lambda v: f"{v:.2f}×"),
    ("occupancy", "achieved_occupancy_pct", lambda v: f"{v:.1f}%"),
    ("global reads / kFMA", "global_requests_per_kfma", lambda v: f"{v:.3f}"),
    ("bytes / cp.async", "ldgsts_bytes_per_instruction", lambda v: f"{v:.0f}"),
    ("kernel ms (ncu)", "duration_ns", lambda v: f"{v / 1e6:.3f}"),
)
_LABEL = {key: (label, write) for label, key, write in COUNTERS}
_UNNAMED = {"refused": "counters refused: ncu's time is off the timed one",
            "nothing": "nothing measured moved its way by enough to explain it"}


def moved_text(mv: Moved | None) -> str | None:
    """'smem bank conflicts: 1.2e+06 → 1.7e+04', why no quantity is named, or None where no counters were recorded
    (the column is then not drawn) or the step is no gain (nothing to explain)."""
    if mv is None or mv.unnamed in ("unrecorded", "tie"):
        return None
    if mv.quantity is None:
        return _UNNAMED.get(mv.unnamed or "nothing", mv.unnamed or "")
    label, write = _LABEL.get(mv.quantity, (mv.quantity.replace("_", " "), lambda v: f"{v:.3g}"))
    if isinstance(mv.before, str) or isinstance(mv.after, str):   # a compiled fact: an instruction's form
        return f"{label}: {mv.before} → {mv.after}"
    return f"{label}: {write(mv.before)} → {write(mv.after)}"  # type: ignore[arg-type]


# What a step cell says where the rung has no step: its kernel opens a lineage (steps.lineage_before); and where the
# step before is the same launch timed again, which is no step
STARTS = "starts a lineage: no step"
SAME_LAUNCH = "the same launch as the step before (A/A), no step"


def step_text(s: Step) -> str:
    """The step's speed over the rung before in its lineage, with its interval and call, and the change in points."""
    if s.before is None:
        return STARTS if s.lineage == "starts" else "—"
    if s.verdict is None:
        return "—"
    return (f"{SAME_LAUNCH}: {verdict_text(s.verdict)}" if s.same_launch
            else f"{verdict_text(s.verdict)} · {s.points:+.1f} pts")


def step_columns(name: str, get: Callable[[Any], Step | None]) -> list[Metric[Any]]:
    """A model's three columns of a ladder's table: its % of cuBLAS, the step against the rung before (its speed
    ratio, interval and call), and what moved (drawn only where some row has counters)."""
    return [
        Metric(f"{name} % cuBLAS", lambda m, row: s.best.interval if (s := get(row)) else None,
               lambda v: fmt.pct_ci(*v), style=lambda v: "nowrap"),
        Metric(f"{name} step", lambda m, row: s if (s := get(row)) is not None and (s.before is not None
                                                                                   or s.lineage == "starts") else None,
               step_text, style=lambda s: call_style(s.verdict) if s.before is not None else "muted"),
        Metric(f"{name}: what moved", lambda m, row: moved_text(s.moved) if (s := get(row)) else None, num=False,
               optional=True),
    ]


STEPS_LEGEND = ("step: the rung's speed over the step before it in its lineage (the same model's record of the kernel "
                "its source is shown as a diff against: the same document's kernel before it, or the ladder's rung "
                "before for tile-rosetta's own; a kernel that opens its series starts a lineage and has no step), its "
                "interval and call from the interleaved rounds, and the change in % of cuBLAS in points; a Triton "
                "form launched as the step before it (one kernel, the same settings) is that launch timed twice, an "
                "A/A pair, and no step; " + CALLS + ". What moved: for a step the rounds call FAST, of the Nsight "
                "Compute counters stored with both rungs' records (rosetta run --profile), the one that favours the "
                "faster and plausibly explains most of the difference, before → after; the column is drawn only where "
                "counters were recorded.")


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
    *step_columns("CUDA", lambda s: s.cuda),
    *step_columns("Triton", lambda s: s.triton),
]
HOPPER: list[Metric[HopperStep]] = [
    Metric("problem", lambda m, s: s.problem.shape_label, num=False),
    Metric("class", lambda m, s: PRECISION_TEXT[s.precision], num=False),
    Metric("rung", lambda m, s: s.name, num=False, code=True),
    *step_columns("CUDA", lambda s: s.cuda),
    *step_columns("Triton", lambda s: s.triton),
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

