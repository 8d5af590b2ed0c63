"""Gluon counterparts compiled ahead of time for sm_90a with no GPU: registers, spills, shared memory, the SASS mix and
the ttgir facts, as for a Triton counterpart (harness/inspect/compile_triton.py does the compiling, from Gluon's AST
source), and the typed record a run keeps.

The compile is the one a launch makes at the default problems: pointers and int sizes marked divisible by 16, the
tensor descriptors typed as the launch types them. Where the installed Triton has no usable Gluon, every request
fails with the one line that says why (kernels_gluon/compat.py), and the other columns are untouched.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.catalog_types.gluon import GluonCounterpart
from harness.device.kernel_resources import KernelResources, Resources
from harness.inspect.compile_triton import TritonRequest, triton_resources_many
from harness.registry import Kernel

AOT_NOTE = "Gluon, compiled ahead of time for sm_90a (pointers and sizes marked divisible by 16)"


def gluon_request(kernel: Kernel, form: GluonCounterpart, arch: int = 90) -> TritonRequest:
    """The ahead-of-time compile of a Gluon form with the settings its CUDA kernel gives it."""
    from harness.launch.gluon import module

    mod = module(form)
    settings = form.config(kernel)
    fn = mod.kernel(**settings) if hasattr(mod, "kernel") else mod.KERNEL
    signature = mod.signature(**settings)
    cx = mod.constexprs(**settings)
    aligned = tuple(name for name, ty in signature.items() if ty.startswith("*") or ty == "i32")
    options = mod.options(**settings) if hasattr(mod, "options") else {}
    return TritonRequest(fn, {**signature, **dict.fromkeys(cx, "constexpr")}, cx, int(mod.num_warps(**settings)), 1,
                         arch, aligned, options)


def gluon_resources(pairs: Sequence[tuple[Kernel, GluonCounterpart]],
                    return_errors: bool = False) -> list[KernelResources | Exception]:
    """Every (kernel, Gluon form)'s report, in order; with return_errors a form that cannot be compiled (or a Triton
    with no usable Gluon) gives its exception in its place."""
    requests: list[TritonRequest | Exception] = []
    for k, g in pairs:
        try:
            requests.append(gluon_request(k, g))
        except Exception as e:
            if not return_errors:
                raise
            requests.append(e)
    todo = [r for r in requests if isinstance(r, TritonRequest)]
    compiled = iter(triton_resources_many(todo, return_errors=return_errors))
    return [r if isinstance(r, Exception) else next(compiled) for r in requests]


def threads_of(r: KernelResources, fallback_warps: int) -> int:
    """The threads a compiled kernel launches with: its warps as the compiler counted them (a warp-specialised
    kernel's partitions included), else the launch setting."""
    return 32 * int(r.facts.get("meta.warps", fallback_warps))


def gluon_record(kernel: Kernel, form: GluonCounterpart, resources: KernelResources | None = None) -> Resources:
    """A Gluon form's typed record compiled ahead of time (pass `resources` when already compiled)."""
    from harness.inspect.resources import typed_record

    r = resources if resources is not None else gluon_resources([(kernel, form)])[0]
    assert isinstance(r, KernelResources)  # failures raised above
    return typed_record(r, threads_of(r, kernel.threads // 32), AOT_NOTE, config=dict(form.config(kernel)),
                   dynamic_shared=0)
