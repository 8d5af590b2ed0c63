"""The table of kernels: the single source of truth.

Each entry is one CUDA function of one seed document with fixed template arguments, its launch
geometry, what it needs of a problem, whether it honours BLAS beta == 0 semantics, its Triton
counterparts and what the document published about it. Tests, the CLI and the report iterate over
KERNELS; nothing else lists kernels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.ideas import IDEAS
from harness.preconditions import (
    Precondition,
    indices_fit_int32,
    multiple_of,
    product_only,
    square,
    unmet,
)
from harness.problems import Op, Problem

# The argument names a kernel's parameter list may use, in the kernel's own order.
GEMM_ALPHA_BETA = ("M", "N", "K", "alpha", "A", "B", "beta", "C")
GEMM_PRODUCT = ("A", "B", "C", "M", "N", "K")
GEMM_SQUARE = ("A", "B", "C", "N")
GEMV = ("A", "x", "y", "M", "N")


@dataclass(frozen=True)
class Seed:
    key: str
    file: str
    title: str
    gpu: str


SEEDS: dict[str, Seed] = {
    s.key: s
    for s in (
        Seed("000", "000_680cc5a5f868a384.txt", "CUDA 007 - GEMM", "RTX 5070"),
        Seed("001", "001_813066c013350e08.txt", "CUDA GEMM 优化", "RTX 3090"),
        Seed("002", "002_719fc7197d4badad.txt", "Introduction to GEMM With Tiling", "none given"),
        Seed("003", "003_f6db134670b28b13.txt", "Optimizing SGEMV in CUDA", "GTX 1050 Ti"),
        Seed("004", "004_625ee54f2972fe01.txt", "GEMM", "RTX 5070 Ti"),
    )
}


@dataclass(frozen=True)
class Published:
    """A figure the document published for this kernel, on the document's own GPU."""

    pct_cublas: float | None = None
    tflops: float | None = None
    ms: float | None = None
    pct_bandwidth: float | None = None
    note: str = ""


@dataclass(frozen=True)
class Counterpart:
    """A Triton kernel expressing the same idea, configured from the CUDA tile."""

    name: str                 # short label, unique within the kernel ("dot", "rank1", ...)
    module: str               # kernels_triton.<module>
    params: dict[str, int | bool] = field(default_factory=dict)
    num_warps: int = 4
    num_stages: int = 1
    note: str = ""            # where the CUDA decision has no Triton handle, or the config departs


@dataclass(frozen=True)
class Kernel:
    id: str
    op: Op
    idea: str
    seed: str | None          # None: tile-rosetta's own kernel
    section: str
    source: str               # file in kernels_cuda/
    symbol: str               # C++ name expression, template arguments included
    args: tuple[str, ...]
    block: tuple[int, int, int]
    tile_m: int               # output rows per block
    tile_n: int               # output columns per block (sgemv: 0, the block spans the row)
    preconditions: tuple[Precondition, ...]
    reads_c_when_beta_zero: bool
    counterparts: tuple[Counterpart, ...]
    published: Published | None = None
    notes: str = ""

    @property
    def threads(self) -> int:
        x, y, z = self.block
        return x * y * z

    @property
    def computes_alpha_beta(self) -> bool:
        return "alpha" in self.args

    def grid(self, problem: Problem) -> tuple[int, int, int]:
        if self.op == "sgemv":
            return (-(-problem.M // self.tile_m), 1, 1)
        return (-(-problem.N // self.tile_n), -(-problem.M // self.tile_m), 1)

    def unmet(self, problem: Problem) -> list[str]:
        if problem.op != self.op:
            return [f"{self.id} is an {self.op} kernel, the problem is {problem.op}"]
        return unmet(self.preconditions, problem)

    def supports(self, problem: Problem) -> bool:
        return not self.unmet(problem)


def _gemm_pre(m: int, n: int, k: int, *extra: Precondition, why: str = "no bounds checks") -> tuple:
    conds = [multiple_of(d, v, why) for d, v in (("M", m), ("N", n), ("K", k)) if v > 1]
    return (*conds, *extra, indices_fit_int32())


def _tile(bm: int, bn: int, bk: int, warps: int, note: str = "", stages: int = 1) -> Counterpart:
    return Counterpart("dot", "gemm_tile", {"block_m": bm, "block_n": bn, "block_k": bk}, warps, stages, note)


def _naive(bm: int, bn: int, warps: int) -> Counterpart:
    return Counterpart("naive", "gemm_naive", {"block_m": bm, "block_n": bn}, warps)


def _rank1(bm: int, bn: int, bk: int, warps: int, unroll: bool = True, name: str = "rank1") -> Counterpart:
    return Counterpart(name, "gemm_outer", {"block_m": bm, "block_n": bn, "block_k": bk, "unroll": unroll}, warps)


def _gemv(bm: int, bn: int, warps: int, name: str = "rows", note: str = "") -> Counterpart:
    return Counterpart(name, "gemv_rows", {"block_m": bm, "block_n": bn}, warps, 1, note)


_BK16 = "tl.dot needs every dimension >= 16: K step 16 where the CUDA kernel steps 8"


def _s000() -> list[Kernel]:
    base = {"op": "sgemm", "seed": "000", "args": GEMM_ALPHA_BETA, "reads_c_when_beta_zero": True}
    v3 = "2D block tiling GEMM (general)"
    out = [
        Kernel(id="s000.gemm_naive", idea="naive", section="naïve GEMM", source="s000_gemm_naive.cu",
               symbol="gemm_naive", block=(16, 16, 1), tile_m=16, tile_n=16,
               preconditions=(indices_fit_int32(),), counterparts=(_naive(16, 16, 8),),
               published=Published(pct_cublas=9.26, ms=77.63),
               notes="The text gives no launch code: 16x16 threads, as its other kernels.", **base),
        Kernel(id="s000.gemm_block_tiling_v1<16>", idea="smem_tile", section="2D block tiling GEMM",
               source="s000_gemm_block_tiling_v1.cu", symbol="gemm_block_tiling_v1<16>", block=(16, 16, 1),
               tile_m=16, tile_n=16, preconditions=_gemm_pre(16, 16, 16), counterparts=(_tile(16, 16, 16, 8),),
               published=Published(pct_cublas=13.78, ms=52.19), **base),
        Kernel(id="s000.gemm_block_tiling_v2<64,16,16>", idea="multi_output",
               section="2D block tiling GEMM (multi-element per thread)", source="s000_gemm_block_tiling_v2.cu",
               symbol="gemm_block_tiling_v2<64, 16, 16>", block=(16, 16, 1), tile_m=64, tile_n=64,
               preconditions=_gemm_pre(64, 64, 64), counterparts=(_tile(64, 64, 64, 8),),
               published=Published(pct_cublas=22.40, ms=32.10), **base),
        Kernel(id="s000.gemm_block_tiling_v3<64,64,16,16,16>", idea="multi_output", section=v3,
               source="s000_gemm_block_tiling_v3.cu", symbol="gemm_block_tiling_v3<64, 64, 16, 16, 16>",
               block=(16, 16, 1), tile_m=64, tile_n=64, preconditions=_gemm_pre(64, 64, 16),
               counterparts=(_tile(64, 64, 16, 8),), published=Published(pct_cublas=54.71, ms=13.17),
               notes="The launch code of the text.", **base),
        Kernel(id="s000.gemm_block_tiling_v3<128,128,8,16,16>", idea="multi_output", section=v3,
               source="s000_gemm_block_tiling_v3.cu", symbol="gemm_block_tiling_v3<128, 128, 8, 16, 16>",
               block=(16, 16, 1), tile_m=128, tile_n=128, preconditions=_gemm_pre(128, 128, 8),
               counterparts=(_tile(128, 128, 16, 8, _BK16),),
               notes="The Bm = Bn = 128 setting the text discusses (64 outputs per thread).", **base),
        Kernel(id="s000.v3_unroll_idx<64,64,16,16,16>", idea="unroll", section="unroll",
               source="s000_gemm_block_tiling_v3_unroll_idx.cu", symbol="gemm_block_tiling_v3<64, 64, 16, 16, 16>",
               block=(16, 16, 1), tile_m=64, tile_n=64, preconditions=_gemm_pre(64, 64, 16),
               counterparts=(_rank1(64, 64, 16, 8, unroll=True, name="static_range"),),
               notes="#pragma unroll, load loops written i = 0; idx = i + tid (unrollable).", **base),
        Kernel(id="s000.v3_unroll_tid<64,64,16,16,16>", idea="unroll", section="unroll",
               source="s000_gemm_block_tiling_v3_unroll_tid.cu", symbol="gemm_block_tiling_v3<64, 64, 16, 16, 16>",
               block=(16, 16, 1), tile_m=64, tile_n=64, preconditions=_gemm_pre(64, 64, 16),
               counterparts=(_rank1(64, 64, 16, 8, unroll=False, name="range"),),
               notes="#pragma unroll, load loops written i = tid (trip count unknown to the compiler).", **base),
        Kernel(id="s000.gemm_block_tiling_v4<128,128,8,16,16>", idea="outer_product",
               section="2D block tiling GEMM (outer product)", source="s000_gemm_block_tiling_v4.cu",
               symbol="gemm_block_tiling_v4<128, 128, 8, 16, 16>", block=(16, 16, 1), tile_m=128, tile_n=128,
               preconditions=_gemm_pre(128, 128, 8),
               counterparts=(_rank1(128, 128, 8, 8), _tile(128, 128, 16, 8, _BK16)),
               published=Published(pct_cublas=62.90, ms=11.43),
               notes="The text's setting: BATCH 8x8 (128x128 over 16x16 threads), Bk 8.", **base),
    ]
    return out


def _s001() -> list[Kernel]:
    base = {"op": "sgemm", "seed": "001", "args": GEMM_PRODUCT, "reads_c_when_beta_zero": False}
    out = [
        Kernel(id="s001.v1_naive", idea="naive", section="第一版实现：naive", source="s001_v1_naive.cu",
               symbol="MyMatMulKernel", block=(16, 16, 1), tile_m=16, tile_n=16,
               preconditions=(product_only(), indices_fit_int32()), counterparts=(_naive(16, 16, 8),),
               published=Published(tflops=2.2), **base),
        Kernel(id="s001.v2_tiling<16>", idea="smem_tile", section="第二版实现：tiling", source="s001_v2_tiling.cu",
               symbol="MyMatMulKernel<16>", block=(16, 16, 1), tile_m=16, tile_n=16,
               preconditions=(multiple_of("K", 16, "A and B tiles are loaded without a K bound"), product_only(),
                              indices_fit_int32()),
               counterparts=(_tile(16, 16, 16, 8),), published=Published(tflops=2.9),
               notes="Checks M and N bounds, not K: a K that is not a multiple of 16 reads past the row.", **base),
    ]
    sweep = {1: 2.9, 2: 4.1, 4: 5.1, 8: 6.0, 16: 3.8}
    for s, tflops in sweep.items():
        ty = 16 // s
        out.append(Kernel(
            id=f"s001.v3_coarsen_1d<16,{ty},{s}>", idea="coarsen_1d", section="第三版实现：thread coarsening",
            source="s001_v3_coarsening_1d.cu", symbol=f"MyMatMulKernel<16, {ty}, {s}>", block=(16, ty, 1),
            tile_m=16, tile_n=16,
            preconditions=(multiple_of("K", 16, "A and B tiles are loaded without a K bound"), product_only(),
                           indices_fit_int32()),
            counterparts=(_tile(16, 16, 16, max(1, 16 * ty // 32),
                                "a 16-thread block is half a warp: Triton's smallest program is one warp"
                                if 16 * ty < 32 else ""),),
            published=Published(tflops=tflops, note=f"stride {s}"), **base))
    out.append(Kernel(
        id="s001.v4_coarsen_2d<64,64,8,8,8>", idea="coarsen_2d", section="第四版实现：2D thread coarsening",
        source="s001_v4_coarsening_2d.cu", symbol="MyMatMulKernel<64, 64, 8, 8, 8>", block=(64, 1, 1),
        tile_m=64, tile_n=64, preconditions=_gemm_pre(64, 64, 8, product_only()),
        counterparts=(_rank1(64, 64, 8, 2), _tile(64, 64, 16, 2, _BK16)),
        published=Published(tflops=15.0), **base))
    return out


def _s002() -> list[Kernel]:
    base = {"op": "sgemm", "seed": "002", "args": GEMM_SQUARE, "reads_c_when_beta_zero": False,
            "section": "Matrix Multiplication with Tiling", "source": "s002_tiled_matmul.cu", "idea": "smem_tile"}
    return [
        Kernel(id="s002.tiled_matmul<2>", symbol="tiled_matmul<2>", block=(2, 2, 1), tile_m=2, tile_n=2,
               preconditions=(square(), multiple_of("N", 2), product_only(), indices_fit_int32()),
               counterparts=(_rank1(2, 2, 2, 1),),
               notes="The worked example's TILE_SIZE (4 threads a block); tl.dot needs 16: rank-1 form.", **base),
        Kernel(id="s002.tiled_matmul<16>", symbol="tiled_matmul<16>", block=(16, 16, 1), tile_m=16, tile_n=16,
               preconditions=(square(), multiple_of("N", 16), product_only(), indices_fit_int32()),
               counterparts=(_tile(16, 16, 16, 8),),
               notes="TILE_SIZE 16 is tile-rosetta's instantiation (the document publishes no benchmark).",
               **base),
    ]


def _s003() -> list[Kernel]:
    base = {"op": "sgemv", "seed": "003", "args": GEMV, "reads_c_when_beta_zero": False}
    return [
        Kernel(id="s003.naive_sgemv", idea="gemv_naive", section="Kernel 1 – Naive SGEMV",
               source="s003_sgemv_naive.cu", symbol="naive_sgemv_kernel", block=(1024, 1, 1), tile_m=1024,
               tile_n=0, preconditions=(indices_fit_int32(),), counterparts=(_gemv(1024, 1, 32),),
               published=Published(ms=8.28, pct_bandwidth=14.5, pct_cublas=100 * 1.53 / 8.28),
               notes="The text lost its block-size figure: 1024 threads, one row each.", **base),
        Kernel(id="s003.coalesced_warp_sgemv", idea="gemv_warp", section="Kernel 2 – Coalesced access with reductions",
               source="s003_sgemv_coalesced.cu", symbol="coalesced_warp_sgemv_kernel", block=(32, 1, 1), tile_m=1,
               tile_n=0, preconditions=(indices_fit_int32(),), counterparts=(_gemv(1, 32, 1),),
               notes="The document is cut off after the load loop: the shuffle reduction is our completion.",
               **base),
    ]


def _rosetta_sgemv() -> list[Kernel]:
    base = {"op": "sgemv", "seed": None, "args": GEMV, "reads_c_when_beta_zero": False,
            "section": "tile-rosetta's step after kernel 2", "preconditions": (indices_fit_int32(),)}
    return [
        Kernel(id="rosetta.sgemv_block_reduce<256>", idea="gemv_block", source="rosetta_sgemv_block_reduce.cu",
               symbol="sgemv_block_reduce<256>", block=(256, 1, 1), tile_m=1, tile_n=0,
               counterparts=(_gemv(1, 256, 8),), **base),
        Kernel(id="rosetta.sgemv_float4<256,1>", idea="gemv_vector", source="rosetta_sgemv_float4.cu",
               symbol="sgemv_float4<256, 1>", block=(256, 1, 1), tile_m=1, tile_n=0,
               counterparts=(_gemv(1, 1024, 8),), **base),
        Kernel(id="rosetta.sgemv_float4<128,4>", idea="gemv_vector", source="rosetta_sgemv_float4.cu",
               symbol="sgemv_float4<128, 4>", block=(128, 1, 1), tile_m=4, tile_n=0,
               counterparts=(_gemv(4, 512, 4, note="32 threads a row, unrolled 4 x float4: 512 columns in flight"),),
               **base),
    ]


def _s004() -> list[Kernel]:
    base = {"op": "sgemm", "seed": "004", "args": GEMM_ALPHA_BETA, "reads_c_when_beta_zero": True,
            "block": (32, 32, 1), "tile_m": 32, "tile_n": 32}
    return [
        Kernel(id="s004.naive_gemm<32>", idea="naive", section="Kernel 01: Naive implementation",
               source="s004_naive_gemm.cu", symbol="naive_gemm<32>",
               preconditions=_gemm_pre(32, 32, 1, why="the text's host code asserts it"),
               counterparts=(_naive(32, 32, 32),), published=Published(pct_cublas=6.22, tflops=1.96), **base),
        Kernel(id="s004.block_tiling_gemm<32>", idea="smem_tile", section="Kernel 02: Block tiling",
               source="s004_block_tiling_gemm.cu", symbol="block_tiling_gemm<32>",
               preconditions=_gemm_pre(32, 32, 32), counterparts=(_tile(32, 32, 32, 32),),
               published=Published(pct_cublas=10.99, tflops=3.46), **base),
    ]


KERNELS: tuple[Kernel, ...] = tuple(_s000() + _s001() + _s002() + _s003() + _rosetta_sgemv() + _s004())
BY_ID: dict[str, Kernel] = {k.id: k for k in KERNELS}

# Published baselines (the documents' own cuBLAS figures), for `rosetta claims`.
PUBLISHED_CUBLAS: dict[str, Published] = {
    "000": Published(ms=7.19),
    "003": Published(ms=1.53, pct_bandwidth=78.1),
    "004": Published(tflops=31.49),
}
# Seed 001's stride table (RTX 3090, Nsight Compute): stride -> (theoretical occupancy %, registers/thread).
PUBLISHED_STRIDE_SWEEP: dict[int, tuple[float, int]] = {1: (100.0, 38), 2: (100.0, 40), 4: (66.67, 40),
                                                        8: (33.33, 52), 16: (33.33, 72)}
# What a document claims that is not one kernel's figure.
PUBLISHED_CLAIMS: dict[str, str] = {
    "000.unroll": "loop unrolling (i = 0; idx = i + tid) against i = tid: 'nearly 10 times'",
    "001.peak": "RTX 3090 fp32 peak 35.58 TFLOPS; v4 at 15 TFLOPS",
    "004.intensity": "operational intensity 0.25 FLOP/B (naive) and 7.94 FLOP/B (kernel 02) at 4096^3",
}


def get(kernel_id: str) -> Kernel:
    try:
        return BY_ID[kernel_id]
    except KeyError:
        close = [k for k in BY_ID if kernel_id.lower() in k.lower()]
        hint = f"; did you mean {', '.join(close[:5])}?" if close else "; `rosetta list` shows them all"
        raise ValueError(f"unknown kernel id {kernel_id!r}{hint}") from None


def select(patterns: list[str] | None = None, op: Op | None = None) -> list[Kernel]:
    """Kernels whose id contains any of the patterns (all when none), of one op when given."""
    chosen = [k for k in KERNELS if op is None or k.op == op]
    if patterns:
        chosen = [k for k in chosen if any(p in k.id for p in patterns)]
        if not chosen:
            raise ValueError(f"no kernel id matches {', '.join(map(repr, patterns))}; `rosetta list` shows them all")
    return chosen


def _validate_registry() -> None:
    seen: set[str] = set()
    for k in KERNELS:
        if k.id in seen:
            raise RuntimeError(f"duplicate kernel id {k.id}")
        seen.add(k.id)
        if k.idea not in IDEAS:
            raise RuntimeError(f"{k.id}: unknown idea {k.idea!r}")
        names = [c.name for c in k.counterparts]
        if len(set(names)) != len(names):
            raise RuntimeError(f"{k.id}: counterpart names repeat")


_validate_registry()
