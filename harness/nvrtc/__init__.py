"""The suite's one CUDA build: every `.cu` through NVRTC to a cubin for the exact arch, declared options, cached.

It builds what it is given, a source and the name expressions to instantiate in it, and knows no catalog: the
catalog says which symbols one build of a source holds (harness/catalog `instantiations`). `module(source, names)` is
that module; `prefetch(units)` starts every unit's compile at once in the background (NVRTC calls are independent and
release the GIL, so threads suffice), which a worker does when it starts, so the compiles overlap the baselines and
the Triton kernels instead of each CUDA kernel waiting for its own compile in turn. The GPU run loads these cubins
(harness/launch/cuda.py) and the CPU tier reads its resources from the same ones (harness/inspect/compile_cuda.py).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache

from harness.nvrtc.compiler import BuildError, Built, build, nvrtc_version
from harness.nvrtc.options import CPU_TIER_ARCH, CUPY, DEFAULT, VARIANTS, Variant, arch_for
from kernels_cuda import source_path

__all__ = ["CPU_TIER_ARCH", "CUPY", "DEFAULT", "VARIANTS", "BuildError", "Built", "Variant", "arch_for",
           "describe", "device_arch", "module", "nvrtc_version", "prefetch"]

# A build unit: a source (a kernels_cuda file name, or a user's absolute path) and the name expressions it holds.
Unit = tuple[str, tuple[str, ...]]
# One future per (source, names, arch, variant): a module asked for while the background build has it in hand waits
# for that compile instead of starting a second one.
_FUTURES: dict[tuple[str, tuple[str, ...], str, str], Future] = {}
_LOCK = threading.Lock()
_POOL: ThreadPoolExecutor | None = None


@cache
def device_arch() -> str:
    """The current CUDA device's exact target (`sm_90a` on an H100 or H200)."""
    import torch

    return arch_for(*torch.cuda.get_device_capability())


def _future(unit: Unit, exact_arch: str, variant: str, pool: ThreadPoolExecutor | None) -> Future:
    source, names = unit
    arch = VARIANTS[variant].arch(exact_arch)
    key = (source, names, arch, variant)
    with _LOCK:
        if key in _FUTURES:
            return _FUTURES[key]
        if pool is not None:
            _FUTURES[key] = pool.submit(build, source_path(source), list(names), arch, VARIANTS[variant].options)
            return _FUTURES[key]
        fut: Future = Future()  # asked for directly: compile on this thread
        _FUTURES[key] = fut
    try:
        fut.set_result(build(source_path(source), list(names), arch, VARIANTS[variant].options))
    except BaseException as e:
        fut.set_exception(e)
    return fut


def module(source: str, names: Iterable[str], arch: str | None = None, variant: str = "default") -> Built:
    """The built module of one source with the name expressions `names` in it, for `arch` (default: this process's
    device): from a background build under way, from memory, from the disk cache, or compiled now. Raises BuildError
    with NVRTC's log."""
    return _future((source, tuple(sorted(set(names)))), arch or device_arch(), variant, None).result()


def prefetch(units: Iterable[Unit], arch: str | None = None, variants: Iterable[str] = ("default",),
             jobs: int | None = None) -> None:
    """Start building every unit (a source and its name expressions) in every variant in the background; returns at
    once."""
    global _POOL
    arch = arch or device_arch()
    work = [((s, tuple(sorted(set(n)))), v) for v in variants for s, n in units]
    with _LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(jobs or max(2, os.cpu_count() or 2), thread_name_prefix="nvrtc")
    for unit, variant in work:
        _future(unit, arch, variant, _POOL)


def describe(arch: str | None = None) -> dict:
    """What the results header records of the build: compiler, arch, each variant's arch, options and reason."""
    return {"compiler": f"NVRTC {nvrtc_version()} (cuda.bindings)", "arch": arch,
            "variants": {v.name: {"arch": v.arch(arch) if arch else None, "options": list(v.options), "why": v.why}
                         for v in VARIANTS.values()}}
