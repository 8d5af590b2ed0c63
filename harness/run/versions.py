"""The toolchain a run used, as its results header records it."""

from __future__ import annotations

import contextlib
import shutil
import subprocess

from harness import __version__


def versions() -> dict[str, str]:
    """The toolchain a run used: Python packages, the NVRTC the suite builds with, and where present nvcc and the
    GPU driver (nvcc is informational: nothing in the suite calls it)."""
    out = {"tile-rosetta": __version__}
    for name in ("torch", "triton", "cupy", "numpy"):
        try:
            out[name] = __import__(name).__version__
        except Exception:
            out[name] = "absent"
    try:
        from cuda.bindings import __version__ as bindings_version

        out["cuda-bindings"] = bindings_version
    except Exception:
        out["cuda-bindings"] = "absent"
    try:
        from harness.nvrtc import nvrtc_version

        out["nvrtc"] = nvrtc_version()
    except Exception:  # cuda-bindings or the NVRTC library missing: the build records say so
        pass
    commands = {"nvcc": (["nvcc", "--version"],
                         lambda t: next(ln for ln in t.splitlines() if "release" in ln).rsplit(",", 1)[-1].strip()),
                "driver": (["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                           lambda t: t.strip().splitlines()[0])}
    for name, (cmd, parse) in commands.items():
        if shutil.which(cmd[0]) is None:
            continue
        with contextlib.suppress(Exception):
            out[name] = parse(subprocess.run(cmd, capture_output=True, text=True, timeout=20, check=True).stdout)
    return out
