"""Energy per launch as the analysis reads it from the records (harness/measure/energy.py wrote it): joules per launch
and GFLOP per joule, each the median over the rounds that resolved it with a 95% interval, and what a whole file says of
its energy (how many records have it, the counter's measured period, why the others have none).

A comparison's call in energy is made with the time and cycle calls, by harness/analysis/verdicts.py (Verdict.energy).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from harness.analysis.verdicts import LEVEL
from harness.analysis.verdicts import median_interval as order_interval
from harness.measure.energy import NONE
from harness.measure.timing import Samples
from harness.records.lines import Result


@dataclass(frozen=True)
class Interval:
    """A median over rounds with its interval (lo, hi None: one round) and the interval's coverage: at least LEVEL
    where the rounds give a 95% interval, else that of their range (4 rounds: 87.5%), said as a range."""

    value: float
    lo: float | None
    hi: float | None
    rounds: int
    coverage: float = LEVEL

    @property
    def at_level(self) -> bool:
        return self.lo is not None and self.coverage >= LEVEL


def median_interval(values: list[float]) -> Interval | None:
    """The median of per-round values with the verdicts' distribution-free interval of a median over the rounds
    (harness/analysis/verdicts.py median_interval); None for no value."""
    if not values:
        return None
    point = float(statistics.median(values))
    if len(values) < 2:
        return Interval(point, None, None, len(values))
    lo, hi, coverage = order_interval(values)
    return Interval(point, lo, hi, len(values), coverage)


@dataclass(frozen=True)
class EnergyFigure:
    """An implementation's energy per launch over its rounds."""

    joules: Interval            # per launch
    gflop_per_j: Interval       # the problem's flops over the joules (its interval: the joules' mapped)
    watts: Interval | None      # the rounds' mean power over their windows (where the window's time is recorded)
    method: str                 # how the energy was read (harness/measure/energy.py COUNTER, POWER)

    @classmethod
    def of(cls, samples: Samples | None, flops: float) -> EnergyFigure | None:
        """None where no round resolved it."""
        if samples is None or samples.energy is None:
            return None
        per_launch = [j for j in samples.joules_per_launch() if j]
        joules = median_interval(per_launch)
        if joules is None:
            return None
        e = samples.energy
        watts = [m / 1e3 / s for m, s, j in zip(e.mj, e.window_s, e.joules, strict=True) if m and s and j]
        return cls(joules, Interval(flops / joules.value / 1e9, flops / joules.hi / 1e9 if joules.hi else None,
                                    flops / joules.lo / 1e9 if joules.lo else None, joules.rounds, joules.coverage),
                   median_interval(watts), e.method)


def of_result(result: Result) -> EnergyFigure | None:
    """A timed record's energy per launch (None: not read, or not resolved in any round)."""
    if not result.timed or result.timing is None:
        return None
    return EnergyFigure.of(result.timing.samples, result.problem.flops)


@dataclass(frozen=True)
class FileEnergy:
    """What a results file says of its energy: the figures a terminal line and the page's note are made of
    (harness/report/regimes.py energy_line)."""

    timed: int                       # timed records
    read: int                        # of them, with energy readings
    resolved: int                    # of them, with at least one resolved round
    period_ms: float | None          # the counter's measured period (the median of what the records say)
    window_ms: float | None          # the median window the counter was read over (host time)
    missing: str                     # why the meter read nothing, as it recorded it (NVML absent), else ""
    longest_burst_ms: float | None = None   # the longest burst whose energy was asked for


def file_energy(results: list[Result]) -> FileEnergy:
    timed = [r for r in results if r.timed and r.timing is not None and r.timing.samples is not None]
    energies = [r.timing.samples.energy for r in timed if r.timing.samples.energy is not None]
    read = [e for e in energies if e.method != NONE]
    periods = [e.period_ms for e in energies if e.period_ms]
    windows = [1e3 * s for e in read for s in e.window_s if s]
    missing = next((e.note for e in energies if e.method == NONE and e.note), "")
    bursts = [e.extra["burst_s"] for e in energies if "burst_s" in e.extra]
    return FileEnergy(len(timed), len(read), sum(e.resolved > 0 for e in read),
                      statistics.median(periods) if periods else None,
                      statistics.median(windows) if windows else None, missing, 1e3 * max(bursts) if bursts else None)
