"""Static resource usage of compiled kernels: registers, memory, spills, SASS mix, occupancy.

Timings alone cannot say *why* a CUDA kernel and its Triton twin differ; the
compiler's own accounting can (register pressure, shared-memory footprint,
spills, which load widths and tensor-core instructions were emitted).  All of
it is obtained ahead of time, without a GPU, from the same toolchain that
builds the kernels (nvcc for the CUDA sources, Triton's bundled ptxas for
Triton kernels), so reports can be produced on a build host and cached.

Results are cached as JSON under ``$ROSETTA_CACHE_DIR/resources`` (default
``~/.cache/tile-rosetta/resources``) because every entry costs a full
compilation and reports ask for the same kernels over and over.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import inspect
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import types
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "SASS_KEYS",
    "KernelResources",
    "Occupancy",
    "cuda_resources",
    "find_tool",
    "sass_mix",
    "sm90_occupancy",
    "triton_resources",
]

# Bump when the meaning or layout of cached entries changes, so stale JSON is
# never served.
_CACHE_SCHEMA = 1

# --------------------------------------------------------------------------
# sm_90 (H100/H200) limits used by the theoretical occupancy calculation.
# They mirror cuda_occupancy.h so the numbers agree with the CUDA
# occupancy calculator / Nsight Compute's "theoretical occupancy".
# --------------------------------------------------------------------------
SM90_REGISTERS_PER_SM = 65536
SM90_REGISTERS_PER_BLOCK = 65536
SM90_REGISTER_SUBPARTITIONS = 4
SM90_REGISTER_ALLOCATION_UNIT = 256  # registers per warp, i.e. 8 per thread
SM90_MAX_REGISTERS_PER_THREAD = 255
SM90_MAX_THREADS_PER_SM = 2048
SM90_MAX_THREADS_PER_BLOCK = 1024
SM90_MAX_WARPS_PER_SM = 64
SM90_MAX_BLOCKS_PER_SM = 32
SM90_SHARED_PER_SM = 228 * 1024
SM90_SHARED_RESERVED_PER_BLOCK = 1024
SM90_SHARED_ALLOCATION_UNIT = 128
SM90_MAX_SHARED_PER_BLOCK = 227 * 1024
_WARP_SIZE = 32

#: Keys always present in a SASS mix.  The first group is the requested
#: instruction classes; the second group (matrix shared-memory moves, cp.async
#: and TMA loads) is what Triton uses instead of plain LDS/STS/LDG, so a mix
#: without them would make Triton kernels look as if they barely touched memory.
SASS_KEYS: tuple[str, ...] = (
    "FFMA",
    "FMUL",
    "FADD",
    "LDG.32",
    "LDG.64",
    "LDG.128",
    "LDS.32",
    "LDS.64",
    "LDS.128",
    "STS",
    "STG",
    "LDL",
    "STL",
    "BAR",
    "SHFL",
    "HMMA",
    "HGMMA",
    "LDSM",
    "STSM",
    "LDGSTS",
    "UTMALDG",
    "total",
)

# Opcodes counted under one key regardless of modifiers.  The *32I forms are
# the same FP operation with a 32-bit immediate operand.
_PLAIN_OPCODES = {
    "FFMA": "FFMA",
    "FFMA32I": "FFMA",
    "FMUL": "FMUL",
    "FMUL32I": "FMUL",
    "FADD": "FADD",
    "FADD32I": "FADD",
    "STS": "STS",
    "STG": "STG",
    "LDL": "LDL",
    "STL": "STL",
    "BAR": "BAR",
    "SHFL": "SHFL",
    "HMMA": "HMMA",
    "HGMMA": "HGMMA",
    "LDSM": "LDSM",
    "STSM": "STSM",
    "LDGSTS": "LDGSTS",
    "UTMALDG": "UTMALDG",
}


@dataclass(frozen=True)
class Occupancy:
    """Theoretical occupancy of one launch configuration on one SM.

    ``limiter`` names the resource that caps ``blocks_per_sm`` so a report can
    say what to change; on a tie the hardware ceilings ("threads", "blocks")
    win, because trimming registers or shared memory would not help then.
    """

    blocks_per_sm: int
    warps_per_sm: int
    fraction: float
    limiter: str


@dataclass(frozen=True)
class KernelResources:
    """What the compiler allotted to one kernel, per thread or per block.

    ``shared_bytes`` is everything the block needs at launch apart from the
    1 KiB the driver reserves: static ``__shared__`` arrays, plus for Triton
    the dynamic shared memory its launcher always requests.  CUDA kernels
    with ``extern __shared__`` buffers must pass that size to
    :meth:`occupancy` because it is only known at launch.

    ``spill_stores``/``spill_loads`` are ptxas's byte counts.  Where no
    ptxas log was available they are 0, and ``sass["LDL"]``/``sass["STL"]``
    are the evidence of local-memory traffic (spills or indexed register
    arrays alike).
    """

    registers: int
    shared_bytes: int
    local_bytes: int
    spill_stores: int
    spill_loads: int
    sass: dict[str, int] = field(hash=False)
    kernel: str = ""  # mangled (CUDA) or Triton kernel name, for reports

    def occupancy(self, threads_per_block: int, dynamic_shared_bytes: int = 0) -> Occupancy:
        """Theoretical sm_90 occupancy; pass launch-time dynamic shared memory for CUDA kernels."""
        return sm90_occupancy(self.registers, self.shared_bytes + dynamic_shared_bytes, threads_per_block)


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def sm90_occupancy(registers: int, shared_bytes: int, threads_per_block: int) -> Occupancy:
    """Theoretical occupancy on sm_90, following cuda_occupancy.h.

    Registers are allocated per warp in units of 256 and per sub-partition
    (a quarter of the register file), which is why e.g. 200 registers/thread
    fits 8 warps rather than the naive 10.  Shared memory assumes the
    maximum carveout (228 KiB) and that large allocations were opted into.
    """
    if threads_per_block <= 0:
        raise ValueError(f"threads_per_block must be positive, got {threads_per_block}")
    if registers < 0 or shared_bytes < 0:
        raise ValueError("registers and shared_bytes must be non-negative")

    warps_per_block = -(-threads_per_block // _WARP_SIZE)
    too_big = threads_per_block > SM90_MAX_THREADS_PER_BLOCK
    by_threads = 0 if too_big else SM90_MAX_WARPS_PER_SM // warps_per_block
    by_blocks = SM90_MAX_BLOCKS_PER_SM

    regs_per_warp = _round_up(registers * _WARP_SIZE, SM90_REGISTER_ALLOCATION_UNIT)
    # The hardware launch check assumes every sub-partition gets the same
    # number of warps, hence warps rounded up to a multiple of 4.
    regs_assumed_per_block = regs_per_warp * _round_up(warps_per_block, SM90_REGISTER_SUBPARTITIONS)
    if (
        registers > SM90_MAX_REGISTERS_PER_THREAD
        or regs_assumed_per_block > SM90_REGISTERS_PER_BLOCK
        or regs_per_warp * warps_per_block > SM90_REGISTERS_PER_BLOCK
    ):
        by_registers = 0
    elif regs_per_warp == 0:
        by_registers = by_blocks
    else:
        per_partition = SM90_REGISTERS_PER_SM // SM90_REGISTER_SUBPARTITIONS
        warps = (per_partition // regs_per_warp) * SM90_REGISTER_SUBPARTITIONS
        by_registers = warps // warps_per_block

    if shared_bytes > SM90_MAX_SHARED_PER_BLOCK:
        by_shared = 0
    else:
        allocated = _round_up(shared_bytes + SM90_SHARED_RESERVED_PER_BLOCK, SM90_SHARED_ALLOCATION_UNIT)
        by_shared = SM90_SHARED_PER_SM // allocated

    limits = {
        "threads": by_threads,
        "blocks": by_blocks,
        "registers": by_registers,
        "shared memory": by_shared,
    }
    blocks = min(limits.values())
    limiter = next(name for name, value in limits.items() if value == blocks)
    warps = blocks * warps_per_block
    return Occupancy(
        blocks_per_sm=blocks,
        warps_per_sm=warps,
        fraction=warps / SM90_MAX_WARPS_PER_SM,
        limiter=limiter,
    )


# --------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------
def _triton_bin_dir() -> Path | None:
    # find_spec avoids importing triton (slow) just to locate its binaries.
    try:
        spec = importlib.util.find_spec("triton")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "backends" / "nvidia" / "bin"


def find_tool(name: str) -> Path:
    """Locate a CUDA binary tool.

    Search order is PATH, ``$CUDA_HOME/bin``, ``/usr/local/cuda/bin`` and
    finally the copies Triton ships (cuobjdump, nvdisasm, ptxas), because
    build hosts often have nvcc but not the binary utilities, or none of the
    toolkit at all.
    """
    looked: list[str] = ["PATH"]
    found = shutil.which(name)
    if found:
        return Path(found)
    candidates: list[Path] = []
    cuda_home = os.environ.get("CUDA_HOME")
    if cuda_home:
        candidates.append(Path(cuda_home) / "bin")
    else:
        looked.append("$CUDA_HOME/bin ($CUDA_HOME unset)")
    candidates.append(Path("/usr/local/cuda/bin"))
    triton_bin = _triton_bin_dir()
    if triton_bin is not None:
        candidates.append(triton_bin)
    else:
        looked.append("triton's backends/nvidia/bin (triton not installed)")
    for directory in candidates:
        path = directory / name
        looked.append(str(directory))
        if path.is_file() and os.access(path, os.X_OK):
            return path
    raise RuntimeError(f"cannot find CUDA tool {name!r}; looked in: {', '.join(looked)}")


@functools.cache
def _tool_version(path: Path) -> str:
    proc = subprocess.run([str(path), "--version"], capture_output=True, text=True, check=False)
    return proc.stdout.strip() or proc.stderr.strip()


def _run(cmd: Sequence[str | Path], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd, check=False)


# --------------------------------------------------------------------------
# Parsing ptxas -v and cuobjdump -res-usage
# --------------------------------------------------------------------------
_PTXAS_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PTXAS_PROPS = re.compile(r"Function properties for (\S+)")
_PTXAS_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_PTXAS_USED = re.compile(r"Used (\d+) registers")
_PTXAS_SMEM = re.compile(r"(\d+) bytes smem")
_PTXAS_LMEM = re.compile(r"(\d+) bytes lmem")


def _parse_ptxas_log(text: str) -> dict[str, dict[str, int]]:
    """Per entry function: registers, smem, lmem, stack, spill_stores, spill_loads."""
    entries: dict[str, dict[str, int]] = {}
    current: str | None = None
    props_for: str | None = None
    for line in text.splitlines():
        if m := _PTXAS_ENTRY.search(line):
            current = m.group(1)
            props_for = None
            entries[current] = dict.fromkeys(
                ("registers", "smem", "lmem", "stack", "spill_stores", "spill_loads"), 0
            )
        elif m := _PTXAS_PROPS.search(line):
            # Non-inlined device functions get their own properties block;
            # their frames are already part of the caller's stack size.
            props_for = m.group(1)
        elif m := _PTXAS_FRAME.search(line):
            if props_for is not None and props_for in entries:
                record = entries[props_for]
                record["stack"], record["spill_stores"], record["spill_loads"] = map(int, m.groups())
        elif (m := _PTXAS_USED.search(line)) and current is not None and props_for in (None, current):
            record = entries[current]
            record["registers"] = int(m.group(1))
            if s := _PTXAS_SMEM.search(line):
                record["smem"] = int(s.group(1))
            if s := _PTXAS_LMEM.search(line):
                record["lmem"] = int(s.group(1))
    return entries


_RES_FUNCTION = re.compile(r"^\s*Function (\S+?):\s*$")
_RES_FIELD = re.compile(r"([A-Z_]+(?:\[\d+\])?):(\d+)")


def _res_usage(cubin: Path) -> dict[str, dict[str, int]]:
    """Per function: REG, STACK, SHARED, LOCAL, ... from ``cuobjdump -res-usage``."""
    proc = _run([find_tool("cuobjdump"), "-res-usage", cubin])
    if proc.returncode != 0:
        raise RuntimeError(f"cuobjdump -res-usage failed on {cubin}:\n{proc.stderr.strip()}")
    usage: dict[str, dict[str, int]] = {}
    current: str | None = None
    for line in proc.stdout.splitlines():
        if m := _RES_FUNCTION.match(line):
            current = m.group(1)
            usage[current] = {}
        elif current is not None and (fields := _RES_FIELD.findall(line)):
            usage[current].update({k: int(v) for k, v in fields})
            current = None
    return usage


def _reserved_shared(arch: int) -> int:
    # cuobjdump's SHARED includes the driver-reserved 1 KiB on sm_80 and newer.
    return SM90_SHARED_RESERVED_PER_BLOCK if arch >= 80 else 0


# --------------------------------------------------------------------------
# SASS instruction mix
# --------------------------------------------------------------------------
_SASS_FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
_NVDISASM_SECTION = re.compile(r"^\s*\.section\s+(\S+?)\s*,")
_SASS_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-fA-F]+\*/\s+([^;]*?)\s*;")


def _width_bucket(modifiers: Iterable[str]) -> int:
    # Only a bare number is a width (".128", ".64"); tokens like "LTC128B"
    # (a cache hint) or "U8"/"S16" (sub-word loads) are not.  Sub-word loads
    # land in the 32-bit bucket, anything of 128 bits or more in .128.
    width = 32
    for token in modifiers:
        if token.isdigit():
            width = int(token)
    if width >= 128:
        return 128
    return 64 if width == 64 else 32


def _count_instruction(counts: dict[str, int], text: str) -> None:
    tokens = text.lstrip("{ ").split()
    if tokens and tokens[0].startswith("@"):  # guard predicate, e.g. @P0 or @!PT
        tokens = tokens[1:]
    if not tokens or tokens[0].startswith("."):
        return
    opcode, *modifiers = tokens[0].split(".")
    if opcode == "NOP":  # alignment padding after the final self-branch
        return
    counts["total"] += 1
    if opcode in ("LDG", "LDS"):
        counts[f"{opcode}.{_width_bucket(modifiers)}"] += 1
    elif key := _PLAIN_OPCODES.get(opcode):
        counts[key] += 1


def _empty_mix() -> dict[str, int]:
    return dict.fromkeys(SASS_KEYS, 0)


def _parse_sass(text: str, nvdisasm: bool) -> dict[str, dict[str, int]]:
    mixes: dict[str, dict[str, int]] = {}
    current: dict[str, int] | None = None
    for line in text.splitlines():
        if nvdisasm:
            if m := _NVDISASM_SECTION.match(line):
                section = m.group(1).strip('"')
                current = (
                    mixes.setdefault(section[len(".text.") :], _empty_mix())
                    if section.startswith(".text.")
                    else None
                )
                continue
        elif m := _SASS_FUNCTION.match(line):
            current = mixes.setdefault(m.group(1), _empty_mix())
            continue
        if current is not None and (m := _SASS_INSTRUCTION.match(line)):
            _count_instruction(current, m.group(1))
    return mixes


def _sass_by_function(cubin: Path) -> dict[str, dict[str, int]]:
    errors: list[str] = []
    for tool, args, is_nvdisasm in (("cuobjdump", ["-sass"], False), ("nvdisasm", [], True)):
        try:
            exe = find_tool(tool)
        except RuntimeError as exc:
            errors.append(str(exc))
            continue
        proc = _run([exe, *args, cubin])
        if proc.returncode == 0:
            mixes = _parse_sass(proc.stdout, nvdisasm=is_nvdisasm)
            if mixes:
                return mixes
            errors.append(f"{exe}: no functions found in output")
        else:
            errors.append(f"{exe}: {proc.stderr.strip()}")
    raise RuntimeError(f"cannot disassemble {cubin}:\n" + "\n".join(errors))


def sass_mix(cubin: bytes | Path, function: str | None = None) -> dict[str, int]:
    """Instruction-class counts of a cubin, for comparing what two compilers emitted.

    Counts are static (instructions in the binary, not executed).  Guard
    predicates are ignored, ``NOP`` padding is excluded from ``total``, and
    ``STSM``/``LDSM`` (matrix moves) are kept apart from ``STS``/``LDS``.
    With ``function`` (a mangled name) only that kernel's code is counted,
    which includes device functions it calls that were not inlined;
    otherwise all kernels in the cubin are summed.
    """
    with contextlib.ExitStack() as stack:
        if isinstance(cubin, (bytes, bytearray)):
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rosetta-sass-")))
            path = tmp / "kernel.cubin"
            path.write_bytes(cubin)
        else:
            path = Path(cubin)
        mixes = _sass_by_function(path)
    if function is not None:
        if function not in mixes:
            raise RuntimeError(f"function {function!r} not in cubin; it holds {sorted(mixes)}")
        return dict(mixes[function])
    total = _empty_mix()
    for mix in mixes.values():
        for key, value in mix.items():
            total[key] += value
    return total


# --------------------------------------------------------------------------
# Cache
# --------------------------------------------------------------------------
def _cache_dir() -> Path:
    base = os.environ.get("ROSETTA_CACHE_DIR") or str(Path.home() / ".cache" / "tile-rosetta")
    return Path(base) / "resources"


def _digest(parts: Mapping[str, Any]) -> str:
    blob = json.dumps(parts, sort_keys=True, default=repr).encode()
    return hashlib.sha256(blob).hexdigest()


def _cache_load(key: str) -> KernelResources | None:
    path = _cache_dir() / f"{key}.json"
    try:
        data = json.loads(path.read_text())
        return KernelResources(**data)
    except (OSError, ValueError, TypeError):
        return None


def _cache_store(key: str, resources: KernelResources) -> None:
    # Best effort: an unwritable cache must not break a measurement run.
    directory = _cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", dir=directory, prefix=f".{key[:16]}-", suffix=".tmp", delete=False
        ) as handle:
            json.dump(asdict(resources), handle, sort_keys=True)
        os.replace(handle.name, directory / f"{key}.json")
    except OSError:
        pass


# --------------------------------------------------------------------------
# CUDA sources through nvcc
# --------------------------------------------------------------------------
_LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def _source_digest(source: Path) -> str:
    """Hash of the source and the quoted includes it pulls in from disk.

    Published kernels often live in a header next to the .cu file; editing
    that header must invalidate the cache too.
    """
    digest = hashlib.sha256()
    seen: set[Path] = set()
    pending = [source]
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        try:
            data = path.read_bytes()
        except OSError:
            continue
        digest.update(path.name.encode() + b"\0" + hashlib.sha256(data).digest())
        for include in _LOCAL_INCLUDE.findall(data.decode("utf-8", errors="replace")):
            candidate = path.parent / include
            if candidate.is_file():
                pending.append(candidate.resolve())
    return digest.hexdigest()


def _nvcc_compile(
    nvcc: Path,
    source: Path,
    name_expression: str | None,
    arch: str,
    options: Sequence[str],
    workdir: Path,
) -> tuple[Path, str]:
    """Compile a wrapper TU to a cubin; returns the cubin and the ptxas log."""
    stem = "ref" if name_expression is not None else "base"
    wrapper = workdir / f"{stem}.cu"
    lines = [f'#include "{source}"']
    if name_expression is not None:
        # Taking the address forces the template instantiation, exactly as
        # CuPy's name_expressions do through NVRTC.
        lines.append(f"static void* const rosetta_ref = (void*)&{name_expression};")
    wrapper.write_text("\n".join(lines) + "\n")
    cubin = workdir / f"{stem}.cubin"
    cmd = [
        nvcc,
        f"-arch={arch}",
        "-cubin",
        "-Xptxas",
        "-v",
        "-diag-suppress",
        "177",  # rosetta_ref is deliberately unused
        *options,
        "-o",
        cubin,
        wrapper,
    ]
    proc = _run(cmd, cwd=workdir)
    log = proc.stdout + proc.stderr
    if proc.returncode != 0 or not cubin.is_file():
        what = name_expression if name_expression is not None else "(no instantiation)"
        raise RuntimeError(
            f"nvcc failed to compile {what} from {source} for {arch} (exit {proc.returncode}):\n{log.strip()}"
        )
    return cubin, log


def _identifier(name_expression: str) -> str:
    head = name_expression.split("<", 1)[0]
    return head.strip(" &()\t").split("::")[-1].strip()


_PLAIN_TEMPLATE_ARG = re.compile(r"^(?:(-?)(\d+)[uUlL]*|(true|false)|[A-Za-z_][\w:]*(?:\s*\*)*)$")


def _template_literal_pattern(name_expression: str) -> re.Pattern[str] | None:
    """Ordered regex over the mangled literals (``Li16E``, ``Lb1E``) of plain template args.

    Only used when every argument is a bare literal or a simple type/constant
    name; with arithmetic in the expression the literals in the source say
    nothing reliable about the mangled values, so no guess is made.
    """
    if "<" not in name_expression or not name_expression.rstrip().endswith(">"):
        return None
    inner = name_expression.split("<", 1)[1].rstrip()[:-1]
    if "<" in inner or "(" in inner:
        return None
    parts: list[str] = []
    for arg in inner.split(","):
        m = _PLAIN_TEMPLATE_ARG.match(arg.strip())
        if m is None:
            return None
        sign, digits, boolean = m.groups()
        if digits is not None:
            parts.append(rf"L[a-z]{'n' if sign else ''}{int(digits)}E")
        elif boolean is not None:
            parts.append(f"Lb{1 if boolean == 'true' else 0}E")
    return re.compile(".*".join(parts)) if parts else None


def _candidates(entries: Iterable[str], name_expression: str) -> list[str]:
    ident = _identifier(name_expression)
    source_name = re.compile(rf"(?<![0-9]){len(ident)}{re.escape(ident)}")
    return [e for e in entries if e == ident or source_name.search(e)]


def _pick_without_baseline(entries: list[str], name_expression: str) -> str | None:
    if len(entries) == 1:
        return entries[0]
    candidates = _candidates(entries, name_expression)
    if len(candidates) == 1:
        return candidates[0]
    pattern = _template_literal_pattern(name_expression)
    if pattern is not None:
        narrowed = [c for c in candidates if pattern.search(c)]
        if len(narrowed) == 1:
            return narrowed[0]
    return None


def cuda_resources(
    source: Path,
    name_expression: str,
    arch: str = "sm_90",
    *,
    options: Sequence[str] = (),
) -> KernelResources:
    """Resources of one kernel instantiation, compiled on its own with nvcc.

    One wrapper translation unit per instantiation keeps the report about
    that kernel alone.  Other ``__global__`` functions in the same file are
    compiled too; the mangled name is matched against the expression's
    identifier and template literals, and if that is ambiguous the file is
    compiled once more without the instantiation to see which entry it added.
    ``options`` are extra nvcc flags (they are part of the cache key).
    """
    source = Path(source).resolve()
    nvcc = find_tool("nvcc")
    key = _digest(
        {
            "kind": "cuda",
            "schema": _CACHE_SCHEMA,
            "source": _source_digest(source),
            "name_expression": name_expression,
            "arch": arch,
            "nvcc": _tool_version(nvcc),
            "options": list(options),
        }
    )
    if (cached := _cache_load(key)) is not None:
        return cached

    with tempfile.TemporaryDirectory(prefix="rosetta-nvcc-") as tmp:
        workdir = Path(tmp)
        cubin, log = _nvcc_compile(nvcc, source, name_expression, arch, options, workdir)
        entries = _parse_ptxas_log(log)
        names = list(entries)
        kernel = _pick_without_baseline(names, name_expression)
        if kernel is None:
            _, base_log = _nvcc_compile(nvcc, source, None, arch, options, workdir)
            baseline = _parse_ptxas_log(base_log)
            added = [n for n in names if n not in baseline]
            if len(added) != 1:
                added = [n for n in added if n in _candidates(added, name_expression)]
            if len(added) != 1:
                raise RuntimeError(
                    f"cannot tell which kernel in {source} is {name_expression!r}; entries: {names}"
                )
            kernel = added[0]
        sass = sass_mix(cubin, function=kernel)

    record = entries[kernel]
    resources = KernelResources(
        registers=record["registers"],
        shared_bytes=record["smem"],
        local_bytes=record["stack"] + record["lmem"],
        spill_stores=record["spill_stores"],
        spill_loads=record["spill_loads"],
        sass=sass,
        kernel=kernel,
    )
    _cache_store(key, resources)
    return resources


# --------------------------------------------------------------------------
# Triton kernels, compiled ahead of time for a GPUTarget
# --------------------------------------------------------------------------
def _unwrap_triton(fn: Any) -> Any:
    """Return a JITFunction for ``fn``.

    Accepts a JITFunction, an Autotuner/Heuristics wrapper (via ``.fn``), a
    plain Python function, or an InterpretedFunction (what ``@triton.jit``
    returns under ``TRITON_INTERPRET=1``).
    """
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    seen = 0
    while not isinstance(fn, (JITFunction, InterpretedFunction)) and hasattr(fn, "fn") and seen < 8:
        fn = fn.fn
        seen += 1
    if isinstance(fn, JITFunction):
        return fn
    if isinstance(fn, InterpretedFunction):
        return _reinterpreted_as_jit(fn, {}, JITFunction, InterpretedFunction)
    if isinstance(fn, types.FunctionType):
        return JITFunction(fn)
    raise TypeError(f"expected a triton.jit function, got {type(fn).__name__}")


def _reinterpreted_as_jit(interp: Any, memo: dict[int, Any], jit_cls: type, interp_cls: type) -> Any:
    """Build a JITFunction from an InterpretedFunction's Python function.

    ``triton.jit`` itself would hand back another InterpretedFunction while
    the interpreter knob is on, so JITFunction is constructed directly.
    Helper ``@triton.jit`` functions referenced by global name are converted
    the same way in a private copy of the globals; helpers reached through a
    module attribute or a closure are not (they stay interpreted and the
    compile fails with Triton's own error).
    """
    raw = interp.fn
    if id(raw) in memo:
        return memo[id(raw)]
    new_globals = dict(raw.__globals__)
    clone = types.FunctionType(raw.__code__, new_globals, raw.__name__, raw.__defaults__, raw.__closure__)
    clone.__qualname__ = raw.__qualname__
    clone.__kwdefaults__ = raw.__kwdefaults__
    clone.__module__ = raw.__module__
    accepted = inspect.signature(jit_cls.__init__).parameters
    kwargs = {k: v for k, v in getattr(interp, "kwargs", {}).items() if k in accepted}
    jit = jit_cls(clone, **kwargs)
    memo[id(raw)] = jit
    for name in raw.__code__.co_names:
        value = new_globals.get(name)
        if isinstance(value, interp_cls):
            new_globals[name] = _reinterpreted_as_jit(value, memo, jit_cls, interp_cls)
    return jit


def _triton_env_key() -> Any:
    # TRITON_INTERPRET only decides where the compile runs (here or in a child), not what it produces.
    try:
        from triton._C.libtriton import get_cache_invalidating_env_vars

        env = get_cache_invalidating_env_vars()
    except (ImportError, AttributeError):
        env = dict(sorted((k, v) for k, v in os.environ.items() if k.startswith("TRITON_")))
    if isinstance(env, dict):
        return sorted((k, v) for k, v in env.items() if k != "TRITON_INTERPRET")
    return env


def _triton_compile(src: Any, target: Any, options: Mapping[str, Any]) -> tuple[Any, str]:
    """Compile and capture ptxas's ``-v`` report.

    Triton always runs ptxas with ``-v`` and prints the log when
    ``knobs.nvidia.dump_ptxas_log`` (TRITON_DUMP_PTXAS_LOG) is set -- true
    for 3.6 and 3.9 -- but only when ptxas actually runs, so Triton's own
    cache is bypassed with ``always_compile`` for this one call.
    """
    import triton
    from triton import knobs

    buffer = io.StringIO()
    with contextlib.ExitStack() as stack:
        for group_name, knob in (("compilation", "always_compile"), ("nvidia", "dump_ptxas_log")):
            group = getattr(knobs, group_name, None)
            # Knobs are data descriptors on the class; hasattr() on the class
            # would call __get__ with no instance and fail.
            if group is not None and any(knob in vars(cls) for cls in type(group).__mro__):
                stack.enter_context(group.scope())
                setattr(group, knob, True)
        stack.enter_context(warnings.catch_warnings())
        # 3.9 warns that its fp-fusion default will change; the default is
        # what a normal launch uses, so keep it and drop the noise.
        warnings.filterwarnings("ignore", message=".*TRITON_DEFAULT_FP_FUSION.*")
        stack.enter_context(contextlib.redirect_stdout(buffer))
        compiled = triton.compile(src, target=target, options=dict(options))
    return compiled, buffer.getvalue()


def triton_resources(
    fn: Any,
    signature: dict[str, str],
    constexprs: dict[str, object],
    num_warps: int,
    num_stages: int,
    arch: int = 90,
    *,
    divisible_by_16: Iterable[str] | None = None,
    options: Mapping[str, Any] | None = None,
) -> KernelResources:
    """Resources of a Triton kernel compiled ahead of time (no GPU needed).

    Registers and stack come from ``cuobjdump -res-usage`` on the cubin,
    shared memory is static smem plus ``metadata.shared`` (the dynamic size
    Triton's launcher requests), spills from the ptxas log Triton prints
    with TRITON_DUMP_PTXAS_LOG; if that log is missing they are 0 and
    ``sass["LDL"]``/``sass["STL"]`` tell the story.

    ``divisible_by_16`` names the arguments to mark ``tt.divisibility=16``
    the way a launch does for 16-byte-aligned pointers and integers that are
    multiples of 16; the default marks every pointer argument, which is what
    a launch with freshly allocated tensors gets.  Without the mark Triton
    cannot vectorise, so the SASS mix would not match the kernel that runs.
    ``options`` are extra compile options (e.g. ``maxnreg``).

    Under TRITON_INTERPRET=1 (the CPU tier) the kernel's helpers are interpreter objects that the
    compiler cannot lower, so the compile runs in a child process with the interpreter off.
    """
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    jit_fn = _unwrap_triton(fn)
    arg_names = list(jit_fn.arg_names)
    if divisible_by_16 is None:
        divisible_by_16 = [name for name, ty in signature.items() if ty.startswith("*")]
    divisible_by_16 = list(divisible_by_16)
    if unknown := [name for name in divisible_by_16 if name not in arg_names]:
        raise ValueError(f"divisible_by_16 names {unknown} are not arguments of {jit_fn.__name__}{arg_names}")
    attrs = {(arg_names.index(name),): [["tt.divisibility", 16]] for name in divisible_by_16}
    src = ASTSource(fn=jit_fn, signature=dict(signature), constexprs=dict(constexprs), attrs=attrs)
    compile_options = {"num_warps": num_warps, "num_stages": num_stages, **(options or {})}
    key = _digest(
        {
            "kind": "triton",
            "schema": _CACHE_SCHEMA,
            "triton": triton.__version__,
            "source": src.hash(),  # function source, its callees, signature, constexprs, attrs
            "options": sorted((k, repr(v)) for k, v in compile_options.items()),
            "arch": arch,
            "env": _triton_env_key(),
        }
    )
    if (cached := _cache_load(key)) is not None:
        return cached
    if os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
        return _triton_resources_in_child(fn, signature, constexprs, num_warps, num_stages, arch,
                                          divisible_by_16, options)

    compiled, log = _triton_compile(src, GPUTarget("cuda", arch, 32), compile_options)
    kernel = compiled.metadata.name
    with tempfile.TemporaryDirectory(prefix="rosetta-triton-") as tmp:
        cubin = Path(tmp) / f"{kernel}.cubin"
        cubin.write_bytes(compiled.asm["cubin"])
        usage = _res_usage(cubin).get(kernel, {})
        sass = sass_mix(cubin, function=kernel)

    record = _parse_ptxas_log(log).get(kernel)
    if record is not None:
        static_shared = record["smem"]
        spill_stores, spill_loads = record["spill_stores"], record["spill_loads"]
    else:
        static_shared = max(0, usage.get("SHARED", 0) - _reserved_shared(arch))
        spill_stores = spill_loads = 0
    resources = KernelResources(
        registers=usage.get("REG", record["registers"] if record else 0),
        shared_bytes=static_shared + int(compiled.metadata.shared),
        local_bytes=usage.get("STACK", 0) + usage.get("LOCAL", 0),
        spill_stores=spill_stores,
        spill_loads=spill_loads,
        sass=sass,
        kernel=kernel,
    )
    _cache_store(key, resources)
    return resources


def _triton_resources_in_child(fn: Any, signature: dict[str, str], constexprs: dict[str, object], num_warps: int,
                               num_stages: int, arch: int, divisible_by_16: Iterable[str] | None,
                               options: Mapping[str, Any] | None) -> KernelResources:
    """triton_resources in a fresh interpreter with TRITON_INTERPRET unset; fn must be importable."""
    import json
    import subprocess
    import sys

    inner = getattr(fn, "fn", fn)
    request = {"module": inner.__module__, "name": inner.__name__, "signature": signature,
               "constexprs": constexprs, "num_warps": num_warps, "num_stages": num_stages, "arch": arch,
               "divisible_by_16": list(divisible_by_16) if divisible_by_16 is not None else None,
               "options": dict(options or {})}
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([os.getcwd(), str(Path(__file__).resolve().parents[1]),
                                         env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-m", "harness.resources"], input=json.dumps(request), env=env,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"Triton compile of {inner.__name__} failed: {proc.stderr.strip()[-2000:]}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    return KernelResources(**data)


def _child_main() -> None:
    import dataclasses
    import importlib
    import json
    import sys

    request = json.loads(sys.stdin.read())
    fn = getattr(importlib.import_module(request["module"]), request["name"])
    r = triton_resources(fn, request["signature"], request["constexprs"], request["num_warps"],
                         request["num_stages"], request["arch"], divisible_by_16=request["divisible_by_16"],
                         options=request["options"])
    print(json.dumps(dataclasses.asdict(r)))


if __name__ == "__main__":
    _child_main()
