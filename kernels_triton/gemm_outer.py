"""Register outer-product counterpart, rank-1 form: acc += a[:, None] * b[None, :] over each K chunk.

The CUDA kernel copies a column of As and a row of Bs into register arrays a[], b[] and accumulates
their outer product. Triton cannot index a column out of a register tile, so each rank-1 step loads
its column of A and row of B from global memory (served by L1 after the first touch) and the
compiler keeps them in registers; the accumulator tile is split over threads by the layout.
UNROLL chooses tl.static_range (unrolled while tracing: the `i = 0; idx = i + tid` form) or
tl.range(loop_unroll_factor=1) (kept a loop: the `i = tid` form) for the inner chunk.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernels_triton._gemm_parts import rank1_update, store_c_tile
from kernels_triton._launch import GEMM_SIGNATURE, launch_gemm


@triton.jit
def sgemm_outer_kernel(A, B, C, M, N, K, alpha, beta, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr, UNROLL: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        if UNROLL:
            for kk in tl.static_range(BLOCK_K):
                acc = rank1_update(acc, A, B, rows, cols, k0 + kk, M, N, K)
        else:
            for kk in tl.range(0, BLOCK_K, loop_unroll_factor=1):
                acc = rank1_update(acc, A, B, rows, cols, k0 + kk, M, N, K)
    store_c_tile(C, acc, rows, cols, M, N, alpha, beta)


KERNEL = sgemm_outer_kernel
SIGNATURE = GEMM_SIGNATURE


def constexprs(block_m: int, block_n: int, block_k: int, unroll: bool = True) -> dict:
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "UNROLL": unroll}


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           block_m: int, block_n: int, block_k: int, unroll: bool = True, num_warps: int,
           num_stages: int = 1) -> torch.Tensor:
    return launch_gemm("triton gemm_outer", sgemm_outer_kernel, A, B, C, alpha, beta, block_m, block_n,
                       num_warps, num_stages, BLOCK_K=block_k, UNROLL=unroll)


__all__ = ["KERNEL", "SIGNATURE", "constexprs", "launch"]
