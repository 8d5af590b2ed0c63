"""How the report names what it shows: a precision class, the cuBLAS a row is held against, a Triton launch's
settings, a record and an idea. Every page and finding names them through here, so they read alike everywhere."""

from __future__ import annotations

from harness.baselines import cublas_of
from harness.registry import IDEAS, PRECISION_CLASSES
from harness.report import anchors
from harness.report.doc import Inline, Link, Mono
from harness.run.records import Result

# How the report names each precision class: the registry's label, caveat included ("bf16x3 (not fp32-accurate)").
PRECISION_TEXT = {p: c.label for p, c in PRECISION_CLASSES.items()}


def baseline_label(precision: str) -> str:
    return "cuBLAS TF32" if cublas_of(precision) == "cublas-tf32" else "cuBLAS fp32"


def config_text(cfg: dict) -> str:
    """A Triton launch's settings in a few words: '64×64×16 tile, 2 warps, 3 stages, unroll'."""
    dims = [cfg[k] for k in ("block_m", "block_n", "block_k") if k in cfg]
    parts = ["×".join(map(str, dims)) + " tile"] if dims else []
    if "num_warps" in cfg:
        parts.append(f"{cfg['num_warps']} warp{'s' if cfg['num_warps'] != 1 else ''}")
    if cfg.get("num_stages", 1) != 1:
        parts.append(f"{cfg['num_stages']} stages")
    skip = {"block_m", "block_n", "block_k", "num_warps", "num_stages"}
    for key, value in cfg.items():
        if key in skip:
            continue
        parts.append(key if value is True else f"no {key}" if value is False else f"{key} {value}")
    return ", ".join(parts)



def idea_link(key: str) -> Link:
    return Link(IDEAS[key].title if key in IDEAS else key, anchors.href(anchors.idea(key)))


def who(r: Result) -> list[Inline]:
    """'`kernel`' for CUDA, 'Triton dot of `kernel`' for a counterpart, 'cuBLAS fp32' for a baseline."""
    if r.kernel is None:
        return [r.label]
    return [Mono(r.kernel)] if r.impl_id.is_cuda else [f"{r.label} of ", Mono(r.kernel)]
