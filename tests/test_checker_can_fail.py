"""The runner's own checker (runner.check_numerics) rejects every deliberately wrong variant, and
accepts the same kernel without its bug. On a GPU machine these run on the GPU (the `device` fixture)."""

from __future__ import annotations

import pytest
import torch

from harness import numerics
from harness.problems import Problem
from harness.run.runner import ProblemContext, check_numerics
from tests import wrong_kernels

# Odd M != N so a swapped grid leaves outputs unwritten; K spans several 16-wide tiles.
PROBLEM = Problem("sgemm", 37, 53, 48, alpha=2.0, beta=-0.5)


def _check(bug: str, device: str, problem: Problem = PROBLEM):
    ctx = ProblemContext(problem, torch.device(device), seed=11)
    return check_numerics(wrong_kernels.WrongImpl(bug), ctx, device)


@pytest.mark.parametrize("bug", [b for b in wrong_kernels.BUGS if b != "tf32"])
def test_wrong_kernel_is_rejected_by_the_runners_checker(bug, device):
    result = _check(bug, device)
    assert not result.passed, f"the checker let '{bug}' through: {result}"


def test_the_same_kernel_without_a_bug_passes_the_runners_checker(device):
    result = _check("none", device)
    assert result.passed, result


def _round_to_tf32(t: torch.Tensor) -> torch.Tensor:
    """Keep 10 explicit mantissa bits (round to nearest even), as the tensor cores' TF32 inputs do."""
    bits = t.contiguous().view(torch.int32)
    bias = ((bits >> 13) & 1) + 0x0FFF
    return ((bits + bias) & ~0x1FFF).view(torch.float32)


def test_tf32_products_are_rejected_where_ieee_is_declared():
    """A model of a TF32 dot (inputs rounded to TF32, fp32 accumulation): the interpreter ignores
    input_precision, so the real kernel's case is the GPU test below."""
    p = Problem("sgemm", 64, 64, 512)
    out = []
    for layer in ("exact", "random"):
        ops = numerics.make_operands(p, layer, seed=11, device="cpu")
        ref = numerics.reference(ops)
        vendor = numerics.forward_error((ops.A @ ops.B) * p.alpha, ref, numerics.error_scale(ops))
        c = p.alpha * (_round_to_tf32(ops.A) @ _round_to_tf32(ops.B))
        out.append(numerics.check(c, ops, ref, poison=float("nan"), vendor_error=vendor))
    exact, random = out
    assert exact.passed, "small integers are exact in TF32: the exact layer cannot see it"
    assert not random.passed, random


def test_unwritten_output_is_caught_with_the_finite_sentinel():
    """Kernels that read C with beta == 0 get a finite poison; an element left holding it fails."""
    p = Problem("sgemm", 8, 8, 8)
    ops = numerics.make_operands(p, "exact", 3, "cpu")
    out = ops.fresh_output(numerics.FINITE_SENTINEL)
    out[:7] = numerics.reference(ops)[:7].float()
    v = numerics.check(out, ops, numerics.reference(ops), poison=numerics.FINITE_SENTINEL)
    assert not v.passed and "never written" in v.reason


def test_nan_in_the_output_never_passes():
    p = Problem("sgemm", 4, 4, 4)
    ops = numerics.make_operands(p, "random", 5, "cpu")
    ref = numerics.reference(ops)
    out = ref.float().clone()
    out[2, 3] = float("nan")
    assert not numerics.check(out, ops, ref, poison=float("nan")).passed


@pytest.mark.gpu
def test_a_tf32_dot_declared_ieee_is_rejected_on_the_gpu():
    result = _check("tf32", "cuda", Problem("sgemm", 256, 192, 1024, alpha=2.0, beta=-0.5))
    assert result.exact.passed and not result.random.passed, result
