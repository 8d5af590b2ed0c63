"""A tiling idea the worklogs teach: a key, a title and the lesson, for the report and `rosetta explain`.

How an idea maps onto CUDA and Triton (the decisions, who makes them, and the evidence that proves it in the compiled
kernels) is its claims, declared beside it in its family's catalog module; the proof, in harness/analysis/mapping.py.
"""

from __future__ import annotations

from dataclasses import dataclass

# Who decides a decision of an idea in Triton (a claim's `decided_by`, and the proven rows a record keeps).
PROGRAMMER = "programmer"
COMPILER = "compiler"


@dataclass(frozen=True)
class Idea:
    key: str
    title: str
    lesson: str
