"""Model or compiler, rung by rung, as one table (the analysis's splits, harness/analysis/model_or_compiler.py): per
rung Triton against CUDA, Gluon against CUDA and Triton against Gluon with their calls, the share of the gap the
Gluon column closes with its interval, and the compiled quantity that discriminates; Triton against Gluon is named
the model's part only where the two forms share their design, and otherwise says what differs."""

from __future__ import annotations

from harness.analysis.measured import Measured
from harness.analysis.model_or_compiler import SAME_WITHIN, Split
from harness.analysis.verdicts import LEVEL, Call
from harness.report import fmt
from harness.report.ablation import cause_sentence
from harness.report.columns import verdict_metric
from harness.report.doc import Table
from harness.report.metrics import CALLS, Metric
from harness.report.tables import table

TITLE = "Model or compiler, rung by rung"
INTRO = ("Each rung timed in CUDA, Triton and Gluon (the CUDA kernel's own decisions written in Triton's layout-level "
         "language): Gluon against CUDA is the compiler's part of the CUDA-Triton gap; Triton against Gluon is the "
         "programming model's part only where the two forms share their tile, K step and data movement, and where "
         "they do not, the table says what differs and names no part.")


def design(s: Split) -> str:
    """'the model's part: same tile, K step and copies', or what differs: 'K step: Triton 16, Gluon 8'."""
    if s.same_design:
        return "the model's part: the same tile, K step and data movement"
    return "not the model's part: " + "; ".join(f"{d.name}: Triton {d.triton}, Gluon {d.gluon}" for d in s.differs)


def closed_text(s: Split) -> str | None:
    """The share of the gap the Gluon column closes, with its interval; said as the whole gap where Gluon and CUDA
    tie, and as more than the whole gap only where the rounds call Gluon faster than CUDA."""
    c = s.closed
    if c is None:
        return None
    share = fmt.pct_ci(100 * c.value, *((100 * c.lo, 100 * c.hi) if c.lo is not None and c.hi is not None else ()))
    if c.lo is not None and c.coverage < LEVEL:   # too few rounds for a 95% interval: their range, said so
        share += f" (a range, {c.coverage:.1%} coverage)"
    call = s.compiler.call if s.compiler is not None else None
    if call is Call.SAME:
        return f"the whole gap: Gluon and CUDA tie ({share})"
    return f"more than the whole gap: {share}" if call is Call.FAST else share


def discriminates(s: Split) -> str:
    """The compiled quantities that move with the speed between Triton and Gluon and that CUDA does not contradict
    (CUDA / Triton / Gluon), or why none is named."""
    call = s.model.call if s.model is not None else None
    if not s.same_design:
        return "none named: the two forms' designs differ"
    if call is Call.SAME:
        return "none named: Triton and Gluon tie"
    if call not in (Call.FAST, Call.SLOW):
        return "none named: the rounds do not decide between Triton and Gluon"
    return "\n".join(f"{q.name}: " + " / ".join("-" if v is None else f"{v:.3g}" for v in (q.cuda, q.triton, q.gluon))
                     for q in s.moving) or "none of the compiled quantities"


SPLITS: list[Metric[Split]] = [
    Metric("rung", lambda m, s: s.kernel, num=False, code=True),
    verdict_metric("Triton / CUDA: the gap", lambda s: s.gap),
    verdict_metric("Gluon / CUDA: the compiler's part", lambda s: s.compiler),
    verdict_metric("Triton / Gluon", lambda s: s.model, sub=lambda m, s: design(s)),
    Metric("gap closed by Gluon", lambda m, s: closed_text(s), num=False,
           legend="gap closed by Gluon: (T − G) / (T − C) of each round's median times, where the rounds call Triton "
                  "slower than CUDA, the median over the rounds the three share with the distribution-free "
                  f"{LEVEL:.0%} interval of a median: the share of the gap that writing the CUDA kernel's decisions "
                  "in Gluon removes; the whole gap where Gluon and CUDA tie, more only where the rounds call Gluon "
                  "faster."),
    Metric("why Gluon trails CUDA, by ablation",
           lambda m, s: f"{cause_sentence(s.cause, s.problem.M)} ({s.cause_file})" if s.cause else None,
           num=False, optional=True,
           legend="why Gluon trails CUDA: the SIMT summit's ablation (rosetta ablate; the file named, the run's own or "
                  "the newest of the same device), which adds what the Gluon form has more of to CUDA's own cubin and "
                  "nothing else, with CUDA as the control."),
    Metric("moves with the speed (CUDA / Triton / Gluon)", lambda m, s: discriminates(s), num=False,
           legend="moves with the speed: a compiled quantity (FFMA per 64- or 128-bit shared load and block barriers "
                  "in the static SASS, spilled bytes, issue-active cycles where a profile was given) whose values for "
                  f"Triton and Gluon differ by more than {SAME_WITHIN:.0%} with the faster of the two holding the "
                  "better one, and that CUDA does not contradict: where the rounds decide CUDA against a form, the "
                  "faster side does not hold the worse value, CUDA faster than the slower form does not hold that "
                  "form's value, and where they tie the value does not differ; registers have no better side."),
]
NOTES = [f"Speed ratios with their {LEVEL:.0%} interval and call; " + CALLS + "."]


def splits_table(m: Measured, rows: list[Split]) -> Table:
    out = table(m, SPLITS, rows, "model-or-compiler")
    out.notes += NOTES
    return out


def lines(m: Measured, found: list[Split]) -> list[str]:
    """The table in the terminal (`rosetta gluon`): a block per rung and problem, each column a line."""
    out: list[str] = []
    for s in found:
        out.append(f"{s.kernel} {s.problem.label}")
        for c in SPLITS[1:]:
            cell = c.cell(m, s)
            out.append(f"    {c.name}: {cell.text.replace(chr(10), '; ')}" + (f" ({cell.sub})" if cell.sub else ""))
    return out
