"""SGEMV counterpart: a program per BLOCK_M rows, BLOCK_N columns per step, tl.sum at the end.

The CUDA ladder differs in who walks a row: one thread (BLOCK_M = 1024, BLOCK_N = 1: neighbouring
threads read addresses N apart), one warp (BLOCK_M = 1, BLOCK_N = 32, num_warps = 1) or several warps
(BLOCK_N = threads or 4 x threads). The warp shuffles and the cross-warp shared-memory pass of the CUDA
kernels are what the compiler emits for tl.sum; 16-byte loads are its choice too, made when it can
prove the row stride (N) and the base pointer are 16-byte aligned. Row offsets are 64-bit, so A may
hold more than 2^31 elements.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def sgemv_rows_kernel(A, x, y, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        a = tl.load(A + rows[:, None] * N + cols[None, :], mask=(rows[:, None] < M) & (cols[None, :] < N),
                    other=0.0)
        xv = tl.load(x + cols, mask=cols < N, other=0.0)
        acc += a * xv[None, :]
    tl.store(y + rows, tl.sum(acc, axis=1), mask=rows < M)


KERNEL = sgemv_rows_kernel
SIGNATURE = {"A": "*fp32", "x": "*fp32", "y": "*fp32", "M": "i32", "N": "i32"}


def constexprs(block_m: int, block_n: int) -> dict:
    return {"BLOCK_M": block_m, "BLOCK_N": block_n}


def launch(A: torch.Tensor, x: torch.Tensor, y: torch.Tensor, *, block_m: int, block_n: int, num_warps: int,
           num_stages: int = 1):
    M, N = A.shape
    return sgemv_rows_kernel[(triton.cdiv(M, block_m),)](A, x, y, M, N, num_warps=num_warps, num_stages=num_stages,
                                                         **constexprs(block_m, block_n))
