"""Shared-memory block tile counterpart: BLOCK_M x BLOCK_K and BLOCK_K x BLOCK_N tiles into tl.dot.

The CUDA kernels stage tiles in __shared__ arrays with explicit loads, barriers and (v2) padding;
here the programmer writes only the tile shapes and the K loop. tl.dot with input_precision="ieee"
lowers to FFMA (no tensor cores, exact fp32 products); the compiler decides the shared-memory layout
(swizzled, so padding has no handle), the barriers, how many outputs each thread owns
(BLOCK_M*BLOCK_N / (32*num_warps)), and, with num_stages > 1, software pipelining of the loads.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernels_triton._gemm_parts import store_c_tile
from kernels_triton._launch import GEMM_SIGNATURE, launch_gemm


@triton.jit
def sgemm_tile_kernel(A, B, C, M, N, K, alpha, beta,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + ks
        a = tl.load(A + rows[:, None] * K + kk[None, :], mask=(rows[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(B + kk[:, None] * N + cols[None, :], mask=(kk[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    store_c_tile(C, acc, rows, cols, M, N, alpha, beta)


KERNEL = sgemm_tile_kernel
SIGNATURE = GEMM_SIGNATURE


def constexprs(block_m: int, block_n: int, block_k: int) -> dict:
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k}


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           block_m: int, block_n: int, block_k: int, num_warps: int, num_stages: int = 1) -> torch.Tensor:
    if min(block_m, block_n, block_k) < 16:
        raise ValueError(f"triton gemm_tile: tl.dot needs tiles of at least 16, got {block_m}x{block_n}x{block_k}")
    return launch_gemm("triton gemm_tile", sgemm_tile_kernel, A, B, C, alpha, beta, block_m, block_n,
                       num_warps, num_stages, BLOCK_K=block_k)


__all__ = ["KERNEL", "SIGNATURE", "constexprs", "launch"]
