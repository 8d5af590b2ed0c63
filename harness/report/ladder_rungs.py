"""The SIMT ladder's rungs as the page numbers them: the ladder chart draws one bar pair per rung and the steps table
under it has one row per rung, both from this one list, so that rung n is the chart's n-th bar and the table's n-th
row.

A rung is an idea of the ladder part (parts.py: the fp32 SIMT sgemm ideas, seeds' and tile-rosetta's, in registry
order) with an fp32 CUDA kernel or Triton counterpart timed on the sgemm headline problem; an idea with nothing timed
there is no rung, so the numbers have no gaps.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.analysis.measured import Best, Measured
from harness.catalog_types.idea import Idea
from harness.registry import Kernel
from harness.report.parts import ladder

__all__ = ["Rung", "ladder_rungs"]


@dataclass(frozen=True)
class Rung:
    number: int                     # from 1: the chart's bar pair and the steps table's row
    idea: Idea
    kernels: tuple[Kernel, ...]
    cuda: Best | None               # the fastest CUDA kernel of the rung
    triton: Best | None             # the fastest Triton counterpart of the rung, of any form (the chart's bar)


def ladder_rungs(m: Measured) -> list[Rung]:
    """Every rung of the ladder on the sgemm headline problem, numbered from 1 in registry order."""
    part, problem = ladder(m), m.headline("sgemm")
    if part is None or problem is None:
        return []
    out: list[Rung] = []
    for idea, kernels in part.ideas:
        cuda = m.best(m.timed_of(list(kernels), problem, "cuda", "fp32"))
        triton = m.best(m.timed_of(list(kernels), problem, "triton", "fp32"))
        if cuda or triton:
            out.append(Rung(len(out) + 1, idea, kernels, cuda, triton))
    return out
