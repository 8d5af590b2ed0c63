"""Facts read off a CUDA source: what the programmer wrote, before any compiler touched it.

Comments are stripped first (the kernel headers quote code in prose). Counts are over the whole .cu
file with the .cuh headers it includes expanded in place (kernels_cuda.expanded: the code the compiler
reads): a file and its headers hold one kernel and the device helpers it calls (rosetta_tc_gemm.cu holds
the TF32 and 3xTF32 entry points of one template, which share every line counted here).
"""

from __future__ import annotations

import re
from pathlib import Path

from kernels_cuda import expanded

__all__ = ["source_facts", "strip_comments"]

# Comments and string literals in one pass, in source order: a quote inside a comment is not a string.
_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.DOTALL)

_COUNTED: dict[str, re.Pattern[str]] = {
    "shared_arrays": re.compile(r"\b__shared__\b"),
    "extern_shared": re.compile(r"\bextern\s+__shared__\b"),
    "syncthreads": re.compile(r"\b__syncthreads\s*\("),
    "barrier_ptx": re.compile(r"\bbar(?:rier)?\.sync\b"),   # a barrier written as inline PTX
    "shuffles": re.compile(r"\b__shfl_\w*sync\s*\("),
    "pragma_unroll": re.compile(r"#\s*pragma\s+unroll\b"),
    "float4": re.compile(r"\bfloat4\b"),
    "cp_async": re.compile(r"cp\.async\.(?:ca|cg)\b"),
    "mma_sync": re.compile(r"\bmma\.sync\b|\bwmma::mma_sync\b"),
    "wgmma": re.compile(r"\bwgmma\.mma_async\b"),
    "ldmatrix": re.compile(r"\bldmatrix\b"),
    # an index that alternates between two buffers ([k % 2], [(k + 1) % 2]): double buffering written by hand
    "double_buffered": re.compile(r"%\s*2\s*\]"),
    "group_m": re.compile(r"\bGROUP_M\b"),   # the grouped block order's parameter
    # `#pragma unroll` right before a loop whose counter starts at 0 (a trip count the compiler sees) or
    # at a thread index (it does not): seed 000's unroll section is about exactly this difference.
    "unroll_loop_from_zero": re.compile(r"#\s*pragma\s+unroll\s*\n\s*for\s*\(\s*int\s+\w+\s*=\s*0\s*;"),
    "unroll_loop_from_tid": re.compile(r"#\s*pragma\s+unroll\s*\n\s*for\s*\(\s*int\s+\w+\s*=\s*(?:tid|threadIdx)"),
}
# A per-thread array: a float declaration with one or more [..] extents and no __shared__ on the line.
_REGISTER_ARRAY = re.compile(r"^\s*(?:const\s+)?(?:float|Value_t|unsigned)\s+\w+\s*((?:\[[^\]]+\]\s*)+)[;=]",
                             re.MULTILINE)


def strip_comments(text: str) -> str:
    # Strings hold inline PTX ("cp.async.cg ..."), which is code: they are kept; only comments go.
    return _COMMENT_OR_STRING.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)


def source_facts(path: Path) -> dict[str, int]:
    """Counts of the constructs above, and of per-thread arrays by rank (``register_arrays_1d``/``_2d``)."""
    code = strip_comments(expanded(Path(path)))
    out = {name: len(pattern.findall(code)) for name, pattern in _COUNTED.items()}
    ranks = [extents.count("[") for extents in _REGISTER_ARRAY.findall(code)]
    out["register_arrays_1d"] = sum(1 for r in ranks if r == 1)
    out["register_arrays_2d"] = sum(1 for r in ranks if r >= 2)
    return out
