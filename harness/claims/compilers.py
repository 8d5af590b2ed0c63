"""The compilers a mapping claim is proven on: their names and versions, which versions the suite is tested on, and
which this machine has.

A proof is a fact about the compiler that made the code (harness/analysis/proven.Verdict records its name and
version; proven.changed_and_false parts the checks that fail by it). pyproject.toml's [tool.tile-rosetta]
`tested-compilers` names the versions the suite is tested on, as version prefixes ("3.8": every 3.8.x): there a claim
must hold, with a version-specific statement (harness/catalog_types/claim.ByCompiler) where the compiled code
legitimately differs. A claim false on any other version is a changed mapping: what that compiler makes of the kernel
now, reported with its version, not a failure.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from harness.catalog_types.claim import version_in

__all__ = ["PYPROJECT", "installed", "is_tested", "side_compiler", "tested"]

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def side_compiler(side: str) -> str:
    """The compiler of a claim's side: "nvrtc" for "cuda", "triton" for "triton" and "gluon" (Gluon is Triton's)."""
    return "nvrtc" if side == "cuda" else "triton"


@cache
def tested() -> dict[str, tuple[str, ...]]:
    """pyproject's tested versions by compiler name: {"triton": ("3.6", "3.8", "3.9"), "nvrtc": ("13",)}."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the declared tomli backport
        import tomli as tomllib
    table = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["tile-rosetta"]["tested-compilers"]
    return {str(name): tuple(str(v) for v in versions) for name, versions in table.items()}


def is_tested(name: str, version: str) -> bool:
    """Whether the suite declares itself tested on this version of this compiler."""
    return any(version_in(version, prefix) for prefix in tested().get(name, ()))


def installed() -> dict[str, str]:
    """The versions of the compilers this machine would compile with, by name (a compiler that cannot be loaded is
    left out: its claims then fail saying it did not compile)."""
    out: dict[str, str] = {}
    try:
        import triton

        out["triton"] = str(triton.__version__)
    except ImportError:
        pass
    try:
        from harness.nvrtc.compiler import nvrtc_version

        out["nvrtc"] = nvrtc_version()
    except Exception:  # cuda-bindings or the NVRTC library missing
        pass
    return out
