"""The device's peaks, measured not quoted, at a worker's start: an FP32 FMA micro-kernel with the SM clock it ran at,
a 1 GiB device-to-device copy, and the SM clock probe's own error by window length.

The FMA peak is timed by the suite's rounds (harness/measure/rounds.py), so each of its runs has the clock the probe
read over it: a peak is only as high as the clock it ran at. A GPU just out of idle can run it well under its
maximum clock (results/...20261127T012026Z recorded 55.4 TFLOP/s, 1.64 GHz effective, where 31 of 37 H100 files read
65.0-65.7), so a peak whose clock is more than PEAK_CLOCK_DROP below the GPU's maximum is measured again, after a
warm-up, up to PEAK_TRIES times; the record keeps the clock and the tries, and the page flags a peak whose clock still
lies that far below the rows' (harness/analysis/clock.py peak_clock).

The probe's error is measured as `rosetta clock --measure` measures it (harness/run/clock_error.py), briefly: windows
of a few lengths, each read by the probe and, on a host thread, by NVML's clock; the error at a length is the 95th
percentile of |probe / NVML - 1| over its windows (with a window of real work, cuBLAS fp32 at 4096^3, folded into the
length under its own). A cycles call rests on it (harness/analysis/verdicts.py); where NVML is missing it is None, and
no comparison of the run is called in cycles.
"""

from __future__ import annotations

import torch

from harness.device.roofline import FP32, Peaks

PEAK_CLOCK_DROP = 0.05      # a peak whose clock lies more than this under the maximum is measured again
PEAK_TRIES = 3
WARM_UP_MS = 300.0          # FMA work before a measurement taken again: the clock ramps up under load
PROBE_WINDOWS_MS = (0.05, 0.3, 3.0)
PROBE_SERIES_MS = 100.0     # each length's windows span about this long, so that NVML is read several times
PROBE_SGEMM = 4096

_FMA_SOURCE = r"""
extern "C" __global__ void fma_peak(float* out, float a, float b, int iters) {
    // Eight independent chains per thread: enough instruction-level parallelism to fill the FMA pipes.
    float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6,
          x7 = x0 + 7;
    for (int i = 0; i < iters; ++i) {
        #pragma unroll
        for (int j = 0; j < 16; ++j) {
            x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
            x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b);
        }
    }
    float s = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
    if (s == 1234.5f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;  // keeps the chains alive
}
"""


def measure_peaks(device: torch.device | None = None) -> Peaks:
    """FP32 FMA throughput with its clock, copy bandwidth, and the clock probe's error (the module's docstring)."""
    import cupy as cp
    import numpy as np

    from harness.launch.cuda import torch_stream
    from harness.measure.rounds import Entry, interleave
    from harness.measure.sm_clock import max_sm_clock_mhz
    from harness.measure.timing import time_gpu

    device = device or torch.device("cuda", torch.cuda.current_device())
    props = torch.cuda.get_device_properties(device)
    kernel = cp.RawKernel(_FMA_SOURCE, "fma_peak")
    threads, blocks, iters = 256, props.multi_processor_count * 8, 2048
    out = cp.empty(threads * blocks, dtype=cp.float32)
    args = (out, np.float32(0.999), np.float32(0.001), np.int32(iters))
    stream = torch_stream(device)

    def fma() -> None:
        with stream:
            kernel((blocks,), (threads,), args)

    fma_flops = 2.0 * 8 * 16 * iters * threads * blocks
    top = max_sm_clock_mhz(device)
    estimate = time_gpu(fma, flush_l2=False, device=device).median_ms
    for tries in range(1, PEAK_TRIES + 1):
        samples = interleave([Entry("fma", fma, estimate)], rounds=3, device=device, flush_l2=False,
                             energy=False)["fma"]
        clock = samples.mean_mhz
        if clock is None or top is None or clock >= (1 - PEAK_CLOCK_DROP) * top or tries == PEAK_TRIES:
            break
        time_gpu(fma, warmup_ms=WARM_UP_MS, rep_ms=1.0, min_runs=1, flush_l2=False, device=device)
    fma_ms = float(np.median(samples.ms))
    n = 2**28  # 1 GiB of fp32: far past L2
    src = torch.ones(n, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    c = time_gpu(lambda: dst.copy_(src), flush_l2=False, device=device)
    src = dst = None  # 2 GiB freed before the probe's windows
    return Peaks(fma_flops / (fma_ms * 1e-3) / 1e12, 2 * n * FP32 / (c.median_ms * 1e-3) / 1e9, props.name,
                 clock, tries, probe_error(device, top))


def probe_error(device: torch.device, max_mhz: float | None) -> dict[float, float] | None:
    """The probe's error by window length (ms -> relative error; harness/run/clock_error.py's series); None where NVML
    gave no clock to measure it against."""
    from harness.run.clock_error import _windows, series_of

    found: dict[float, float] = {}
    for ms in PROBE_WINDOWS_MS:
        windows, nvml = _windows("busy", ms, max(20, int(PROBE_SERIES_MS / ms)), device, max_mhz)
        s = series_of("busy", ms, windows, max_mhz, nvml)
        if s.p95 is None:
            return None
        found[ms] = s.p95
    windows, nvml = _windows("sgemm", float(PROBE_SGEMM), 30, device, max_mhz)
    s = series_of("sgemm", float(PROBE_SGEMM), windows, max_mhz, nvml)
    if s.p95 is None:
        return None
    at = max((ms for ms in found if ms <= s.event_ms), default=min(found))
    found[at] = max(found[at], s.p95)
    return found
