"""The mapping claims of the tensor-core GEMMs (TF32 and 3xTF32, B row-major or K-major)."""

from __future__ import annotations

from harness.claims.checks import COMPILER, PROGRAMMER, ByKernel, Check, Claim
from harness.claims.evidence import Evidence
from harness.registry.types import TF32_CONVERSION_TEXT


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


def _split_as_stated(ev: Evidence) -> bool:
    """The ttgir's split is the one the form's input_precision names (harness/inspect/evidence.TRITON_SPLITS): its
    dots (bf16 ones for the bf16 splits), per operand parts - 1 subtractions and, for the parts, a cvt.rna.tf32 for
    tf32x3's big part or one truncf to bf16 per bf16 part, and one NaN guard wherever there is a split."""
    n = ev.triton
    dots, parts, bf16 = n["cfg.mma_passes"], n["cfg.split_parts"], n["cfg.split_bf16"]
    if n["cfg.presplit"]:  # split before the product: its ttgir has the dots and nothing of a split
        return (n["ttgir.warp_group_dot"] == dots and n["ttgir.dot_bf16"] + n["ttgir.to_bf16"]
                + n["ttgir.to_tf32_rna"] + n["ttgir.split_sub"] + n["ttgir.nan_guard"] == 0)
    split = parts > 1
    return (n["ttgir.warp_group_dot"] == dots and n["ttgir.dot_bf16"] == (dots if bf16 else 0)
            and n["ttgir.to_bf16"] == (2 * parts if bf16 else 0)
            and n["ttgir.to_tf32_rna"] == (2 if split and not bf16 else 0)
            and n["ttgir.split_sub"] == 2 * (parts - 1) and n["ttgir.nan_guard"] == int(split))


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

OPERAND_SPLIT = Claim(
    "operand split",
    "written by hand: the TF32 kernels split nothing (one MMA per product); the 3xTF32 kernels split each operand into "
    "a tf32 big part and a tf32 remainder (the conversions of the row 'fp32 to TF32 conversion') and issue three MMAs "
    "per product (big·big, big·small, small·big; small·small dropped), summed from zero per K tile (the wgmma rung: "
    "per pair of K tiles) and added to the total in fp32. No bf16 split is written in CUDA",
    "one argument, split by the compiler (counted in the ttgir of the K loop; Triton 3.6 and 3.9 emit the same): "
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
    Check("dots, bf16 dots, conversions (truncf to bf16, cvt.rna.tf32), subtractions and NaN guards as the form's "
          "split names them", _split_as_stated,
          ("cfg.mma_passes", "cfg.split_parts", "ttgir.warp_group_dot", "ttgir.dot_bf16", "ttgir.to_bf16",
           "ttgir.to_tf32_rna", "ttgir.split_sub", "ttgir.nan_guard", "cfg.presplit")))

_TMA_RUNGS = ("wgmma_tma<", "wgmma_ws<", "wgmma_persistent<", "wgmma_3xtf32<", "wgmma_3xtf32_rs<")
_SHARED_A_RUNGS = ("wgmma_smem<", "wgmma_tma<", "wgmma_ws<", "wgmma_persistent<", "wgmma_3xtf32<")

WGMMA_CONVERSION = Claim(
    "fp32 to TF32 conversion",
    f"the TF32 rungs write none: the fp32 tile goes to wgmma as it is and the tensor core reads its top 19 bits: "
    f"it {TF32_CONVERSION_TEXT['truncate']}. The 3xTF32 rungs keep that truncation as their high part and round "
    f"each remainder, x - (x & 0xffffe000), with cvt.rna.tf32.f32 (in shared memory or in registers: the row "
    f"'where the split is done'): they {TF32_CONVERSION_TEXT['truncate_rna']}",
    TF32_CONVERSION.triton,
    TF32_CONVERSION.decided_by,
    TF32_CONVERSION.cuda_check,
    TF32_CONVERSION.triton_check)

WGMMA = (
    Claim("tensor-core instruction",
          "wgmma.mma_async tf32 written as inline PTX (HGMMA), B read from shared memory through a matrix descriptor, "
          "A too except on the rung that takes A from registers; no mma.sync (HMMA)",
          "tl.dot(input_precision='tf32'): the compiler picks wgmma (HGMMA) for Hopper by itself",
          COMPILER,
          Check("wgmma in the source; HGMMA, no HMMA", lambda ev: ev.cuda["src.wgmma"] > 0 and ev.cuda["HGMMA"] > 0
                and ev.cuda["HMMA"] == 0, ("src.wgmma", "HGMMA", "HMMA")),
          Check("HGMMA, no HMMA", lambda ev: ev.triton["HGMMA"] > 0 and ev.triton["HMMA"] == 0, ("HGMMA", "HMMA"))),
    Claim("operand loads",
          "the first rung copies with cp.async from every thread (LDGSTS, no TMA); the later rungs hand the copy to "
          "the copy engine: tensor maps encoded on the host (cuTensorMapEncodeTiled) and passed as "
          "__grid_constant__ parameters, cp.async.bulk.tensor completing on an mbarrier (UTMALDG)",
          "tl.make_tensor_descriptor on the device: the compiler turns the descriptor loads into the copy engine's "
          "asynchronous copies (UTMALDG) and pipelines them itself",
          PROGRAMMER,
          ByKernel({"wgmma_smem<": Check("LDGSTS, no UTMALDG", lambda ev: ev.cuda["LDGSTS"] > 0
                                         and ev.cuda["UTMALDG"] == 0, ("LDGSTS", "UTMALDG")),
                    **{rung: Check("UTMALDG", lambda ev: ev.cuda["UTMALDG"] > 0, ("UTMALDG", "LDGSTS"))
                       for rung in _TMA_RUNGS}}),
          Check("UTMALDG (the descriptor loads are lowered to copy-engine copies in the pipelined ttgir)",
                lambda ev: ev.triton["UTMALDG"] > 0, ("UTMALDG", "LDGSTS"))),
    Claim("registers per role",
          "one producer and two consumer warpgroups (384 threads, __launch_bounds__(384, 1)): setmaxnreg "
          "(USETMAXREG) lowers the producer's registers and raises the consumers'; the 256-thread rungs have one "
          "role and no setmaxnreg",
          "tl.range(..., warp_specialize=True) asks the compiler to split loading and computing warps; how many "
          "registers each gets is the compiler's decision, not the kernel's",
          COMPILER,
          Check("USETMAXREG exactly on the 384-thread rungs",
                lambda ev: (ev.cuda["USETMAXREG"] > 0) == (ev.cuda["cfg.threads"] == 384),
                ("USETMAXREG", "cfg.threads")),
          Check("HGMMA under the compiler's own warp split (no register split written)",
                lambda ev: ev.triton["HGMMA"] > 0, ("HGMMA", "USETMAXREG"))),
)

SPLIT_PLACE = Claim(
    "where the split is done",
    "written by hand, per rung: the TF32 rungs split nothing and wgmma reads both tiles from shared memory (no "
    "LDSM). rosetta.wgmma_3xtf32: the producer warpgroup writes both operands' remainders into shared memory and "
    "every wgmma reads A and Bt there. rosetta.wgmma_3xtf32_rs: each consumer loads its A fragments (ldmatrix, "
    "LDSM), splits them in registers and hands them to wgmma as register operands; only Bt's remainders go through "
    "shared memory, written by the producer",
    "the compiler's: for a split (tf32x3 and the bf16 splits) it loads both tiles from shared memory into registers, "
    "splits them there, gives every dot its A part as a register operand (ttng.warp_group_dot on a dot_op tensor, "
    "wgmma's RS form) and writes B's parts back to shared memory for wgmma to read; with 'tf32' (no split) both "
    "operands stay in shared memory. The 'presplit' form splits before the product, into global memory: its dots "
    "read all four parts from shared memory, loaded by TMA",
    COMPILER,
    ByKernel({**{rung: Check("no LDSM: A goes to wgmma from shared memory", lambda ev: ev.cuda["LDSM"] == 0
                             and ev.cuda["src.ldmatrix"] == 0, ("LDSM", "src.ldmatrix"))
                 for rung in _SHARED_A_RUNGS},
              "wgmma_3xtf32_rs<": Check("ldmatrix in the source, LDSM in the SASS: A's fragments loaded to registers",
                                        lambda ev: ev.cuda["LDSM"] > 0 and ev.cuda["src.ldmatrix"] > 0,
                                        ("LDSM", "src.ldmatrix"))}),
    Check("every dot takes A from registers exactly when the compiler splits the operands",
          lambda ev: ev.triton["ttgir.warp_group_dot"] > 0 and ev.triton["ttgir.warp_group_dot_reg_a"]
          == (ev.triton["ttgir.warp_group_dot"] if ev.triton["cfg.split_parts"] > 1
              and not ev.triton["cfg.presplit"] else 0),
          ("ttgir.warp_group_dot", "ttgir.warp_group_dot_reg_a", "cfg.split_parts", "cfg.presplit")))

TC_CLAIMS: dict[str, tuple[Claim, ...]] = {"tensor_core": (*TENSOR_CORE, TF32_CONVERSION, OPERAND_SPLIT),
                                           "wgmma": (*WGMMA, WGMMA_CONVERSION, OPERAND_SPLIT, SPLIT_PLACE)}
