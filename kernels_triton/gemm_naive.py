"""Naive counterpart: no on-chip reuse, one K element per step, no tl.dot.

What Triton lets you express of "one thread per output": the program is the CUDA block, not the
thread. A program owns a BLOCK_M x BLOCK_N tile of C (configured as the CUDA block's 16x16 or 32x32
threads) and num_warps = threads / 32, so the thread count matches; but there is no threadIdx, and
which thread holds which accumulator is the compiler's layout, not the programmer's choice. What the
kernel does express is the naive data flow: each step reads one column of A and one row of B from
global memory (through L1/L2, as the CUDA kernel's loads do) and nothing is staged in shared memory.
Every offset that meets a stride is 64-bit (rows, and N as int64 so that k * N is too), so any one operand past
2^31 elements is addressed correctly.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def sgemm_naive_kernel(A, B, C, M, N, K, alpha, beta, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_n = tl.program_id(0)  # blockIdx.x: columns, as in the CUDA launch
    pid_m = tl.program_id(1)
    rows = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    n64 = tl.cast(N, tl.int64)  # k * N passes 2^31 when B does
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K):
        a = tl.load(A + rows * K + k, mask=rows < M, other=0.0)   # column k of A
        b = tl.load(B + k * n64 + cols, mask=cols < N, other=0.0)   # row k of B
        acc += a[:, None] * b[None, :]
    # C = alpha*acc + beta*C with BLAS semantics: C is not read when beta == 0, so NaN in C cannot leak.
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    c_ptrs = C + rows[:, None] * N + cols[None, :]
    out = alpha * acc
    if beta != 0.0:
        out += beta * tl.load(c_ptrs, mask=mask, other=0.0)
    tl.store(c_ptrs, out, mask=mask)


KERNEL = sgemm_naive_kernel
SIGNATURE = {"A": "*fp32", "B": "*fp32", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32", "alpha": "fp32",
             "beta": "fp32"}


def constexprs(block_m: int, block_n: int) -> dict:
    return {"BLOCK_M": block_m, "BLOCK_N": block_n}


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           block_m: int, block_n: int, num_warps: int, num_stages: int = 1):
    M, K = A.shape
    N = B.shape[1]
    grid = (triton.cdiv(N, block_n), triton.cdiv(M, block_m))
    return sgemm_naive_kernel[grid](A, B, C, M, N, K, alpha, beta, num_warps=num_warps, num_stages=num_stages,
                                    **constexprs(block_m, block_n))
