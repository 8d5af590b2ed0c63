"""`rosetta explain KERNEL`: the CUDA source beside its Triton counterpart(s), and the idea's mapping."""

from __future__ import annotations

from harness.registry import IDEAS, Kernel
from harness.report.mapping_table import mapping_rows
from harness.report.measured import config_text
from harness.report.sections import section_title, seed_title
from harness.report.sources import cuda_text, triton_text


def explain(kernel: Kernel, console) -> None:
    from rich.columns import Columns
    from rich.panel import Panel
    from rich.syntax import Syntax
    from rich.table import Table

    idea = IDEAS[kernel.idea]
    where = (f"seed {kernel.seed} {seed_title(kernel.seed)}, section {section_title(kernel.seed, kernel.section)}"
             if kernel.seed else "tile-rosetta's own kernel")
    console.print(f"[bold]{kernel.id}[/]  ({idea.title}; {where})\n{idea.lesson}\n", markup=True)
    grid = (f"(cdiv(N, {kernel.tile_n}), cdiv(M, {kernel.tile_m}))" if kernel.op == "sgemm"
            else f"(cdiv(M, {kernel.tile_m}))")
    console.print(f"launch: threads {kernel.block}, grid {grid}; preconditions: "
                  + "; ".join(c.text for c in kernel.preconditions), markup=False)
    panels = [Panel(Syntax(cuda_text(kernel.source), "cuda"), title=f"CUDA: kernels_cuda/{kernel.source}")]
    for c in kernel.counterparts:
        notes = "; ".join(c.deviation_notes())
        title = f"Triton {c.name}: kernels_triton/{c.module}.py, {config_text(c.config(kernel))}"
        panels.append(Panel(Syntax(triton_text(c.module), "python"), title=title + (f" ({notes})" if notes else "")))
    console.print(Columns(panels, equal=True, expand=True))
    rows, unproven = mapping_rows(idea)
    if rows:
        table = Table(title="Each tiling decision in each model" + (f" ({unproven})" if unproven else ""))
        for col in ("decision", "CUDA", "Triton", "in Triton, decided by", "checked"):
            table.add_column(col, overflow="fold")
        for row in rows:
            held = sum(v.holds for v in row.verdicts)
            table.add_row(row.decision, row.cuda, row.triton, row.decided_by,
                          f"{held} of {len(row.verdicts)}" if row.verdicts else "-")
        console.print(table)
