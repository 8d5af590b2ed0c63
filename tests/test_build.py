"""The suite's own CUDA build (harness/build): NVRTC, the exact arch, declared fp32 semantics, a disk cache.

CPU tier: NVRTC needs no GPU, so every property of the build that the comparison depends on is checked on the
compiled code itself. The subnormal numerics layer is checked here against a CPU BLAS made to flush.
"""

from __future__ import annotations

import pytest
import torch

from harness import build, numerics
from harness.build import nvrtc as build_nvrtc
from harness.inspect.compile_cuda import built_resources
from harness.problems import Problem
from harness.registry import KERNELS

needs_nvrtc = pytest.mark.skipif(not build_nvrtc.available(),
                                 reason="NVRTC (cuda-bindings + nvidia-cuda-nvrtc) not installed")


def test_hopper_gets_the_arch_specific_target_and_other_devices_the_plain_one():
    assert build.arch_for(9, 0) == "sm_90a"
    assert build.arch_for(8, 0) == "sm_80"
    assert build.arch_for(8, 9) == "sm_89"
    assert build.CPU_TIER_ARCH == "sm_90a"


def test_default_options_keep_subnormals_and_the_study_variant_is_cupys_flag():
    assert "-ftz=false" in build.DEFAULT.options and "-ftz=true" not in build.DEFAULT.options
    assert "-ftz=true" in build.CUPY.options and build.CUPY.flushes and not build.DEFAULT.flushes
    assert build.CUPY.arch("sm_90a") == "sm_90" and build.DEFAULT.arch("sm_90a") == "sm_90a"
    described = build.describe("sm_90a") if build_nvrtc.available() else None
    if described:
        assert described["arch"] == "sm_90a"
        assert described["variants"]["default"]["options"] == list(build.DEFAULT.options)


@needs_nvrtc
def test_every_registered_kernel_builds_for_sm_90a_with_a_resolved_entry():
    # One build per source, every instantiation of it inside: each name expression must have its mangled entry
    # and ptxas must have reported its registers (the CPU tier's resources come from exactly this cubin). The
    # sources are built in the background first, as a worker does; module() then waits for each.
    build.prefetch(build.CPU_TIER_ARCH)
    for source in build.sources():
        built = build.module(source, build.CPU_TIER_ARCH)
        assert built.arch == "sm_90a" and built.cubin.is_file()
        for kernel in (k for k in KERNELS if k.source == source):
            res = built_resources(built, kernel.symbol)
            assert res.kernel == built.lowered[kernel.symbol]
            assert res.registers > 0, kernel.id


@needs_nvrtc
def test_default_build_emits_no_flushing_instruction_and_cupys_default_build_does():
    # The compiled fact behind "fp32 semantics like Triton's ieee dot and cuBLAS": no FFMA.FTZ in the default build.
    kernel = next(k for k in KERNELS if k.id == "s000.gemm_naive")
    default = built_resources(build.module(kernel.source, "sm_90a", "default"), kernel.symbol)
    flushing = built_resources(build.module(kernel.source, "sm_90a", "cupy"), kernel.symbol)
    assert default.sass["FFMA"] > 0 and default.sass["FTZ"] == 0
    assert flushing.sass["FTZ"] >= flushing.sass["FFMA"] > 0


@needs_nvrtc
def test_every_kernel_of_the_default_build_is_free_of_flushing_instructions():
    for source in build.sources():
        built = build.module(source, build.CPU_TIER_ARCH)
        for kernel in (k for k in KERNELS if k.source == source):
            assert built_resources(built, kernel.symbol).sass["FTZ"] == 0, kernel.id


@needs_nvrtc
def test_a_rejected_source_raises_with_nvrtcs_log(tmp_path, monkeypatch):
    monkeypatch.setenv("ROSETTA_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "broken.cu"
    src.write_text("__global__ void broken(float* p) { p[0] = not_declared; }\n")
    with pytest.raises(build.BuildError, match="not_declared"):
        build_nvrtc.build(src, ["broken"], "sm_90a", build.DEFAULT.options)


@needs_nvrtc
def test_a_cached_module_is_reused_and_a_changed_option_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("ROSETTA_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "k.cu"
    src.write_text("template <int N> __global__ void k(float* p) { p[threadIdx.x] *= N; }\n")
    first = build_nvrtc.build(src, ["k<3>"], "sm_90a", build.DEFAULT.options)
    again = build_nvrtc.build(src, ["k<3>"], "sm_90a", build.DEFAULT.options)
    other = build_nvrtc.build(src, ["k<3>"], "sm_90a", build.CUPY.options)
    assert not first.cached and again.cached and not other.cached
    assert again.cubin == first.cubin != other.cubin
    assert again.lowered == {"k<3>": "_Z1kILi3EEvPf"}


# --------------------------------------------------------------------------
# The subnormal numerics layer
# --------------------------------------------------------------------------
def _subnormal_check(flush: bool, declares_flush: bool) -> numerics.Verdict:
    problem = Problem("sgemm", 33, 35, 257)
    ops = numerics.make_operands(problem, "subnormal", seed=3, device="cpu")
    ref = numerics.reference(ops)
    torch.set_flush_denormal(flush)  # the CPU's FTZ/DAZ mode: what -ftz=true does on the GPU
    try:
        out = ops.A @ ops.B
    finally:
        torch.set_flush_denormal(False)
    return numerics.check(out, ops, ref, poison=float("nan"), declares_flush=declares_flush)


def _cpu_can_flush() -> bool:
    supported = torch.set_flush_denormal(True)
    torch.set_flush_denormal(False)
    return supported


def test_subnormal_layer_inputs_make_every_product_subnormal():
    ops = numerics.make_operands(Problem("sgemm", 16, 16, 64), "subnormal", seed=1, device="cpu")
    smallest_normal = torch.finfo(torch.float32).tiny
    products = (ops.A.double()[:, :, None] * ops.B.double()[None, :, :]).abs()
    assert float(products.max()) < smallest_normal
    assert float(ops.A.abs().max()) >= smallest_normal  # the inputs themselves are normal numbers


def test_subnormal_layer_passes_ieee_arithmetic():
    verdict = _subnormal_check(flush=False, declares_flush=False)
    assert verdict.passed and verdict.layer == "subnormal", verdict.reason


@pytest.mark.skipif(not _cpu_can_flush(), reason="this CPU cannot flush subnormals (torch.set_flush_denormal)")
def test_subnormal_layer_fails_a_flushing_implementation_and_says_so():
    verdict = _subnormal_check(flush=True, declares_flush=False)
    assert not verdict.passed
    assert numerics.FLUSH_REASON in verdict.reason


@pytest.mark.skipif(not _cpu_can_flush(), reason="this CPU cannot flush subnormals (torch.set_flush_denormal)")
def test_declared_flushing_passes_with_the_reason_recorded():
    verdict = _subnormal_check(flush=True, declares_flush=True)
    assert verdict.passed and "(declared)" in verdict.reason


def test_a_declared_flusher_that_keeps_subnormals_fails():
    verdict = _subnormal_check(flush=False, declares_flush=True)
    assert not verdict.passed and "declaration" in verdict.reason
