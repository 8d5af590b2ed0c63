"""One timer for CUDA, Triton and cuBLAS alike.

The method is triton.testing.do_bench's (CUDA events around each run, L2 flushed by writing a
256 MiB buffer before each run, warm-up first, the median reported), written out here so that every
sample is kept (spread, min, max) and a minimum number of runs is guaranteed: do_bench may time a
slow kernel once. The SM clock is read before and after, so a throttled measurement is flagged
rather than silently reported.

CuPy launches go to torch's current stream (harness.cuda.torch_stream), so these events enclose them:
tests/test_gpu.py::test_a_cupy_launch_is_enclosed_by_the_timer_events compares this timer with CuPy's
own events on a CUDA kernel and requires agreement within 10% (it passes on the H100).

EventClock is the same measurement of one run made into pytest-benchmark's timer, so that the benchmarks'
statistics are device times (tests/test_benchmarks.py).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import torch

L2_FLUSH_BYTES = 256 * 2**20
SPREAD_LIMIT = 0.05     # (p80 - p20) / median above this is flagged
CLOCK_DROP_LIMIT = 0.05  # an SM clock that fell by more than this during the runs is flagged


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

    @property
    def spread(self) -> float:
        return (self.p80_ms - self.p20_ms) / self.median_ms if self.median_ms > 0 else 0.0

    def to_json(self) -> dict:
        return {**asdict(self), "spread": self.spread}

    @classmethod
    def from_json(cls, data: dict) -> Timing:
        fields = ("median_ms", "p20_ms", "p80_ms", "min_ms", "max_ms")
        missing = [f for f in (*fields, "runs") if f not in data]
        if missing:
            raise ValueError(f"timing lacks {', '.join(missing)}")
        return cls(*(float(data[f]) for f in fields), int(data["runs"]), data.get("clock_mhz_before"),
                   data.get("clock_mhz_after"), list(data.get("flags") or []))


def sm_clock_mhz(device: torch.device) -> int | None:
    """The current SM clock through NVML (None where NVML is not available)."""
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
