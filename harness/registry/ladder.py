"""tile-rosetta's fp32 SIMT SGEMM ladder past the worklogs: the steps from seed 004's kernel 03 to cuBLAS.

Seed 004 names "Kernel 03: 2D thread coarsening" and "Kernel 04: Vectorization" but never writes them; seed 000
ends naming vectorisation and "data prefetching". Each rung below is one .cu file (rosetta_sgemm_<step>.cu) that
adds one measured step to the rung before it; all compute C = alpha*A*B + beta*C with FFMA only (no tensor cores)
and leave C unread when beta == 0. The top rung, rosetta.sgemm_general, runs any M, N, K >= 1 at any 4-byte
alignment; the rungs below it need whole tiles. It is registered twice: 128x256 tiles (the summit: at or above
cuBLAS fp32 on large aligned squares) and 128x128 tiles (shape-robust: 4097^3 within 4 points of its 4096^3 ratio).
No single tile met both targets on the H100.

Every rung's Triton counterpart ("dot") is the same kernel, kernels_triton.gemm_ladder, configured from the rung's
tile: in Triton the ladder is one kernel with different launch settings (num_stages for the prefetching rungs,
group_m for the grouped order). Beside it, "tuned" (kernels_triton.gemm_ladder_tuned) keeps the rung's tile and order
and lets the autotuner pick warps and stages, so that "Triton has no handle for this decision" and "this tile does
not suit Triton" are told apart. The summit also carries the Triton ceiling, kernels_triton.gemm_autotuned, whose
tile is the autotuner's choice (its derived settings are passed and ignored).

16-byte alignment (rungs 2 to 7: float4 loads of A, B or C) is not a Precondition kind: those rungs rely on the
harness's freshly allocated operands, and their .cu headers state it.
"""

from __future__ import annotations

from harness.preconditions import Precondition, dims_fit_int32, multiple_of
from harness.registry.seeds import GEMM_ALPHA_BETA
from harness.registry.types import Counterpart, Deviation, Kernel, Role

LADDER = "gemm_ladder"
LADDER_TUNED = "gemm_ladder_tuned"
_ABC = ("A", "B", "C")
_BK16 = Deviation(16, "tl.dot needs every dimension >= 16; the CUDA kernel steps K by 8")
_SECTION = "tile-rosetta's step past seed 004's kernel 04 / seed 000's last section"


def _tiles(bm: int, bn: int, bk: int) -> tuple[Precondition, ...]:
    why = "no bounds checks"
    return (multiple_of("M", bm, why), multiple_of("N", bn, why), multiple_of("K", bk, why), dims_fit_int32())


def _rung(name: str, args: tuple[int, ...], idea: str, threads: int, stages: int = 1,
          params: dict[str, int] | None = None, notes: str = "", general: bool = False,
          ceiling: bool = False, aligned16: tuple[str, ...] = ()) -> Kernel:
    """One rung: the Triton counterpart takes the rung's tile, K step (16 at least), warps and stages, the tuned one
    searches warps and stages around them; the summit also carries the autotuned ceiling (whose derived settings the
    tuner ignores)."""
    bm, bn, bk = args[:3]
    targs = ",".join(map(str, args))
    deviations = {"block_k": _BK16} if bk < 16 else {}
    dot = Counterpart("dot", LADDER, params=params or {}, deviations=deviations, num_stages=stages)
    # The same settings name the tuned row's search space (kernels_triton.gemm_ladder_tuned.configs): the rung's tile
    # and order kept, its warps and twice them, 1 to 4 stages.
    tuned = Counterpart("tuned", LADDER_TUNED, params=params or {}, deviations=deviations, num_stages=stages,
                        role=Role.TUNED)
    autotuned = Counterpart("autotuned", "gemm_autotuned", role=Role.CEILING)
    counterparts = (dot, tuned, autotuned) if ceiling else (dot, tuned)
    return Kernel(
        id=f"rosetta.sgemm_{name}<{targs}>", op="sgemm", idea=idea, seed=None, section=_SECTION,
        symbol=f"sgemm_{name}<{', '.join(map(str, args))}>", args=GEMM_ALPHA_BETA, block=(threads, 1, 1),
        tile_m=bm, tile_n=bn, tile_k=bk,
        preconditions=(dims_fit_int32(),) if general else _tiles(bm, bn, bk),
        reads_c_when_beta_zero=False, counterparts=counterparts, notes=notes, aligned16=aligned16)


KERNELS: tuple[Kernel, ...] = (
    _rung("coarsen_2d", (128, 128, 32, 8, 8), "coarsen_2d", 256,
          notes="Seed 004's kernel 03 as its author's repository configures it (BM = BN = 128, BK = 32, "
                "TM = TN = 8); the text names the kernel but never writes it."),
    _rung("vectorized", (128, 128, 32, 16, 8), "vectorize", 128, aligned16=_ABC,
          notes="Seed 004's kernel 04 as its author's repository configures it (TM = 16, TN = 8, 128 threads)."),
    _rung("transposed_a", (128, 128, 32, 16, 8), "smem_layout", 128, aligned16=_ABC,
          notes="Same tile and threads as the vectorized rung; only A's shared-memory layout changes."),
    _rung("warptile", (128, 128, 8, 32, 64, 8, 8), "warptile", 256, aligned16=_ABC,
          notes="8x8 per thread as 2x2 pieces of 4x4 over 32x64 warp tiles."),
    _rung("cp_async", (128, 128, 8, 32, 64, 8, 8, 4), "async_copy", 256, stages=4, aligned16=("B", "C"),
          notes="cp.async cannot transpose, so A is copied 4 bytes at a time; where that makes the rung slower than "
                "the one before, it is kept as the measured step."),
    _rung("frag_prefetch", (128, 128, 8, 32, 64, 8, 8, 4), "frag_prefetch", 256, stages=4, aligned16=("B", "C"),
          notes="Fragments double-buffered in registers on top of the cp_async rung; its 4-byte copies of A remain."),
    _rung("split_copy", (128, 128, 8, 32, 64, 8, 8), "split_copy", 256, stages=2, aligned16=_ABC,
          notes="A through registers (it must be transposed), B by 16-byte cp.async (it lands as it lies)."),
    # The summit: 8x16 per thread, BK = 16, one block of 8 warps an SM. Its figures, and why odd shapes cost it more
    # than the 128x128 instantiation below, are in the results files and the report.
    _rung("general", (128, 256, 16, 32, 128, 8, 16, 8), "general_shape", 256, stages=2, params={"group_m": 8},
          general=True, ceiling=True,
          notes="The ladder's summit: any M, N, K >= 1 and any 4-byte alignment; float4 paths when K % 4 == 0, "
                "N % 4 == 0 and A, B, C are 16-byte aligned (one test, uniform over the grid)."),
    # The shape-robust instantiation of the same kernel: smaller tiles, two blocks an SM.
    _rung("general", (128, 128, 8, 32, 64, 8, 8, 16), "general_shape", 256, stages=2, params={"group_m": 16},
          general=True,
          notes="The same kernel with 128x128 tiles, two blocks an SM: more blocks for odd shapes to spread over."),
)
