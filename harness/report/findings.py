"""How each finding kind (harness/analysis/findings.py) is said: its sentence, built from the comparisons it keeps
(each said with its call, interval and reference, harness/report/wording.py), and the section of the page that
shows its evidence. One function per kind, registered by the kind's class; a finding said per rung (model or
compiler) is a table row instead (harness/report/columns.py SPLITS)."""

from __future__ import annotations

from collections.abc import Callable

from harness.analysis import model_findings as kinds
from harness.analysis import run_findings as run
from harness.analysis.claims import published_pct
from harness.analysis.found import Found
from harness.analysis.measured import Measured
from harness.analysis.record import Comparison
from harness.analysis.verdicts import Call
from harness.records.lines import Result
from harness.report import anchors, fmt, wording
from harness.report.cause_words import NO_CAUSE, said
from harness.report.fmt import Inline, Link, Mono
from harness.report.metrics import ran_text
from harness.report.wording import PRECISION_TEXT, idea_link, pct_of, who

Words = Callable[[Found, Measured], list[Inline]]
SAID: dict[type[Found], tuple[Words, Callable[[Found, Measured], Link]]] = {}


def says(cls: type[Found], evidence: Callable[[Found, Measured], Link]) -> Callable[[Words], Words]:
    def register(fn: Words) -> Words:
        SAID[cls] = (fn, evidence)
        return fn
    return register


def words(f: Found, m: Measured) -> list[Inline]:
    return SAID[type(f)][0](f, m)


def evidence(f: Found, m: Measured) -> Link:
    return SAID[type(f)][1](f, m)


# ---------------------------------------------------------------------------------------------- shared wording
def short(r: Result) -> str:
    """How a side of a pair is named in its cause and its clock clause: 'the CUDA kernel' or its Triton label."""
    return "the CUDA kernel" if r.impl_id.is_cuda else r.label


def named(r: Result, other: Result | None = None) -> list[Inline]:
    """A record with its model spelled out; 'its CUDA kernel' where it is the same kernel as `other`."""
    if other is not None and r.kernel == other.kernel:
        return ["its CUDA kernel" if r.impl_id.is_cuda else f"its {r.label}"]
    return ["CUDA ", Mono(r.kernel or "")] if r.impl_id.is_cuda else who(r)


def ran(m: Measured, r: Result) -> str:
    """' (ran 64×64×64 tile, 4 warps, 2 stages, group_m 8)' for a Triton row, as its record says."""
    text = ran_text(m, r) if r.impl_id.is_triton and r.kernel else None
    return f" (ran {text})" if text else ""


def between_text(m: Measured, c: Comparison | None, subject: str, reference: str) -> str:
    return wording.sentence(c, subject, reference, m.clocks(c) if c is not None else (None, None))


def _plot(key: str, text: str) -> Callable[[Found, Measured], Link]:
    return lambda f, m: Link(text, anchors.href(anchors.plot(key.format(op=f.op))))


def _at(anchor: str, text: str) -> Callable[[Found, Measured], Link]:
    return lambda f, m: Link(text, anchors.href(anchor))


def _idea(attr: str) -> Callable[[Found, Measured], Link]:
    return lambda f, m: idea_link(m.catalog, getattr(f, attr))


# ---------------------------------------------------------------------------------------------- the kinds
@says(kinds.Untimed, _at(anchors.IDEAS, "Ideas"))
def _untimed(f: kinds.Untimed, m: Measured) -> list[Inline]:
    parts: list[Inline] = ["Nothing in this file was timed (a CPU run: Triton in its interpreter, CUDA compiled "
                           "for sm_90), so it holds no speeds"]
    for name, span in (("CUDA", f.cuda), ("Triton", f.triton)):
        if span is not None:
            parts.append(f"; the {name} kernels compile to {span[0]}–{span[1]} registers per thread")
    return [*parts, "."]


def _reaches(m: Measured, c: Comparison, op: str) -> str:
    r = m.record(c.subject_key)
    assert r.figures is not None
    if op == "sgemm":
        return (f"reaches {pct_of(m, c)} over the paired rounds ({fmt.tflops(r.figures.tflops)} TFLOP/s at its median "
                "time)")
    return (f"moves {fmt.gbps(r.figures.gbps)} GB/s at its median time ({pct_of(m, c)} over the paired rounds"
            + (f", {fmt.pct(r.figures.pct_peak)} of the measured copy bandwidth)" if r.figures.pct_peak else ")"))


@says(kinds.Headline, lambda f, m: _plot(anchors.BARS, "the % of cuBLAS plot")(f, m) if f.op == "sgemm"
      else _plot(anchors.GEMV, "the bandwidth plot")(f, m))
def _headline(f: kinds.Headline, m: Measured) -> list[Inline]:
    assert f.problem is not None and f.cublas is not None
    parts: list[Inline] = [f"On {f.problem.label}, "]
    sides = (("the fastest fp32 CUDA kernel", f.cuda), ("the fastest fp32 Triton form like for like", f.triton),
             ("the fastest Triton form of any design", f.triton_any))
    for i, (label, c) in enumerate((label, c) for label, c in sides if c is not None):
        r = m.record(c.subject_key)
        parts += [", and " if i else "", f"{label}, ", *who(r), ran(m, r), ", ", _reaches(m, c, f.op)]
        if c is f.triton and f.tutorial is not None and f.tutorial_cublas is not None:
            tut = m.reference(f.tutorial)
            parts.append(f"; {tut.label} reaches {pct_of(m, f.tutorial_cublas)}, and "
                         + between_text(m, f.tutorial, "this form", "the tutorial's"))
    base, peaks = m.record(f.cublas), m.header.peaks
    fig = base.figures
    assert fig is not None
    if f.op == "sgemm" and fig.pct_peak is not None and peaks:
        low = m.peak_clock
        flag = (f", flagged low: its clock {low.below:.1%} under the fp32 rows', so this share reads too high"
                if low is not None and low.low and low.below is not None else "")
        parts.append(f"; {base.label} itself runs at {fmt.pct(fig.pct_peak)} of the measured FP32 FMA peak "
                     f"({peaks.fp32_tflops:.1f} TFLOP/s{flag})")
    elif f.op == "sgemv" and fig.pct_peak is not None:
        parts.append(f"; {base.label} moves {fmt.gbps(fig.gbps)} GB/s ({fmt.pct(fig.pct_peak)} of the copy bandwidth)")
    return [*parts, "."]


# How the calls of the per-idea pairs are counted, in the order the sentence counts them ("None": single bursts).
_COUNTED = (("FAST", "Triton faster"), ("SLOW", "CUDA faster"), ("SAME", "a tie"), ("AMBIGUOUS", "undecided"),
            ("None", "single bursts, no verdict"))


@says(kinds.Gaps, _idea("first_idea"))
def _gaps(f: kinds.Gaps, m: Measured) -> list[Inline]:
    assert f.problem is not None
    parts: list[Inline] = [f"Per idea on {f.problem.label}, "]
    for i, g in enumerate(f.gaps):
        lead, trail = m.record(g.lead.subject_key), m.record(g.trail.subject_key)
        tri, cuda = (lead, trail) if g.speed.call is Call.FAST else (trail, lead)
        parts += ["; " if i else "", "Triton's best is faster than CUDA's best most in " if lead is tri
                  else "CUDA's best is faster than Triton's most in ", idea_link(m.catalog, g.idea), ", ",
                  between_text(m, g.speed, short(tri), short(cuda)) + ": ", *named(lead), ran(m, lead),
                  f" at {pct_of(m, g.lead)} against ", *named(trail, lead), ran(m, trail), f" at {pct_of(m, g.trail)}"]
        why = said(g.causes, (short(lead), short(trail)))
        parts += [", where " + why if why else f"; {NO_CAUSE}"]
    counts = [f"{n} {what}" for call, what in _COUNTED if (n := f.counts.get(call))]
    return [*parts, ("; " if f.gaps else "") + f"of {f.ideas} ideas and classes: " + ", ".join(counts) + "."]


@says(kinds.Shared, _at(anchors.SHARED_TRITON, "Triton kernels shared by several ideas"))
def _shared(f: kinds.Shared, m: Measured) -> list[Inline]:
    parts: list[Inline] = [f"{len(f.ideas)} ideas ("]
    listed = f.ideas if len(f.ideas) <= 5 else f.ideas[:4]
    for i, key in enumerate(listed):
        parts += [", “" if i else "“", idea_link(m.catalog, key), "”"]
    if len(listed) < len(f.ideas):
        parts.append(f" and {len(f.ideas) - len(listed)} more")
    parts += [") are one Triton kernel, ", Mono(f"kernels_triton/{f.module}.py"), ", launched with different settings"]
    if f.slowest is not None and f.fastest is not None:
        r0, r1 = m.record(f.slowest.subject_key), m.record(f.fastest.subject_key)
        parts += [f": on {r0.problem.label} it runs from {pct_of(m, f.slowest)} (ran {ran_text(m, r0)}, for ",
                  Mono(r0.kernel or ""), f") to {fmt.pct_ci(*f.fastest.pct())} (ran {ran_text(m, r1)}, for ",
                  Mono(r1.kernel or ""), "), " + between_text(m, f.speed, "the fastest launch", "the slowest")]
    for i, (other, n) in enumerate(f.others):
        parts += ["; likewise " if i == 0 else " and ", Mono(f"{other}.py"), f" ({n} ideas)"]
    return [*parts, "."]


@says(kinds.Limits, _idea("idea"))
def _limits(f: kinds.Limits, m: Measured) -> list[Inline]:
    parts: list[Inline] = []
    if f.deviations:
        total = sum(len(ids) for _, uses in f.deviations for _, ids in uses)
        parts.append(f"Triton cannot take {fmt.plural(total, 'CUDA launch decision')} as written: ")
        for i, (reason, uses) in enumerate(f.deviations[:2]):
            parts += [" and " if i else "", f"“{reason}” ("]
            for j, (setting, ids) in enumerate(uses):
                parts += ["; " if j else "", f"{setting} for "]
                for n, kid in enumerate(ids):
                    parts += [", " if n else "", Mono(kid)]
            parts.append(")")
        rest = sum(len(ids) for _, uses in f.deviations[2:] for _, ids in uses)
        parts += [f", with {rest} more in the idea sections"] if rest else []
    if f.spilling is not None and f.cuda is not None:
        tri, cuda = m.record(f.spilling.subject_key), m.record(f.cuda.subject_key)
        assert tri.resources and cuda.resources
        parts += ["; " if parts else "", "where it can take them, its compiler may override the design: ",
                  *who(tri), ran(m, tri), f" spills {tri.resources.spills} B at {tri.resources.registers} "
                  f"registers where the CUDA kernel holds {cuda.resources.registers} with none, and "
                  + between_text(m, f.speed, short(tri), "its CUDA kernel")
                  + f" ({pct_of(m, f.spilling)} against {fmt.pct_ci(*f.cuda.pct())})"]
    return [*parts, "."]


def doc_figure(m: Measured, kernel_id: str) -> str:
    """A kernel's published figure as its document gives it: % of cuBLAS where derivable, else its rate or time."""
    k = m.catalog.by_id[kernel_id]
    assert k.published is not None
    pct = published_pct(k, m.catalog)
    return fmt.pct(pct) if pct is not None else \
        f"{k.published.tflops} TFLOP/s" if k.published.tflops is not None else f"{k.published.ms} ms"


@says(run.Rank, _at(anchors.CLAIMS, "the documents' figures beside ours"))
def _rank(f: run.Rank, m: Measured) -> list[Inline]:
    if not f.broken:
        return [f"Every document's order of its own kernels holds here: all {f.pairs} pairs across seeds "
                f"{fmt.joined(list(f.seeds))} keep the order their document measured, each called faster by the "
                "rounds."]
    n = len(f.broken)
    parts: list[Inline] = [f"Of {f.pairs} pairs of kernels the documents order, {n} "
                           f"{'does' if n == 1 else 'do'} not hold here: "]
    for i, o in enumerate(f.broken[:3]):
        lead, other = m.seed_record(o.lead), m.seed_record(o.other)
        assert lead is not None and other is not None
        parts += ["; " if i else "", f"in seed {o.seed} ({m.catalog.seeds[o.seed].gpu}) ", Mono(o.lead), " leads ",
                  Mono(o.other), f" ({doc_figure(m, o.lead)} against {doc_figure(m, o.other)} on its GPU), but "
                  f"here {between_text(m, o.speed, 'the first', 'the second')} ({fmt.pct_ci(*m.interval(lead))} "
                  f"against {fmt.pct_ci(*m.interval(other))} of cuBLAS)"]
    if f.held:
        parts.append(f"; seed{'s' if len(f.held) > 1 else ''} {fmt.joined(list(f.held))} keep every pairwise order")
    return [*parts, "."]


@says(run.Unroll, lambda f, m: Link("the unroll ratio", anchors.href(
    anchors.UNROLL if m.catalog.unroll_claim.fast in m.catalog.by_id else anchors.CLAIMS)))
def _unroll(f: run.Unroll, m: Measured) -> list[Inline]:
    assert f.fast is not None and f.slow is not None
    fast, slow = m.record(f.fast), m.record(f.slow)
    c = m.catalog.unroll_claim
    assert fast.timing is not None and slow.timing is not None
    times = f"{fmt.ms(fast.timing.median_ms)} against {fmt.ms(slow.timing.median_ms)} ms"
    here = (f"here, at {times}, {between_text(m, f.speed, 'the unrollable form', 'the tid form')}"
            if f.speed is not None else f"here the ratio is {fmt.times(f.ratio)} ({times})")
    parts: list[Inline] = [f"Seed {c.seed} calls its unrollable load loop ", Mono(c.fast),
                           f" '{c.words}' faster than the one starting at tid, ", Mono(c.slow), f"; {here}"]
    why = said(f.stated, ("the unrollable form", "the tid form"))
    return [*parts, *([", where " + why] if why else []), "."]


@says(run.Stride, _at(anchors.STRIDE, "the stride sweep"))
def _stride(f: run.Stride, m: Measured) -> list[Inline]:
    assert f.first and f.last and f.peak
    first, last, peak = m.record(f.first), m.record(f.last), m.record(f.peak)
    by_id = m.catalog.by_id
    doc = by_id[f.doc_peak].published
    pub_first, pub_last, pub_peak = (by_id[r.kernel or ""].published for r in (first, last, peak))
    assert doc and pub_first and pub_last and pub_peak and last.figures and peak.figures
    parts: list[Inline] = [
        f"Seed {by_id[first.kernel or ''].seed}'s stride sweep {'keeps' if f.same else 'changes'} its shape: "
        f"the document peaks at stride {doc.stride} ({doc.tflops} TFLOP/s) and ends at {pub_last.tflops} at stride "
        f"{pub_last.stride}; here the peak is at stride {pub_peak.stride} ({fmt.tflops(peak.figures.tflops)} "
        f"TFLOP/s) and stride {pub_last.stride} gives {fmt.tflops(last.figures.tflops)}"]
    regs = [r.resources.registers if r.resources else None for r in (first, last)]
    if regs[0] is not None and regs[1] is not None:
        parts.append(f", while registers grow from {regs[0]} to {regs[1]} (document {pub_first.registers} to "
                     f"{pub_last.registers})")
    if f.occupancy is not None:
        o1, o2 = f.occupancy
        parts.append(f" and theoretical occupancy goes from {fmt.pct_round(o1)} to {fmt.pct_round(o2)} (document "
                     f"{fmt.pct(pub_first.occupancy_pct)} to {fmt.pct(pub_last.occupancy_pct)})")
    return [*parts, "."]


@says(run.Precision, _plot(anchors.ACCURACY, "accuracy against speed"))
def _precision(f: run.Precision, m: Measured) -> list[Inline]:
    assert f.problem is not None
    parts: list[Inline] = []
    if f.cublas is not None:
        fp32, tf32 = m.record(f.cublas[0]), m.record(f.cublas[1])
        assert fp32.figures and tf32.figures
        e32, etf = run.error(fp32), run.error(tf32)
        assert e32 and etf
        rates = f"({fmt.tflops(tf32.figures.tflops)} against {fmt.tflops(fp32.figures.tflops)} TFLOP/s)"
        speed = (between_text(m, f.speed, tf32.label, fp32.label) if f.speed is not None
                 else f"{tf32.label} runs at {fmt.times(tf32.figures.tflops / fp32.figures.tflops)} the rate of "
                      f"{fp32.label} (a single burst each: no verdict)")
        parts.append(f"{speed} on {f.problem.label} {rates} at {fmt.times(etf / e32)} its forward error "
                     f"({fmt.sci(etf)} against {fmt.sci(e32)})")
    for c in f.bests:
        r = m.record(c.subject_key)
        parts += ["; " if parts else "", f"the fastest {PRECISION_TEXT[r.precision]} kernel, ", *who(r), ran(m, r),
                  f", reaches {pct_of(m, c)} at forward error {fmt.sci(run.error(r))}"]
    lo, hi = f.errors
    return [*parts, f"; every fp32 kernel's error lies between {fmt.sci(lo)} and {fmt.sci(hi)}."]


@says(run.Sizes, _plot(anchors.TIME, "time against size"))
def _sizes(f: run.Sizes, m: Measured) -> list[Inline]:
    parts: list[Inline] = [f"Across {f.count} {f.op} sizes, from {f.start} to {f.end}, "]
    for i, s in enumerate(f.stretches):
        one = s.start == s.end
        where = f"at {s.start}" if one else f"from {s.start} to {s.end}"
        parts += ["; then " if i else "the fastest is ", *who(m.record(s.key)), f" {where} ({fmt.pct(s.pct[0])}"
                  + (f" to {fmt.pct(s.pct[1])}" if not one else "") + " of cuBLAS)"]
    return [*parts, "."]


@says(run.Failures, _at(anchors.RESULTS, "All results"))
def _failures(f: run.Failures, m: Measured) -> list[Inline]:
    names = [f"{r.kernel or r.impl} [{r.label}]" for r in (m.record(k) for k in f.failed)]
    return [f"{f.count} of {f.of} results failed (", fmt.joined(names), ", …" if f.count > 3 else "",
            "): their figures are left out of every comparison."]


@says(run.Numerics, _at(anchors.RESULTS, "All results"))
def _numerics(f: run.Numerics, m: Measured) -> list[Inline]:
    lo, hi = f.errors
    which = (f"the {len(f.layers)} numerics layers ({', '.join(f.layers)})" if f.layers else "every numerics layer")
    return [f"All {f.checked} implementations checked here pass {which} of their precision class, with forward "
            f"errors from {fmt.sci(lo)} to {fmt.sci(hi)}"
            + (f"; {f.not_checked} of them were not checked at their class's precision on a CPU (an fp32 result "
               "held to its bounds)." if f.not_checked else ".")]
