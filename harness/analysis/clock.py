"""The SM clock probe's readings above the GPU's maximum in a results file, as data (`rosetta clock RESULTS`, no GPU).

Every timed run's window has a clock reading (harness/measure/sm_clock.py), and the file's header of samples names the
GPU's maximum SM clock (NVML). A reading above the maximum is the probe's error (no SM runs faster than its maximum), so
the readings of a finished run say where that error shows: by the window's length (a run's time: the probe's two reads
of the timer are as far apart) and by what ran in it (CUDA, Triton, cuBLAS; SIMT or tensor cores). What they prove is a
lower bound of the error: a reading under the maximum may be off as much, unseen (on tensor-core windows, clocked
below the maximum, no reading can show it). The error itself is measured or unknown (ProbeStatus).
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from harness.catalog_types.kernel import PRECISION_CLASSES
from harness.device.specs import spec
from harness.records.lines import Result, RunHeader

# Window lengths (ms) the readings are grouped by: a run's event time, which the probes bracket.
WINDOW_EDGES_MS = (0.0, 0.05, 0.3, 1.0, 3.0, 10.0, 30.0, float("inf"))


@dataclass(frozen=True)
class Excess:
    """The readings of one group of windows against the GPU's maximum SM clock."""

    group: str
    runs: int                 # windows with a clock reading
    over: int                 # read above the maximum
    median_mhz: float
    p95_mhz: float
    max_mhz: float            # the highest reading
    device_max_mhz: float     # the GPU's maximum SM clock (NVML)

    @property
    def share_over(self) -> float:
        return self.over / self.runs if self.runs else 0.0

    @property
    def worst(self) -> float:
        """The highest reading's excess over the maximum, relative (0 where none is above)."""
        return max(0.0, self.max_mhz / self.device_max_mhz - 1)


def _readings(results: Iterable[Result]) -> list[tuple[Result, float, float, float]]:
    """(record, event ms, clock reading, the GPU's maximum) of every timed run with a clock and a known maximum."""
    out = []
    for r in results:
        s = r.timing.samples if r.timing else None
        if s is None or not s.max_mhz:
            continue
        out += [(r, ms, mhz, s.max_mhz) for ms, mhz in zip(s.ms, s.mhz, strict=True) if mhz]
    return out


def _q(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * (len(s) - 1) + 0.5))]


def _grouped(found: list[tuple[Result, float, float, float]], key: Callable[[Result, float], str | None],
             order: list[str]) -> list[Excess]:
    groups: dict[str, list[tuple[float, float]]] = {}
    for r, ms, mhz, top in found:
        name = key(r, ms)
        if name is not None:
            groups.setdefault(name, []).append((mhz, top))
    out = []
    for name in [*order, *sorted(set(groups) - set(order))]:
        if name not in groups:
            continue
        read = [m for m, _ in groups[name]]
        top = max(t for _, t in groups[name])
        out.append(Excess(name, len(read), sum(m > t for m, t in groups[name]), _q(read, 0.5), _q(read, 0.95),
                          max(read), top))
    return out


def _window(ms: float) -> str:
    lo, hi = next((lo, hi) for lo, hi in itertools.pairwise(WINDOW_EDGES_MS) if lo <= ms < hi)
    return f"{lo:g}-{hi:g} ms" if hi != float("inf") else f">= {lo:g} ms"


def by_window(results: Iterable[Result]) -> list[Excess]:
    """The readings grouped by the window's length (the run's event time)."""
    return _grouped(_readings(results), lambda r, ms: _window(ms), [_window(lo) for lo in WINDOW_EDGES_MS[:-1]])


def implementation_group(r: Result) -> str:
    """What ran in a window, as the excess is grouped: the implementation's family, its op, and for sgemm whether it
    ran on the tensor cores."""
    impl = r.impl_id
    family = ("CUDA" if impl.is_cuda else "Triton" if impl.is_triton else "cuBLAS" if impl.is_cublas
              else "Triton tutorial")
    cls = PRECISION_CLASSES.get(r.precision)  # type: ignore[call-overload]
    kind = "tensor cores" if cls is not None and cls.tensor_cores else "SIMT"
    return f"{family}, {r.op} {kind}" if r.op == "sgemm" else f"{family}, {r.op}"


def by_implementation(results: Iterable[Result]) -> list[Excess]:
    """The readings grouped by what ran in the window (implementation_group)."""
    return _grouped(_readings(results), lambda r, ms: implementation_group(r), [])


def overall(results: Iterable[Result]) -> Excess | None:
    found = _grouped(_readings(results), lambda r, ms: "all", ["all"])
    return found[0] if found else None


@dataclass(frozen=True)
class ProbeStatus:
    """What a file says of its clock probe: every reading against the GPU's maximum, and the error the run measured
    (harness/run/peaks.py; None: not measured, so no comparison of the file is called in cycles)."""

    readings: Excess | None               # None: no clock read with a known maximum
    measured: dict[float, float] | None   # window ms -> the probe's error measured there


def probe_status(header: RunHeader, results: Iterable[Result]) -> ProbeStatus:
    return ProbeStatus(overall(results), header.probe_error)


# A measured peak whose SM clock lies more than this below the clock its rows ran at is flagged (harness/run/peaks.py
# measures it again at the run's start where its clock lies that far below the GPU's maximum).
PEAK_CLOCK_DROP = 0.05


@dataclass(frozen=True)
class PeakClock:
    """The FP32 FMA peak a run measured beside the clock its SIMT rows ran at: every "% of FP32 peak" rests on it.

    A peak that ran at a lower clock than the rows is low by that much, and so is every share of it too high. Where the
    file recorded the peak's clock (harness/run/peaks.py) that clock is compared; an older file recorded none, and the
    peak's effective clock (its rate over the SMs and the FP32 FLOP per SM cycle of the sheet's architecture:
    harness/device/specs.py) stands in, said as such. It is a floor of the clock it ran at (the micro-kernel issues an
    FMA on most cycles, not all: 65.4 TFLOP/s on an H100 is 1935 MHz effective at 1980)."""

    tflops: float
    clock_mhz: float | None       # the probe's mean reading over the peak's runs; None: not recorded (older files)
    effective_mhz: float | None   # the rate over SMs x FP32 FLOP per SM cycle; None: no sheet for the device
    rows_mhz: float | None        # the median of the fp32 SIMT sgemm rows' mean clocks (NVML's after them in
                                  # files of single bursts)
    tries: int                    # measurements the run took (harness/run/peaks.py)

    @property
    def compared_mhz(self) -> float | None:
        """The peak's clock as compared: recorded, else its effective clock."""
        return self.clock_mhz if self.clock_mhz is not None else self.effective_mhz

    @property
    def below(self) -> float | None:
        """How far the peak's clock lies under the rows', relative (None where either is unknown)."""
        if self.compared_mhz is None or not self.rows_mhz:
            return None
        return 1 - self.compared_mhz / self.rows_mhz

    @property
    def low(self) -> bool:
        """Flagged: its clock lies more than PEAK_CLOCK_DROP under the rows'."""
        return self.below is not None and self.below > PEAK_CLOCK_DROP


def peak_clock(header: RunHeader, results: Iterable[Result]) -> PeakClock | None:
    """The run's FP32 peak against its SIMT rows' clock (None: no peak measured)."""
    peaks = header.peaks
    if peaks is None:
        return None
    sheet = spec(header.device)
    sms = header.sms or (sheet.sms if sheet else None)
    effective = peaks.fp32_tflops * 1e6 / (sms * sheet.fp32_per_cycle) if sheet and sms else None
    # the probe's reading of each row's runs; a file of single bursts has NVML's reading after them only
    clocks = [c for r in results if r.timed and r.op == "sgemm" and r.precision == "fp32"
              and (c := r.timing.clock_mhz or r.timing.clock_mhz_after)]
    return PeakClock(peaks.fp32_tflops, peaks.fp32_mhz, effective, statistics.median(clocks) if clocks else None,
                     peaks.fp32_tries)
