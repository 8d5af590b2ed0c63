"""One problem's operands and float64 references at a time, shared by every implementation a GPU test checks on it,
as `rosetta run` shares them (a new problem frees the last one's)."""

from __future__ import annotations

import torch

from harness.problems import Problem
from harness.run.runner import ProblemContext

_contexts: dict[Problem, ProblemContext] = {}


def shared_context(problem: Problem, seed: int = 77) -> ProblemContext:
    if problem not in _contexts:
        _contexts.clear()
        _contexts[problem] = ProblemContext(problem, torch.device("cuda"), seed=seed)
    return _contexts[problem]
