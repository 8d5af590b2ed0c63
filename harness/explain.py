"""`rosetta explain KERNEL`: the CUDA source beside its Triton counterpart(s), and the mapping table."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from harness.ideas import IDEAS
from harness.registry import SEEDS, Kernel
from kernels_cuda import source_path


def counterpart_source(module: str) -> str:
    """The counterpart module's text, read from disk: explaining never needs Triton to compile anything."""
    spec = importlib.util.find_spec(f"kernels_triton.{module}")
    return Path(spec.origin).read_text()


def explain(kernel: Kernel, console) -> None:
    from rich.columns import Columns
    from rich.panel import Panel
    from rich.syntax import Syntax
    from rich.table import Table

    idea = IDEAS[kernel.idea]
    seed = f"{SEEDS[kernel.seed].file}, section '{kernel.section}'" if kernel.seed else "tile-rosetta's own kernel"
    console.print(f"[bold]{kernel.id}[/]  ({idea.title}; {seed})\n{idea.lesson}\n")
    grid = (f"(cdiv(N, {kernel.tile_n}), cdiv(M, {kernel.tile_m}))" if kernel.op == "sgemm"
            else f"(cdiv(M, {kernel.tile_m}))")
    console.print(f"launch: threads {kernel.block}, grid {grid}; preconditions: "
                  + "; ".join(c.text for c in kernel.preconditions))
    panels = [Panel(Syntax(source_path(kernel.source).read_text(), "cuda", line_numbers=False), title="CUDA")]
    for c in kernel.counterparts:
        title = f"Triton {c.name}: {c.module} {c.params} num_warps={c.num_warps}" + (f" ({c.note})" if c.note else "")
        panels.append(Panel(Syntax(counterpart_source(c.module), "python"), title=title))
    console.print(Columns(panels, equal=True, expand=True))
    table = Table(title="Each tiling decision in each model")
    for col in ("decision", "CUDA", "Triton", "in Triton, decided by"):
        table.add_column(col, overflow="fold")
    for row in idea.mapping:
        table.add_row(row.decision, row.cuda, row.triton, row.triton_decided_by)
    console.print(table)
