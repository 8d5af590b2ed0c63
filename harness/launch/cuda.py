"""CUDA kernels through CuPy: compile each seed source once (NVRTC, name expressions), launch typed.

Operands are torch tensors; CuPy sees them zero-copy through DLPack, and every launch goes to torch's
current stream, so CuPy kernels, Triton kernels, cuBLAS and the timer's events are ordered on one
stream. Scalars are wrapped as np.int32 / np.float32: CuPy would otherwise pass Python ints and
floats as 64-bit values into 32-bit parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
import torch

from harness.operands import check_alignment, pack_b, problem_of
from harness.problems import Problem
from harness.registry import KERNELS, Kernel
from kernels_cuda import source_path

_INT_ARGS = {"M", "N", "K"}
_FLOAT_ARGS = {"alpha", "beta"}


@cache
def _module(source: str):
    """One RawModule per .cu file, holding every registered instantiation of it."""
    import cupy as cp

    code = source_path(source).read_text()
    names = sorted({k.symbol for k in KERNELS if k.source == source})
    return cp.RawModule(code=code, options=("-std=c++17",), name_expressions=names)


def function(kernel: Kernel):
    """The compiled CuPy function of a registry entry (compiles its source on first use)."""
    return _module(kernel.source).get_function(kernel.symbol)


def attributes(kernel: Kernel) -> dict[str, int]:
    """Registers, static shared and local memory per thread, as the driver reports them."""
    attrs = function(kernel).attributes
    return {"registers": int(attrs["num_regs"]), "shared_bytes": int(attrs["shared_size_bytes"]),
            "local_bytes": int(attrs["local_size_bytes"])}


def check_launch(kernel: Kernel, tensors: dict[str, torch.Tensor], alpha: float = 1.0,
                 beta: float = 0.0, device_type: str = "cuda") -> Problem:
    """Operand and precondition checks: a ValueError naming the kernel and the condition, before any launch.

    device_type exists so that the checks can be exercised on a machine with no GPU.
    """
    who = f"CUDA kernel {kernel.id}"
    problem = problem_of(who, kernel.op, tensors, alpha, beta, device_type)
    failed = kernel.unmet(problem)
    if failed:
        raise ValueError(f"{who} cannot run {problem.label}: " + "; ".join(failed))
    check_alignment(who, tensors, kernel.aligned16)
    return problem


def bind(kernel: Kernel, tensors: dict[str, torch.Tensor], alpha: float = 1.0,
         beta: float = 0.0) -> Callable[[], None]:
    """Check, then return a zero-argument launch of `kernel` on these tensors (nothing else in it)."""
    import cupy as cp

    problem = check_launch(kernel, tensors, alpha, beta)
    if kernel.b_layout == "kmajor":
        tensors = pack_b(tensors)
    fn = function(kernel)
    smem = kernel.dynamic_smem
    if smem > 48 * 1024:  # past the default per-block limit the function must opt in, once
        fn.max_dynamic_shared_size_bytes = smem
    views = {name: cp.from_dlpack(t) for name, t in tensors.items()}
    values = {"M": problem.M, "N": problem.N, "K": problem.K, "alpha": alpha, "beta": beta}
    args = []
    for name in kernel.args:
        if name in _INT_ARGS:
            args.append(np.int32(values[name]))
        elif name in _FLOAT_ARGS:
            args.append(np.float32(values[name]))
        else:
            args.append(views[name])
    args = tuple(args)
    grid, block = kernel.grid(problem), kernel.block
    stream = torch_stream(tensors["A"].device)

    def launch() -> None:
        with stream:
            fn(grid, block, args, shared_mem=smem)

    return launch


def torch_stream(device: torch.device):
    """torch's current stream as a CuPy stream, so that CuPy launches queue behind torch and Triton work."""
    import warnings

    import cupy as cp

    current = torch.cuda.current_stream(device)
    if hasattr(cp.cuda.Stream, "from_external") and hasattr(current, "__cuda_stream__"):
        return cp.cuda.Stream.from_external(current)
    with warnings.catch_warnings():  # CuPy 14 deprecates ExternalStream for from_external, which needs
        warnings.simplefilter("ignore", DeprecationWarning)  # a torch stream with __cuda_stream__
        return cp.cuda.ExternalStream(current.cuda_stream)


def run(kernel: Kernel, tensors: dict[str, torch.Tensor], alpha: float = 1.0, beta: float = 0.0) -> None:
    """Launch once (checked). The Python API for one CUDA kernel."""
    bind(kernel, tensors, alpha, beta)()
