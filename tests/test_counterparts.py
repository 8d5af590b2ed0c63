"""Every Triton counterpart and the vendor baseline through both numerics layers and the beta == 0 test:
in the interpreter on small, odd shapes in the CPU tier (on the GPU where there is one)."""

from __future__ import annotations

import pytest
import torch

from harness.launch.implementations import Impl, all_impls, baselines
from harness.launch.triton import config
from harness.problems import Problem, cpu_problem
from harness.run.records import Numerics
from harness.run.runner import ProblemContext, check_numerics

SGEMV_SHAPES = (Problem("sgemv", 37, 45), Problem("sgemv", 5, 1031))
TRITON = all_impls(models=("triton",))


def _shapes(impl: Impl) -> tuple[Problem, ...]:
    """An odd shape with partial tiles on every edge, and a tile-aligned one; sized from the program's
    tile, since the interpreter's cost grows with programs x K steps."""
    if impl.op == "sgemv":
        return SGEMV_SHAPES
    cfg = config(impl.kernel, impl.counterpart)
    return (cpu_problem(impl.kernel, impl.counterpart), Problem("sgemm", 2 * cfg["block_m"], 2 * cfg["block_n"], 48))


def _check(impl: Impl, problem: Problem, device: str) -> Numerics:
    ctx = ProblemContext(problem, torch.device(device), seed=2024)
    return check_numerics(impl, ctx, device)


@pytest.mark.parametrize("shape", [0, 1], ids=["odd", "aligned"])
@pytest.mark.parametrize("impl", TRITON, ids=lambda i: i.label)
def test_counterpart_is_exact_and_within_bounds(impl, shape, device):
    result = _check(impl, _shapes(impl)[shape], device)
    assert result.passed, result
    assert result.exact.passed and result.random.error <= result.random.bound


@pytest.mark.parametrize("impl", [i for i in TRITON if i.op == "sgemm"], ids=lambda i: i.label)
def test_counterpart_honours_beta_zero_even_where_the_seed_does_not(impl, device):
    result = _check(impl, Problem("sgemm", 19, 21, 16), device)
    assert result.beta0.observed == "honours"


@pytest.mark.parametrize("op", ["sgemm", "sgemv"])
def test_vendor_baseline_passes_the_same_checks(op, device):
    for impl in baselines(op):
        if impl.tf32 and device == "cpu":
            continue  # TF32 exists only on the GPU
        shape = SGEMV_SHAPES[0] if op == "sgemv" else Problem("sgemm", 37, 45, 29)
        assert _check(impl, shape, device).passed
