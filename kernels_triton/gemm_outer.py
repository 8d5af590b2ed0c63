"""Rank-1 form, deliberately different from the CUDA kernels it sits beside: acc += a[:, None] * b[None, :].

The CUDA kernels (register outer product, 2D coarsening, the unroll variants, seed 002's 2 x 2 tile) stage
tiles of A and B in shared memory and copy a column of As and a row of Bs into register arrays a[], b[]
before each rank-1 update. Triton has no handle for a shared-memory tile outside tl.dot (whose staged
counterpart is gemm_tile) and cannot index a column out of a register tile, so this form loads each
step's column of A and row of B straight from global memory (served by L1 after the first touch): the
same arithmetic with a different data movement, shown for what it costs and never taken as the idea's
best Triton (the registry labels it `design="deliberately different: ..."`).
UNROLL chooses tl.static_range (unrolled while tracing: the `i = 0; idx = i + tid` form) or
tl.range(loop_unroll_factor=1) (kept a loop: the `i = tid` form) for the inner chunk.
Offsets are 64-bit (rows, and N as int64 so that k * N is too), so any one operand past 2^31
elements is addressed correctly.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def rank1_step(acc, A, B, rows, cols, k, M, N, K, n64):
    """acc += A[rows, k] (x) B[k, cols]: one column of A and one row of B, straight from global memory."""
    # k < K is written on vectors (rows * 0 + k): the CPU interpreter rejects a scalar term in a mask.
    a = tl.load(A + rows * K + k, mask=(rows < M) & (rows * 0 + k < K), other=0.0)
    b = tl.load(B + k * n64 + cols, mask=(cols < N) & (cols * 0 + k < K), other=0.0)
    return acc + a[:, None] * b[None, :]


@triton.jit
def sgemm_outer_kernel(A, B, C, M, N, K, alpha, beta, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr, UNROLL: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    rows = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    n64 = tl.cast(N, tl.int64)  # k * N passes 2^31 when B does
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        if UNROLL:
            for kk in tl.static_range(BLOCK_K):
                acc = rank1_step(acc, A, B, rows, cols, k0 + kk, M, N, K, n64)
        else:
            for kk in tl.range(0, BLOCK_K, loop_unroll_factor=1):
                acc = rank1_step(acc, A, B, rows, cols, k0 + kk, M, N, K, n64)
    # C = alpha*acc + beta*C with BLAS semantics: C is not read when beta == 0, so NaN in C cannot leak.
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    c_ptrs = C + rows[:, None] * N + cols[None, :]
    out = alpha * acc
    if beta != 0.0:
        out += beta * tl.load(c_ptrs, mask=mask, other=0.0)
    tl.store(c_ptrs, out, mask=mask)


KERNEL = sgemm_outer_kernel
SIGNATURE = {"A": "*fp32", "B": "*fp32", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32", "alpha": "fp32",
             "beta": "fp32"}


def constexprs(block_m: int, block_n: int, block_k: int, unroll: bool = True) -> dict:
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "UNROLL": unroll}


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           block_m: int, block_n: int, block_k: int, num_warps: int, num_stages: int = 1, unroll: bool = True):
    M, K = A.shape
    N = B.shape[1]
    grid = (triton.cdiv(N, block_n), triton.cdiv(M, block_m))
    return sgemm_outer_kernel[grid](A, B, C, M, N, K, alpha, beta, num_warps=num_warps, num_stages=num_stages,
                                    **constexprs(block_m, block_n, block_k, unroll))
