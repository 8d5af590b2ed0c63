"""pytest-benchmark: one benchmark per (kernel, implementation, shape), grouped by problem.

pytest-benchmark times host calls; each round synchronises, so its wall time brackets the device
work. The figures to trust are in extra_info: the suite's own timer (CUDA events, L2 flushed, median)
and what follows from it. `pytest -m gpu --benchmark-only --benchmark-json=out.json` keeps them.
"""

from __future__ import annotations

import pytest
import torch

from harness.implementations import Impl, all_impls, baselines
from harness.numerics import poison_for
from harness.problems import DEFAULT_SGEMM, DEFAULT_SGEMV
from harness.runner import ProblemContext, figures, tensors
from harness.timing import time_gpu

pytestmark = pytest.mark.gpu
PROBLEMS = {"sgemm": DEFAULT_SGEMM[0], "sgemv": DEFAULT_SGEMV[1]}
CASES = [*baselines("sgemm"), *baselines("sgemv"), *all_impls()]
_cublas_ms: dict = {}


@pytest.mark.parametrize("impl", CASES, ids=lambda i: i.label)
def test_benchmark(benchmark, impl: Impl):
    problem = PROBLEMS[impl.op]
    if impl.unmet(problem):
        pytest.skip("; ".join(impl.unmet(problem)))
    ops = ProblemContext(problem, torch.device("cuda"), seed=5).operands(problem, "random")
    out = ops.fresh_output(poison_for(impl.reads_c_when_beta_zero))
    fn = impl.bind(tensors(ops, out), problem.alpha, problem.beta)
    t = time_gpu(fn, rep_ms=50)
    if impl.name == "cublas":
        _cublas_ms[problem.op] = t.median_ms
    benchmark.group = problem.label
    benchmark.extra_info.update({"device_median_ms": t.median_ms, "device_spread": t.spread, "flags": t.flags,
                                 **figures(impl, problem, t.median_ms, _cublas_ms.get(problem.op), None)})

    def run() -> None:
        fn()
        torch.cuda.synchronize()

    benchmark.pedantic(run, rounds=5, iterations=1, warmup_rounds=1)
