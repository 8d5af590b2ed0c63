"""cuBLAS baselines through torch: fp32 math (TF32 off, checked), and a TF32 row labelled as such.

sgemm: C.addmm_(A, B, beta, alpha) (cuBLAS sgemm; with beta == 0, C is not read). sgemv: torch.mv on
row-major A, which calls cublasSgemv with the transposed column-major view, as seed 003 does
(CUBLAS_OP_T, lda = N).

The rows given B^T stored (baselines.CUBLAS_KMAJOR) pack B once at bind, as a K-major-B kernel's B is packed, outside
any timed region; the launch passes the packed N x K tensor's transposed view, which torch hands to cuBLAS as an
operand to transpose (no copy): cuBLAS's TN case for row-major A and C.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager

import torch

from harness.baselines import CUBLAS_BASELINES, b_layout_of
from harness.measure.operands import pack_b, problem_of

BASELINES = tuple(CUBLAS_BASELINES)


@contextmanager
def tf32_matmul(enabled: bool):
    flag = torch.backends.cuda.matmul
    before = flag.allow_tf32
    flag.allow_tf32 = enabled
    try:
        yield
    finally:
        flag.allow_tf32 = before


def bind(name: str, tensors: dict[str, torch.Tensor], alpha: float = 1.0, beta: float = 0.0,
         device_type: str = "cuda") -> Callable[[], None]:
    """A zero-argument launch of a baseline. On a CPU-only machine the same call is the vendor BLAS."""
    if name not in BASELINES:
        raise ValueError(f"unknown baseline {name!r}: expected one of {', '.join(BASELINES)}")
    tf32 = CUBLAS_BASELINES[name] == "tf32"
    problem_of(name, "sgemv" if "x" in tensors else "sgemm", tensors, alpha, beta, device_type)
    if "x" in tensors:
        A, x, y = tensors["A"], tensors["x"], tensors["y"]

        def gemv() -> None:
            torch.mv(A, x, out=y)

        return gemv
    A, B, C = tensors["A"], tensors["B"], tensors["C"]
    if b_layout_of(name) == "kmajor":
        B = pack_b(tensors)["B"].t()   # B^T stored, N x K; its transposed view is the K x N operand

    def gemm() -> None:
        with tf32_matmul(tf32):
            C.addmm_(A, B, beta=beta, alpha=alpha)

    return gemm


def fp32_is_default() -> bool:
    """torch must not be computing fp32 matmuls in TF32 behind our back."""
    return not torch.backends.cuda.matmul.allow_tf32
