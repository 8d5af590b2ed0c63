"""Triton counterpart of the SGEMM summit ladder: one ``tl.dot`` kernel for every rung.

The CUDA rungs (rosetta_sgemm_coarsen_2d ... rosetta_sgemm_general) each add one decision a CUDA programmer makes
by hand: a bigger patch of C per thread, 128-bit loads, a transposed and padded A tile, warp tiles, cp.async
prefetch into several shared-memory stages, double-buffered register fragments, A copied through registers while B
goes by cp.async, grouped tile order, edge handling. In Triton these rungs are one kernel with different launch
settings:

* the output tile per program (``BLOCK_M`` x ``BLOCK_N``) and the K step (``BLOCK_K``) are the CUDA block tile;
* ``num_warps`` is the CUDA block's threads / 32;
* ``num_stages`` is the number of shared-memory stages (1: load, then compute; 2 and more: the compiler
  software-pipelines the loads, which is what sgemm_cp_async and sgemm_split_copy write out by hand);
* ``GROUP_M`` is the grouped (swizzled) program order of sgemm_general (1: row-major order);
* patch per thread, vector width, shared-memory layout (swizzled, so padding has no handle), warp tiling, register
  double buffering and how each operand travels to shared memory have no handle at all: the compiler's layout for
  ``tl.dot`` decides them.

The kernel is written the way Triton's matrix-multiplication tutorial is: pointer blocks for A and B advanced by one
K step per iteration, masks on every load and on the store, so it is correct for any M, N, K >= 1 (the CUDA rungs
below the top one need whole tiles; this kernel never does). ``tl.dot(..., input_precision="ieee")`` keeps the
products exact fp32 FFMA: Triton's default for fp32 is TF32 on tensor cores, which would not be the same computation.

Offsets are formed in 64 bits (``rows.to(tl.int64) * K``; the B pointer step ``BLOCK_K * N`` in int64), so matrices
past 2^31 elements are addressed correctly; under ``TRITON_INTERPRET=1`` this code path runs as is (the 64-bit casts
included) on small odd shapes such as 37 x 45 x 29.

BLAS semantics: with beta == 0, C is not read (it may hold NaN).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def sgemm_ladder_kernel(A, B, C, M, N, K, alpha, beta,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """C = alpha * A @ B + beta * C for row-major fp32 A (M x K), B (K x N), C (M x N); one BLOCK_M x BLOCK_N tile
    of C per program."""
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    if GROUP_M > 1:
        # Grouped order: consecutive programs walk down GROUP_M tile-rows before moving right, so the programs running
        # at one time share a few panels of A and B in L2 (sgemm_general's block renumbering).
        num_pid_in_group = GROUP_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
        pid_n = (pid % num_pid_in_group) // group_size_m
    else:
        # Row-major order, as a CUDA grid (N / BN, M / BM) is launched.
        pid_m = pid // num_pid_n
        pid_n = pid % num_pid_n

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    # 64-bit offsets: row * K and k * N pass 2^31 for large matrices even though M, N, K fit in int32.
    a_ptrs = A + rows[:, None].to(tl.int64) * K + ks[None, :]
    b_ptrs = B + ks[:, None].to(tl.int64) * N + cols[None, :]
    b_step = BLOCK_K * tl.cast(N, tl.int64)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        # Masked loads give zeros outside the matrices: rows past M, columns past N and the tail of the last K step
        # contribute nothing (the CUDA top rung gets the same zeros from cp.async's zero-fill).
        a = tl.load(a_ptrs, mask=(rows[:, None] < M) & (ks[None, :] < K - k0), other=0.0)
        b = tl.load(b_ptrs, mask=(ks[:, None] < K - k0) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K
        b_ptrs += b_step

    c_ptrs = C + rows[:, None].to(tl.int64) * N + cols[None, :]
    c_mask = (rows[:, None] < M) & (cols[None, :] < N)
    out = alpha * acc
    if beta != 0.0:
        out += beta * tl.load(c_ptrs, mask=c_mask, other=0.0)
    tl.store(c_ptrs, out, mask=c_mask)


KERNEL = sgemm_ladder_kernel
SIGNATURE = {"A": "*fp32", "B": "*fp32", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32",
             "alpha": "fp32", "beta": "fp32"}


def constexprs(block_m: int, block_n: int, block_k: int, group_m: int = 1, **other: object) -> dict:
    """The constexpr arguments for a configuration (``other``: launch settings such as num_warps, ignored here)."""
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "GROUP_M": group_m}


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           block_m: int, block_n: int, block_k: int, num_warps: int, num_stages: int, group_m: int = 1,
           **other: object):
    """Launch on row-major contiguous fp32 operands (checked by the caller, not here); returns the compiled kernel."""
    M, K = A.shape
    N = B.shape[1]
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n),)
    return sgemm_ladder_kernel[grid](A, B, C, M, N, K, alpha, beta, BLOCK_M=block_m, BLOCK_N=block_n,
                                     BLOCK_K=block_k, GROUP_M=group_m, num_warps=num_warps, num_stages=num_stages)


__all__ = ["KERNEL", "SIGNATURE", "constexprs", "launch"]
