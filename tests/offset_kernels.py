"""A kernel that indexes B in 32 bits (k * N as i32), for proving that the TTIR offset check can fail."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def b_index_32bit_kernel(A, B, C, M, N, K, BLOCK: tl.constexpr):
    rows = (tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K):
        a = tl.load(A + rows * K + k, mask=rows < M, other=0.0)
        b = tl.load(B + k * N + cols, mask=cols < N, other=0.0)  # k * N: a 32-bit product
        acc += a[:, None] * b[None, :]
    tl.store(C + rows[:, None] * N + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


SIGNATURE = {"A": "*fp32", "B": "*fp32", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32", "BLOCK": "constexpr"}
