"""The SIMT summit's tile with its product split in two along N: one A block and two B blocks a K step, two
``tl.dot`` into two accumulators of BLOCK_N / 2 columns each.

The same tile, K step, warps, stages and program order as the ladder's kernel (kernels_triton/gemm_ladder.py), the
same masks and 64-bit offsets, the same result: only the product is written as two dots instead of one. It is a
split the language can state, and it changes what the compiler makes of the dot: how it lays out the accumulator,
how wide its shared-memory reads are and in which order the FFMAs come, which is what decides the register-bank
conflicts that ptxas leaves in the main loop (harness/run/ablation.py measures what it moves on the summit).

BLAS semantics: with beta == 0, C is not read (it may hold NaN): at run time (a branch, as the ladder's kernel), or,
with ``read_c="beta"``, in a kernel compiled for beta == 0 that has no read of C at all.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernels_triton.gemm_ladder import SIGNATURE


@triton.jit
def _store(C, M, N, alpha, beta, rows, cols, acc, READ_C: tl.constexpr):
    c_ptrs = C + rows[:, None].to(tl.int64) * N + cols[None, :]
    c_mask = (rows[:, None] < M) & (cols[None, :] < N)
    out = alpha * acc
    if READ_C:  # noqa: SIM102 (a compile-time test: a kernel compiled without it has no read of C)
        if beta != 0.0:
            out += beta * tl.load(c_ptrs, mask=c_mask, other=0.0)
    tl.store(c_ptrs, out, mask=c_mask)


@triton.jit
def sgemm_split_kernel(A, B, C, M, N, K, alpha, beta,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                       READ_C: tl.constexpr = True):
    """C = alpha * A @ B + beta * C, one BLOCK_M x BLOCK_N tile per program as two halves of BLOCK_N / 2 columns."""
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n  # grouped order, as the ladder's kernel (GROUP_M 1: row-major)
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    HALF: tl.constexpr = BLOCK_N // 2
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols0 = pid_n * BLOCK_N + tl.arange(0, HALF)
    cols1 = cols0 + HALF
    ks = tl.arange(0, BLOCK_K)
    a_ptrs = A + rows[:, None].to(tl.int64) * K + ks[None, :]
    b0_ptrs = B + ks[:, None].to(tl.int64) * N + cols0[None, :]
    b1_ptrs = B + ks[:, None].to(tl.int64) * N + cols1[None, :]
    b_step = BLOCK_K * tl.cast(N, tl.int64)
    acc0 = tl.zeros((BLOCK_M, HALF), dtype=tl.float32)
    acc1 = tl.zeros((BLOCK_M, HALF), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(rows[:, None] < M) & (ks[None, :] < K - k0), other=0.0)
        b0 = tl.load(b0_ptrs, mask=(ks[:, None] < K - k0) & (cols0[None, :] < N), other=0.0)
        b1 = tl.load(b1_ptrs, mask=(ks[:, None] < K - k0) & (cols1[None, :] < N), other=0.0)
        acc0 = tl.dot(a, b0, acc0, input_precision="ieee")
        acc1 = tl.dot(a, b1, acc1, input_precision="ieee")
        a_ptrs += BLOCK_K
        b0_ptrs += b_step
        b1_ptrs += b_step
    _store(C, M, N, alpha, beta, rows, cols0, acc0, READ_C)
    _store(C, M, N, alpha, beta, rows, cols1, acc1, READ_C)


KERNEL = sgemm_split_kernel


def constexprs(block_m: int, block_n: int, block_k: int, group_m: int = 1, read_c: int | str = 1,
               **other: object) -> dict:
    """The constexpr arguments for a configuration (``other``: launch settings such as num_warps, ignored here);
    read_c "beta" is compiled ahead of time as a launch with beta == 0 compiles it."""
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "GROUP_M": group_m,
            "READ_C": read_c not in (0, "beta")}


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           block_m: int, block_n: int, block_k: int, num_warps: int, num_stages: int, group_m: int = 1,
           read_c: int | str = 1, **other: object):
    """Launch on row-major contiguous fp32 operands (checked by the caller, not here); returns the compiled kernel."""
    M, K = A.shape
    N = B.shape[1]
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n),)
    read = beta != 0.0 if read_c == "beta" else bool(read_c)
    return sgemm_split_kernel[grid](A, B, C, M, N, K, alpha, beta, BLOCK_M=block_m, BLOCK_N=block_n,
                                    BLOCK_K=block_k, GROUP_M=group_m, READ_C=read, num_warps=num_warps,
                                    num_stages=num_stages)


__all__ = ["KERNEL", "SIGNATURE", "constexprs", "launch"]
