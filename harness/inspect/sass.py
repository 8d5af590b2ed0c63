"""The SASS instruction mix of a cubin: one class list, one parser, for CUDA and Triton kernels alike.

Counts are static (instructions in the binary, not executed). Guard predicates are ignored, ``NOP``
padding is excluded from ``total``, and matrix moves (``LDSM``/``STSM``) are kept apart from plain
``LDS``/``STS``. Loads and stores that move data are bucketed by width (32, 64, 128 bits), because the
width is what a "vectorised loads" claim is about.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path

from harness.inspect.tools import find_tool, run

__all__ = ["SASS_KEYS", "empty_mix", "parse_sass", "sass_by_function", "sass_mix"]

# Keys always present in a mix. The second group (matrix shared-memory moves, cp.async, TMA, the
# barriers cp.async needs) is what Triton and the later CUDA rungs use instead of plain LDS/STS/LDG,
# so a mix without them would make those kernels look as if they barely touched memory. STS and
# LDGSTS are also counted per width (STS.128 is a vectorised store) besides their totals.
SASS_KEYS: tuple[str, ...] = (
    "FFMA", "FMUL", "FADD",
    "LDG.32", "LDG.64", "LDG.128", "LDS.32", "LDS.64", "LDS.128", "STS", "STG", "LDL", "STL",
    "BAR", "SHFL", "HMMA", "HGMMA", "LDSM", "STSM", "LDGSTS", "UTMALDG",
    "STS.32", "STS.64", "STS.128", "LDGSTS.32", "LDGSTS.64", "LDGSTS.128", "STG.128", "LDGDEPBAR", "DEPBAR",
    "SYNCS", "BRA", "USETMAXREG", "UTMASTG", "WARPGROUP",
    # TMA loads multicast into every block of a cluster (UTMALDG.2D.MULTICAST), also counted under UTMALDG
    "UTMALDG.MULTICAST",
    # fp32 arithmetic that flushes subnormals (FFMA.FTZ, FMUL.FTZ, FADD.FTZ): the build's -ftz flag, seen in the
    # code (F2I.FTZ, the float-to-integer step of an integer division, flushes under any flag and is not counted)
    "FTZ",
    "total",
)

# Opcodes counted under one key whatever their modifiers. The *32I forms are the same FP operation
# with a 32-bit immediate operand.
_PLAIN = {
    "FFMA": "FFMA", "FFMA32I": "FFMA", "FMUL": "FMUL", "FMUL32I": "FMUL", "FADD": "FADD", "FADD32I": "FADD",
    "STG": "STG", "LDL": "LDL", "STL": "STL", "BAR": "BAR", "SHFL": "SHFL", "HMMA": "HMMA", "HGMMA": "HGMMA",
    "LDSM": "LDSM", "STSM": "STSM", "UTMALDG": "UTMALDG", "LDGDEPBAR": "LDGDEPBAR", "DEPBAR": "DEPBAR",
    "SYNCS": "SYNCS", "BRA": "BRA", "USETMAXREG": "USETMAXREG", "UTMASTG": "UTMASTG", "WARPGROUP": "WARPGROUP",
}
_FP_ARITHMETIC = {"FFMA", "FMUL", "FADD"}
# Opcodes whose width goes into the key ("LDG.128"); the ones also kept as a total are listed twice.
_BY_WIDTH = {"LDG", "LDS", "STS", "LDGSTS"}
_WITH_TOTAL = {"STS", "LDGSTS"}

_FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
_NVDISASM_SECTION = re.compile(r"^\s*\.section\s+(\S+?)\s*,")
_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-fA-F]+\*/\s+([^;]*?)\s*;")


def empty_mix() -> dict[str, int]:
    return dict.fromkeys(SASS_KEYS, 0)


def _width(modifiers: Iterable[str]) -> int:
    # Only a bare number is a width (".128", ".64"); tokens like "LTC128B" (a cache hint) or "U8"/"S16"
    # (sub-word accesses) are not. Sub-word accesses land in the 32-bit bucket, 128 bits or more in .128.
    width = 32
    for token in modifiers:
        if token.isdigit():
            width = int(token)
    if width >= 128:
        return 128
    return 64 if width == 64 else 32


def _count(counts: dict[str, int], text: str) -> None:
    tokens = text.lstrip("{ ").split()
    if tokens and tokens[0].startswith("@"):  # guard predicate, e.g. @P0 or @!PT
        tokens = tokens[1:]
    if not tokens or tokens[0].startswith("."):
        return
    opcode, *modifiers = tokens[0].split(".")
    if opcode == "NOP":  # alignment padding after the final self-branch
        return
    counts["total"] += 1
    if "FTZ" in modifiers and _PLAIN.get(opcode) in _FP_ARITHMETIC:
        counts["FTZ"] += 1
    if opcode in _BY_WIDTH:
        width = _width(modifiers)
        counts[f"{opcode}.{width}"] += 1
        if opcode in _WITH_TOTAL:
            counts[opcode] += 1
    elif key := _PLAIN.get(opcode):
        counts[key] += 1
        if opcode == "UTMALDG" and "MULTICAST" in modifiers:
            counts["UTMALDG.MULTICAST"] += 1
        if opcode == "STG" and _width(modifiers) == 128:
            counts["STG.128"] += 1


def parse_sass(text: str, nvdisasm: bool) -> dict[str, dict[str, int]]:
    """Per function, its mix, from `cuobjdump -sass` (nvdisasm=False) or `nvdisasm` output."""
    mixes: dict[str, dict[str, int]] = {}
    current: dict[str, int] | None = None
    for line in text.splitlines():
        if nvdisasm:
            if m := _NVDISASM_SECTION.match(line):
                section = m.group(1).strip('"')
                current = (mixes.setdefault(section[len(".text."):], empty_mix())
                           if section.startswith(".text.") else None)
                continue
        elif m := _FUNCTION.match(line):
            current = mixes.setdefault(m.group(1), empty_mix())
            continue
        if current is not None and (m := _INSTRUCTION.match(line)):
            _count(current, m.group(1))
    return mixes


def sass_by_function(cubin: Path) -> dict[str, dict[str, int]]:
    """Every function's mix; cuobjdump first, nvdisasm where cuobjdump is missing or fails."""
    errors: list[str] = []
    for tool, args, is_nvdisasm in (("cuobjdump", ["-sass"], False), ("nvdisasm", [], True)):
        try:
            exe = find_tool(tool)
        except RuntimeError as exc:
            errors.append(str(exc))
            continue
        proc = run([exe, *args, cubin])
        if proc.returncode == 0:
            mixes = parse_sass(proc.stdout, nvdisasm=is_nvdisasm)
            if mixes:
                return mixes
            errors.append(f"{exe}: no functions found in output")
        else:
            errors.append(f"{exe}: {proc.stderr.strip()}")
    raise RuntimeError(f"cannot disassemble {cubin}:\n" + "\n".join(errors))


def sass_mix(cubin: bytes | Path, function: str | None = None) -> dict[str, int]:
    """Instruction-class counts of a cubin (bytes or a path), for comparing what two compilers emitted.

    With ``function`` (a mangled name) only that kernel's code is counted, which includes device
    functions it calls that were not inlined; otherwise all kernels in the cubin are summed.
    """
    with contextlib.ExitStack() as stack:
        if isinstance(cubin, (bytes, bytearray)):
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rosetta-sass-")))
            path = tmp / "kernel.cubin"
            path.write_bytes(cubin)
        else:
            path = Path(cubin)
        mixes = sass_by_function(path)
    if function is not None:
        if function not in mixes:
            raise RuntimeError(f"function {function!r} not in cubin; it holds {sorted(mixes)}")
        return dict(mixes[function])
    total = empty_mix()
    for mix in mixes.values():
        for key, value in mix.items():
            total[key] += value
    return total
