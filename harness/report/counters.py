"""The hardware counters `rosetta profile --results` stored with a run's records, as one table per idea.

A rung's speed is a number; the counters say why it is that number: how busy the FMA or tensor pipe was,
how many shared-memory bank conflicts the tiles cost, how many bytes came from DRAM against the fewest any
kernel must move, how full the SMs were, and how many global read instructions fed each thousand FMAs (a
kernel that falls back to 4-byte copies on an unaligned shape shows it there first).

A row whose counters describe another launch than the timed one (ncu's kernel time far from the timed median:
an autotuner that chose another tile under the profiler) is shown greyed with both times, and no cause is read
from it (causes.py).
"""

from __future__ import annotations

from collections.abc import Callable

from harness.analysis.causes import COUNTER_TOLERANCE, tied
from harness.analysis.measured import Measured
from harness.registry import Kernel
from harness.report.tables import Cell, Table

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
        for _, key, fmt in shown:
            if key not in counters:
                cells.append(Cell("—", num=True, cls="muted"))
            elif key == "duration_ns" and off and r.timing is not None:
                # The mark is on the figure that shows it: this row's counters describe another launch.
                cells.append(Cell(f"{fmt(counters[key])} ≠ timed {r.timing.median_ms:.3f}", num=True, cls="bad"))
            else:
                cells.append(Cell(fmt(counters[key]), num=True, cls="muted" if off else ""))
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
