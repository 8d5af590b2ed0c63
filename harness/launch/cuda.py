"""CUDA kernels through CuPy: the suite's NVRTC build makes the cubin, CuPy loads it and launches, typed.

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

from harness import nvrtc
from harness.measure.operands import check_alignment, pack_b, problem_of
from harness.problems import Problem
from harness.registry import Kernel, instantiations

_INT_ARGS = {"M", "N", "K"}
_FLOAT_ARGS = {"alpha", "beta"}


@cache
def _module(source: str, names: tuple[str, ...], variant: str):
    """One loaded module per (.cu file, its instantiations, build variant).

    `cupy.RawModule(path=...)` loads the suite's cubin as it is; `RawModule(code=...)` is not used because CuPy
    would compile it again with its own flags (-ftz=true, sm_90).
    """
    import cupy as cp

    built = nvrtc.module(source, names, variant=variant)
    return built, cp.RawModule(path=str(built.cubin))


def function(kernel: Kernel, variant: str = "default"):
    """The loaded CuPy function of a kernel (built, or read from the build cache, on first use): the build of its
    source that holds every catalog instantiation of it, and its own."""
    built, mod = _module(kernel.source, instantiations(kernel), variant)
    return mod.get_function(built.lowered[kernel.symbol])


def attributes(kernel: Kernel, variant: str = "default") -> dict[str, int]:
    """Registers, static shared and local memory per thread, as the driver reports them."""
    attrs = function(kernel, variant).attributes
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
         beta: float = 0.0, variant: str = "default", cubin: tuple[str, str] | None = None) -> Callable[[], None]:
    """Check, then return a zero-argument launch of `kernel` on these tensors (nothing else in it).

    `variant` names a build of harness/nvrtc/options.py: "default" for every measurement, "cupy" for the study of
    CuPy's default flags. `cubin` (path, entry name) launches a cubin made elsewhere instead, in the same way (an
    ablation's: harness/run/ablation.py).
    """
    import cupy as cp

    problem = check_launch(kernel, tensors, alpha, beta)
    if kernel.b_layout == "kmajor":
        tensors = pack_b(tensors)
    fn = function(kernel, variant) if cubin is None else cp.RawModule(path=cubin[0]).get_function(cubin[1])
    smem = kernel.dynamic_smem
    if smem > 48 * 1024:  # past the default per-block limit the function must opt in, once
        fn.max_dynamic_shared_size_bytes = smem
    views = {name: cp.from_dlpack(t) for name, t in tensors.items()}
    values = {"M": problem.M, "N": problem.N, "K": problem.K, "alpha": alpha, "beta": beta}
    if "mapA" in kernel.args:  # TMA rungs: A is M x K, the packed Bt is N x K; boxes are the block's tile
        from harness.launch.tensor_maps import tensor_map

        views["mapA"] = tensor_map(tensors["A"], kernel.tile_m)
        views["mapB"] = tensor_map(tensors["B"], kernel.tile_n)
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
    if kernel.persistent:  # as many blocks as the tiles, at most one per SM: each walks its share of the tiles
        sms = torch.cuda.get_device_properties(tensors["A"].device).multi_processor_count
        grid = (min(sms, grid[0] * grid[1]), 1, 1)
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
