"""The findings that open the report, each kind one typed declaration (harness/analysis/found.py): its figures, kept in
the analysis record as JSON, and its rule over the results (`find`). The page words each kind
(harness/report/findings.py).

Nothing here is about a particular kernel: every finding is a rule over the results (best per idea and model, the
widest gaps, the documents' claims, the shared Triton kernels, what Triton cannot take) that finds nothing where the
results hold nothing for it. A comparison is kept as the analysis record's own (harness/analysis/record.py), with its
call and interval: the sentence says what its call says, never more (harness/analysis/verdicts.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import ClassVar

from harness.analysis.causes import against, stated
from harness.analysis.claims import TIE, Claim, claims_table, stride_occupancy, stride_sweep, unroll_check
from harness.analysis.found import KINDS, Found, kind
from harness.analysis.measured import Best, Measured, ideas_of, triton_modules
from harness.analysis.model_or_compiler import Split, splits
from harness.analysis.record import Cause, Comparison, RowKey
from harness.analysis.verdicts import Call
from harness.identity import ImplId
from harness.problems import Problem
from harness.records.lines import Result, Status

__all__ = ["KINDS", "MAX_FINDINGS", "Found", "findings", "recorded"]
MAX_FINDINGS = 10


def recorded(m: Measured) -> list[Found]:
    """The findings of the record beside the file, typed once (and kept so in it); a record written before findings
    were recorded as these types (or none) gets them made now, by the same rules."""
    found = m.analysis.findings
    try:
        typed = findings(m) if found is None else [f if isinstance(f, Found) else Found.from_json(f) for f in found]
    except (KeyError, TypeError, ValueError):
        typed = findings(m)
    m.analysis.findings = typed
    return typed


def findings(m: Measured) -> list[Found]:
    numbered = [f for cls in KINDS.values() if cls.NUMBERED for f in cls.find(m)][:MAX_FINDINGS]
    return numbered + [f for cls in KINDS.values() if not cls.NUMBERED for f in cls.find(m)]


def _call_counts(calls: list[str | None]) -> dict[str, int]:
    return {str(c): calls.count(c) for c in dict.fromkeys(calls)}


def _vs(b: Best | None) -> Comparison | None:
    return b.vs_cublas if b is not None else None


# ---------------------------------------------------------------------------------------------- the kinds
@kind
@dataclass(frozen=True)
class Untimed(Found):
    KIND: ClassVar[str] = "untimed"
    cuda: tuple[int, int] | None = None          # the fewest and most registers per thread of each model's kernels
    triton: tuple[int, int] | None = None

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        if any(r.timed for r in m.all):
            return []
        regs = {model: [r.resources.registers for r in m.all if r.model == model and r.resources
                        and r.resources.registers is not None] for model in ("cuda", "triton")}
        return [cls(cuda=(min(regs["cuda"]), max(regs["cuda"])) if regs["cuda"] else None,
                    triton=(min(regs["triton"]), max(regs["triton"])) if regs["triton"] else None)]


@kind
@dataclass(frozen=True)
class Headline(Found):
    """Per op on its headline problem: the fastest fp32 CUDA kernel and Triton form (like for like, and of any design
    where that is another), each as its comparison with cuBLAS fp32, and the best Triton against the Triton tutorial
    (with the tutorial's own comparison with cuBLAS)."""

    KIND: ClassVar[str] = "headline"
    problem: Problem | None = None
    cublas: RowKey | None = None
    cuda: Comparison | None = None
    triton: Comparison | None = None
    triton_any: Comparison | None = None
    tutorial: Comparison | None = None           # the best Triton against the tutorial
    tutorial_cublas: Comparison | None = None    # the tutorial against cuBLAS

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        out: list[Found] = []
        for op in m.ops:
            problem = m.headline(op)
            base = m.baseline(problem, "fp32") if problem else None
            if problem is None or base is None or base.figures is None:
                continue
            kernels = [k for k in m.kernels if k.op == op]
            cuda, tri = m.bests(kernels, problem, "fp32")
            anyone = m.best(m.timed_of(kernels, problem, "triton", "fp32"), any_design=True)
            anyone = anyone if anyone and (tri is None or anyone.result is not tri.result) else None
            if cuda is None and tri is None:
                continue
            tutorial = m.vs(tri.result, "triton-baseline") if tri else None
            out.append(cls(op, problem, base.key, _vs(cuda), _vs(tri), _vs(anyone), tutorial,
                           m.vs(m.reference(tutorial), "cublas") if tutorial else None))
        return out


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
            if c is not None and cuda is not None and tri is not None:
                out.append((c, idea.key, cuda, tri))
    return out


@dataclass(frozen=True)
class Gap:
    """One idea where one model's best leads: the verdict (Triton against CUDA), the two records' comparisons with
    their cuBLAS (the leader's first) and the causes stated for the leader."""

    idea: str
    speed: Comparison
    lead: Comparison
    trail: Comparison
    causes: tuple[Cause, ...] = ()


@kind
@dataclass(frozen=True)
class Gaps(Found):
    """Where the rounds decided that one model's best is faster than the other's, the largest lead of each; the ties
    and the undecided counted. A file of single bursts makes no call, and says so."""

    KIND: ClassVar[str] = "gaps"
    problem: Problem | None = None
    gaps: tuple[Gap, ...] = ()
    counts: dict[str, int] = field(default_factory=dict)
    ideas: int = 0
    first_idea: str = ""

    @property
    def causes(self) -> tuple[Cause, ...]:
        return tuple(c for g in self.gaps for c in g.causes)

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        out: list[Found] = []
        for op in m.ops:
            found = pairs(m, op)
            if not found:
                continue
            triton_leads = [p for p in found if p[0].call is Call.FAST]
            cuda_leads = [p for p in found if p[0].call is Call.SLOW]
            leads = [*([min(triton_leads, key=lambda p: p[0].ratio)] if triton_leads else []),
                     *([max(cuda_leads, key=lambda p: p[0].ratio)] if cuda_leads else [])]
            gaps = []
            for c, idea, cuda, tri in leads:
                lead, trail = (tri, cuda) if c.call is Call.FAST else (cuda, tri)
                if lead.vs_cublas is not None and trail.vs_cublas is not None:
                    gaps.append(Gap(idea, c, lead.vs_cublas, trail.vs_cublas,
                                    tuple(stated(m, lead.result, trail.result, limit=1))))
            out.append(cls(op, m.headline(op), tuple(gaps),
                           _call_counts([p[0].call.value if p[0].call else None for p in found]), len(found),
                           leads[0][1] if leads else found[0][1]))
        return out


@kind
@dataclass(frozen=True)
class Shared(Found):
    KIND: ClassVar[str] = "shared"
    module: str = ""
    ideas: tuple[str, ...] = ()
    others: tuple[tuple[str, int], ...] = ()       # (another shared module, how many ideas it serves)
    slowest: Comparison | None = None              # its slowest and fastest launch on the headline problem (vs cuBLAS)
    fastest: Comparison | None = None
    speed: Comparison | None = None                # the fastest launch against the slowest

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        modules = {mod: ps for mod, ps in triton_modules(m.kernels).items() if len(ideas_of(ps)) >= 2}
        if not modules:
            return []
        ranked = sorted(modules.items(), key=lambda kv: -len(ideas_of(kv[1])))
        module, kernel_forms = ranked[0]
        problem = m.headline(kernel_forms[0][0].op)
        names = {(k.id, ImplId("triton", c.name).to_json()) for k, c in kernel_forms}
        scored = [(p, r) for r in m.all if (r.kernel, r.impl) in names and problem and r.problem == problem
                  and (p := m.pct(r)) is not None]
        slow = min(scored, key=lambda s: s[0])[1] if len(scored) >= 2 else None
        fast = max(scored, key=lambda s: s[0])[1] if len(scored) >= 2 else None
        return [cls("", module, tuple(ideas_of(kernel_forms)),
                    tuple((other, len(ideas_of(ps))) for other, ps in ranked[1:]),
                    m.vs(slow, "cublas") if slow else None, m.vs(fast, "cublas") if fast else None,
                    m.between(fast, slow) if fast and slow else None)]


@kind
@dataclass(frozen=True)
class Limits(Found):
    """What Triton cannot take as the CUDA kernel writes it (the registry's deviations), and where its compiler spills
    where CUDA's does not and the rounds call the Triton form slower."""

    KIND: ClassVar[str] = "limits"
    deviations: tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...] = ()  # reason, (setting, kernels)
    spilling: Comparison | None = None    # the spilling Triton form against its cuBLAS
    cuda: Comparison | None = None        # its CUDA kernel against its cuBLAS
    speed: Comparison | None = None       # the spilling Triton form against the CUDA kernel
    idea: str = ""                        # where the evidence is: the spilling form's idea, else the first deviation's

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
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
        deviations = tuple((reason, tuple((s, tuple(ids)) for s, ids in uses.items())) for reason, uses in ranked)
        tri, cuda, speed = spills[0] if spills else (None, None, None)
        facts = tri.kernel_facts if tri is not None else None
        return [cls("", deviations, m.vs(tri, "cublas") if tri else None, m.vs(cuda, "cublas") if cuda else None,
                    speed, facts.idea if facts else first_idea)]


def _compiler_spills(m: Measured) -> list[tuple[Result, Result, Comparison]]:
    """(Triton record, CUDA record, its verdict) where the compiled Triton kernel spills, the CUDA one does not, and
    the rounds call the Triton one slower (a spilling form that ties or beats the CUDA kernel overrides nothing). A
    form the registry labels deliberately different (rank-1 updates from global memory) is a design choice of the
    suite, not the compiler overriding one, and is left out."""
    out = []
    for kid, impl in m.implementations:
        if not ImplId.from_json(impl).is_triton:
            continue
        tri, cuda = m.compiled(kid, impl), m.compiled(kid, "cuda")
        if tri is None or cuda is None or m.deliberately_different(tri) or not tri.resources or not cuda.resources:
            continue
        if (tri.resources.spills or 0) > 0 and not cuda.resources.spills:
            same = [r for r in m.of_kernel(kid, impl) if r.timed and m.baseline(r.problem)]
            tri = same[0] if same else tri
            cuda = next((r for r in m.of_kernel(kid, "cuda") if r.problem == tri.problem and r.timed), cuda)
            c = m.between(tri, cuda)
            if c is not None and (c.call is Call.SLOW or (c.verdict is None and c.ratio > 1)):
                out.append((tri, cuda, c))
    return sorted(out, key=lambda t: -(t[0].resources.spills or 0) if t[0].resources else 0)


@dataclass(frozen=True)
class Order:
    """A pair of one document's kernels whose published order does not hold here, with the rounds' call."""

    seed: str
    lead: str             # the kernel the document has clearly ahead
    other: str
    speed: Comparison     # ours: the lead against the other


@kind
@dataclass(frozen=True)
class Rank(Found):
    KIND: ClassVar[str] = "rank"
    pairs: int = 0
    seeds: tuple[str, ...] = ()
    broken: tuple[Order, ...] = ()
    held: tuple[str, ...] = ()

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        claims = [c for c in claims_table(m) if c.ours_pct is not None and c.rank_value is not None]
        by_seed: dict[str, list[Claim]] = {}
        for c in claims:
            by_seed.setdefault(c.kernel.seed or "", []).append(c)
        by_seed = {s: cs for s, cs in by_seed.items() if len(cs) >= 2}
        if not by_seed:
            return []
        broken = {s: _broken(m, cs) for s, cs in by_seed.items()}
        held = tuple(sorted(s for s, b in broken.items() if not b))
        return [cls("", sum(len(cs) * (len(cs) - 1) // 2 for cs in by_seed.values()), tuple(sorted(by_seed)),
                    tuple(o for os in broken.values() for o in os), held)]


def _broken(m: Measured, claims: list[Claim]) -> list[Order]:
    """Every pair the document clearly orders (its figures carry no interval: within claims.TIE it has them level)
    that the rounds do not call the same way (the lead SLOW, SAME or AMBIGUOUS against the other)."""
    out = []
    for a, b in combinations(claims, 2):
        assert a.rank_value is not None and b.rank_value is not None
        lead, other = (a, b) if a.rank_value >= b.rank_value else (b, a)
        if lead.rank_value <= other.rank_value * (1 + TIE) or lead.ours is None or other.ours is None:  # type: ignore
            continue
        c = m.between(lead.ours, other.ours)
        held = c is not None and (c.call is Call.FAST if c.verdict is not None else c.ratio < 1)
        if c is not None and not held:
            out.append(Order(lead.kernel.seed or "", lead.kernel.id, other.kernel.id, c))
    return out


@kind
@dataclass(frozen=True)
class Unroll(Found):
    KIND: ClassVar[str] = "unroll"
    fast: RowKey | None = None
    slow: RowKey | None = None
    ratio: float = 0.0                       # the medians' ratio, slow over fast
    speed: Comparison | None = None          # the rounds' verdict (None: a file of single bursts)
    stated: tuple[Cause, ...] = ()

    @property
    def causes(self) -> tuple[Cause, ...]:
        return self.stated

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        check = unroll_check(m)
        if check is None or check.fast.timing is None or check.slow.timing is None:
            return []
        return [cls("", check.fast.key, check.slow.key, check.ratio, check.speed,
                    tuple(stated(m, check.fast, check.slow)))]


@kind
@dataclass(frozen=True)
class Stride(Found):
    KIND: ClassVar[str] = "stride"
    first: RowKey | None = None
    last: RowKey | None = None
    peak: RowKey | None = None
    doc_peak: str = ""
    same: bool = False
    occupancy: tuple[float, float] | None = None

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        points = [p for p in stride_sweep(m) if p.tflops is not None]
        if len(points) < 3:
            return []
        doc_peak = max(points, key=lambda p: p.published.tflops or 0.0)
        our_peak = max(points, key=lambda p: p.tflops or 0.0)
        first, last = points[0], points[-1]
        assert first.ours is not None and last.ours is not None and our_peak.ours is not None
        doc_falls = (last.published.tflops or 0) < (doc_peak.published.tflops or 0)
        our_falls = (last.tflops or 0.0) < (our_peak.tflops or 0.0)
        o1, o2 = stride_occupancy(m, first), stride_occupancy(m, last)
        return [cls("", first.ours.key, last.ours.key, our_peak.ours.key, doc_peak.kernel.id,
                    doc_peak.published.stride == our_peak.published.stride and doc_falls == our_falls,
                    (o1, o2) if o1 is not None and o2 is not None else None)]


def error(r: Result) -> float | None:
    """The random layer's forward error of a record."""
    v = r.numerics.random if r.numerics else None
    return v.error if v is not None else None


@kind
@dataclass(frozen=True)
class Precision(Found):
    """Speed against forward error across precision classes, on the sgemm headline problem: cuBLAS TF32 against
    cuBLAS fp32, and the fastest kernel of each tensor-core class as its comparison with its cuBLAS."""

    KIND: ClassVar[str] = "precision"
    problem: Problem | None = None
    cublas: tuple[RowKey, RowKey] | None = None      # cuBLAS fp32 and TF32, where both carry an error
    speed: Comparison | None = None                  # cuBLAS TF32 against cuBLAS fp32
    bests: tuple[Comparison, ...] = ()               # per class (tf32, 3xtf32): its fastest against its cuBLAS
    errors: tuple[float, float] = (0.0, 0.0)         # the fp32 kernels' errors, least and most

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        problem = m.headline("sgemm")
        if problem is None:
            return []
        fp32, tf32 = m.baseline(problem, "fp32"), m.baseline(problem, "tf32")
        both = fp32 and tf32 and fp32.figures and tf32.figures and error(fp32) and error(tf32)
        speed = m.between(tf32, fp32) if both else None  # type: ignore[arg-type]
        kernels = [k for k in m.kernels if k.op == "sgemm"]
        bests = [b.vs_cublas for precision in ("tf32", "3xtf32")
                 if (b := m.best([r for model in ("cuda", "triton")
                                  for r in m.timed_of(kernels, problem, model, precision)])) and b.vs_cublas]
        errors = [e for r in m.all if r.problem == problem and r.kernel and r.precision == "fp32" and r.timed
                  and (e := error(r)) is not None]
        if not (both or bests) or not errors:
            return []
        return [cls("", problem, (fp32.key, tf32.key) if both else None,  # type: ignore[union-attr]
                    speed if speed is not None and speed.verdict is not None else None, tuple(bests),
                    (min(errors), max(errors)))]


@dataclass(frozen=True)
class Stretch:
    """A run of sizes on which one implementation is the fastest."""

    key: RowKey
    start: str
    end: str
    pct: tuple[float, float]


@kind
@dataclass(frozen=True)
class Sizes(Found):
    """Across the sizes a sweep timed: which kernel is fastest where, and how close it gets to cuBLAS."""

    KIND: ClassVar[str] = "sizes"
    count: int = 0
    start: str = ""
    end: str = ""
    stretches: tuple[Stretch, ...] = ()

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        out: list[Found] = []
        for op in m.ops:
            problems = sorted({r.problem for r in m.all if r.op == op and r.timed and r.kernel}, key=lambda p: p.flops)
            # A sweep of sizes, not a set of shapes: at least three square problems among them.
            if sum(p.M == p.N and (op == "sgemv" or p.N == p.K) for p in problems) < 3:
                continue
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
            out.append(cls(op, len(problems), problems[0].shape_label, problems[-1].shape_label,
                           tuple(Stretch(s[0][1].result.key, s[0][0], s[-1][0], (s[0][1].pct, s[-1][1].pct))
                                 for _, s in runs[:4])))
        return out


@kind
@dataclass(frozen=True)
class Failures(Found):
    KIND: ClassVar[str] = "failures"
    failed: tuple[RowKey, ...] = ()
    count: int = 0
    of: int = 0

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        failed = [r for r in m.all if r.status is Status.FAILED]
        return [cls("", tuple(r.key for r in failed[:3]), len(failed), len(m.all))] if failed else []


@kind
@dataclass(frozen=True)
class Numerics(Found):
    KIND: ClassVar[str] = "numerics"
    checked: int = 0
    errors: tuple[float, float] = (0.0, 0.0)
    layers: tuple[str, ...] = ()      # the layers the records hold, in the order they are checked (older files: fewer)
    not_checked: int = 0              # rows whose class's rounding the CPU did not reproduce (an fp32 result checked)

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        checked = [r for r in m.all if r.numerics is not None]
        errors = [e for r in checked if (e := error(r)) is not None]
        if not checked or not errors or any(r.timed for r in m.all) or any(r.status is Status.FAILED for r in m.all):
            return []
        layers = tuple(dict.fromkeys(name for r in checked if r.numerics for name in r.numerics.layers))
        unchecked = sum(bool(r.numerics and r.numerics.not_checked) for r in checked)
        return [cls("", len(checked), (min(errors), max(errors)), layers, unchecked)]


@kind
@dataclass(frozen=True)
class ModelOrCompiler(Found):
    """One rung timed in CUDA, Triton and Gluon on its op's headline problem (harness/analysis/model_or_compiler.py):
    Triton against CUDA is the whole gap, Gluon against CUDA the compiler's part, Triton against Gluon the model's
    where the two share their design; the share of the gap the Gluon column closes, and the compiled quantities that
    move between Triton and Gluon with the speed."""

    KIND: ClassVar[str] = "model-or-compiler"
    NUMBERED: ClassVar[bool] = False
    idea: str = ""
    split: Split | None = None

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        headline = {m.headline(op) for op in m.ops}
        return [cls(s.problem.op, m.catalog.by_id[s.kernel].idea, s) for s in splits(m) if s.problem in headline]


@kind
@dataclass(frozen=True)
class Why(Found):
    """Per idea and class on its op's headline problem where the rounds decide between the best CUDA kernel and the
    best Triton form: the causes stated for the faster (harness/analysis/causes.py), and the largest measured
    difference that favours the slower, as context."""

    KIND: ClassVar[str] = "why"
    NUMBERED: ClassVar[bool] = False
    idea: str = ""
    precision: str = ""
    speed: Comparison | None = None      # the best Triton against the best CUDA
    stated: tuple[Cause, ...] = ()
    against: Cause | None = None

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        out: list[Found] = []
        for op in m.ops:
            for c, idea, cuda, tri in pairs(m, op):
                if c.call not in (Call.FAST, Call.SLOW):
                    continue
                lead, trail = (tri, cuda) if c.call is Call.FAST else (cuda, tri)
                found = tuple(stated(m, lead.result, trail.result))
                out.append(cls(op, idea, tri.result.precision, c, found,
                               against(m, lead.result, trail.result) if found else None))
        return out
