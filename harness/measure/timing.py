"""One timer for CUDA, Triton and cuBLAS alike.

The method is triton.testing.do_bench's (CUDA events around each run, L2 flushed by writing a
256 MiB buffer before each run, warm-up first, the median reported), written out here so that every
sample is kept (spread, min, max) and a minimum number of runs is guaranteed: do_bench may time a
slow kernel once. The SM clock is read before and after, so a throttled measurement is flagged
rather than silently reported.

CuPy launches go to torch's current stream (harness.launch.cuda.torch_stream), so these events enclose them:
tests/test_gpu.py::test_a_cupy_launch_is_enclosed_by_the_timer_events compares this timer with CuPy's
own events on a CUDA kernel and requires agreement within 10% (it passes on the H100).

EventClock is the same measurement of one run made into pytest-benchmark's timer, so that the benchmarks'
statistics are device times (tests/test_benchmarks.py).

A comparison is not one burst per implementation: harness/measure/rounds.py times every implementation of a problem in
interleaved rounds and keeps every run as a `Samples` (defined here, the record's form of them);
harness/analysis/verdicts.py makes the calls from those samples.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from harness.measure.energy_record import Energy

if TYPE_CHECKING:  # torch loads where something is timed, not where a record is read
    import torch

L2_FLUSH_BYTES = 256 * 2**20
SPREAD_LIMIT = 0.05     # (p80 - p20) / median above this is flagged
CLOCK_DROP_LIMIT = 0.05  # an SM clock that fell by more than this during the runs is flagged
# nvbench's default: a run whose window's mean SM clock is under this fraction of the GPU's maximum is throttled
THROTTLE_FRACTION = 0.75
@dataclass
class Timing:
    median_ms: float
    p20_ms: float
    p80_ms: float
    min_ms: float
    max_ms: float
    runs: int
    clock_mhz_before: int | None = None
    clock_mhz_after: int | None = None
    flags: list[str] = field(default_factory=list)
    samples: Samples | None = None      # every run of the interleaved rounds (None in files from single bursts)
    aa: Samples | None = None           # the A/A control: the same launch timed as a second entry of the rounds

    @property
    def spread(self) -> float:
        return (self.p80_ms - self.p20_ms) / self.median_ms if self.median_ms > 0 else 0.0

    @property
    def clock_mhz(self) -> float | None:
        """The mean SM clock of the timed runs (None where it was not read during them)."""
        return self.samples.mean_mhz if self.samples is not None else None

    def to_json(self) -> dict:
        out = {k: v for k, v in asdict(self).items() if k not in ("samples", "aa")}
        out["spread"] = self.spread
        for name in ("samples", "aa"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value.to_json()
        return out

    @classmethod
    def from_json(cls, data: dict) -> Timing:
        fields = ("median_ms", "p20_ms", "p80_ms", "min_ms", "max_ms")
        missing = [f for f in (*fields, "runs") if f not in data]
        if missing:
            raise ValueError(f"timing lacks {', '.join(missing)}")
        return cls(*(float(data[f]) for f in fields), int(data["runs"]), data.get("clock_mhz_before"),
                   data.get("clock_mhz_after"), list(data.get("flags") or []),
                   Samples.from_json(data["samples"]) if data.get("samples") else None,
                   Samples.from_json(data["aa"]) if data.get("aa") else None)

    @classmethod
    def of(cls, samples: Samples, aa: Samples | None = None) -> Timing:
        """The summary of an implementation's samples: quantiles over every run of every round."""
        ms = sorted(samples.ms)
        t = cls(_quantile(ms, 0.5), _quantile(ms, 0.2), _quantile(ms, 0.8), ms[0], ms[-1], len(ms),
                samples=samples, aa=aa)
        if t.spread > SPREAD_LIMIT:
            t.flags.append(f"spread {100 * t.spread:.1f}% > {100 * SPREAD_LIMIT:.0f}%")
        throttled = samples.throttled_count
        if throttled:
            t.flags.append(f"{throttled} of {len(ms)} runs throttled (SM clock < "
                           f"{100 * THROTTLE_FRACTION:.0f}% of {samples.max_mhz:.0f} MHz)")
        return t


@dataclass
class Samples:
    """Every timed run of one entry of an interleaved measurement, in the order they ran.

    ms[i] is run i's event time and mhz[i] the mean SM clock of its window (None: not read), so its cycle count is
    ms[i] * mhz[i] * 1e3. per_round[r] runs were taken in round r, at position order[r] of that round's shuffled
    order. Samples of one `batch` were taken in the same rounds, so two entries of a batch can be compared round by
    round; entries of different batches (another task, another file) only as two independent sets.

    A sample may stand for several launches timed together (`launches`: the sustained regime times chunks of
    back-to-back launches, harness/measure/sustained.py): ms[i] is then the time per launch over that chunk. `energy`
    holds each round's energy of its timed launches (harness/measure/energy.py; None in files from before it was read).
    """

    ms: list[float]
    mhz: list[float | None]
    per_round: list[int]
    order: list[int]
    batch: str
    max_mhz: float | None = None   # the GPU's maximum SM clock: the reference of the throttle threshold
    energy: Energy | None = None   # one value per round
    launches: int = 1              # launches each sample stands for
    # the probe's error as measured on the GPU that took these samples, by window length (ms -> relative error): its
    # run header keeps it with the peaks (harness/run/peaks.py), and loading the file hands it to every record's
    # samples (harness/records/file.py); never written here. None: not measured
    probe_error: dict[float, float] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if len(self.mhz) != len(self.ms) or sum(self.per_round) != len(self.ms) or not self.ms:
            raise ValueError(f"samples: {len(self.ms)} times, {len(self.mhz)} clocks, rounds of {self.per_round}")
        if self.energy is not None and len(self.energy.joules) != len(self.per_round):
            raise ValueError(f"samples: energy of {len(self.energy.joules)} rounds, times of {len(self.per_round)}")

    @property
    def rounds(self) -> int:
        return len(self.per_round)

    def by_round(self) -> list[list[int]]:
        """The sample indices of each round."""
        out, i = [], 0
        for n in self.per_round:
            out.append(list(range(i, i + n)))
            i += n
        return out

    @property
    def cycles(self) -> list[float | None]:
        """Each run's SM cycles (millions), from its time and its window's mean clock as corrected (`clock`)."""
        return [ms * mhz * 1e-3 if mhz else None for ms, mhz in zip(self.ms, self.clock, strict=True)]

    @property
    def clock(self) -> list[float | None]:
        """Each window's clock with the probe's readings above the GPU's maximum SM clock brought down to it.

        The probe (harness/measure/sm_clock.py) reads some windows above the maximum NVML states for the GPU (on an
        H100, up to 2040 MHz against 1980), a clock the SMs cannot run at. Whatever the true clock of such a window was,
        it was at most the maximum, so the maximum is nearer to it than the reading: the correction can only shrink the
        error. What it cannot say is how far off the readings under the maximum are; `clock_error` bounds that from
        below."""
        top = self.max_mhz
        return [min(m, top) if m and top else m for m in self.mhz]

    @property
    def over_max(self) -> list[int]:
        """The runs whose window's clock read above the GPU's maximum SM clock (corrected in `clock`)."""
        top = self.max_mhz
        return [i for i, m in enumerate(self.mhz) if m and top and m > top]

    @property
    def clock_error(self) -> float | None:
        """The probe's error these samples prove, relative: the most that a round's median clock reading exceeds the
        GPU's maximum SM clock by (0.0 where none does). A true clock is never above the maximum, so the excess is
        error; it is a lower bound of the probe's error on these windows (a reading under the maximum may be off too,
        unseen). The round's median is the reading a call rests on (harness/analysis/verdicts.py compares round
        medians). None where no clock was read or the maximum is unknown."""
        if not self.max_mhz:
            return None
        worst = None
        for idx in self.by_round():
            read = sorted(m for i in idx if (m := self.mhz[i]))
            if read:
                mid = read[len(read) // 2] if len(read) % 2 else (read[len(read) // 2 - 1] + read[len(read) // 2]) / 2
                worst = max(worst or 0.0, mid / self.max_mhz - 1)
        return worst

    @property
    def mean_mhz(self) -> float | None:
        """The mean of the windows' clocks, as corrected (`clock`)."""
        read = [m for m in self.clock if m]
        return sum(read) / len(read) if read else None

    def throttled(self, i: int) -> bool:
        mhz = self.mhz[i]
        return bool(self.max_mhz and mhz and mhz < THROTTLE_FRACTION * self.max_mhz)

    @property
    def throttled_count(self) -> int:
        return sum(self.throttled(i) for i in range(len(self.ms)))

    def joules_per_launch(self) -> list[float | None]:
        """Each round's energy per timed launch (None where it was not resolved; every round None without energy)."""
        if self.energy is None:
            return [None] * self.rounds
        return [j / (n * self.launches) if j is not None and n else None
                for j, n in zip(self.energy.joules, self.per_round, strict=True)]

    def to_json(self) -> dict:
        # compact: 5 significant digits of time and whole MHz are below what one run varies by
        out = {"ms": [float(f"{x:.5g}") for x in self.ms], "mhz": [round(m) if m else None for m in self.mhz],
               "per_round": list(self.per_round), "order": list(self.order), "batch": self.batch,
               "max_mhz": self.max_mhz}
        if self.energy is not None:  # optional fields are written only when set: older files read back unchanged
            out["energy"] = self.energy.to_json()
        if self.launches != 1:
            out["launches"] = self.launches
        return out

    @classmethod
    def from_json(cls, data: dict) -> Samples:
        missing = [f for f in ("ms", "mhz", "per_round", "order", "batch") if f not in data]
        if missing:
            raise ValueError(f"samples lack {', '.join(missing)}")
        return cls([float(x) for x in data["ms"]], [float(m) if m else None for m in data["mhz"]],
                    [int(n) for n in data["per_round"]], [int(o) for o in data["order"]], str(data["batch"]),
                    data.get("max_mhz"), Energy.from_json(data["energy"]) if data.get("energy") else None,
                    int(data.get("launches", 1)))


def sm_clock_mhz(device: torch.device) -> int | None:
    """The current SM clock through NVML (None where NVML is not available)."""
    import torch
    try:
        return int(torch.cuda.clock_rate(device))
    except Exception:
        return None


def _quantile(sorted_ms: list[float], q: float) -> float:
    pos = q * (len(sorted_ms) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_ms) - 1)
    return sorted_ms[lo] + (sorted_ms[hi] - sorted_ms[lo]) * (pos - lo)


def time_gpu(fn: Callable[[], None], *, warmup_ms: float = 25.0, rep_ms: float = 100.0, min_runs: int = 10,
             max_runs: int = 1000, budget_ms: float = 4000.0, flush_l2: bool = True,
             device: torch.device | None = None) -> Timing:
    """Median device time of fn() over many runs, each after an L2 flush, bracketed by CUDA events."""
    import torch
    device = device or torch.device("cuda", torch.cuda.current_device())
    flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.int8, device=device) if flush_l2 else None

    def one() -> None:
        if flush is not None:
            flush.zero_()
        fn()

    fn()  # compile / load / create handles outside the measurement
    torch.cuda.synchronize(device)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(3):
        one()
    end.record()
    torch.cuda.synchronize(device)
    estimate = max(start.elapsed_time(end) / 3, 1e-3)
    runs = int(min(max(rep_ms / estimate, min_runs), max_runs))
    runs = max(3, min(runs, int(budget_ms / estimate)))
    for _ in range(max(1, int(warmup_ms / estimate))):
        one()
    clock_before = sm_clock_mhz(device)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    for s, e in zip(starts, ends, strict=True):
        if flush is not None:
            flush.zero_()
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize(device)
    clock_after = sm_clock_mhz(device)
    samples = sorted(s.elapsed_time(e) for s, e in zip(starts, ends, strict=True))
    t = Timing(_quantile(samples, 0.5), _quantile(samples, 0.2), _quantile(samples, 0.8), samples[0], samples[-1],
               runs, clock_before, clock_after)
    if t.spread > SPREAD_LIMIT:
        t.flags.append(f"spread {100 * t.spread:.1f}% > {100 * SPREAD_LIMIT:.0f}%")
    if clock_before and clock_after and clock_after < (1 - CLOCK_DROP_LIMIT) * clock_before:
        t.flags.append(f"SM clock fell {clock_before} -> {clock_after} MHz")
    return t


class EventClock:
    """A clock that stands still on the host and advances by the CUDA-event time of the runs it times.

    pytest-benchmark times a round as `timer()` read before and after the call it measures and keeps the
    difference. With this clock as that timer (`@pytest.mark.benchmark(timer=clock)`) and `clock.timed(fn)` as
    the call, the difference is the device time of one run of fn, measured the way time_gpu measures one: L2
    flushed (the same L2_FLUSH_BYTES buffer, written before the start event on the same stream, so outside the
    measurement), start event, fn(), end event.

    Runs are queued back to back, as time_gpu's loop queues them: a round enqueues its run and then waits only for
    the run enqueued `depth` rounds earlier, whose event time it adds to the clock. The GPU therefore always has
    `depth` runs queued and never idles while the host launches or pytest-benchmark books a round, so neither the
    launch latency nor an idle gap is in any statistic; each statistic is still one run's event time. The first
    round queues `depth` extra runs (warm-up that no round reports); the runs still queued when a benchmark ends
    are never reported, and the next `timed` waits for them and drops them. depth=0 waits for each round's own run.

    `event` makes the events (CUDA events with timing by default; tests pass a fake). The flush buffer is made at
    the first run, so a clock can be built where there is no GPU (at collection).
    """

    def __init__(self, device: torch.device | str | None = None, *, flush_l2: bool = True, depth: int = 3,
                 event: Callable[[], torch.cuda.Event] | None = None) -> None:
        import torch
        if depth < 0:
            raise ValueError(f"depth must be >= 0, not {depth}")
        self.seconds = 0.0
        self.depth = depth
        self._device = device
        self._flush_l2 = flush_l2
        self._event = event or (lambda: torch.cuda.Event(enable_timing=True))
        self._flush: torch.Tensor | None = None
        self._queued: deque[tuple[torch.cuda.Event, torch.cuda.Event]] = deque()

    def __call__(self) -> float:
        return self.seconds

    def __repr__(self) -> str:
        # pytest-benchmark writes the timer's name into every benchmark's options (--benchmark-json).
        flush = f"L2 flush {L2_FLUSH_BYTES // 2**20} MiB" if self._flush_l2 else "no L2 flush"
        return f"EventClock(CUDA events, {flush}, {self.depth} runs queued)"

    def flush_l2(self) -> None:
        """Write the L2-sized buffer, as time_gpu does before each run (nothing when built with flush_l2=False)."""
        import torch
        if not self._flush_l2:
            return
        if self._flush is None:
            device = self._device or torch.device("cuda", torch.cuda.current_device())
            self._flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.int8, device=device)
        self._flush.zero_()

    def drop_queued(self) -> None:
        """Wait for the runs still queued and forget them: they belong to the benchmark that queued them."""
        for _, end in self._queued:
            end.synchronize()
        self._queued.clear()

    def timed(self, fn: Callable[[], object]) -> Callable[[], None]:
        """The round of fn: enqueue one run (flush, start event, fn(), end event); add the time of the oldest."""
        self.drop_queued()

        def enqueue() -> None:
            start, end = self._event(), self._event()
            self.flush_l2()
            start.record()
            fn()
            end.record()
            self._queued.append((start, end))

        def one() -> None:
            while len(self._queued) < self.depth:
                enqueue()
            enqueue()
            start, end = self._queued.popleft()
            end.synchronize()
            self.seconds += start.elapsed_time(end) / 1e3

        return one
