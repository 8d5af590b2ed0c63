"""One CUDA source through NVRTC (NVIDIA's Python bindings) to a cubin for an exact arch, cached on disk.

The cubin is what a GPU run loads (`cupy.RawModule(path=...)`) and what the CPU tier reads registers, spills and
SASS from: one compile path, one set of flags. `-Xptxas=-v` only makes ptxas report what it allocated (registers,
spills, barriers per entry); it does not change the code.

Cache: `$ROSETTA_CACHE_DIR/build/<digest>/` (default `~/.cache/tile-rosetta/build`) holds `module.cubin` and
`module.json` (lowered names, the compile log, seconds). The digest covers the source text, the text of every header
it includes, the name expressions, the options, the arch and the NVRTC version, so a changed header, compiler or flag
never serves a stale cubin.

Headers: a source's quoted `#include "x.cuh"` names a file beside it (kernels_cuda/); NVRTC gets each one's text by
name through nvrtcCreateProgram, so it reads exactly what the digest covers and no include path enters the options.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from kernels_cuda import includes

# Bump when what a cache entry holds changes meaning.
SCHEMA = 1
VERBOSE_PTXAS = "-Xptxas=-v"


class BuildError(RuntimeError):
    """NVRTC rejected a source: the message carries its log."""


@dataclass(frozen=True)
class Built:
    """A compiled module: where its cubin is, the mangled name of each name expression, and how it was made."""

    source: str                    # the .cu file's name
    arch: str
    options: tuple[str, ...]
    cubin: Path
    lowered: dict[str, str]        # name expression -> mangled entry name
    log: str                       # NVRTC's and ptxas's messages (ptxas -v: resources per entry)
    nvrtc: str                     # "13.0"
    seconds: float                 # compile time when built; 0.0 when it came from the cache
    cached: bool

    def to_json(self) -> dict:
        return {"source": self.source, "arch": self.arch, "options": list(self.options), "lowered": self.lowered,
                "log": self.log, "nvrtc": self.nvrtc, "seconds": self.seconds}


@cache
def nvrtc_version() -> str:
    from cuda.bindings import nvrtc

    _, major, minor = nvrtc.nvrtcVersion()
    return f"{major}.{minor}"


def available() -> bool:
    """Whether NVRTC can be loaded here (cuda-bindings and the NVRTC library both installed)."""
    try:
        nvrtc_version()
    except Exception:
        return False
    return True


def cache_root() -> Path:
    base = os.environ.get("ROSETTA_CACHE_DIR") or str(Path.home() / ".cache" / "tile-rosetta")
    return Path(base) / "build"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def digest(source_text: str, names: Sequence[str], arch: str, options: Sequence[str],
           headers: Mapping[str, str] | None = None) -> str:
    parts = {"schema": SCHEMA, "source": _sha256(source_text), "names": sorted(names), "arch": arch,
             "options": list(options), "nvrtc": nvrtc_version()}
    if headers:  # only where there are any: the keys of sources without headers stay what they were
        parts["headers"] = {name: _sha256(text) for name, text in headers.items()}
    blob = json.dumps(parts, sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:32]


def _check(result: tuple, what: str, prog: object = None) -> tuple:
    from cuda.bindings import nvrtc

    if result[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        log = _log(prog) if prog is not None else ""
        raise BuildError(f"NVRTC {what} failed ({result[0].name})" + (f":\n{log.strip()}" if log.strip() else ""))
    return result[1:]


def _log(prog: object) -> str:
    from cuda.bindings import nvrtc

    _, size = nvrtc.nvrtcGetProgramLogSize(prog)
    buf = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, buf)
    return buf.rstrip(b"\x00 ").decode(errors="replace")


def _compile(source_text: str, name: str, names: Sequence[str], arch: str, options: Sequence[str],
             headers: Mapping[str, str] | None = None) -> tuple[bytes, dict[str, str], str]:
    from cuda.bindings import nvrtc

    headers = headers or {}
    (prog,) = _check(nvrtc.nvrtcCreateProgram(source_text.encode(), name.encode(), len(headers),
                                              [text.encode() for text in headers.values()],
                                              [include.encode() for include in headers]), "create")
    try:
        for expr in names:
            _check(nvrtc.nvrtcAddNameExpression(prog, expr.encode()), f"name expression {expr!r}")
        flags = [f"--gpu-architecture={arch}", *options, VERBOSE_PTXAS]
        _check(nvrtc.nvrtcCompileProgram(prog, len(flags), [f.encode() for f in flags]),
               f"compile of {name} for {arch} with {' '.join(options)}", prog)
        log = _log(prog)
        (size,) = _check(nvrtc.nvrtcGetCUBINSize(prog), "cubin size")
        cubin = b" " * size
        _check(nvrtc.nvrtcGetCUBIN(prog, cubin), "cubin")
        lowered = {expr: _check(nvrtc.nvrtcGetLoweredName(prog, expr.encode()), f"lowered name of {expr!r}")[0]
                   .decode() for expr in names}
        return cubin, lowered, log
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def ptx(source: Path, names: Sequence[str], arch: str, options: Sequence[str]) -> tuple[str, dict[str, str]]:
    """The PTX NVRTC hands its own assembler when it builds `source` for `arch` with `options` (the same front end,
    stopped at the virtual arch: compute_90a for sm_90a), and the lowered names. Not cached: for ablations that
    assemble it elsewhere (harness/run/ablation.py)."""
    from cuda.bindings import nvrtc

    source = Path(source)
    headers = includes(source)
    (prog,) = _check(nvrtc.nvrtcCreateProgram(source.read_text().encode(), source.name.encode(), len(headers),
                                              [t.encode() for t in headers.values()], [h.encode() for h in headers]),
                     "create")
    try:
        for expr in names:
            _check(nvrtc.nvrtcAddNameExpression(prog, expr.encode()), f"name expression {expr!r}")
        flags = [f"--gpu-architecture={arch.replace('sm_', 'compute_')}", *options]
        _check(nvrtc.nvrtcCompileProgram(prog, len(flags), [f.encode() for f in flags]), f"PTX of {source.name}", prog)
        (size,) = _check(nvrtc.nvrtcGetPTXSize(prog), "PTX size")
        text = b" " * size
        _check(nvrtc.nvrtcGetPTX(prog, text), "PTX")
        lowered = {expr: _check(nvrtc.nvrtcGetLoweredName(prog, expr.encode()), f"lowered name of {expr!r}")[0]
                   .decode() for expr in names}
        return text.rstrip(b"\x00 ").decode(), lowered
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def build(source: Path, names: Sequence[str], arch: str, options: Sequence[str]) -> Built:
    """The cubin of `source` with every name expression in `names` instantiated, from the cache when it is there."""
    source = Path(source)
    text = source.read_text()
    try:
        headers = includes(source)
    except FileNotFoundError as e:
        raise BuildError(f"NVRTC compile of {source.name}: {e}") from e
    key = digest(text, names, arch, options, headers)
    folder = cache_root() / key
    meta_path, cubin_path = folder / "module.json", folder / "module.cubin"
    try:
        meta = json.loads(meta_path.read_text())
        if cubin_path.is_file():
            return Built(source.name, arch, tuple(options), cubin_path, meta["lowered"], meta["log"],
                         meta["nvrtc"], 0.0, True)
    except (OSError, ValueError, KeyError):
        pass
    started = time.perf_counter()
    cubin, lowered, log = _compile(text, source.name, names, arch, options, headers)
    built = Built(source.name, arch, tuple(options), cubin_path, lowered, log, nvrtc_version(),
                  time.perf_counter() - started, False)
    _store(folder, cubin, built.to_json())
    return built


def _store(folder: Path, cubin: bytes, meta: dict) -> None:
    """Write the cubin, then its metadata, each by rename: a reader sees a whole entry or none."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in (("module.cubin", cubin), ("module.json", json.dumps(meta, sort_keys=True).encode())):
        with tempfile.NamedTemporaryFile(dir=folder, prefix=f".{name}-", delete=False) as handle:
            handle.write(data)
        os.replace(handle.name, folder / name)
