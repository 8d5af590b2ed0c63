"""Naive counterpart: no on-chip reuse, one K element per step, no tl.dot.

What Triton lets you express of "one thread per output": the program is the CUDA block, not the
thread. A program owns a BLOCK_M x BLOCK_N tile of C (configured as the CUDA block's 16x16 or 32x32
threads) and num_warps = threads / 32, so the thread count matches; but there is no threadIdx, and
which thread holds which accumulator is the compiler's layout, not the programmer's choice. What the
kernel does express is the naive data flow: each step reads one column of A and one row of B from
global memory (through L1/L2, as the CUDA kernel's loads do) and nothing is staged in shared memory.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernels_triton._gemm_parts import rank1_update, store_c_tile
from kernels_triton._launch import GEMM_SIGNATURE, launch_gemm


@triton.jit
def sgemm_naive_kernel(A, B, C, M, N, K, alpha, beta, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_n = tl.program_id(0)  # blockIdx.x: columns, as in the CUDA launch
    pid_m = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K):
        acc = rank1_update(acc, A, B, rows, cols, k, M, N, K)
    store_c_tile(C, acc, rows, cols, M, N, alpha, beta)


KERNEL = sgemm_naive_kernel
SIGNATURE = GEMM_SIGNATURE


def constexprs(block_m: int, block_n: int) -> dict:
    return {"BLOCK_M": block_m, "BLOCK_N": block_n}


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           block_m: int, block_n: int, num_warps: int, num_stages: int = 1) -> torch.Tensor:
    return launch_gemm("triton gemm_naive", sgemm_naive_kernel, A, B, C, alpha, beta, block_m, block_n,
                       num_warps, num_stages)


__all__ = ["KERNEL", "SIGNATURE", "constexprs", "launch"]
