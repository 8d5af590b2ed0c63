"""The full results: one table per problem, every record of the file in it, figures or the reason for none."""

from __future__ import annotations

from harness.problems import Problem
from harness.registry import BY_ID, IDEAS
from harness.report import anchors
from harness.report.cells import (
    LEGEND,
    beta0_cell,
    figure_cells,
    flags_cell,
    numerics_cell,
    precision_cell,
    regs_cells,
)
from harness.report.measured import Measured
from harness.report.tables import Cell, Table, to_markdown
from harness.run.records import Result
from harness.run.results import Results, load


def _kernel_cells(r: Result) -> list[Cell]:
    if r.kernel is None:
        return [Cell("baseline", cls="muted"), Cell("—", cls="muted"), Cell("—", cls="muted")]
    kernel = BY_ID.get(r.kernel)
    if kernel is None:
        return [Cell(r.kernel, code=True), Cell("?", cls="muted"), Cell("not in the registry", cls="warn")]
    idea = IDEAS.get(kernel.idea)
    return [Cell(r.kernel, code=True), Cell(kernel.seed or "ours"),
            Cell(kernel.idea.replace("_", " "), href=anchors.href(anchors.idea(kernel.idea)) if idea else "",
                 cls="nowrap")]


def results_table(m: Measured, problem: Problem) -> Table:
    records = m.on(problem)
    rate = "TFLOP/s" if problem.op == "sgemm" else "GB/s"
    peak = "% FP32 peak" if problem.op == "sgemm" else "% copy BW"
    table = Table([("kernel", False), ("seed", False), ("idea", False), ("implementation", False),
                   ("precision", False), ("ms", True), ("runs", True), ("spread", True), (rate, True),
                   ("% cuBLAS", True), (peak, True), ("numerics", False), ("beta = 0", False), ("regs", True),
                   ("spills", True), ("flags", False)], cls="summary")
    for r in records:
        table.add([*_kernel_cells(r), Cell(r.label), precision_cell(r), *figure_cells(m, r), numerics_cell(r),
                   beta0_cell(r), *regs_cells(r), flags_cell(r)], f"status-{r.status.value}")
    table.notes += [LEGEND[k] for k in ("ms", "pct", "peak", "numerics", "beta0", "regs", "flags")]
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
    legend = "\n".join(f"- {LEGEND[k]}" for k in ("ms", "pct", "peak", "numerics", "beta0", "regs", "flags"))
    return "\n\n".join(parts) + "\n\n" + legend + "\n"
