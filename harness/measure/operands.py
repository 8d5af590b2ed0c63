"""Operand checks shared by every launcher: a clear ValueError before any launch, never a bad launch."""

from __future__ import annotations

import torch

from harness.problems import Problem


def _check_tensor(who: str, name: str, t: object, device_type: str) -> torch.Tensor:
    if not isinstance(t, torch.Tensor):
        raise ValueError(f"{who}: {name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype != torch.float32:
        raise ValueError(f"{who}: {name} has dtype {t.dtype}; these are fp32 kernels (torch.float32 only)")
    if t.device.type != device_type:
        raise ValueError(f"{who}: {name} is on {t.device}; this launch needs a {device_type} tensor")
    if t.numel() == 0:
        raise ValueError(f"{who}: {name} is empty (shape {tuple(t.shape)}); every dimension must be at least 1")
    if not t.is_contiguous():
        raise ValueError(
            f"{who}: {name} is not contiguous (strides {t.stride()}); the kernels assume dense row-major "
            f"storage: pass .contiguous()"
        )
    return t


def sgemm_problem(who: str, A: object, B: object, C: object, alpha: float, beta: float,
                  device_type: str = "cuda") -> Problem:
    """Check C = alpha*A@B + beta*C operands and return the problem they describe."""
    for name, t in (("A", A), ("B", B), ("C", C)):
        _check_tensor(who, name, t, device_type)
        if t.dim() != 2:
            raise ValueError(f"{who}: {name} must be 2-D, got shape {tuple(t.shape)}")
    (M, K), (K2, N), (Mc, Nc) = A.shape, B.shape, C.shape
    if K != K2:
        raise ValueError(f"{who}: inner dimensions differ: A is {M}x{K}, B is {K2}x{N}")
    if (Mc, Nc) != (M, N):
        raise ValueError(f"{who}: C is {Mc}x{Nc}, expected {M}x{N} for A {M}x{K} @ B {K}x{N}")
    if len({A.device, B.device, C.device}) != 1:
        raise ValueError(f"{who}: A, B and C must be on one device, got {A.device}, {B.device}, {C.device}")
    return Problem("sgemm", M, N, K, float(alpha), float(beta))


def sgemv_problem(who: str, A: object, x: object, y: object, device_type: str = "cuda") -> Problem:
    """Check y = A@x operands and return the problem they describe."""
    _check_tensor(who, "A", A, device_type)
    _check_tensor(who, "x", x, device_type)
    _check_tensor(who, "y", y, device_type)
    if A.dim() != 2 or x.dim() != 1 or y.dim() != 1:
        raise ValueError(f"{who}: need A 2-D, x and y 1-D; got {tuple(A.shape)}, {tuple(x.shape)}, {tuple(y.shape)}")
    M, N = A.shape
    if x.shape[0] != N:
        raise ValueError(f"{who}: x has {x.shape[0]} elements, A has {N} columns")
    if y.shape[0] != M:
        raise ValueError(f"{who}: y has {y.shape[0]} elements, A has {M} rows")
    if len({A.device, x.device, y.device}) != 1:
        raise ValueError(f"{who}: A, x and y must be on one device")
    return Problem("sgemv", M, N)


def problem_of(who: str, op: str, tensors: dict[str, object], alpha: float = 1.0, beta: float = 0.0,
               device_type: str = "cuda") -> Problem:
    """The problem a set of named operands describes, checked: one entry point for every launcher."""
    if op == "sgemv":
        if "x" not in tensors:
            raise ValueError(f"{who} is an sgemv implementation: it takes A, x, y")
        return sgemv_problem(who, tensors["A"], tensors["x"], tensors["y"], device_type)
    if "B" not in tensors:
        raise ValueError(f"{who} is an sgemm implementation: it takes A, B, C")
    return sgemm_problem(who, tensors["A"], tensors["B"], tensors["C"], alpha, beta, device_type)


def check_alignment(who: str, tensors: dict[str, torch.Tensor], aligned16: tuple[str, ...]) -> None:
    """16-byte vector accesses need aligned base pointers: a view that starts mid-vector is refused, not misread."""
    for name in aligned16:
        if name in tensors and tensors[name].data_ptr() % 16:
            raise ValueError(f"{who}: {name} starts at an address that is not 16-byte aligned (a view into a larger "
                             f"tensor?); this kernel reads it with 16-byte loads: pass .clone()")


def pack_b(tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """For kernels that read B K-major: B^T made contiguous (N x K), once, outside any timed region."""
    return {**tensors, "B": tensors["B"].t().contiguous()}


def fits_in_memory(who: str, problem: Problem, free_bytes: int) -> None:
    """Refuse a problem whose operands, reference and scratch cannot fit in device memory."""
    from harness.device.roofline import operand_bytes

    need = 4 * operand_bytes(problem)  # fp32 operands, fp64 reference (2x), one poisoned copy
    if need > free_bytes:
        raise ValueError(
            f"{who}: {problem.label} needs about {need / 2**30:.1f} GiB on the device "
            f"(operands, float64 reference, scratch); {free_bytes / 2**30:.1f} GiB is free"
        )
