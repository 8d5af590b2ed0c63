"""The figures of the page's compact tables, as data: per op and precision class on its headline problem the best
CUDA and Triton implementations beside cuBLAS, the same per idea with the document's claim to hold beside them, and
each Triton module with the ideas it serves (harness/report/overview.py writes them); and the page's parts, derived
from the catalog: one per (op, precision class) of an idea's kernels. The fp32 SIMT SGEMM ideas form the ladder (in
registry order: each rung adds one idea); tensor-core GEMMs and GEMV follow as parts of their own. Nothing here lists
ideas by hand."""

from __future__ import annotations

from dataclasses import dataclass

from harness.analysis.claims import Claim, claims_table
from harness.analysis.measured import Best, Measured
from harness.analysis.record import Comparison
from harness.analysis.relations import Relation
from harness.analysis.verdicts import Call
from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import Counterpart, Kernel
from harness.identity import ImplId
from harness.measure.timing import CLOCK_DROP_LIMIT
from harness.problems import Problem
from harness.records.lines import Result

# The classes the headline has a row for; Triton's bf16 splits are in the accuracy chart's table (the report's
# fp32_class_table), where they stand beside the 3xTF32 rows with their errors, and the first screen keeps the ladder
# chart.
HEADLINE_CLASSES = ("fp32", "3xtf32", "tf32")


# The models a headline row holds the best of: a model the suite gains (Gluon) is one more name here, and one more
# column declared over HeadlineRow.best (harness/report/columns.py).
MODELS = ("cuda", "triton", "gluon")


@dataclass(frozen=True)
class HeadlineRow:
    op: str
    problem: Problem
    precision: str
    cublas: Result                        # the class's cuBLAS on the problem
    best: dict[str, Best | None]          # per model: its best like-for-like form (it moves data as CUDA does)
    triton_vs_cuda: Comparison | None     # the best Triton against the best CUDA (often two kernels)
    tutorial: Comparison | None           # the best Triton against the Triton tutorial GEMM of its class
    triton_any: Best | None = None        # the best Triton form of any design, where it is another than `triton`
    gluon_vs_cuda: Comparison | None = None   # the best Gluon against the best CUDA, where the run timed a Gluon form

    @property
    def cuda(self) -> Best | None:
        return self.best.get("cuda")

    @property
    def triton(self) -> Best | None:
        return self.best.get("triton")

    @property
    def gluon(self) -> Best | None:
        return self.best.get("gluon")


@dataclass(frozen=True)
class IdeaRow:
    idea: Idea
    precision: str
    cuda: Best | None
    triton: Best | None
    triton_vs_cuda: Comparison | None
    claim: Claim | None                   # the document's figure to hold beside the idea's (pub_claim)
    gluon: Best | None = None             # the fastest Gluon form, where the idea has one


@dataclass(frozen=True)
class SharedModule:
    module: str
    pairs: tuple[tuple[Kernel, Counterpart], ...]
    ideas: tuple[str, ...]
    pcts: tuple[float, ...]               # the % of cuBLAS of its timed launches on the op's headline problem


def headline_rows(m: Measured) -> list[HeadlineRow]:
    """Per op and precision class on the op's headline problem: the best of each model beside cuBLAS."""
    out = []
    for op in m.ops:
        kernels, problem = [k for k in m.kernels if k.op == op], m.headline(op)
        for precision in [p for p in m.precisions(kernels, problem) if p in HEADLINE_CLASSES] if problem else []:
            base = m.baseline(problem, precision)
            best = {model: m.best(m.timed_of(kernels, problem, model, precision)) for model in MODELS}
            cuda, tri, glu = best["cuda"], best["triton"], best["gluon"]
            anyone = m.best(m.timed_of(kernels, problem, "triton", precision), any_design=True)
            if base is None or not any(best.values()):
                continue
            out.append(HeadlineRow(op, problem, precision, base, best,
                                   m.between(tri.result, cuda.result) if cuda and tri else None,
                                   m.vs(tri.result, Relation.TRITON_BASELINE) if tri else None,
                                   anyone if anyone and (not tri or anyone.result is not tri.result) else None,
                                   m.between(glu.result, cuda.result) if glu and cuda else None))
    return out


def triton_modules(kernels: list[Kernel]) -> dict[str, list[tuple[Kernel, Counterpart]]]:
    """Each Triton module and the (kernel, counterpart) pairs that launch it, in registry order."""
    out: dict[str, list[tuple[Kernel, Counterpart]]] = {}
    for k in kernels:
        for c in k.counterparts:
            out.setdefault(c.module, []).append((k, c))
    return out


def ideas_of(pairs: list[tuple[Kernel, Counterpart]]) -> list[str]:
    return list(dict.fromkeys(k.idea for k, _ in pairs))


def pub_claim(kernels: list[Kernel], best_id: str | None, claims: dict[str, Claim]) -> Claim | None:
    """The claim to hold beside an idea's figures: a % of cuBLAS where the documents give one (the best CUDA
    kernel's, else the idea's highest), else the best CUDA kernel's raw figure, else any."""
    mine = [claims[k.id] for k in kernels if k.id in claims]
    with_pct = [c for c in mine if c.published_pct is not None]
    best = claims.get(best_id or "")
    if best is not None and best.published_pct is not None:
        return best
    if with_pct:
        return max(with_pct, key=lambda c: c.published_pct or 0.0)
    return best or (mine[0] if mine else None)


def idea_rows(m: Measured) -> list[IdeaRow]:
    """Per idea and precision class it was timed in on its op's headline problem (fp32 where none)."""
    claims = {c.kernel.id: c for c in claims_table(m)}
    out = []
    for op in m.ops:
        problem = m.headline(op)
        for idea, kernels in m.ideas:
            if kernels[0].op != op:
                continue
            precisions = m.precisions(kernels, problem) if problem else []
            for precision in precisions or ["fp32"]:
                cuda, tri, glu = m.bests(kernels, problem, precision, MODELS) if problem else (None, None, None)
                out.append(IdeaRow(idea, precision, cuda, tri,
                                   m.between(tri.result, cuda.result) if cuda and tri else None,
                                   pub_claim(kernels, cuda.kernel if cuda else None, claims), glu))
    return out


def module_launches(m: Measured, pairs: list[tuple[Kernel, Counterpart]]) -> list[tuple[float, Result]]:
    """(% of cuBLAS, record) of each timed launch of a Triton module's pairs on their op's headline problem."""
    problem = m.headline(pairs[0][0].op)
    names = {(k.id, ImplId("triton", c.name).to_json()) for k, c in pairs}
    return [(p, r) for r in m.all if r.kernel_impl in names and r.problem == problem and (p := m.pct(r)) is not None]


def shared_modules(m: Measured) -> list[SharedModule]:
    """Each Triton module of the run's kernels, in registry order."""
    return [SharedModule(module, tuple(pairs), tuple(ideas_of(pairs)), tuple(p for p, _ in module_launches(m, pairs)))
            for module, pairs in triton_modules(m.kernels).items()]


@dataclass(frozen=True)
class TimingSummary:
    """How a run's timed rows were taken, over all of them: the method section's figures. `rounds`: every row has
    the interleaved rounds' samples (else the file is of single bursts, with a clock read before and after each)."""

    rows: int                                 # timed rows; 0: nothing was timed (a CPU run)
    rounds: bool
    runs: tuple[int, int] = (0, 0)            # fewest and most runs per row
    spread: tuple[float, float] = (0.0, 0.0)  # single bursts: the smallest and largest (p80 - p20) / median
    clocks: tuple[float, float] | None = None  # the SM clocks seen, MHz (None: not read)
    clock_fell: int = 0                       # single bursts: rows whose clock fell past CLOCK_DROP_LIMIT
    throttled: int = 0                        # rounds: runs under THROTTLE_FRACTION of the maximum clock
    max_rounds: int = 0
    aa_same: int = 0                          # the A/A control: comparisons called SAME, of aa_called with a call
    aa_called: int = 0


def timing_summary(m: Measured) -> TimingSummary:
    timed = [r.timing for r in m.all if r.timed and r.timing]
    if not timed:
        return TimingSummary(0, False)
    runs = (min(t.runs for t in timed), max(t.runs for t in timed))
    if all(t.samples is not None for t in timed):
        mhz = [v for t in timed if t.samples for v in t.samples.mhz if v]
        controls = [c for c in m.analysis.where(Relation.AA) if c.call is not None]
        return TimingSummary(len(timed), True, runs, clocks=(min(mhz), max(mhz)),
                             throttled=sum(t.samples.throttled_count for t in timed if t.samples),
                             max_rounds=max(t.samples.rounds for t in timed if t.samples),
                             aa_same=sum(c.call is Call.SAME for c in controls), aa_called=len(controls))
    pairs = [(t.clock_mhz_before, t.clock_mhz_after) for t in timed if t.clock_mhz_before and t.clock_mhz_after]
    fell = sum(after < (1 - CLOCK_DROP_LIMIT) * before for before, after in pairs)
    return TimingSummary(len(timed), False, runs, (min(t.spread for t in timed), max(t.spread for t in timed)),
                         (min(min(c) for c in pairs), max(max(c) for c in pairs)) if pairs else None, fell)


OP_ORDER = ("sgemm", "sgemv")


@dataclass(frozen=True)
class Part:
    op: str
    simt: bool                          # fp32 FFMA only (no tensor cores)
    ideas: tuple[tuple[Idea, tuple[Kernel, ...]], ...]
    declared: bool = False              # a user's own pairs (harness/pairs): a part of their own, after the catalog's

    @property
    def is_ladder(self) -> bool:
        return self.op == "sgemm" and self.simt and not self.declared


def parts(m: Measured) -> list[Part]:
    """The ideas of this run grouped into parts: ops in order, SIMT before tensor cores, a user's own pairs after the
    catalog's; ideas in registry order."""
    groups: dict[tuple[str, bool, bool], list[tuple[Idea, tuple[Kernel, ...]]]] = {}
    for idea, kernels in m.ideas:
        key = kernels[0].op, all(k.precision == "fp32" for k in kernels), any(k.declared for k in kernels)
        groups.setdefault(key, []).append((idea, tuple(kernels)))
    order = sorted(groups, key=lambda k: (k[2], OP_ORDER.index(k[0]) if k[0] in OP_ORDER else len(OP_ORDER),
                                          not k[1]))
    return [Part(op, simt, tuple(groups[(op, simt, declared)]), declared) for op, simt, declared in order]


def ladder(m: Measured) -> Part | None:
    return next((p for p in parts(m) if p.is_ladder), None)


def best_points(m: Measured, part: Part) -> list[tuple[int, str, Result]]:
    """(idea number within the part, model, best result) for every idea and precision class of the part that has a
    traffic model: the roofline's points."""
    problem = m.headline(part.op)
    out: list[tuple[int, str, Result]] = []
    if problem is None:
        return out
    for n, (_, kernels) in enumerate(part.ideas, 1):
        for precision in m.precisions(list(kernels), problem):
            for model, best in zip(("cuda", "triton"), m.bests(kernels, problem, precision), strict=True):
                if best and best.result.figures and best.result.figures.intensity:
                    out.append((n, model, best.result))
    return out
