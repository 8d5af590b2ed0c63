"""fp32 work on the tensor cores, as a table: every implementation the accuracy chart draws (for_fp32_work in
harness/analysis/fp32_work.py: cuBLAS fp32 and TF32, the SIMT summit, the 3xTF32 rows, Triton's bf16 splits, the
Triton tutorial of each fp32 class) on each sgemm problem of a run, with its speed and interval against cuBLAS fp32,
its call, its registers, and its worst error on every numerics layer beside cuBLAS fp32's on the same inputs.

An error cell reads "6.2e-07 (0.35x)": the larger of the normwise and componentwise errors on that layer, and its
ratio to cuBLAS fp32's larger one there. A row is fp32-accurate when its class says so (registry PRECISION_CLASSES);
a bf16x3 row is labelled as not fp32-accurate and held to its own bound.
"""

from __future__ import annotations

from harness.analysis.fp32_work import ERROR_LAYERS, fp32_rows, layer_error
from harness.analysis.measured import Measured
from harness.registry import PRECISION_CLASSES, precision_label
from harness.report import fmt, wording
from harness.report.tables import Cell, Table
from harness.run.records import Result


def _error_cell(r: Result, base: Result | None, layer: str) -> Cell:
    mine = layer_error(r, layer)
    if mine is None:
        return Cell("—", num=True, cls="muted")
    theirs = layer_error(base, layer) if base is not None and base is not r else None
    ratio = f" ({mine / theirs:.2f}x)" if theirs else ""
    worse = theirs is not None and mine > theirs and PRECISION_CLASSES[r.precision].fp32_accurate  # type: ignore[index]
    return Cell(fmt.sci(mine) + ratio, num=True, cls="warn" if worse else "")


def fp32_class_table(m: Measured) -> Table | None:
    """One table over the run's sgemm problems; None where no such row was timed."""
    layers = [layer for layer in ERROR_LAYERS
              if any(layer in (r.numerics.layers if r.numerics else {}) for r in m.all)]
    table = Table([("problem", False), ("implementation", False), ("class", False), ("TFLOP/s", True),
                   ("% cuBLAS fp32", True), ("call", False), ("regs", True),
                   *((f"error: {layer}", True) for layer in layers)], cls="fp32-class")
    for problem in m.problems:
        if problem.op != "sgemm":
            continue
        base = m.baseline(problem, "fp32")
        rows = fp32_rows(m, problem)
        for r in sorted(rows, key=lambda r: -(r.figures.tflops if r.figures else 0.0)):
            c = m.vs(r, "cublas")
            fp32_yardstick = PRECISION_CLASSES[r.precision].yardstick == "fp32"  # type: ignore[index]
            name = f"{r.kernel} · {r.label}" if r.kernel else r.label
            table.add([Cell(problem.shape_label), Cell(name, code=bool(r.kernel)), Cell(precision_label(r.precision)),
                       Cell(fmt.tflops(r.figures.tflops), num=True),
                       Cell(fmt.pct_ci(*m.interval(r)) if fp32_yardstick else "— (against cuBLAS TF32)", num=True,
                            cls="" if fp32_yardstick else "muted"),
                       Cell(wording.relation(c) if c is not None and fp32_yardstick else ""),
                       Cell(str(r.resources.registers) if r.resources and r.resources.registers else "—", num=True),
                       *(_error_cell(r, base, layer) for layer in layers)])
    if not table.rows:
        return None
    table.notes += [
        "Every fp32-class implementation the accuracy chart draws, fastest first; cuBLAS TF32 for reference only.",
        "% cuBLAS fp32: speed against cuBLAS fp32 on the same problem with its 95% interval from the interleaved "
        "rounds, and the call.",
        "error: the larger of the normwise and componentwise forward errors on that layer, and in brackets its "
        "ratio to cuBLAS fp32's on the same inputs; amber where a row labelled fp32-accurate is less accurate than "
        "cuBLAS fp32 there.",
    ]
    return table
