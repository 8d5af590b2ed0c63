"""The numbers a mapping claim's predicate reads, as plain data: no compiler, no GPU.

Every number has one flat name, so that a claim's predicate and the evidence a report prints use the same words:
SASS classes as the mix names them ("BAR", "LDS.128"), the compiler's allotment ("registers", "spills",
"shared_bytes", "local_bytes"), ptxas's "barriers", CUDA source facts ("src.syncthreads"), ttgir facts
("ttgir.local_alloc") and launch geometry ("cfg.num_warps", "cfg.outputs_per_thread"). Who fills them in:
harness/inspect/evidence.py, from a compile or a run's records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from harness.catalog_types.kernel import Kernel, Role

__all__ = ["Evidence", "KernelEvidence", "Numbers"]


class Numbers(dict[str, int]):
    """A compiled kernel's numbers by name; a missing name raises KeyError naming what there is."""

    def __missing__(self, key: str) -> int:
        raise KeyError(f"no evidence named {key!r}; known: {', '.join(sorted(self))}")

    def show(self, keys: Iterable[str]) -> str:
        """`"BAR 2, LDS.32 16"`: the named numbers as a report prints them."""
        return ", ".join(f"{k} {self[k]}" for k in keys)


@dataclass(frozen=True)
class Evidence:
    """What one predicate sees: the kernel, its CUDA numbers and (for a Triton-side check) one counterpart's, (for a
    Gluon-side check) one Gluon form's."""

    kernel: Kernel
    cuda: Numbers
    triton: Numbers = field(default_factory=Numbers)
    form: str = ""  # the counterpart's name; empty for a CUDA-side check
    gluon: Numbers = field(default_factory=Numbers)
    # the compilers the numbers were read off, by name: {"triton": "3.9.0", "nvrtc": "13.5"} (a claim's statement may
    # depend on the version: harness/catalog_types/claim.ByCompiler)
    compilers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class KernelEvidence:
    """A kernel's CUDA numbers and each counterpart's, keyed by counterpart name (its Gluon forms' in `gluon`). A side
    that could not be compiled is in `errors` ("cuda", the counterpart's name, or "gluon:<form>") with the compiler's
    reason, and its numbers are empty: every check of that side then fails with the reason."""

    kernel: Kernel
    cuda: Numbers
    triton: dict[str, Numbers]
    where: str = "sm_90, compiled ahead of time"
    errors: dict[str, str] = field(default_factory=dict)   # a Gluon form's under "gluon:<name>"
    gluon: dict[str, Numbers] = field(default_factory=dict)
    compilers: Mapping[str, str] = field(default_factory=dict)  # as Evidence.compilers

    def sides(self) -> list[Evidence]:
        return [Evidence(self.kernel, self.cuda, t, form, compilers=self.compilers) for form, t in self.triton.items()]

    def gluon_sides(self) -> list[Evidence]:
        """One Evidence per Gluon form, its numbers in `gluon` and the first Triton form's (the plain one) beside
        them, so that a Gluon check can compare the two columns on the same tile."""
        plain = [c.name for c in self.kernel.counterparts if c.role is Role.PLAIN and c.name in self.triton]
        first = self.triton[plain[0]] if plain else next(iter(self.triton.values()), Numbers())
        return [Evidence(self.kernel, self.cuda, first, form, g, self.compilers) for form, g in self.gluon.items()]
