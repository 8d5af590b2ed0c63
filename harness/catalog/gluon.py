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
# offsets_64bit=False below: the copy engine addresses A and Bt through tensor descriptors, whose coordinates the CPU
# tier cannot prove 64-bit; operands past 2^31 elements are refused at bind, as for the Triton persistent form.
_PRODUCER = ("one warp (the CUDA kernel: a warpgroup of which one thread issues the copies); the block is rounded "
             "up to whole warpgroups, 384 threads as in CUDA")


def _mirror(module: str, template: tuple[str, ...], params: dict | None = None, deviations: dict | None = None,
            offsets_64bit: bool = True) -> tuple[GluonCounterpart, ...]:
    return (GluonCounterpart(GLUON_MIRROR, module, template, params or {}, deviations or {}, offsets_64bit),)


def _with_dot(forms: tuple[GluonCounterpart, ...]) -> tuple[GluonCounterpart, ...]:
    """The mirror and, beside it, the same decisions with each K tile's product one gl.dot_fma ("dot"), and with the
    CUDA kernel's order of fragments and FFMAs written out ("ordered")."""
    mirror = forms[0]
    dot = GluonCounterpart("dot", mirror.module, mirror.template, {**mirror.params, "PRODUCT": "dot_fma"},
                           {**mirror.deviations, "product": "each K tile's product is one gl.dot_fma on the "
                            "accumulator's dot-operand layouts: the compiler expands it and orders its loads (CUDA: a "
                            "loop of rank-1 updates from register fragments)"}, mirror.offsets_64bit)
    deviations = {k: v for k, v in mirror.deviations.items() if k != "fragment order"}
    ordered = GluonCounterpart("ordered", mirror.module, mirror.template,
                               {**mirror.params, "PRODUCT": "prefetch", "ORDER": 2, "READ_C": "beta"},
                               {**deviations, "C's read": "a launch with beta == 0 runs a kernel compiled without "
                                "C's read (CUDA: one kernel, a branch at run time); the form whose PTX ptxas gives "
                                "the fewest same-bank FFMA (harness/run/ablation.py)"}, mirror.offsets_64bit)
    return (mirror, dot, ordered)


_PIECES = ("the accumulator's BlockedLayout repeats a thread's 4 x 4 pieces at the block tile's pitch (CUDA: at the "
           "warp tile's): the same outputs, loads and wavefronts per thread and warp, placed differently")
_GENERAL = _mirror("simt_general", _SIMT, deviations={
    "placement": _PIECES,
    "edges": "B's columns past N are zero-filled by masked copies (CUDA: redirected to column 0); an odd number of "
             "K tiles gets one more tile of zeros (the loop takes the two stages in turn)",
    "copy width": "16-byte copies where the launch's specialisation marks K, N and the pointers multiples of 16 "
                  "bytes (CUDA: chosen at run time for K % 4 == 0, N % 4 == 0 and 16-byte pointers)",
    "fragment order": "each k's fragments are loaded before its FFMAs and ptxas orders them (CUDA: two fragment "
                      "sets by hand, the next k's loaded during this k's FFMAs)"})

FORMS: dict[str, tuple[GluonCounterpart, ...]] = {
    "rosetta.sgemm_transposed_a<128,128,32,16,8>": _mirror("simt_tile", ("BM", "BN", "BK", "TM", "TN")),
    "rosetta.sgemm_warptile<128,128,8,32,64,8,8>": _mirror(
        "simt_tile", ("BM", "BN", "BK", "WM", "WN", "TM", "TN"), deviations={"placement": _PIECES}),
    "rosetta.sgemm_frag_prefetch<128,128,8,32,64,8,8,4>": _mirror(
        "simt_tile", ("BM", "BN", "BK", "WM", "WN", "TM", "TN", "STAGES"), deviations={
            "placement": _PIECES,
            "A's pad": "A's k-rows are not padded: triton 3.6's Gluon cannot lower a cp.async into a padded shared "
                       "layout (its compile asserts \"unknown layout\"), so the transposing 4-byte copies conflict "
                       "2-way",
            "stages": "one allocation per stage and the loop unrolled over them (the compiler's barriers are per "
                      "allocation); it runs whole rounds of stages, the tiles past the last zero-filled copies"}),
    "rosetta.sgemm_general<128,256,16,32,128,8,16,8>": _with_dot(_GENERAL),
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

def _padded_tiles(ev: Evidence) -> int:
    """Bytes of A's k-major tile with every k-row but the last followed by 4 floats of pad, and B's tile."""
    n = ev.gluon
    return 4 * (n["cfg.block_k"] * (n["cfg.block_m"] + 4) - 4 + n["cfg.block_k"] * n["cfg.block_n"])


def _same_barriers(ev: Evidence) -> bool:
    return ev.gluon["BAR"] == ev.cuda["BAR"] and ev.gluon["BAR"] > 0


_SYNC = GluonSide(
    "written by hand as in CUDA: a barrier after the stores to shared memory and one after the FFMAs (barrier()); "
    "the compiler adds none (each operand is one allocation, read and written only between them)",
    PROGRAMMER,
    Check("as many BAR as the CUDA kernel", _same_barriers, ("BAR",)))
_ONE_BUFFER = GluonSide(
    "none, as in CUDA: one buffer per operand, synchronous 16-byte loads, the next tile loaded after the current "
    "one is consumed",
    PROGRAMMER,
    Check("no async copy", lambda ev: ev.gluon["ttgir.async_copy"] + ev.gluon["LDGSTS"] == 0,
          ("ttgir.async_copy", "LDGSTS")))
_TRANSPOSING_COPY = Check("LDG.128; STS.32 for A, STS.128 for B", lambda ev: ev.gluon["LDG.128"] > 0
                          and ev.gluon["LDG.32"] == 0 and ev.gluon["STS.32"] > 0 and ev.gluon["STS.128"] > 0,
                          ("LDG.128", "LDG.32", "STS.32", "STS.128"))

_SMEM_LAYOUT_SIDES = {
    "A tile layout": GluonSide(
        "written as in CUDA: A k-major in shared memory, each k-row padded by 4 floats (PaddedSharedLayout: a pad of "
        "4 after every BM floats), so that a thread's values of A's column are contiguous; B as it lies",
        PROGRAMMER,
        Check("B's tile plus the padded A tile", lambda ev: ev.gluon["shared_bytes"] == _padded_tiles(ev),
              ("shared_bytes",))),
    "the transposing copy": GluonSide(
        "written as in CUDA: 4 k of a row of A loaded as a float4 (LDG.128) and stored to 4 k-rows (the transposed "
        "view's 4-byte stores, STS.32); B's rows 16 bytes at a time (STS.128)",
        PROGRAMMER, _TRANSPOSING_COPY),
    "reading A's column": GluonSide(
        "the accumulator's SliceLayout: a thread's 16 values of A's column are 4 contiguous float4 (LDS.128 only)",
        PROGRAMMER,
        Check("only LDS.128", lambda ev: ev.gluon["LDS.128"] > 0 and ev.gluon["LDS.32"] + ev.gluon["LDS.64"] == 0,
              ("LDS.32", "LDS.64", "LDS.128"))),
    "synchronisation": _SYNC,
    "K-loop pipelining": _ONE_BUFFER,
}

_WARPTILE_SIDES = {
    "who owns which outputs": GluonSide(
        "the accumulator's BlockedLayout([4, 4], [WM/TM, WN/TN], [BM/WM, BN/WN]): a thread's 8 x 8 as 2 x 2 pieces of "
        "4 x 4, a warp reading WM + WN floats of the tiles per k as the CUDA warp tile does (its pieces repeat at the "
        "block tile's pitch, CUDA's at the warp tile's): as many outputs per thread and LDS.128 as the CUDA kernel",
        PROGRAMMER,
        Check("the CUDA kernel's outputs per thread and LDS.128, no narrower LDS",
              lambda ev: ev.gluon["cfg.outputs_per_thread"] == ev.cuda["cfg.outputs_per_thread"]
              and ev.gluon["LDS.128"] == ev.cuda["LDS.128"] and ev.gluon["LDS.32"] + ev.gluon["LDS.64"] == 0,
              ("cfg.outputs_per_thread", "LDS.128", "LDS.32"))),
    "global to shared copy": GluonSide(
        "written as in CUDA (sgemm_transposed_a's): float4 loads, A transposed on the store (STS.32), k-rows padded "
        "by 4 (PaddedSharedLayout)",
        PROGRAMMER,
        Check("padded tiles; LDG.128, STS.32 and STS.128", lambda ev: ev.gluon["shared_bytes"] == _padded_tiles(ev)
              and _TRANSPOSING_COPY.holds(ev), ("shared_bytes", "LDG.128", "STS.32", "STS.128"))),
    "synchronisation": _SYNC,
    "K-loop pipelining": _ONE_BUFFER,
}

_FRAG_PREFETCH_SIDES = {
    "register fragments": GluonSide(
        "written by hand as in CUDA: the fragments of step k + 1 are loaded before the FFMAs of step k and carried to "
        "it (across the tile boundary too: the last k's barrier comes before its FFMAs); where ptxas places the loads "
        "among the FFMAs is its own",
        PROGRAMMER,
        Check("A's and B's fragments carried by the K loop; LDS.128", lambda ev: ev.gluon["ttgir.carried_fragments"]
              == 2 and ev.gluon["LDS.128"] > 0, ("ttgir.carried_fragments", "LDS.128"))),
    "K-loop pipelining": GluonSide(
        "written by hand as in CUDA: STAGES cp.async stages (async_copy), STAGES - 1 tiles in flight, a wait and one "
        "barrier per K tile at its last k; one allocation per stage and the loop unrolled over them, so that the "
        "compiler adds no barrier",
        PROGRAMMER,
        Check("2 x STAGES allocations, LDGSTS, one BAR per K tile of the unrolled loop",
              lambda ev: ev.gluon["ttgir.local_alloc"] == 2 * ev.gluon["cfg.stages"] and ev.gluon["LDGSTS"] > 0
              and ev.gluon["BAR"] == ev.gluon["cfg.stages"] + 1, ("ttgir.local_alloc", "LDGSTS", "BAR"))),
    "copy width": GluonSide(
        "written as in CUDA: A 4 bytes at a time (a cp.async into the transposed view: LDGSTS.32), B 16 bytes at a "
        "time (LDGSTS.128)",
        PROGRAMMER,
        Check("LDGSTS.32 and LDGSTS.128", lambda ev: ev.gluon["LDGSTS.32"] > 0 and ev.gluon["LDGSTS.128"] > 0,
              ("LDGSTS.32", "LDGSTS.128"))),
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
SIDES: dict[str, dict[str, GluonSide]] = {"smem_layout": _SMEM_LAYOUT_SIDES, "warptile": _WARPTILE_SIDES,
                                          "frag_prefetch": _FRAG_PREFETCH_SIDES, "general_shape": _GENERAL_SIDES,
                                          "wgmma": _WGMMA_SIDES}
