"""The SM clock probe's own error, measured (`rosetta clock --measure`, GPU).

The rounds read each timed run's SM clock with the probe of harness/measure/sm_clock.py: cycles of each SM (`%clock64`)
over nanoseconds of the GPU's one timer (`%globaltimer`) between a probe before the run and one after it. On H100s some
of those readings are above the GPU's maximum SM clock, which no window can run at, so the probe has an error; a cycles
call is only as good as it. This study measures it, with windows the probe brackets the way the rounds bracket a run:

- the timer's step: `%globaltimer` read back to back in one thread; the smallest nonzero increment is its resolution
  (an upper bound of it where every increment is nonzero: the reads are then slower than its step);
- windows of fixed length, 10 us to 10 ms, each timed by CUDA events as the rounds time a run, of two kinds: "busy",
  every SM spinning on `%globaltimer` for the window (work that keeps every SM's clock running and draws little
  power, so the clock stays at its maximum), and "idle", one thread on one SM sleeping through it (torch's
  `_sleep`) while the other SMs wait; per window the probe's reading (the median over SMs), its spread over SMs, and
  the timer's nanoseconds over the events' time;
- windows of real work where the committed runs read above the maximum: cuBLAS fp32 SGEMM (TF32 off) at 1024^3 to
  8192^3, L2 flushed before each window as the rounds flush it, back to back, at the power limit from 4096^3 on;
- through every series a host thread reads NVML's SM clock every few milliseconds, and a steady state of busy 1 ms
  windows back to back for about a second sets the probe's median reading beside NVML's where both hold still;
- long windows (0.1 to 1 s) against the host's clock: the GPU's timer over `time.perf_counter`.

From these, the probe's error by window length and kind: each window's reading against NVML's median clock during its
series (the median deviation and its 95th percentile). Everything is written to a JSON file and printed.
"""

from __future__ import annotations

import functools
import itertools
import statistics
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from harness.measure.sm_clock import ProbeBuffer, max_sm_clock_mhz, nvml_sm_clock_mhz, sm_spans

if TYPE_CHECKING:
    import torch

WINDOWS_MS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
SGEMM_SIZES = (1024, 2048, 4096, 8192)   # cuBLAS fp32 windows of about 0.05, 0.35, 2.7 and 21 ms on an H100
HOST_WINDOWS_MS = (100.0, 300.0, 1000.0)
REPEATS = 40              # windows of each kind and length
TICKS = 4096              # back-to-back reads of the timer for its step
STEADY_MS = 1000.0        # length of the steady state
NVML_EVERY_S = 0.005      # how often the host thread reads NVML's clock during the steady state


@functools.cache
def _kernels():  # built on first use: CPU callers never need Triton's JIT
    import triton
    import triton.language as tl

    @triton.jit
    def timer_now():
        return tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)

    @triton.jit
    def ticks(out_ptr, n: tl.constexpr):
        # the timer read n times in a row by one program; the increments between reads show its step
        for i in range(n):
            tl.store(out_ptr + i, timer_now())

    @triton.jit
    def spin(out_ptr, ns):
        # every program holds its SM until `ns` nanoseconds of the GPU's timer have passed since it started
        start = timer_now()
        now = start
        while now - start < ns:
            now = timer_now()
        tl.store(out_ptr + tl.program_id(0), now - start)

    return ticks, spin


@dataclass
class Window:
    """One window the two probes bracket: its events' time, and per SM the cycles over the timer's nanoseconds."""

    event_ms: float
    mhz: float | None           # median over SMs (the rounds' reading)
    sm_low: float | None        # the slowest and fastest SM's reading
    sm_high: float | None
    timer_ms: float | None      # the timer's nanoseconds between the probes (median over SMs), in ms


def window_of(before: list[list[int]], after: list[list[int]], event_ms: float) -> Window:
    """A window's figures from its two probes' slots (clock64, globaltimer, smid + 1 per SM)."""
    found = sm_spans(before, after)
    rates, spans = [mhz for mhz, _ in found], [ns / 1e6 for _, ns in found]
    if not rates:
        return Window(event_ms, None, None, None, None)
    return Window(event_ms, statistics.median(rates), min(rates), max(rates), statistics.median(spans))


@dataclass
class Series:
    """The windows of one kind and length, summarised, with NVML's clock read while they ran."""

    kind: str                   # "busy", "idle" or "sgemm"
    target_ms: float            # the window asked for (sgemm: its size, M = N = K)
    windows: int
    event_ms: float             # median
    mhz_median: float | None
    mhz_p05: float | None
    mhz_p95: float | None
    mhz_max: float | None
    over_max: int               # windows read above the GPU's maximum SM clock
    sm_spread: float | None     # median over windows of (fastest SM - slowest SM) / median reading
    timer_over_events: float | None   # median over windows of the timer's span over the events' time
    nvml_mhz: float | None      # NVML's median SM clock while the series ran
    nvml_readings: int
    bias: float | None          # the median window's reading / NVML's clock - 1: the probe's error here
    p95: float | None           # 95th percentile over windows of |reading / NVML's clock - 1|


@dataclass
class Measurement:
    device: str
    started: str
    max_mhz: float | None
    timer_step_ns: int | None           # the smallest nonzero increment of %globaltimer read back to back
    timer_zero_steps: float             # the share of back-to-back reads that saw no increment
    series: list[Series] = field(default_factory=list)
    steady: Series | None = None              # busy 1 ms windows back to back for STEADY_MS
    host: list[dict] = field(default_factory=list)  # long windows: timer / host clock, events / host clock

    def to_json(self) -> dict:
        return asdict(self)


def _q(values: list[float], q: float) -> float:
    s = sorted(values)
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def timer_step(device: torch.device) -> tuple[int | None, float]:
    """The smallest nonzero increment of the timer between back-to-back reads, and the share of zero increments."""
    import torch

    ticks, _ = _kernels()
    out = torch.zeros(TICKS, dtype=torch.int64, device=device)
    ticks[(1,)](out, TICKS, num_warps=1)
    torch.cuda.synchronize(device)
    values = out.cpu().tolist()
    steps = [b - a for a, b in itertools.pairwise(values)]
    nonzero = [s for s in steps if s > 0]
    return (min(nonzero) if nonzero else None), (sum(s == 0 for s in steps) / len(steps) if steps else 0.0)


class NvmlReader:
    """NVML's SM clock read every NVML_EVERY_S on a host thread while a series runs (the GPU works while the host waits
    in a synchronize, which releases the interpreter)."""

    def __init__(self, device: torch.device) -> None:
        import torch

        self.index = device.index if device.index is not None else torch.cuda.current_device()
        self.readings: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.is_set():
            mhz = nvml_sm_clock_mhz(self.index)
            if mhz:
                self.readings.append(mhz)
            time.sleep(NVML_EVERY_S)

    def __enter__(self) -> NvmlReader:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _work(kind: str, size: float, device: torch.device, sms: int, max_mhz: float | None):
    """The launch one window brackets, and what runs before each window outside it (an L2 flush for sgemm)."""
    import torch

    from harness.launch.cublas import tf32_matmul
    from harness.measure.timing import L2_FLUSH_BYTES

    if kind == "busy":
        _, spin = _kernels()
        sink = torch.zeros(sms, dtype=torch.int64, device=device)
        return (lambda: spin[(sms,)](sink, int(size * 1e6), num_warps=4)), None
    if kind == "idle":
        cycles = int(size * 1e3 * (max_mhz or 1980.0))
        return (lambda: torch.cuda._sleep(cycles)), None
    n = int(size)
    a, b = (torch.randn(n, n, device=device) for _ in range(2))
    c = torch.empty(n, n, device=device)
    flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.int8, device=device)

    def gemm() -> None:
        with tf32_matmul(False):
            torch.mm(a, b, out=c)

    return gemm, flush.zero_


def _windows(kind: str, size: float, repeats: int, device: torch.device, max_mhz: float | None
             ) -> tuple[list[Window], list[float]]:
    """`repeats` windows of one kind, each bracketed by the two probes and by CUDA events as the rounds bracket a run,
    with NVML's readings taken while they ran."""
    import torch

    probes = ProbeBuffer.make(repeats, device)
    run, before = _work(kind, size, device, probes.sms, max_mhz)
    run()  # compile, load, pick the library's kernel: outside the windows
    torch.cuda.synchronize(device)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
    with NvmlReader(device) as nvml:
        for i in range(repeats):
            if before is not None:
                before()
            probes.probe(i, 0)
            starts[i].record()
            run()
            ends[i].record()
            probes.probe(i, 1)
        torch.cuda.synchronize(device)
    host = probes.data[:repeats].cpu().tolist()
    return [window_of(w[0], w[1], s.elapsed_time(e)) for w, s, e in zip(host, starts, ends, strict=True)], \
        nvml.readings


def series_of(kind: str, target: float, windows: list[Window], max_mhz: float | None,
              nvml: list[float]) -> Series:
    read = [w.mhz for w in windows if w.mhz]
    spread = [(w.sm_high - w.sm_low) / w.mhz for w in windows if w.mhz and w.sm_high and w.sm_low]
    timer = [w.timer_ms / w.event_ms for w in windows if w.timer_ms and w.event_ms > 0]
    ref = statistics.median(nvml) if nvml else None
    dev = [m / ref - 1 for m in read] if ref else []
    return Series(kind, target, len(windows), statistics.median(w.event_ms for w in windows),
                  statistics.median(read) if read else None, _q(read, 0.05) if read else None,
                  _q(read, 0.95) if read else None, max(read) if read else None,
                  sum(bool(max_mhz) and m > max_mhz for m in read), statistics.median(spread) if spread else None,
                  statistics.median(timer) if timer else None, ref, len(nvml),
                  statistics.median(dev) if dev else None, _q([abs(d) for d in dev], 0.95) if dev else None)


def _host(device: torch.device, ms: float) -> dict:
    """A long busy window against the host's clock: the GPU's timer and the events over time.perf_counter."""
    import torch

    _, spin = _kernels()
    probes = ProbeBuffer.make(1, device)
    sink = torch.zeros(probes.sms, dtype=torch.int64, device=device)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize(device)
    t0 = time.perf_counter()
    probes.probe(0, 0)
    start.record()
    spin[(probes.sms,)](sink, int(ms * 1e6), num_warps=4)
    end.record()
    probes.probe(0, 1)
    torch.cuda.synchronize(device)
    host_ms = (time.perf_counter() - t0) * 1e3
    host = probes.data[:1].cpu().tolist()[0]
    w = window_of(host[0], host[1], start.elapsed_time(end))
    return {"target_ms": ms, "host_ms": host_ms, "event_ms": w.event_ms, "timer_ms": w.timer_ms,
            "timer_over_host": w.timer_ms / host_ms if w.timer_ms else None, "events_over_host": w.event_ms / host_ms,
            "mhz": w.mhz}


def _said(s: Series, max_mhz: float | None) -> str:
    what = f"{s.kind:5s} " + (f"{int(s.target_ms)}^3" if s.kind == "sgemm" else f"{s.target_ms:g} ms")
    error = (f"; against NVML's {s.nvml_mhz:.0f}: {100 * s.bias:+.2f}%, 95% within {100 * s.p95:.2f}%"
             if s.nvml_mhz is not None and s.bias is not None and s.p95 is not None else "; NVML not read")
    return (f"{what}: events {s.event_ms:.4f} ms, probe {s.mhz_median or 0:.0f} MHz [{s.mhz_p05 or 0:.0f}-"
            f"{s.mhz_p95 or 0:.0f}, max {s.mhz_max or 0:.0f}], {s.over_max} of {s.windows} above {max_mhz or 0:.0f}; "
            f"SMs spread {100 * (s.sm_spread or 0):.2f}%; timer/events {s.timer_over_events or 0:.5f}{error}")


def measure(device: torch.device, repeats: int = REPEATS, say=print) -> Measurement:
    """The whole study on one GPU (see the module's docstring)."""
    import torch

    max_mhz = max_sm_clock_mhz(device)
    step, zeros = timer_step(device)
    m = Measurement(torch.cuda.get_device_name(device), datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    max_mhz, step, zeros)
    say(f"%globaltimer: smallest step {step} ns, {100 * zeros:.0f}% of back-to-back reads saw no step; "
        f"maximum SM clock {max_mhz} MHz (NVML)")
    plan = [*(("busy", ms) for ms in WINDOWS_MS), *(("idle", ms) for ms in WINDOWS_MS),
            *(("sgemm", float(n)) for n in SGEMM_SIZES)]
    for kind, size in plan:
        windows, nvml = _windows(kind, size, repeats, device, max_mhz)
        m.series.append(series_of(kind, size, windows, max_mhz, nvml))
        say(_said(m.series[-1], max_mhz))
    _windows("busy", 1.0, 50, device, max_mhz)   # reach the steady state before it is read
    windows, nvml = _windows("busy", 1.0, int(STEADY_MS), device, max_mhz)
    m.steady = series_of("busy", 1.0, windows, max_mhz, nvml)
    say("steady " + _said(m.steady, max_mhz))
    for ms in HOST_WINDOWS_MS:
        h = _host(device, ms)
        m.host.append(h)
        say(f"host {ms:.0f} ms: timer/host {h['timer_over_host']}, events/host {h['events_over_host']:.5f}")
    return m


def write(m: Measurement, out_dir: Path) -> Path:
    import json

    out_dir.mkdir(parents=True, exist_ok=True)
    slug = "".join(ch if ch.isalnum() else "-" for ch in m.device).strip("-").lower() or "device"
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = out_dir / f"clock-{slug}-{stamp}.json"
    path.write_text(json.dumps(m.to_json(), indent=1) + "\n")
    return path
