"""The tiling ideas the worklogs teach: a key, a title and the lesson, for the report and `rosetta explain`.

How each idea maps onto CUDA and Triton (the decisions, who makes them, and the evidence that proves
it in the compiled kernels) is in harness/claims; the proof, in harness/analysis/mapping.py.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Idea:
    key: str
    title: str
    lesson: str


IDEAS: dict[str, Idea] = {
    idea.key: idea
    for idea in (
        Idea(
            "naive",
            "Naive: one thread per output",
            "Each thread computes one element of C as a dot product read straight from global memory: "
            "coalesced B, broadcast A, but two loads per FMA, so the kernel is bound by memory traffic.",
        ),
        Idea(
            "smem_tile",
            "Shared-memory block tile",
            "A block stages a tile of A and a tile of B in shared memory, then every thread reads its row "
            "and column from there: global traffic falls by the tile width.",
        ),
        Idea(
            "multi_output",
            "Block tile with several outputs per thread",
            "The C tile is larger than the thread block (64x64 over 16x16 threads): each thread keeps "
            "BATCH_Y x BATCH_X accumulators, so fewer, busier threads hide latency.",
        ),
        Idea(
            "unroll",
            "Loop unrolling",
            "A loop whose trip count the compiler can see (i = 0; idx = i + tid) unrolls; one starting at "
            "tid does not. The document reports nearly 10x between the two.",
        ),
        Idea(
            "coarsen_1d",
            "1D thread coarsening",
            "Each thread computes kStrideY outputs of a column, reusing its Bds value from a register: fewer "
            "threads, fewer shared-memory loads per output, lower occupancy but more work per thread.",
        ),
        Idea(
            "coarsen_2d",
            "2D thread coarsening (register blocking)",
            "Each thread computes an 8x8 block of C from register caches of A and B: 16 shared loads feed 64 "
            "FMAs.",
        ),
        Idea(
            "outer_product",
            "Register outer product",
            "Loop order k-outermost: per k, a column of As and a row of Bs go to registers and a rank-1 "
            "update accumulates into accum[i][j]; shared loads fall from 2*BATCH_Y*BATCH_X*Bk to "
            "Bk*(BATCH_Y+BATCH_X).",
        ),
        Idea(
            "gemv_naive",
            "SGEMV, one thread per row",
            "Thread i walks row i: neighbouring threads read addresses N floats apart, so no load coalesces.",
        ),
        Idea(
            "gemv_warp",
            "SGEMV, one warp per row with a shuffle reduction",
            "A 32-thread block walks one row with stride 32 (coalesced), then __shfl_down_sync folds the 32 "
            "partial sums.",
        ),
        Idea(
            "gemv_block",
            "SGEMV, several warps per row (tile-rosetta's step)",
            "A block of several warps per row: shuffles inside each warp, then a shared-memory pass across "
            "the warps.",
        ),
        Idea(
            "gemv_vector",
            "SGEMV with 16-byte loads (tile-rosetta's step)",
            "float4 loads quarter the load instructions and keep more bytes in flight per thread: the last "
            "step towards the copy bandwidth.",
        ),
        Idea(
            "tensor_core",
            "Tensor cores: TF32 and 3xTF32 (tile-rosetta's step)",
            "mma.sync multiplies 16x8x8 tf32 tiles held in registers: 8x the FFMA rate, fed by ldmatrix from a "
            "swizzled, cp.async-pipelined shared tile. TF32 keeps 10 mantissa bits of each input (the CUDA kernel "
            "rounds them, Triton's tf32 dot truncates them); 3xTF32 splits each input into a tf32 high part and a tf32 "
            "remainder and issues three mma's, which is fp32-accurate again. "
            "Hopper's tf32 wgmma needs K-major B in shared memory, so B's layout in global memory decides Triton's "
            "fast path.",
        ),
        Idea(
            "wgmma",
            "Hopper tensor cores: wgmma, TMA, warp specialisation, a persistent grid (tile-rosetta's step)",
            "Hopper's warpgroup MMA (wgmma, HGMMA) takes both operands from 128-byte swizzled shared memory through "
            "matrix descriptors and runs asynchronously, four warps at a time. Each rung adds one idea: the copy "
            "engine (TMA, tensor maps, mbarrier completion) instead of cp.async by every thread; a producer "
            "warpgroup that only loads and consumer warpgroups that only multiply, with setmaxnreg moving registers "
            "to the consumers; a persistent grid that walks tiles in grouped order. TF32 wgmma reads fp32 operands' "
            "upper 19 bits (truncation) and cannot transpose B: both operands must be K-major.",
        ),
        Idea(
            "vectorize",
            "128-bit loads and stores (tile-rosetta's step)",
            "A and B move from global to shared memory as float4 and B's row and C are accessed as float4: a "
            "quarter of the load/store instructions for the same bytes.",
        ),
        Idea(
            "smem_layout",
            "Transposed, padded A tile (tile-rosetta's step)",
            "A is stored k-major in shared memory so a thread's column of A is contiguous (one float4 read, "
            "no bank conflict); a pad of 4 floats keeps the transposing stores conflict-free and the rows "
            "16-byte aligned.",
        ),
        Idea(
            "warptile",
            "Warp tiles (tile-rosetta's step)",
            "Each warp owns a sub-block of the block tile and each thread's patch is 4x4 pieces spread over "
            "it, so every float4 a warp reads from shared memory is a single wavefront.",
        ),
        Idea(
            "async_copy",
            "cp.async prefetch into shared-memory stages (tile-rosetta's step)",
            "Tiles are copied global -> shared by cp.async several K steps ahead while the warps compute: one"
            " barrier per K step and no registers spent on the copy.",
        ),
        Idea(
            "frag_prefetch",
            "Double-buffered register fragments (tile-rosetta's step)",
            "The shared-memory reads for step k+1 are issued before the FFMAs of step k, across tile "
            "boundaries too, so their latency is always covered.",
        ),
        Idea(
            "split_copy",
            "A through registers, B by cp.async (tile-rosetta's step)",
            "The operand that must be transposed (A) goes global -> registers -> shared one tile ahead; the "
            "one that lands as it lies (B) goes by 16-byte cp.async: neither pays the other's cost.",
        ),
        Idea(
            "general_shape",
            "Any shape, any alignment, grouped order (tile-rosetta's top rung)",
            "Edge copies are redirected or zero-filled once, outside the K loop; a partial K tile is handled "
            "first; float4 paths are taken only when alignment allows; blocks are visited in groups for L2 "
            "reuse.",
        ),
    )
}
