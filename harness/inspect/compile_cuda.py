"""CUDA sources through nvcc for sm_90, with no GPU: registers, memory, spills and the SASS mix.

One wrapper translation unit per instantiation keeps the report about that kernel alone. Taking the
address of the name expression forces the template instantiation, exactly as CuPy's name
expressions do through NVRTC.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from harness.inspect import cache
from harness.inspect.kernel_resources import KernelResources
from harness.inspect.ptxas import parse_ptxas_log
from harness.inspect.sass import sass_mix
from harness.inspect.tools import find_tool, run, tool_version

__all__ = ["cuda_resources", "nvcc_compile"]


def nvcc_compile(nvcc: Path, source: Path, name_expression: str | None, arch: str, options: Sequence[str],
                 workdir: Path) -> tuple[Path, str]:
    """Compile a wrapper TU to a cubin; returns the cubin and the ptxas log."""
    stem = "ref" if name_expression is not None else "base"
    wrapper = workdir / f"{stem}.cu"
    lines = [f'#include "{source}"']
    if name_expression is not None:
        lines.append(f"static void* const rosetta_ref = (void*)&{name_expression};")
    wrapper.write_text("\n".join(lines) + "\n")
    cubin = workdir / f"{stem}.cubin"
    # 177: rosetta_ref is deliberately unused.
    cmd = [nvcc, f"-arch={arch}", "-cubin", "-Xptxas", "-v", "-diag-suppress", "177", *options, "-o", cubin, wrapper]
    proc = run(cmd, cwd=workdir)
    log = proc.stdout + proc.stderr
    if proc.returncode != 0 or not cubin.is_file():
        what = name_expression if name_expression is not None else "(no instantiation)"
        raise RuntimeError(f"nvcc failed to compile {what} from {source} for {arch} "
                           f"(exit {proc.returncode}):\n{log.strip()}")
    return cubin, log


def _identifier(name_expression: str) -> str:
    head = name_expression.split("<", 1)[0]
    return head.strip(" &()\t").split("::")[-1].strip()


_PLAIN_TEMPLATE_ARG = re.compile(r"^(?:(-?)(\d+)[uUlL]*|(true|false)|[A-Za-z_][\w:]*(?:\s*\*)*)$")


def _template_literal_pattern(name_expression: str) -> re.Pattern[str] | None:
    """Ordered regex over the mangled literals (``Li16E``, ``Lb1E``) of plain template arguments.

    Only used when every argument is a bare literal or a simple type/constant name; with arithmetic in
    the expression the literals say nothing reliable about the mangled values, so no guess is made.
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


def cuda_resources(source: Path, name_expression: str, arch: str = "sm_90", *,
                   options: Sequence[str] = ()) -> KernelResources:
    """Resources of one kernel instantiation, compiled on its own with nvcc (cached on disk).

    Other ``__global__`` functions in the same file are compiled too; the mangled name is matched
    against the expression's identifier and template literals, and if that is ambiguous the file is
    compiled once more without the instantiation to see which entry it added. ``options`` are extra
    nvcc flags (part of the cache key).
    """
    source = Path(source).resolve()
    nvcc = find_tool("nvcc")
    key = cache.digest({"kind": "cuda", "source": cache.source_digest(source), "name_expression": name_expression,
                        "arch": arch, "nvcc": tool_version(nvcc), "options": list(options)})
    if (cached := cache.load(key)) is not None:
        return KernelResources.from_json(cached)

    with tempfile.TemporaryDirectory(prefix="rosetta-nvcc-") as tmp:
        workdir = Path(tmp)
        cubin, log = nvcc_compile(nvcc, source, name_expression, arch, options, workdir)
        entries = parse_ptxas_log(log)
        names = list(entries)
        kernel = _pick_without_baseline(names, name_expression)
        if kernel is None:
            _, base_log = nvcc_compile(nvcc, source, None, arch, options, workdir)
            baseline = parse_ptxas_log(base_log)
            added = [n for n in names if n not in baseline]
            if len(added) != 1:
                added = [n for n in added if n in _candidates(added, name_expression)]
            if len(added) != 1:
                raise RuntimeError(f"cannot tell which kernel in {source} is {name_expression!r}; entries: {names}")
            kernel = added[0]
        sass = sass_mix(cubin, function=kernel)

    record = entries[kernel]
    resources = KernelResources(registers=record["registers"], shared_bytes=record["smem"],
                                local_bytes=record["stack"] + record["lmem"], spill_stores=record["spill_stores"],
                                spill_loads=record["spill_loads"], sass=sass, kernel=kernel,
                                facts={"barriers": record["barriers"]})
    cache.store(key, resources.to_json())
    return resources
