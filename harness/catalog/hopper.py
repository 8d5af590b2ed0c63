"""Hopper's tensor-core ladder (TF32 wgmma), after rosetta.tc_gemm's mma.sync rung.

Each rung is one .cu file in kernels_cuda/, built for sm_90a (wgmma and setmaxnreg exist only there):
- rosetta.wgmma_smem: wgmma.mma_async m64n128k8 tf32 (HGMMA) reading both operands from 128-byte swizzled shared
  memory through matrix descriptors; cp.async loads by every thread; two warpgroups, 128 x 128 tiles.
- rosetta.wgmma_tma: the same tile fed by the copy engine (cp.async.bulk.tensor, UTMALDG) completing on mbarriers.
- rosetta.wgmma_ws: warp specialisation, one producer and two consumer warpgroups, setmaxnreg, 128 x 256 tiles
  (m64n256k8), full/empty mbarriers per stage.
- rosetta.wgmma_persistent: the same on a persistent grid with a static grouped tile scheduler.
- rosetta.wgmma_cluster: the same in clusters of 2 blocks stacked along M, which take turns to load the Bt tile they
  share and multicast it into both (TMA multicast); a stage is released to both producers.
- rosetta.wgmma_3xtf32: fp32-accurate 3xTF32 on the persistent grid, 128 x 128 tiles; the producer warpgroup writes
  each landed stage's tf32 remainders beside it, three wgmma per K step, each K tile's sum added in fp32.
  Its Triton side also runs Triton's bf16 splits on the persistent form ("persistent-bf16x3", "persistent-bf16x6"):
  rows of their own precision class beside tf32x3 (tensor_cores.BF16_SPLITS).
- rosetta.wgmma_3xtf32_rs: A from registers: the consumers load their A fragments (ldmatrix), split them in
  registers and pass them to wgmma as register operands; only Bt's remainders go through shared memory, and a stage
  shrinks so that four fit. Triton's compiler already does this for tf32x3 (its dots take A from registers), so its
  side is the same persistent form as the rung before, and beside it "presplit" (kernels_triton/gemm_presplit.py),
  deliberately different: tf32x3's split written by hand, once per operand element in a pre-pass, so that the GEMM
  reads four TMA-loaded parts and splits nothing.

Both operands are K-major in shared memory (TF32 wgmma cannot transpose B), so every rung takes B as Bt = B^T
(b_layout "kmajor": the harness packs it once, outside the timed region). The tensor core reads fp32 operands'
upper 19 bits (truncation to tf32, where rosetta.tc_gemm rounds with cvt.rn): these entries are checked against the
tf32 bound and compared with cuBLAS TF32.

The TMA rungs take two tensor maps by value after the suite's GEMM arguments ("mapA", "mapB" in args): fp32, 2-D
{K, rows}, row stride K * 4 bytes, box {32, tile_m} for A and {32, tile_n} for Bt, 128-byte swizzle, encoded on the
host with cuTensorMapEncodeTiled when the launch is bound (harness/launch/tensor_maps.py). The persistent rung is
launched on min(SMs, tiles) blocks (`persistent=True`).

The idea, its kernels and its mapping claims are declared here; the conversion and split claims build on
harness/catalog/tensor_cores.py's.
"""

from __future__ import annotations

from dataclasses import replace

from harness.catalog import gluon
from harness.catalog.seeds.kernels import GEMM_ALPHA_BETA
from harness.catalog.tensor_cores import BF16_SPLITS, OPERAND_SPLIT, TF32_CONVERSION
from harness.catalog_types.claim import COMPILER, PROGRAMMER, ByKernel, Check, Claim
from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import (
    DELIBERATELY_DIFFERENT,
    TF32_CONVERSION_TEXT,
    Counterpart,
    Deviation,
    Kernel,
    Precision,
)
from harness.problems.preconditions import dims_fit_int32, multiple_of

IDEA = Idea(
    "wgmma",
    "Hopper tensor cores: wgmma, TMA, warp specialisation, a persistent grid (tile-rosetta's step)",
    "Hopper's warpgroup MMA (wgmma, HGMMA) takes both operands from 128-byte swizzled shared memory through "
    "matrix descriptors and runs asynchronously, four warps at a time. Each rung adds one idea: the copy "
    "engine (TMA, tensor maps, mbarrier completion) instead of cp.async by every thread; a producer "
    "warpgroup that only loads and consumer warpgroups that only multiply, with setmaxnreg moving registers "
    "to the consumers; a persistent grid that walks tiles in grouped order; clusters of blocks that load a tile "
    "they share once and multicast it; then fp32-accurate 3xTF32 on that pipeline, its split first in shared "
    "memory and then, for A, in registers (wgmma's register-A form). TF32 wgmma reads fp32 operands' "
    "upper 19 bits (truncation) and cannot transpose B: both operands must be K-major.",
)

_BK = 32          # one 128-byte swizzle row of fp32: the K step of every rung
_GROUP_M = 8      # grouped tile order, in the CUDA kernels and the Triton counterparts alike
_ABC = ("A", "B", "C")
TENSOR_MAP_ARGS = ("mapA", "mapB")
_SECTION = "tile-rosetta's step after the closing \"Tensor Cores\" paragraph: Hopper's wgmma"


def _smem(stages: int, bm: int, bn: int, precision: Precision, a_in_registers: bool) -> int:
    # stages of an A tile and a Bt tile (3xTF32: and their remainders, A's only where A is split in shared memory),
    # plus 1024 bytes so the kernel can align its buffer to the swizzle atom
    remainders = 0 if precision != "3xtf32" else bn if a_in_registers else bm + bn
    return stages * (bm + bn + remainders) * _BK * 4 + 1024


def _preconditions(bm: int, bn: int, cluster: int) -> tuple:
    why = "no bounds checks: every tile is whole"
    # a cluster's blocks take tiles stacked along M: M holds whole groups of them
    m_why = why if cluster == 1 else f"{why}, and a cluster's {cluster} blocks take {cluster} tiles stacked along M"
    return (multiple_of("M", bm * cluster, m_why), multiple_of("N", bn, why), multiple_of("K", _BK, why),
            dims_fit_int32())


_TWO_WARPGROUPS = Deviation(8, "Triton's persistent program runs its MMAs on two warpgroups; with warp_specialize "
                                "its own producer warps come on top")


def _counterpart(bm: int, bn: int, threads: int, num_stages: int, split: bool) -> Counterpart:
    deviations = {"num_warps": _TWO_WARPGROUPS} if threads // 32 != 8 else {}
    # The 128 x 256 tile leaves no room for a whole-tile epilogue buffer beside its 3 stages: the split epilogue
    # stores C in halves (measured on an H100: without it the compile asks for 278552 bytes of shared memory).
    params: dict[str, int | bool | str] = {"group_m": _GROUP_M, "warp_specialize": True}
    if split:
        params["epilogue_split"] = True
    # offsets_64bit=False: the descriptor path addresses through the copy engine, so the CPU tier's TTIR proof of
    # 64-bit row offsets (a 64-bit product of a size) has nothing to see; binding refuses operands past 2^31
    # elements rather than trust what is not proven
    return Counterpart("persistent", "gemm_hopper", params, deviations=deviations, num_stages=num_stages,
                       offsets_64bit=False)


def _kernel(name: str, symbol: str, threads: int, bm: int, bn: int, stages: int, tensor_maps: bool,
            counterpart_stages: int, notes: str, precision: Precision = "tf32", a_in_registers: bool = False,
            bf16_splits: bool = True, more: tuple[Counterpart, ...] = (), cluster: int = 1) -> Kernel:
    args = GEMM_ALPHA_BETA + (TENSOR_MAP_ARGS if tensor_maps else ())
    persistent = _counterpart(bm, bn, threads, counterpart_stages, split=bn == 256)
    splits = tuple(replace(persistent, name=f"persistent-{p}", precision=p) for p in BF16_SPLITS)
    kernel_id = f"rosetta.{name}<{precision},{bm},{bn},{_BK},{stages},kmajor>"
    return Kernel(
        id=kernel_id, op="sgemm", idea=IDEA.key, seed=None,
        section=_SECTION, symbol=symbol, args=args, block=(threads, 1, 1), tile_m=bm, tile_n=bn, tile_k=_BK,
        preconditions=_preconditions(bm, bn, cluster), reads_c_when_beta_zero=False,
        counterparts=(persistent, *(splits if precision == "3xtf32" and bf16_splits else ()), *more), notes=notes,
        precision=precision, b_layout="kmajor", dynamic_smem=_smem(stages, bm, bn, precision, a_in_registers),
        aligned16=_ABC,
        # TF32 rungs hand fp32 to the tensor core, which truncates; the 3xTF32 split keeps that truncation as its
        # high part and rounds the remainder with cvt.rna
        tf32_conversion="truncate_rna" if precision == "3xtf32" else "truncate", gluon=gluon.forms(kernel_id))


# tf32x3's split done once per operand element before the product (kernels_triton/gemm_presplit.py); the GEMM's
# four parts take twice a stage's shared memory, so its C is stored from registers and 3 stages fit
PRESPLIT = Counterpart("presplit", "gemm_presplit", {"group_m": _GROUP_M, "warp_specialize": True},
                       deviations={"num_warps": _TWO_WARPGROUPS}, num_stages=3, offsets_64bit=False, presplit=True,
                       design=DELIBERATELY_DIFFERENT + "tf32x3's split written by hand and done once per operand "
                       "element, in a pre-pass into four fp32 arrays (big, small of A and of Bt) inside the timed "
                       "launch; the GEMM loads the four parts by TMA and issues three TF32 dots per K step from "
                       "shared memory, where the CUDA kernel splits each tile as it lands")

_SPLIT = ("3xTF32 on rung wgmma_persistent, 128 x 128 tiles: big is the raw tile (the tensor core reads its upper 19 "
          "bits); the producer warpgroup writes each landed stage's remainders, rna_tf32(x - big), beside it in "
          "shared memory; three wgmma per K step. ")
_TRUNC = "TF32 by truncation (the tensor core reads each operand's upper 19 bits), fp32 accumulation. "

KERNELS: tuple[Kernel, ...] = (
    _kernel("wgmma_smem", "wgmma_smem_tf32<4>", 256, 128, 128, 4, False, 4,
            _TRUNC + "wgmma m64n128k8 from 128-byte swizzled shared memory; cp.async loads, 4 stages."),
    _kernel("wgmma_tma", "wgmma_tma_tf32<4>", 256, 128, 128, 4, True, 4,
            _TRUNC + "Loads by the copy engine (TMA) on mbarriers, 4 stages; block barrier per K tile."),
    _kernel("wgmma_ws", "wgmma_ws_tf32<4>", 384, 128, 256, 4, True, 3,
            _TRUNC + "Producer + 2 consumer warpgroups, setmaxnreg 40/232, m64n256k8, full/empty mbarriers."),
    replace(_kernel("wgmma_persistent", "wgmma_persistent_tf32<4, 8>", 384, 128, 256, 4, True, 3,
                    _TRUNC + "Rung wgmma_ws on a persistent grid of min(SMs, tiles) blocks: static grouped tile "
                    "scheduler, loads of the next tile overlap the epilogue."), persistent=True),
    replace(_kernel("wgmma_cluster", "wgmma_cluster_tf32<4, 8>", 384, 128, 256, 4, True, 3,
                    _TRUNC + "Rung wgmma_persistent in clusters of 2 blocks stacked along M: they take turns to load "
                    "the Bt tile they share and multicast it to both (TMA multicast); a stage is released to both "
                    "producers.", cluster=2), persistent=True),
    replace(_kernel("wgmma_3xtf32", "wgmma_3xtf32<3, 8>", 384, 128, 128, 3, True, 3,
                    _SPLIT + "Each pair of K tiles summed from zero on the tensor core and added to the total in fp32 "
                    "(FADD), because the tensor core's accumulation truncates.", precision="3xtf32"), persistent=True),
    # The bf16 splits stand on the rung before: Triton's side of this rung is the same program, so they would be
    # timed twice for nothing.
    replace(_kernel("wgmma_3xtf32_rs", "wgmma_3xtf32_rs<4, 8>", 384, 128, 128, 4, True, 3,
                    "Rung wgmma_3xtf32 with A from registers: each consumer loads its A fragments (ldmatrix), splits "
                    "them in registers and passes big and small to wgmma as register operands; the producer "
                    "warpgroup writes only Bt's remainders; 48 KB stages, 4 of them.", precision="3xtf32",
                    a_in_registers=True, bf16_splits=False, more=(PRESPLIT,)), persistent=True),
)


_TMA_RUNGS = ("wgmma_tma<", "wgmma_ws<", "wgmma_persistent<", "wgmma_cluster<", "wgmma_3xtf32<", "wgmma_3xtf32_rs<")
_SHARED_A_RUNGS = ("wgmma_smem<", "wgmma_tma<", "wgmma_ws<", "wgmma_persistent<", "wgmma_cluster<", "wgmma_3xtf32<")
_SINGLE_BLOCK_RUNGS = tuple(r for r in (*_SHARED_A_RUNGS, "wgmma_3xtf32_rs<") if r != "wgmma_cluster<")

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


CLUSTERS = Claim(
    "clusters and multicast",
    "written by hand on the cluster rung: __cluster_dims__(2, 1, 1) makes blocks 2 b and 2 b + 1 one cluster, which "
    "takes two tiles stacked along M; its blocks take turns by K tile to load the Bt tile both read and multicast it "
    "into both (cp.async.bulk.tensor ... .multicast::cluster: UTMALDG.2D.MULTICAST in the SASS), and each consumer "
    "warp releases a stage to both producers (mapa and an mbarrier arrive on the peer's barrier). The other rungs "
    "run blocks alone",
    "not written: the persistent program is one block (Triton's num_ctas launch option left at its default, 1), and "
    "none of its copy-engine loads is multicast",
    PROGRAMMER,
    ByKernel({"wgmma_cluster<": Check("multicast TMA loads (UTMALDG.MULTICAST)",
                                      lambda ev: ev.cuda["UTMALDG.MULTICAST"] > 0, ("UTMALDG.MULTICAST", "UTMALDG")),
              **{rung: Check("no multicast TMA load", lambda ev: ev.cuda["UTMALDG.MULTICAST"] == 0,
                             ("UTMALDG.MULTICAST",)) for rung in _SINGLE_BLOCK_RUNGS}}),
    Check("no multicast TMA load", lambda ev: ev.triton["UTMALDG.MULTICAST"] == 0, ("UTMALDG.MULTICAST", "UTMALDG")))

IDEAS: dict[str, Idea] = {IDEA.key: IDEA}
CLAIMS: dict[str, tuple[Claim, ...]] = {IDEA.key: (*WGMMA, WGMMA_CONVERSION, OPERAND_SPLIT, SPLIT_PLACE, CLUSTERS)}
