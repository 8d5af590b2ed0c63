"""What each model costs to write, per rung with all three columns: lines of kernel code and the decisions the source
states, for the CUDA kernel, its plain Triton counterpart and its Gluon mirror, computed from the sources' text.

Lines: the lines that hold code (not blank, not only a comment or a docstring's text) of what the kernel is built
from: the .cu with the headers it includes (kernels_cuda.expanded); the Triton form's module; the Gluon form's module
and the kernels_gluon modules it imports but compat.py (which holds version shims, not the kernel).

Decisions: of the eleven kinds of decision a GEMM kernel of this suite makes (DECISIONS), those the source states
itself, each found by a marker in its text (the markers below, per model); a kind the compiler decides for the program
(the threads' layout, shared memory, the copy path, barriers of a Triton `tl.dot`) has no marker in its source. This is
a count of kinds, not of lines that decide: it says who writes a decision, not how hard it is.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from harness.catalog_types.gluon import GLUON_MIRROR
from harness.catalog_types.kernel import Kernel, Role
from harness.catalog_types.tables import DECISIONS

ROOT = Path(__file__).resolve().parents[2]

# kind -> (CUDA marker, Triton marker, Gluon marker); None: the model's source cannot state it (its compiler decides)
_MARKERS: dict[str, tuple[str | None, str | None, str | None]] = {
    "block tile": (r"\bBM\b|\bBLOCK_M\b", r"\bBLOCK_M\b", r"\bBM\b"),
    "threads' layout": (r"\bthreadIdx\b", None, r"\b(?:BlockedLayout|NVMMADistributedLayout|DotOperandLayout)\b"),
    "shared memory": (r"__shared__", None, r"\ballocate_shared_memory\b"),
    # CUDA: a padded pitch, an XOR swizzle of addresses, or a wgmma descriptor's swizzle mode (bits 62-63)
    "shared layout": (r"\bAPitch\b|\bAP\s*=|\^\s*\(|<<\s*62", None,
                      r"\b(?:PaddedSharedLayout|NVMMASharedLayout|SwizzledSharedLayout)\b"),
    "copy path": (r"cp\.async|float4", r"\bmake_tensor_descriptor\b", r"\b(?:cp_async_load|tma_load|descriptor)\b"),
    "stages": (r"\bSTAGES\b|cp_async_wait|\bcur\s*\^=", r"\bnum_stages\b", r"\bSTAGES\b|\bwait_group\b"),
    "synchronisation": (r"__syncthreads|barrier\.sync|\bmbar_", None, r"\bbarrier\(|\bmbarrier\."),
    "product instruction": (r"wgmma|mma\.sync|\+=\s*a_frag|\+=\s*a_reg|acc\[i\]\[j\]\s*\+=", None,
                            r"\b(?:warpgroup_mma|dot_fma|gl\.fma)\b"),
    "roles and registers": (r"setmaxnreg", r"\bwarp_specialize\b", r"\bwarp_specialize\b"),
    "block order": (r"\bGROUP", r"\bGROUP_M\b", r"\bGROUP"),
    "precision split": (r"cvt\.rna|cvt\.rn\.tf32|0xffffe000", r"\binput_precision\b", r"cvt\.rna|0xFFFFE000"),
}
_MODEL_INDEX = {"cuda": 0, "triton": 1, "gluon": 2}


def _python_code(text: str) -> str:
    """The code of a Python module without its docstrings and comments (what the markers and the line count read)."""
    tree = ast.parse(text)
    drop: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            drop.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    kept = [line.split("#", 1)[0] if "#" in line and '"' not in line.split("#", 1)[0][-1:] else line
            for i, line in enumerate(text.splitlines(), 1) if i not in drop]
    return "\n".join(line for line in kept if line.strip() and not line.strip().startswith("#"))


def _cuda_code(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line for line in (raw.split("//", 1)[0] for raw in text.splitlines()) if line.strip())


def _gluon_sources(module: str) -> list[Path]:
    """A Gluon form's module and the kernels_gluon modules it imports, compat.py (version shims) excepted."""
    path = ROOT / "kernels_gluon" / f"{module}.py"
    found = [path]
    for name in re.findall(r"^from kernels_gluon\.(\w+) import", path.read_text(encoding="utf-8"), re.M):
        if name not in ("compat", "forms") and (ROOT / "kernels_gluon" / f"{name}.py") not in found:
            found.append(ROOT / "kernels_gluon" / f"{name}.py")
    return found


def code(kernel: Kernel, model: str) -> str | None:
    """The kernel's code in a model (comments and docstrings out); None where it has none in that model."""
    if model == "cuda":
        from kernels_cuda import expanded, source_path

        return _cuda_code(expanded(source_path(kernel.source)))
    if model == "triton":
        plain = [c for c in kernel.counterparts if c.role is Role.PLAIN]
        if not plain:
            return None
        return _python_code((ROOT / "kernels_triton" / f"{plain[0].module}.py").read_text(encoding="utf-8"))
    mirror = [g for g in kernel.gluon if g.name == GLUON_MIRROR]
    if not mirror:
        return None
    return "\n".join(_python_code(p.read_text(encoding="utf-8")) for p in _gluon_sources(mirror[0].module))


def decisions(text: str, model: str) -> list[str]:
    """The kinds of decision the code states, in DECISIONS' order."""
    i = _MODEL_INDEX[model]
    return [kind for kind in DECISIONS if (marker := _MARKERS[kind][i]) is not None and re.search(marker, text)]


def cost(kernel: Kernel) -> dict[str, tuple[int, int]]:
    """model -> (lines of code, decisions stated) for each model the kernel is written in."""
    out: dict[str, tuple[int, int]] = {}
    for model in _MODEL_INDEX:
        text = code(kernel, model)
        if text is not None:
            out[model] = (len(text.splitlines()), len(decisions(text, model)))
    return out


def costs(kernels: tuple[Kernel, ...] | list[Kernel]) -> dict[str, dict[str, tuple[int, int]]]:
    """kernel id -> its cost, for every kernel written in all three models (the rungs with a Gluon mirror)."""
    return {k.id: cost(k) for k in kernels if any(g.name == GLUON_MIRROR for g in k.gluon)}
