"""A worker measuring function whose CUDA naive SGEMV writes far out of bounds (an illegal address):
the worker's context dies with it; the implementations after it must still be measured and pass."""

from __future__ import annotations

from harness.identity import ImplId
from harness.run.work import measure_one as real_measure
from harness.run.work import setup, time_pending  # noqa: F401 - the worker looks for both beside measure_one()

OUT_OF_BOUNDS = ("s003.naive_sgemv", ImplId("cuda"))
_SOURCE = r'extern "C" __global__ void write_far(float* p) { p[(1ull << 40) + threadIdx.x] = 1.0f; }'


def measure_one(state, problem, key):
    if (key.kernel, key.impl) == OUT_OF_BOUNDS:
        import cupy as cp

        p = cp.zeros(32, dtype=cp.float32)
        cp.RawKernel(_SOURCE, "write_far")((1,), (32,), (p,))
        cp.cuda.runtime.deviceSynchronize()  # raises: an illegal memory access was encountered
    return real_measure(state, problem, key)
