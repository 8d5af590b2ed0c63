"""tile-rosetta's fp32 SIMT SGEMM ladder past the worklogs: the steps from seed 004's kernel 03 to cuBLAS.

Seed 004 names "Kernel 03: 2D thread coarsening" and "Kernel 04: Vectorization" but never writes them; seed 000
ends naming vectorisation and "data prefetching". Each rung below is one .cu file (rosetta_sgemm_<step>.cu) that
adds one measured step to the rung before it; all compute C = alpha*A*B + beta*C with FFMA only (no tensor cores)
and leave C unread when beta == 0. The top rung, rosetta.sgemm_general, runs any M, N, K >= 1 at any 4-byte
alignment; the rungs below it need whole tiles. It is registered twice: 128x256 tiles (the summit: at or above
cuBLAS fp32 on large aligned squares) and 128x128 tiles (shape-robust: 4097^3 within 4 points of its 4096^3 ratio).
No single tile met both targets on the H100.

Every rung's Triton counterpart is the same kernel, kernels_triton.gemm_ladder, configured from the rung's tile:
in Triton the ladder is one kernel with different launch settings (num_stages for the prefetching rungs, group_m
for the grouped order). The summit also carries the Triton ceiling, kernels_triton.gemm_autotuned, whose tile is
the autotuner's choice (its derived settings are passed and ignored).

16-byte alignment (rungs 2 to 7: float4 loads of A, B or C) is not a Precondition kind: those rungs rely on the
harness's freshly allocated operands, and their .cu headers state it.
"""

from __future__ import annotations

from harness.preconditions import Precondition, dims_fit_int32, multiple_of
from harness.registry.ideas import IDEAS, Idea
from harness.registry.seeds import GEMM_ALPHA_BETA
from harness.registry.types import Counterpart, Deviation, Kernel

# The ideas these rungs teach. They live here, next to the rungs; setdefault keeps a definition that
# harness.registry.ideas may give them.
LADDER_IDEAS: tuple[Idea, ...] = (
    Idea("vectorize", "128-bit loads and stores (tile-rosetta's step)",
         "A and B move from global to shared memory as float4 and B's row and C are accessed as float4: a quarter "
         "of the load/store instructions for the same bytes."),
    Idea("smem_layout", "Transposed, padded A tile (tile-rosetta's step)",
         "A is stored k-major in shared memory so a thread's column of A is contiguous (one float4 read, no bank "
         "conflict); a pad of 4 floats keeps the transposing stores conflict-free and the rows 16-byte aligned."),
    Idea("warptile", "Warp tiles (tile-rosetta's step)",
         "Each warp owns a sub-block of the block tile and each thread's patch is 4x4 pieces spread over it, so "
         "every float4 a warp reads from shared memory is a single wavefront."),
    Idea("async_copy", "cp.async prefetch into shared-memory stages (tile-rosetta's step)",
         "Tiles are copied global -> shared by cp.async several K steps ahead while the warps compute: one "
         "barrier per K step and no registers spent on the copy."),
    Idea("frag_prefetch", "Double-buffered register fragments (tile-rosetta's step)",
         "The shared-memory reads for step k+1 are issued before the FFMAs of step k, across tile boundaries "
         "too, so their latency is always covered."),
    Idea("split_copy", "A through registers, B by cp.async (tile-rosetta's step)",
         "The operand that must be transposed (A) goes global -> registers -> shared one tile ahead; the one "
         "that lands as it lies (B) goes by 16-byte cp.async: neither pays the other's cost."),
    Idea("general_shape", "Any shape, any alignment, grouped order (tile-rosetta's top rung)",
         "Edge copies are redirected or zero-filled once, outside the K loop; a partial K tile is handled first; "
         "float4 paths are taken only when alignment allows; blocks are visited in groups for L2 reuse."),
)
for _idea in LADDER_IDEAS:
    IDEAS.setdefault(_idea.key, _idea)

LADDER = "gemm_ladder"
_BK16 = Deviation(16, "tl.dot needs every dimension >= 16; the CUDA kernel steps K by 8")
_SECTION = "tile-rosetta's step past seed 004's kernel 04 / seed 000's last section"


def _tiles(bm: int, bn: int, bk: int) -> tuple[Precondition, ...]:
    why = "no bounds checks"
    return (multiple_of("M", bm, why), multiple_of("N", bn, why), multiple_of("K", bk, why), dims_fit_int32())


def _rung(name: str, args: tuple[int, ...], idea: str, threads: int, stages: int = 1,
          params: dict[str, int] | None = None, notes: str = "", general: bool = False,
          ceiling: bool = False) -> Kernel:
    """One rung: the Triton counterpart takes the rung's tile, K step (16 at least), warps and stages; the summit also
    carries the autotuned ceiling (whose derived settings the tuner ignores)."""
    bm, bn, bk = args[:3]
    targs = ",".join(map(str, args))
    deviations = {"block_k": _BK16} if bk < 16 else {}
    dot = Counterpart("dot", LADDER, params=params or {}, deviations=deviations, num_stages=stages)
    counterparts = (dot, Counterpart("autotuned", "gemm_autotuned")) if ceiling else (dot,)
    return Kernel(
        id=f"rosetta.sgemm_{name}<{targs}>", op="sgemm", idea=idea, seed=None, section=_SECTION,
        symbol=f"sgemm_{name}<{', '.join(map(str, args))}>", args=GEMM_ALPHA_BETA, block=(threads, 1, 1),
        tile_m=bm, tile_n=bn, tile_k=bk,
        preconditions=(dims_fit_int32(),) if general else _tiles(bm, bn, bk),
        reads_c_when_beta_zero=False, counterparts=counterparts, notes=notes)


KERNELS: tuple[Kernel, ...] = (
    _rung("coarsen_2d", (128, 128, 32, 8, 8), "coarsen_2d", 256,
          notes="Seed 004's kernel 03 as its author's repository configures it (BM = BN = 128, BK = 32, "
                "TM = TN = 8); the text names the kernel but never writes it."),
    _rung("vectorized", (128, 128, 32, 16, 8), "vectorize", 128,
          notes="Seed 004's kernel 04 as its author's repository configures it (TM = 16, TN = 8, 128 threads). "
                "Needs A, B, C 16-byte aligned."),
    _rung("transposed_a", (128, 128, 32, 16, 8), "smem_layout", 128,
          notes="Same tile and threads as the vectorized rung; only A's shared-memory layout changes. "
                "Needs A, B, C 16-byte aligned."),
    _rung("warptile", (128, 128, 8, 32, 64, 8, 8), "warptile", 256,
          notes="8x8 per thread as 2x2 pieces of 4x4 over 32x64 warp tiles; 116 registers, two blocks an SM (the "
                "fastest of the tiles tried for this rung). Needs A, B, C 16-byte aligned."),
    _rung("cp_async", (128, 128, 8, 32, 64, 8, 8, 4), "async_copy", 256, stages=4,
          notes="Measured slower than the warptile rung on the H100 (36.2 against 44.5 TFLOP/s at 4096^3: A must "
                "be copied 4 bytes at a time to be transposed): kept as the measured step. Needs B and C 16-byte "
                "aligned."),
    _rung("frag_prefetch", (128, 128, 8, 32, 64, 8, 8, 4), "frag_prefetch", 256, stages=4,
          notes="Up from the cp_async rung, still under the warptile rung on the H100 (43.0 against 44.5 TFLOP/s): "
                "the 4-byte copies of A remain. Needs B and C 16-byte aligned."),
    _rung("split_copy", (128, 128, 8, 32, 64, 8, 8), "split_copy", 256, stages=2,
          notes="A through registers, B by cp.async: the step that overtook the warptile rung (48.7 against 44.5 "
                "TFLOP/s at 4096^3 on the H100). Needs A, B, C 16-byte aligned."),
    # The summit: 8x16 per thread, BK = 16, one block of 8 warps an SM; 101.9% / 102.8% of cuBLAS fp32 at 4096^3 /
    # 8192^3 on the H100, but 72.8% at 4097^3 (the float path, and 4.25 waves of 132 blocks).
    _rung("general", (128, 256, 16, 32, 128, 8, 16, 8), "general_shape", 256, stages=2, params={"group_m": 8},
          general=True, ceiling=True,
          notes="The ladder's summit: any M, N, K >= 1 and any 4-byte alignment; float4 paths when K % 4 == 0, "
                "N % 4 == 0 and A, B, C are 16-byte aligned. Also needs M + BM and N + BN to fit in int and "
                "cdiv(M, BM) <= 65535. At or above cuBLAS fp32 on large aligned squares; weak on odd shapes."),
    # The shape-robust instantiation of the same kernel: 94.4% / 95.2% / 90.9% of cuBLAS at 4096^3 / 8192^3 / 4097^3.
    _rung("general", (128, 128, 8, 32, 64, 8, 8, 16), "general_shape", 256, stages=2, params={"group_m": 16},
          general=True,
          notes="The same kernel with 128x128 tiles, two blocks an SM: below cuBLAS on aligned squares but within "
                "4 points of its own 4096^3 ratio at 4097^3, where the 128x256 instantiation falls 29 points."),
)
