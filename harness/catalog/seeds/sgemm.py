"""The SGEMM ideas of the worklogs (naive to register outer product): each idea's lesson beside its mapping claims.

Their kernels are the documents' own, in harness/catalog/seeds/kernels.py; the SIMT ladder's first rung takes
the 2D coarsening idea from here.
"""

from __future__ import annotations

from harness.catalog.checks import (
    DOT_STAGED,
    NO_LOCAL,
    TUNED_OUTPUTS,
    ffma_only,
    lds,
    same_outputs_per_thread,
    scalar_loads,
    single_buffer,
    staging,
    synchronisation,
    tiles,
    triton_tiles,
)
from harness.catalog_types.claim import COMPILER, PROGRAMMER, ByForm, ByKernel, Check, Claim
from harness.catalog_types.evidence import Evidence, Numbers
from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import Role

_TILES_EXACT = Check("shared bytes are the two tiles exactly (unpadded)",
                     lambda ev: ev.cuda["shared_bytes"] == tiles(ev), ("shared_bytes",))
_TWO_SHARED_ARRAYS = Check("two __shared__ arrays, filled with 4-byte stores",
                           lambda ev: ev.cuda["src.shared_arrays"] == 2 and ev.cuda["STS.32"] > 0
                           and ev.cuda["STS.64"] + ev.cuda["STS.128"] == 0, ("src.shared_arrays", "STS.32"))


def _load_per_ffma(n: Numbers) -> bool:
    return scalar_loads(n) and n["LDG.32"] >= n["FFMA"]


NAIVE_IDEA = Idea(
    "naive",
    "Naive: one thread per output",
    "Each thread computes one element of C as a dot product read straight from global memory: "
    "coalesced B, broadcast A, but two loads per FMA, so the kernel is bound by memory traffic.",
)

NAIVE = (
    Claim("who computes which output",
          "one thread per element of C: its row and column come from blockIdx and threadIdx, written by hand",
          "no thread index: the program owns the CUDA block's BLOCK_M x BLOCK_N tile and the compiler's layout "
          "spreads it over num_warps = threads / 32 warps, one element per thread",
          COMPILER,
          Check("one output per thread", lambda ev: ev.cuda["cfg.outputs_per_thread"] == 1,
                ("cfg.threads", "cfg.outputs_per_thread")),
          Check("the CUDA block's threads, one output each",
                lambda ev: 32 * ev.triton["cfg.num_warps"] == ev.cuda["cfg.threads"]
                and ev.triton["cfg.outputs_per_thread"] == 1, ("cfg.num_warps", "cfg.outputs_per_thread"))),
    Claim("operand staging",
          "none: both operands of every multiply-add come from global memory; no __shared__ array, no shared load",
          "none: no tl.dot, so nothing is staged; each k loads a column of A and a row of B",
          PROGRAMMER,
          Check("no __shared__, no shared memory, no LDS",
                lambda ev: ev.cuda["src.shared_arrays"] + ev.cuda["shared_bytes"] + lds(ev.cuda) == 0,
                ("src.shared_arrays", "shared_bytes", "LDS.32")),
          Check("no tl.dot, no local_alloc, no shared memory",
                lambda ev: ev.triton["ttgir.dot"] + ev.triton["ttgir.local_alloc"] + ev.triton["shared_bytes"] == 0,
                ("ttgir.dot", "ttgir.local_alloc", "shared_bytes"))),
    Claim("synchronisation", "none: threads share nothing; no __syncthreads, no barrier in the SASS",
          "none: the compiled kernel has no barrier", COMPILER,
          Check("no __syncthreads, no BAR", lambda ev: ev.cuda["src.syncthreads"] + ev.cuda["BAR"] == 0,
                ("src.syncthreads", "BAR")),
          Check("no BAR", lambda ev: ev.triton["BAR"] == 0, ("BAR",))),
    Claim("loads per multiply-add",
          "one k per iteration: scalar 4-byte global loads (LDG.32, nothing wider), at least one per FFMA",
          "the same data flow written as `for k in range(0, K)`: tl.load of A's column and B's row, then "
          "acc += a[:, None] * b[None, :]; scalar LDG.32, at least one per FFMA",
          PROGRAMMER,
          Check("only LDG.32, LDG.32 >= FFMA", lambda ev: _load_per_ffma(ev.cuda), ("LDG.32", "LDG.128", "FFMA")),
          Check("only LDG.32, LDG.32 >= FFMA", lambda ev: _load_per_ffma(ev.triton), ("LDG.32", "LDG.128", "FFMA"))),
)

SMEM_TILE_IDEA = Idea(
    "smem_tile",
    "Shared-memory block tile",
    "A block stages a tile of A and a tile of B in shared memory, then every thread reads its row "
    "and column from there: global traffic falls by the tile width.",
)

SMEM_TILE = (
    staging("__shared__ tiles of A (tile_m x tile_k) and of B (tile_k x tile_n), each thread loading one element "
            "of each per K step; the dot form stages the same tiles (seed 002's TILE_SIZE 2 at 16, tl.dot's least), "
            "beside it there the rank1 form on the 2 x 2 tile", _TWO_SHARED_ARRAYS),
    Claim("shared-memory layout", "the arrays as declared, row-major and unpadded",
          "dot form: the compiler's choice, and for an fp32 (ieee) dot not swizzled (#ttg.swizzled_shared with "
          "maxPhase 1); no handle for the programmer. rank1 form: no shared tile",
          COMPILER, _TILES_EXACT,
          ByForm({Role.PLAIN: Check("unswizzled shared layout", lambda ev: ev.triton["ttgir.shared_swizzled"] == 0,
                               ("ttgir.shared_swizzled",)),
                  Role.RANK1: Check("no local_alloc", lambda ev: ev.triton["ttgir.local_alloc"] == 0,
                                 ("ttgir.local_alloc",))})),
    synchronisation("__syncthreads() written by hand after the tile loads and after the compute: load, sync, "
                    "compute, sync (seed 000's v1 adds one before the K loop)"),
    Claim("reading the tiles",
          "each thread reads a row of the A tile and a column of the B tile from shared memory (LDS; NVVM fuses "
          "consecutive A reads into LDS.64 / LDS.128) into FFMA",
          "dot form: the compiler reads the staged tiles with 16-byte or matrix loads (LDS.128, LDSM) into FFMA: "
          "input_precision='ieee' keeps tensor cores out. rank1 form: no shared-memory operand loads",
          COMPILER,
          Check("LDS and FFMA, no LDSM, no tensor cores",
                lambda ev: lds(ev.cuda) > 0 and ev.cuda["LDSM"] == 0 and ffma_only(ev.cuda),
                ("LDS.32", "LDS.64", "LDS.128", "FFMA")),
          ByForm({Role.PLAIN: Check("LDS.128 or LDSM, FFMA, no HMMA/HGMMA",
                               lambda ev: ev.triton["LDS.128"] + ev.triton["LDSM"] > 0 and ffma_only(ev.triton),
                               ("LDS.128", "LDSM", "FFMA", "HMMA")),
                  Role.RANK1: Check("no LDS, no LDSM", lambda ev: lds(ev.triton) + ev.triton["LDSM"] == 0,
                                 ("LDS.32", "LDS.128", "LDSM"))})),
    single_buffer(),
)

MULTI_OUTPUT_IDEA = Idea(
    "multi_output",
    "Block tile with several outputs per thread",
    "The C tile is larger than the thread block (64x64 over 16x16 threads): each thread keeps "
    "BATCH_Y x BATCH_X accumulators, so fewer, busier threads hide latency.",
)

MULTI_OUTPUT = (
    Claim("outputs per thread",
          "float accum[BATCH_Y][BATCH_X]: each of the 16 x 16 threads computes tile_m * tile_n / 256 outputs "
          "(16 for a 64 x 64 tile, 64 for 128 x 128), strided by the block dims",
          "the BLOCK_M x BLOCK_N accumulator over num_warps = 256 / 32 = 8 warps: the same number per thread; "
          "which elements each thread holds is the compiler's layout",
          COMPILER,
          Check("a 2-D accumulator array, several outputs per thread",
                lambda ev: ev.cuda["src.register_arrays_2d"] >= 1 and ev.cuda["cfg.outputs_per_thread"] > 1,
                ("src.register_arrays_2d", "cfg.outputs_per_thread")),
          Check("outputs per thread as in CUDA", same_outputs_per_thread, ("cfg.num_warps", "cfg.outputs_per_thread"))),
    Claim("where the accumulators live",
          "registers only where the compiler can resolve every index: v3<64,64,16> holds its 16 in registers; "
          "v2<64,16,16> needs more than 255 registers and spills; v3<128,128,8> keeps its 64 in local memory "
          "(a stack frame, LDL/STL) without spilling",
          "registers, allotted by the compiler: no spills and no local memory for any of the three tiles",
          COMPILER,
          ByKernel({
              "v2<64,16,16>": Check("255 registers and spills", lambda ev: ev.cuda["registers"] == 255
                                    and ev.cuda["spills"] > 0, ("registers", "spills", "local_bytes")),
              "v3<64,64,16,": Check("registers only", lambda ev: ev.cuda["local_bytes"] + ev.cuda["LDL"] == 0,
                                    ("registers", "local_bytes", "LDL")),
              "v3<128,128,8,": Check("local memory, no spill", lambda ev: ev.cuda["local_bytes"] > 0
                                     and ev.cuda["LDL"] > 0 and ev.cuda["spills"] == 0,
                                     ("registers", "spills", "local_bytes", "LDL"))}),
          NO_LOCAL),
    staging("__shared__ As and Bs, filled by a loop over the tile (several elements per thread)", _TWO_SHARED_ARRAYS),
    Claim("shared-memory layout",
          "as declared: v2 pads As by one float per row (As[64][65]) against bank conflicts; v3 declares "
          "As[Bm][Bk] and Bs[Bk][Bn] unpadded",
          "not swizzled for an fp32 (ieee) dot and no padding handle: the layout is the compiler's; v3<128,128,8>'s "
          "counterpart steps K by 16, tl.dot's minimum",
          COMPILER,
          ByKernel({"v2<64,16,16>": Check("the tiles and one float more per row of As",
                                          lambda ev: ev.cuda["shared_bytes"] == tiles(ev) + 4 * ev.cuda["cfg.tile_m"],
                                          ("shared_bytes",)),
                    "v3<": _TILES_EXACT}),
          Check("unswizzled", lambda ev: ev.triton["ttgir.shared_swizzled"] == 0
                and ev.triton["shared_bytes"] >= triton_tiles(ev.triton), ("ttgir.shared_swizzled", "shared_bytes"))),
    synchronisation(),
)

_RANK1_CONVERTS = Check("no local_alloc; shared memory for layout conversions",
                        lambda ev: ev.triton["ttgir.dot"] + ev.triton["ttgir.local_alloc"] == 0
                        and ev.triton["ttgir.convert_layout"] >= 1 and ev.triton["shared_bytes"] > 0,
                        ("ttgir.local_alloc", "ttgir.convert_layout", "shared_bytes"))


def _rank1_steps_as_declared(ev: Evidence) -> bool:
    """The two rank-1 forms differ only in their `unroll` setting: tl.static_range traces the BLOCK_K rank-1 steps
    into the K loop, tl.range(loop_unroll_factor=1) keeps them a compiled inner loop."""
    t = ev.triton
    if ev.kernel.counterpart(ev.form).params["unroll"]:
        return t["ttgir.loops"] == 1 and t["ttgir.loads"] == 2 * t["cfg.block_k"] + 1
    return t["ttgir.loops"] == 2 and t["ttgir.loads"] == 3


UNROLL_IDEA = Idea(
    "unroll",
    "Loop unrolling",
    "A loop whose trip count the compiler can see (i = 0; idx = i + tid) unrolls; one starting at "
    "tid does not. The document reports nearly 10x between the two.",
)

UNROLL = (
    Claim("unrolling the tile loads",
          "#pragma unroll on both load loops. Written `i = 0; idx = i + tid` (v3_unroll_idx) the trip count is a "
          "constant and the compiler unrolls them completely: each of a thread's (Bm*Bk + Bk*Bn) / threads tile stores "
          "appears once in the SASS. Written `i = tid` (v3_unroll_tid) it is not, and the loops stay loops "
          "(more stores in the code, kept for the remainder)",
          "dot form (staged, as the CUDA kernels): one block tl.load per operand and K step, so there is no load "
          "loop to unroll: the copy into shared memory is the compiler's code, straight-line (one scf.for, the K loop; "
          "3 tl.load with C's). The rank-1 forms, deliberately different (from global memory, no shared tile), keep "
          "the programmer's handle: tl.static_range (static_range form) unrolls the BLOCK_K rank-1 steps when the "
          "kernel is traced: 2 * BLOCK_K + 1 tl.load in one loop; tl.range(loop_unroll_factor=1) (range form) keeps "
          "a compiled inner loop: two scf.for, 3 tl.load",
          PROGRAMMER,
          ByKernel({
              "unroll_idx": Check("loops from 0; STS.32 = stores per thread", lambda ev: ev.cuda[
                  "src.unroll_loop_from_zero"] == 2 and ev.cuda["STS.32"] == tiles(ev) // 4 // ev.cuda["cfg.threads"],
                  ("src.unroll_loop_from_zero", "STS.32", "BRA")),
              "unroll_tid": Check("loops from tid; STS.32 > stores per thread", lambda ev: ev.cuda[
                  "src.unroll_loop_from_tid"] == 2 and ev.cuda["STS.32"] > tiles(ev) // 4 // ev.cuda["cfg.threads"],
                  ("src.unroll_loop_from_tid", "STS.32", "BRA"))}),
          ByForm({
              Role.PLAIN: Check("one scf.for, one tl.dot, 3 tl.load", lambda ev: ev.triton["ttgir.loops"] == 1
                           and ev.triton["ttgir.dot"] == 1 and ev.triton["ttgir.loads"] == 3,
                           ("ttgir.loops", "ttgir.dot", "ttgir.loads")),
              Role.RANK1: Check("as the form's unroll setting declares: unrolled, one scf.for and 2*BLOCK_K+1 "
                                "tl.load; not, two scf.for and 3 tl.load", _rank1_steps_as_declared,
                                ("ttgir.loops", "ttgir.loads", "registers"))})),
    Claim("operand staging",
          "__shared__ As[Bm][Bk] and Bs[Bk][Bn] (the v3 kernel: the unroll section changes only its load loops)",
          "dot form: the tiles staged in shared memory by the compiler for tl.dot(input_precision='ieee') (two "
          "ttg.local_alloc into a #shared encoding). Rank-1 forms, deliberately different: none written, a column of "
          "A and a row of B per step from global memory (no tl.dot, no local_alloc); the compiler still takes shared "
          "memory to convert the loaded vectors' layouts",
          PROGRAMMER, _TILES_EXACT,
          ByForm({Role.PLAIN: DOT_STAGED, Role.RANK1: _RANK1_CONVERTS})),
)

COARSEN_1D_IDEA = Idea(
    "coarsen_1d",
    "1D thread coarsening",
    "Each thread computes kStrideY outputs of a column, reusing its Bds value from a register: fewer "
    "threads, fewer shared-memory loads per output, lower occupancy but more work per thread.",
)

COARSEN_1D = (
    Claim("outputs per thread",
          "c_value[kStrideY]: each thread computes kStrideY outputs of one column in a block of 16 x 16/kStrideY "
          "threads; the 16-step k loop is unrolled for each of them (16 FFMA per output)",
          "num_warps = threads / 32 keeps the outputs per thread (1, 2, 4, 8 for kStrideY 1, 2, 4, 8); kStrideY 16 "
          "has 16 threads, half a warp: at Triton's minimum of one warp each thread holds 8, not 16",
          PROGRAMMER,
          Check("1-D accumulator array; FFMA = 16 per output", lambda ev: ev.cuda["src.register_arrays_1d"] >= 1
                and ev.cuda["FFMA"] == ev.cuda["cfg.tile_k"] * ev.cuda["cfg.outputs_per_thread"],
                ("cfg.threads", "cfg.outputs_per_thread", "FFMA")),
          Check("as in CUDA, or one warp where the block is smaller",
                lambda ev: same_outputs_per_thread(ev)
                or (ev.cuda["cfg.threads"] < 32 and ev.triton["cfg.num_warps"] == 1),
                ("cfg.num_warps", "cfg.outputs_per_thread"))),
    Claim("reuse from shared memory",
          "each k's B value Bds[k][tx] is read once (tile_k scalar LDS.32 per tile) and reused for all kStrideY "
          "outputs; the rows of A come as LDS.128 (the compiler fuses 4 consecutive k)",
          "dot form: the compiler picks the shared loads (LDS.64 / LDS.128 / LDSM) and how far each is reused; "
          "no handle",
          COMPILER,
          Check("LDS.32 = tile_k; LDS.128 = 4 per output", lambda ev: ev.cuda["LDS.32"] == ev.cuda["cfg.tile_k"]
                and ev.cuda["LDS.128"] == 4 * ev.cuda["cfg.outputs_per_thread"], ("LDS.32", "LDS.128", "FFMA")),
          Check("wide shared loads into FFMA", lambda ev: ev.triton["LDS.64"] + ev.triton["LDS.128"]
                + ev.triton["LDSM"] > 0 and ffma_only(ev.triton), ("LDS.64", "LDS.128", "LDSM", "FFMA"))),
    staging("__shared__ Ads and Bds of 16 x 16 floats, kStrideY elements of each loaded per thread",
            Check("two __shared__ tiles", lambda ev: ev.cuda["src.shared_arrays"] == 2
                  and ev.cuda["shared_bytes"] == tiles(ev), ("src.shared_arrays", "shared_bytes"))),
    synchronisation(),
)

_SAME_OUTPUTS = Check("as in CUDA", same_outputs_per_thread, ("cfg.num_warps", "cfg.outputs_per_thread"))
_ONE_DOT = Check("one tl.dot, FFMA", lambda ev: ev.triton["ttgir.dot"] == 1 and ffma_only(ev.triton),
                 ("ttgir.dot", "FFMA"))

_REG_CACHES = Check("1-D register caches and a 2-D accumulator; at least 4 FFMA per LDS",
                    lambda ev: ev.cuda["src.register_arrays_1d"] >= 2 and ev.cuda["src.register_arrays_2d"] >= 1
                    and ev.cuda["FFMA"] >= 4 * lds(ev.cuda), ("src.register_arrays_1d", "FFMA", "LDS.32", "LDS.128"))

COARSEN_2D_IDEA = Idea(
    "coarsen_2d",
    "2D thread coarsening (register blocking)",
    "Each thread computes an 8x8 block of C from register caches of A and B: 16 shared loads feed 64 "
    "FMAs.",
)

COARSEN_2D = (
    Claim("outputs per thread",
          "an 8 x 8 accumulator array per thread (s001 v4's c_value[8][8], rosetta's acc[TM][TN]): 64 outputs per "
          "thread, over a 1-D block of 64 threads for s001's 64 x 64 tile and 256 for rosetta's 128 x 128",
          "num_warps = threads / 32 (2 and 8): 64 accumulator elements per thread as well; which 64 is the compiler's "
          "layout. The tuned form keeps the tile and may double the warps (32 per thread)",
          COMPILER,
          Check("64 per thread", lambda ev: ev.cuda["cfg.outputs_per_thread"] == 64, ("cfg.outputs_per_thread",)),
          ByForm({Role.PLAIN: _SAME_OUTPUTS, Role.RANK1: _SAME_OUTPUTS, Role.TUNED: TUNED_OUTPUTS})),
    Claim("register caches",
          "per k, 8 values of A and 8 of B (A_reg / B_reg, a_reg / b_reg) are filled from shared memory and feed "
          "8 x 8 FFMA: at least 4 FFMA per shared load in the SASS",
          "no register arrays to write: rank1 form (s001; deliberately different, no shared tile): acc += "
          "a[:, None] * b[None, :] with a and b loaded from global memory per k; dot and tuned forms: tl.dot on "
          "BLOCK_K-deep tiles (16 for s001, 32 for rosetta); how many FFMA a loaded value feeds is the compiler's "
          "choice",
          COMPILER, _REG_CACHES,
          ByForm({Role.RANK1: Check("rank-1 FFMA, no tl.dot", lambda ev: ev.triton["ttgir.dot"] == 0
                                 and ffma_only(ev.triton), ("ttgir.dot", "FFMA")),
                  Role.PLAIN: _ONE_DOT, Role.TUNED: _ONE_DOT})),
    staging("__shared__ A and B tiles, unpadded (s001: Ads[64][8] and Bds[8][64]; rosetta: As[128*32] and "
            "Bs[32*128])", _TILES_EXACT),
    synchronisation(),
)

OUTER_PRODUCT_IDEA = Idea(
    "outer_product",
    "Register outer product",
    "Loop order k-outermost: per k, a column of As and a row of Bs go to registers and a rank-1 "
    "update accumulates into accum[i][j]; shared loads fall from 2*BATCH_Y*BATCH_X*Bk to "
    "Bk*(BATCH_Y+BATCH_X).",
)

OUTER_PRODUCT = (
    Claim("loop order",
          "k outermost: per k a column of As goes to a[BATCH_Y] and a row of Bs to b[BATCH_X], then "
          "accum[i][j] += a[i] * b[j] (8 x 8 outputs per thread)",
          "rank1 form (deliberately different: from global memory, no shared tile): the same rank-1 update on the "
          "whole tile, acc += a[:, None] * b[None, :], its BLOCK_K steps unrolled (tl.static_range); dot form (staged "
          "as in CUDA): tl.dot over BLOCK_K = 16, its loop order the compiler's",
          PROGRAMMER, _REG_CACHES,
          ByForm({Role.RANK1: Check("no tl.dot; 2*BLOCK_K+1 tl.load", lambda ev: ev.triton["ttgir.dot"] == 0
                                 and ev.triton["ttgir.loads"] == 2 * ev.triton["cfg.block_k"] + 1,
                                 ("ttgir.dot", "ttgir.loads")),
                  Role.PLAIN: Check("one tl.dot", lambda ev: ev.triton["ttgir.dot"] == 1, ("ttgir.dot",))})),
    Claim("where the accumulators live",
          "registers, no local memory: every index into a[], b[] and accum[][] resolves at compile time",
          "rank1 form (deliberately different, not the idea's Triton): ptxas spills the 128 x 128 accumulator tile "
          "(64 per thread) and the unrolled global loads to local memory; dot form: registers, no spills",
          COMPILER,
          Check("no spills, no local memory", lambda ev: ev.cuda["spills"] + ev.cuda["local_bytes"]
                + ev.cuda["LDL"] == 0, ("registers", "spills", "local_bytes")),
          ByForm({Role.RANK1: Check("spills", lambda ev: ev.triton["spills"] > 0 and ev.triton["LDL"] > 0,
                                 ("registers", "spills", "LDL")),
                  Role.PLAIN: NO_LOCAL})),
    staging("__shared__ As[Bm][Bk] and Bs[Bk][Bn], read back one column / one row per k", _TILES_EXACT),
    synchronisation(),
)

IDEAS: dict[str, Idea] = {i.key: i for i in (NAIVE_IDEA, SMEM_TILE_IDEA, MULTI_OUTPUT_IDEA, UNROLL_IDEA,
                                              COARSEN_1D_IDEA, COARSEN_2D_IDEA, OUTER_PRODUCT_IDEA)}
CLAIMS: dict[str, tuple[Claim, ...]] = {
    "naive": NAIVE, "smem_tile": SMEM_TILE, "multi_output": MULTI_OUTPUT, "unroll": UNROLL,
    "coarsen_1d": COARSEN_1D, "coarsen_2d": COARSEN_2D, "outer_product": OUTER_PRODUCT,
}
