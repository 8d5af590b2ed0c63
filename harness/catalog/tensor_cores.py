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
fp32; bf16x6 must pass the fp32 checks, bf16x3 is labelled not fp32-accurate (harness/catalog_types/kernel.py).

TF32 entries are compared only with cuBLAS TF32 and checked against the tf32 bound; 3xTF32 entries are compared with
cuBLAS fp32 and must pass the fp32 checks.

The idea, its kernels and its mapping claims are declared here; Hopper's wgmma ladder (harness/catalog/hopper.py)
shares the conversion and split claims.
"""

from __future__ import annotations

from dataclasses import replace

from harness.catalog.seeds.kernels import GEMM_ALPHA_BETA
from harness.catalog_types.claim import COMPILER, PROGRAMMER, ByCompiler, ByKernel, Check, Claim
from harness.catalog_types.evidence import Evidence
from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import TF32_CONVERSION_TEXT, BLayout, Counterpart, Kernel, Precision, Role
from harness.problems.preconditions import dims_fit_int32

IDEA = Idea(
    "tensor_core",
    "Tensor cores: TF32 and 3xTF32 (tile-rosetta's step)",
    "mma.sync multiplies 16x8x8 tf32 tiles held in registers: 8x the FFMA rate, fed by ldmatrix from a "
    "swizzled, cp.async-pipelined shared tile. TF32 keeps 10 mantissa bits of each input (the CUDA kernel "
    "rounds them, Triton's tf32 dot truncates them); 3xTF32 splits each input into a tf32 high part and a tf32 "
    "remainder and issues three mma's, which is fp32-accurate again. "
    "Hopper's tf32 wgmma needs K-major B in shared memory, so B's layout in global memory decides Triton's "
    "fast path.",
)

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
        idea=IDEA.key, seed=None, section="tile-rosetta's step after the closing \"Tensor Cores\" paragraph",
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


def _conversion_is(declared: str | None, rn: int, rna: int, mask: int = 0) -> bool:
    """The conversions counted in the code (rounding instructions, truncation masks) are exactly those the
    registry's conversion implies."""
    return {"rn": rn > 0 and rna == 0 and mask == 0, "rna": rna > 0 and rn == 0 and mask == 0,
            "truncate": rn + rna + mask == 0,
            "truncate_rna": rna > 0 and rn == 0 and mask > 0}.get(declared, False)


def _cuda_conversion(ev: Evidence) -> bool:
    n = ev.cuda
    return _conversion_is(ev.kernel.tf32_conversion, n["src.cvt_rn_tf32"], n["src.cvt_rna_tf32"], n["src.tf32_mask"])


def _triton_conversion(ev: Evidence) -> bool:
    declared = ev.kernel.counterpart(ev.form).tf32_conversion(ev.kernel)
    n = ev.triton
    if declared is None:  # a bf16 split: no TF32 anywhere, bf16 MMAs fed by round-to-nearest conversions
        return (n["ptx.mma_tf32"] + n["ptx.cvt_rn_tf32"] + n["ptx.cvt_rna_tf32"] == 0 and n["ptx.mma_bf16"] > 0
                and n["ptx.cvt_rn_bf16"] > 0)
    if n["cfg.presplit"]:  # rounded before the product, on the bit pattern: the product converts nothing
        return n["ptx.mma_tf32"] > 0 and n["ptx.cvt_rn_tf32"] + n["ptx.cvt_rna_tf32"] == 0
    return n["ptx.mma_tf32"] > 0 and _conversion_is(declared, n["ptx.cvt_rn_tf32"], n["ptx.cvt_rna_tf32"])


def _sixteen_byte_only(ev: Evidence) -> bool:
    return ev.triton["LDGSTS.128"] > 0 and ev.triton["LDGSTS.32"] + ev.triton["STS.32"] == 0


def _row_major_b(ev: Evidence) -> bool:
    """tf32 forms transpose row-major B with 4-byte copies or stores; the bf16 splits (bf16 wgmma reads a transposed
    B) copy it 16 bytes at a time like K-major B."""
    if ev.triton["cfg.split_bf16"]:
        return _sixteen_byte_only(ev)
    return ev.triton["LDGSTS.32"] + ev.triton["STS.32"] > 0


def _split_as_stated(ev: Evidence, remade: bool = False) -> bool:
    """The ttgir's split is the one the form's input_precision names (harness/inspect/evidence.TRITON_SPLITS): its
    dots (bf16 ones for the bf16 splits), per operand parts - 1 subtractions and, for the parts, a cvt.rna.tf32 for
    tf32x3's big part or one truncf to bf16 per bf16 part, and one NaN guard wherever there is a split. `remade`:
    A's parts but the last are made a second time (parts - 1 more conversions, parts - 2 more subtractions)."""
    n = ev.triton
    dots, parts, bf16 = n["cfg.mma_passes"], n["cfg.split_parts"], n["cfg.split_bf16"]
    if n["cfg.presplit"]:  # split before the product: its ttgir has the dots and nothing of a split
        return (n["ttgir.warp_group_dot"] == dots and n["ttgir.dot_bf16"] + n["ttgir.to_bf16"]
                + n["ttgir.to_tf32_rna"] + n["ttgir.split_sub"] + n["ttgir.nan_guard"] == 0)
    split = parts > 1
    again = parts - 1 if remade and split else 0
    return (n["ttgir.warp_group_dot"] == dots and n["ttgir.dot_bf16"] == (dots if bf16 else 0)
            and n["ttgir.to_bf16"] == (2 * parts + again if bf16 else 0)
            and n["ttgir.to_tf32_rna"] == (2 + again if split and not bf16 else 0)
            and n["ttgir.split_sub"] == 2 * (parts - 1) + max(again - 1, 0) and n["ttgir.nan_guard"] == int(split))


def _cuda_split(ev: Evidence) -> bool:
    """The CUDA kernels write their split in the source: a 3xTF32 kernel converts its remainder to tf32 (cvt.rn or
    cvt.rna), and every conversion is the registry's."""
    n = ev.cuda
    remainder = n["src.cvt_rn_tf32"] + n["src.cvt_rna_tf32"] > 0
    return _cuda_conversion(ev) and (remainder or n["cfg.mma_passes"] != 3)


def _hmma_expected(ev: Evidence) -> int:
    """HMMA instructions in the SASS: passes x two copies of the main loop (its 16-byte and 4-byte copy paths)
    x the m16n8k8 tiles one warp computes per K tile."""
    n = ev.cuda
    warps = n["cfg.threads"] // 32
    return n["cfg.mma_passes"] * 2 * n["cfg.tile_m"] * n["cfg.tile_n"] * n["cfg.tile_k"] // (16 * 8 * 8 * warps)


TENSOR_CORE = (
    Claim("tensor-core instruction",
          "mma.sync.m16n8k8 tf32 written as inline PTX (HMMA), its A fragments loaded with ldmatrix (LDSM); no wgmma "
          "(HGMMA), which needs the sm_90a target the NVRTC path does not compile for",
          "tl.dot(input_precision='tf32', 'tf32x3', 'bf16x3' or 'bf16x6'): the compiler picks Hopper's wgmma "
          "(HGMMA, a #ttg.nvidia_mma version 3 accumulator, ttng.warp_group_dot)",
          COMPILER,
          Check("mma.sync; HMMA and LDSM, no HGMMA", lambda ev: ev.cuda["src.mma_sync"] > 0 and ev.cuda["HMMA"] > 0
                and ev.cuda["HGMMA"] == 0 and ev.cuda["LDSM"] > 0, ("src.mma_sync", "HMMA", "HGMMA", "LDSM")),
          Check("HGMMA from a version-3 mma layout; no HMMA", lambda ev: ev.triton["HGMMA"] > 0
                and ev.triton["HMMA"] == 0 and ev.triton["ttgir.mma_version"] == 3
                and ev.triton["ttgir.warp_group_dot"] >= 1, ("HGMMA", "HMMA", "ttgir.mma_version"))),
    Claim("TF32 or 3xTF32",
          "written by hand: 3xTF32 splits each operand into a tf32 high part and a tf32 remainder and issues three "
          "mma per product, TF32 one (HMMA = passes x 2 main-loop copies x the warp's m16n8k8 tiles per K tile)",
          "one argument: input_precision='tf32x3' makes the compiler split the tiles and issue three warp-group dots "
          "per K step, 'tf32' one; the bf16 splits, rows of their own class on the 3xTF32 kernels, three "
          "('bf16x3') and six ('bf16x6')",
          COMPILER,
          Check("HMMA count of the passes", lambda ev: ev.cuda["HMMA"] == _hmma_expected(ev),
                ("cfg.mma_passes", "HMMA")),
          Check("one warp_group_dot per pass",
                lambda ev: ev.triton["ttgir.warp_group_dot"] == ev.triton["cfg.mma_passes"],
                ("cfg.mma_passes", "ttgir.warp_group_dot"))),
    Claim("operand staging and pipelining",
          "three cp.async stages (LDGSTS) in dynamic shared memory (extern __shared__, sized at launch: none of it is "
          "static)",
          "num_stages (3 for the dot form, the tuner's choice for the tuned form): async copies into a swizzled "
          "NVMMA shared layout the compiler picks for wgmma, exactly when num_stages > 1",
          PROGRAMMER,
          Check("extern __shared__, LDGSTS; no static shared memory", lambda ev: ev.cuda["src.extern_shared"] > 0
                and ev.cuda["LDGSTS"] > 0 and ev.cuda["shared_bytes"] == 0 and ev.cuda["cfg.dynamic_smem"] > 0,
                ("src.extern_shared", "LDGSTS", "shared_bytes", "cfg.dynamic_smem")),
          Check("swizzled shared layout; async copies exactly when num_stages > 1",
                lambda ev: ev.triton["ttgir.shared_swizzled"] == 1
                and (ev.triton["cfg.num_stages"] > 1) == (ev.triton["ttgir.async_copy"] > 0),
                ("ttgir.shared_swizzled", "cfg.num_stages", "ttgir.async_copy"))),
    Claim("B's layout",
          "row-major B: tf32 has no transposing ldmatrix, so B's fragment is read with 16-byte LDS through a permuted "
          "column mapping (LDS.128 beside LDSM); K-major B (Bt, packed outside the timed region): ldmatrix for both "
          "operands, no LDS.128",
          "wgmma's tf32 B operand must be K-major in shared memory: row-major B is transposed on the way in (4-byte "
          "async copies or 4-byte shared stores); K-major B is copied as it lies (16-byte copies and stores only). "
          "The bf16 splits' B parts are bf16, which wgmma reads transposed: 16-byte copies for either layout",
          COMPILER,
          ByKernel({"row>": Check("LDS.128 and LDSM", lambda ev: ev.cuda["LDS.128"] > 0 and ev.cuda["LDSM"] > 0,
                                  ("LDS.128", "LDSM")),
                    "kmajor>": Check("LDSM, no LDS.128", lambda ev: ev.cuda["LDS.128"] == 0 and ev.cuda["LDSM"] > 0,
                                     ("LDS.128", "LDSM"))}),
          ByKernel({"row>": Check("4-byte copies or stores (bf16 splits: 16-byte copies and stores only)",
                                  _row_major_b, ("LDGSTS.32", "STS.32", "LDGSTS.128", "cfg.split_bf16")),
                    "kmajor>": Check("16-byte copies and stores only", _sixteen_byte_only,
                                     ("LDGSTS.32", "STS.32", "LDGSTS.128"))})),
)

TF32_CONVERSION = Claim(
    "fp32 to TF32 conversion",
    f"written by hand: every operand goes through to_tf32(), inline PTX cvt.rn.tf32.f32: it "
    f"{TF32_CONVERSION_TEXT['rn']} (proven on the .cu's asm text until the NVRTC build keeps its PTX); 3xTF32 "
    f"rounds its high part to nearest, ties away, on the bit pattern ((x + 0x1000) & 0xffffe000), and its remainder "
    f"with to_tf32()",
    f"input_precision='tf32': no conversion instruction in the PTX, the fp32 tile goes to wgmma as it is and the "
    f"tensor core reads its top 19 bits: it {TF32_CONVERSION_TEXT['truncate']}. 'tf32x3': the compiler splits each "
    f"operand with cvt.rna.tf32.f32: it {TF32_CONVERSION_TEXT['rna']}. Registry: Counterpart.tf32_rounding. The "
    f"bf16 splits have no TF32: cvt.rn.bf16.f32 (round to nearest even) and bf16 wgmma. The 'presplit' form rounds "
    f"the same way in its pre-pass, on the bit pattern ((x + 0x1000) & 0xffffe000), so its product's PTX has tf32 "
    f"MMAs and no conversion",
    COMPILER,
    Check("the registry's conversion (Kernel.tf32_conversion) is the asm the source writes",
          _cuda_conversion, ("src.cvt_rn_tf32", "src.cvt_rna_tf32", "src.tf32_mask", "src.tf32_round_bits")),
    Check("tf32 MMA in the PTX; its cvt.*.tf32.f32 are the registry's conversion (none: truncation); bf16 splits: "
          "no tf32, cvt.rn.bf16.f32 and bf16 MMA",
          _triton_conversion, ("ptx.cvt_rn_tf32", "ptx.cvt_rna_tf32", "ptx.mma_tf32", "ptx.cvt_rn_bf16",
                               "ptx.mma_bf16")))

_SPLIT_SHOWS = ("cfg.mma_passes", "cfg.split_parts", "ttgir.warp_group_dot", "ttgir.dot_bf16", "ttgir.to_bf16",
                "ttgir.to_tf32_rna", "ttgir.split_sub", "ttgir.nan_guard", "cfg.presplit")

OPERAND_SPLIT = Claim(
    "operand split",
    "written by hand: the TF32 kernels split nothing (one MMA per product); the 3xTF32 kernels split each operand into "
    "a tf32 big part and a tf32 remainder (the conversions of the row 'fp32 to TF32 conversion') and issue three MMAs "
    "per product (big·big, big·small, small·big; small·small dropped), summed from zero per K tile (the wgmma rung: "
    "per pair of K tiles) and added to the total in fp32. No bf16 split is written in CUDA",
    "one argument, split by the compiler (counted in the ttgir of the K loop; Triton 3.6 and 3.9 emit the same, 3.8 "
    "makes A's parts but the last a second time, see the check): "
    "'tf32' splits nothing, one dot per K step. 'tf32x3': two parts per operand, big = cvt.rna.tf32.f32 (an inline asm "
    "op) and small = x − big (one arith.subf), left fp32 for the tensor core to truncate; three dots, small·big and "
    "big·small from zero, a NaN in that partial sum set to 0 (arith.cmpf uno + select), then big·big, and the K "
    "step's sum added to the accumulator in fp32 (arith.addf). 'bf16x3': two bf16 parts, hi = truncf(x) and "
    "mid = truncf(x − hi) (two arith.truncf and one subf per operand; cvt.rn.bf16.f32, round to nearest even, in the "
    "PTX); three bf16 dots mid·hi, hi·mid, hi·hi (mid·mid dropped: about 2^-16 of each product, not fp32-accurate). "
    "'bf16x6': three bf16 parts, lo = truncf(x − hi − mid) too (three truncf and two subf per operand); six bf16 dots "
    "mid·mid, lo·hi, hi·lo, mid·hi, hi·mid, hi·hi (mid·lo, lo·mid and lo·lo dropped: about 2^-24); the same NaN guard "
    "and fp32 addition. The 'presplit' form (deliberately different) writes tf32x3's split by hand in a pre-pass "
    "kernel, once per operand element: its product's ttgir has the three dots and nothing of a split",
    COMPILER,
    Check("a 3xTF32 kernel converts its remainder to tf32; every conversion is the registry's", _cuda_split,
          ("cfg.mma_passes", "src.cvt_rn_tf32", "src.cvt_rna_tf32", "src.tf32_mask")),
    ByCompiler("triton", {
        "3.8": Check("Triton 3.8: the split as stated, with A's parts but the last made a second time, in the layout "
                     "of the shared-memory copy its later dots read (same values): parts - 1 more conversions and "
                     "parts - 2 more subtractions (tf32x3 3 cvt.rna.tf32, bf16x3 5 truncf, bf16x6 8 truncf and 5 "
                     "subf)", lambda ev: _split_as_stated(ev, remade=True), _SPLIT_SHOWS)},
        otherwise=Check("dots, bf16 dots, conversions (truncf to bf16, cvt.rna.tf32), subtractions and NaN guards as "
                        "the form's split names them", _split_as_stated, _SPLIT_SHOWS)))

IDEAS: dict[str, Idea] = {IDEA.key: IDEA}
CLAIMS: dict[str, tuple[Claim, ...]] = {IDEA.key: (*TENSOR_CORE, TF32_CONVERSION, OPERAND_SPLIT)}
