"""The two regimes side by side, as data: from a sustained-regime results file (`rosetta run --regime sustained`,
harness/measure/sustained.py), the table of its headline implementations (burst against sustained throughput, clock,
power, energy per launch), the calls of its headline comparisons in both regimes with the energy call beside the time
call, the A/A control in both, and what the page finds in them: where a CUDA-vs-Triton call differs between the
regimes, and where a time call and its energy call disagree. The page words and prints it (harness/report/regimes.py,
its columns in harness/report/columns.py).

A sustained file lies beside the run of bursts it took its headline rows from, named after it (sustained_path), and
holds in each record both regimes of the same rounds: the burst (its first launches after an idle gap) in
`regime.burst`, the steady window in `timing.samples` (so that every comparison the analysis makes of such a file,
harness/analysis/record.py, is a sustained one).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

from harness.analysis.energy import EnergyFigure, file_energy
from harness.analysis.measured import Measured
from harness.analysis.overview import headline_rows
from harness.analysis.record import RowKey, read_beside
from harness.analysis.relations import Relation
from harness.analysis.verdicts import Estimate, Verdict, compare, margin_for
from harness.baselines import cublas_of
from harness.measure.energy import Card
from harness.measure.regime import Rule
from harness.measure.timing import Samples
from harness.records.file import Results, load
from harness.records.lines import Result

SUSTAINED = "sustained"
BURST = "burst"
SUFFIX = "-sustained"


def sustained_path(results_path: Path) -> Path:
    """Where the sustained regime of a run of bursts is written: beside it, named after it."""
    return results_path.with_name(results_path.stem + SUFFIX + results_path.suffix)


def regime_of(results: Results) -> str:
    """The regime a file's timings are in: a run of bursts unless its header says otherwise."""
    return (results.header.regime or {}).get("name", BURST)


@dataclass(frozen=True)
class RegimeRow:
    """One headline implementation in both regimes."""

    key: RowKey
    label: str
    precision: str
    burst_tflops: float                 # the median burst launch's throughput
    sustained_tflops: float             # the median steady launch's
    change: Estimate                    # steady time over burst time, paired by round: below 1 the steady is faster
    burst_mhz: float | None             # mean SM clock of the bursts' launches (probes)
    steady_mhz: float | None            # of the steady windows' chunks
    energy: EnergyFigure | None         # steady: joules per launch, GFLOP/J, power
    steady_rounds: int                  # rounds whose steady state the rule detected
    rounds: int
    settle_s: float                     # the longest time back to back before a steady window
    spread: tuple[float, float] | None  # the widest (clock, power) spread of the windows the rule held on


@dataclass(frozen=True)
class RegimeCall:
    """A headline comparison in both regimes: burst and sustained verdicts (the sustained with its energy call)."""

    relation: Relation
    precision: str
    subject: RowKey
    reference: RowKey
    subject_label: str
    reference_label: str
    burst: Verdict | None
    sustained: Verdict | None

    @property
    def flips(self) -> bool:
        """The time call differs between the regimes."""
        return self.burst is not None and self.sustained is not None and self.burst.call is not self.sustained.call

    @property
    def energy_disagrees(self) -> bool:
        """In the sustained regime, the energy call differs from the time call."""
        return self.sustained is not None and self.sustained.energy_differs


@dataclass(frozen=True)
class RegimeStudy:
    source: str                         # the sustained file
    burst_source: str | None            # the run of bursts its rows were taken from
    device: str
    card: Card | None
    rule: Rule
    idle_s: float | None
    period_ms: float | None             # the energy counter's measured period
    rows: list[RegimeRow]
    calls: list[RegimeCall]
    flush_l2: bool | None = None        # whether the L2 was flushed before each burst run (None: not recorded)

    @property
    def flips(self) -> list[RegimeCall]:
        """CUDA-vs-Triton calls that differ between the regimes."""
        return [c for c in self.calls if c.relation == Relation.TRITON_VS_CUDA and c.flips]

    @property
    def disagreements(self) -> list[RegimeCall]:
        """Comparisons (other than the A/A control) whose energy call and time call differ."""
        return [c for c in self.calls if c.relation != Relation.AA and c.energy_disagrees]

    @property
    def aa(self) -> list[RegimeCall]:
        return [c for c in self.calls if c.relation == Relation.AA]


def _mean(values: list[float | None]) -> float | None:
    got = [v for v in values if v]
    return statistics.fmean(got) if got else None


def _tflops(problem_flops: float, samples: Samples) -> float:
    return problem_flops / (statistics.median(samples.ms) * 1e-3) / 1e12


def _spread(r: Result) -> tuple[float, float] | None:
    """The widest max-minus-min over mean, clock and power, of the windows the rule held on in any round."""
    assert r.regime is not None
    out: list[tuple[float, float]] = []
    for rnd in r.regime.rounds:
        if not rnd.steady:
            continue
        spreads = []
        for q in (0, 1):
            vals = [w[q] for w in rnd.windows if len(w) > q and w[q] is not None]
            spreads.append((max(vals) - min(vals)) / statistics.fmean(vals) if vals else 0.0)
        out.append((spreads[0], spreads[1]))
    return (max(s[0] for s in out), max(s[1] for s in out)) if out else None


def name(r: Result) -> str:
    """How a row is named in the study: its label, after its kernel's id where it has one."""
    return r.label if r.kernel is None else f"{r.kernel} · {r.label}"


def row_of(r: Result) -> RegimeRow | None:
    """A sustained record's row (None for a record without both regimes)."""
    if r.regime is None or not r.timed or r.timing.samples is None:
        return None
    steady, burst = r.timing.samples, r.regime.burst
    change = compare(steady, burst, margin_for(r.precision)).time
    return RegimeRow(r.key, name(r), r.precision,
                     _tflops(r.problem.flops, burst), _tflops(r.problem.flops, steady), change,
                     _mean(burst.mhz), _mean(steady.mhz), EnergyFigure.of(steady, r.problem.flops),
                     r.regime.steady_rounds, len(r.regime.rounds),
                     max((x.settle_s for x in r.regime.rounds), default=0.0), _spread(r))


def _call(relation: Relation, m: Measured, a: Result, b: Result) -> RegimeCall:
    burst = compare(a.regime.burst, b.regime.burst, margin_for(a.precision, b.precision)) \
        if a.regime is not None and b.regime is not None else None
    sustained = m.between(a, b)
    return RegimeCall(relation, a.precision, a.key, b.key, name(a), name(b), burst,
                      sustained.verdict if sustained else None)


def _aa(r: Result) -> RegimeCall | None:
    if r.regime is None or r.regime.aa_burst is None or r.timing is None or r.timing.aa is None:
        return None
    margin = margin_for(r.precision)
    return RegimeCall(Relation.AA, r.precision, r.key, r.key, name(r), name(r),
                      compare(r.regime.aa_burst, r.regime.burst, margin),
                      compare(r.timing.aa, r.timing.samples, margin))


def study(results: Results) -> RegimeStudy | None:
    """The regime study of a sustained file (None for a file of bursts)."""
    if regime_of(results) != SUSTAINED:
        return None
    m = Measured(results, read_beside(results.path) if results.path else None)
    rows = [row for r in sorted(m.all, key=m.order) if (row := row_of(r)) is not None]
    calls: list[RegimeCall] = []
    seen: set[tuple] = set()
    for h in headline_rows(m):
        sides = [b.result for b in (h.cuda, h.triton) if b is not None]
        if h.cuda and h.triton:
            calls.append(_call(Relation.TRITON_VS_CUDA, m, h.triton.result, h.cuda.result))
        for r in sides:
            if (r.key, "cublas") not in seen and r.impl != cublas_of(r.precision):
                seen.add((r.key, "cublas"))
                calls.append(_call(Relation.CUBLAS, m, r, h.cublas))
    calls += [c for r in sorted(m.all, key=m.order) if (c := _aa(r)) is not None]
    regime = results.header.regime or {}
    return RegimeStudy(results.path.name, regime.get("source"), results.header.device,
                       Card.from_json(results.header.power) if results.header.power else None,
                       Rule.from_json(regime.get("rule") or {}), regime.get("idle_s"),
                       file_energy(m.all).period_ms, rows, calls, regime.get("flush_l2"))


def study_beside(results_path: Path) -> RegimeStudy | None:
    """The regime study a page of this file shows: the file's own where it is a sustained one, else that of the
    sustained file beside it (None where there is none, or it cannot be read)."""
    path = Path(results_path)
    try:
        own = load(path)
        if regime_of(own) == SUSTAINED:
            return study(own)
        beside = sustained_path(path)
        return study(load(beside)) if beside.exists() else None
    except ValueError:
        return None


def newest_study(results_path: Path) -> RegimeStudy | None:
    """The regime study the README shows beside its run: the one beside it, else the newest sustained file in its
    folder measured on the same device (a sustained pass takes minutes, and a later run of bursts need not repeat it;
    the study's text names its own file and the run it took its rows from)."""
    path = Path(results_path)
    if (own := study_beside(path)) is not None:
        return own
    try:
        device = load(path).header.device
    except ValueError:
        return None
    for other in sorted(path.parent.glob(f"*{SUFFIX}{path.suffix}"), reverse=True):
        try:
            found = load(other)
        except ValueError:
            continue
        if found.header.device == device and (s := study(found)) is not None:
            return s
    return None


def sustained_pct(row: RegimeRow) -> float:
    """The steady throughput as % of the burst's."""
    return 100.0 * row.sustained_tflops / row.burst_tflops
