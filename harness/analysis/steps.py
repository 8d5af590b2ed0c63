"""The ladders one rung at a time, as data: what each rung gains or loses against the step before it in its lineage,
the call of the one against the other, and, for a step the rounds decided was a gain, the measured quantity that
moved most in the direction of that change (harness/report/steps.py writes the tables, the plots draw the rungs).

The SIMT ladder's rungs are the ladder chart's: every fp32 SIMT sgemm idea (overview.py's ladder part) with an fp32
CUDA kernel or Triton counterpart timed on the sgemm headline problem, the seeds' and tile-rosetta's, in registry
order, numbered from 1 so that rung n is the chart's n-th bar and the steps table's n-th row; an idea with several
kernels (the summit's two tiles) is one rung, represented by its fastest record.

A rung's step is measured against the kernel its source is shown as a diff against (`lineage_before`): the step
before it in the same document, or in tile-rosetta's own series the ladder's rung before. The rungs of the chart come
from several documents, and the rung before on the chart is often another document's kernel: set against it, a
document's step would be measured against something its diff does not show (seed 001's 1D coarsening against seed
000's unrolled tile). So a rung whose kernel opens its series starts a lineage and has no step (`Step.lineage`
"starts"); every other rung says whose step it is ("document" or "ladder") and which kernel it is measured against.

Hopper's chains, one per precision class (TF32, 3xTF32), start from the mma.sync rung (rosetta.tc_gemm with K-major
B, the Ampere-style instruction the wgmma rungs replace; its tiles are one rung, represented by the fastest) and
follow the wgmma rungs of that precision in registry order (harness/catalog/hopper.py). The quantity of a step is
the one causes.py ranks first among those pointing with the speed, so a step that loses points names what got worse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from harness.analysis.causes import MIN_GAP, causes, counters, discriminating, tied
from harness.analysis.measured import Best, Measured
from harness.analysis.overview import MODELS, ladder
from harness.analysis.record import Comparison
from harness.analysis.verdicts import Call
from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import Kernel
from harness.problems import Problem
from harness.records.lines import Result

_HOPPER_CLASSES = ("tf32", "3xtf32")   # the Hopper rungs' classes, in the order the table shows them
# Counters, and for Hopper compiled facts too: the first step of each chain changes the tensor-core instruction itself
# (mma.sync to wgmma), a compiled fact that no counter names.
COUNTERS = ("counter",)
COUNTERS_AND_COMPILED = ("counter", "compiled")


@dataclass(frozen=True)
class Moved:
    """The quantity that moved most between two rungs in the direction of the speed change, with its values before and
    after; or, where none is named, why (`unnamed`: "refused", "unrecorded", "tie" or "nothing")."""

    quantity: str | None = None
    before: float | str | None = None
    after: float | str | None = None
    unnamed: str | None = None


# How a step is measured (Step.lineage): against the same document's kernel before it, against tile-rosetta's ladder's
# rung before, or not at all: the rung's kernel opens its series (a lineage starts there).
LINEAGES = ("document", "ladder", "starts")


@dataclass(frozen=True)
class Step:
    """One side (CUDA or Triton) of a rung: its best record, the record of the step before it in its lineage (the same
    model's), the verdict of the one against the other, and what moved (only for a step decided FAST: a tie has
    nothing to explain)."""

    best: Best
    before: Best | None
    verdict: Comparison | None = None
    moved: Moved | None = None
    lineage: str = "ladder"         # LINEAGES: whose step it is, or "starts" (no step: `before` is None)
    against: tuple[str, ...] = ()   # the kernel ids of the step before (the file its diff is shown against)
    same_launch: bool = False       # the step before is the same launch timed again (an A/A pair, not a step)

    @property
    def call(self) -> Call | None:
        return self.verdict.call if self.verdict is not None else None

    @property
    def points(self) -> float | None:
        """The change in % of cuBLAS from the rung before."""
        return self.best.pct - self.before.pct if self.before is not None else None


@dataclass(frozen=True)
class Rung:
    number: int                     # from 1: the chart's bar pair and the steps table's row
    idea: Idea
    kernels: tuple[Kernel, ...]
    cuda: Best | None               # the fastest CUDA kernel of the rung
    triton: Best | None             # the fastest Triton counterpart of the rung, of any form (the chart's bar)
    gluon: Best | None = None       # the fastest Gluon form of the rung, where it has one


@dataclass(frozen=True)
class LadderStep:
    rung: Rung
    cuda: Step | None               # None: no record of its own on that side
    triton: Step | None             # the rung's own counterpart, never a tuner's pick


@dataclass(frozen=True)
class HopperStep:
    problem: Problem
    precision: str
    name: str                       # the rung's kernel name without its template arguments (rung_name)
    cuda: Step | None
    triton: Step | None


def moved(m: Measured, now: Result, before: Result, kinds: tuple[str, ...] = COUNTERS) -> Moved:
    """The measured quantity of `kinds` (a Cause's kind, harness/analysis/causes.py) that moved most between two rungs
    in the direction of the speed change, and discriminates (causes.discriminating: held by a control pair, refuted by
    none). Counters are needed on both sides either way: they say whether the step is read at all."""
    for r in (now, before):
        if counters(r) is None:
            # counters stored but refused (ncu's kernel time too far from the timed one) are not "none recorded"
            return Moved(unnamed="refused" if tied(r) is False else "unrecorded")
    assert now.timing is not None and before.timing is not None
    fast, slow = (now, before) if now.timing.median_ms <= before.timing.median_ms else (before, now)
    assert fast.timing is not None and slow.timing is not None
    if slow.timing.median_ms / fast.timing.median_ms < MIN_GAP:
        return Moved(unnamed="tie")
    found = discriminating(m, fast, slow, [c for c in causes(m, fast, slow) if c.kind in kinds and c.cause])
    if not found:
        return Moved(unnamed="nothing")
    top = found[0]
    v_before, v_now = (top.slower, top.faster) if fast is now else (top.faster, top.slower)
    return Moved(top.quantity, v_before, v_now)


def step(m: Measured, best: Best | None, before: Best | None, kinds: tuple[str, ...] = COUNTERS,
         lineage: str = "ladder", against: tuple[str, ...] = ()) -> Step | None:
    if best is None:
        return None
    if before is None:
        return Step(best, None, lineage=lineage, against=against)
    c = m.between(best.result, before.result)
    found = moved(m, best.result, before.result, kinds) if c is not None and c.call is Call.FAST else None
    return Step(best, before, c, found, lineage, against, m.launch(best.result) == m.launch(before.result))


def series(k: Kernel) -> tuple[str, str, str]:
    """The series a kernel is a step of: its document's, or tile-rosetta's own, per op and per precision class (a
    tensor-core GEMM is no step of the fp32 SIMT ladder, a 3xTF32 rung none of the TF32 chain: each class is a ladder
    of its own, harness/catalog/ladders.py)."""
    return (k.seed or k.id.split(".", 1)[0], k.op, k.precision)


def _tile(k: Kernel) -> tuple[int, int, int]:
    return (k.tile_m, k.tile_n, k.tile_k)


def lineage_before(kernel: Kernel, kernels: tuple[Kernel, ...] | list[Kernel]) -> tuple[Kernel, ...]:
    """The step before `kernel` in its lineage, in registry order (`kernels`): among the files of its series before
    its own, the latest that holds a kernel of its tile (that kernel: a document's variants of one step, such as seed
    000's unrolled forms of v3, are not the step its v4 takes from v3 at the same 128x128x8 tile), else the latest
    file (its kernels: the step is represented by the fastest of them). Empty where its file opens the series: a
    lineage starts there."""
    mine = series(kernel)
    files: dict[str, list[Kernel]] = {}
    for k in kernels:
        if k.source == kernel.source:
            break
        if series(k) == mine:
            files.setdefault(k.source, []).append(k)
    if not files:
        return ()
    for source in reversed(list(files)):
        same = [k for k in files[source] if _tile(k) == _tile(kernel)]
        if same:
            return (same[-1],)
    return tuple(files[list(files)[-1]])


def lineage_file(kernels: list[Kernel], catalog_kernels: tuple[Kernel, ...] | list[Kernel]) -> str | None:
    """The .cu file a file's diff is taken against: the step before its first kernel (None: it opens its series)."""
    before = lineage_before(kernels[0], catalog_kernels) if kernels else ()
    return before[0].source if before else None


def _lineage_step(m: Measured, best: Best | None, rows: Callable[[list[Kernel]], list[Result]]) -> Step | None:
    """A rung's side measured against the step before its best kernel in its lineage (`rows` picks the records of a
    group of kernels that stand for that model: CUDA's own, or the rung's own Triton forms)."""
    if best is None:
        return None
    kernel = m.catalog.by_id.get(best.result.kernel or "")
    before = lineage_before(kernel, m.catalog.kernels) if kernel is not None else ()
    if kernel is None or not before:
        return step(m, best, None, lineage="starts")
    return step(m, best, m.best(rows(list(before))), COUNTERS, "ladder" if kernel.ours else "document",
                tuple(k.id for k in before))


def ladder_rungs(m: Measured) -> list[Rung]:
    """Every rung of the ladder on the sgemm headline problem, numbered from 1 in registry order."""
    part, problem = ladder(m), m.headline("sgemm")
    if part is None or problem is None:
        return []
    out: list[Rung] = []
    for idea, kernels in part.ideas:
        cuda, triton, gluon = m.bests(kernels, problem, "fp32", MODELS)
        if cuda or triton:
            out.append(Rung(len(out) + 1, idea, kernels, cuda, triton, gluon))
    return out


def _own_triton(m: Measured, kernels: list[Kernel], problem: Problem, precision: str = "fp32") -> list[Result]:
    """The rung's own Triton counterparts, by the SIMT ladder's own rule (catalog_types/tables.Ladder.stands): the
    ladder's own kernel (gemm_ladder with the rung's settings) on tile-rosetta's rungs, the seeds' counterparts on
    theirs; never a tuner's pick (the tuned row, the autotuned ceiling), never a deliberately different form."""
    stands = m.catalog.ladder("fp32").stands
    rows = m.timed_of(kernels, problem, "triton", precision)
    return [r for r in rows if (c := m.counterpart(r)) is not None and stands(c)]


def ladder_steps(m: Measured) -> list[LadderStep]:
    """One step per rung of the ladder chart, CUDA and the rung's own Triton counterpart, each against the same
    model's record of the step before it in its lineage (`lineage_before`)."""
    problem = m.headline("sgemm")
    if problem is None:
        return []
    out = []
    for rung in ladder_rungs(m):
        # both sides step the one kernel whose diff the rung shows: the fastest CUDA kernel's (its own Triton form)
        shown = [k for k in rung.kernels if rung.cuda is None or k.id == rung.cuda.result.kernel]
        cuda, tri = rung.cuda, m.best(_own_triton(m, shown, problem))
        out.append(LadderStep(rung, _lineage_step(m, cuda, lambda ks: m.timed_of(ks, problem, "cuda", "fp32")),
                              _lineage_step(m, tri, lambda ks: _own_triton(m, ks, problem))))
    return out


def hopper_ideas(m: Measured) -> frozenset[str]:
    """The ideas whose section shows the Hopper steps: the wgmma rungs'."""
    return frozenset(k.idea for k in m.catalog.hopper)


def chains(m: Measured) -> list[tuple[str, list[list[Kernel]]]]:
    """(precision, rungs) for TF32 and 3xTF32: the mma.sync rung, then each wgmma rung of that precision (the
    catalog's ladders of those classes)."""
    return [(precision, [list(rung) for rung in m.catalog.ladder(precision).rungs]) for precision in _HOPPER_CLASSES]


def rung_name(best: Best | None, kernels: list[Kernel]) -> str:
    """A rung as the table and the chart name it: the kernel's name without its template arguments."""
    kernel = best.result.kernel if best is not None and best.result.kernel else kernels[0].id
    return kernel.split("<")[0].removeprefix("rosetta.")


def hopper_steps(m: Measured, problems: list[Problem] | None = None) -> list[HopperStep]:
    """Every rung of each chain on each problem a wgmma rung was timed on (or on `problems`), CUDA and Triton each
    against the same model's rung before; a rung with neither side timed is left out."""
    ids = {k.id for k in m.catalog.hopper}
    if problems is None:
        problems = [p for p in m.problems if any(r.kernel in ids and r.timed for r in m.on(p))]
    out = []
    for problem in problems:
        for precision, rungs in chains(m):
            before: tuple[Best | None, Best | None] = (None, None)
            previous: tuple[str, ...] = ()        # the kernel ids of the rung before on the chain
            for kernels in rungs:
                cuda, tri = m.bests(kernels, problem, precision)
                if cuda is None and tri is None:
                    continue
                lineage = "ladder" if previous else "starts"
                out.append(HopperStep(problem, precision, rung_name(cuda, kernels),
                                      step(m, cuda, before[0], COUNTERS_AND_COMPILED, lineage, previous),
                                      step(m, tri, before[1], COUNTERS_AND_COMPILED, lineage, previous)))
                before = (cuda or before[0], tri or before[1])
                previous = tuple(k.id for k in kernels)
    return out


def counter_rows(m: Measured) -> list[tuple[Problem, str | None, str]]:
    """The records whose counters the causes and the steps read (`rosetta run --profile` profiles these): on each op's
    headline problem, every idea's headline pair (its best CUDA kernel and best Triton counterpart in each class) with
    the rows that make their control pairs (each side's kernel in the other model, causes.controls), and both records
    of every rung step of the ladders. As (problem, kernel id, impl), each once, in page order."""
    out: dict[tuple, tuple[Problem, str | None, str]] = {}

    def add(r: Result | None) -> None:
        if r is not None and r.kernel is not None and r.timed:
            out.setdefault(r.key, (r.problem, r.kernel, r.impl))

    for _, kernels in m.ideas:
        problem = m.headline(kernels[0].op)
        if problem is None:
            continue
        for precision in m.precisions(kernels, problem):
            for best in m.bests(kernels, problem, precision):
                if best is None:
                    continue
                add(best.result)
                for other in m.on(problem):
                    if (other.kernel == best.result.kernel and other.precision == precision
                            and not m.deliberately_different(other) and not other.impl_id.is_build_study):
                        add(other)
    for sides in [*((s.cuda, s.triton) for s in ladder_steps(m)), *((s.cuda, s.triton) for s in hopper_steps(m))]:
        for side in sides:
            if side is not None:
                add(side.best.result)
                add(side.before.result if side.before else None)
    return sorted(out.values(), key=lambda t: (m.problems.index(t[0]) if t[0] in m.problems else 0,
                                               m.order(m.record((t[1], t[2], t[0].key)))))
