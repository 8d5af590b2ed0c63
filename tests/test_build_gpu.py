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


def _subnormal_run(variant: str) -> tuple[torch.Tensor, numerics.Operands, torch.Tensor]:
    ctx = ProblemContext(PROBLEM, torch.device("cuda"), seed=11)
    impl = Impl("cuda" if variant == "default" else f"cuda:{variant}", "sgemm", NAIVE)
    p = ctx.numerics_problem("subnormal", impl)
    ops = ctx.operands(p, "subnormal")
    out = ops.fresh_output(numerics.poison_for(impl.reads_c_when_beta_zero))
    launch_cuda.bind(NAIVE, ops.tensors(out), p.alpha, p.beta, variant)()
    torch.cuda.synchronize()
    return out, ops, ctx.reference(p, "subnormal")


def test_the_device_gets_its_exact_arch():
    major, minor = torch.cuda.get_device_capability()
    assert nvrtc.device_arch() == nvrtc.arch_for(major, minor)
    assert nvrtc.module(NAIVE.source, [NAIVE.symbol]).arch == nvrtc.device_arch()
    assert nvrtc.module(NAIVE.source, [NAIVE.symbol], variant="cupy").arch == nvrtc.device_arch().removesuffix("a")


def test_default_build_keeps_subnormals_on_the_gpu():
    out, ops, ref = _subnormal_run("default")
    verdict = numerics.check(out, ops, ref, poison=numerics.poison_for(NAIVE.reads_c_when_beta_zero))
    assert verdict.passed, verdict


def test_only_the_subnormal_layer_fails_the_kernel_built_as_cupy_builds_it_and_the_record_says_it_flushes():
    # the cause is named from every layer's verdict (numerics.failure): one layer alone cannot tell a flush from a bug
    result = check_numerics(Impl("cuda:cupy", "sgemm", NAIVE), ProblemContext(PROBLEM, torch.device("cuda"), seed=11),
                            "cuda")
    assert not result.passed and not result.subnormal.passed
    assert all(v.passed for name, v in result.layers.items() if name != "subnormal"), result
    assert any(numerics.FLUSH_REASON in line for line in result.failure_reasons()), result.failure_reasons()


@pytest.mark.parametrize("impl", cupy_build_study(), ids=lambda i: i.label)
def test_cupy_build_study_rows_flush_as_declared_and_are_otherwise_right(impl):
    shape = Problem("sgemm", 512, 512, 512) if impl.op == "sgemm" else Problem("sgemv", 1024, 1024)
    from harness.problems.preconditions import allowed_shape

    result = check_numerics(impl, ProblemContext(allowed_shape(impl.kernel.preconditions, shape),
                                                 torch.device("cuda"), seed=5), "cuda")
    assert result.passed, result
    assert "(declared)" in result.subnormal.reason
