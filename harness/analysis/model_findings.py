"""The findings of how the models compare, each kind a typed declaration (harness/analysis/found.py): the headline,
the widest gaps per idea, the Triton kernel several ideas share, what Triton cannot take, and per rung or idea the
model-or-compiler split and the causes of a decided pair. harness/analysis/findings.py lists them; the page words
them (harness/report/findings.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from harness.analysis.causes import against, stated
from harness.analysis.found import Found, kind
from harness.analysis.measured import Best, Measured
from harness.analysis.model_or_compiler import Split, splits
from harness.analysis.overview import ideas_of, module_launches, triton_modules
from harness.analysis.record import Cause, Comparison, RowKey
from harness.analysis.relations import Relation
from harness.analysis.verdicts import Call
from harness.identity import ImplId
from harness.problems import Problem
from harness.records.lines import Result


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
            tutorial = m.vs(tri.result, Relation.TRITON_BASELINE) if tri else None
            out.append(cls(op, problem, base.key, _vs(cuda), _vs(tri), _vs(anyone), tutorial,
                           m.vs(m.reference(tutorial), Relation.CUBLAS) if tutorial else None))
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
            calls = [p[0].call.value if p[0].call else None for p in found]
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
                           {str(c): calls.count(c) for c in dict.fromkeys(calls)}, len(found),
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
        scored = module_launches(m, kernel_forms)
        slow = min(scored, key=lambda s: s[0])[1] if len(scored) >= 2 else None
        fast = max(scored, key=lambda s: s[0])[1] if len(scored) >= 2 else None
        return [cls("", module, tuple(ideas_of(kernel_forms)),
                    tuple((other, len(ideas_of(ps))) for other, ps in ranked[1:]),
                    m.vs(slow, Relation.CUBLAS) if slow else None, m.vs(fast, Relation.CUBLAS) if fast else None,
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
        return [cls("", deviations, m.vs(tri, Relation.CUBLAS) if tri else None,
                    m.vs(cuda, Relation.CUBLAS) if cuda else None, speed, facts.idea if facts else first_idea)]


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
