"""What a Gluon counterpart is: the CUDA kernel's own decisions written in Gluon, Triton's layout-level language.

The third column of the study. A Triton counterpart (harness/catalog_types/kernel.Counterpart) takes the CUDA
kernel's tile and warps and leaves the rest to the compiler; a Gluon counterpart takes every decision the CUDA kernel
makes (block, warp and thread tiles through explicit layouts, shared memory and its layout, the copy path, the
stages, barriers, roles and register split) and runs through the same compiler as the Triton one. So a CUDA-Triton
gap splits in two: Triton against Gluon on the same tile is what the programming model leaves to the compiler, Gluon
against CUDA is what the compiler does with the same decisions.

A Gluon counterpart's settings are the CUDA kernel's template arguments, read from its catalog entry's symbol and
named by `template` (one source for both columns), plus the tile the entry states and the `params` its text fixes
(rosetta.wgmma_ws's group of 8 tile rows, which its source writes as a constant). Where it departs from the CUDA
kernel, `deviations` says what and why, one sentence each.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

# The Gluon form that takes every decision its CUDA kernel makes: the one the model-or-compiler comparisons stand on.
GLUON_MIRROR = "mirror"
_TEMPLATE_ARGS = re.compile(r"<([^<>]*)>\s*$")


class Entry(Protocol):
    """What a Gluon form reads of its catalog kernel (harness/catalog_types/kernel.py Kernel, which holds its Gluon
    forms: so this module names none of kernel.py's types)."""

    id: str
    symbol: str
    tile_m: int
    tile_n: int
    tile_k: int
    precision: str


def template_args(symbol: str) -> tuple[int, ...]:
    """A CUDA symbol's integer template arguments: "sgemm_general<128, 256, 16>" -> (128, 256, 16); () for none."""
    found = _TEMPLATE_ARGS.search(symbol)
    if not found:
        return ()
    return tuple(int(a) for a in found.group(1).split(","))


@dataclass(frozen=True)
class GluonCounterpart:
    """A Gluon kernel that takes its CUDA kernel's decisions (kernels_gluon.<module>)."""

    name: str                 # unique among the kernel's Gluon forms: "mirror" takes every decision the CUDA kernel's
    module: str               # kernels_gluon.<module>
    template: tuple[str, ...]  # the names of the CUDA kernel's template arguments, in the symbol's order
    params: Mapping[str, int | bool | str] = field(default_factory=dict)   # what the CUDA text fixes, and the form
    # what departs from the CUDA kernel, by decision: {"producer": "one warp: ..."}; shown beside the row
    deviations: Mapping[str, str] = field(default_factory=dict)
    # Offsets formed in 64 bits on every operand's path; where False (the copy engine's coordinates, which the CPU
    # tier cannot see into), binding refuses operands past 2^31 elements.
    offsets_64bit: bool = True
    precision: str | None = None   # a precision class (kernel.py Precision); None: the kernel's

    def config(self, kernel: Entry) -> dict[str, int | bool | str]:
        """The settings its module's launch takes: the CUDA kernel's tile, its template arguments by name, params."""
        args = template_args(kernel.symbol)
        if len(args) != len(self.template):
            raise ValueError(f"{kernel.id} [gluon:{self.name}]: the symbol {kernel.symbol!r} has {len(args)} template "
                             f"arguments, the Gluon form names {len(self.template)}: {', '.join(self.template)}")
        out: dict[str, int | bool | str] = {"BM": kernel.tile_m, "BN": kernel.tile_n, "BK": kernel.tile_k}
        out.update(zip(self.template, args, strict=True))
        clash = {k for k in self.params if k in out and out[k] != self.params[k]}
        if clash:
            raise ValueError(f"{kernel.id} [gluon:{self.name}]: params {sorted(clash)} contradict the CUDA kernel's")
        return {**out, **self.params}

    def precision_of(self, kernel: Entry) -> str:
        return self.precision or kernel.precision

    def deviation_notes(self) -> list[str]:
        return [f"{key}: {why}" for key, why in self.deviations.items()]
