"""The findings of what else the run shows, each kind a typed declaration (harness/analysis/found.py): the documents'
order of their kernels, seed 000's unroll claim, seed 001's stride sweep, speed against error across precision classes,
the sizes a sweep timed, the failures, and the numerics of a run that timed nothing. harness/analysis/findings.py lists
them; the page words them (harness/report/findings.py)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import ClassVar

from harness.analysis.causes import stated
from harness.analysis.claims import TIE, Claim, claims_table, stride_occupancy, stride_sweep, unroll_check
from harness.analysis.found import Found, kind
from harness.analysis.measured import Best, Measured
from harness.analysis.record import Cause, Comparison, RowKey
from harness.analysis.verdicts import Call
from harness.problems import Problem
from harness.records.lines import Result, Status


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
