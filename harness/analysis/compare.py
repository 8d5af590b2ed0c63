"""Two results files side by side, as data, and its headlines in words: two devices, or two runs on one (the tables
and the page: harness/report/compare.py).

Per implementation and problem: both median times and the verdict of B against A (harness/analysis: the
two runs' rounds as independent sets, a ratio with its 95% interval and a call); both % of cuBLAS,
which is what compares fairly across devices of different speeds (each run's kernels against its own
cuBLAS); per idea and problem, every implementation whose rank among its idea's implementations
changed; and which of A's calls (every FAST or SLOW of A's own comparisons: against cuBLAS, CUDA
against Triton, rung against rung, against the Triton tutorial) hold in B: repeated, reversed, or
weakened to a tie or undecided. A file of single bursts has medians only: its rows get a ratio and
no call.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.analysis.record import Analysis, across, analyse
from harness.analysis.record import Comparison as Verdicted
from harness.analysis.relations import Relation
from harness.analysis.verdicts import Call
from harness.identity import KernelImpl
from harness.records.file import Results, load
from harness.records.lines import Result
from harness.records.order import record_order


@dataclass(frozen=True)
class Row:
    kernel: str | None
    impl: str
    label: str
    problem: str
    idea: str
    a: Result
    b: Result
    verdict: Verdicted            # B against A ("runs")
    pct_a: float | None = None    # % of its own run's cuBLAS of its class
    pct_b: float | None = None

    @property
    def op(self) -> str:
        return self.a.op

    @property
    def speedup(self) -> float:
        """How many times faster B ran than A (A's time over B's: the verdict's estimate)."""
        return 1 / self.verdict.ratio

    @property
    def call(self) -> Call | None:
        """FAST: B is faster than A; None where either file has no rounds."""
        return self.verdict.call

    @property
    def decided(self) -> bool:
        """The call is FAST or SLOW: the two runs' rounds decide a difference."""
        return self.call in (Call.FAST, Call.SLOW)

    @property
    def pct_delta(self) -> float | None:
        if self.pct_a is None or self.pct_b is None:
            return None
        return self.pct_b - self.pct_a


@dataclass(frozen=True)
class Held:
    """One of A's decided calls, and what B says of the same comparison."""

    relation: Relation
    problem: str
    subject: str
    reference: str
    call_a: Call
    call_b: Call | None           # None: B did not make that comparison

    @property
    def outcome(self) -> str:
        if self.call_b is None:
            return "not in B"
        if self.call_b is self.call_a:
            return "repeated"
        if self.call_b in (Call.FAST, Call.SLOW):
            return "reversed"
        return "weakened"


@dataclass(frozen=True)
class RankChange:
    idea: str
    problem: str
    kernel: str
    label: str            # the implementation as tables name it
    rank_a: int
    rank_b: int

    @property
    def impl(self) -> str:
        return f"{self.kernel} [{self.label}]"


@dataclass
class Comparison:
    a: Results
    b: Results
    rows: list[Row]
    only_a: list[Result]
    only_b: list[Result]
    rank_changes: list[RankChange]
    files_a: list[Path] = field(default_factory=list)
    files_b: list[Path] = field(default_factory=list)
    held: list[Held] = field(default_factory=list)

    @property
    def name_a(self) -> str:
        return f"{self.a.header.device} ({', '.join(p.name for p in self.files_a or [self.a.path])})"

    @property
    def name_b(self) -> str:
        return f"{self.b.header.device} ({', '.join(p.name for p in self.files_b or [self.b.path])})"

    @property
    def ops(self) -> list[str]:
        """Every op timed in either side, sgemm first."""
        found = {r.op for r in [*self.a.results, *self.b.results] if r.timed}
        return sorted(found, key=lambda op: (op != "sgemm", op))


def _idea(result: Result) -> str:
    facts = result.kernel_facts
    return facts.idea if facts else "baseline"


def _side(paths: Path | str | Sequence[Path | str]) -> tuple[Results, list[Path], dict[tuple, Result]]:
    """One side of a comparison: one file, or several of one device (a sweep and a run of another op); a record
    measured in two files is taken from the first."""
    files = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    loaded = [load(f) for f in files]
    devices = {r.header.device for r in loaded}
    if len(devices) > 1:
        raise ValueError(f"one side of a comparison mixes devices: {', '.join(sorted(devices))}")
    timed: dict[tuple, Result] = {}
    for results in loaded:
        for r in results.results:
            if r.timed:
                timed.setdefault(r.key, r)
    first = loaded[0]
    merged = Results(first.path, first.header, [r for res in loaded for r in res.results], first.end, first.notes)
    return merged, files, timed


def compare(path_a: Path | Sequence[Path], path_b: Path | Sequence[Path]) -> Comparison:
    (a, files_a, timed_a), (b, files_b, timed_b) = _side(path_a), _side(path_b)
    runs = {c.subject_key: c for c in across(timed_a.values(), timed_b.values(), b.path.name).comparisons}
    within_a, within_b = analyse(timed_a.values(), a.path.name), analyse(timed_b.values(), b.path.name)
    pcts_a, pcts_b = _pcts(within_a), _pcts(within_b)
    rows = [Row(r.kernel, r.impl, r.label, r.problem.label, _idea(r), r, timed_b[k], runs[k], pcts_a.get(k),
                pcts_b.get(k))
            for k, r in sorted(timed_a.items(), key=lambda e: (e[1].problem.key, record_order(e[1])))
            if k in timed_b and k in runs]
    only_a = [r for k, r in timed_a.items() if k not in timed_b]
    only_b = [r for k, r in timed_b.items() if k not in timed_a]
    return Comparison(a, b, rows, only_a, only_b, rank_changes(rows), files_a, files_b, held(within_a, within_b))


def _pcts(an: Analysis) -> dict[tuple, float]:
    return {c.subject_key: c.pct()[0] for c in an.where(Relation.CUBLAS)}


def held(a: Analysis, b: Analysis) -> list[Held]:
    """Each FAST or SLOW call of A's own comparisons, beside B's call of the same comparison."""
    in_b = {(c.relation, c.subject_key, c.reference_key): c.call for c in b.comparisons}
    out = []
    for c in a.comparisons:
        if c.relation in (Relation.AA, Relation.BETWEEN) or c.call not in (Call.FAST, Call.SLOW):
            continue
        out.append(Held(c.relation, c.problem.label, _name(c.subject), _name(c.reference), c.call,
                        in_b.get((c.relation, c.subject_key, c.reference_key))))
    return out


def _name(side: KernelImpl) -> str:
    kernel, impl = side
    return f"{kernel} [{impl}]" if kernel else impl


def rank_changes(rows: list[Row]) -> list[RankChange]:
    """Within each idea and problem, implementations ranked by speed in A and in B; those whose rank moved."""
    groups: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for r in rows:
        if r.kernel:
            groups[(r.idea, r.problem)].append(r)
    out = []
    for (idea, problem), group in groups.items():
        if len(group) < 2:
            continue
        rank_a = {id(r): i for i, r in enumerate(sorted(group, key=lambda r: r.a.timing.median_ms), 1)}
        rank_b = {id(r): i for i, r in enumerate(sorted(group, key=lambda r: r.b.timing.median_ms), 1)}
        for r in group:
            if rank_a[id(r)] != rank_b[id(r)]:
                out.append(RankChange(idea, problem, r.kernel, r.label, rank_a[id(r)], rank_b[id(r)]))
    return out
