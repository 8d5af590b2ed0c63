"""`rosetta explain KERNEL`: the CUDA source beside its Triton counterpart(s), and the idea's mapping.

From `side_by_side` columns on, CUDA is on the left and the Triton counterparts on the right; below
that the sources are stacked (CUDA first), and the output says which layout it chose and why.
"""

from __future__ import annotations

from harness.analysis.mapping import Row
from harness.registry import IDEAS, Kernel
from harness.report.names import config_text
from harness.report.sections import section_title, seed_title
from harness.report.sources import cuda_text, triton_text
from harness.term_table import Column, print_table


def explain(kernel: Kernel, console, side_by_side: int = 160, rows: list[Row] | None = None,
            unproven: str = "") -> None:
    """Print the sources and the idea's mapping `rows` (proven by the caller, or the claims' text with `unproven`
    saying why not)."""
    from rich.console import Group
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
    # word_wrap: a long source line continues on the next line of its panel instead of being cut off.
    cuda = Panel(Syntax(cuda_text(kernel.source), "cuda", word_wrap=True), title=f"CUDA: kernels_cuda/{kernel.source}")
    tritons = []
    for c in kernel.counterparts:
        notes = "; ".join(c.deviation_notes())
        title = f"Triton {c.name}: kernels_triton/{c.module}.py, {config_text(c.config(kernel))}"
        tritons.append(Panel(Syntax(triton_text(c.module), "python", word_wrap=True),
                             title=title + (f" ({notes})" if notes else "")))
    width = console.width
    if width >= side_by_side:
        console.print(f"layout: side by side, CUDA left and Triton right ({width} columns)", markup=False)
        grid_table = Table.grid(expand=True, padding=(0, 1))
        grid_table.add_column(ratio=1)
        grid_table.add_column(ratio=1)
        grid_table.add_row(cuda, Group(*tritons))
        console.print(grid_table)
    else:
        console.print(f"layout: stacked, CUDA first, then Triton ({width} columns; side by side from "
                      f"{side_by_side})", markup=False)
        console.print(cuda)
        for panel in tritons:
            console.print(panel)
    if rows:
        columns = [Column("decision", wrap=16), Column("CUDA", drop=3, wrap=16), Column("Triton", drop=4, wrap=16),
                   Column("in Triton, decided by", drop=2, wrap=14, short="decided by"),
                   Column("checked", drop=1)]
        table = [[row.decision, row.cuda, row.triton, row.decided_by,
                  f"{sum(v.holds for v in row.verdicts)} of {len(row.verdicts)}" if row.verdicts else "-"]
                 for row in rows]
        print_table(console, "Each tiling decision in each model" + (f" ({unproven})" if unproven else ""),
                    columns, table, "a wider terminal shows them")
