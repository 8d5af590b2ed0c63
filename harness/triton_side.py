"""Triton counterparts: launch from a registry entry, and read what the compiler chose.

Named triton_side so that it never shadows the `triton` package.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType

import torch

from harness.registry import Counterpart, Kernel


def module(counterpart: Counterpart) -> ModuleType:
    return importlib.import_module(f"kernels_triton.{counterpart.module}")


def bind(kernel: Kernel, counterpart: Counterpart, tensors: dict[str, torch.Tensor], alpha: float = 1.0,
         beta: float = 0.0) -> Callable[[], None]:
    """A zero-argument launch of the counterpart on these tensors (the wrapper checks every call)."""
    mod = module(counterpart)
    opts = {**counterpart.params, "num_warps": counterpart.num_warps, "num_stages": counterpart.num_stages}
    if kernel.op == "sgemv":
        A, x, y = tensors["A"], tensors["x"], tensors["y"]
        return lambda: mod.launch(A, x, y, **opts)
    A, B, C = tensors["A"], tensors["B"], tensors["C"]
    return lambda: mod.launch(A, B, C, alpha, beta, **opts)


def constexprs(counterpart: Counterpart) -> dict:
    return module(counterpart).constexprs(**counterpart.params)


def compiled_resources(counterpart: Counterpart) -> dict | None:
    """Registers, spills, shared memory and SASS mix of the kernel the last GPU launch compiled."""
    from harness.resources import sass_mix
    from kernels_triton._launch import LAST_COMPILED

    compiled = LAST_COMPILED.get(module(counterpart).KERNEL.__name__)
    if compiled is None:
        return None
    return {"registers": int(compiled.n_regs), "spills": int(compiled.n_spills),
            "shared_bytes": int(compiled.metadata.shared), "sass": sass_mix(compiled.asm["cubin"]),
            "source": "compiled by the GPU run (specialised on its arguments)"}


def aot_resources(counterpart: Counterpart, arch: int = 90) -> dict:
    """The same, compiled ahead of time for sm_<arch> with no GPU.

    Pointers and sizes are marked divisible by 16, as a launch specialises them at the default problems
    (every dimension a multiple of 1024): the compiled code is the one those launches run.
    """
    from harness.resources import triton_resources

    mod = module(counterpart)
    signature = {**mod.SIGNATURE, **{name: "constexpr" for name in constexprs(counterpart)}}
    aligned = [name for name, ty in mod.SIGNATURE.items() if ty.startswith("*") or ty == "i32"]
    r = triton_resources(mod.KERNEL, signature, constexprs(counterpart), counterpart.num_warps,
                         counterpart.num_stages, arch, divisible_by_16=aligned)
    return {"registers": r.registers, "spills": r.spill_stores, "shared_bytes": r.shared_bytes, "sass": r.sass,
            "source": f"compiled ahead of time for sm_{arch} (pointers and sizes marked divisible by 16)"}
