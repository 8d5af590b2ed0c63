"""The one place a speed comparison is decided: a ratio with a 95% interval, in time and in cycles, and a call.

The ratio is the subject's time over the reference's (below 1: the subject is faster). It is estimated from the
interleaved rounds of harness/measure/rounds.py: each round gives each entry a median over its burst, and

- two entries of one batch (timed in the same rounds) are compared round by round: the estimate is the median of
  the rounds' ratios, so what drifts from round to round (the power state, the clock, the neighbour run before)
  falls out of the ratio as far as it hits both alike, and one round that an outlying run pulls far off moves it
  little. Its interval is the distribution-free one of a median (the sign test's): the k-th smallest and k-th
  largest of the n rounds' ratios, k the largest whose coverage 1 - 2 P(Binomial(n, 1/2) < k) is at least 95%. It
  holds for any distribution of the rounds' ratios (the long tails of a tensor-core round at a lower clock
  included), asks only that rounds be independent, and says its own coverage: with 20 rounds [6th, 15th], 95.9%;
  under 6 rounds no pair of rounds reaches 95%, and the whole range is kept with its coverage (4 rounds: 87.5%);
- entries of different batches (two files, a worker replaced halfway) are compared as two independent sets of
  rounds: the estimate is the median of every difference of a round of one and a round of the other (in logs:
  Hodges-Lehmann), its interval the same order statistics of those differences that the exact distribution of the
  Mann-Whitney count gives at least 95% coverage.

An interval is labelled 95% only where its coverage is at least LEVEL (Estimate.coverage says it), and a call is
made only on such an interval. The call reads the interval against a declared margin of practical equivalence:
each call is a region the whole interval lies in (`regions`: FAST below 1 / (1 + margin), SAME within
[1 / (1 + margin), 1 + margin], SLOW above 1 + margin), and an interval in none of them is AMBIGUOUS. Why the whole
interval must clear the margin for FAST or SLOW, not just lie on one side of 1: a difference smaller than the margin
is a tie for this suite (SAME), so an interval that reaches inside the margin has not shown more than a tie; were it
FAST because it also excludes 1, a wider interval (less evidence) could turn a tie into a win ([0.975, 0.979] SAME,
[0.975, 0.981] FAST at 2%). Read this way, more uncertainty can only move a call towards AMBIGUOUS.

The same is done on cycles (time x the run's mean SM clock): two implementations timed at different clocks compare on
their code in cycles, and on what a user waits for in time. Where the two calls differ, the clock decided the time
call: the side that ran at the higher clock either hid a difference in the code or made one that the code lacks
(Verdict.clock_ratio says which side that was).

A cycles call is only as good as the clock it multiplies by, and it is made only where the probe's error is measured
and below the margin. The probe (harness/measure/sm_clock.py) reads some windows above the GPU's maximum SM clock,
which no window can run at: those readings are brought down to the maximum (timing.Samples.clock) and their excess
is a lower bound of the probe's error that the samples prove (timing.Samples.clock_error, kept as
Verdict.clock_excess), never a measure of it: where no reading is above the maximum it is 0 by construction. The
error itself is measured against NVML's clock at a worker's start, by window length (harness/run/peaks.py, kept in
the run header's peaks as `probe_error`; `rosetta clock --measure` is the long study): a side's error is the one
measured at the longest window length not longer than its own windows, and none where its windows are shorter than
any measured. A file without that measurement makes no cycles call.

And on energy, where both sides' rounds hold it (harness/measure/energy.py: joules per launch, one value per round): the
same estimate over the rounds both resolved, the same margin and the same call, read as less (FAST) or more (SLOW)
energy per launch.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

import numpy as np

from harness.measure.rounds import MIN_ROUNDS
from harness.measure.timing import Samples

LEVEL = 0.95
# What made a record's verdicts: an analysis record of another method is made again where it is read
# (harness/analysis/record.py read_beside), so a page never shows calls of a rule this module no longer applies.
METHOD = "order-statistic intervals of the median, calls past the margin, cycles on a measured probe error"
# Margins of practical equivalence, by regime. SIMT fp32 and bandwidth-bound runs keep their clock and repeat within
# a fraction of a percent round to round; tensor-core runs reach the power limit and their clock moves with what ran
# before, so a ratio of two of them moves by a few percent from round to round (measured on an H100; see README).
MARGIN_SIMT = 0.02
MARGIN_TENSOR_CORES = 0.03
TENSOR_CORE_PRECISIONS = frozenset({"tf32", "3xtf32", "bf16x3", "bf16x6"})


class Call(str, Enum):
    FAST = "FAST"            # the subject is faster by more than the margin: the whole interval below 1 / (1 + margin)
    SLOW = "SLOW"            # the subject is slower by more than the margin: the whole interval above 1 + margin
    SAME = "SAME"            # the whole interval within the margin: a tie
    AMBIGUOUS = "AMBIGUOUS"  # the interval reaches across an edge of the margin, or covers less than LEVEL: undecided


def margin_for(*precisions: str) -> float:
    """The margin of a comparison: the tensor cores' where either side runs on them."""
    return MARGIN_TENSOR_CORES if any(p in TENSOR_CORE_PRECISIONS for p in precisions) else MARGIN_SIMT


def regions(margin: float) -> dict[Call, tuple[float, float]]:
    """The region of ratios (subject time / reference time) the whole interval lies in for each call; AMBIGUOUS is an
    interval in none of them. The one definition of the calls: call_of applies it, the page's legend says it."""
    edge = 1 + margin
    return {Call.SAME: (1 / edge, edge), Call.FAST: (0.0, 1 / edge), Call.SLOW: (edge, math.inf)}


def call_of(lo: float, hi: float, margin: float) -> Call:
    return next((c for c, (a, b) in regions(margin).items() if a <= lo and hi <= b), Call.AMBIGUOUS)


@dataclass(frozen=True)
class Estimate:
    """A ratio (subject / reference) with its interval, the interval's coverage, and the call it makes."""

    ratio: float
    lo: float
    hi: float
    call: Call
    coverage: float = LEVEL   # the interval's coverage for its method: below LEVEL, the range of too few rounds

    @property
    def at_level(self) -> bool:
        """The interval covers at least LEVEL: it may be said as a 95% interval, and a call rests on it."""
        return self.coverage >= LEVEL

    def to_json(self) -> dict:
        # every digit: a page that inverts a stored ratio (a % of cuBLAS from a time ratio) must print what the
        # analysis computed, and a ratio cut to 6 digits turned 102.05% into 102.0% beside the 102.1% of the text
        return {"ratio": float(self.ratio), "lo": float(self.lo), "hi": float(self.hi), "call": self.call.value,
                "coverage": float(self.coverage)}

    @classmethod
    def from_json(cls, data: dict) -> Estimate:
        return cls(float(data["ratio"]), float(data["lo"]), float(data["hi"]), Call(data["call"]),
                   float(data.get("coverage", LEVEL)))


@dataclass(frozen=True)
class Verdict:
    """A comparison of two entries: in time, in cycles (None where no cycles call is made), and how it was made."""

    time: Estimate
    cycles: Estimate | None   # None: no clock read, or the probe's error not measured or not below the margin
    margin: float
    rounds: tuple[int, int]   # the subject's and the reference's rounds
    paired: bool              # compared round by round (one batch) or as independent sets
    # the probe's error a cycles call rests on: the larger side's measured error (or the excess its samples prove, if
    # larger). None: not measured for windows this long, or no clock read
    clock_error: float | None = None
    # the subject's mean SM clock over the reference's (corrected readings): above 1, the subject ran at the higher
    # clock. None where either side's clock was not read
    clock_ratio: float | None = None
    energy: Estimate | None = None   # joules per launch, where both sides' rounds resolved it
    # the larger of the two sides' readings above the GPU's maximum SM clock, relative: a lower bound of the probe's
    # error the samples prove (0 where none is above), never its measure. None: no clock read on a side
    clock_excess: float | None = None

    @property
    def cycles_gated(self) -> bool:
        """Clocks were read on both sides, but the probe's error is not measured or not below the margin: no cycles
        call."""
        return self.cycles is None and self.clock_excess is not None

    @property
    def call(self) -> Call:
        return self.time.call

    @property
    def clock_differs(self) -> bool:
        """Time and cycles call it differently: the clock, not the code, decides the time call."""
        return self.cycles is not None and self.cycles.call is not self.time.call

    @property
    def energy_differs(self) -> bool:
        """Time and energy call it differently (the faster side is not the one that spends less, or one is a tie)."""
        return self.energy is not None and self.energy.call is not self.time.call

    def to_json(self) -> dict:
        out = {"time": self.time.to_json(), "cycles": self.cycles.to_json() if self.cycles else None,
               "margin": self.margin, "rounds": list(self.rounds), "paired": self.paired}
        for name in ("clock_error", "clock_ratio", "clock_excess"):
            if getattr(self, name) is not None:
                out[name] = float(getattr(self, name))
        if self.energy is not None:  # written only where measured: older records read back unchanged
            out["energy"] = self.energy.to_json()
        return out

    @classmethod
    def from_json(cls, data: dict) -> Verdict:
        return cls(Estimate.from_json(data["time"]), Estimate.from_json(data["cycles"]) if data.get("cycles") else None,
                   float(data["margin"]), tuple(data["rounds"]), bool(data["paired"]), data.get("clock_error"),
                   data.get("clock_ratio"), Estimate.from_json(data["energy"]) if data.get("energy") else None,
                   data.get("clock_excess"))


# The probe's measured error by window length (ms -> relative error), as harness/run/peaks.py records it.
ProbeError = Mapping[float, float]


def error_at(probe: ProbeError | None, window_ms: float) -> float | None:
    """The probe's measured error for windows of this length: the one measured at the longest length not longer
    (shorter windows read the timer's steps over fewer nanoseconds, so their error is the larger); None where nothing
    that short was measured."""
    if not probe:
        return None
    below = [ms for ms in probe if ms <= window_ms]
    return probe[max(below)] if below else None


def compare(subject: Samples, reference: Samples, margin: float, probe: ProbeError | None = None) -> Verdict:
    """The verdict of subject against reference (see the module's docstring); `probe`: the probe's measured error by
    window length, where the run measured it (none: no cycles call)."""
    # Entries of one batch took part in the same first rounds (a slow one may stop early): pair those.
    paired = subject.batch == reference.batch
    n = min(subject.rounds, reference.rounds) if paired else None
    time = _estimate(_round_medians(subject, subject.ms, n), _round_medians(reference, reference.ms, n), paired,
                     margin)
    cs, cr = _round_medians(subject, subject.cycles, n), _round_medians(reference, reference.cycles, n)
    excesses = [e for e in (subject.clock_error, reference.clock_error) if e is not None]
    excess = max(excesses) if len(excesses) == 2 else None
    measured = [error_at(probe, float(np.median(s.ms)) * s.launches) for s in (subject, reference)]
    error = max(*measured, excess) if excess is not None and None not in measured else None
    cycles = None
    if cs is not None and cr is not None and error is not None and error < margin:
        cycles = _estimate(cs, cr, paired, margin)
    clocks = subject.mean_mhz, reference.mean_mhz
    ratio = clocks[0] / clocks[1] if clocks[0] and clocks[1] else None
    return Verdict(time, cycles, margin, (subject.rounds, reference.rounds), paired, error, ratio,
                   energy_estimate(subject, reference, margin), excess)


def energy_estimate(subject: Samples, reference: Samples, margin: float) -> Estimate | None:
    """Joules per launch, subject over reference, from the rounds that resolved it: paired over the rounds both sides
    resolved where they share a batch, else as two independent sets; None with fewer than MIN_ROUNDS such rounds."""
    a, b = subject.joules_per_launch(), reference.joules_per_launch()
    paired = subject.batch == reference.batch
    if paired:
        both = [(x, y) for x, y in zip(a, b, strict=False) if x and y]
        a, b = [x for x, _ in both], [y for _, y in both]
    else:
        a, b = [x for x in a if x], [y for y in b if y]
    if min(len(a), len(b)) < MIN_ROUNDS:
        return None
    return _estimate(np.log(np.asarray(a)), np.log(np.asarray(b)), paired, margin)


def _round_medians(s: Samples, values: list, rounds: int | None = None) -> np.ndarray | None:
    """Each round's median of `values`, over the first `rounds` rounds (None where a round has no value read: no
    clock, for cycles)."""
    out = []
    for idx in s.by_round()[:rounds]:
        got = [values[i] for i in idx if values[i] is not None]
        if not got:
            return None
        out.append(float(np.median(got)))
    return np.log(np.asarray(out))


def _estimate(a: np.ndarray, b: np.ndarray, paired: bool, margin: float) -> Estimate:
    """The estimate of a - b (logs of per-round values) with its order-statistic interval (the module's docstring)."""
    d = a - b if paired else (a[:, None] - b[None, :]).ravel()
    tail = _binomial_tail(len(d)) if paired else _mann_whitney_tail(len(a), len(b))
    lo, hi, coverage = _order_interval(np.sort(d), tail)
    lo, hi = math.exp(lo), math.exp(hi)
    return Estimate(math.exp(float(np.median(d))), lo, hi,
                    call_of(lo, hi, margin) if coverage >= LEVEL else Call.AMBIGUOUS, coverage)


def median_interval(values: np.ndarray | list[float]) -> tuple[float, float, float]:
    """(lo, hi, coverage): the distribution-free interval of a median of independent values (the sign test's), at
    LEVEL where the values are enough for it, else their whole range with the range's own coverage."""
    return _order_interval(np.sort(np.asarray(values, dtype=float)), _binomial_tail(len(values)))


def _order_interval(ordered: np.ndarray, tail: tuple[float, ...]) -> tuple[float, float, float]:
    """The k-th smallest and k-th largest of `ordered`, k the largest whose coverage 1 - 2 tail[k - 1] is at least
    LEVEL (k = 1, the whole range, where none is); tail[j] is P(count <= j) under the method's null distribution."""
    ks = [k for k in range(1, len(tail) + 1) if 1 - 2 * tail[k - 1] >= LEVEL] or [1]
    k = ks[-1]
    return float(ordered[k - 1]), float(ordered[len(ordered) - k]), 1 - 2 * tail[k - 1]


@functools.cache
def _binomial_tail(n: int) -> tuple[float, ...]:
    """P(Binomial(n, 1/2) <= j) for j below n / 2: the sign test's tail."""
    return tuple(sum(math.comb(n, i) for i in range(j + 1)) / 2 ** n for j in range((n + 1) // 2))


@functools.cache
def _mann_whitney_tail(n: int, m: int) -> tuple[float, ...]:
    """P(U <= j) for j below n * m / 2, U the Mann-Whitney count of two independent sets of n and m values from one
    distribution (its exact distribution: arrangements counted by the usual recursion)."""
    counts = _arrangements(n, m)
    total = math.comb(n + m, n)
    out, acc = [], 0
    for j in range((n * m + 1) // 2):
        acc += counts[j]
        out.append(acc / total)
    return tuple(out)


@functools.cache
def _arrangements(n: int, m: int) -> tuple[int, ...]:
    """How many orderings of n values of one set among m of the other have U = u, for u = 0 .. n * m."""
    if n == 0 or m == 0:
        return (1,)
    a, b = _arrangements(n - 1, m), _arrangements(n, m - 1)
    # the largest value belongs to the first set (it beats all m others: U += m) or to the second (U unchanged)
    return tuple((a[u - m] if 0 <= u - m < len(a) else 0) + (b[u] if u < len(b) else 0) for u in range(n * m + 1))
