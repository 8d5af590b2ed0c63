"""How a finding (harness/analysis/findings.py) is said: its sentence, with its numbers, and the link to the section
that shows its evidence. The words are made here from the finding's records, figures, verdicts and causes; nothing
is decided here that the finding does not hold."""

from __future__ import annotations

from collections.abc import Callable

from harness.analysis.claims import published_pct
from harness.analysis.measured import Measured
from harness.analysis.record import Comparison, Finding
from harness.analysis.verdicts import Call
from harness.problems import Problem
from harness.records.lines import Result
from harness.report import anchors, fmt, wording
from harness.report.cause_text import said
from harness.report.doc import Inline, Link, Mono
from harness.report.wording import PRECISION_TEXT, baseline_label, config_text, idea_link, who

_CLAIMS = Link("the documents' figures beside ours", anchors.href(anchors.CLAIMS))
_RESULTS = Link("All results", anchors.href(anchors.RESULTS))


def words(f: Finding, m: Measured) -> list[Inline]:
    return _WORDS[f.kind.split("-")[0]](f, m)


def evidence(f: Finding, m: Measured) -> Link:
    """The section that shows the finding's evidence."""
    kind, _, op = f.kind.partition("-")
    if kind == "headline":
        return (Link("the % of cuBLAS plot", anchors.href(anchors.plot(anchors.BARS.format(op=op)))) if op == "sgemm"
                else Link("the bandwidth plot", anchors.href(anchors.plot(anchors.GEMV))))
    if kind in ("gaps", "limits"):
        return idea_link(m.catalog, f.figures["idea"])
    if kind == "sizes":
        return Link("time against size", anchors.href(anchors.plot(anchors.TIME.format(op=op))))
    if kind == "unroll":
        return Link("the unroll ratio", anchors.href(anchors.UNROLL if m.catalog.unroll_claim.fast in m.catalog.by_id
                                                  else anchors.CLAIMS))
    return {"untimed": Link("Ideas", anchors.href(anchors.IDEAS)), "failures": _RESULTS, "numerics": _RESULTS,
            "shared": Link("Triton kernels shared by several ideas", anchors.href(anchors.SHARED_TRITON)),
            "rank": _CLAIMS, "stride": Link("the stride sweep", anchors.href(anchors.STRIDE)),
            "precision": Link("accuracy against speed", anchors.href(anchors.plot(anchors.ACCURACY)))}[kind]


def _records(f: Finding, m: Measured) -> list[Result]:
    return [m.record(key) for key in f.subjects]


def _untimed(f: Finding, m: Measured) -> list[Inline]:
    parts: list[Inline] = ["Nothing in this file was timed (a CPU run: Triton in its interpreter, CUDA compiled "
                           "for sm_90), so it holds no speeds"]
    for model, name in (("cuda", "CUDA"), ("triton", "Triton")):
        if model in f.figures["registers"]:
            lo, hi = f.figures["registers"][model]
            parts.append(f"; the {name} kernels compile to {lo}–{hi} registers per thread")
    parts.append(".")
    return parts


def _headline(f: Finding, m: Measured) -> list[Inline]:
    *bests, base = _records(f, m)
    op, problem, models = f.figures["op"], Problem.from_json(f.figures["problem"]), f.figures["models"]
    parts: list[Inline] = [f"On {problem.label}, "]
    for model, best, pct in zip(models, bests, f.figures["pct"], strict=True):
        triton = model == "triton"
        fig = best.figures
        assert fig is not None
        name = "Triton" if triton else "CUDA"
        parts += [", and " if triton and "cuda" in models else "", f"the fastest fp32 {name} kernel, ", *who(best),
                  ", "]
        if op == "sgemm":
            parts.append(f"reaches {fmt.pct_ci(*pct)}" + (" of cuBLAS fp32" if not triton else "")
                         + f" ({fmt.tflops(fig.tflops)} TFLOP/s)")
        else:
            parts.append(f"moves {fmt.gbps(fig.gbps)} GB/s ({fmt.pct_ci(*pct)}"
                         + (" of cuBLAS fp32" if not triton else "")
                         + (f", {fmt.pct(fig.pct_peak)} of the measured copy bandwidth)" if fig.pct_peak else ")"))
        if triton and f.comparisons:
            parts.append(f"; Triton's tutorial GEMM (ieee) reaches {fmt.pct_ci(*f.figures['tutorial_pct'])}, and "
                         + wording.sentence(f.comparisons[0], "this kernel", "the tutorial's"))
    peaks, figures = m.header.peaks, base.figures
    assert figures is not None
    if op == "sgemm" and figures.pct_peak is not None and peaks:
        parts.append(f"; cuBLAS fp32 itself runs at {fmt.pct(figures.pct_peak)} of the measured FP32 FMA "
                     f"peak ({peaks.fp32_tflops:.1f} TFLOP/s).")
    elif op == "sgemv" and figures.pct_peak is not None:
        parts.append(f"; cuBLAS fp32 moves {fmt.gbps(figures.gbps)} GB/s "
                     f"({fmt.pct(figures.pct_peak)} of the copy bandwidth).")
    else:
        parts.append(".")
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
    if other is not None and r.kernel == other.kernel and r.impl_id.is_cuda:
        return ["its CUDA kernel"]
    if other is not None and r.kernel == other.kernel:
        return [f"its {r.label}"]
    return ["CUDA ", Mono(r.kernel or "")] if r.impl_id.is_cuda else who(r)


def short(r: Result) -> str:
    """How a side of a gap is named in its cause: 'the CUDA kernel' or its Triton label."""
    return "the CUDA kernel" if r.impl_id.is_cuda else r.label


# How the calls of the per-idea pairs are counted, in the order the sentence counts them ("None": single bursts).
_COUNTED = (("FAST", "Triton faster"), ("SLOW", "CUDA faster"), ("SAME", "a tie"), ("AMBIGUOUS", "undecided"),
            ("None", "single bursts, no verdict"))


def _gaps(f: Finding, m: Measured) -> list[Inline]:
    records, causes = _records(f, m), list(f.causes)
    parts: list[Inline] = [f"Per idea on {Problem.from_json(f.figures['problem']).label}, "]
    for i, (clause, c) in enumerate(zip(f.figures["clauses"], f.comparisons, strict=True)):
        lead, trail = records[2 * i], records[2 * i + 1]
        triton_leads = c.call is Call.FAST
        parts += ["; " if i else "", "Triton's best is faster than CUDA's best most in " if triton_leads
                  else "CUDA's best is faster than Triton's most in "]
        parts += [idea_link(m.catalog, clause["idea"]), f", {wording.speed(c) if triton_leads else _inverse(c)}: ",
                  *_named(lead), f" at {fmt.pct_ci(*clause['pct'][0])} of {_yardstick(lead)} against ",
                  *_named(trail, lead), f" at {fmt.pct_ci(*clause['pct'][1])}"]
        why = said(causes[:clause["causes"]], (short(lead), short(trail)))
        del causes[:clause["causes"]]
        if why:
            parts.append(", where " + why)
        parts.append(wording.clock_clause(c))
    counts = [f"{n} {what}" for call, what in _COUNTED if (n := f.figures["counts"].get(call))]
    parts.append(("; " if f.comparisons else "") + f"of {f.figures['pairs']} ideas and classes: "
                 + ", ".join(counts) + ".")
    return parts


def _shared(f: Finding, m: Measured) -> list[Inline]:
    ideas = f.figures["ideas"]
    parts: list[Inline] = [f"{len(ideas)} ideas ("]
    named = ideas if len(ideas) <= 5 else ideas[:4]
    for i, key in enumerate(named):
        parts += [", “" if i else "“", idea_link(m.catalog, key), "”"]
    if len(named) < len(ideas):
        parts.append(f" and {len(ideas) - len(named)} more")
    parts += [") are one Triton kernel, ", Mono(f"kernels_triton/{f.figures['module']}.py"),
              ", launched with different settings"]
    if f.subjects:
        (r0, r1), (p0, p1) = _records(f, m), f.figures["pct"]
        problem = r0.problem
        parts += [f": on {problem.label} it runs from {fmt.pct(p0)} of cuBLAS ({config_text(m.config(r0))}, for ",
                  Mono(r0.kernel or ""), f") to {fmt.pct(p1)} ({config_text(m.config(r1))}, for ",
                  Mono(r1.kernel or ""), ")"]
    else:
        parts.append(": ")
        for i, (cfg, kid) in enumerate(f.figures["configs"][:3]):
            parts += ["; " if i else "", f"{config_text(cfg)} for ", Mono(kid)]
    for i, (other, n) in enumerate(f.figures["others"]):
        parts += ["; likewise " if i == 0 else " and ", Mono(f"{other}.py"), f" ({n} ideas)"]
    parts.append(".")
    return parts


def _limits(f: Finding, m: Measured) -> list[Inline]:
    ranked = f.figures["deviations"]
    parts: list[Inline] = []
    if ranked:
        total = sum(len(ids) for _, uses in ranked for _, ids in uses)
        parts.append(f"Triton cannot take {fmt.plural(total, 'CUDA launch decision')} as written: ")
        for i, (reason, uses) in enumerate(ranked[:2]):
            parts += [" and " if i else "", f"“{reason}” ("]
            for j, (setting, ids) in enumerate(uses):
                parts += ["; " if j else "", f"{setting} for "]
                for n, kid in enumerate(ids):
                    parts += [", " if n else "", Mono(kid)]
            parts.append(")")
        rest = sum(len(ids) for _, uses in ranked[2:] for _, ids in uses)
        if rest:
            parts.append(f", with {rest} more in the idea sections")
    if f.subjects:
        tri, cuda = _records(f, m)
        assert tri.resources and cuda.resources
        parts += ["; " if parts else "", "where it can take them, its compiler may override the design: ",
                  *who(tri), f" spills {tri.resources.spills} B at {tri.resources.registers} registers where the "
                  f"CUDA kernel holds {cuda.resources.registers} with none"]
        pt, pc = f.figures["pct"]
        if pt is not None and pc is not None:
            parts.append(f", and runs at {fmt.pct(pt)} of cuBLAS against CUDA's {fmt.pct(pc)}")
    parts.append(".")
    return parts


def _doc_figure(m: Measured, kernel_id: str) -> str:
    k = m.catalog.by_id[kernel_id]
    assert k.published is not None
    pct = published_pct(k, m.catalog)
    return fmt.pct(pct) if pct is not None else \
        f"{k.published.tflops} TFLOP/s" if k.published.tflops is not None else f"{k.published.ms} ms"


def _rank(f: Finding, m: Measured) -> list[Inline]:
    bad, held, pairs = f.figures["broken"], f.figures["held"], f.figures["pairs"]
    if not bad:
        return [f"Every document's order of its own kernels holds here: all {pairs} pairs across seeds "
                f"{fmt.joined(f.figures['seeds'])} keep the order their document measured."]
    parts: list[Inline] = [f"Of {pairs} pairs of kernels the documents order, {len(bad)} "
                           f"{'does' if len(bad) == 1 else 'do'} not hold here: "]
    for i, (seed, lead, other, how, lead_pct, other_pct) in enumerate(bad[:3]):
        parts += ["; " if i else "", f"in seed {seed} ({m.catalog.seeds[seed].gpu}) ", Mono(lead), " leads ",
                  Mono(other),
                  f" ({_doc_figure(m, lead)} against {_doc_figure(m, other)} on its GPU), but here the two ",
                  "tie" if how == "tied" else "swap", f" ({fmt.pct(lead_pct)} against {fmt.pct(other_pct)} of cuBLAS)"]
    if held:
        parts.append(f"; seed{'s' if len(held) > 1 else ''} {fmt.joined(held)} keep every pairwise order")
    parts.append(".")
    return parts


def _speed(f: Finding) -> Comparison:
    """The verdict a finding recorded on the two implementations it says one is faster than the other of."""
    return Comparison.from_json(f.figures["speed"])


def _unroll(f: Finding, m: Measured) -> list[Inline]:
    fast, slow = _records(f, m)
    c = m.catalog.unroll_claim
    assert fast.timing is not None and slow.timing is not None
    times = f"{fmt.ms(fast.timing.median_ms)} against {fmt.ms(slow.timing.median_ms)} ms"
    here = (f"here, at {times}, {wording.sentence(_speed(f), 'the unrollable form', 'the tid form')}"
            if "speed" in f.figures else f"here the ratio is {fmt.times(f.figures['ratio'])} ({times})")
    parts: list[Inline] = [f"Seed {c.seed} calls its unrollable load loop ", Mono(c.fast),
                           f" '{c.words}' faster than the one starting at tid, ", Mono(c.slow), f"; {here}"]
    why = said(f.causes, ("the unrollable form", "the tid form"))
    if why:
        parts.append(", where " + why)
    parts.append(".")
    return parts


def _stride(f: Finding, m: Measured) -> list[Inline]:
    first, last, our_peak = _records(f, m)
    by_id = m.catalog.by_id
    doc_peak = by_id[f.figures["doc_peak"]].published
    pub_first, pub_last, pub_peak = (by_id[r.kernel or ""].published for r in (first, last, our_peak))
    assert doc_peak and pub_first and pub_last and pub_peak and last.figures and our_peak.figures
    parts: list[Inline] = [
        f"Seed {by_id[first.kernel or ''].seed}'s stride sweep {'keeps' if f.figures['same'] else 'changes'} its "
        f"shape: the document peaks at stride {doc_peak.stride} ({doc_peak.tflops} TFLOP/s) and ends at "
        f"{pub_last.tflops} at stride {pub_last.stride}; here the peak is at stride {pub_peak.stride} "
        f"({fmt.tflops(our_peak.figures.tflops)} TFLOP/s) and stride {pub_last.stride} gives "
        f"{fmt.tflops(last.figures.tflops)}"]
    regs = [r.resources.registers if r.resources else None for r in (first, last)]
    if regs[0] is not None and regs[1] is not None:
        parts.append(f", while registers grow from {regs[0]} to {regs[1]} (document "
                     f"{pub_first.registers} to {pub_last.registers})")
    if f.figures["occupancy"] is not None:
        o1, o2 = f.figures["occupancy"]
        parts.append(f" and theoretical occupancy goes from {fmt.pct_round(o1)} to {fmt.pct_round(o2)} (document "
                     f"{fmt.pct(pub_first.occupancy_pct)} to {fmt.pct(pub_last.occupancy_pct)})")
    parts.append(".")
    return parts


def _error(r: Result) -> float | None:
    v = r.numerics.random if r.numerics else None
    return v.error if v is not None else None


def _precision(f: Finding, m: Measured) -> list[Inline]:
    records, problem = _records(f, m), Problem.from_json(f.figures["problem"])
    parts: list[Inline] = []
    if f.figures["cublas"]:
        fp32, tf32 = records[:2]
        records = records[2:]
        assert fp32.figures and tf32.figures
        e32, etf = _error(fp32), _error(tf32)
        assert e32 and etf
        rates = f"({fmt.tflops(tf32.figures.tflops)} against {fmt.tflops(fp32.figures.tflops)} TFLOP/s)"
        speed = (wording.sentence(_speed(f), "cuBLAS TF32", "cuBLAS fp32") if "speed" in f.figures
                 else f"cuBLAS TF32 runs at {fmt.times(tf32.figures.tflops / fp32.figures.tflops)} the rate of cuBLAS "
                      "fp32 (a single burst each: no verdict)")
        parts.append(f"{speed} on {problem.label} {rates} at {fmt.times(etf / e32)} its forward error "
                     f"({fmt.sci(etf)} against {fmt.sci(e32)})")
    for r, (precision, pct) in zip(records, f.figures["bests"], strict=True):
        parts += ["; " if parts else "", f"the fastest {PRECISION_TEXT[precision]} kernel, ", *who(r),
                  f", reaches {fmt.pct(pct)} of {baseline_label(precision)} at forward error {fmt.sci(_error(r))}"]
    lo, hi = f.figures["errors"]
    parts.append(f"; every fp32 kernel's error lies between {fmt.sci(lo)} and {fmt.sci(hi)}.")
    return parts


def _sizes(f: Finding, m: Measured) -> list[Inline]:
    figures = f.figures
    parts: list[Inline] = [f"Across {figures['count']} {figures['op']} sizes, from {figures['from']} to "
                           f"{figures['to']}, "]
    for i, (r, run) in enumerate(zip(_records(f, m), figures["runs"], strict=True)):
        where = f"at {run['from']}" if run["one"] else f"from {run['from']} to {run['to']}"
        p0, p1 = run["pct"]
        parts += ["; then " if i else "the fastest is ", *who(r), f" {where} ({fmt.pct(p0)}"
                  + (f" to {fmt.pct(p1)}" if not run["one"] else "") + " of cuBLAS)"]
    parts.append(".")
    return parts


def _failures(f: Finding, m: Measured) -> list[Inline]:
    names = [f"{r.kernel or r.impl} [{r.label}]" for r in _records(f, m)]
    return [f"{f.figures['failed']} of {f.figures['of']} results failed (", fmt.joined(names),
            ", …" if f.figures["failed"] > 3 else "", "): their figures are left out of every comparison."]


def _numerics(f: Finding, m: Measured) -> list[Inline]:
    lo, hi = f.figures["errors"]
    layers = f.figures.get("layers") or []  # analysis records from before the layers were named say none
    which = f"the {len(layers)} numerics layers ({', '.join(layers)})" if layers else "every numerics layer"
    unchecked = f.figures.get("not_checked") or 0
    return [f"All {f.figures['checked']} implementations checked here pass {which} of their precision class, with "
            f"forward errors from {fmt.sci(lo)} to {fmt.sci(hi)}"
            + (f"; {unchecked} of them were not checked at their class's precision on a CPU (an fp32 result held to "
               f"its bounds)." if unchecked else ".")]


_WORDS: dict[str, Callable[[Finding, Measured], list[Inline]]] = {
    "untimed": _untimed, "headline": _headline, "gaps": _gaps, "shared": _shared, "limits": _limits, "rank": _rank,
    "unroll": _unroll, "stride": _stride, "precision": _precision, "sizes": _sizes, "failures": _failures,
    "numerics": _numerics}
