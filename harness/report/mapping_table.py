"""An idea's mapping claims as a table: each decision in CUDA and in Triton, who decides it in Triton, and whether
its predicate holds on every kernel of the idea, as the file's analysis record proved it (harness/analysis/mapping.py).
Nothing is compiled here: where the record has no proof of the idea, the claims' text is shown and says so."""

from __future__ import annotations

from harness.analysis.mapping import Row, rows
from harness.analysis.measured import Measured
from harness.catalog_types.idea import Idea
from harness.claims import COMPILER
from harness.report.tables import Cell, Table

# What the page says where the record holds no proof of an idea (its analysis was written without one).
UNPROVEN = "not proven in this file's analysis (`rosetta analyse FILE` proves them)"


def mapping_rows(idea: Idea, m: Measured) -> tuple[list[Row], str]:
    """The rows as the record proved them, or the claims' text with a sentence saying why they are not proven."""
    proven = m.analysis.mapping
    if proven is not None and idea.key in proven.rows:
        return proven.rows[idea.key], ""
    try:
        text = rows(idea.key, prove=False)
    except KeyError:  # an idea with no claims written
        return [], ""
    if proven is not None and idea.key in proven.unproven:
        return text, f"not proven ({proven.unproven[idea.key]})"
    return text, UNPROVEN


def _proof(row: Row) -> Cell:
    if not row.verdicts:
        return Cell("not checked", cls="muted")
    failed = [v for v in row.verdicts if not v.holds]
    checks = list(dict.fromkeys(f"{'CUDA' if v.side == 'cuda' else 'Triton'}: {v.check}" for v in row.verdicts
                                if v.check))
    if failed:
        return Cell(f"✗ fails on {', '.join(v.label for v in failed[:3])}\n" + "\n".join(checks), cls="bad")
    return Cell(f"✓ {len(row.verdicts)} of {len(row.verdicts)}\n" + "\n".join(checks), cls="ok-text")


def mapping_table(idea: Idea, m: Measured) -> Table:
    found, unproven = mapping_rows(idea, m)
    table = Table([("decision", False), ("CUDA", False), ("Triton", False), ("in Triton, decided by", False),
                   ("checked on the compiled kernels", False)], cls="mapping")
    for row in found:
        table.add([Cell(row.decision), Cell(row.cuda), Cell(row.triton),
                   Cell(row.decided_by, cls="by-compiler" if row.decided_by == COMPILER else "by-programmer"),
                   _proof(row)])
    if table:
        table.notes.append("decided by: who makes the decision on the Triton side, the programmer (in the kernel "
                           "text or its launch settings) or the compiler (from the layouts it chooses).")
        where = sorted({v.where for row in found for v in row.verdicts if v.where})
        table.notes.append("checked: each row's predicate evaluated on every kernel of the idea in the registry, "
                           "CUDA and each Triton form, when the file was analysed"
                           + (f" ({'; '.join(where)})" if where else "")
                           + "; n of n = the verdicts that hold." + (f" Rows {unproven}." if unproven else ""))
    return table
