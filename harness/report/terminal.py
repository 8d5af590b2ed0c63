"""The side-by-side table printed at the end of a run: one row per implementation, per problem, its columns the
declared metrics that have a terminal column (harness/report/metrics.py), the page's own.

Fitted to the console's width by harness.term_table: the numbers before the names. Implementation names are whole,
wrapped at their words where the width is short; kernel ids are shortened as `rosetta compare` shortens them (the middle
of the template arguments first, then of the name, then its start; never so far that two ids read the same, nor below 30
characters) before % of cuBLAS with its interval and the call are left out; the other columns wrap or are left out,
least needed first (each metric's drop order), and a line under the table names what is not shown or shortened. Where
every column is kept, the room left goes to whole ids first: a verdict (`vs CUDA`, `vs Gluon`, ...) may put its call
under its interval, and `beta=0` its note under its word, so that a run with Gluon rows (three verdict columns) still
shows every id whole at 250 columns. The report and the results file have every column."""

from __future__ import annotations

from dataclasses import replace

from harness.analysis.measured import Measured
from harness.catalog_types.kernel import PRECISION_CLASSES, precision_caveat
from harness.records.lines import Result
from harness.report.metrics import IMPL, terminal_columns
from harness.term_table import print_table

MORE = "the report and the results file have them"
CAVEAT_MARK = "*"


def row(m: Measured, r: Result) -> list[str]:
    # a class used in place of fp32 that is not as accurate is marked by the name, and the mark is said under the
    # table (the caveat in full would push an 80-column row past its width)
    return [c.text(m, r) + (CAVEAT_MARK if c is IMPL and precision_caveat(r.precision) else "")
            for c in terminal_columns()]


def print_summary(m: Measured, console) -> None:
    """Print one table per problem, fitted to the console's width (bold headers on a terminal)."""
    peaks = m.header.peaks
    for i, problem in enumerate(m.problems):
        records = m.on(problem)
        if i:
            console.print()
        title = problem.label + (f"   (peaks: {peaks.fp32_tflops:.1f} TF/s FP32 FMA, {peaks.copy_gbps:.0f} GB/s copy)"
                                 if peaks else "")
        print_table(console, title, [replace(c.term, header=c.header(problem.op)) if c.names else c.term
                                     for c in terminal_columns() if c.term],
                    [row(m, r) for r in records], MORE)
        marked = dict.fromkeys(f"{PRECISION_CLASSES[r.precision].text}: {note}"  # type: ignore[index]
                               for r in records if (note := precision_caveat(r.precision)))
        if marked:
            console.print(f"{CAVEAT_MARK} " + "; ".join(marked), soft_wrap=False, highlight=False)
