"""The tiling ideas the worklogs teach, and how each decision maps onto CUDA and Triton.

One row per tiling decision: what it is in CUDA, what it is in Triton, and who decides it in Triton
(the programmer, or the compiler). The report and `rosetta explain` render these rows; the
numbers that make them concrete (registers, shared memory, LDG widths) come from the compiled kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

PROGRAMMER = "programmer"
COMPILER = "compiler"


@dataclass(frozen=True)
class MappingRow:
    decision: str
    cuda: str
    triton: str
    triton_decided_by: str


@dataclass(frozen=True)
class Idea:
    key: str
    title: str
    lesson: str
    mapping: tuple[MappingRow, ...]


def _rows(**override: tuple[str, str, str]) -> tuple[MappingRow, ...]:
    """The GEMM mapping table, with the rows that differ for one idea replaced."""
    base: dict[str, tuple[str, str, str]] = {
        "grid / program id": (
            "blocks (cdiv(N, tile_n), cdiv(M, tile_m)); blockIdx.x walks columns",
            "programs (cdiv(N, BLOCK_N), cdiv(M, BLOCK_M)); program_id(0) walks columns",
            PROGRAMMER,
        ),
        "output tile per block / program": ("tile_m x tile_n", "BLOCK_M x BLOCK_N", PROGRAMMER),
        "threads / warps": ("blockDim (the kernel's threads)", "num_warps x 32 (threads / 32)", PROGRAMMER),
        "who owns which output": (
            "the programmer's index arithmetic (threadIdx -> C element)",
            "the compiler's layout encoding (#blocked, #mma) of the accumulator",
            COMPILER,
        ),
        "shared-memory staging": (
            "__shared__ tiles filled by explicit loads",
            "tl.dot operands staged in shared memory by the compiler (local_alloc in ttgir)",
            COMPILER,
        ),
        "shared-memory padding": (
            "none",
            "no handle: the compiler picks a swizzled shared layout",
            COMPILER,
        ),
        "synchronisation": ("__syncthreads() written by hand", "barriers inserted by the compiler", COMPILER),
        "K loop": ("for (k = 0; k < K; k += Bk)", "for k in range(0, K, BLOCK_K)", PROGRAMMER),
        "register blocking": (
            "one accumulator register per thread",
            "the BLOCK_M x BLOCK_N accumulator, split over threads by the layout",
            COMPILER,
        ),
        "unrolling": (
            "the compiler's choice (#pragma unroll is a hint)",
            "tl.static_range unrolls at trace time; range() stays a loop unless the compiler unrolls",
            PROGRAMMER,
        ),
        "vectorised loads": (
            "scalar float loads (LDG.E / LDS) as written",
            "chosen by the compiler from contiguity and alignment it can prove",
            COMPILER,
        ),
        "pipelining stages": (
            "none: load, sync, compute, sync",
            "num_stages software pipelining of the K loop",
            PROGRAMMER,
        ),
        "bounds handling": (
            "as the seed wrote it (often none: shapes must be multiples of the tile)",
            "masks on tl.load / tl.store: any shape",
            PROGRAMMER,
        ),
    }
    base.update(override)
    return tuple(MappingRow(k, *v) for k, v in base.items())


_GEMV_ROWS: dict[str, tuple[str, str, str]] = {
    "grid / program id": ("blocks over rows", "programs over row blocks: program_id(0) * BLOCK_M", PROGRAMMER),
    "output tile per block / program": ("rows per block", "BLOCK_M rows per program", PROGRAMMER),
    "K loop": ("loop over the row's N columns", "for n in range(0, N, BLOCK_N)", PROGRAMMER),
    "register blocking": ("partial sums in registers", "a BLOCK_M x BLOCK_N partial-sum tile", COMPILER),
    "shared-memory staging": ("none for A and x", "none", COMPILER),
    "synchronisation": ("none inside a warp", "none needed", COMPILER),
}


IDEAS: dict[str, Idea] = {
    idea.key: idea
    for idea in (
        Idea(
            "naive",
            "Naive: one thread per output",
            "Each thread computes one element of C as a dot product read straight from global memory: "
            "coalesced B, broadcast A, but two loads per FMA, so the kernel is bound by memory traffic.",
            _rows(**{
                "shared-memory staging": ("none", "none: loads feed the rank-1 update directly", PROGRAMMER),
                "K loop": ("for (i = 0; i < K; i++), one element per step",
                           "for k in range(0, K): one column of A, one row of B per step", PROGRAMMER),
                "who owns which output": (
                    "thread (ty, tx) owns C[row, col], one element",
                    "no thread index: the program owns a BLOCK_M x BLOCK_N tile and the compiler's layout "
                    "gives each thread BLOCK_M*BLOCK_N/(32*num_warps) of it",
                    COMPILER,
                ),
            }),
        ),
        Idea(
            "smem_tile",
            "Shared-memory block tile",
            "A block stages a tile of A and a tile of B in shared memory, then every thread reads its row "
            "and column from there: global traffic falls by the tile width.",
            _rows(**{
                "register blocking": ("one accumulator per thread (t / sum / c_value)",
                                      "the accumulator tile, split over threads by the layout", COMPILER),
            }),
        ),
        Idea(
            "multi_output",
            "Block tile with several outputs per thread",
            "The C tile is larger than the thread block (64x64 over 16x16 threads): each thread keeps "
            "BATCH_Y x BATCH_X accumulators, so fewer, busier threads hide latency.",
            _rows(**{
                "register blocking": ("float accum[BATCH_Y][BATCH_X], strided by the block dims",
                                      "the accumulator tile; elements per thread = BLOCK_M*BLOCK_N/(32*num_warps)",
                                      COMPILER),
                "shared-memory padding": ("As[TILE_DIM][TILE_DIM+1] (v2) to avoid bank conflicts",
                                          "no handle: the compiler swizzles", COMPILER),
            }),
        ),
        Idea(
            "unroll",
            "Loop unrolling",
            "A loop whose trip count the compiler can see (i = 0; idx = i + tid) unrolls; one starting at "
            "tid does not. The document reports nearly 10x between the two.",
            _rows(**{
                "unrolling": ("#pragma unroll on the load loops; unrollable only with a constant trip count",
                              "tl.static_range (unrolled when traced) against tl.range (a compiled loop)",
                              PROGRAMMER),
            }),
        ),
        Idea(
            "coarsen_1d",
            "1D thread coarsening",
            "Each thread computes kStrideY outputs of a column, reusing its Bds value from a register: fewer "
            "threads, fewer shared-memory loads per output, lower occupancy but more work per thread.",
            _rows(**{
                "register blocking": ("c_value[kStrideY] along y", "the accumulator tile", COMPILER),
                "threads / warps": ("16 x (16 / stride) threads", "num_warps from the same thread count "
                                    "(at least 1 warp: a 16-thread block has no Triton equivalent)", PROGRAMMER),
            }),
        ),
        Idea(
            "coarsen_2d",
            "2D thread coarsening (register blocking)",
            "Each thread computes an 8x8 block of C from register caches of A and B: 16 shared loads feed 64 "
            "FMAs.",
            _rows(**{
                "register blocking": ("c_value[8][8] with A_reg[8], B_reg[8]",
                                      "the accumulator tile; tl.dot's FMA lowering blocks registers itself",
                                      COMPILER),
            }),
        ),
        Idea(
            "outer_product",
            "Register outer product",
            "Loop order k-outermost: per k, a column of As and a row of Bs go to registers and a rank-1 "
            "update accumulates into accum[i][j]; shared loads fall from 2*BATCH_Y*BATCH_X*Bk to "
            "Bk*(BATCH_Y+BATCH_X).",
            _rows(**{
                "register blocking": ("a[BATCH_Y], b[BATCH_X] register arrays, accum[i][j] += a[i]*b[j]",
                                      "rank-1 form: acc += a[:, None] * b[None, :]; dot form: tl.dot", COMPILER),
            }),
        ),
        Idea(
            "gemv_naive",
            "SGEMV, one thread per row",
            "Thread i walks row i: neighbouring threads read addresses N floats apart, so no load coalesces.",
            _rows(**{**_GEMV_ROWS, **{
                "who owns which output": ("thread -> row", "a [BLOCK_M, 1] tile: the layout gives one row per thread",
                                          COMPILER),
                "vectorised loads": ("scalar, uncoalesced", "scalar: BLOCK_N = 1 leaves nothing to vectorise",
                                     COMPILER),
            }}),
        ),
        Idea(
            "gemv_warp",
            "SGEMV, one warp per row with a shuffle reduction",
            "A 32-thread block walks one row with stride 32 (coalesced), then __shfl_down_sync folds the 32 "
            "partial sums.",
            _rows(**{**_GEMV_ROWS, **{
                "who owns which output": ("block -> row; lane -> columns lane + 32j", "program -> row", PROGRAMMER),
                "synchronisation": ("warp shuffles (__shfl_down_sync)",
                                    "tl.sum(axis=1): the compiler emits the shuffles", COMPILER),
            }}),
        ),
        Idea(
            "gemv_block",
            "SGEMV, several warps per row (tile-rosetta's step)",
            "A block of several warps per row: shuffles inside each warp, then a shared-memory pass across "
            "the warps.",
            _rows(**{**_GEMV_ROWS, **{
                "synchronisation": ("shuffles, __shared__ partials, __syncthreads",
                                    "tl.sum across warps: compiler-generated shuffles + shared memory", COMPILER),
            }}),
        ),
        Idea(
            "gemv_vector",
            "SGEMV with 16-byte loads (tile-rosetta's step)",
            "float4 loads quarter the load instructions and keep more bytes in flight per thread: the last "
            "step towards the copy bandwidth.",
            _rows(**{**_GEMV_ROWS, **{
                "vectorised loads": ("float4 (LDG.E.128) written by hand, scalar tail when N % 4 != 0",
                                     "LDG.128 when the compiler proves contiguity and 16-byte alignment "
                                     "(N divisible by 16 specialises the row stride)", COMPILER),
            }}),
        ),
    )
}
