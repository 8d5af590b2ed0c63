"""Typed resource records (`records.Resources`) for a CUDA kernel, a Triton counterpart, or a GPU launch's handle.

Timings alone cannot say *why* a CUDA kernel and its Triton twin differ; the compilers' own
accounting can (register pressure, shared-memory footprint, spills, load widths, tensor-core
instructions). The CUDA side and the Triton side are compiled ahead of time for sm_90 with no GPU
(`compile_cuda`, `compile_triton`); a GPU run reads the handle its launch compiled. The lower-level
entry points are re-exported here for callers that want the untyped report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.device.kernel_resources import KernelResources, Resources
from harness.device.occupancy import Occupancy, sm90_occupancy
from harness.inspect.compile_cuda import built_resources, cuda_resources
from harness.inspect.compile_triton import TritonRequest, handle_resources, triton_resources, triton_resources_many
from harness.inspect.sass import SASS_KEYS, sass_mix
from harness.inspect.source_facts import source_facts
from harness.inspect.tools import find_tool
from harness.registry import Counterpart, Kernel, instantiations
from kernels_cuda import source_path

__all__ = [
    "SASS_KEYS",
    "KernelResources",
    "Occupancy",
    "counterpart_record",
    "counterpart_request",
    "counterpart_resources",
    "cuda_resources",
    "find_tool",
    "handle_record",
    "kernel_cuda_resources",
    "kernel_record",
    "sass_mix",
    "sm90_occupancy",
    "triton_resources",
    "triton_resources_many",
]

AOT_NOTE = "compiled ahead of time for sm_90 (pointers and sizes marked divisible by 16)"


def kernel_cuda_resources(kernel: Kernel, arch: str | None = None) -> KernelResources:
    """The kernel as the suite builds it (NVRTC, its source's module; sm_90a without a GPU), cached."""
    from harness import nvrtc

    built = nvrtc.module(kernel.source, instantiations(kernel), arch or nvrtc.CPU_TIER_ARCH)
    return built_resources(built, kernel.symbol)


def counterpart_request(kernel: Kernel, counterpart: Counterpart, arch: int = 90) -> TritonRequest:
    """The ahead-of-time compile of a counterpart with the launch settings its kernel implies.

    Pointers and int sizes are marked divisible by 16, as a launch specialises them at the default
    problems (every dimension a multiple of 16): the compiled code is the one those launches run.
    """
    from harness.launch import triton as launch_triton

    mod = launch_triton.module(counterpart, kernel)
    cfg = launch_triton.config(kernel, counterpart)
    cx = launch_triton.constexprs(kernel, counterpart)
    signature = {**mod.SIGNATURE, **dict.fromkeys(cx, "constexpr")}
    aligned = tuple(name for name, ty in mod.SIGNATURE.items() if ty.startswith("*") or ty == "i32")
    return TritonRequest(mod.KERNEL, signature, cx, int(cfg["num_warps"]), int(cfg.get("num_stages", 1)), arch,
                         aligned)


def counterpart_resources(pairs: Sequence[tuple[Kernel, Counterpart]],
                          return_errors: bool = False) -> list[KernelResources | Exception]:
    """Every (kernel, counterpart)'s AOT report, in order; uncached ones compile together (one child under
    the interpreter). With return_errors a counterpart that cannot be compiled gives its exception instead."""
    requests: list[TritonRequest | Exception] = []
    for k, c in pairs:
        try:
            requests.append(counterpart_request(k, c))
        except Exception as e:  # its settings cannot be derived: that counterpart's failure alone
            if not return_errors:
                raise
            requests.append(e)
    todo = [r for r in requests if isinstance(r, TritonRequest)]
    compiled = iter(triton_resources_many(todo, return_errors=return_errors))
    return [r if isinstance(r, Exception) else next(compiled) for r in requests]


def typed_record(r: KernelResources, threads: int, source: str, extra_facts: dict[str, int] | None = None,
                 config: dict | None = None, dynamic_shared: int = 0) -> Resources:
    """A compiled kernel's report as the typed record a result keeps, with its theoretical occupancy."""
    try:
        occupancy: float | None = r.occupancy(threads, dynamic_shared).fraction
    except ValueError:
        occupancy = None
    evidence: dict[str, int | bool] = {**r.facts, **(extra_facts or {})}
    return Resources(registers=r.registers, spills=r.spill_stores, shared_bytes=r.shared_bytes,
                     local_bytes=r.local_bytes, sass=dict(r.sass), occupancy=occupancy, source=source,
                     config=config, evidence=evidence or None, dynamic_shared=dynamic_shared)


def kernel_record(kernel: Kernel, arch: str | None = None) -> Resources:
    """The CUDA kernel's typed record (the suite's NVRTC build, no GPU needed), with its source facts as evidence."""
    from harness import nvrtc

    arch = arch or nvrtc.CPU_TIER_ARCH
    src = {f"src.{k}": v for k, v in source_facts(source_path(kernel.source)).items()}
    return typed_record(kernel_cuda_resources(kernel, arch), kernel.threads, f"NVRTC {nvrtc.nvrtc_version()} {arch}",
                        src, dynamic_shared=kernel.dynamic_smem)


def counterpart_record(kernel: Kernel, counterpart: Counterpart, resources: KernelResources | None = None) -> Resources:
    """A counterpart's typed record compiled ahead of time (pass `resources` when already compiled)."""
    from harness.launch import triton as launch_triton

    cfg = launch_triton.config(kernel, counterpart)
    r = resources if resources is not None else counterpart_resources([(kernel, counterpart)])[0]
    assert isinstance(r, KernelResources)  # failures raised above
    return typed_record(r, 32 * int(cfg["num_warps"]), AOT_NOTE, config=cfg)


def handle_record(handle: Any, config: dict | None = None) -> Resources:
    """The typed record of the kernel a GPU launch compiled (the handle `launch` returned)."""
    r = handle_resources(handle)
    threads = 32 * int(getattr(handle.metadata, "num_warps", (config or {}).get("num_warps", 1)))
    return typed_record(r, threads, "compiled by the GPU run (specialised on its arguments)", config=config)
