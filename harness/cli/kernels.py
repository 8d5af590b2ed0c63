"""The verbs about the kernels themselves: `rosetta list`, `explain` and `trace` (no GPU needed).

`rosetta explain KERNEL`: the CUDA source beside its Triton counterpart(s), and the idea's mapping. From `SIDE_BY_SIDE`
columns on, CUDA is on the left and the Triton counterparts on the right; below that the sources are stacked (CUDA
first), and the output says which layout it chose and why.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from harness import env
from harness.cli.console import console
from harness.cli.ids import choose, resolve
from harness.registry import IDEAS, SEEDS, Kernel

if TYPE_CHECKING:
    from harness.analysis.mapping import Row

# `rosetta explain` puts CUDA and Triton side by side from this width on (two 80-column halves), stacked below it.
SIDE_BY_SIDE = 160


def add_list(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("list", help="the kernels, their seed, idea and preconditions (fitted to the width; "
                       "--json: every field)")
    s.add_argument("--json", action="store_true", help="every field of every kernel, as JSON")
    s.add_argument("--op", choices=("sgemm", "sgemv"), help="this operation's kernels only")
    s.set_defaults(func=cmd_list)


def cmd_list(args: argparse.Namespace) -> int:
    kernels = choose(None, args.op)
    if args.json:
        rows = [{"id": k.id, "op": k.op, "idea": k.idea, "seed": k.seed, "precision": k.precision,
                 "b_layout": k.b_layout, "seed_file": SEEDS[k.seed].file if k.seed else None, "section": k.section,
                 "source": f"kernels_cuda/{k.source}", "symbol": k.symbol, "block": k.block,
                 "tile": [k.tile_m, k.tile_n, k.tile_k], "preconditions": [c.text for c in k.preconditions],
                 "reads_c_when_beta_zero": k.reads_c_when_beta_zero,
                 "counterparts": [{"name": c.name, "module": f"kernels_triton/{c.module}.py", "config": c.config(k),
                                   "deviations": c.deviation_notes()} for c in k.counterparts],
                 "gluon": [{"name": g.name, "module": f"kernels_gluon/{g.module}.py", "config": g.config(k),
                            "deviations": g.deviation_notes()} for g in k.gluon]}
                for k in kernels]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    from harness.term_table import Column, print_table

    # Where a kernel stands comes first: its seed, idea and threads are what CONTRIBUTING.md sends a reader here for
    # (an 80-column terminal holds them beside the longest id), so they are left out last; before them the tile, the
    # Triton modules and the source file (whose name is the kernel id, README "Layout"), then the preconditions and
    # the beta=0 behaviour, each named under the table when left out. The kernel id is never left out or cut. A
    # precondition shows its condition; its reason is in --json and `rosetta explain`.
    columns = [Column("kernel"), Column("seed", drop=8), Column("idea", drop=7), Column("threads", drop=6, short="thr"),
               Column("tile", drop=1), Column("preconditions", drop=4, wrap=17), Column("beta=0", drop=5),
               Column("kernels_cuda/", drop=3), Column("kernels_triton/", drop=2)]
    rows = [[k.id, k.seed or "ours", k.idea, "x".join(map(str, k.block[:2])),
             f"{k.tile_m}x{k.tile_n}x{k.tile_k}" if k.tile_n else f"{k.tile_m} row(s)",
             "\n".join(c.text.split(" (", 1)[0] for c in k.preconditions),
             "reads C" if k.reads_c_when_beta_zero else "honours",
             k.source, "\n".join(f"{c.name}: {c.module}.py" for c in k.counterparts)] for k in kernels]
    print_table(console(), f"tile-rosetta: {len(kernels)} kernels", columns, rows,
                "a wider terminal or `rosetta list --json` shows them")
    return 0


def add_explain(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("explain", help=f"a kernel's CUDA source beside its Triton counterpart (side by side from "
                       f"{SIDE_BY_SIDE} columns, stacked below)")
    s.add_argument("kernel", help="a kernel id as `rosetta list` shows it, or any part of one that no other id holds "
                   "(… stands for anything: an id a table shortened works as shown)")
    s.set_defaults(func=cmd_explain)


def cmd_explain(args: argparse.Namespace) -> int:
    from harness.analysis import mapping

    kernel = resolve(args.kernel)
    try:
        rows, unproven = mapping.rows(kernel.idea), ""
    except KeyError:  # an idea with no claims written
        rows, unproven = [], ""
    except Exception as e:  # no NVRTC, no Triton compile: the claims' text, unproven, and why
        rows, unproven = mapping.rows(kernel.idea, prove=False), f"not proven here: {type(e).__name__}: {e}"[:200]
    explain(kernel, console(), SIDE_BY_SIDE, rows, unproven)
    return 0


def explain(kernel: Kernel, console, side_by_side: int = SIDE_BY_SIDE, rows: list[Row] | None = None,
            unproven: str = "") -> None:
    """Print the sources and the idea's mapping `rows` (proven by the caller, or the claims' text with `unproven`
    saying why not)."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.syntax import Syntax
    from rich.table import Table

    from harness.catalog import CATALOG
    from harness.report.sources import cuda_text, triton_text
    from harness.report.wording import config_text, section_title, seed_title
    from harness.term_table import Column, print_table

    idea = IDEAS[kernel.idea]
    where = (f"seed {kernel.seed} {seed_title(CATALOG, kernel.seed)}, section "
             f"{section_title(CATALOG, kernel.section)}" if kernel.seed else "tile-rosetta's own kernel")
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


def add_trace(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("trace", help="seed 002's worked example: indices each block/thread loads per phase")
    s.add_argument("--interpreter", action="store_true", help="use the Triton interpreter even with a GPU")
    s.set_defaults(func=cmd_trace)


def cmd_trace(args: argparse.Namespace) -> int:
    env.use_interpreter_without_gpu()
    from harness.inspect.trace import print_trace, trace

    use_gpu = env.has_gpu() and not args.interpreter
    print_trace(trace(gpu=use_gpu), console(), "CUDA kernel on the GPU" if use_gpu else
                "Triton counterpart in the interpreter")
    return 0
