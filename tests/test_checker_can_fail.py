"""The runner's own checker (runner.check_numerics) rejects every deliberately wrong variant, and
accepts the same kernel without its bug. On a GPU machine these run on the GPU (the `device` fixture)."""

from __future__ import annotations

import re

import pytest
import torch

from harness.launch import interpreter_precision
from harness.measure import numerics
from harness.problems import Problem
from harness.run.runner import ProblemContext, check_numerics
from tests import wrong_kernels

# Odd M != N so a swapped grid leaves outputs unwritten; K spans several 16-wide tiles.
PROBLEM = Problem("sgemm", 37, 53, 48, alpha=2.0, beta=-0.5)


def _check(bug: str, device: str, problem: Problem = PROBLEM):
    ctx = ProblemContext(problem, torch.device(device), seed=11)
    return check_numerics(wrong_kernels.WrongImpl(bug), ctx, device)


def _rounded_here(bug: str, device: str) -> None:
    """A reduced-precision dot's bug shows on a CPU only where the interpreter rounds its class."""
    precision = wrong_kernels.REDUCED_PRECISION.get(bug)
    if device == "cpu" and precision and (why := interpreter_precision.not_checked(precision)):
        pytest.skip(f"{bug}: {why}")


@pytest.mark.trust
@pytest.mark.parametrize("bug", wrong_kernels.BUGS)
def test_wrong_kernel_is_rejected_by_the_runners_checker(bug, device):
    _rounded_here(bug, device)
    result = _check(bug, device)
    assert not result.passed, f"the checker let '{bug}' through: {result}"


@pytest.mark.trust
def test_the_same_kernel_without_a_bug_passes_the_runners_checker(device):
    result = _check("none", device)
    assert result.passed, result


# K deep enough that the random layer's error of a bf16x3 split stays within 16x the library's (so only the scaled
# layer can catch it); on the GPU a wider problem, whose largest componentwise error reaches further into the split's
# 2^-16 per product against cuBLAS (seeded: the same operands every run).
SPLIT_PROBLEM = {"cpu": Problem("sgemm", 37, 53, 512, alpha=2.0, beta=-0.5),
                 "cuda": Problem("sgemm", 256, 192, 256, alpha=2.0, beta=-0.5)}


@pytest.mark.parametrize("bug", ["bf16x3", "bf16x3_dot"], ids=["written-out", "tl.dot"])
def test_the_scaled_layer_rejects_a_bf16x3_split_declared_fp32(bug, device):
    """bf16x3 (written out by hand: bf16 parts rounded to nearest, three exact products; or Triton's own
    input_precision="bf16x3") on a row declared fp32: the products of elements scaled over 2^-20..2^20 show its 2^-16
    per product, which uniform inputs average away."""
    _rounded_here(bug, device)
    result = _check(bug, device, SPLIT_PROBLEM[device])
    scaled = result.scaled
    assert result.exact.passed and not scaled.passed, result
    assert scaled.reason.startswith("scaled layer") and "library's" in scaled.reason, scaled.reason
    assert scaled.componentwise is not None and scaled.vendor_componentwise is not None
    if device == "cpu":  # the point of the layer: the random one alone lets it through
        assert result.random.passed and result.subnormal.passed, result


def test_the_same_split_passes_the_bound_of_its_own_class():
    """Held to bf16x3's own bound (K*u + 3 * 2^-16 per product term) and not to the library's error, the same
    products pass every layer: the bound is one such a split can meet."""
    p = SPLIT_PROBLEM["cpu"]
    bf16x3 = numerics.PRODUCT_ERROR["bf16x3"]
    for layer in ("random", "subnormal", "scaled"):
        ops = numerics.make_operands(p.with_scalars(*numerics.scalars_for(layer, True)), layer, seed=11, device="cpu")
        ref = numerics.reference(ops)
        out = _bf16x3_model(ops)
        v = numerics.check(out, ops, ref, poison=float("nan"), precision="bf16x3", fp32_accurate=False,
                           vendor_error=1e-9, vendor_componentwise=1e-9)
        assert v.passed and v.bound == p.K * numerics.U_FP32 + bf16x3, v
        assert v.componentwise <= v.bound and v.error <= v.bound
        fp32 = numerics.check(out, ops, ref, poison=float("nan"))
        assert fp32.bound < v.bound


def _bf16(t: torch.Tensor) -> torch.Tensor:
    return t.to(torch.bfloat16).to(torch.float32)  # round to nearest even, as cvt.rn.bf16.f32


def _bf16x3_model(ops: numerics.Operands) -> torch.Tensor:
    """hi*hi + hi*mid + mid*hi, each product exact in float64, summed in fp32 per 16-wide K step."""
    p = ops.problem
    a_hi, b_hi = _bf16(ops.A), _bf16(ops.B)
    a_mid, b_mid = _bf16(ops.A - a_hi), _bf16(ops.B - b_hi)
    acc = torch.zeros(p.M, p.N)
    for k0 in range(0, p.K, 16):
        k = slice(k0, k0 + 16)
        part = (a_mid[:, k].double() @ b_hi[k].double() + a_hi[:, k].double() @ b_mid[k].double()
                + a_hi[:, k].double() @ b_hi[k].double())
        acc = (acc.double() + part).float()
    out = p.alpha * acc.double()
    if p.beta != 0.0:
        out = out + p.beta * ops.C_in.double()
    return out.float()


def _round_to_tf32(t: torch.Tensor) -> torch.Tensor:
    """Keep 10 explicit mantissa bits (round to nearest even), as the tensor cores' TF32 inputs do."""
    bits = t.contiguous().view(torch.int32)
    bias = ((bits >> 13) & 1) + 0x0FFF
    return ((bits + bias) & ~0x1FFF).view(torch.float32)


def test_tf32_products_are_rejected_where_ieee_is_declared():
    """A model of a TF32 dot (inputs rounded to TF32, fp32 accumulation), on every layer; the real kernel's case is the
    wrong kernel "tf32" above (and on the GPU, at depth, below)."""
    p = Problem("sgemm", 64, 64, 512)
    out = []
    for layer in ("exact", "random", "scaled"):
        ops = numerics.make_operands(p, layer, seed=11, device="cpu")
        ref = numerics.reference(ops)
        vendor = numerics.errors((ops.A @ ops.B) * p.alpha, ops, ref)
        c = p.alpha * (_round_to_tf32(ops.A) @ _round_to_tf32(ops.B))
        out.append(numerics.check(c, ops, ref, poison=float("nan"), vendor_error=vendor[0],
                                  vendor_componentwise=vendor[1]))
    exact, random, scaled = out
    assert exact.passed, "small integers are exact in TF32: the exact layer cannot see it"
    assert not random.passed, random
    assert not scaled.passed and "exceeds the bound" in scaled.reason, scaled


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


@pytest.mark.parametrize("bug, layer", [("skip_last_k", "exact"), ("swap_grid", "exact"), ("zeros", "exact")])
def test_a_wrong_kernels_failure_names_its_layer_and_first_wrong_element_and_blames_no_flushing(bug, layer, device):
    result = _check(bug, device)
    said = "; ".join(result.failure_reasons())
    assert said.startswith(f"{layer} layer: ") and re.search(r"of \d+ outputs differ from the float64 result, first at "
                                                             r"\[\d+, \d+\]: \S+ vs \S+", said), said
    assert "flush" not in said and "reduced precision" not in said, said


def test_a_rounding_failure_names_the_first_output_past_the_bound_and_its_error_against_it():
    p = Problem("sgemm", 8, 8, 64)
    ops = numerics.make_operands(p, "random", seed=3, device="cpu")
    ref = numerics.reference(ops)
    out = ref.float().clone()
    out[2, 5] += 1e-3 * float(numerics.magnitudes(ops)[2, 5])  # one output off by 1e-3 of its own magnitude
    v = numerics.check(out, ops, ref, poison=float("nan"))
    assert not v.passed and v.reason.startswith("random layer: "), v
    assert "1 of 64 outputs past it, first at [2, 5]" in v.reason, v.reason
    assert f"(its error {v.error:.3g} against {v.bound:.3g})" in v.reason, v.reason  # normwise: the first test missed


def _layers(subnormal: numerics.Verdict, **failing: numerics.Verdict) -> dict:
    ok = {name: numerics.Verdict(True, name, 0.0, 1e-6) for name in numerics.LAYERS}
    return {**ok, "subnormal": subnormal, **failing}


def test_flushing_is_named_only_where_the_subnormal_layer_fails_alone():
    p = Problem("sgemm", 8, 8, 64)
    ops = numerics.make_operands(p, "subnormal", seed=3, device="cpu")
    ref = numerics.reference(ops)
    flushed = numerics.check(torch.zeros_like(ref.float()), ops, ref, poison=float("nan"))  # every product lost
    assert not flushed.passed and "flush" not in flushed.reason, flushed  # one layer alone tells no cause
    from harness.records.lines import Numerics

    alone = Numerics(False, **{k: v for k, v in _layers(flushed).items() if k != "subnormal"}, subnormal=flushed)
    said = "; ".join(alone.failure_reasons())
    assert said.startswith("subnormal layer: ") and said.endswith("only the subnormal layer fails: it flushes "
                                                                  "subnormal values to zero"), said
    from harness.analysis.measured import Measured
    from harness.records.lines import Result, Status
    from harness.report.metrics import NUMERICS

    row = Result("triton:dot", "triton", p, Status.FAILED, kernel="s004.block_tiling_gemm<32>", numerics=alone)
    assert NUMERICS.text(Measured.of([row]), row).startswith("✗ subnormal layer: forward error ")
    wrong = numerics.Verdict(False, "exact", 2.0, 0.0, reason="exact layer: 3 of 64 outputs differ")
    both = Numerics(False, exact=wrong, random=alone.random, subnormal=flushed, scaled=alone.scaled)
    said = "; ".join(both.failure_reasons())
    assert said.startswith("exact layer: 3 of 64") and "the subnormal layer fails too" in said and "flush" not in said
