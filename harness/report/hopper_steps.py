"""Hopper's tensor-core ladder one rung at a time, per precision class: what each rung gains or loses against the rung
before, in each model, and which measured counter moved most in the direction of that change.

A chain starts from the mma.sync rung (rosetta.tc_gemm with K-major B, the Ampere-style instruction the wgmma rungs
replace; its tiles are one rung, represented by the fastest) and follows the wgmma rungs of that precision in
registry order (harness/catalog/hopper.py). The counter of a step is the one causes.py ranks first among those
pointing with the speed (ladder_steps.moved_counter), so a step that loses points names what got worse.
"""

from __future__ import annotations

from harness.analysis.measured import Best, Measured
from harness.catalog import hopper, tensor_cores
from harness.catalog_types.kernel import Kernel
from harness.problems import Problem
from harness.registry import PRECISION_CLASSES
from harness.report.ladder_steps import step_cells
from harness.report.names import baseline_label
from harness.report.tables import Cell, Table

__all__ = ["HOPPER_IDEAS", "TITLE", "chains", "hopper_steps_table", "rung_name"]

# The table's title in the wgmma idea's section (folded there: the Hopper ladder chart shows the same figures).
TITLE = "Rung by rung: what each Hopper idea gained, and what moved"
# The ideas whose section shows the table: the wgmma rungs'.
HOPPER_IDEAS = frozenset(k.idea for k in hopper.KERNELS)
_HOPPER_CLASSES = ("tf32", "3xtf32")   # the Hopper rungs' classes, in the order the table shows them
# Counters and compiled facts: the first step of each chain changes the tensor-core instruction itself (mma.sync to
# wgmma), a compiled fact that no counter names.
_KINDS = ("counter", "compiled")


def chains() -> list[tuple[str, list[list[Kernel]]]]:
    """(precision, rungs) for TF32 and 3xTF32: the mma.sync rung, then each wgmma rung of that precision."""
    out = []
    for precision in _HOPPER_CLASSES:
        start = [k for k in tensor_cores.KERNELS if k.precision == precision and k.b_layout == "kmajor"]
        out.append((precision, [start, *([k] for k in hopper.KERNELS if k.precision == precision)]))
    return out


def _problems(m: Measured) -> list[Problem]:
    ids = {k.id for k in hopper.KERNELS}
    return [p for p in m.problems if any(r.kernel in ids and r.timed for r in m.on(p))]


def rung_name(best: Best | None, kernels: list[Kernel]) -> str:
    """A rung as the table and the chart name it: the kernel's name without its template arguments."""
    kernel = best.result.kernel if best is not None and best.result.kernel else kernels[0].id
    return kernel.split("<")[0].removeprefix("rosetta.")


def hopper_steps_table(m: Measured) -> Table:
    """One row per rung and problem: CUDA's and Triton's % of the class's cuBLAS, the points gained or lost against
    the rung before (the same model's), and the counter that moved most that way."""
    table = Table([("problem", False), ("class", False), ("rung", False), ("CUDA % cuBLAS", True),
                   ("points", True), ("CUDA: what moved", False), ("Triton % cuBLAS", True),
                   ("points", True), ("Triton: what moved", False)], cls="hopper-steps")
    for problem in _problems(m):
        for precision, rungs in chains():
            before: tuple[Best | None, Best | None] = (None, None)
            for kernels in rungs:
                cuda = m.best(m.timed_of(kernels, problem, "cuda", precision))
                tri = m.best(m.timed_of(kernels, problem, "triton", precision))
                if cuda is None and tri is None:
                    continue
                table.add([Cell(problem.shape_label), Cell(PRECISION_CLASSES[precision].text),
                           Cell(rung_name(cuda, kernels), code=True),
                           *step_cells(m, cuda, before[0], _KINDS), *step_cells(m, tri, before[1], _KINDS)])
                before = (cuda or before[0], tri or before[1])
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
