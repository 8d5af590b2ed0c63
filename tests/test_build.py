"""The suite's own CUDA build (harness/nvrtc): NVRTC, the exact arch, declared fp32 semantics, a disk cache.

CPU tier: NVRTC needs no GPU, so every property of the build that the comparison depends on is checked on the
compiled code itself. The subnormal numerics layer is checked here against a CPU BLAS made to flush.
"""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

import pytest
import torch

from harness import nvrtc
from harness.inspect.compile_cuda import built_resources
from harness.measure import numerics
from harness.nvrtc import compiler as build_nvrtc
from harness.problems import Problem
from harness.registry import KERNELS, build_units, instantiations
from kernels_cuda import includes, source_path

ROOT = Path(__file__).resolve().parents[1]

needs_nvrtc = pytest.mark.skipif(not build_nvrtc.available(),
                                 reason="NVRTC (cuda-bindings + nvidia-cuda-nvrtc) not installed")


def test_hopper_gets_the_arch_specific_target_and_other_devices_the_plain_one():
    assert nvrtc.arch_for(9, 0) == "sm_90a"
    assert nvrtc.arch_for(8, 0) == "sm_80"
    assert nvrtc.arch_for(8, 9) == "sm_89"
    assert nvrtc.CPU_TIER_ARCH == "sm_90a"


def test_default_options_keep_subnormals_and_the_study_variant_is_cupys_flag():
    assert "-ftz=false" in nvrtc.DEFAULT.options and "-ftz=true" not in nvrtc.DEFAULT.options
    assert "-ftz=true" in nvrtc.CUPY.options and nvrtc.CUPY.flushes and not nvrtc.DEFAULT.flushes
    assert nvrtc.CUPY.arch("sm_90a") == "sm_90" and nvrtc.DEFAULT.arch("sm_90a") == "sm_90a"
    described = nvrtc.describe("sm_90a") if build_nvrtc.available() else None
    if described:
        assert described["arch"] == "sm_90a"
        assert described["variants"]["default"]["options"] == list(nvrtc.DEFAULT.options)


@needs_nvrtc
@pytest.mark.trust
def test_every_registered_kernel_builds_for_sm_90a_with_a_resolved_entry():
    # One build per source, every instantiation of it inside: each name expression must have its mangled entry
    # and ptxas must have reported its registers (the CPU tier's resources come from exactly this cubin). The
    # sources are built in the background first, as a worker does; module() then waits for each.
    nvrtc.prefetch(build_units(KERNELS), nvrtc.CPU_TIER_ARCH)
    for source, names in build_units(KERNELS):
        built = nvrtc.module(source, names, nvrtc.CPU_TIER_ARCH)
        assert built.arch == "sm_90a" and built.cubin.is_file()
        for kernel in (k for k in KERNELS if k.source == source):
            res = built_resources(built, kernel.symbol)
            assert res.kernel == built.lowered[kernel.symbol]
            assert res.registers > 0, kernel.id


@needs_nvrtc
def test_default_build_emits_no_flushing_instruction_and_cupys_default_build_does():
    # The compiled fact behind "fp32 semantics like Triton's ieee dot and cuBLAS": no FFMA.FTZ in the default build.
    kernel = next(k for k in KERNELS if k.id == "s000.gemm_naive")
    default = built_resources(nvrtc.module(kernel.source, instantiations(kernel), "sm_90a", "default"), kernel.symbol)
    flushing = built_resources(nvrtc.module(kernel.source, instantiations(kernel), "sm_90a", "cupy"), kernel.symbol)
    assert default.sass["FFMA"] > 0 and default.sass["FTZ"] == 0
    assert flushing.sass["FTZ"] >= flushing.sass["FFMA"] > 0


@needs_nvrtc
def test_every_kernel_of_the_default_build_is_free_of_flushing_instructions():
    for source, names in build_units(KERNELS):
        built = nvrtc.module(source, names, nvrtc.CPU_TIER_ARCH)
        for kernel in (k for k in KERNELS if k.source == source):
            assert built_resources(built, kernel.symbol).sass["FTZ"] == 0, kernel.id


@needs_nvrtc
def test_a_rejected_source_raises_with_nvrtcs_log(tmp_path, monkeypatch):
    monkeypatch.setenv("ROSETTA_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "broken.cu"
    src.write_text("__global__ void broken(float* p) { p[0] = not_declared; }\n")
    with pytest.raises(nvrtc.BuildError, match="not_declared"):
        build_nvrtc.build(src, ["broken"], "sm_90a", nvrtc.DEFAULT.options)


@needs_nvrtc
def test_a_cached_module_is_reused_and_a_changed_option_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("ROSETTA_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "k.cu"
    src.write_text("template <int N> __global__ void k(float* p) { p[threadIdx.x] *= N; }\n")
    first = build_nvrtc.build(src, ["k<3>"], "sm_90a", nvrtc.DEFAULT.options)
    again = build_nvrtc.build(src, ["k<3>"], "sm_90a", nvrtc.DEFAULT.options)
    other = build_nvrtc.build(src, ["k<3>"], "sm_90a", nvrtc.CUPY.options)
    assert not first.cached and again.cached and not other.cached
    assert again.cubin == first.cubin != other.cubin
    assert again.lowered == {"k<3>": "_Z1kILi3EEvPf"}


def _with_headers(folder: Path) -> tuple[Path, Path, Path]:
    """Two sources sharing a header, one through another header: (scale.cuh, k.cu, k2.cu)."""
    folder.mkdir(parents=True, exist_ok=True)
    header = folder / "scale.cuh"
    header.write_text("#pragma once\nconstexpr float SCALE = 3.0f;\n")
    (folder / "twice.cuh").write_text('#pragma once\n#include "scale.cuh"\nconstexpr float TWICE = 2.0f * SCALE;\n')
    k = folder / "k.cu"
    k.write_text('#include "scale.cuh"\n__global__ void k(float* p) { p[threadIdx.x] *= SCALE; }\n')
    k2 = folder / "k2.cu"
    k2.write_text('#include "twice.cuh"\n#include "scale.cuh"\n'
                  "__global__ void k2(float* p) { p[threadIdx.x] *= TWICE + SCALE; }\n")
    return header, k, k2


def test_a_sources_headers_are_found_beside_it_once_each_and_a_missing_one_is_named(tmp_path):
    header, k, k2 = _with_headers(tmp_path)
    assert list(includes(k)) == ["scale.cuh"]
    assert includes(k2) == {"twice.cuh": (tmp_path / "twice.cuh").read_text(), "scale.cuh": header.read_text()}
    k.write_text('#include "absent.cuh"\n' + k.read_text())
    with pytest.raises(FileNotFoundError, match=r'k\.cu includes "absent\.cuh"'):
        includes(k)


@needs_nvrtc
def test_headers_reach_nvrtc_by_name_without_an_include_path(tmp_path, monkeypatch):
    # From another working directory, with the declared options alone: NVRTC gets each header's text by name.
    monkeypatch.setenv("ROSETTA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    _, k, k2 = _with_headers(tmp_path / "src")
    for src, name in ((k, "k"), (k2, "k2")):
        built = build_nvrtc.build(src, [name], "sm_90a", nvrtc.DEFAULT.options)
        assert built.options == nvrtc.DEFAULT.options and built.cubin.is_file()


@needs_nvrtc
def test_a_header_change_rebuilds_every_source_that_includes_it(tmp_path, monkeypatch):
    monkeypatch.setenv("ROSETTA_CACHE_DIR", str(tmp_path / "cache"))
    header, k, k2 = _with_headers(tmp_path / "src")
    first = [build_nvrtc.build(src, [name], "sm_90a", nvrtc.DEFAULT.options) for src, name in ((k, "k"), (k2, "k2"))]
    assert not any(b.cached for b in first)
    header.write_text(header.read_text().replace("3.0f", "5.0f"))
    again = [build_nvrtc.build(src, [name], "sm_90a", nvrtc.DEFAULT.options) for src, name in ((k, "k"), (k2, "k2"))]
    assert not any(b.cached for b in again)  # k2 reaches scale.cuh through twice.cuh, and is rebuilt too
    assert {b.cubin for b in again}.isdisjoint({b.cubin for b in first})


@needs_nvrtc
def test_a_missing_header_is_a_build_error_that_names_it(tmp_path, monkeypatch):
    monkeypatch.setenv("ROSETTA_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "k.cu"
    src.write_text('#include "absent.cuh"\n__global__ void k(float* p) { p[0] = 1.0f; }\n')
    with pytest.raises(nvrtc.BuildError, match=r'includes "absent\.cuh"'):
        build_nvrtc.build(src, ["k"], "sm_90a", nvrtc.DEFAULT.options)


def test_a_sources_cache_key_covers_its_headers_and_is_unchanged_without_any():
    if not build_nvrtc.available():
        pytest.skip("the digest names the NVRTC version")
    args = ("src", ["k"], "sm_90a", nvrtc.DEFAULT.options)
    assert build_nvrtc.digest(*args) == build_nvrtc.digest(*args, {})
    assert build_nvrtc.digest(*args, {"a.cuh": "x"}) not in (build_nvrtc.digest(*args),
                                                            build_nvrtc.digest(*args, {"a.cuh": "y"}))


def test_the_package_ships_every_header_a_kernel_includes():
    tomllib = pytest.importorskip("tomllib")
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    shipped = patterns["kernels_cuda"]
    headers = {name for source, _ in build_units(KERNELS) for name in includes(source_path(source))}
    assert headers, "no kernel includes a header: the wgmma rungs share theirs"
    for name in sorted(headers):
        assert any(fnmatch(name, p) for p in shipped), f"{name} is not in kernels_cuda's package data {shipped}"


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
    assert not verdict.passed and verdict.layer == "subnormal"
    # the cause is named where the layers tell it apart: the subnormal layer failing alone
    assert any(numerics.FLUSH_REASON in line for line in numerics.failure({"subnormal": verdict}))


@pytest.mark.skipif(not _cpu_can_flush(), reason="this CPU cannot flush subnormals (torch.set_flush_denormal)")
def test_declared_flushing_passes_with_the_reason_recorded():
    verdict = _subnormal_check(flush=True, declares_flush=True)
    assert verdict.passed and "(declared)" in verdict.reason


def test_a_declared_flusher_that_keeps_subnormals_fails():
    verdict = _subnormal_check(flush=False, declares_flush=True)
    assert not verdict.passed and "declaration" in verdict.reason
