"""The compact tables under the findings, each the declared columns of harness/report/columns.py over the rows the
analysis makes: the headline, per idea, the shared Triton kernels, fp32 work on the tensor cores (every point the
accuracy chart draws), and the documents' figures beside ours."""

from __future__ import annotations

from harness.analysis.claims import claims_table, stride_sweep, unroll_check
from harness.analysis.fp32_work import fp32_rows
from harness.analysis.measured import Measured
from harness.analysis.overview import headline_rows, idea_rows, shared_modules
from harness.report import columns, fmt
from harness.report.doc import Inline, Mono, Table
from harness.report.metrics import verdict_text
from harness.report.tables import table


def headline_table(m: Measured) -> Table:
    """Per op and precision class on its headline problem: the best CUDA kernel, the best Triton one, cuBLAS."""
    out = table(m, columns.HEADLINE, headline_rows(m), "headline")
    out.notes = [*columns.HEADLINE_LEGEND, *out.notes]   # and the legend of each optional column drawn
    return out


def idea_table(m: Measured) -> Table:
    out = table(m, columns.IDEAS, idea_rows(m), "ideas")
    headline = [p.label for op in m.ops if (p := m.headline(op))]
    out.notes = [f"Measured on {fmt.joined(headline) or 'no timed problem'}: each op's headline problem, the one of "
                 "the headline table.", *columns.IDEAS_LEGEND,
                 *out.notes]
    return out


def shared_triton_table(m: Measured) -> Table:
    sm = shared_modules(m)
    return table(m, columns.SHARED, sm, "shared", row_cls=lambda s: "several" if len(s.ideas) > 1 else "")


def fp32_class_table(m: Measured) -> Table | None:
    """One table over the run's sgemm problems, fastest first; None where no such row was timed."""
    rows = [r for p in m.problems if p.op == "sgemm"
            for r in sorted(fp32_rows(m, p), key=lambda r: -(r.rate or 0.0))]
    if not rows:
        return None
    out = table(m, columns.fp32_columns(columns.error_layers(m)), rows, "fp32-class")
    out.notes.insert(0, "Every fp32-class implementation the accuracy chart draws, fastest first; the cuBLAS of "
                        "another class for reference only.")
    return out


def claims_tables(m: Measured) -> tuple[Table, Table | None, list[Inline] | None]:
    """The documents' figures beside ours, seed 001's stride sweep, and the unroll ratio in words."""
    claims = table(m, columns.CLAIMS, claims_table(m), "claims")
    claims.notes.insert(0, f"ours: the CUDA kernel on {m.header.device}, on the seeds' 4096³ for sgemm (else the "
                           "largest problem measured).")
    points = stride_sweep(m)
    stride = table(m, columns.STRIDE, points, "stride") if points and any(p.ours for p in points) else None
    check = unroll_check(m)
    unroll = None
    if check is not None and check.fast.timing and check.slow.timing:
        speed = check.speed
        said = (f"{fmt.times(check.ratio)} the medians' ratio here, and {verdict_text(speed)} over the "
                "rounds" if speed is not None else f"{fmt.times(check.ratio)} here (single bursts: no call)")
        unroll = [f"Seed {check.claim.seed}'s unroll claim: ", Mono(check.claim.fast), " against ",
                  Mono(check.claim.slow), f": '{check.claim.words}' ({check.claim.ratio:g}x) in the document; {said} "
                  f"({fmt.ms(check.fast.timing.median_ms)} against {fmt.ms(check.slow.timing.median_ms)} ms)."]
    return claims, stride, unroll
