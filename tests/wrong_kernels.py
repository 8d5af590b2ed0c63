"""Deliberately wrong GEMM kernels: each must be rejected by the numerics checks (tests prove it).

They are the tile counterpart with one bug each, so a pass would mean the checker is blind to it.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from harness import env
from harness.launch import interpreter_precision
from harness.launch.implementations import Impl
from harness.problems import Problem


@triton.jit
def _bf16_rn(x):
    # fp32 -> bf16 -> fp32, rounded to nearest even on the bit pattern (cvt.rn.bf16.f32's rounding): the interpreter's
    # own cast to bf16 truncates, which would make the variant worse than Triton's bf16x3 and prove less
    bits = x.to(tl.int32, bitcast=True)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & -65536
    return bits.to(tl.float32, bitcast=True)


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
        elif BUG == "bf16x3_dot":  # Triton's own bf16x3 on a row declared fp32
            acc = tl.dot(a, b, acc, input_precision="bf16x3")
        elif BUG == "bf16x3":
            # Triton's bf16x3 split written out, so the interpreter computes it too: two bf16 parts per operand
            # (rounded to nearest), three products whose fp32 results are exact, mid*mid dropped
            a_hi = _bf16_rn(a)
            a_mid = _bf16_rn(a - a_hi)
            b_hi = _bf16_rn(b)
            b_mid = _bf16_rn(b - b_hi)
            part = tl.dot(a_mid, b_hi, input_precision="ieee")
            part = tl.dot(a_hi, b_mid, part, input_precision="ieee")
            acc += tl.dot(a_hi, b_hi, part, input_precision="ieee")
        else:
            acc = tl.dot(a, b, acc, input_precision="ieee")
    if BUG == "zeros":
        acc = acc * 0.0
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    if BUG == "skip_row":   # row 0 of C is never stored
        mask = mask & (rows[:, None] > 0)
    ptrs = C + rows[:, None] * N + cols[None, :]
    out = alpha * acc
    if beta != 0.0 and BUG != "ignore_beta":
        out += beta * tl.load(ptrs, mask=mask, other=0.0)
    tl.store(ptrs, out, mask=mask)


BUGS = ("swap_grid", "skip_last_k", "skip_row", "tf32", "zeros", "ignore_beta", "bf16x3", "bf16x3_dot")
# Bugs of a reduced-precision tl.dot, which the interpreter computes at its precision once it rounds that class
# (harness/launch/interpreter_precision.py)
REDUCED_PRECISION = {"tf32": "tf32", "bf16x3_dot": "bf16x3"}


def launch(bug: str, A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float, beta: float) -> None:
    M, K = A.shape
    N = B.shape[1]
    block = 16
    _wrong_tile_kernel[(triton.cdiv(N, block), triton.cdiv(M, block))](A, B, C, M, N, K, alpha, beta, BLOCK=block,
                                                                       BUG=bug, num_warps=4)


class WrongImpl(Impl):
    """An implementation with one bug, seen by the runner's checker exactly as a registered one is."""

    def __init__(self, bug: str) -> None:
        super().__init__(f"triton:wrong-{bug}", "sgemm")
        object.__setattr__(self, "bug", bug)

    @property
    def computes_alpha_beta(self) -> bool:
        return True

    def unmet(self, problem: Problem) -> list[str]:
        return []

    def bind(self, tensors: dict, alpha: float = 1.0, beta: float = 0.0, device_type: str = "cuda", tune: bool = True):
        if env.interpreting():  # its reduced-precision dots rounded as the GPU's
            interpreter_precision.install()
        A, B, C = tensors["A"], tensors["B"], tensors["C"]
        return lambda: launch(self.bug, A, B, C, alpha, beta)
