"""The device's peaks, measured not quoted: an FP32 FMA micro-kernel and a 1 GiB device-to-device copy."""

from __future__ import annotations

import torch

from harness.device.roofline import FP32, Peaks

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
    """FP32 FMA throughput from a micro-kernel and copy bandwidth from a 1 GiB device-to-device copy."""
    import cupy as cp
    import numpy as np

    from harness.launch.cuda import torch_stream
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

    t = time_gpu(fma, flush_l2=False, device=device)
    fma_flops = 2.0 * 8 * 16 * iters * threads * blocks
    n = 2**28  # 1 GiB of fp32: far past L2
    src = torch.ones(n, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    c = time_gpu(lambda: dst.copy_(src), flush_l2=False, device=device)
    return Peaks(fma_flops / (t.median_ms * 1e-3) / 1e12, 2 * n * FP32 / (c.median_ms * 1e-3) / 1e9, props.name)
