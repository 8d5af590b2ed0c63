"""One problem's operands and float64 references at a time, shared by every implementation a GPU test checks on it,
as `rosetta run` shares them (a new problem frees the last one's). `tune`: whether autotuned implementations tune on
it (a problem a run times, the default problems) or run their declared configuration (a shape no run times)."""

from __future__ import annotations

import torch

from harness.problems import Problem
from harness.run.runner import ProblemContext

_contexts: dict[Problem, ProblemContext] = {}


def shared_context(problem: Problem, seed: int = 77, tune: bool = True) -> ProblemContext:
    if problem not in _contexts or _contexts[problem].tune != tune:
        _contexts.clear()
        _contexts[problem] = ProblemContext(problem, torch.device("cuda"), seed=seed, tune=tune)
    return _contexts[problem]
