"""The hardware counters and the ladders' steps, as tables.

The counters `rosetta profile --results` stored with a run's records, one table per idea: a rung's speed is a number;
the counters say why it is that number: how busy the FMA or tensor pipe was, how many shared-memory bank conflicts the
tiles cost, how many bytes came from DRAM against the fewest any kernel must move, how full the SMs were, and how many
global read instructions fed each thousand FMAs (a kernel that falls back to 4-byte copies on an unaligned shape shows
it there first). A row whose counters describe another launch than the timed one (ncu's kernel time far from the timed
median: an autotuner that chose another tile under the profiler) is shown greyed with both times, and no cause is read
from it (causes.py).

The SIMT ladder and Hopper's chains one rung at a time (the steps: harness/analysis/steps.py): what each rung gains or
loses against the rung before, the call, and the measured quantity that moved most that way, before → after.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.analysis.causes import COUNTER_TOLERANCE, MIN_GAP, tied
from harness.analysis.measured import Measured
from harness.analysis.steps import Moved, Step, hopper_steps, ladder_steps
from harness.analysis.verdicts import Call
from harness.catalog_types.kernel import PRECISION_CLASSES, Kernel
from harness.report import fmt, wording
from harness.report.doc import Cell, Table
from harness.report.wording import baseline_label

__all__ = ["COLUMNS", "HOPPER_TITLE", "counters_table", "hopper_steps_table", "ladder_steps_table", "moved_text"]

# (column, the counter it shows, how it is written); a counter the profile lacks is shown as a dash.
COLUMNS: tuple[tuple[str, str, Callable[[float], str]], ...] = (
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


_LABEL = {key: (label, write) for label, key, write in COLUMNS}
# The Hopper table's title in the wgmma idea's section (folded there: the Hopper ladder chart shows the same figures).
HOPPER_TITLE = "Rung by rung: what each Hopper idea gained, and what moved"
_UNNAMED = {"refused": "counters refused: ncu's time is off the timed one", "unrecorded": "no counters recorded",
            "nothing": "nothing measured moved its way by enough to explain it"}


def counters_table(m: Measured, kernels: list[Kernel]) -> Table:
    """One row per profiled record of these kernels, in the run's order; empty when none was profiled.

    A column whose counter is zero or absent in every row (the tensor pipe of a SIMT ladder, cp.async in a
    kernel that never issues one) says nothing here and is left out.
    """
    ids = {k.id for k in kernels}
    rows = [(p, r, r.resources.profile) for p in m.problems for r in m.on(p)
            if r.kernel in ids and r.resources and r.resources.profile]
    shown = [c for c in COLUMNS if any(counters.get(c[1]) for _, _, counters in rows)]
    table = Table([("problem", False), ("kernel", False), ("implementation", False),
                   *((label, True) for label, _, _ in shown)], cls="counters")
    untied = []
    for p, r, counters in rows:
        off = tied(r) is False
        untied += [f"{r.kernel} [{r.label}]"] if off else []
        cells = []
        for _, key, write in shown:
            if key not in counters:
                cells.append(Cell("—", num=True, cls="muted"))
            elif key == "duration_ns" and off and r.timing is not None:
                # The mark is on the figure that shows it: this row's counters describe another launch.
                cells.append(Cell(f"{write(counters[key])} ≠ timed {r.timing.median_ms:.3f}", num=True, cls="bad"))
            else:
                cells.append(Cell(write(counters[key]), num=True, cls="muted" if off else ""))
        table.add([Cell(p.shape_label), Cell(r.kernel or "", code=True), Cell(r.label), *cells],
                  "untied" if off else "")
    table.notes += [
        "Read by Nsight Compute (rosetta profile --results), one launch per implementation, clocks not locked "
        "(--clock-control none), so the kernel time is the one the timed runs see, give or take the replay.",
        "DRAM / model: bytes read and written in DRAM over the fewest any implementation must move (A, B and C "
        "once). Global reads / kFMA: warp-wide global load and cp.async instructions per thousand FMAs. "
        "Bytes / cp.async: 512 is a float4 copy by every lane of a warp, 128 a 4-byte one. smem, L2: shared-memory "
        "and L2 throughput, % of their peak over the kernel's time.",
    ]
    if untied:
        table.notes.append(f"Counters are read only where ncu's kernel time is within {COUNTER_TOLERANCE:.0%} of the "
                           "timed median (and, for an autotuned row, the profiled launch ran the timed "
                           "configuration). The rows marked ≠ describe another launch than the one timed, and no "
                           "cause is read from them: " + "; ".join(untied) + ".")
    return table


def moved_text(mv: Moved) -> str:
    """'smem bank conflicts: 1.2e+06 → 1.7e+04', or why no quantity is named."""
    if mv.quantity is None:
        if mv.unnamed == "tie":
            return f"a tie (under {MIN_GAP - 1:.0%} apart)"
        return _UNNAMED[mv.unnamed or "nothing"]
    label, write = _LABEL.get(mv.quantity, (mv.quantity.replace("_", " "), lambda v: f"{v:.3g}"))
    if isinstance(mv.before, str) or isinstance(mv.after, str):   # a compiled fact: an instruction's form
        return f"{label}: {mv.before} → {mv.after}"
    return f"{label}: {write(mv.before)} → {write(mv.after)}"  # type: ignore[arg-type]


def _step_cells(s: Step | None, unmeasured: str = "") -> list[Cell]:
    if s is None:
        return [Cell("—", num=True, cls="muted"), Cell("", num=True), Cell(unmeasured, cls="muted")]
    if s.before is None:
        why = "starts a lineage: no step" if s.lineage == "starts" else "the step before was not timed"
        return [Cell(fmt.pct(s.best.pct), num=True), Cell("—", num=True, cls="muted"), Cell(why, cls="muted")]
    call = s.call
    # A cause is named only for a step the rounds decided was a gain: a tie has nothing to explain, and a loss or an
    # undecided step is said as such.
    what = (moved_text(s.moved) if call is Call.FAST and s.moved is not None
            else f"{wording.relation(s.verdict)} ({wording.speed(s.verdict)}): no cause stated")
    return [Cell(fmt.pct_ci(*s.best.interval), num=True, cls="nowrap"),
            Cell(f"{s.points:+.1f} · {fmt.call(call)}", num=True,
                 cls="ok" if call is Call.FAST else "bad" if call is Call.SLOW else "muted"),
            Cell(what, cls="" if call is Call.FAST else "muted")]


def ladder_steps_table(m: Measured) -> Table:
    """One row per rung of the ladder chart, numbered as the chart: the idea it adds, CUDA's and the rung's own Triton
    counterpart's % of cuBLAS fp32 on the headline problem, the points gained or lost against the rung before, and
    the counter that moved most that way; "no step measured" where a side has no record of its own (a rung drawn for
    the other model, or for a tuner's pick only)."""
    table = Table([("rung", False), ("adds", False), ("CUDA % cuBLAS", True), ("points", True),
                   ("CUDA counter that moved", False), ("Triton % cuBLAS", True), ("points", True),
                   ("Triton counter that moved", False)], cls="ladder-steps")
    problem = m.headline("sgemm")
    if problem is None:
        return table
    for s in ladder_steps(m):
        table.add([Cell(str(s.rung.number), num=True), Cell(s.rung.idea.title),
                   *_step_cells(s.cuda, "no step measured"), *_step_cells(s.triton, "no step measured")])
    table.notes += [
        f"On {problem.label}, fp32; % cuBLAS as everywhere on the page. Points: the change in % of cuBLAS from the "
        "step before in the rung's lineage (the same model's record of the kernel its source is shown as a diff "
        "against: the same document's kernel before it, or the ladder's rung before for tile-rosetta's own; a kernel "
        "that opens its series starts a lineage and has no step), with the call of the rung against it from the "
        "interleaved rounds: a cause is named only where the call is FAST. A step of several kernels (a rung with "
        "two tiles, a file of several) is represented by its fastest. Rungs are "
        "numbered as in the chart above; Triton is the rung's own counterpart (the chart's Triton bar is the fastest "
        "of any form, the tuners' picks included).",
        "Counter that moved: of the Nsight Compute counters stored with both rungs' records, the one that favours "
        "the faster of the two and plausibly explains most of the difference (causes.py), before → after; counters "
        "whose kernel time disagrees with the timed one are not used.",
    ]
    return table


def hopper_steps_table(m: Measured) -> Table:
    """One row per rung and problem: CUDA's and Triton's % of the class's cuBLAS, the points gained or lost against
    the rung before (the same model's), and the counter that moved most that way."""
    table = Table([("problem", False), ("class", False), ("rung", False), ("CUDA % cuBLAS", True),
                   ("points", True), ("CUDA: what moved", False), ("Triton % cuBLAS", True),
                   ("points", True), ("Triton: what moved", False)], cls="hopper-steps")
    for s in hopper_steps(m):
        table.add([Cell(s.problem.shape_label), Cell(PRECISION_CLASSES[s.precision].text), Cell(s.name, code=True),
                   *_step_cells(s.cuda), *_step_cells(s.triton)])
    if table.rows:
        table.notes += [
            f"% cuBLAS against the class's own: {baseline_label('tf32')} for TF32, {baseline_label('3xtf32')} for "
            "3xTF32. Each chain starts from the mma.sync rung (rosetta.tc_gemm, B K-major: the fastest of its tiles) "
            "and follows the wgmma rungs in registry order. Triton: each rung's counterpart (for the mma.sync rung, "
            "the fastest of its forms).",
            "Points: the change in % of cuBLAS from the rung before (the same model's). What moved: of the Nsight "
            "Compute counters stored with both rungs' records and the compiled facts (the tensor-core instruction, "
            "spills, load widths), the one that favours the faster of the two and plausibly explains most of the "
            "difference (causes.py), before → after.",
        ]
    return table
