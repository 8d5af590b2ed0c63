"""Deliberately wrong GEMM kernels: each must be rejected by the numerics checks (tests prove it).

They are the tile counterpart with one bug each, so a pass would mean the checker is blind to it.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernels_triton import device_type
from kernels_triton._gemm_parts import store_c_tile


@triton.jit
def _wrong_tile_kernel(A, B, C, M, N, K, alpha, beta, BLOCK: tl.constexpr, BUG: tl.constexpr):
    if BUG == "swap_grid":   # program_id axes exchanged: rows come from the column axis
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
    else:
        pid_n = tl.program_id(0)
        pid_m = tl.program_id(1)
    rows = pid_m * BLOCK + tl.arange(0, BLOCK)
    cols = pid_n * BLOCK + tl.arange(0, BLOCK)
    ks = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    k_end = K - BLOCK if BUG == "skip_last_k" else K
    for k0 in range(0, k_end, BLOCK):
        kk = k0 + ks
        a = tl.load(A + rows[:, None] * K + kk[None, :], mask=(rows[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(B + kk[:, None] * N + cols[None, :], mask=(kk[:, None] < K) & (cols[None, :] < N), other=0.0)
        if BUG == "tf32":
            acc = tl.dot(a, b, acc, input_precision="tf32")
        else:
            acc = tl.dot(a, b, acc, input_precision="ieee")
    if BUG == "zeros":
        acc = acc * 0.0
    if BUG == "ignore_beta":
        store_c_tile(C, acc, rows, cols, M, N, alpha, 0.0)
    elif BUG == "skip_row":   # row 0 of C is never stored
        _store_skipping_row0(C, acc, rows, cols, M, N, alpha, beta)
    else:
        store_c_tile(C, acc, rows, cols, M, N, alpha, beta)


@triton.jit
def _store_skipping_row0(C, acc, rows, cols, M, N, alpha, beta):
    mask = (rows[:, None] > 0) & (rows[:, None] < M) & (cols[None, :] < N)
    ptrs = C + rows[:, None] * N + cols[None, :]
    out = alpha * acc
    if beta != 0.0:
        out += beta * tl.load(ptrs, mask=mask, other=0.0)
    tl.store(ptrs, out, mask=mask)


BUGS = ("swap_grid", "skip_last_k", "skip_row", "tf32", "zeros", "ignore_beta")


def launch(bug: str, A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float, beta: float) -> None:
    assert A.device.type == device_type()
    M, K = A.shape
    N = B.shape[1]
    block = 16
    _wrong_tile_kernel[(triton.cdiv(N, block), triton.cdiv(M, block))](A, B, C, M, N, K, alpha, beta, BLOCK=block,
                                                                       BUG=bug, num_warps=4)
