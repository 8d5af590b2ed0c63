"""The few Gluon names that moved between the Triton releases the suite meets, resolved once at import.

Gluon (`triton.experimental.gluon`) is experimental and renames as it goes. The GPU image has triton 3.6, a CPU
machine's bootstrap installs 3.9 and `pip install -e ".[cuda13]"` resolves 3.8; what differs between them for these
kernels (read from each release's package):

- cp.async global -> shared: async_copy.async_copy_global_to_shared (3.6), async_copy.async_load (3.8, 3.9);
- TMA global -> shared: tma.async_copy_global_to_shared (3.6), tma.async_load (3.8, 3.9);
- the block barrier (bar.sync): gl.thread_barrier (3.6), gl.barrier (3.8, 3.9);
- a view of shared memory with another layout: descriptor._reinterpret (3.6, 3.8), descriptor.reinterpret (3.9);
- TMA multicast into the blocks of a cluster: absent in 3.6, tma.async_load(multicast=...) in 3.8 and 3.9.

Every other name the kernels use (layouts, allocate_shared_memory, mbarrier, warpgroup_mma, warp_specialize,
dot_fma) is the same in all three. A kernel module imports the names below instead of the moved ones; where the
installed Triton has no usable Gluon at all, `UNAVAILABLE` says why in one line and nothing else here is defined.
"""

from __future__ import annotations

import inspect

UNAVAILABLE: str | None = None
try:
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia import hopper
    from triton.experimental.gluon.language.nvidia.ampere import async_copy
    from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
except Exception as e:  # an older Triton, or one whose Gluon moved past what is mapped here
    import triton

    UNAVAILABLE = (f"triton {triton.__version__} has no usable Gluon ({type(e).__name__}: {e}); the Gluon column "
                   f"needs triton 3.6 or later")

if UNAVAILABLE is None:
    def _first(owner: object, *names: str) -> object:
        for name in names:
            if hasattr(owner, name):
                return getattr(owner, name)
        raise ImportError(f"{getattr(owner, '__name__', owner)} has none of {', '.join(names)}")

    try:
        cp_async_load = _first(async_copy, "async_load", "async_copy_global_to_shared")
        tma_load = _first(tma, "async_load", "async_copy_global_to_shared")
        barrier = _first(gl, "barrier", "thread_barrier")
        # a shared-memory view of the same bytes with another shape or layout: a jit helper, because the method
        # moved from `_reinterpret` to `reinterpret` and a kernel cannot choose a method name at trace time
        if hasattr(gl.shared_memory_descriptor, "reinterpret"):
            @gluon.jit
            def reinterpret(desc, dtype: gl.constexpr, shape: gl.constexpr, layout: gl.constexpr):
                return desc.reinterpret(dtype, shape, layout)
        else:
            @gluon.jit
            def reinterpret(desc, dtype: gl.constexpr, shape: gl.constexpr, layout: gl.constexpr):
                return desc._reinterpret(dtype, shape, layout)
    except ImportError as e:
        import triton

        UNAVAILABLE = f"triton {triton.__version__}'s Gluon lacks a name these kernels need: {e}"

# Whether this Triton's Gluon can multicast a TMA load into the blocks of a cluster (rosetta.wgmma_cluster's idea).
TMA_MULTICAST: bool = UNAVAILABLE is None and "multicast" in inspect.signature(tma_load).parameters

__all__ = ["TMA_MULTICAST", "UNAVAILABLE", "TensorDescriptor", "async_copy", "barrier", "cp_async_load", "gl",
           "gluon", "hopper", "mbarrier", "reinterpret", "tma", "tma_load"]
