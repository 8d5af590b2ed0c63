"""The numerics checks reject every deliberately wrong variant, and accept the right answer."""

from __future__ import annotations

import pytest
import torch

from harness import numerics
from harness.problems import Problem
from tests import wrong_kernels

# Odd M != N so a swapped grid leaves outputs unwritten; K spans several 16-wide tiles.
PROBLEM = Problem("sgemm", 37, 53, 48, alpha=2.0, beta=-0.5)


def _verdicts(run, device: str, problem: Problem = PROBLEM) -> list[numerics.Verdict]:
    out = []
    for layer in ("exact", "random"):
        ops = numerics.make_operands(problem, layer, seed=11, device=device)
        ref = numerics.reference(ops)
        vendor = None
        if layer == "random":
            c = ops.fresh_output(float("nan"))
            c.addmm_(ops.A, ops.B, beta=problem.beta, alpha=problem.alpha)
            vendor = numerics.forward_error(c, ref, numerics.error_scale(ops))
        result = ops.fresh_output(float("nan"))
        run(ops, result)
        if device == "cuda":
            torch.cuda.synchronize()
        out.append(numerics.check(result, ops, ref, poison=float("nan"), vendor_error=vendor))
    return out


@pytest.mark.parametrize("bug", [b for b in wrong_kernels.BUGS if b != "tf32"])
def test_wrong_kernel_is_rejected(bug, device):
    verdicts = _verdicts(lambda ops, c: wrong_kernels.launch(bug, ops.A, ops.B, c, PROBLEM.alpha, PROBLEM.beta),
                         device)
    assert not all(v.passed for v in verdicts), f"the checker let '{bug}' through: {verdicts}"


def test_the_same_kernel_without_a_bug_passes(device):
    verdicts = _verdicts(lambda ops, c: wrong_kernels.launch("none", ops.A, ops.B, c, PROBLEM.alpha, PROBLEM.beta),
                         device)
    assert all(v.passed for v in verdicts), verdicts


def _round_to_tf32(t: torch.Tensor) -> torch.Tensor:
    """Keep 10 explicit mantissa bits (round to nearest even), as the tensor cores' TF32 inputs do."""
    bits = t.contiguous().view(torch.int32)
    bias = ((bits >> 13) & 1) + 0x0FFF
    return ((bits + bias) & ~0x1FFF).view(torch.float32)


def test_tf32_products_are_rejected_where_ieee_is_declared():
    """A model of a TF32 dot: inputs rounded to TF32, fp32 accumulation (the interpreter ignores
    input_precision, so the real kernel's case runs in the GPU tier)."""
    p = Problem("sgemm", 64, 64, 512)

    def tf32_gemm(ops, c):
        c.copy_(p.alpha * (_round_to_tf32(ops.A) @ _round_to_tf32(ops.B)))

    exact, random = _verdicts(tf32_gemm, "cpu", p)
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
def test_tf32_kernel_is_rejected_on_the_gpu():
    p = Problem("sgemm", 256, 192, 1024)
    verdicts = _verdicts(lambda ops, c: wrong_kernels.launch("tf32", ops.A, ops.B, c, p.alpha, p.beta), "cuda", p)
    assert verdicts[0].passed and not verdicts[1].passed, verdicts


@pytest.mark.gpu
@pytest.mark.parametrize("bug", [b for b in wrong_kernels.BUGS if b != "tf32"])
def test_wrong_kernel_is_rejected_on_the_gpu(bug):
    verdicts = _verdicts(lambda ops, c: wrong_kernels.launch(bug, ops.A, ops.B, c, PROBLEM.alpha, PROBLEM.beta),
                         "cuda")
    assert not all(v.passed for v in verdicts), f"the checker let '{bug}' through: {verdicts}"
