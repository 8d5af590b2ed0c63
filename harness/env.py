"""What this machine can do: a GPU for real runs, or the CPU tier (Triton interpreter, compile reports).

Triton reads TRITON_INTERPRET when a kernel is defined, so the choice is made here, before anything
imports kernels_triton.
"""

from __future__ import annotations

import os
import shutil
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


def use_interpreter_without_gpu() -> bool:
    """Switch Triton to its CPU interpreter when there is no GPU. Returns whether it is on."""
    if not has_gpu():
        os.environ["TRITON_INTERPRET"] = "1"
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def has_nvcc() -> bool:
    return shutil.which("nvcc") is not None or any(
        os.path.exists(os.path.join(d, "bin", "nvcc")) for d in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda")
        if d)


def versions() -> dict[str, str]:
    out = {}
    for name in ("torch", "triton", "cupy", "numpy"):
        try:
            out[name] = __import__(name).__version__
        except Exception:
            out[name] = "absent"
    return out
