"""The full results: one table per problem, every record of the file in it, figures or the reason for none."""

from __future__ import annotations

from harness.analysis.measured import Measured
from harness.problems import Problem
from harness.registry import BY_ID
from harness.report import anchors, fmt
from harness.report.cells import (
    LEGEND,
    beta0_cell,
    figure_cells,
    flags_cell,
    numerics_cell,
    precision_cell,
    regs_cells,
    tutorial_cell,
)
from harness.report.tables import Cell, Table, to_markdown
from harness.run.records import Result
from harness.run.results import Results, load
from harness.specs import spec


def _kernel_cell(r: Result) -> Cell:
    """The kernel id, linked to its row in its idea's section; under it the seed and the idea, as the record has them
    (a kernel the registry no longer lists has no section to link to)."""
    if r.kernel is None:
        return Cell("baseline", cls="muted")
    kernel = r.kernel_facts
    if kernel is None:
        return Cell(r.kernel, code=True, sub="not in the registry", cls="warn")
    sub = f"{'seed ' + kernel.seed if kernel.seed else 'ours'} · {kernel.idea_title}"
    if r.kernel not in BY_ID:
        return Cell(r.kernel, code=True, sub=f"{sub} · no longer in the registry", cls="warn")
    return Cell(r.kernel, code=True, href=anchors.href(anchors.kernel(r.kernel)), sub=sub)


def copy_note(m: Measured) -> str | None:
    """Why a kernel can pass 100% of the measured copy bandwidth: the copy test sits below the spec sheet."""
    peaks, sheet = m.header.peaks, spec(m.header.device)
    if peaks is None or sheet is None:
        return None
    return (f"% copy BW can exceed 100%: the measured device-to-device copy ({fmt.gbps(peaks.copy_gbps)} GB/s) is "
            f"{fmt.pct(100 * peaks.copy_gbps / (sheet.hbm_tbps * 1e3))} of the spec sheet's {sheet.hbm_tbps:g} TB/s "
            f"({sheet.source}), which no kernel can exceed.")


def results_table(m: Measured, problem: Problem) -> Table:
    records = m.on(problem)
    rate = "TFLOP/s" if problem.op == "sgemm" else "GB/s"
    peak = "% FP32 peak" if problem.op == "sgemm" else "% copy BW"
    table = Table([("kernel", False), ("implementation", False),
                   ("precision", False), ("ms", True), ("runs", True), ("spread", True), ("MHz", True),
                   (rate, True), ("% cuBLAS", True), ("call", False), (peak, True),
                   ("vs Triton tutorial", True), ("numerics", False), ("beta = 0", False), ("regs", True),
                   ("spills", True), ("flags", False)], cls="summary")
    for r in records:
        figures = figure_cells(m, r)
        if len(figures) > 1:
            figures.append(tutorial_cell(m, r))
        else:
            figures[0].span += 1
        table.add([_kernel_cell(r), Cell(r.label), precision_cell(r), *figures, numerics_cell(r),
                   beta0_cell(r), *regs_cells(r), flags_cell(r)], f"status-{r.status.value}")
    table.notes += [LEGEND[k] for k in ("ms", "pct", "peak", "tutorial", "numerics", "beta0", "regs", "flags")]
    note = copy_note(m) if problem.op == "sgemv" else None
    if note:
        table.notes.append(note)
    return table


def markdown_results_table(results: Results | Measured | str) -> str:
    """The results tables alone (one per problem), in Markdown: what a README quotes."""
    m = results if isinstance(results, Measured) else Measured(results if isinstance(results, Results)
                                                                   else load(results))
    parts = []
    for problem in m.problems:
        table = results_table(m, problem)
        if table:
            table.notes = []
            parts.append(f"#### {problem.label}\n\n{to_markdown(table)}")
    legend = "\n".join(f"- {LEGEND[k]}" for k in ("ms", "pct", "peak", "tutorial", "numerics", "beta0", "regs",
                                                   "flags"))
    return "\n\n".join(parts) + "\n\n" + legend + "\n"
