"""CPU tier: every Gluon counterpart compiles for sm_90a with no GPU, within the budgets its design is for, on the
Triton installed here (the shared venv's 3.9, the GPU image's 3.6 in the second CI venv); where this Triton has no
usable Gluon, one line says so and the other columns are untouched.

What the GPU measures of these kernels is in the results; what is fixed at compile time is held here: registers
(<= 255, no spills where the design needs none), shared memory within a block's 227 KiB, and the SIMT summit's shared
loads per FFMA against its CUDA kernel's, read off both compiled kernels.
"""

from __future__ import annotations

import pytest

from harness.inspect.compile_gluon import gluon_resources
from harness.launch import gluon as launch_gluon
from harness.registry import BY_ID, KERNELS

NO_GLUON = launch_gluon.unavailable()
needs_gluon = pytest.mark.skipif(NO_GLUON is not None, reason=NO_GLUON or "")
PAIRS = [(k, g) for k in KERNELS for g in k.gluon]
SUMMIT = "rosetta.sgemm_general<128,256,16,32,128,8,16,8>"
MAX_SHARED = 227 * 1024  # an H100 block's shared memory, dynamic included


def _triton_minor() -> tuple[int, int]:
    import triton

    major, minor = triton.__version__.split(".")[:2]
    return int(major), int(minor)


@pytest.fixture(scope="module")
def compiled() -> dict:
    return dict(zip([(k.id, g.name) for k, g in PAIRS], gluon_resources(PAIRS, return_errors=True), strict=True))


def test_the_catalog_gives_gluon_forms_to_the_simt_summit_and_the_hopper_rungs():
    with_forms = {k.id for k, _ in PAIRS}
    assert SUMMIT in with_forms
    assert {k.id for k in KERNELS if k.id.startswith(("rosetta.wgmma_tma", "rosetta.wgmma_persistent",
                                                      "rosetta.wgmma_ws", "rosetta.wgmma_3xtf32_rs"))} <= with_forms


@needs_gluon
@pytest.mark.trust
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0].id} [gluon:{p[1].name}]")
def test_every_gluon_form_compiles_for_sm90a_within_its_budget(pair, compiled):
    kernel, form = pair
    r = compiled[(kernel.id, form.name)]
    assert not isinstance(r, Exception), f"{kernel.id} [gluon:{form.name}] did not compile: {r}"
    assert 0 < r.registers <= 255
    assert 0 < r.shared_bytes <= MAX_SHARED
    # No spill on the GPU image's Triton (3.6, the one the speed is measured with) nor, for the SIMT forms, on any:
    # 3.9's register allocation of the 3xTF32 partitions spills a few bytes (seen on the compile, not designed for)
    if _triton_minor() < (3, 7) or kernel.precision == "fp32":
        assert r.spill_stores == 0 and r.sass["LDL"] == 0, f"{r.spill_stores} bytes spilled"
    tensor_cores = kernel.precision != "fp32"
    assert (r.sass["HGMMA"] > 0) == tensor_cores and r.sass["HMMA"] == 0


@needs_gluon
def test_the_simt_summit_reads_shared_memory_16_bytes_at_a_time_as_often_per_ffma_as_cuda(compiled):
    """The per-thread tile is what sets the FFMAs per shared load: the Gluon summit takes the CUDA kernel's 8 x 16, so
    its compiled code must issue at least 95% of the CUDA kernel's FFMAs per LDS.128, and no narrower shared load."""
    from harness.inspect.resources import kernel_cuda_resources
    from harness.nvrtc.compiler import available

    g = compiled[(SUMMIT, "mirror")]
    assert g.sass["LDS.128"] > 0 and g.sass["LDS.64"] == 0
    ratio = g.sass["FFMA"] / g.sass["LDS.128"]
    assert ratio > 20, f"{ratio:.1f} FFMA per LDS.128"
    if not available():
        pytest.skip("no NVRTC: the CUDA kernel's side of the ratio is not compiled here")
    c = kernel_cuda_resources(BY_ID[SUMMIT])
    assert ratio >= 0.95 * c.sass["FFMA"] / c.sass["LDS.128"]


@needs_gluon
def test_a_tensor_descriptor_is_typed_as_the_launcher_types_it():
    """The ahead-of-time compile names the descriptor argument itself (no tensor, no GPU): it must be the type a
    launch's specialisation gives the same descriptor, or the SASS read here would be another kernel's."""
    import torch
    from triton.runtime.jit import mangle_type

    from kernels_gluon.wgmma_common import descriptor, descriptor_type

    for rows in (128, 256):
        assert descriptor_type(rows) == mangle_type(descriptor(torch.empty(rows * 2, 64), rows))


def test_without_a_usable_gluon_one_line_says_why_and_the_other_columns_run(monkeypatch):
    from harness.run.plan import gpu_models
    from kernels_gluon import compat

    line = "triton 0.0 has no usable Gluon (ImportError: test); the Gluon column needs triton 3.6 or later"
    monkeypatch.setattr(compat, "UNAVAILABLE", line)
    assert launch_gluon.unavailable() == line
    assert gpu_models() == ("cuda", "triton")
    kernel, form = PAIRS[0]
    [refused] = gluon_resources([(kernel, form)], return_errors=True)
    assert isinstance(refused, RuntimeError) and str(refused) == line
    with pytest.raises(RuntimeError, match="no usable Gluon"):
        launch_gluon.module(form)


def test_the_gluon_launcher_refuses_a_cpu_and_a_shape_its_cuda_kernel_refuses_before_any_launch():
    import torch

    kernel, form = next((k, g) for k, g in PAIRS if k.precision == "tf32")
    tensors = {"A": torch.zeros(100, 96), "B": torch.zeros(96, 128), "C": torch.zeros(100, 128)}
    with pytest.raises(ValueError, match="needs a GPU"):
        launch_gluon.bind(kernel, form, tensors, device_type="cpu")
    assert any("multiple" in why or "%" in why for why in launch_gluon.unmet_by(kernel, form, _problem(100, 128, 96)))


def _problem(m: int, n: int, k: int):
    from harness.problems import Problem

    return Problem("sgemm", m, n, k)


@needs_gluon
def test_the_cluster_rung_has_no_gluon_form_exactly_where_gluon_cannot_multicast():
    """The deviation is read off the installed API, not stated by hand: triton 3.6's Gluon TMA load takes no multicast
    argument; a Triton whose does (3.8, 3.9) could carry a cluster form (none is written yet: the GPU image is 3.6)."""
    from kernels_gluon import compat

    cluster = next(k for k in KERNELS if k.id.startswith("rosetta.wgmma_cluster"))
    assert not cluster.gluon
    multicast_in_api = _triton_minor() >= (3, 8)
    assert compat.TMA_MULTICAST is multicast_in_api


@needs_gluon
@pytest.mark.parametrize("pair", [(k, g) for k, g in PAIRS if k.idea == "general_shape"],
                         ids=lambda p: f"{p[0].id} [gluon:{p[1].name}]")
def test_the_any_shape_gluon_form_compiles_as_a_launch_on_1x1x1_specialises_it(pair):
    """A launch with M, N or K equal to 1 hands the kernel a Python int where it had a tensor (Triton specialises 1
    into a constant), so every use of the three must hold for both; the 1x1x1 launch's specialisation, compiled."""
    from dataclasses import replace

    from harness.inspect.compile_gluon import gluon_request
    from harness.inspect.compile_triton import _compile_request

    kernel, form = pair
    request = gluon_request(kernel, form)
    ones = {name: 1 for name in ("M", "N", "K") if name in request.signature}
    assert ones, "the form takes M, N and K as arguments"
    one = replace(request, signature={**request.signature, **dict.fromkeys(ones, "constexpr")},
                  constexprs={**request.constexprs, **ones},
                  divisible_by_16=tuple(n for n in request.divisible_by_16 or () if n not in ones))
    assert _compile_request(one).registers > 0


@needs_gluon
def test_a_gluon_form_compiles_in_a_process_whose_interpreter_ran_a_kernel_with_a_helper(device, tmp_path, monkeypatch):
    """Triton's interpreter patches triton.language while it runs a kernel, and a @triton.jit helper called inside
    (tl.cdiv) left triton.language.core patched for good: the 1x1x1 compile of the any-shape Gluon form after it failed
    ("'value' object has no attribute 'dtype'") when an interpreter test ran first. Every launch now leaves the language
    as it found it, so the compile passes after one too (a fresh compile cache: a cached report would hide it)."""
    if device != "cpu":
        pytest.skip("Triton's interpreter: the CPU tier")
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def tiles(out, n):
        tl.store(out, tl.cdiv(n, 16))  # a jit helper, called from an interpreted kernel

    language = {name: value for name, value in vars(tl.core).items() if callable(value)}
    out = torch.zeros(1, dtype=torch.int32)
    tiles[(1,)](out, 40)
    assert int(out) == 3
    assert [n for n, v in vars(tl.core).items() if callable(v) and language.get(n) is not v] == []
    monkeypatch.setenv("ROSETTA_CACHE_DIR", str(tmp_path))
    [(kernel, form)] = [(k, g) for k, g in PAIRS if k.id == SUMMIT and g.name == "mirror"]
    test_the_any_shape_gluon_form_compiles_as_a_launch_on_1x1x1_specialises_it((kernel, form))
