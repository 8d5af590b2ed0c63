"""The findings that open the report, as data: each rule over the results names the records, figures, verdicts and
causes it rests on, in one `Finding` (harness/analysis/record.py); harness/report/finding_text.py words them.

Nothing here is written by hand about a particular kernel: every finding is a rule over the results (best per idea
and model, the widest gaps, the documents' claims, the shared Triton kernels, what Triton cannot take) that finds
nothing where the results hold nothing for it.
"""

from __future__ import annotations

from itertools import combinations

from harness.analysis.causes import stated
from harness.analysis.claims import TIE, Claim, claims_table, stride_occupancy, stride_sweep, unroll_check
from harness.analysis.measured import Best, Measured, ideas_of, triton_modules
from harness.analysis.record import Comparison, Finding, pair
from harness.analysis.verdicts import Call
from harness.identity import ImplId
from harness.records.lines import Result, Status

MAX_FINDINGS = 10


def recorded(m: Measured) -> list[Finding]:
    """The findings of the record beside the file; a record written before findings were recorded (or none) gets
    them made now, by the same rules."""
    found = m.analysis.findings
    return list(found) if found is not None else findings(m)


def findings(m: Measured) -> list[Finding]:
    out: list[Finding] = []
    if not any(r.timed for r in m.all):
        out += _untimed(m)
    for op in m.ops:
        out += _headline(m, op)
    for op in m.ops:
        out += _gaps(m, op)
    for rule in (_shared, _limits, _rank, _unroll, _stride, _precision):
        out += rule(m)
    for op in m.ops:
        out += _sizes(m, op)
    out += _failures(m)
    return out[:MAX_FINDINGS]


def _untimed(m: Measured) -> list[Finding]:
    regs = {model: [r.resources.registers for r in m.all if r.model == model and r.resources
                    and r.resources.registers is not None] for model in ("cuda", "triton")}
    return [Finding("untimed", figures={"registers": {model: [min(v), max(v)] for model, v in regs.items() if v}})]


def _headline(m: Measured, op: str) -> list[Finding]:
    problem = m.headline(op)
    base = m.baseline(problem, "fp32") if problem else None
    if problem is None or base is None or base.figures is None:
        return []
    kernels = [k for k in m.kernels if k.op == op]
    bests = {model: m.best(m.timed_of(kernels, problem, model, "fp32")) for model in ("cuda", "triton")}
    found = {model: b for model, b in bests.items() if b is not None}
    if not found:
        return []
    tri = found.get("triton")
    tutorial = m.vs(tri.result, "triton-baseline") if tri else None
    # the cuBLAS fp32 row last: its own share of the peak closes the sentence
    return [Finding(f"headline-{op}", (*(b.result.key for b in found.values()), base.key),
                    {"op": op, "problem": problem.to_json(), "models": list(found),
                     "pct": [list(b.interval) for b in found.values()],
                     "tutorial_pct": list(m.interval(m.reference(tutorial))) if tutorial else None},
                    (tutorial,) if tutorial else ())]


def pairs(m: Measured, op: str) -> list[tuple[Comparison, str, Best, Best]]:
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
            cuda, tri = m.bests(kernels, problem, precision)
            c = m.between(tri.result, cuda.result) if cuda and tri else None
            if c is not None:
                out.append((c, idea.key, cuda, tri))
    return out


def _gaps(m: Measured, op: str) -> list[Finding]:
    """Where the rounds decided that one model's best is faster than the other's, the largest lead of each; the ties
    and the undecided counted. A file of single bursts makes no call, and says so."""
    found = pairs(m, op)
    if not found:
        return []
    problem = m.headline(op)
    assert problem is not None
    triton_leads = [p for p in found if p[0].call is Call.FAST]
    cuda_leads = [p for p in found if p[0].call is Call.SLOW]
    leads = [*([min(triton_leads, key=lambda p: p[0].ratio)] if triton_leads else []),
             *([max(cuda_leads, key=lambda p: p[0].ratio)] if cuda_leads else [])]
    subjects, clauses, causes = [], [], []
    for c, idea, cuda, tri in leads:
        lead, trail = (tri, cuda) if c.call is Call.FAST else (cuda, tri)
        why = stated(m, lead.result, trail.result, limit=1)
        subjects += [lead.result.key, trail.result.key]
        clauses.append({"idea": idea, "pct": [list(lead.interval), list(trail.interval)], "causes": len(why)})
        causes += why
    calls = [p[0].call.value if p[0].call else None for p in found]
    counts = {str(call): calls.count(call) for call in dict.fromkeys(calls)}
    first = leads[0][1] if leads else found[0][1]
    return [Finding(f"gaps-{op}", tuple(subjects),
                    {"op": op, "problem": problem.to_json(), "clauses": clauses, "counts": counts, "pairs": len(found),
                     "idea": first}, tuple(p[0] for p in leads), tuple(causes))]


def _shared(m: Measured) -> list[Finding]:
    modules = {mod: ps for mod, ps in triton_modules(m.kernels).items() if len(ideas_of(ps)) >= 2}
    if not modules:
        return []
    ranked = sorted(modules.items(), key=lambda kv: -len(ideas_of(kv[1])))
    module, kernel_forms = ranked[0]
    problem = m.headline(kernel_forms[0][0].op)
    names = {(k.id, ImplId("triton", c.name).to_json()) for k, c in kernel_forms}
    scored = [(m.pct(r), r) for r in m.all if (r.kernel, r.impl) in names and problem and r.problem == problem]
    scored = [(p, r) for p, r in scored if p is not None]
    figures: dict = {"module": module, "ideas": ideas_of(kernel_forms),
                     "others": [[other, len(ideas_of(ps))] for other, ps in ranked[1:]]}
    subjects: tuple = ()
    if len(scored) >= 2:
        (p0, r0), (p1, r1) = min(scored, key=lambda s: s[0]), max(scored, key=lambda s: s[0])
        subjects, figures["pct"] = (r0.key, r1.key), [p0, p1]
    else:
        # one launch per distinct setting, the last kernel that takes it named
        configs = {tuple(c.config(k).items()): k.id for k, c in kernel_forms}
        figures["configs"] = [[dict(cfg), kid] for cfg, kid in configs.items()]
    return [Finding("shared", subjects, figures)]


def _limits(m: Measured) -> list[Finding]:
    why: dict[str, dict[str, list[str]]] = {}      # reason -> "block_k = 16" -> kernel ids
    first_idea = ""
    for k in m.kernels:
        for c in k.counterparts:
            for key, dev in c.deviations.items():
                ids = why.setdefault(dev.why, {}).setdefault(f"{key} = {dev.value}", [])
                if k.id not in ids:  # two forms of one kernel (dot, tuned) deviate alike: the kernel once
                    ids.append(k.id)
                first_idea = first_idea or k.idea
    spills = _compiler_spills(m)
    if not why and not spills:
        return []
    ranked = sorted(why.items(), key=lambda kv: -sum(len(v) for v in kv[1].values()))
    figures: dict = {"deviations": [[reason, [[s, ids] for s, ids in uses.items()]] for reason, uses in ranked]}
    subjects: tuple = ()
    if spills:
        tri, cuda = spills[0]
        subjects, figures["pct"] = (tri.key, cuda.key), [m.pct(tri), m.pct(cuda)]
        facts = tri.kernel_facts
        first_idea = first_idea or (facts.idea if facts else "")
    figures["idea"] = first_idea
    return [Finding("limits", subjects, figures)]


def _compiler_spills(m: Measured) -> list[tuple[Result, Result]]:
    """(Triton record, CUDA record) where the compiled Triton kernel spills and the CUDA one does not. A form the
    registry labels deliberately different (rank-1 updates from global memory) is a design choice of the suite,
    not the compiler overriding one, and is left out."""
    out = []
    for kid, impl in m.implementations:
        if not ImplId.from_json(impl).is_triton:
            continue
        tri, cuda = m.compiled(kid, impl), m.compiled(kid, "cuda")
        if tri is not None and m.deliberately_different(tri):
            continue
        if tri and cuda and tri.resources and cuda.resources and (tri.resources.spills or 0) > 0 \
                and not cuda.resources.spills:
            same = [r for r in m.of_kernel(kid, impl) if r.timed and m.baseline(r.problem)]
            tri = same[0] if same else tri
            cuda = next((r for r in m.of_kernel(kid, "cuda") if r.problem == tri.problem and r.timed), cuda)
            pt, pc = m.pct(tri), m.pct(cuda)
            # only where it costs: a spilling Triton kernel that ties or beats the CUDA one overrides nothing
            if pt is not None and pc is not None and pt >= pc * (1 - TIE):
                continue
            out.append((tri, cuda))
    return sorted(out, key=lambda tc: -(tc[0].resources.spills or 0) if tc[0].resources else 0)


def _broken_pairs(claims: list[Claim]) -> list[tuple[Claim, Claim, str]]:
    """(leader in the document, the other, 'reversed' or 'tied') for every pair whose clear order does not hold."""
    out = []
    for a, b in combinations(claims, 2):
        if a.rank_value is None or b.rank_value is None or a.ours_pct is None or b.ours_pct is None:
            continue
        lead, other = (a, b) if a.rank_value >= b.rank_value else (b, a)
        assert lead.rank_value is not None and other.rank_value is not None
        assert lead.ours_pct is not None and other.ours_pct is not None
        if lead.rank_value <= other.rank_value * (1 + TIE):
            continue                                  # the document itself has them level
        if lead.ours_pct < other.ours_pct * (1 - TIE):
            out.append((lead, other, "reversed"))
        elif lead.ours_pct <= other.ours_pct * (1 + TIE):
            out.append((lead, other, "tied"))
    return out


def _rank(m: Measured) -> list[Finding]:
    claims = [c for c in claims_table(m) if c.ours_pct is not None and c.rank_value is not None]
    by_seed: dict[str, list[Claim]] = {}
    for c in claims:
        by_seed.setdefault(c.kernel.seed or "", []).append(c)
    by_seed = {s: cs for s, cs in by_seed.items() if len(cs) >= 2}
    if not by_seed:
        return []
    broken = {s: _broken_pairs(cs) for s, cs in by_seed.items()}
    return [Finding("rank", figures={
        "pairs": sum(len(cs) * (len(cs) - 1) // 2 for cs in by_seed.values()), "seeds": sorted(by_seed),
        "broken": [[s, lead.kernel.id, other.kernel.id, how, lead.ours_pct, other.ours_pct]
                   for s, ps in broken.items() for lead, other, how in ps],
        "held": sorted(s for s, b in broken.items() if not b)})]


def _unroll(m: Measured) -> list[Finding]:
    check = unroll_check(m)
    if check is None or check.fast.timing is None or check.slow.timing is None:
        return []
    return [Finding("unroll", (check.fast.key, check.slow.key),
                    {"ratio": check.ratio, **_speed(check.speed)},
                    causes=tuple(stated(m, check.fast, check.slow)))]


def _speed(c: Comparison | None) -> dict:
    """The verdict of the interleaved rounds for a finding that says which of two is faster (none for a file of
    single bursts: its sentence then gives the medians' ratio and no call)."""
    return {"speed": c.to_json()} if c is not None and c.verdict is not None else {}


def _stride(m: Measured) -> list[Finding]:
    points = [p for p in stride_sweep(m) if p.tflops is not None]
    if len(points) < 3:
        return []
    doc_peak = max(points, key=lambda p: p.published.tflops or 0.0)
    our_peak = max(points, key=lambda p: p.tflops or 0.0)
    first, last = points[0], points[-1]
    assert first.ours is not None and last.ours is not None and our_peak.ours is not None
    assert last.tflops is not None and our_peak.tflops is not None
    doc_falls = (last.published.tflops or 0) < (doc_peak.published.tflops or 0)
    our_falls = last.tflops < our_peak.tflops
    o1, o2 = stride_occupancy(m, first), stride_occupancy(m, last)
    return [Finding("stride", (first.ours.key, last.ours.key, our_peak.ours.key),
                    {"doc_peak": doc_peak.kernel.id,
                     "same": doc_peak.published.stride == our_peak.published.stride and doc_falls == our_falls,
                     "occupancy": [o1, o2] if o1 is not None and o2 is not None else None})]


def _error(r: Result) -> float | None:
    v = r.numerics.random if r.numerics else None
    return v.error if v is not None else None


def _precision(m: Measured) -> list[Finding]:
    """Speed against forward error across precision classes, on the sgemm headline problem."""
    problem = m.headline("sgemm")
    if problem is None:
        return []
    fp32, tf32 = m.baseline(problem, "fp32"), m.baseline(problem, "tf32")
    subjects: list = []
    if fp32 and tf32 and fp32.figures and tf32.figures and _error(fp32) and _error(tf32):
        subjects += [fp32.key, tf32.key]
    cublas = bool(subjects)
    speed = _speed(pair("cublas-tf32", tf32, fp32)) if cublas else {}
    kernels = [k for k in m.kernels if k.op == "sgemm"]
    bests = []
    for precision in ("tf32", "3xtf32"):
        best = m.best([r for model in ("cuda", "triton") for r in m.timed_of(kernels, problem, model, precision)])
        if best is not None:
            subjects.append(best.result.key)
            bests.append([precision, best.pct])
    errors = [e for r in m.all if r.problem == problem and r.kernel and r.precision == "fp32" and r.timed
              and (e := _error(r)) is not None]
    if not subjects or not errors:
        return []
    return [Finding("precision", tuple(subjects), {"problem": problem.to_json(), "cublas": cublas, "bests": bests,
                                                   "errors": [min(errors), max(errors)], **speed})]


def _sizes(m: Measured, op: str) -> list[Finding]:
    """Across the sizes a sweep timed: which kernel is fastest where, and how close it gets to cuBLAS."""
    problems = sorted({r.problem for r in m.all if r.op == op and r.timed and r.kernel}, key=lambda p: p.flops)
    # A sweep of sizes, not a set of shapes: at least three square problems among them.
    if sum(p.M == p.N and (op == "sgemv" or p.N == p.K) for p in problems) < 3:
        return []
    runs: list[tuple[tuple[str, str], list[tuple[str, Best]]]] = []
    for p in problems:
        b = m.best([r for r in m.on(p) if r.kernel and r.timed and r.precision == "fp32"])
        if b is None:
            continue
        who_key = (b.result.kernel or "", b.result.impl)
        if runs and runs[-1][0] == who_key:
            runs[-1][1].append((p.shape_label, b))
        else:
            runs.append((who_key, [(p.shape_label, b)]))
    stretches = [{"from": s[0][0], "to": s[-1][0], "pct": [s[0][1].pct, s[-1][1].pct], "one": len(s) == 1}
                 for _, s in runs[:4]]
    return [Finding(f"sizes-{op}", tuple(s[0][1].result.key for _, s in runs[:4]),
                    {"op": op, "count": len(problems), "from": problems[0].shape_label,
                     "to": problems[-1].shape_label, "runs": stretches})]


def _failures(m: Measured) -> list[Finding]:
    checked = [r for r in m.all if r.numerics is not None]
    failed = [r for r in m.all if r.status is Status.FAILED]
    if failed:
        return [Finding("failures", tuple(r.key for r in failed[:3]), {"failed": len(failed), "of": len(m.all)})]
    errors = [r.numerics.random.error for r in checked if r.numerics and r.numerics.random
              and r.numerics.random.error is not None]
    if not checked or not errors or any(r.timed for r in m.all):
        return []
    # the layers the records hold, in the order they are checked (older files have fewer)
    layers = list(dict.fromkeys(name for r in checked if r.numerics for name in r.numerics.layers))
    unchecked = sum(bool(r.numerics and r.numerics.not_checked) for r in checked)
    return [Finding("numerics", figures={"checked": len(checked), "errors": [min(errors), max(errors)],
                                         "layers": layers, "not_checked": unchecked})]
