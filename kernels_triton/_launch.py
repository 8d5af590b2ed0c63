"""The checking, launching half of every GEMM counterpart wrapper."""

from __future__ import annotations

import torch
import triton

from harness.operands import sgemm_problem
from kernels_triton import device_type, interpreting

# The compiled kernel of each counterpart's latest launch (GPU only): its registers, spills, shared
# memory and SASS are what the harness reports, specialisation on the actual arguments included.
LAST_COMPILED: dict[str, object] = {}


def remember(kernel, compiled) -> None:
    if compiled is not None and not interpreting():
        LAST_COMPILED[kernel.__name__] = compiled


def launch_gemm(who: str, kernel, A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float, beta: float,
                block_m: int, block_n: int, num_warps: int, num_stages: int = 1, **constexprs) -> torch.Tensor:
    p = sgemm_problem(who, A, B, C, alpha, beta, device_type())
    grid = (triton.cdiv(p.N, block_n), triton.cdiv(p.M, block_m))
    remember(kernel, kernel[grid](A, B, C, p.M, p.N, p.K, p.alpha, p.beta, BLOCK_M=block_m, BLOCK_N=block_n,
                 num_warps=num_warps, num_stages=num_stages, **constexprs))
    return C


GEMM_SIGNATURE = {"A": "*fp32", "B": "*fp32", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32",
                  "alpha": "fp32", "beta": "fp32"}
