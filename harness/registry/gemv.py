"""tile-rosetta's SGEMV steps after seed 003's cut-off: several warps per row, then 16-byte loads."""

from __future__ import annotations

from harness.preconditions import dims_fit_int32
from harness.registry.seeds import GEMV, ROWS
from harness.registry.types import Counterpart, Deviation, Kernel

_BASE = {"op": "sgemv", "seed": None, "args": GEMV, "reads_c_when_beta_zero": False, "tile_n": 0,
         "section": "tile-rosetta's step after kernel 2", "preconditions": (dims_fit_int32(),)}

KERNELS: tuple[Kernel, ...] = (
    Kernel(id="rosetta.sgemv_block_reduce<256>", idea="gemv_block", symbol="sgemv_block_reduce<256>",
           block=(256, 1, 1), tile_m=1, tile_k=256, counterparts=(ROWS,), **_BASE),
    # Per step a row's threads each take one float4 and the loop is unrolled 4 times: 16 floats per thread.
    Kernel(id="rosetta.sgemv_float4<256,1>", idea="gemv_vector", symbol="sgemv_float4<256, 1>", block=(256, 1, 1),
           tile_m=1, tile_k=256 * 16,
           counterparts=(Counterpart("rows", "gemv_rows", deviations={"block_n": Deviation(
               1024, "one float4 per thread per step: the CUDA kernel's 4x unroll is a per-thread loop Triton does "
                     "not expose, and the compiler keeps several loads in flight itself")}),), **_BASE),
    Kernel(id="rosetta.sgemv_float4<128,4>", idea="gemv_vector", symbol="sgemv_float4<128, 4>", block=(128, 1, 1),
           tile_m=4, tile_k=32 * 16, counterparts=(ROWS,), **_BASE),
)
