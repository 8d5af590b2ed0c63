"""The findings that open the report: sentences computed from the results, each with its numbers and a
link to the section that shows the evidence.

Nothing here is written by hand about a particular kernel: every sentence is a rule over the results
(best per idea and model, the widest gaps, the documents' claims, the shared Triton kernels) that
says nothing where the results hold nothing for it. The rules about the documents' claims live in
claims_findings.py, those about what Triton can express of the CUDA designs in expressiveness.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.analysis.record import Comparison
from harness.analysis.verdicts import Call
from harness.registry import IDEAS
from harness.report import anchors, fmt, verdict_text
from harness.report.causes import because
from harness.report.claims_findings import rank_finding, stride_finding, unroll_finding
from harness.report.doc import Evidenced, Inline, Link, Mono
from harness.report.expressiveness import idea_link, limits_finding, shared_finding, who
from harness.report.measured import (
    PRECISION_TEXT,
    Best,
    Measured,
    baseline_label,
)
from harness.run.records import Result, Status

MAX_FINDINGS = 10


@dataclass
class Finding:
    key: str                 # which rule made it
    parts: list[Inline]      # the sentence
    evidence: Link           # the section that shows it


def findings(m: Measured) -> list[Finding]:
    out: list[Finding] = []
    if not any(r.timed for r in m.all):
        out += _untimed(m)
    for op in m.ops:
        out += _headline(m, op)
    for op in m.ops:
        out += _gaps(m, op)
    for rule in (shared_finding, limits_finding, rank_finding, unroll_finding, stride_finding, precision_finding):
        made = rule(m)
        if made is not None:
            parts, evidence = made
            out.append(Finding(rule.__name__.removesuffix("_finding"), parts, evidence))
    for op in m.ops:
        out += _sizes(m, op)
    out += _failures(m)
    return out[:MAX_FINDINGS]


def _headline(m: Measured, op: str) -> list[Finding]:
    problem = m.headline(op)
    base = m.baseline(problem, "fp32") if problem else None
    if problem is None or base is None or base.figures is None:
        return []
    kernels = [k for k in m.kernels if k.op == op]
    cuda = m.best(m.timed_of(kernels, problem, "cuda", "fp32"))
    tri = m.best(m.timed_of(kernels, problem, "triton", "fp32"))
    if cuda is None and tri is None:
        return []
    parts: list[Inline] = [f"On {problem.label}, "]
    for i, (name, best) in enumerate((("CUDA", cuda), ("Triton", tri))):
        if best is None:
            continue
        fig = best.result.figures
        assert fig is not None
        parts += [", and " if i and cuda else "", f"the fastest fp32 {name} kernel, ", *who(best.result), ", "]
        if op == "sgemm":
            parts.append(f"reaches {best.pct_text}" + (" of cuBLAS fp32" if not i else "")
                         + f" ({fmt.tflops(fig.tflops)} TFLOP/s)")
        else:
            parts.append(f"moves {fmt.gbps(fig.gbps)} GB/s ({best.pct_text}" + (" of cuBLAS fp32" if not i else "")
                         + (f", {fmt.pct(fig.pct_peak)} of the measured copy bandwidth)" if fig.pct_peak else ")"))
        tutorial = m.vs(best.result, "triton-baseline") if name == "Triton" else None
        if tutorial is not None:
            parts.append(f"; Triton's tutorial GEMM (ieee) reaches {m.pct_text(m.reference(tutorial))}, and "
                         + verdict_text.sentence(tutorial, "this kernel", "the tutorial's"))
    peaks = m.header.peaks
    if op == "sgemm" and base.figures.pct_peak is not None and peaks:
        parts.append(f"; cuBLAS fp32 itself runs at {fmt.pct(base.figures.pct_peak)} of the measured FP32 FMA "
                     f"peak ({peaks.fp32_tflops:.1f} TFLOP/s).")
    elif op == "sgemv" and base.figures.pct_peak is not None:
        parts.append(f"; cuBLAS fp32 moves {fmt.gbps(base.figures.gbps)} GB/s "
                     f"({fmt.pct(base.figures.pct_peak)} of the copy bandwidth).")
    else:
        parts.append(".")
    key = anchors.BARS.format(op=op) if op == "sgemm" else anchors.GEMV
    title = "the % of cuBLAS plot" if op == "sgemm" else "the bandwidth plot"
    return [Finding(f"headline-{op}", parts, Link(title, anchors.href(anchors.plot(key))))]


def _pairs(m: Measured, op: str) -> list[tuple[Comparison, str, Best, Best]]:
    """(the best Triton against the best CUDA, idea, best CUDA, best Triton) per idea and precision class on the op's
    headline problem."""
    problem = m.headline(op)
    if problem is None:
        return []
    out = []
    for idea, kernels in m.ideas:
        if kernels[0].op != op:
            continue
        for precision in m.precisions(kernels, problem):
            cuda = m.best(m.timed_of(kernels, problem, "cuda", precision))
            tri = m.best(m.timed_of(kernels, problem, "triton", precision))
            c = m.between(tri.result, cuda.result) if cuda and tri else None
            if c is not None:
                out.append((c, idea.key, cuda, tri))
    return out


def _gap_clause(m: Measured, c: Comparison, idea: str, cuda: Best, tri: Best) -> list[Inline]:
    lead, trail = (tri, cuda) if c.call is Call.FAST else (cuda, tri)
    parts: list[Inline] = [idea_link(idea), f", {verdict_text.speed(c) if lead is tri else _inverse(c)}: ",
                           *_named(lead.result), f" at {lead.pct_text} of {_yardstick(lead.result)} against ",
                           *_named(trail.result, lead.result), f" at {trail.pct_text}"]
    why = because(m, lead.result, trail.result, (_short(lead.result), _short(trail.result)), limit=1)
    if why:
        parts.append(", where " + why)
    parts.append(verdict_text.clock_clause(c))
    return parts


def _inverse(c: Comparison) -> str:
    """The reference's speed over the subject's, with its interval: CUDA's lead over Triton."""
    if c.verdict is None:
        return fmt.ratio_ci(c.ratio)
    t = c.verdict.time
    return fmt.ratio_ci(t.ratio, t.lo, t.hi)


def _yardstick(r: Result) -> str:
    """The cuBLAS a row is compared with: TF32 rows with cuBLAS TF32, fp32 and 3xTF32 rows with cuBLAS fp32."""
    return "cuBLAS TF32" if r.precision == "tf32" else "cuBLAS fp32"


def _named(r: Result, other: Result | None = None) -> list[Inline]:
    """A record with its model spelled out; 'its CUDA kernel' where it is the same kernel as `other`."""
    if other is not None and r.kernel == other.kernel and r.model == "cuda":
        return ["its CUDA kernel"]
    if other is not None and r.kernel == other.kernel:
        return [f"its {r.label}"]
    return ["CUDA ", Mono(r.kernel or "")] if r.model == "cuda" else who(r)


def _short(r: Result) -> str:
    return "the CUDA kernel" if r.model == "cuda" else r.label


def _gaps(m: Measured, op: str) -> list[Finding]:
    """Where the rounds decided that one model's best is faster than the other's, the largest lead of each; the ties
    and the undecided counted. A file of single bursts makes no call, and says so."""
    pairs = _pairs(m, op)
    if not pairs:
        return []
    problem = m.headline(op)
    assert problem is not None
    triton_leads = [p for p in pairs if p[0].call is Call.FAST]
    cuda_leads = [p for p in pairs if p[0].call is Call.SLOW]
    parts: list[Inline] = [f"Per idea on {problem.label}, "]
    if triton_leads:
        parts += ["Triton's best is faster than CUDA's best most in ",
                  *_gap_clause(m, *min(triton_leads, key=lambda p: p[0].ratio))]
    if cuda_leads:
        parts += ["; " if triton_leads else "", "CUDA's best is faster than Triton's most in ",
                  *_gap_clause(m, *max(cuda_leads, key=lambda p: p[0].ratio))]
    ties = sum(p[0].call is Call.SAME for p in pairs)
    undecided = sum(p[0].call is Call.AMBIGUOUS for p in pairs)
    unjudged = sum(p[0].call is None for p in pairs)
    counts = [f"{n} {what}" for n, what in ((len(triton_leads), "Triton faster"), (len(cuda_leads), "CUDA faster"),
                                            (ties, "a tie"), (undecided, "undecided"),
                                            (unjudged, "single bursts, no verdict")) if n]
    parts.append(("; " if triton_leads or cuda_leads else "") + f"of {len(pairs)} ideas and classes: "
                 + ", ".join(counts) + ".")
    first = (min(triton_leads, key=lambda p: p[0].ratio) if triton_leads
             else max(cuda_leads, key=lambda p: p[0].ratio) if cuda_leads else pairs[0])
    return [Finding(f"gaps-{op}", parts, Link(IDEAS[first[1]].title, anchors.href(anchors.idea(first[1]))))]


def _sizes(m: Measured, op: str) -> list[Finding]:
    """Across the sizes a sweep timed: which kernel is fastest where, and how close it gets to cuBLAS."""
    problems = sorted({r.problem for r in m.all if r.op == op and r.timed and r.kernel}, key=lambda p: p.flops)
    # A sweep of sizes, not a set of shapes: at least three square problems among them.
    if sum(p.M == p.N and (op == "sgemv" or p.N == p.K) for p in problems) < 3:
        return []
    best = {p: m.best([r for r in m.on(p) if r.kernel and r.timed and r.precision == "fp32"]) for p in problems}
    runs: list[tuple[tuple[str, str], list]] = []
    for p in problems:
        b = best[p]
        if b is None:
            continue
        who_key = (b.result.kernel or "", b.result.impl)
        if runs and runs[-1][0] == who_key:
            runs[-1][1].append((p, b))
        else:
            runs.append((who_key, [(p, b)]))
    parts: list[Inline] = [f"Across {len(problems)} {op} sizes, from {problems[0].shape_label} to "
                           f"{problems[-1].shape_label}, "]
    for i, (_, stretch) in enumerate(runs[:4]):
        (p0, b0), (p1, b1) = stretch[0], stretch[-1]
        where = f"at {p0.shape_label}" if p0 == p1 else f"from {p0.shape_label} to {p1.shape_label}"
        parts += ["; then " if i else "the fastest is ", *who(b0.result), f" {where} ({fmt.pct(b0.pct)}"
                  + (f" to {fmt.pct(b1.pct)}" if p0 != p1 else "") + " of cuBLAS)"]
    parts.append(".")
    key = anchors.TIME.format(op=op)
    return [Finding(f"sizes-{op}", parts, Link("time against size", anchors.href(anchors.plot(key))))]


def _untimed(m: Measured) -> list[Finding]:
    regs = {model: [r.resources.registers for r in m.all if r.model == model and r.resources
                    and r.resources.registers is not None] for model in ("cuda", "triton")}
    parts: list[Inline] = ["Nothing in this file was timed (a CPU run: Triton in its interpreter, CUDA compiled "
                           "for sm_90), so it holds no speeds"]
    for model, name in (("cuda", "CUDA"), ("triton", "Triton")):
        if regs[model]:
            parts.append(f"; the {name} kernels compile to {min(regs[model])}–{max(regs[model])} registers per thread")
    parts.append(".")
    return [Finding("untimed", parts, Link("Ideas", anchors.href(anchors.IDEAS)))]


def _failures(m: Measured) -> list[Finding]:
    checked = [r for r in m.all if r.numerics is not None]
    failed = [r for r in m.all if r.status is Status.FAILED]
    if failed:
        names = [f"{r.kernel or r.impl} [{r.label}]" for r in failed[:3]]
        parts: list[Inline] = [f"{len(failed)} of {len(m.all)} results failed (", fmt.joined(names),
                               ", …" if len(failed) > 3 else "", "): their figures are left out of every comparison."]
        return [Finding("failures", parts, Link("All results", anchors.href(anchors.RESULTS)))]
    errors = [r.numerics.random.error for r in checked if r.numerics and r.numerics.random
              and r.numerics.random.error is not None]
    if not checked or not errors or any(r.timed for r in m.all):
        return []
    return [Finding("numerics", [f"All {len(checked)} implementations checked here pass both numerics layers, with "
                                 f"forward errors from {fmt.sci(min(errors))} to {fmt.sci(max(errors))}."],
                    Link("All results", anchors.href(anchors.RESULTS)))]


def _error(r: Result) -> float | None:
    v = r.numerics.random if r.numerics else None
    return v.error if v is not None else None


def precision_finding(m: Measured) -> Evidenced:
    """Speed against forward error across precision classes, on the sgemm headline problem."""
    problem = m.headline("sgemm")
    if problem is None:
        return None
    fp32, tf32 = m.baseline(problem, "fp32"), m.baseline(problem, "tf32")
    parts: list[Inline] = []
    if fp32 and tf32 and fp32.figures and tf32.figures and _error(fp32) and _error(tf32):
        speed = tf32.figures.tflops / fp32.figures.tflops
        parts.append(f"cuBLAS TF32 is {fmt.times(speed)} faster than cuBLAS fp32 on {problem.label} "
                     f"({fmt.tflops(tf32.figures.tflops)} against {fmt.tflops(fp32.figures.tflops)} TFLOP/s) at "
                     f"{fmt.times(_error(tf32) / _error(fp32))} its forward error ({fmt.sci(_error(tf32))} against "
                     f"{fmt.sci(_error(fp32))})")
    kernels = [k for k in m.kernels if k.op == "sgemm"]
    for precision in ("tf32", "3xtf32"):
        found = [r for model in ("cuda", "triton") for r in m.timed_of(kernels, problem, model, precision)]
        best = m.best(found)
        if best is None:
            continue
        parts += ["; " if parts else "", f"the fastest {PRECISION_TEXT[precision]} kernel, ", *who(best.result),
                  f", reaches {fmt.pct(best.pct)} of {baseline_label(precision)} at forward error "
                  f"{fmt.sci(_error(best.result))}"]
    errors = [e for r in m.all if r.problem == problem and r.kernel and r.precision == "fp32" and r.timed
              and (e := _error(r)) is not None]
    if not parts or not errors:
        return None
    parts.append(f"; every fp32 kernel's error lies between {fmt.sci(min(errors))} and {fmt.sci(max(errors))}.")
    return parts, Link("accuracy against speed", anchors.href(anchors.plot(anchors.ACCURACY)))
