"""What this machine can do: a GPU for real runs, or the CPU tier (Triton interpreter, compile reports).

Triton reads TRITON_INTERPRET when a kernel is defined, so the choice is made here, before anything
imports kernels_triton.
"""

from __future__ import annotations

import os
from functools import cache


@cache
def gpu_reason() -> str | None:
    """None when a CUDA GPU and CuPy are usable; otherwise why not, in words."""
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "no CUDA GPU is visible to torch"
    try:
        import cupy  # noqa: F401
    except ImportError:
        return "CuPy is not installed (pip install -e '.[cuda13]' or '.[cuda12]')"
    return None


def has_gpu() -> bool:
    return gpu_reason() is None


def interpreting() -> bool:
    """True when Triton runs kernels in its CPU interpreter (operands are then CPU tensors)."""
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def use_interpreter_without_gpu() -> bool:
    """Switch Triton to its CPU interpreter when there is no GPU. Returns whether it is on."""
    if not has_gpu():
        os.environ["TRITON_INTERPRET"] = "1"
    return interpreting()
