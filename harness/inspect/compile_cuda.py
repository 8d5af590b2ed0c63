"""What ptxas allocated for one CUDA kernel and the SASS it emitted, read from the suite's own NVRTC build.

The numbers come from the very cubin a GPU run loads (harness/nvrtc): the build's `ptxas -v` log gives registers,
spills, stack and barriers per entry, NVRTC's lowered name says which entry a name expression is, and cuobjdump
(Triton's bundled copy where no toolkit is installed) gives the SASS mix. No nvcc and no GPU are needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.device.kernel_resources import KernelResources
from harness.inspect import cache
from harness.inspect.ptxas import parse_ptxas_log
from harness.inspect.sass import sass_mix
from harness.nvrtc import CPU_TIER_ARCH, DEFAULT, Built
from harness.nvrtc.compiler import build

__all__ = ["built_resources", "cuda_resources"]


def built_resources(built: Built, name_expression: str) -> KernelResources:
    """Resources of one instantiation inside a built module (its SASS mix cached on disk, keyed by the cubin)."""
    mangled = built.lowered.get(name_expression)
    if mangled is None:
        raise RuntimeError(f"{name_expression!r} is not instantiated in {built.source}; it holds "
                           f"{sorted(built.lowered)}")
    entries = parse_ptxas_log(built.log)
    if mangled not in entries:
        raise RuntimeError(f"ptxas reported nothing for {mangled} in {built.source}: log starts "
                           f"{built.log[:300]!r}")
    key = cache.digest({"kind": "cuda-nvrtc", "cubin": built.cubin.parent.name, "function": mangled})
    if (cached := cache.load(key)) is not None:
        return KernelResources.from_json(cached)
    record = entries[mangled]
    resources = KernelResources(registers=record["registers"], shared_bytes=record["smem"],
                                local_bytes=record["stack"] + record["lmem"], spill_stores=record["spill_stores"],
                                spill_loads=record["spill_loads"], sass=sass_mix(built.cubin, function=mangled),
                                kernel=mangled, facts={"barriers": record["barriers"]})
    cache.store(key, resources.to_json())
    return resources


def cuda_resources(source: Path, name_expression: str, arch: str = CPU_TIER_ARCH, *,
                   options: Sequence[str] = DEFAULT.options) -> KernelResources:
    """Resources of one instantiation of any .cu file, built on its own by the suite's NVRTC build."""
    return built_resources(build(Path(source), [name_expression], arch, tuple(options)), name_expression)
