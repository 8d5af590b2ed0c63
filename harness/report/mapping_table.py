"""An idea's mapping claims as a table: each decision in CUDA and in Triton, who decides it in Triton, and
whether its predicate holds on every kernel of the idea (harness.report.mapping proves them on the
kernels compiled for sm_90; where that cannot run here, the rows are shown unproven and say so)."""

from __future__ import annotations

from harness.inspect.evidence import gather
from harness.registry import KERNELS
from harness.registry.ideas import Idea
from harness.report import fmt, mapping
from harness.report.measured import Measured
from harness.report.recorded_evidence import from_run
from harness.report.tables import Cell, Table

# What a predicate's KeyError says when the evidence has no number of that name (harness.inspect.evidence.Numbers).
NO_EVIDENCE = "no evidence named"


def mapping_rows(idea: Idea, prove: bool = True, m: Measured | None = None) -> tuple[list[mapping.Row], str]:
    """The rows, and a sentence when they could not be proven here. With a run (`m`), the evidence of every kernel
    the run compiled comes from its records; only kernels it did not compile are compiled ahead of time."""
    try:
        evidence = None
        if prove and m is not None:
            kernels = [k for k in KERNELS if k.idea == idea.key]
            evidence = from_run(m, kernels)
            missing = [k for k in kernels if k.id not in evidence]
            if missing:
                evidence.update(gather(missing))
        rows = mapping.rows(idea.key, evidence, prove=prove)
        if evidence is not None and m is not None:
            # a file recorded before a fact existed lacks it: those kernels alone are compiled ahead of time
            stale = {v.kernel for row in rows for v in row.verdicts if NO_EVIDENCE in v.error}
            if stale:
                evidence.update(gather([k for k in KERNELS if k.id in stale]))
                rows = mapping.rows(idea.key, evidence, prove=prove)
        return rows, "" if prove else "not checked in this render"
    except KeyError:
        return [], ""
    except Exception as e:  # no NVRTC, no Triton compile: the text still renders, unproven
        return mapping.rows(idea.key, prove=False), f"not proven in this render ({fmt.first_line(str(e), 160)})"


def _proof(row: mapping.Row) -> Cell:
    if not row.verdicts:
        return Cell("not checked", cls="muted")
    failed = [v for v in row.verdicts if not v.holds]
    checks = list(dict.fromkeys(f"{'CUDA' if v.side == 'cuda' else 'Triton'}: {v.check}" for v in row.verdicts
                                if v.check))
    if failed:
        return Cell(f"✗ fails on {', '.join(v.label for v in failed[:3])}\n" + "\n".join(checks), cls="bad")
    return Cell(f"✓ {len(row.verdicts)} of {len(row.verdicts)}\n" + "\n".join(checks), cls="ok-text")


def mapping_table(idea: Idea, prove: bool = True, m: Measured | None = None) -> Table:
    rows, unproven = mapping_rows(idea, prove, m)
    table = Table([("decision", False), ("CUDA", False), ("Triton", False), ("in Triton, decided by", False),
                   ("checked on the compiled kernels", False)], cls="mapping")
    for row in rows:
        table.add([Cell(row.decision), Cell(row.cuda), Cell(row.triton),
                   Cell(row.decided_by, cls="by-compiler" if row.decided_by == mapping.COMPILER else "by-programmer"),
                   _proof(row)])
    if table:
        table.notes.append("decided by: who makes the decision on the Triton side, the programmer (in the kernel "
                           "text or its launch settings) or the compiler (from the layouts it chooses).")
        table.notes.append("checked: each row's predicate evaluated on every kernel of the idea in the registry, "
                           "CUDA and each Triton form: the kernels the run compiled and measured where it has "
                           "them (SASS, ptxas, ttgir), the others compiled ahead of time for sm_90; "
                           "n of n = the verdicts that hold." + (f" Rows {unproven}." if unproven else ""))
    return table
