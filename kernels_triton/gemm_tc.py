"""Tensor-core counterpart of rosetta_tc_gemm: one ``tl.dot`` kernel for TF32 and 3xTF32, B row-major or K-major.

The CUDA kernels spell out what the tensor cores need: mma.sync fragments, ldmatrix for 32-bit operands, a permuted
B fragment because tf32 has no transposing ldmatrix, cp.async stages, a swizzled shared layout, and the 3xTF32 split
of every operand into a tf32 high part and a tf32 remainder. Here all of it is one argument:

* ``tl.dot(a, b, acc, input_precision="tf32")`` runs the tensor cores on the fp32 tiles as they are: the PTX has no
  conversion instruction, and the MMA reads only the top 19 bits of each operand, so the low 13 mantissa bits are
  dropped (truncation, not the round to nearest of the CUDA kernel's cvt.rn.tf32.f32; its TF32 error is larger);
* ``input_precision="tf32x3"`` makes the compiler split each tile into big + small (big = cvt.rna.tf32.f32, round to
  nearest with ties away) and issue three dots (small*big, big*small, big*big), which is fp32-accurate;
* which tensor-core instruction is used is the compiler's choice: on Hopper, wgmma (HGMMA) reads B from shared memory
  and its tf32 form has no transpose, so the B tile must be K-major there. With K-major B in global memory
  (``B_KMAJOR``: the kernel is given Bt = B^T, N x K contiguous) the tile is copied as it is, 16 bytes per cp.async.
  With row-major B, Triton 3.6 still emits HGMMA but fills the K-major tile with 4-byte cp.async (60 LDGSTS in the
  128 x 128 x 32 kernel against 24): the load/store unit throttles (ncu: long-scoreboard and LSU-throttle stalls) and
  TF32 runs at a third of the K-major speed. For tf32x3 it splits B in registers and stores the parts back
  transposed, with heavy shared-memory bank conflicts; packing B once costs less than either.

Tile, K step, warps and pipeline depth are the launch settings (``BLOCK_M``, ``BLOCK_N``, ``BLOCK_K``, ``num_warps``,
``num_stages``); ``GROUP_M`` is the grouped program order the CUDA kernel also uses. The kernel is written the way
Triton's matrix-multiplication tutorial is: pointer blocks advanced by one K step per iteration and masks on every
load and on the store, so any M, N, K >= 1 is computed (a masked load gives zeros, which add nothing). Offsets are
formed in 64 bits, so matrices past 2^31 elements are addressed correctly. With beta == 0, C is not read.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def gemm_tc_kernel(A, B, C, M, N, K, alpha, beta,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                   B_KMAJOR: tl.constexpr, INPUT_PRECISION: tl.constexpr):
    """C = alpha * A @ B + beta * C; A is M x K row-major, C is M x N row-major; B is K x N row-major, or, with
    B_KMAJOR, the operand is Bt = B^T stored N x K row-major (each column of B contiguous)."""
    # Grouped program order: consecutive programs walk down GROUP_M tile-rows before moving right, so the programs
    # running at one time share a few panels of A and B in L2.
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    # 64-bit offsets: row * K, k * N and col * K pass 2^31 for large matrices even though M, N, K fit in int32.
    a_ptrs = A + rows[:, None].to(tl.int64) * K + ks[None, :]
    if B_KMAJOR:
        # element (k, n) of B is Bt[n, k]: the tile is read along k, the contiguous direction
        b_ptrs = B + cols[None, :].to(tl.int64) * K + ks[:, None]
        b_step = tl.cast(BLOCK_K, tl.int64)
    else:
        b_ptrs = B + ks[:, None].to(tl.int64) * N + cols[None, :]
        b_step = BLOCK_K * tl.cast(N, tl.int64)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(rows[:, None] < M) & (ks[None, :] < K - k0), other=0.0)
        b = tl.load(b_ptrs, mask=(ks[:, None] < K - k0) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)
        a_ptrs += BLOCK_K
        b_ptrs += b_step

    c_ptrs = C + rows[:, None].to(tl.int64) * N + cols[None, :]
    c_mask = (rows[:, None] < M) & (cols[None, :] < N)
    out = alpha * acc
    if beta != 0.0:
        out += beta * tl.load(c_ptrs, mask=c_mask, other=0.0)
    tl.store(c_ptrs, out, mask=c_mask)


KERNEL = gemm_tc_kernel
SIGNATURE = {"A": "*fp32", "B": "*fp32", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32", "alpha": "fp32",
             "beta": "fp32"}


def constexprs(block_m: int, block_n: int, block_k: int, *, group_m: int = 8, b_kmajor: bool = False,
               input_precision: str = "tf32") -> dict:
    """The kernel's constexpr arguments (for ahead-of-time compilation and for launch)."""
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "GROUP_M": group_m, "B_KMAJOR": b_kmajor,
            "INPUT_PRECISION": input_precision}


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           block_m: int, block_n: int, block_k: int, num_warps: int, num_stages: int, group_m: int = 8,
           b_kmajor: bool = False, input_precision: str = "tf32"):
    """Start the kernel on one problem; B is Bt (N x K) when b_kmajor. Returns the compiled handle."""
    M, K = A.shape
    N = C.shape[1]
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n),)
    return gemm_tc_kernel[grid](A, B, C, M, N, K, alpha, beta, num_warps=num_warps, num_stages=num_stages,
                                **constexprs(block_m, block_n, block_k, group_m=group_m, b_kmajor=b_kmajor,
                                             input_precision=input_precision))


__all__ = ["KERNEL", "SIGNATURE", "constexprs", "launch"]
