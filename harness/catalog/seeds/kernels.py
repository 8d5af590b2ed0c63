"""The seed documents and every kernel they publish, instantiated as the documents launch them.

A counterpart here names only its Triton form; its tile, K step and warps come from the kernel
(harness/catalog_types/kernel.Counterpart.config). Where a Triton form cannot take the CUDA setting, the deviation
and the reason stand beside it.
"""

from __future__ import annotations

from dataclasses import replace

from harness.catalog_types.kernel import Counterpart, Deviation, Kernel, Published, PublishedRatio, Role, Seed
from harness.problems.preconditions import (
    Precondition,
    dims_fit_int32,
    indices_fit_int32,
    multiple_of,
    product_only,
    square,
)

# The argument names a kernel's parameter list may use, in the kernel's own order.
GEMM_ALPHA_BETA = ("M", "N", "K", "alpha", "A", "B", "beta", "C")
GEMM_PRODUCT = ("A", "B", "C", "M", "N", "K")
GEMM_SQUARE = ("A", "B", "C", "N")
GEMV = ("A", "x", "y", "M", "N")

SEEDS: dict[str, Seed] = {
    s.key: s
    for s in (
        Seed("000", "000_680cc5a5f868a384.txt", "CUDA 007 - GEMM", "CUDA 007 - GEMM", "RTX 5070",
             cublas=Published(ms=7.19)),
        Seed("001", "001_813066c013350e08.txt", "CUDA GEMM 优化", "CUDA GEMM optimisation", "RTX 3090",
             peak_tflops=35.58),
        Seed("002", "002_719fc7197d4badad.txt", "Introduction to GEMM With Tiling", "Introduction to GEMM With Tiling",
             "none given"),
        Seed("003", "003_f6db134670b28b13.txt", "Optimizing SGEMV in CUDA", "Optimizing SGEMV in CUDA", "GTX 1050 Ti",
             cublas=Published(ms=1.53, pct_bandwidth=78.1)),
        Seed("004", "004_625ee54f2972fe01.txt", "GEMM", "GEMM", "RTX 5070 Ti", cublas=Published(tflops=31.49)),
    )
}

# Section titles as the documents give them, with an English translation where the document is not English.
SECTION_EN: dict[str, str] = {
    "第一版实现：naive": "version 1: naive",
    "第二版实现：tiling": "version 2: tiling",
    "第三版实现：thread coarsening": "version 3: thread coarsening",
    "第四版实现：2D thread coarsening": "version 4: 2D thread coarsening",
}


def gemm_pre(m: int, n: int, k: int, *extra: Precondition, why: str = "no bounds checks") -> tuple[Precondition, ...]:
    conds = [multiple_of(d, v, why) for d, v in (("M", m), ("N", n), ("K", k)) if v > 1]
    return (*conds, *extra, indices_fit_int32())


NAIVE = Counterpart("naive", "gemm_naive")
DOT = Counterpart("dot", "gemm_tile")
# tl.dot takes no dimension under 16; where the CUDA kernel steps K by 8, the dot form steps 16.
DOT_BK16 = Counterpart("dot", "gemm_tile", deviations={
    "block_k": Deviation(16, "tl.dot needs every dimension >= 16; the CUDA kernel steps K by 8")})
# The rank-1 form reads each step's column of A and row of B from global memory where the CUDA kernels stage tiles
# in shared memory (Triton has no shared-memory handle outside tl.dot): shown, never an idea's best Triton.
RANK1_DESIGN = "deliberately different: rank-1 updates from global memory, no shared tile"
RANK1 = Counterpart("rank1", "gemm_outer", {"unroll": True}, design=RANK1_DESIGN, role=Role.RANK1)
ROWS = Counterpart("rows", "gemv_rows")


def _s000() -> list[Kernel]:
    base = {"op": "sgemm", "seed": "000", "args": GEMM_ALPHA_BETA, "reads_c_when_beta_zero": True,
            "block": (16, 16, 1)}
    v3 = "2D block tiling GEMM (general)"
    return [
        Kernel(id="s000.gemm_naive", idea="naive", section="naïve GEMM", symbol="gemm_naive", tile_m=16, tile_n=16,
               tile_k=1, preconditions=(indices_fit_int32(),), counterparts=(NAIVE,),
               published=Published(pct_cublas=9.26, ms=77.63),
               notes="The text gives no launch code: 16x16 threads, as its other kernels.", **base),
        Kernel(id="s000.gemm_block_tiling_v1<16>", idea="smem_tile", section="2D block tiling GEMM",
               symbol="gemm_block_tiling_v1<16>", tile_m=16, tile_n=16, tile_k=16,
               preconditions=gemm_pre(16, 16, 16), counterparts=(DOT,),
               published=Published(pct_cublas=13.78, ms=52.19), **base),
        Kernel(id="s000.gemm_block_tiling_v2<64,16,16>", idea="multi_output",
               section="2D block tiling GEMM (multi-element per thread)", symbol="gemm_block_tiling_v2<64, 16, 16>",
               tile_m=64, tile_n=64, tile_k=64, preconditions=gemm_pre(64, 64, 64), counterparts=(DOT,),
               published=Published(pct_cublas=22.40, ms=32.10), **base),
        Kernel(id="s000.gemm_block_tiling_v3<64,64,16,16,16>", idea="multi_output", section=v3,
               symbol="gemm_block_tiling_v3<64, 64, 16, 16, 16>", tile_m=64, tile_n=64, tile_k=16,
               preconditions=gemm_pre(64, 64, 16), counterparts=(DOT,),
               published=Published(pct_cublas=54.71, ms=13.17), notes="The launch code of the text.", **base),
        Kernel(id="s000.gemm_block_tiling_v3<128,128,8,16,16>", idea="multi_output", section=v3,
               symbol="gemm_block_tiling_v3<128, 128, 8, 16, 16>", tile_m=128, tile_n=128, tile_k=8,
               preconditions=gemm_pre(128, 128, 8), counterparts=(DOT_BK16,),
               notes="The Bm = Bn = 128 setting the text discusses (64 outputs per thread).", **base),
        Kernel(id="s000.v3_unroll_idx<64,64,16,16,16>", idea="unroll", section="unroll",
               symbol="gemm_block_tiling_v3<64, 64, 16, 16, 16>", tile_m=64, tile_n=64, tile_k=16,
               preconditions=gemm_pre(64, 64, 16),
               counterparts=(DOT, replace(RANK1, name="static_range")),
               notes="#pragma unroll, load loops written i = 0; idx = i + tid (unrollable).", **base),
        Kernel(id="s000.v3_unroll_tid<64,64,16,16,16>", idea="unroll", section="unroll",
               symbol="gemm_block_tiling_v3<64, 64, 16, 16, 16>", tile_m=64, tile_n=64, tile_k=16,
               preconditions=gemm_pre(64, 64, 16),
               counterparts=(DOT, replace(RANK1, name="range", params={"unroll": False})),
               notes="#pragma unroll, load loops written i = tid (trip count unknown to the compiler).", **base),
        Kernel(id="s000.gemm_block_tiling_v4<128,128,8,16,16>", idea="outer_product",
               section="2D block tiling GEMM (outer product)", symbol="gemm_block_tiling_v4<128, 128, 8, 16, 16>",
               tile_m=128, tile_n=128, tile_k=8, preconditions=gemm_pre(128, 128, 8), counterparts=(RANK1, DOT_BK16),
               published=Published(pct_cublas=62.90, ms=11.43),
               notes="The text's setting: BATCH 8x8 (128x128 over 16x16 threads), Bk 8.", **base),
    ]


def _s001() -> list[Kernel]:
    base = {"op": "sgemm", "seed": "001", "args": GEMM_PRODUCT, "reads_c_when_beta_zero": False}
    no_k_bound = multiple_of("K", 16, "A and B tiles are loaded without a K bound")
    out = [
        Kernel(id="s001.v1_naive", idea="naive", section="第一版实现：naive", symbol="MyMatMulKernel",
               block=(16, 16, 1), tile_m=16, tile_n=16, tile_k=1,
               preconditions=(product_only(), indices_fit_int32()), counterparts=(NAIVE,),
               published=Published(tflops=2.2), **base),
        Kernel(id="s001.v2_tiling<16>", idea="smem_tile", section="第二版实现：tiling", symbol="MyMatMulKernel<16>",
               block=(16, 16, 1), tile_m=16, tile_n=16, tile_k=16,
               preconditions=(no_k_bound, product_only(), indices_fit_int32()), counterparts=(DOT,),
               published=Published(tflops=2.9),
               notes="Checks M and N bounds, not K: a K that is not a multiple of 16 reads past the row.", **base),
    ]
    # The document's stride table (RTX 3090, Nsight Compute): stride -> (TFLOPS, theoretical occupancy %, registers).
    sweep = {1: (2.9, 100.0, 38), 2: (4.1, 100.0, 40), 4: (5.1, 66.67, 40), 8: (6.0, 33.33, 52),
             16: (3.8, 33.33, 72)}
    half_warp = Counterpart("dot", "gemm_tile", deviations={
        "num_warps": Deviation(1, "a 16-thread block is half a warp: Triton's smallest program is one warp")})
    for s, (tflops, occupancy, registers) in sweep.items():
        ty = 16 // s
        out.append(Kernel(
            id=f"s001.v3_coarsen_1d<16,{ty},{s}>", idea="coarsen_1d", section="第三版实现：thread coarsening",
            symbol=f"MyMatMulKernel<16, {ty}, {s}>", block=(16, ty, 1), tile_m=16, tile_n=16, tile_k=16,
            preconditions=(no_k_bound, product_only(), indices_fit_int32()),
            counterparts=(half_warp if 16 * ty < 32 else DOT,),
            published=Published(tflops=tflops, stride=s, occupancy_pct=occupancy, registers=registers), **base))
    out.append(Kernel(
        id="s001.v4_coarsen_2d<64,64,8,8,8>", idea="coarsen_2d", section="第四版实现：2D thread coarsening",
        symbol="MyMatMulKernel<64, 64, 8, 8, 8>", block=(64, 1, 1), tile_m=64, tile_n=64, tile_k=8,
        preconditions=gemm_pre(64, 64, 8, product_only()), counterparts=(RANK1, DOT_BK16),
        published=Published(tflops=15.0), **base))
    return out


_TL_DOT_16 = Deviation(16, "tl.dot needs every dimension >= 16; the CUDA tile is 2")


def _s002() -> list[Kernel]:
    base = {"op": "sgemm", "seed": "002", "args": GEMM_SQUARE, "reads_c_when_beta_zero": False,
            "section": "Matrix Multiplication with Tiling", "idea": "smem_tile"}
    return [
        Kernel(id="s002.tiled_matmul<2>", symbol="tiled_matmul<2>", block=(2, 2, 1), tile_m=2, tile_n=2, tile_k=2,
               preconditions=(square(), multiple_of("N", 2), product_only(), indices_fit_int32()),
               # the rank-1 form first: it keeps the worked example's 2 x 2 tile, which `rosetta trace` follows
               counterparts=(
                   replace(RANK1, deviations={
                       "num_warps": Deviation(1, "4 threads: Triton's smallest program is one warp")}),
                   Counterpart("dot", "gemm_tile", deviations={
                       "block_m": _TL_DOT_16, "block_n": _TL_DOT_16, "block_k": _TL_DOT_16,
                       "num_warps": Deviation(1, "4 threads: Triton's smallest program is one warp")})),
               notes="The worked example's TILE_SIZE (4 threads a block). tl.dot needs 16: the staged (dot) form "
                     "takes a 16 x 16 x 16 tile; the rank-1 form keeps the 2 x 2 tile.", **base),
        Kernel(id="s002.tiled_matmul<16>", symbol="tiled_matmul<16>", block=(16, 16, 1), tile_m=16, tile_n=16,
               tile_k=16, preconditions=(square(), multiple_of("N", 16), product_only(), indices_fit_int32()),
               counterparts=(DOT,),
               notes="TILE_SIZE 16 is tile-rosetta's instantiation (the document publishes no benchmark).", **base),
    ]


def _s003() -> list[Kernel]:
    base = {"op": "sgemv", "seed": "003", "args": GEMV, "reads_c_when_beta_zero": False, "tile_n": 0}
    return [
        Kernel(id="s003.naive_sgemv", idea="gemv_naive", section="Kernel 1 – Naive SGEMV",
               symbol="naive_sgemv_kernel", block=(1024, 1, 1), tile_m=1024, tile_k=1,
               preconditions=(indices_fit_int32(),), counterparts=(ROWS,),
               published=Published(ms=8.28, pct_bandwidth=14.5, pct_cublas=100 * 1.53 / 8.28),
               notes="The text lost its block-size figure: 1024 threads, one row each.", **base),
        Kernel(id="s003.coalesced_warp_sgemv", idea="gemv_warp", section="Kernel 2 – Coalesced access with reductions",
               symbol="coalesced_warp_sgemv_kernel", block=(32, 1, 1), tile_m=1, tile_k=32,
               preconditions=(indices_fit_int32(),), counterparts=(ROWS,),
               notes="The document is cut off after the load loop: the shuffle reduction is our completion.",
               **base),
    ]


def _s004() -> list[Kernel]:
    base = {"op": "sgemm", "seed": "004", "args": GEMM_ALPHA_BETA, "reads_c_when_beta_zero": True,
            "block": (32, 32, 1), "tile_m": 32, "tile_n": 32}
    return [
        Kernel(id="s004.naive_gemm<32>", idea="naive", section="Kernel 01: Naive implementation",
               symbol="naive_gemm<32>", tile_k=1,
               preconditions=(*gemm_pre(32, 32, 1, why="the text's host code asserts it")[:-1], dims_fit_int32()),
               counterparts=(NAIVE,), published=Published(pct_cublas=6.22, tflops=1.96, intensity=0.25), **base),
        Kernel(id="s004.block_tiling_gemm<32>", idea="smem_tile", section="Kernel 02: Block tiling",
               symbol="block_tiling_gemm<32>", tile_k=32, preconditions=gemm_pre(32, 32, 32), counterparts=(DOT,),
               published=Published(pct_cublas=10.99, tflops=3.46, intensity=7.94), **base),
    ]


KERNELS: tuple[Kernel, ...] = tuple(_s000() + _s001() + _s002() + _s003() + _s004())

# Seed 000's unroll section: the unrollable load loop against the one starting at tid.
UNROLL_CLAIM = PublishedRatio("000", "s000.v3_unroll_idx<64,64,16,16,16>", "s000.v3_unroll_tid<64,64,16,16,16>", 10.0,
                              "nearly 10 times")
