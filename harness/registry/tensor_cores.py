"""Tensor-core GEMMs (TF32 and fp32-accurate 3xTF32): the step seed 000 names last.

Seed 000 ends: "Tensors Cores can be used to do matrix-matrix multiplication directly ... we need to use these hardware
resources". These entries take that step in kernels_cuda/rosetta_tc_gemm.cu: mma.sync.m16n8k8 tf32 (HMMA) fed by a
cp.async pipeline, with a TF32 kernel and a 3xTF32 kernel on the same tile, each for row-major B (the suite's layout)
and for K-major B (the kernel takes Bt = B^T, N x K contiguous; the harness packs it once, outside the timed region,
and times the packing on its own). wgmma (HGMMA), which Hopper's full tensor rate needs, exists only for the sm_90a
target, and the NVRTC path always compiles for sm_90: that is why the CUDA side is mma.sync.

Each kernel has two Triton counterparts: "dot" (kernels_triton.gemm_tc) with the CUDA block's tile, K step, warps and
stages, and "tuned" (kernels_triton.gemm_tc_tuned), the same source with the tile chosen by @triton.autotune (its
launch ignores the derived tile; chosen_config() reports the winner).
The 3xTF32 kernels also carry Triton's bf16 splits on the tuned form, "tuned-bf16x3" and "tuned-bf16x6"
(input_precision "bf16x3" / "bf16x6"): rows of their own precision class beside the tf32x3 one, compared with cuBLAS
fp32; bf16x6 must pass the fp32 checks, bf16x3 is labelled not fp32-accurate (harness/registry/types.py).

TF32 entries are compared only with cuBLAS TF32 and checked against the tf32 bound; 3xTF32 entries are compared with
cuBLAS fp32 and must pass the fp32 checks.
"""

from __future__ import annotations

from dataclasses import replace

from harness.preconditions import dims_fit_int32
from harness.registry.seeds import GEMM_ALPHA_BETA
from harness.registry.types import BLayout, Counterpart, Kernel, Precision, Role

# (BM, BN, BK, WARPS_M, WARPS_N, STAGES, MIN_BLOCKS): 128 x 128 x 32 over 256 threads is the block tile an fp32
# SIMT kernel uses, so the comparison with the ladder is like for like; 256 x 128 (64 x 64 warp tiles) is the
# larger tile that did best with row-major B at 8192^3. 3xTF32 keeps 64 x 32 warp tiles: its per-K-tile
# accumulator doubles the accumulator registers.
_SIMT_TILE = (128, 128, 32, 2, 4, 3, 1)
_WIDE_TILE = (256, 128, 32, 4, 2, 3, 1)
_GROUP_M = 8  # the CUDA kernel's grouped block order, in the Triton programs too
# Triton's bf16 operand splits, registered beside tf32x3 on the fp32-accurate kernels (each a row of its own class)
BF16_SPLITS: tuple[Precision, ...] = ("bf16x3", "bf16x6")


def _counterparts(kmajor: bool, precision: Precision) -> tuple[Counterpart, ...]:
    # the tuner picks tile and stages at launch; num_stages here only shapes the ahead-of-time compile
    tuned = Counterpart("tuned", "gemm_tc_tuned", {"b_kmajor": kmajor}, num_stages=3, role=Role.TUNED)
    out = (Counterpart("dot", "gemm_tc", {"b_kmajor": kmajor, "group_m": _GROUP_M}, num_stages=3), tuned)
    if precision == "3xtf32":
        out += tuple(replace(tuned, name=f"tuned-{split}", precision=split) for split in BF16_SPLITS)
    return out


def _kernel(precision: Precision, tile: tuple[int, ...], b_layout: BLayout, notes: str) -> Kernel:
    bm, bn, bk, wm, wn, stages, min_blocks = tile
    kmajor = b_layout == "kmajor"
    name = {"tf32": "tc_gemm_tf32", "3xtf32": "tc_gemm_3xtf32"}[precision]
    symbol = f"{name}<{bm}, {bn}, {bk}, {wm}, {wn}, {stages}, {min_blocks}, {'true' if kmajor else 'false'}>"
    # the .cu header's launch line: A stages, then B stages (row-major B rows padded by 8 floats); over 48 KB, so
    # the launcher raises the function's dynamic shared-memory limit first
    smem = stages * (bm * bk + (bn * bk if kmajor else bk * (bn + 8))) * 4
    return Kernel(
        id=f"rosetta.tc_gemm<{precision},{bm},{bn},{bk},{wm},{wn},{stages},{b_layout}>", op="sgemm",
        idea="tensor_core", seed=None, section="tile-rosetta's step after the closing \"Tensor Cores\" paragraph",
        symbol=symbol, args=GEMM_ALPHA_BETA, block=(wm * wn * 32, 1, 1), tile_m=bm, tile_n=bn, tile_k=bk,
        preconditions=(dims_fit_int32(),), reads_c_when_beta_zero=False, counterparts=_counterparts(kmajor, precision),
        notes=notes, precision=precision, b_layout=b_layout, dynamic_smem=smem,
        # to_tf32() in the .cu: cvt.rn.tf32.f32 on every operand (both precisions; 3xTF32 on the high and low parts)
        tf32_conversion="rn")


_KMAJOR = "K-major B: the kernel reads Bt = B^T (N x K), packed once outside the timed region. "
_ROW = "Row-major B: mma.sync's B fragment is read with 16-byte loads through a permuted column mapping. "

KERNELS: tuple[Kernel, ...] = (
    _kernel("tf32", _SIMT_TILE, "row", _ROW + "Every operand rounded to tf32 (cvt.rn), fp32 accumulation."),
    _kernel("tf32", _SIMT_TILE, "kmajor", _KMAJOR + "Every operand rounded to tf32 (cvt.rn), fp32 accumulation."),
    _kernel("tf32", _WIDE_TILE, "row", _ROW + "64 x 64 warp tiles (255 registers, a few spilled)."),
    _kernel("tf32", _WIDE_TILE, "kmajor", _KMAJOR + "64 x 64 warp tiles (255 registers, a few spilled)."),
    _kernel("3xtf32", _SIMT_TILE, "row", _ROW + "Three mma's per product; each K tile summed from zero and added "
            "in fp32, because the tensor core's own accumulation does not round to nearest."),
    _kernel("3xtf32", _SIMT_TILE, "kmajor", _KMAJOR + "Three mma's per product; each K tile summed from zero and "
            "added in fp32, because the tensor core's own accumulation does not round to nearest."),
)
