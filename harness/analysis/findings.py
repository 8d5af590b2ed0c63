"""The findings that open the report, each kind one typed declaration: its figures (typed fields, kept in the analysis
record as JSON), its rule over the results (`find`), its sentence (`words`) and the section that shows its evidence.

Nothing here is written by hand about a particular kernel: every finding is a rule over the results (best per idea
and model, the widest gaps, the documents' claims, the shared Triton kernels, what Triton cannot take) that finds
nothing where the results hold nothing for it. A comparison is said with its call and interval (harness/analysis/
verdicts.py), never by a tolerance on two point estimates.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, ClassVar

from harness.analysis import anchors, fmt, wording
from harness.analysis.ablation import cause_sentence as ablation_cause
from harness.analysis.cause_words import NO_CAUSE, said
from harness.analysis.causes import stated
from harness.analysis.claims import Claim, claims_table, doc_figure, stride_occupancy, stride_sweep, unroll_check
from harness.analysis.fmt import Inline, Link, Mono
from harness.analysis.measured import Best, Measured, ideas_of, triton_modules
from harness.analysis.metrics import ran_text
from harness.analysis.model_or_compiler import Quantity, Split, closed_text, splits
from harness.analysis.overview import headline_problems
from harness.analysis.record import Cause, Comparison, RowKey, pair
from harness.analysis.relations import Relation
from harness.analysis.verdicts import Call
from harness.analysis.wording import PRECISION_TEXT, baseline_label, idea_link, who
from harness.identity import ImplId
from harness.problems import Problem
from harness.records.lines import Result, Status

MAX_FINDINGS = 10
Interval = tuple[float, float | None, float | None]   # a % of cuBLAS with its 95% interval (None: single bursts)


# ---------------------------------------------------------------------------------------------- the declaration
@dataclass(frozen=True)
class Found:
    """A finding: subclasses declare `KIND`, their typed figures as fields, `find` (the rule), `words` and
    `evidence`. Its JSON is its fields, each written by its own type (a verdict, a cause, a problem, a record key)."""

    KIND: ClassVar[str]
    # A kind found once per rung (ModelOrCompiler) is shown under its own heading and in its idea's section, every
    # one of them; the others are the numbered findings, at most MAX_FINDINGS.
    PER_RUNG: ClassVar[bool] = False
    op: str = ""                       # the op a per-op kind is about ("" for the others)

    @property
    def kind(self) -> str:
        return f"{self.KIND}-{self.op}" if self.op else self.KIND

    @property
    def causes(self) -> tuple[Cause, ...]:
        return ()

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        raise NotImplementedError

    def words(self, m: Measured) -> list[Inline]:
        raise NotImplementedError

    def evidence(self, m: Measured) -> Link:
        raise NotImplementedError

    def to_json(self) -> dict:
        return {"kind": self.KIND, **{f.name: _encode(getattr(self, f.name)) for f in dataclasses.fields(self)}}

    @staticmethod
    def from_json(data: dict) -> Found:
        cls = KINDS.get(data.get("kind", ""))
        if cls is None:
            raise ValueError(f"not a finding kind: {data.get('kind')!r}")
        hints = typing.get_type_hints(cls)
        return cls(**{f.name: _decode(hints[f.name], data[f.name]) for f in dataclasses.fields(cls)
                      if f.name in data})


def _encode(v: Any) -> Any:
    if hasattr(v, "to_json"):
        return v.to_json()
    if dataclasses.is_dataclass(v):
        return {f.name: _encode(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, (tuple, list)):
        return [_encode(x) for x in v]
    if isinstance(v, dict):
        return {k: _encode(x) for k, x in v.items()}
    return float(v) if isinstance(v, float) else v   # every digit: a figure read back prints as it was made


def _decode(tp: Any, data: Any) -> Any:
    """A field's value from its JSON, by its declared type."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if data is None:
            return None
        known = [a for a in args if a is not type(None)]
        return _decode(known[0], data) if len(known) == 1 else data
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], x) for x in data)
        return tuple(_decode(a, x) for a, x in zip(args, data, strict=True)) if args else _tuple(data)
    if tp is tuple:
        return _tuple(data)
    if isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields"):  # a NamedTuple: by its own fields
        hints = typing.get_type_hints(tp)
        return tp(*(_decode(hints[f], x) for f, x in zip(tp._fields, data, strict=True)))
    if origin is dict:
        return {k: _decode(args[1], x) for k, x in data.items()}
    if isinstance(tp, type) and hasattr(tp, "from_json"):
        return tp.from_json(data)
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return tp(**{f.name: _decode(hints[f.name], data[f.name]) for f in dataclasses.fields(tp)})
    return data


def _tuple(data: Any) -> Any:
    return tuple(_tuple(x) for x in data) if isinstance(data, list) else data


KINDS: dict[str, type[Found]] = {}


def kind(cls: type[Found]) -> type[Found]:
    """Register a finding kind (in the order the findings are listed)."""
    KINDS[cls.KIND] = cls
    return cls


def recorded(m: Measured) -> list[Found]:
    """The findings of the record beside the file; a record written before findings were recorded as these types
    (or none) gets them made now, by the same rules."""
    found = m.analysis.findings
    if found is None:
        return findings(m)
    try:
        return [f if isinstance(f, Found) else Found.from_json(f) for f in found]
    except (KeyError, TypeError, ValueError):
        return findings(m)


def findings(m: Measured) -> list[Found]:
    numbered = [f for cls in KINDS.values() if not cls.PER_RUNG for f in cls.find(m)][:MAX_FINDINGS]
    return numbered + [f for cls in KINDS.values() if cls.PER_RUNG for f in cls.find(m)]


# ---------------------------------------------------------------------------------------------- shared wording
def rec(m: Measured, key: RowKey) -> Result:
    return m.record(key)


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


def _call_counts(calls: list[str | None]) -> dict[str, int]:
    return {str(c): calls.count(c) for c in dict.fromkeys(calls)}


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

    def words(self, m: Measured) -> list[Inline]:
        parts: list[Inline] = ["Nothing in this file was timed (a CPU run: Triton in its interpreter, CUDA compiled "
                               "for sm_90), so it holds no speeds"]
        for name, span in (("CUDA", self.cuda), ("Triton", self.triton)):
            if span is not None:
                parts.append(f"; the {name} kernels compile to {span[0]}–{span[1]} registers per thread")
        return [*parts, "."]

    def evidence(self, m: Measured) -> Link:
        return Link("Ideas", anchors.href(anchors.IDEAS))


@dataclass(frozen=True)
class Shape:
    """One problem of a headline: the fastest fp32 CUDA kernel and Triton form (like for like, and of any design
    where that is another), each with its % of cuBLAS fp32, and the best Triton against the Triton tutorial."""

    problem: Problem
    role: str                                    # "" for the op's headline problem, else why this one is shown
    cublas: RowKey
    cuda: RowKey | None = None
    cuda_pct: Interval | None = None
    triton: RowKey | None = None
    triton_pct: Interval | None = None
    triton_any: RowKey | None = None
    triton_any_pct: Interval | None = None
    tutorial: Comparison | None = None
    tutorial_pct: Interval | None = None


@kind
@dataclass(frozen=True)
class Headline(Found):
    """Per op: its headline problem (for sgemv also the shape nearest the copy bandwidth), the best of each model."""

    KIND: ClassVar[str] = "headline"
    shapes: tuple[Shape, ...] = ()

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        out: list[Found] = []
        for op in m.ops:
            kernels = [k for k in m.kernels if k.op == op]
            shapes = []
            for problem, role in headline_problems(m, op):
                base = m.baseline(problem, "fp32")
                if base is None or base.figures is None:
                    continue
                cuda, tri = m.bests(kernels, problem, "fp32")
                anyone = m.best(m.timed_of(kernels, problem, "triton", "fp32"), any_design=True)
                anyone = anyone if anyone and (tri is None or anyone.result is not tri.result) else None
                if cuda is None and tri is None:
                    continue
                tutorial = m.vs(tri.result, Relation.TRITON_BASELINE) if tri else None
                shapes.append(Shape(problem, role, base.key, cuda.result.key if cuda else None,
                                    cuda.interval if cuda else None, tri.result.key if tri else None,
                                    tri.interval if tri else None, anyone.result.key if anyone else None,
                                    anyone.interval if anyone else None, tutorial,
                                    m.interval(m.reference(tutorial)) if tutorial else None))
            out += [cls(op, tuple(shapes))] if shapes else []
        return out

    def _reaches(self, r: Result, pct: Interval, first: bool) -> str:
        fig = r.figures
        assert fig is not None
        vs = f" of {baseline_label('fp32')}" if first else ""
        if self.op == "sgemm":
            return f"reaches {fmt.pct_ci(*pct)}{vs} over the paired rounds ({fmt.tflops(fig.tflops)} TFLOP/s at its " \
                   "median time)"
        return (f"moves {fmt.gbps(fig.gbps)} GB/s at its median time ({fmt.pct_ci(*pct)}{vs} over the paired rounds"
                + (f", {fmt.pct(fig.pct_peak)} of the measured copy bandwidth)" if fig.pct_peak else ")"))

    def _shape(self, m: Measured, s: Shape, lead: bool) -> list[Inline]:
        where = f" ({s.role})" if s.role else ""
        parts: list[Inline] = [f"On {s.problem.label}{where}, " if lead else f"; on {s.problem.label}{where}, "]
        first = True
        for label, key, pct in (("the fastest fp32 CUDA kernel", s.cuda, s.cuda_pct),
                                ("the fastest fp32 Triton form like for like", s.triton, s.triton_pct),
                                ("the fastest Triton form of any design", s.triton_any, s.triton_any_pct)):
            if key is None or pct is None:
                continue
            r = rec(m, key)
            parts += [", and " if not first else "", f"{label}, ", *who(r), ran(m, r), ", ",
                      self._reaches(r, pct, first)]
            if key == s.triton and s.tutorial is not None and s.tutorial_pct is not None:
                tut = m.reference(s.tutorial)
                parts.append(f"; {tut.label} reaches {fmt.pct_ci(*s.tutorial_pct)}, and "
                             + between_text(m, s.tutorial, "this form", "the tutorial's"))
            first = False
        base, peaks = rec(m, s.cublas), m.header.peaks
        fig = base.figures
        assert fig is not None
        if self.op == "sgemm" and fig.pct_peak is not None and peaks:
            parts.append(f"; {base.label} itself runs at {fmt.pct(fig.pct_peak)} of the measured FP32 FMA peak "
                         f"({peaks.fp32_tflops:.1f} TFLOP/s)")
        elif self.op == "sgemv" and fig.pct_peak is not None:
            parts.append(f"; {base.label} moves {fmt.gbps(fig.gbps)} GB/s ({fmt.pct(fig.pct_peak)} of the copy "
                         "bandwidth)")
        return parts

    def words(self, m: Measured) -> list[Inline]:
        return [*(part for i, s in enumerate(self.shapes) for part in self._shape(m, s, i == 0)), "."]

    def evidence(self, m: Measured) -> Link:
        if self.op == "sgemm":
            return Link("the % of cuBLAS plot", anchors.href(anchors.plot(anchors.BARS.format(op="sgemm"))))
        return Link("the bandwidth plot", anchors.href(anchors.plot(anchors.GEMV)))


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
    """One idea where one model's best leads: the two records, their % of cuBLAS, the verdict (Triton against
    CUDA) and the causes stated for the leader."""

    idea: str
    lead: RowKey
    trail: RowKey
    lead_pct: Interval
    trail_pct: Interval
    speed: Comparison
    causes: tuple[Cause, ...] = ()


# How the calls of the per-idea pairs are counted, in the order the sentence counts them ("None": single bursts).
_COUNTED = (("FAST", "Triton faster"), ("SLOW", "CUDA faster"), ("SAME", "a tie"), ("AMBIGUOUS", "undecided"),
            ("None", "single bursts, no verdict"))


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
                gaps.append(Gap(idea, lead.result.key, trail.result.key, lead.interval, trail.interval, c,
                                tuple(stated(m, lead.result, trail.result, limit=1))))
            out.append(cls(op, m.headline(op), tuple(gaps),
                           _call_counts([p[0].call.value if p[0].call else None for p in found]), len(found),
                           leads[0][1] if leads else found[0][1]))
        return out

    def words(self, m: Measured) -> list[Inline]:
        assert self.problem is not None
        parts: list[Inline] = [f"Per idea on {self.problem.label}, "]
        for i, g in enumerate(self.gaps):
            lead, trail = rec(m, g.lead), rec(m, g.trail)
            tri, cuda = (lead, trail) if g.speed.call is Call.FAST else (trail, lead)
            parts += ["; " if i else "", "Triton's best is faster than CUDA's best most in " if lead is tri
                      else "CUDA's best is faster than Triton's most in ", idea_link(m.catalog, g.idea), ", ",
                      between_text(m, g.speed, short(tri), short(cuda)) + ": ", *named(lead), ran(m, lead),
                      f" at {fmt.pct_ci(*g.lead_pct)} of {baseline_label(lead.precision)} against ",
                      *named(trail, lead), ran(m, trail), f" at {fmt.pct_ci(*g.trail_pct)}"]
            why = said(g.causes, (short(lead), short(trail)))
            parts += [", where " + why if why else f"; {NO_CAUSE}"]
        counts = [f"{n} {what}" for call, what in _COUNTED if (n := self.counts.get(call))]
        return [*parts, ("; " if self.gaps else "") + f"of {self.ideas} ideas and classes: " + ", ".join(counts) + "."]

    def evidence(self, m: Measured) -> Link:
        return idea_link(m.catalog, self.first_idea)


@kind
@dataclass(frozen=True)
class Shared(Found):
    KIND: ClassVar[str] = "shared"
    module: str = ""
    ideas: tuple[str, ...] = ()
    others: tuple[tuple[str, int], ...] = ()       # (another shared module, how many ideas it serves)
    slowest: RowKey | None = None                  # its slowest and fastest launch on the headline problem
    fastest: RowKey | None = None
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
        scored = [(p, r) for r in m.all if r.kernel_impl in names and problem and r.problem == problem
                  and (p := m.pct(r)) is not None]
        slow = min(scored, key=lambda s: s[0])[1] if len(scored) >= 2 else None
        fast = max(scored, key=lambda s: s[0])[1] if len(scored) >= 2 else None
        return [cls("", module, tuple(ideas_of(kernel_forms)),
                    tuple((other, len(ideas_of(ps))) for other, ps in ranked[1:]),
                    slow.key if slow else None, fast.key if fast else None,
                    m.between(fast, slow) if fast and slow else None)]

    def words(self, m: Measured) -> list[Inline]:
        parts: list[Inline] = [f"{len(self.ideas)} ideas ("]
        listed = self.ideas if len(self.ideas) <= 5 else self.ideas[:4]
        for i, key in enumerate(listed):
            parts += [", “" if i else "“", idea_link(m.catalog, key), "”"]
        if len(listed) < len(self.ideas):
            parts.append(f" and {len(self.ideas) - len(listed)} more")
        parts += [") are one Triton kernel, ", Mono(f"kernels_triton/{self.module}.py"),
                  ", launched with different settings"]
        if self.slowest is not None and self.fastest is not None:
            r0, r1 = rec(m, self.slowest), rec(m, self.fastest)
            parts += [f": on {r0.problem.label} it runs from {fmt.pct_ci(*m.interval(r0))} of cuBLAS (ran "
                      f"{ran_text(m, r0)}, for ", Mono(r0.kernel or ""), f") to {fmt.pct_ci(*m.interval(r1))} (ran "
                      f"{ran_text(m, r1)}, for ", Mono(r1.kernel or ""), "), "
                      + between_text(m, self.speed, "the fastest launch", "the slowest")]
        for i, (other, n) in enumerate(self.others):
            parts += ["; likewise " if i == 0 else " and ", Mono(f"{other}.py"), f" ({n} ideas)"]
        return [*parts, "."]

    def evidence(self, m: Measured) -> Link:
        return Link("Triton kernels shared by several ideas", anchors.href(anchors.SHARED_TRITON))


@kind
@dataclass(frozen=True)
class Limits(Found):
    """What Triton cannot take as the CUDA kernel writes it (the registry's deviations), and where its compiler spills
    where CUDA's does not and the rounds call the Triton form slower."""

    KIND: ClassVar[str] = "limits"
    deviations: tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...] = ()  # reason, (setting, kernels)
    spilling: RowKey | None = None
    cuda: RowKey | None = None
    speed: Comparison | None = None       # the spilling Triton form against the CUDA kernel
    first_idea: str = ""

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
        return [cls("", deviations, tri.key if tri else None, cuda.key if cuda else None, speed,
                    first_idea or (facts.idea if facts else ""))]

    def words(self, m: Measured) -> list[Inline]:
        parts: list[Inline] = []
        if self.deviations:
            total = sum(len(ids) for _, uses in self.deviations for _, ids in uses)
            parts.append(f"Triton cannot take {fmt.plural(total, 'CUDA launch decision')} as written: ")
            for i, (reason, uses) in enumerate(self.deviations[:2]):
                parts += [" and " if i else "", f"“{reason}” ("]
                for j, (setting, ids) in enumerate(uses):
                    parts += ["; " if j else "", f"{setting} for "]
                    for n, kid in enumerate(ids):
                        parts += [", " if n else "", Mono(kid)]
                parts.append(")")
            rest = sum(len(ids) for _, uses in self.deviations[2:] for _, ids in uses)
            parts += [f", with {rest} more in the idea sections"] if rest else []
        if self.spilling is not None and self.cuda is not None:
            tri, cuda = rec(m, self.spilling), rec(m, self.cuda)
            assert tri.resources and cuda.resources
            parts += ["; " if parts else "", "where it can take them, its compiler may override the design: ",
                      *who(tri), ran(m, tri), f" spills {tri.resources.spills} B at {tri.resources.registers} "
                      f"registers where the CUDA kernel holds {cuda.resources.registers} with none, and "
                      + between_text(m, self.speed, short(tri), "its CUDA kernel")
                      + f" ({fmt.pct_ci(*m.interval(tri))} of cuBLAS against {fmt.pct_ci(*m.interval(cuda))})"]
        return [*parts, "."]

    def evidence(self, m: Measured) -> Link:
        return idea_link(m.catalog, self.first_idea)


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

    def words(self, m: Measured) -> list[Inline]:
        if not self.broken:
            return [f"Every document's order of its own kernels holds here: all {self.pairs} pairs across seeds "
                    f"{fmt.joined(list(self.seeds))} keep the order their document measured, each called faster by "
                    "the rounds."]
        n = len(self.broken)
        parts: list[Inline] = [f"Of {self.pairs} pairs of kernels the documents order, {n} "
                               f"{'does' if n == 1 else 'do'} not hold here: "]
        for i, o in enumerate(self.broken[:3]):
            lead, other = m.seed_record(o.lead), m.seed_record(o.other)
            assert lead is not None and other is not None
            parts += ["; " if i else "", f"in seed {o.seed} ({m.catalog.seeds[o.seed].gpu}) ", Mono(o.lead), " leads ",
                      Mono(o.other), f" ({doc_figure(m, o.lead)} against {doc_figure(m, o.other)} on its GPU), but "
                      f"here {between_text(m, o.speed, 'the first', 'the second')} ({fmt.pct_ci(*m.interval(lead))} "
                      f"against {fmt.pct_ci(*m.interval(other))} of cuBLAS)"]
        if self.held:
            parts.append(f"; seed{'s' if len(self.held) > 1 else ''} {fmt.joined(list(self.held))} keep every "
                         "pairwise order")
        return [*parts, "."]

    def evidence(self, m: Measured) -> Link:
        return Link("the documents' figures beside ours", anchors.href(anchors.CLAIMS))


def _broken(m: Measured, claims: list[Claim]) -> list[Order]:
    """Every pair the document clearly orders (its figures carry no interval: within claims.TIE it has them level)
    that the rounds do not call the same way (the lead SLOW, SAME or AMBIGUOUS against the other)."""
    from harness.analysis.claims import TIE

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

    def words(self, m: Measured) -> list[Inline]:
        assert self.fast is not None and self.slow is not None
        fast, slow = rec(m, self.fast), rec(m, self.slow)
        c = m.catalog.unroll_claim
        assert fast.timing is not None and slow.timing is not None
        times = f"{fmt.ms(fast.timing.median_ms)} against {fmt.ms(slow.timing.median_ms)} ms"
        here = (f"here, at {times}, {between_text(m, self.speed, 'the unrollable form', 'the tid form')}"
                if self.speed is not None else f"here the ratio is {fmt.times(self.ratio)} ({times})")
        parts: list[Inline] = [f"Seed {c.seed} calls its unrollable load loop ", Mono(c.fast),
                               f" '{c.words}' faster than the one starting at tid, ", Mono(c.slow), f"; {here}"]
        why = said(self.stated, ("the unrollable form", "the tid form"))
        return [*parts, *([", where " + why] if why else []), "."]

    def evidence(self, m: Measured) -> Link:
        return Link("the unroll ratio", anchors.href(anchors.UNROLL if m.catalog.unroll_claim.fast in m.catalog.by_id
                                                     else anchors.CLAIMS))


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

    def words(self, m: Measured) -> list[Inline]:
        assert self.first and self.last and self.peak
        first, last, peak = rec(m, self.first), rec(m, self.last), rec(m, self.peak)
        by_id = m.catalog.by_id
        doc = by_id[self.doc_peak].published
        pub_first, pub_last, pub_peak = (by_id[r.kernel or ""].published for r in (first, last, peak))
        assert doc and pub_first and pub_last and pub_peak and last.figures and peak.figures
        parts: list[Inline] = [
            f"Seed {by_id[first.kernel or ''].seed}'s stride sweep {'keeps' if self.same else 'changes'} its shape: "
            f"the document peaks at stride {doc.stride} ({doc.tflops} TFLOP/s) and ends at {pub_last.tflops} at stride "
            f"{pub_last.stride}; here the peak is at stride {pub_peak.stride} ({fmt.tflops(peak.figures.tflops)} "
            f"TFLOP/s) and stride {pub_last.stride} gives {fmt.tflops(last.figures.tflops)}"]
        regs = [r.resources.registers if r.resources else None for r in (first, last)]
        if regs[0] is not None and regs[1] is not None:
            parts.append(f", while registers grow from {regs[0]} to {regs[1]} (document {pub_first.registers} to "
                         f"{pub_last.registers})")
        if self.occupancy is not None:
            o1, o2 = self.occupancy
            parts.append(f" and theoretical occupancy goes from {fmt.pct_round(o1)} to {fmt.pct_round(o2)} (document "
                         f"{fmt.pct(pub_first.occupancy_pct)} to {fmt.pct(pub_last.occupancy_pct)})")
        return [*parts, "."]

    def evidence(self, m: Measured) -> Link:
        return Link("the stride sweep", anchors.href(anchors.STRIDE))


def _error(r: Result) -> float | None:
    v = r.numerics.random if r.numerics else None
    return v.error if v is not None else None


@dataclass(frozen=True)
class ClassBest:
    precision: str
    key: RowKey
    pct: Interval


@kind
@dataclass(frozen=True)
class Precision(Found):
    """Speed against forward error across precision classes, on the sgemm headline problem."""

    KIND: ClassVar[str] = "precision"
    problem: Problem | None = None
    cublas: tuple[RowKey, RowKey] | None = None      # cuBLAS fp32 and TF32, where both carry an error
    speed: Comparison | None = None                  # cuBLAS TF32 against cuBLAS fp32
    bests: tuple[ClassBest, ...] = ()
    errors: tuple[float, float] = (0.0, 0.0)         # the fp32 kernels' errors, least and most

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        problem = m.headline("sgemm")
        if problem is None:
            return []
        fp32, tf32 = m.baseline(problem, "fp32"), m.baseline(problem, "tf32")
        both = fp32 and tf32 and fp32.figures and tf32.figures and _error(fp32) and _error(tf32)
        speed = pair(Relation.CUBLAS_TF32, tf32, fp32) if both else None  # type: ignore[arg-type]
        kernels = [k for k in m.kernels if k.op == "sgemm"]
        bests = []
        for precision in ("tf32", "3xtf32"):
            best = m.best([r for model in ("cuda", "triton") for r in m.timed_of(kernels, problem, model, precision)])
            if best is not None:
                bests.append(ClassBest(precision, best.result.key, best.interval))
        errors = [e for r in m.all if r.problem == problem and r.kernel and r.precision == "fp32" and r.timed
                  and (e := _error(r)) is not None]
        if not (both or bests) or not errors:
            return []
        return [cls("", problem, (fp32.key, tf32.key) if both else None,  # type: ignore[union-attr]
                    speed if speed is not None and speed.verdict is not None else None, tuple(bests),
                    (min(errors), max(errors)))]

    def words(self, m: Measured) -> list[Inline]:
        assert self.problem is not None
        parts: list[Inline] = []
        if self.cublas is not None:
            fp32, tf32 = rec(m, self.cublas[0]), rec(m, self.cublas[1])
            assert fp32.figures and tf32.figures
            e32, etf = _error(fp32), _error(tf32)
            assert e32 and etf
            rates = f"({fmt.tflops(tf32.figures.tflops)} against {fmt.tflops(fp32.figures.tflops)} TFLOP/s)"
            speed = (between_text(m, self.speed, tf32.label, fp32.label) if self.speed is not None
                     else f"{tf32.label} runs at {fmt.times(tf32.figures.tflops / fp32.figures.tflops)} the rate of "
                          f"{fp32.label} (a single burst each: no verdict)")
            parts.append(f"{speed} on {self.problem.label} {rates} at {fmt.times(etf / e32)} its forward error "
                         f"({fmt.sci(etf)} against {fmt.sci(e32)})")
        for b in self.bests:
            r = rec(m, b.key)
            parts += ["; " if parts else "", f"the fastest {PRECISION_TEXT[b.precision]} kernel, ", *who(r), ran(m, r),
                      f", reaches {fmt.pct_ci(*b.pct)} of {baseline_label(b.precision)} at forward error "
                      f"{fmt.sci(_error(r))}"]
        lo, hi = self.errors
        return [*parts, f"; every fp32 kernel's error lies between {fmt.sci(lo)} and {fmt.sci(hi)}."]

    def evidence(self, m: Measured) -> Link:
        return Link("accuracy against speed", anchors.href(anchors.plot(anchors.ACCURACY)))


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

    def words(self, m: Measured) -> list[Inline]:
        parts: list[Inline] = [f"Across {self.count} {self.op} sizes, from {self.start} to {self.end}, "]
        for i, s in enumerate(self.stretches):
            one = s.start == s.end
            where = f"at {s.start}" if one else f"from {s.start} to {s.end}"
            parts += ["; then " if i else "the fastest is ", *who(rec(m, s.key)), f" {where} ({fmt.pct(s.pct[0])}"
                      + (f" to {fmt.pct(s.pct[1])}" if not one else "") + " of cuBLAS)"]
        return [*parts, "."]

    def evidence(self, m: Measured) -> Link:
        return Link("time against size", anchors.href(anchors.plot(anchors.TIME.format(op=self.op))))


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

    def words(self, m: Measured) -> list[Inline]:
        names = [f"{r.kernel or r.impl} [{r.label}]" for r in (rec(m, k) for k in self.failed)]
        return [f"{self.count} of {self.of} results failed (", fmt.joined(names), ", …" if self.count > 3 else "",
                "): their figures are left out of every comparison."]

    def evidence(self, m: Measured) -> Link:
        return Link("All results", anchors.href(anchors.RESULTS))


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
        errors = [e for r in checked if (e := _error(r)) is not None]
        if not checked or not errors or any(r.timed for r in m.all) or any(r.status is Status.FAILED for r in m.all):
            return []
        layers = tuple(dict.fromkeys(name for r in checked if r.numerics for name in r.numerics.layers))
        unchecked = sum(bool(r.numerics and r.numerics.not_checked) for r in checked)
        return [cls("", len(checked), (min(errors), max(errors)), layers, unchecked)]

    def words(self, m: Measured) -> list[Inline]:
        lo, hi = self.errors
        which = (f"the {len(self.layers)} numerics layers ({', '.join(self.layers)})" if self.layers
                 else "every numerics layer")
        return [f"All {self.checked} implementations checked here pass {which} of their precision class, with "
                f"forward errors from {fmt.sci(lo)} to {fmt.sci(hi)}"
                + (f"; {self.not_checked} of them were not checked at their class's precision on a CPU (an fp32 "
                   "result held to its bounds)." if self.not_checked else ".")]

    def evidence(self, m: Measured) -> Link:
        return Link("All results", anchors.href(anchors.RESULTS))


@kind
@dataclass(frozen=True)
class ModelOrCompiler(Found):
    """One rung timed in CUDA, Triton and Gluon on its op's headline problem (harness/analysis/model_or_compiler.py):
    Triton against CUDA is the whole gap, Gluon against CUDA the compiler's part, Triton against Gluon the model's;
    the share of the gap the Gluon column closes, and the compiled quantities that move between Triton and Gluon with
    the speed."""

    KIND: ClassVar[str] = "model-or-compiler"
    PER_RUNG: ClassVar[bool] = True
    idea: str = ""
    split: Split | None = None

    @classmethod
    def find(cls, m: Measured) -> list[Found]:
        headline = {m.headline(op) for op in m.ops}
        return [cls(s.problem.op, m.catalog.by_id[s.kernel].idea, s) for s in splits(m) if s.problem in headline]

    def moves(self) -> str:
        """What moves between Triton and Gluon with the speed, with its three values; or why nothing is named."""
        s = self.split
        assert s is not None
        if s.model is None or s.model.call not in (Call.FAST, Call.SLOW):
            return "the rounds do not decide between Triton and Gluon, so no quantity is named"
        moving = [f"{q.name} ({_three(q)})" for q in s.moving]
        return (f"{fmt.joined(moving)} move{'s' if len(moving) == 1 else ''} with the speed between Triton and Gluon"
                if moving else "none of the compiled quantities moves with the speed between Triton and Gluon")

    def words(self, m: Measured) -> list[Inline]:
        s = self.split
        assert s is not None
        tri = rec(m, s.triton)
        closed = "" if s.closed is None else f"; the Gluon column closes {closed_text(s.closed)}"
        out: list[Inline] = [
            Mono(s.kernel), f" on {s.problem.label}: ", between_text(m, s.gap, tri.label, "the CUDA kernel"),
            "; the compiler's part, the CUDA kernel's decisions in Gluon: ",
            between_text(m, s.compiler, "Gluon", "the CUDA kernel"), "; the model's part, the same tile: ",
            between_text(m, s.model, tri.label, "Gluon"), f"{closed}; {self.moves()}."]
        if s.cause is not None:  # the compiler's part's cause, by the ablation beside the file
            out.append(f" Why Gluon trails CUDA, by ablation with CUDA as the control: "
                       f"{ablation_cause(s.cause, s.problem.M)}")
        return out

    def evidence(self, m: Measured) -> Link:
        return idea_link(m.catalog, self.idea)


def _three(q: Quantity) -> str:
    """'CUDA 21.3, Triton 12.8, Gluon 21.3'."""
    return ", ".join(f"{name} {'-' if v is None else f'{v:.3g}'}"
                     for name, v in (("CUDA", q.cuda), ("Triton", q.triton), ("Gluon", q.gluon)))
