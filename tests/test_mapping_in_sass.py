"""The CUDA-to-Triton mappings the report states, checked in the compiled code (sm_90, no GPU needed)."""

from __future__ import annotations

import pytest

from harness import env, triton_side
from harness.registry import get
from harness.resources import cuda_resources
from kernels_cuda import source_path

pytestmark = pytest.mark.skipif(not env.has_nvcc(), reason="needs nvcc (or the CUDA toolkit) to compile for sm_90")


def _cuda_sass(kernel_id: str) -> dict[str, int]:
    k = get(kernel_id)
    return cuda_resources(source_path(k.source), k.symbol).sass


def test_warp_shuffle_reduction_and_tl_sum_both_compile_to_shfl():
    assert _cuda_sass("s003.coalesced_warp_sgemv")["SHFL"] >= 5  # offsets 16, 8, 4, 2, 1
    triton = triton_side.aot_resources(get("s003.coalesced_warp_sgemv").counterparts[0])
    assert triton["sass"]["SHFL"] >= 5


def test_float4_by_hand_and_by_the_compiler_both_give_16_byte_loads():
    assert _cuda_sass("rosetta.sgemv_float4<256,1>")["LDG.128"] > 0
    assert _cuda_sass("s003.coalesced_warp_sgemv")["LDG.128"] == 0
    triton = triton_side.aot_resources(get("rosetta.sgemv_float4<256,1>").counterparts[0])
    assert triton["sass"]["LDG.128"] > 0 and triton["sass"]["LDG.32"] == 0


def test_ieee_dot_is_ffma_through_shared_memory_not_tensor_cores():
    sass = triton_side.aot_resources(get("s000.gemm_block_tiling_v3<64,64,16,16,16>").counterparts[0])["sass"]
    assert sass["FFMA"] > 0 and sass["HMMA"] == 0 and sass["HGMMA"] == 0
    assert sass["LDS.128"] + sass["LDSM"] > 0  # operands staged in shared memory by the compiler


def test_padding_and_spills_of_the_seed_v2_kernel_are_visible():
    k = get("s000.gemm_block_tiling_v2<64,16,16>")
    r = cuda_resources(source_path(k.source), k.symbol)
    assert r.shared_bytes == 64 * 65 * 4 + 64 * 64 * 4  # As[64][64 + 1], Bs[64][64]
