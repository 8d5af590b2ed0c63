"""GPU tier: the suite's NVRTC build on the device: the exact arch loaded through CuPy, fp32 semantics that keep
subnormals, and CuPy's default build (-ftz=true) caught by the subnormal layer."""

from __future__ import annotations

import pytest
import torch

from harness import nvrtc
from harness.launch import cuda as launch_cuda
from harness.launch.implementations import Impl, cupy_build_study
from harness.measure import numerics
from harness.problems import Problem
from harness.registry import BY_ID
from harness.run.runner import ProblemContext, check_numerics

pytestmark = pytest.mark.gpu

NAIVE = BY_ID["s000.gemm_naive"]
PROBLEM = Problem("sgemm", 512, 512, 512)


def _verdict(variant: str, layer: str) -> numerics.Verdict:
    """One numerics layer of the naive kernel built as `variant` builds it, judged as a kernel that declares nothing
    (the CuPy study's rows declare the flush: harness/launch/implementations.py cupy_build_study)."""
    ctx = ProblemContext(PROBLEM, torch.device("cuda"), seed=11)
    impl = Impl("cuda" if variant == "default" else f"cuda:{variant}", "sgemm", NAIVE)
    p = ctx.numerics_problem(layer, impl)
    ops = ctx.operands(p, layer)
    poison = numerics.poison_for(impl.reads_c_when_beta_zero)
    out = ops.fresh_output(poison)
    launch_cuda.bind(NAIVE, ops.tensors(out), p.alpha, p.beta, variant)()
    torch.cuda.synchronize()
    return numerics.check(out, ops, ctx.reference(p, layer), poison=poison)


def test_the_device_gets_its_exact_arch():
    major, minor = torch.cuda.get_device_capability()
    assert nvrtc.device_arch() == nvrtc.arch_for(major, minor)
    assert nvrtc.module(NAIVE.source, [NAIVE.symbol]).arch == nvrtc.device_arch()
    assert nvrtc.module(NAIVE.source, [NAIVE.symbol], variant="cupy").arch == nvrtc.device_arch().removesuffix("a")


def test_default_build_keeps_subnormals_on_the_gpu():
    verdict = _verdict("default", "subnormal")
    assert verdict.passed, verdict


def test_only_the_subnormal_layer_fails_the_kernel_built_as_cupy_builds_it_and_the_check_says_it_flushes():
    # the cause is named from every layer's verdict (numerics.failure): one layer alone cannot tell a flush from a bug
    layers = {layer: _verdict("cupy", layer) for layer in numerics.LAYERS}
    assert [name for name, v in layers.items() if not v.passed] == ["subnormal"], layers
    assert any(numerics.FLUSH_REASON in line for line in numerics.failure(layers)), numerics.failure(layers)


@pytest.mark.parametrize("impl", cupy_build_study(), ids=lambda i: i.label)
def test_cupy_build_study_rows_flush_as_declared_and_are_otherwise_right(impl):
    shape = Problem("sgemm", 512, 512, 512) if impl.op == "sgemm" else Problem("sgemv", 1024, 1024)
    from harness.problems.preconditions import allowed_shape

    result = check_numerics(impl, ProblemContext(allowed_shape(impl.kernel.preconditions, shape),
                                                 torch.device("cuda"), seed=5), "cuda")
    assert result.passed, result
    assert "(declared)" in result.subnormal.reason
