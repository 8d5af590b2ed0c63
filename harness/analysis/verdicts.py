"""The one place a speed comparison is decided: a ratio with a 95% interval, in time and in cycles, and a call.

The ratio is the subject's time over the reference's (below 1: the subject is faster). It is estimated from the
interleaved rounds of harness/measure/rounds.py: each round gives each entry a median over its burst, and

- two entries of one batch (timed in the same rounds) are compared round by round: the estimate is the median of
  the rounds' ratios, and the interval resamples rounds (a paired bootstrap of that median), so what drifts from
  round to round (the power state, the clock, the neighbour run before) falls out of the ratio as far as it hits
  both alike. Why the median and not the mean: round-to-round ratios have long tails (a tensor-core round at a
  lower clock, a tens-of-microseconds sgemv burst behind a stall), and on the A/A control's own rounds
  (tests/test_verdicts.py test_the_paired_median_keeps_its_coverage_under_the_aa_controls_tails) the median's
  interval covers the true ratio about as often as the mean's (both near 94%) while deciding a tie far more often;
- entries of different batches (two files, a worker replaced halfway) are compared as two independent sets of
  rounds: each side's rounds are resampled on their own.

The call reads the interval against a declared margin of practical equivalence:
SAME where the whole interval lies within [1 / (1 + margin), 1 + margin]; otherwise FAST where it lies wholly below 1,
SLOW wholly above 1, and AMBIGUOUS where it straddles 1. A difference smaller than the margin and known to be there
is SAME: a tie for the purposes of this suite, not a win.

The same is done on cycles (time x the run's mean SM clock): two implementations timed at different clocks compare on
their code in cycles, and on what a user waits for in time. Where the two calls differ, the clock decided the time
call: the side that ran at the higher clock either hid a difference in the code or made one that the code lacks
(Verdict.clock_ratio says which side that was).

A cycles call is only as good as the clock it multiplies by. The probe (harness/measure/sm_clock.py) reads some windows
above the GPU's maximum SM clock, which no window can run at: those readings are brought down to the maximum
(timing.Samples.clock) and the excess is the probe's error that the samples prove (timing.Samples.clock_error). A cycles
call is made only where that error, the larger of the two sides', is below the call's margin; otherwise the verdict
keeps its clock error and no cycles estimate, and the call rests on time alone.

And on energy, where both sides' rounds hold it (harness/measure/energy.py: joules per launch, one value per round): the
same estimate over the rounds both resolved, the same margin and the same call, read as less (FAST) or more (SLOW)
energy per launch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np

from harness.measure.rounds import MIN_ROUNDS
from harness.measure.timing import Samples

RESAMPLES = 4000
LEVEL = 0.95
# Student's t (two-sided 95%) over the normal's 1.96, by degrees of freedom: a percentile bootstrap of a mean over
# ten rounds covers less than it says (about 90%), so its deviations from the estimate are widened by this factor.
_T975 = {1: 12.71, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
         12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}
# Margins of practical equivalence, by regime. SIMT fp32 and bandwidth-bound runs keep their clock and repeat within
# a fraction of a percent round to round; tensor-core runs reach the power limit and their clock moves with what ran
# before, so a ratio of two of them moves by a few percent from round to round (measured on an H100; see README).
MARGIN_SIMT = 0.02
MARGIN_TENSOR_CORES = 0.03
TENSOR_CORE_PRECISIONS = frozenset({"tf32", "3xtf32", "bf16x3", "bf16x6"})


class Call(str, Enum):
    FAST = "FAST"            # the subject is faster: the whole interval below 1 and not within the margin
    SLOW = "SLOW"            # the subject is slower: the whole interval above 1 and not within the margin
    SAME = "SAME"            # the whole interval within the margin: a tie
    AMBIGUOUS = "AMBIGUOUS"  # the interval straddles 1 and reaches past the margin: undecided


def margin_for(*precisions: str) -> float:
    """The margin of a comparison: the tensor cores' where either side runs on them."""
    return MARGIN_TENSOR_CORES if any(p in TENSOR_CORE_PRECISIONS for p in precisions) else MARGIN_SIMT


def call_of(lo: float, hi: float, margin: float) -> Call:
    if lo >= 1 / (1 + margin) and hi <= 1 + margin:
        return Call.SAME
    if hi < 1:
        return Call.FAST
    if lo > 1:
        return Call.SLOW
    return Call.AMBIGUOUS


@dataclass(frozen=True)
class Estimate:
    """A ratio (subject / reference) with its interval and the call it makes."""

    ratio: float
    lo: float
    hi: float
    call: Call

    @property
    def half_width(self) -> float:
        """Half the interval's width relative to the ratio: 0.01 is +-1%."""
        return (self.hi - self.lo) / 2 / self.ratio

    def to_json(self) -> dict:
        return {"ratio": _r(self.ratio), "lo": _r(self.lo), "hi": _r(self.hi), "call": self.call.value}

    @classmethod
    def from_json(cls, data: dict) -> Estimate:
        return cls(float(data["ratio"]), float(data["lo"]), float(data["hi"]), Call(data["call"]))


@dataclass(frozen=True)
class Verdict:
    """A comparison of two entries: in time, in cycles (None where a clock was not read), and how it was made."""

    time: Estimate
    cycles: Estimate | None   # None: no clock read, its error unknown (no maximum) or not below the margin
    margin: float
    rounds: tuple[int, int]   # the subject's and the reference's rounds
    paired: bool              # compared round by round (one batch) or as independent sets
    # the probe's error the two sides' samples prove (the larger; timing.Samples.clock_error): a cycles call is made
    # only below the margin. None: no clock read, or a record from before it was kept
    clock_error: float | None = None
    # the subject's mean SM clock over the reference's (corrected readings): above 1, the subject ran at the higher
    # clock. None where either side's clock was not read
    clock_ratio: float | None = None
    energy: Estimate | None = None   # joules per launch, where both sides' rounds resolved it

    @property
    def cycles_gated(self) -> bool:
        """Clocks were read on both sides, but their measured error is not below the margin: no cycles call."""
        return self.cycles is None and self.clock_error is not None and self.clock_error >= self.margin

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
        for name in ("clock_error", "clock_ratio"):
            if getattr(self, name) is not None:
                out[name] = _r(getattr(self, name))
        if self.energy is not None:  # written only where measured: older records read back unchanged
            out["energy"] = self.energy.to_json()
        return out

    @classmethod
    def from_json(cls, data: dict) -> Verdict:
        return cls(Estimate.from_json(data["time"]), Estimate.from_json(data["cycles"]) if data.get("cycles") else None,
                   float(data["margin"]), tuple(data["rounds"]), bool(data["paired"]), data.get("clock_error"),
                   data.get("clock_ratio"), Estimate.from_json(data["energy"]) if data.get("energy") else None)


def compare(subject: Samples, reference: Samples, margin: float, *, seed: int = 0) -> Verdict:
    """The verdict of subject against reference (see the module's docstring)."""
    # Entries of one batch took part in the same first rounds (a slow one may stop early): pair those.
    paired = subject.batch == reference.batch
    n = min(subject.rounds, reference.rounds) if paired else None
    time = _estimate(_round_medians(subject, subject.ms, n), _round_medians(reference, reference.ms, n), paired,
                     margin, seed)
    cs, cr = _round_medians(subject, subject.cycles, n), _round_medians(reference, reference.cycles, n)
    errors = [e for e in (subject.clock_error, reference.clock_error) if e is not None]
    error = max(errors) if len(errors) == 2 else None
    cycles = None
    if cs is not None and cr is not None and error is not None and error < margin:
        cycles = _estimate(cs, cr, paired, margin, seed)
    clocks = subject.mean_mhz, reference.mean_mhz
    ratio = clocks[0] / clocks[1] if clocks[0] and clocks[1] else None
    return Verdict(time, cycles, margin, (subject.rounds, reference.rounds), paired, error, ratio,
                   energy_estimate(subject, reference, margin, seed=seed))


def energy_estimate(subject: Samples, reference: Samples, margin: float, *, seed: int = 0) -> Estimate | None:
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
    return _estimate(np.log(np.asarray(a)), np.log(np.asarray(b)), paired, margin, seed)


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


def _estimate(a: np.ndarray, b: np.ndarray, paired: bool, margin: float, seed: int) -> Estimate:
    rng = np.random.default_rng(seed)
    n = min(len(a), len(b))
    if paired:
        # the median of the rounds' log ratios: one round that an outlying run pulls far off moves it little, where
        # it moves a mean by a tenth of its excursion (the module's docstring gives the calibration)
        d = a - b
        point = float(np.median(d))
        boot = np.median(d[rng.integers(0, len(d), size=(RESAMPLES, len(d)))], axis=1)
        widen = 1.0
    else:
        point = float(a.mean() - b.mean())
        boot = (a[rng.integers(0, len(a), size=(RESAMPLES, len(a)))].mean(axis=1)
                - b[rng.integers(0, len(b), size=(RESAMPLES, len(b)))].mean(axis=1))
        widen = _t975(n - 1) / 1.96
    tail = (1 - LEVEL) / 2
    q_lo, q_hi = (point + widen * (float(q) - point) for q in np.quantile(boot, [tail, 1 - tail]))
    lo, hi = math.exp(q_lo), math.exp(q_hi)
    call = call_of(lo, hi, margin) if n >= MIN_ROUNDS else Call.AMBIGUOUS
    return Estimate(math.exp(point), lo, hi, call)


def _t975(df: int) -> float:
    if df <= 0:
        return _T975[1]
    return _T975[max(k for k in _T975 if k <= df)] if df <= 30 else 1.96


def _r(x: float) -> float:
    return float(f"{x:.6g}")
