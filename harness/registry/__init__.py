"""The table of kernels: the single source of truth.

Each entry is one CUDA function with fixed template arguments, its launch geometry, what it needs of a
problem, whether it honours BLAS beta == 0 semantics, its Triton counterparts and what its document
published. Tests, the CLI and the report iterate over KERNELS; nothing else lists kernels.
"""

from __future__ import annotations

from harness.problems import Op
from harness.registry import gemv, hopper, ladder, seeds, tensor_cores
from harness.registry.ideas import IDEAS
from harness.registry.seeds import SECTION_EN, SEEDS, UNROLL_CLAIM
from harness.registry.types import (
    DERIVED,
    PRECISION_CLASSES,
    PRECISIONS,
    Counterpart,
    Deviation,
    Kernel,
    Precision,
    PrecisionClass,
    Published,
    PublishedRatio,
    Role,
    Seed,
    precision_caveat,
    precision_label,
)

KERNELS: tuple[Kernel, ...] = (*seeds.KERNELS, *gemv.KERNELS, *ladder.KERNELS, *tensor_cores.KERNELS,
                              *hopper.KERNELS)
BY_ID: dict[str, Kernel] = {k.id: k for k in KERNELS}

__all__ = ["BY_ID", "DERIVED", "IDEAS", "KERNELS", "PRECISIONS", "PRECISION_CLASSES", "SECTION_EN", "SEEDS",
           "UNROLL_CLAIM", "Counterpart", "Deviation", "Kernel", "Precision", "PrecisionClass", "Published",
           "PublishedRatio", "Role", "Seed", "get", "precision_caveat", "precision_label", "select"]


def get(kernel_id: str) -> Kernel:
    try:
        return BY_ID[kernel_id]
    except KeyError:
        close = [k for k in BY_ID if kernel_id.lower() in k.lower()]
        hint = f"; did you mean {', '.join(close[:5])}?" if close else "; `rosetta list` shows them all"
        raise ValueError(f"unknown kernel id {kernel_id!r}{hint}") from None


def select(patterns: list[str] | None = None, op: Op | None = None) -> list[Kernel]:
    """Kernels whose id contains any of the patterns (all when none), of one op when given."""
    chosen = [k for k in KERNELS if op is None or k.op == op]
    if patterns:
        chosen = [k for k in chosen if any(p in k.id for p in patterns)]
        if not chosen:
            raise ValueError(f"no kernel id matches {', '.join(map(repr, patterns))}; `rosetta list` shows them all")
    return chosen


def _validate() -> None:
    seen: set[str] = set()
    for k in KERNELS:
        if k.id in seen:
            raise RuntimeError(f"duplicate kernel id {k.id}")
        seen.add(k.id)
        if k.idea not in IDEAS:
            raise RuntimeError(f"{k.id}: unknown idea {k.idea!r}")
        names = [c.name for c in k.counterparts]
        if len(set(names)) != len(names):
            raise RuntimeError(f"{k.id}: counterpart names repeat")
        for c in k.counterparts:
            unknown = set(c.deviations) - set(DERIVED)
            if unknown:
                raise RuntimeError(f"{k.id} [{c.name}]: deviations from {sorted(unknown)}, not derived settings")
            c.config(k)  # raises where a derived setting is impossible and no deviation says why


_validate()
