"""Where the CUDA binary tools are: one search for nvcc, ptxas, cuobjdump, nvdisasm, ncu, compute-sanitizer.

Build hosts often have nvcc but not the binary utilities, or none of the toolkit at all: the copies
Triton ships (cuobjdump, nvdisasm, ptxas) are the last place looked, so SASS can be read anywhere
Triton is installed.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

__all__ = ["find_tool", "has_tool", "run", "tool_version", "triton_bin_dir"]


def triton_bin_dir() -> Path | None:
    """Triton's bundled CUDA binaries, found without importing triton (slow)."""
    try:
        spec = importlib.util.find_spec("triton")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "backends" / "nvidia" / "bin"


def find_tool(name: str) -> Path:
    """Locate a CUDA tool: PATH, ``$CUDA_HOME/bin``, ``/usr/local/cuda/bin``, then Triton's bundled copies.

    Raises RuntimeError naming every place searched.
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
    bundled = triton_bin_dir()
    if bundled is not None:
        candidates.append(bundled)
    else:
        looked.append("triton's backends/nvidia/bin (triton not installed)")
    for directory in candidates:
        path = directory / name
        looked.append(str(directory))
        if path.is_file() and os.access(path, os.X_OK):
            return path
    raise RuntimeError(f"cannot find CUDA tool {name!r}; looked in: {', '.join(looked)}")


def has_tool(name: str) -> bool:
    try:
        find_tool(name)
    except RuntimeError:
        return False
    return True


@functools.cache
def tool_version(path: Path) -> str:
    """The tool's --version text: part of every cache key, so a toolkit upgrade recompiles."""
    proc = subprocess.run([str(path), "--version"], capture_output=True, text=True, check=False)
    return proc.stdout.strip() or proc.stderr.strip()


def run(cmd: Sequence[str | Path], cwd: Path | None = None,
        timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd, check=False,
                          timeout=timeout)
