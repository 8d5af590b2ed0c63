"""The Gluon column of the catalog: which CUDA kernels have a Gluon counterpart (kernels_gluon/), and what each mapping
claim of their ideas says for Gluon, with the check that proves it on Gluon's compiled code.

A Gluon counterpart takes every decision its CUDA kernel makes (harness/catalog_types/gluon.py), so in the claims'
Gluon column the programmer decides what the CUDA programmer decides, except where the language leaves it to the
compiler (the launch's alignment specialisation, the order of loads inside a K tile, the barriers its compiler adds
around shared-memory accesses) or has no handle at all (TMA multicast in triton 3.6): those rows say so.

The family modules attach a kernel's forms where they build it (`forms(kernel_id)`), and harness/catalog attaches each
claim's Gluon side (`SIDES`); a test holds both to the catalog (every form names a kernel there, every claim of an
idea with a Gluon kernel has a side, every side names a claim).
"""

from __future__ import annotations

from harness.catalog_types.claim import COMPILER, PROGRAMMER, ByKernel, Check, GluonSide
from harness.catalog_types.evidence import Evidence
from harness.catalog_types.gluon import GLUON_MIRROR, GluonCounterpart

_SIMT = ("BM", "BN", "BK", "WM", "WN", "TM", "TN", "GROUP_M")
_GROUP = 8  # the grouped tile order of the Hopper rungs, a constant of their CUDA text (harness/catalog/hopper.py)
_TMA_64 = ("the copy engine addresses A and Bt through tensor descriptors, whose coordinates the CPU tier cannot "
           "prove 64-bit: operands past 2^31 elements are refused at bind, as for the Triton persistent form")
_PRODUCER = ("one warp (the CUDA kernel: a warpgroup of which one thread issues the copies); the block is rounded "
             "up to whole warpgroups, 384 threads as in CUDA")


def _mirror(module: str, template: tuple[str, ...], params: dict | None = None, deviations: dict | None = None,
            offsets_64bit: bool = True) -> tuple[GluonCounterpart, ...]:
    return (GluonCounterpart(GLUON_MIRROR, module, template, params or {}, deviations or {}, offsets_64bit),)


_GENERAL = _mirror("simt_general", _SIMT, deviations={
    "placement": "the accumulator's BlockedLayout repeats a thread's 4 x 4 pieces at the block tile's pitch (CUDA: "
                 "at the warp tile's): the same outputs, loads and wavefronts per thread and warp, placed differently",
    "edges": "B's columns past N are zero-filled by masked copies (CUDA: redirected to column 0); an odd number of "
             "K tiles gets one more tile of zeros (the loop takes the two stages in turn)",
    "copy width": "16-byte copies where the launch's specialisation marks K, N and the pointers multiples of 16 "
                  "bytes (CUDA: chosen at run time for K % 4 == 0, N % 4 == 0 and 16-byte pointers)",
    "fragment order": "each k's fragments are loaded before its FFMAs and ptxas orders them (CUDA: two fragment "
                      "sets by hand, the next k's loaded during this k's FFMAs)"})

FORMS: dict[str, tuple[GluonCounterpart, ...]] = {
    "rosetta.sgemm_general<128,256,16,32,128,8,16,8>": _GENERAL,
    "rosetta.sgemm_general<128,128,8,32,64,8,8,16>": _GENERAL,
    "rosetta.wgmma_smem<tf32,128,128,32,4,kmajor>": _mirror(
        "wgmma_tma", ("STAGES",), {"COPY": "cp.async", "GROUP": _GROUP}),
    "rosetta.wgmma_tma<tf32,128,128,32,4,kmajor>": _mirror(
        "wgmma_tma", ("STAGES",), {"COPY": "tma", "GROUP": _GROUP}, {
            "barriers": "A and Bt land on an mbarrier each (CUDA: one for both): Gluon's compiler puts a block "
                        "barrier between two mbarrier operations on one allocation, and two barriers let the expects "
                        "go together"}, offsets_64bit=False),
    "rosetta.wgmma_ws<tf32,128,256,32,4,kmajor>": _mirror(
        "wgmma_ws", ("STAGES",), {"GROUP": _GROUP, "PERSISTENT": False}, {"producer": _PRODUCER},
        offsets_64bit=False),
    "rosetta.wgmma_persistent<tf32,128,256,32,4,kmajor>": _mirror(
        "wgmma_ws", ("STAGES", "GROUP"), {"PERSISTENT": True}, {"producer": _PRODUCER}, offsets_64bit=False),
    "rosetta.wgmma_3xtf32_rs<3xtf32,128,128,32,4,kmajor>": _mirror(
        "wgmma_3xtf32_rs", ("STAGES", "GROUP"), deviations={
            "producer": _PRODUCER,
            "split warps": "two warps, a partition of their own (CUDA: warps 1-3 of the producer warpgroup; a "
                           "Gluon partition's warps are a power of two)",
            "pairs": "the pair loop has no branch inside and an odd K tile count ends with one tile after it (a "
                     "wgmma chain across a branch is serialised by ptxas, info C7512)"}, offsets_64bit=False),
}


def forms(kernel_id: str) -> tuple[GluonCounterpart, ...]:
    """The Gluon counterparts of a CUDA kernel (none where it has no Gluon form)."""
    return FORMS.get(kernel_id, ())


# ---------------------------------------------------------------------------------------------------- claims
def _wide_global(n: dict) -> bool:
    return n["LDG.128"] + n["LDGSTS.128"] > 0 and n["LDG.32"] + n["LDG.64"] + n["LDGSTS.32"] == 0


_GENERAL_SIDES = {
    "bounds": GluonSide(
        "written as in CUDA: rows of A past M read row M-1 (clamped once, before the K loop), K tiles aligned to "
        "K's end so that only the two tiles loaded before the loop test k (masked), B's columns past N zero-filled "
        "by masked copies, the stores masked; no tile-multiple precondition",
        PROGRAMMER,
        Check("masked loads, copies and stores; no tile-multiple precondition",
              lambda ev: ev.gluon["ttgir.masked"] >= 3 and ev.gluon["cfg.tile_preconditions"] == 0,
              ("ttgir.masked", "cfg.tile_preconditions"))),
    "alignment": GluonSide(
        "the launch's, as in Triton: pointers and sizes divisible by 16 are marked when the kernel is compiled for "
        "them, and only 16-byte global loads and cp.async are emitted (LDG.128, LDGSTS.128); another alignment "
        "compiles another kernel",
        COMPILER,
        Check("only 16-byte global loads and async copies", lambda ev: _wide_global(ev.gluon),
              ("LDG.128", "LDGSTS.128", "LDG.32", "LDGSTS.32"))),
    "block order": GluonSide(
        "the CUDA kernel's GROUP_M, the renumbering computed in the kernel text from program_id",
        PROGRAMMER,
        Check("GROUP_M > 1", lambda ev: ev.gluon["cfg.group_m"] > 1, ("cfg.group_m",))),
    "K-loop pipelining": GluonSide(
        "written by hand as in CUDA: two stages, one shared allocation each (the compiler's barriers are per "
        "allocation), A through registers (16-byte loads, 4-byte transposing stores), B by cp.async (async_copy), "
        "the next tile's loads issued before this tile's FFMAs, one barrier per K tile",
        PROGRAMMER,
        Check("4 shared allocations; LDGSTS, STS.32; one barrier per K tile in the loop",
              lambda ev: ev.gluon["ttgir.local_alloc"] == 4 and ev.gluon["LDGSTS"] > 0 and ev.gluon["STS.32"] > 0
              and ev.gluon["BAR"] <= 3 and ev.gluon["ttgir.async_wait"] >= 2,
              ("ttgir.local_alloc", "LDGSTS", "STS.32", "BAR", "ttgir.async_wait"))),
}

_SHARED_A = ("wgmma_smem<", "wgmma_tma<", "wgmma_ws<", "wgmma_persistent<")
_TMA = ("wgmma_tma<", "wgmma_ws<", "wgmma_persistent<", "wgmma_3xtf32_rs<")


def _conversion(ev: Evidence) -> bool:
    """Truncation on the TF32 rungs (no conversion instruction); on the 3xTF32 rung the big part by a mask (inline
    bit operations, no conversion) and the remainder by cvt.rna.tf32.f32."""
    n = ev.gluon
    if ev.kernel.precision == "3xtf32":
        return n["ptx.cvt_rna_tf32"] > 0 and n["ptx.cvt_rn_tf32"] == 0 and n["ptx.mma_tf32"] > 0
    return n["ptx.cvt_rna_tf32"] + n["ptx.cvt_rn_tf32"] == 0 and n["ptx.mma_tf32"] > 0


_WGMMA_SIDES = {
    "tensor-core instruction": GluonSide(
        "hopper.warpgroup_mma written by the programmer (wgmma, HGMMA), its instruction shape the accumulator's "
        "NVMMADistributedLayout (m64n128k8, m64n256k8 on the 128 x 256 rungs), B and (but on the RS rung) A read "
        "from shared memory",
        PROGRAMMER,
        Check("HGMMA from warp_group_dot, no HMMA", lambda ev: ev.gluon["HGMMA"] > 0 and ev.gluon["HMMA"] == 0
              and ev.gluon["ttgir.warp_group_dot"] > 0, ("HGMMA", "HMMA", "ttgir.warp_group_dot"))),
    "operand loads": GluonSide(
        "written by hand as in CUDA: cp.async by every thread (async_copy) on the first rung; on the others "
        "descriptors made on the host (gluon's TensorDescriptor, 128-byte swizzle) and tma loads completing on "
        "mbarriers (expect, wait on the phase) issued in the kernel",
        PROGRAMMER,
        ByKernel({"wgmma_smem<": Check("LDGSTS, no UTMALDG", lambda ev: ev.gluon["LDGSTS"] > 0
                                       and ev.gluon["UTMALDG"] == 0, ("LDGSTS", "UTMALDG")),
                  **{r: Check("UTMALDG, no LDGSTS", lambda ev: ev.gluon["UTMALDG"] > 0 and ev.gluon["LDGSTS"] == 0,
                              ("UTMALDG", "LDGSTS")) for r in _TMA}})),
    "registers per role": GluonSide(
        "gl.warp_specialize: the roles are partitions (a producer warp, one partition per consumer warpgroup) and "
        "their register counts are setmaxnreg's (232 a consumer, 40 the producer: USETMAXREG); the 256-thread rungs "
        "have one role",
        PROGRAMMER,
        Check("USETMAXREG exactly on the 384-thread rungs", lambda ev: (ev.gluon["USETMAXREG"] > 0)
              == (ev.cuda["cfg.threads"] == 384) and (ev.gluon["ttgir.warp_specialize"] > 0)
              == (ev.cuda["cfg.threads"] == 384), ("USETMAXREG", "ttgir.warp_specialize"))),
    "fp32 to TF32 conversion": GluonSide(
        "written by hand as in CUDA: the TF32 rungs convert nothing (wgmma reads the fp32 tile's top 19 bits: "
        "truncation); the 3xTF32 rung masks its big part (x & 0xffffe000) and rounds the remainder with "
        "cvt.rna.tf32.f32 (gl.inline_asm_elementwise)",
        PROGRAMMER,
        Check("tf32 MMA in the PTX; cvt.rna.tf32 only on the 3xTF32 rung", _conversion,
              ("ptx.mma_tf32", "ptx.cvt_rna_tf32", "ptx.cvt_rn_tf32"))),
    "operand split": GluonSide(
        "written by hand as in CUDA: the TF32 rungs split nothing; the 3xTF32 rung splits both operands (A in "
        "registers, Bt's remainders in shared memory) and issues three wgmma per 8-deep K step, small·big, "
        "big·small, big·big, each pair of K tiles summed from zero and added in fp32",
        PROGRAMMER,
        ByKernel({**{r: Check("no split: no remainder formed, no conversion", lambda ev: ev.gluon["ttgir.split_sub"]
                              + ev.gluon["ttgir.to_tf32_rna"] + ev.gluon["ptx.cvt_rna_tf32"] == 0,
                              ("ttgir.split_sub", "ttgir.to_tf32_rna", "ptx.cvt_rna_tf32"))
                     for r in _SHARED_A},
                  "wgmma_3xtf32_rs<": Check("3 warp_group_dot per 8-deep step, a cvt.rna per remainder",
                                            lambda ev: ev.gluon["ttgir.warp_group_dot"] > 0
                                            and ev.gluon["ttgir.warp_group_dot"] % 3 == 0
                                            and ev.gluon["ttgir.to_tf32_rna"] >= 2,
                                            ("ttgir.warp_group_dot", "ttgir.to_tf32_rna"))})),
    "where the split is done": GluonSide(
        "written by hand as in CUDA: the TF32 rungs split nothing and wgmma reads both tiles from shared memory; "
        "the 3xTF32 rung loads each consumer's A fragments into wgmma's register-operand layout (the compiler's "
        "ldmatrix, LDSM), splits them there and passes them as register operands, and split warps write Bt's "
        "remainders into shared memory",
        PROGRAMMER,
        ByKernel({**{r: Check("no LDSM, no register A", lambda ev: ev.gluon["LDSM"] == 0
                              and ev.gluon["ttgir.warp_group_dot_reg_a"] == 0,
                              ("LDSM", "ttgir.warp_group_dot_reg_a")) for r in _SHARED_A},
                  "wgmma_3xtf32_rs<": Check("LDSM; every wgmma takes A from registers", lambda ev: ev.gluon["LDSM"] > 0
                                            and ev.gluon["ttgir.warp_group_dot_reg_a"]
                                            == ev.gluon["ttgir.warp_group_dot"] > 0,
                                            ("LDSM", "ttgir.warp_group_dot", "ttgir.warp_group_dot_reg_a"))})),
    "clusters and multicast": GluonSide(
        "no handle in triton 3.6, the GPU image's: its Gluon TMA load takes no multicast argument (triton 3.8 adds "
        "one), so the cluster rung has no Gluon form and every Gluon form runs its blocks alone",
        COMPILER,
        Check("no multicast TMA load", lambda ev: ev.gluon["UTMALDG.MULTICAST"] == 0, ("UTMALDG.MULTICAST",))),
}

# idea -> decision -> the claim's Gluon column
SIDES: dict[str, dict[str, GluonSide]] = {"general_shape": _GENERAL_SIDES, "wgmma": _WGMMA_SIDES}
