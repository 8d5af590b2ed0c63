"""Shared-memory block tile counterpart: BLOCK_M x BLOCK_K and BLOCK_K x BLOCK_N tiles into tl.dot.

The CUDA kernels stage tiles in __shared__ arrays with explicit loads, barriers and (v2) padding;
here the programmer writes only the tile shapes and the K loop. tl.dot with input_precision="ieee"
lowers to FFMA (no tensor cores, exact fp32 products); the compiler decides the shared-memory layout
(swizzled, so padding has no handle), the barriers, how many outputs each thread owns
(BLOCK_M*BLOCK_N / (32*num_warps)), and, with num_stages > 1, software pipelining of the loads.
Offsets are 64-bit (row * K, k * N and the B step BLOCK_K * N), so any one operand past 2^31 elements is
addressed correctly.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def sgemm_tile_kernel(A, B, C, M, N, K, alpha, beta,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    rows = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a_ptrs = A + rows[:, None] * K + ks[None, :]       # the A tile of this K step
    b_ptrs = B + ks[:, None].to(tl.int64) * N + cols[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(rows[:, None] < M) & (ks[None, :] < K - k0), other=0.0)
        b = tl.load(b_ptrs, mask=(ks[:, None] < K - k0) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * tl.cast(N, tl.int64)
    # C = alpha*acc + beta*C with BLAS semantics: C is not read when beta == 0, so NaN in C cannot leak.
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    c_ptrs = C + rows[:, None] * N + cols[None, :]
    out = alpha * acc
    if beta != 0.0:
        out += beta * tl.load(c_ptrs, mask=mask, other=0.0)
    tl.store(c_ptrs, out, mask=mask)


KERNEL = sgemm_tile_kernel
SIGNATURE = {"A": "*fp32", "B": "*fp32", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32", "alpha": "fp32",
             "beta": "fp32"}


def constexprs(block_m: int, block_n: int, block_k: int) -> dict:
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k}


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           block_m: int, block_n: int, block_k: int, num_warps: int, num_stages: int = 1):
    M, K = A.shape
    N = B.shape[1]
    grid = (triton.cdiv(N, block_n), triton.cdiv(M, block_m))
    return sgemm_tile_kernel[grid](A, B, C, M, N, K, alpha, beta, num_warps=num_warps, num_stages=num_stages,
                                   **constexprs(block_m, block_n, block_k))
