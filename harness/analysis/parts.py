"""The page's parts, derived from the registry: one per (op, precision class) of an idea's kernels.

The fp32 SIMT SGEMM ideas form the ladder (in registry order: each rung adds one idea); tensor-core GEMMs
and GEMV follow as parts of their own. Nothing here lists ideas by hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.analysis.measured import Measured
from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import Kernel
from harness.run.records import Result

OP_ORDER = ("sgemm", "sgemv")


@dataclass(frozen=True)
class Part:
    op: str
    simt: bool                          # fp32 FFMA only (no tensor cores)
    ideas: tuple[tuple[Idea, tuple[Kernel, ...]], ...]

    @property
    def key(self) -> str:
        return f"part-{self.op}-{'simt' if self.simt else 'tc'}"

    @property
    def title(self) -> str:
        name = "GEMM" if self.op == "sgemm" else "GEMV"
        if self.op == "sgemm" and self.simt:
            return "The fp32 SIMT GEMM ladder"
        return f"{name} on tensor cores" if not self.simt else f"{name} (fp32 SIMT)"

    @property
    def is_ladder(self) -> bool:
        return self.op == "sgemm" and self.simt


def part_key(kernels: list[Kernel] | tuple[Kernel, ...]) -> tuple[str, bool]:
    return kernels[0].op, all(k.precision == "fp32" for k in kernels)


def parts(m: Measured) -> list[Part]:
    """The ideas of this run grouped into parts: ops in order, SIMT before tensor cores; ideas in registry order."""
    groups: dict[tuple[str, bool], list[tuple[Idea, tuple[Kernel, ...]]]] = {}
    for idea, kernels in m.ideas:
        groups.setdefault(part_key(kernels), []).append((idea, tuple(kernels)))
    order = sorted(groups, key=lambda k: (OP_ORDER.index(k[0]) if k[0] in OP_ORDER else len(OP_ORDER), not k[1]))
    return [Part(op, simt, tuple(groups[(op, simt)])) for op, simt in order]


def ladder(m: Measured) -> Part | None:
    return next((p for p in parts(m) if p.is_ladder), None)


def best_points(m: Measured, part: Part) -> list[tuple[int, str, Result]]:
    """(idea number within the part, model, best result) for every idea and precision class of the part that has a
    traffic model: the roofline's points."""
    problem = m.headline(part.op)
    out: list[tuple[int, str, Result]] = []
    if problem is None:
        return out
    for n, (_, kernels) in enumerate(part.ideas, 1):
        for precision in m.precisions(list(kernels), problem):
            for model, best in zip(("cuda", "triton"), m.bests(kernels, problem, precision), strict=True):
                if best and best.result.figures and best.result.figures.intensity:
                    out.append((n, model, best.result))
    return out

