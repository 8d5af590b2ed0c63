"""The sustained regime's rule and records: when back-to-back work has reached its steady state, and what each round
recorded on the way. Plain data and arithmetic (the measurement is harness/measure/sustained.py), so that the rule is
tested on made-up series and a results file is read without a GPU.

Regimes. A burst is a short run after an idle gap: on an H100 its clock is the boost clock, whatever the work. A
sustained job runs back to back: SIMT fp32 work keeps 1980 MHz at the 700 W limit, tensor-core work is clocked down to
stay under it. A tensor-core figure therefore names its regime.

The steady-state rule (Rule). An implementation runs back to back while NVML's SM clock and power are read every
SAMPLE_S. The readings are cut into consecutive windows of `window_s` from the start of the run. The steady state
begins at the end of the first window k for which the means of the `windows` windows ending at k, taken one quantity
at a time, lie within `clock_tol` (clock) and `power_tol` (power) of their own mean, max minus min: neither moves by
more than that over `windows` x `window_s` seconds. Where it has not held after `max_s`, the run goes on to the
measurement anyway and the round is recorded as not steady, with the last windows' means as they were. The steady
window measured is the next `measure_s`.

Why these values. NVML's power reading moves in steps of its sensor's period (each run measures and records it:
harness/measure/energy.py; reports on H100 boards put it near 100 ms), so a window of 0.5 s averages several readings. A
tensor-core GEMM reaching the limit falls from 1980 MHz to 1370-1560 MHz (measured on an H100 at 4096^3, 4 s back to
back after a 2 s idle gap, before this rule existed): a step of 20-30% between its first windows, which tolerances
of 2% (clock) and 3% (power) refuse; what these tolerances must accept is the wander of a run that has settled,
which no run here had measured when they were chosen. So every round records the windows' means the rule held on
(SteadyRound.windows) and how long it took, and the regime table shows the widest spread and the longest settling of
its rows: a rule that is too tight shows as rounds stopped at max_s, one that is too loose as a steady throughput
that still differs between rounds. Three windows (1.5 s) after the burst, and 8 s at most, bracket the 2-4 s in
which that measurement saw tensor-core runs settle.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from harness.measure.timing import Samples

SAMPLE_S = 0.01          # NVML clock and power readings taken at most this often during a run
IDLE_S = 2.0             # the idle gap before each implementation's turn (the burst follows it)
BURST_RUNS = 10          # the burst: the first launches after the gap, each timed
CHUNK_MS = 20.0          # back-to-back launches are timed in chunks of about this much device time
# One reading of NVML: (host seconds, SM MHz or None, W or None)
Reading = tuple[float, float | None, float | None]


@dataclass(frozen=True)
class Rule:
    window_s: float = 0.5
    windows: int = 3
    clock_tol: float = 0.02
    power_tol: float = 0.03
    max_s: float = 8.0
    measure_s: float = 1.0

    def text(self) -> str:
        """The rule in one sentence, from its values."""
        return (f"steady once the mean SM clock and the mean power of {self.windows} consecutive windows of "
                f"{self.window_s:g} s each lie within {100 * self.clock_tol:g}% (clock) and "
                f"{100 * self.power_tol:g}% (power) of their own mean, max minus min (NVML read every "
                f"{1e3 * SAMPLE_S:g} ms); at most {self.max_s:g} s back to back, then the next {self.measure_s:g} s "
                f"measured")

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Rule:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


RULE = Rule()


def window_means(series: Sequence[Reading], start: float, window_s: float) -> list[tuple[float | None, float | None]]:
    """The mean clock and power of each complete window of the series (a window is complete once a reading at or
    past its end is in); None where a window has no reading of that quantity."""
    if not series:
        return []
    count = int((series[-1][0] - start) / window_s)
    bins: list[tuple[list[float], list[float]]] = [([], []) for _ in range(max(count, 0))]
    for t, mhz, w in series:
        j = int((t - start) / window_s)
        if 0 <= j < count:
            if mhz is not None:
                bins[j][0].append(mhz)
            if w is not None:
                bins[j][1].append(w)
    return [(statistics.fmean(c) if c else None, statistics.fmean(p) if p else None) for c, p in bins]


def _flat(values: list[float | None], tol: float) -> bool | None:
    """Do the values lie within tol of their mean, max minus min? None where any is missing."""
    if any(v is None for v in values) or not values:
        return None
    got = [float(v) for v in values]  # type: ignore[arg-type]
    mean = statistics.fmean(got)
    return mean > 0 and (max(got) - min(got)) <= tol * mean


def steady_at(series: Sequence[Reading], start: float, rule: Rule = RULE
              ) -> tuple[float, list[tuple[float | None, float | None]]] | None:
    """When the rule first holds (host seconds, the end of its last window) and the windows' means it held on; None
    where it has not held yet. A quantity NVML does not report (None throughout) is left out of the rule; with
    neither, it never holds."""
    means = window_means(series, start, rule.window_s)
    for k in range(rule.windows - 1, len(means)):
        last = means[k - rule.windows + 1: k + 1]
        clock = _flat([m[0] for m in last], rule.clock_tol)
        power = _flat([m[1] for m in last], rule.power_tol)
        if (clock is None and power is None) or clock is False or power is False:
            continue
        return start + (k + 1) * rule.window_s, last
    return None


def last_windows(series: Sequence[Reading], start: float, rule: Rule = RULE) -> list[tuple[float | None, float | None]]:
    """The last `windows` complete windows' means (what a round that never settled records)."""
    return window_means(series, start, rule.window_s)[-rule.windows:]


@dataclass
class SteadyRound:
    """One round of one implementation in the sustained regime: how it reached its steady window and what that
    window held."""

    settle_s: float                     # seconds back to back before the steady window began (burst included)
    steady: bool | None                 # the rule held (False: stopped at max_s; None: NVML gave nothing to test)
    windows: list[list[float | None]]   # [MHz, W] means of the windows the rule held on (or the last ones)
    seconds: float                      # the measured window's host seconds
    clock_mhz: float | None = None      # NVML's mean SM clock over the measured window
    power_w: float | None = None        # the measured window's energy over its time

    def to_json(self) -> dict:
        def r(v: float | None) -> float | None:
            return float(f"{v:.5g}") if v is not None else None

        return {"settle_s": r(self.settle_s), "steady": self.steady,
                "windows": [[r(a) for a in w] for w in self.windows], "seconds": r(self.seconds),
                "clock_mhz": r(self.clock_mhz), "power_w": r(self.power_w)}

    @classmethod
    def from_json(cls, data: dict) -> SteadyRound:
        if "settle_s" not in data or "seconds" not in data:
            raise ValueError("steady round lacks settle_s or seconds")
        return cls(float(data["settle_s"]), data.get("steady"), [list(w) for w in data.get("windows") or []],
                   float(data["seconds"]), data.get("clock_mhz"), data.get("power_w"))


@dataclass
class Regime:
    """What a sustained-regime record holds beside its timing (whose samples are the steady windows' chunks): the
    burst of each round, and how each round reached its steady window; the A/A control's the same."""

    name: str                                        # "sustained"
    burst: Samples                                   # each round's first BURST_RUNS launches after the idle gap
    rounds: list[SteadyRound]                        # per round of timing.samples
    aa_burst: Samples | None = None
    aa_rounds: list[SteadyRound] | None = None
    extra: dict = field(default_factory=dict)

    @property
    def steady_rounds(self) -> int:
        return sum(bool(r.steady) for r in self.rounds)

    def to_json(self) -> dict:
        out: dict = {"name": self.name, "burst": self.burst.to_json(), "rounds": [r.to_json() for r in self.rounds]}
        if self.aa_burst is not None:
            out["aa_burst"] = self.aa_burst.to_json()
        if self.aa_rounds is not None:
            out["aa_rounds"] = [r.to_json() for r in self.aa_rounds]
        if self.extra:
            out["extra"] = self.extra
        return out

    @classmethod
    def from_json(cls, data: dict) -> Regime:
        if "name" not in data or "burst" not in data or "rounds" not in data:
            raise ValueError("regime lacks name, burst or rounds")
        return cls(str(data["name"]), Samples.from_json(data["burst"]),
                   [SteadyRound.from_json(r) for r in data["rounds"]],
                   Samples.from_json(data["aa_burst"]) if data.get("aa_burst") else None,
                   [SteadyRound.from_json(r) for r in data["aa_rounds"]] if data.get("aa_rounds") else None,
                   dict(data.get("extra") or {}))
