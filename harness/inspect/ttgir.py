"""Facts read off a Triton kernel's ttgir: what the compiler decided before it emitted any SASS.

The ttgir is where Triton's own decisions are visible by name: which operands it staged in shared
memory (``ttg.local_alloc``), whether the K loop was software-pipelined (async copies and waits),
whether a dot lowered to tensor cores (an ``#ttg.nvidia_mma`` accumulator, ``ttng.warp_group_dot``),
whether the shared layout is swizzled, and how many layout conversions it inserted.
"""

from __future__ import annotations

import re

__all__ = ["FACT_KEYS", "facts"]

# fact -> the ttgir pattern counted
_COUNTED: dict[str, re.Pattern[str]] = {
    "local_alloc": re.compile(r"\bttg\.local_alloc\b"),
    "local_load": re.compile(r"\bttg\.local_load\b"),
    "async_copy": re.compile(r"\b(?:ttg\.async_copy_global_to_local|ttng\.async_tma_copy_global_to_local)\b"),
    "async_wait": re.compile(r"\b(?:ttg\.async_wait|ttng\.wait_barrier)\b"),
    "dot": re.compile(r"\btt\.dot\b"),
    "warp_group_dot": re.compile(r"\bttng\.warp_group_dot\b"),
    "reduce": re.compile(r"\btt\.reduce\b"),
    "convert_layout": re.compile(r"\bttg\.convert_layout\b"),
    "loops": re.compile(r"\bscf\.for\b"),
    "loads": re.compile(r"\btt\.load\b"),
    "descriptor_loads": re.compile(r"\btt\.descriptor_load\b"),
    # loads, stores and async copies given a mask (a second operand, or `mask`): bounds handled in the program
    "masked": re.compile(r"\btt\.load %[\w#.]+, %|\btt\.store %[\w#.]+, %[\w#.]+, %"
                         r"|\bttg\.async_copy_global_to_local [^\n]* mask %"),
}
_MMA_LAYOUT = re.compile(r"#ttg\.nvidia_mma<\{versionMajor = (\d+)")
_SWIZZLED = re.compile(r"#ttg\.swizzled_shared<\{vec = (\d+), perPhase = (\d+), maxPhase = (\d+)")
_NVMMA_SHARED = re.compile(r"#ttg\.nvmma_shared<\{swizzlingByteWidth = (\d+)")

FACT_KEYS: tuple[str, ...] = (*_COUNTED, "mma_version", "shared_swizzled")


def facts(text: str) -> dict[str, int]:
    """Counts of the ops above, plus ``mma_version`` (0: no tensor-core layout; 2: mma.sync; 3: wgmma) and
    ``shared_swizzled`` (1 when any shared layout permutes addresses: maxPhase > 1 or an NVMMA swizzle)."""
    out = {name: len(pattern.findall(text)) for name, pattern in _COUNTED.items()}
    out["mma_version"] = max((int(v) for v in _MMA_LAYOUT.findall(text)), default=0)
    swizzled = any(int(max_phase) > 1 for _, _, max_phase in _SWIZZLED.findall(text))
    swizzled = swizzled or any(int(width) > 0 for width in _NVMMA_SHARED.findall(text))
    out["shared_swizzled"] = int(swizzled)
    return out
