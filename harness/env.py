"""What this machine can do: a GPU for real runs, or the CPU tier (Triton interpreter, compile reports).

Triton reads TRITON_INTERPRET when a kernel is defined, so the choice is made here, before anything
imports kernels_triton.
"""

from __future__ import annotations

import contextlib
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


def device_type() -> str:
    """Where operands live for this process: the interpreter's CPU, or the GPU."""
    return "cpu" if interpreting() else "cuda"


def use_interpreter_without_gpu() -> bool:
    """Switch Triton to its CPU interpreter when there is no GPU. Returns whether it is on."""
    if not has_gpu():
        os.environ["TRITON_INTERPRET"] = "1"
    return interpreting()


def versions() -> dict[str, str]:
    """The toolchain a run used: Python packages, the NVRTC the suite builds with, and where present nvcc and the
    GPU driver (nvcc is informational: nothing in the suite calls it)."""
    import shutil
    import subprocess

    from harness import __version__

    out = {"tile-rosetta": __version__}
    for name in ("torch", "triton", "cupy", "numpy"):
        try:
            out[name] = __import__(name).__version__
        except Exception:
            out[name] = "absent"
    try:
        from cuda.bindings import __version__ as bindings_version

        out["cuda-bindings"] = bindings_version
    except Exception:
        out["cuda-bindings"] = "absent"
    try:
        from harness.nvrtc import nvrtc_version

        out["nvrtc"] = nvrtc_version()
    except Exception:  # cuda-bindings or the NVRTC library missing: the build records say so
        pass
    commands = {"nvcc": (["nvcc", "--version"],
                         lambda t: next(ln for ln in t.splitlines() if "release" in ln).rsplit(",", 1)[-1].strip()),
                "driver": (["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                           lambda t: t.strip().splitlines()[0])}
    for name, (cmd, parse) in commands.items():
        if shutil.which(cmd[0]) is None:
            continue
        with contextlib.suppress(Exception):
            out[name] = parse(subprocess.run(cmd, capture_output=True, text=True, timeout=20, check=True).stdout)
    return out
