"""The mapping claims of tile-rosetta's fp32 SIMT ladder: vectorised copies, the transposed A tile, warp
tiles, cp.async prefetch, register double buffering, the split copy and the general-shape top rung.

Every rung's Triton counterpart is one kernel (kernels_triton.gemm_ladder) with different launch settings, so
most of these rows say the same thing from the Triton side: the decision has no handle, the compiler makes it;
only num_stages (and GROUP_M) are the programmer's. The tuned form (kernels_triton.gemm_ladder_tuned) is the same
kernel on the rung's tile with warps and stages chosen by the autotuner; where a row depends on those two, its
tuned check holds for every configuration the tuner may pick.
"""

from __future__ import annotations

from harness.claims.checks import (
    COMPILER,
    PROGRAMMER,
    TUNED_OUTPUTS,
    TUNED_STAGES,
    ByForm,
    Check,
    Claim,
    ffma_only,
    padded_tiles,
    same_outputs_per_thread,
    single_buffer,
    staging,
    synchronisation,
    tiles,
    triton_tiles,
)
from harness.claims.evidence import Numbers
from harness.registry.types import Role


def _only_wide_lds(n: Numbers) -> bool:
    return n["LDS.128"] > 0 and n["LDS.32"] + n["LDS.64"] == 0


_TILES_EXACT = Check("shared bytes are the two tiles exactly", lambda ev: ev.cuda["shared_bytes"] == tiles(ev),
                     ("shared_bytes",))
_COMPILER_LDS = Check("16-byte shared loads into FFMA", lambda ev: ev.triton["LDS.128"] > 0 and ffma_only(ev.triton),
                      ("LDS.128", "FFMA"))
_PIPELINED = Check("num_stages > 1; async copies and waits in the ttgir, LDGSTS in the SASS",
                   lambda ev: ev.triton["cfg.num_stages"] > 1 and ev.triton["ttgir.async_copy"] > 0
                   and ev.triton["ttgir.async_wait"] > 0 and ev.triton["LDGSTS"] > 0,
                   ("cfg.num_stages", "ttgir.async_copy", "LDGSTS"))
_CP_ASYNC_STAGES = Check("cp.async (LDGSTS) into whole stages of the padded tiles",
                         lambda ev: ev.cuda["src.cp_async"] > 0 and ev.cuda["LDGSTS"] > 0
                         and ev.cuda["shared_bytes"] % padded_tiles(ev) == 0
                         and ev.cuda["shared_bytes"] // padded_tiles(ev) >= 2,
                         ("src.cp_async", "LDGSTS", "shared_bytes"))


_SAME_OUTPUTS = Check("as in CUDA", same_outputs_per_thread, ("cfg.num_warps", "cfg.outputs_per_thread"))
# 16-byte global accesses only, as loads (LDG.128, num_stages 1) or async copies (LDGSTS.128, num_stages > 1)
_WIDE_GLOBAL = Check("only 16-byte global loads or async copies", lambda ev: ev.triton["LDG.128"]
                     + ev.triton["LDGSTS.128"] > 0 and ev.triton["LDG.32"] + ev.triton["LDG.64"]
                     + ev.triton["LDGSTS.32"] == 0, ("LDG.128", "LDGSTS.128", "LDG.32", "LDGSTS.32"))
# nothing transposed on the way to shared memory: 16-byte stores or async copies, no 4-byte ones
_WIDE_TO_SHARED = Check("16-byte shared stores or async copies, no 4-byte ones", lambda ev: ev.triton["STS.128"]
                        + ev.triton["LDGSTS.128"] > 0 and ev.triton["STS.32"] + ev.triton["LDGSTS.32"] == 0,
                        ("STS.128", "LDGSTS.128", "STS.32", "LDGSTS.32"))


def _prefetch(cuda: str) -> Claim:
    return Claim("K-loop pipelining", cuda,
                 "num_stages (the programmer's one setting) > 1: the compiler pipelines the K loop itself, async "
                 "copies into num_stages buffers (ttg.async_copy_global_to_local, LDGSTS) and waits (ttg.async_wait); "
                 "the tuned form's autotuner tries 1 to 4",
                 PROGRAMMER, _CP_ASYNC_STAGES, ByForm({Role.PLAIN: _PIPELINED, Role.TUNED: TUNED_STAGES}))


_COPY_WIDTH = Claim(
    "copy width",
    "A 4 bytes at a time (cp.async.ca, LDGSTS.32: cp.async cannot transpose a float4), B in 16-byte copies "
    "(cp.async.cg, LDGSTS.128)",
    "16-byte async copies of both tiles (LDGSTS.128 only): nothing is transposed on the way",
    COMPILER,
    Check("LDGSTS.32 and LDGSTS.128", lambda ev: ev.cuda["LDGSTS.32"] > 0 and ev.cuda["LDGSTS.128"] > 0,
          ("LDGSTS.32", "LDGSTS.128")),
    ByForm({Role.PLAIN: Check("only LDGSTS.128", lambda ev: ev.triton["LDGSTS.128"] > 0 and ev.triton["LDGSTS.32"] == 0,
                         ("LDGSTS.32", "LDGSTS.128")),
            Role.TUNED: _WIDE_TO_SHARED}))

VECTORIZE = (
    Claim("global load and store width",
          "float4 written by hand: the A and B tiles come from global memory as LDG.128 and go to shared memory as "
          "STS.128, and C is written as STG.128; no 4-byte global load is left",
          "nothing written: the compiler proves 16-byte contiguity and alignment (the launch marks pointers and sizes "
          "divisible by 16) and emits LDG.128, STS.128 and STG.128 for the same tiles",
          COMPILER,
          Check("float4; LDG.128, STS.128, STG.128 and no narrower copy", lambda ev: ev.cuda["src.float4"] > 0
                and ev.cuda["LDG.128"] > 0 and ev.cuda["LDG.32"] + ev.cuda["LDG.64"] + ev.cuda["STS.32"] == 0
                and ev.cuda["STS.128"] > 0 and ev.cuda["STG.128"] > 0,
                ("src.float4", "LDG.128", "LDG.32", "STS.128", "STS.32", "STG.128")),
          ByForm({Role.PLAIN: Check("LDG.128, STS.128, STG.128 and no narrower global load", lambda ev: ev.triton[
                      "LDG.128"] > 0 and ev.triton["LDG.32"] + ev.triton["LDG.64"] == 0 and ev.triton["STS.128"] > 0
                      and ev.triton["STG.128"] > 0, ("LDG.128", "LDG.32", "STS.128", "STG.128")),
                  Role.TUNED: _WIDE_GLOBAL})),
    Claim("reading the tiles",
          "B's TN = 8 values per k as two float4 and A's column element by element, which NVVM fuses along k: only "
          "16-byte shared loads (LDS.128)",
          "the compiler's 16-byte shared loads (LDS.128)", COMPILER,
          Check("only LDS.128", lambda ev: _only_wide_lds(ev.cuda), ("LDS.32", "LDS.64", "LDS.128")), _COMPILER_LDS),
    Claim("outputs per thread",
          "a 16 x 8 patch (128 accumulators) per thread, 128 threads for the 128 x 128 tile, held in registers "
          "without spilling",
          "num_warps = 4 gives each thread 128 accumulators as well; the compiler places them (the tuned form may take "
          "8 warps, 64 each)", COMPILER,
          Check("128 per thread, no spills", lambda ev: ev.cuda["cfg.outputs_per_thread"] == 128
                and ev.cuda["spills"] + ev.cuda["local_bytes"] == 0, ("cfg.outputs_per_thread", "registers", "spills")),
          ByForm({Role.PLAIN: _SAME_OUTPUTS, Role.TUNED: TUNED_OUTPUTS})),
    staging("__shared__ __align__(16) As[BM*BK] and Bs[BK*BN], stored as they lie", _TILES_EXACT),
    synchronisation(),
    single_buffer(),
)

SMEM_LAYOUT = (
    Claim("A tile layout",
          "As[k][m]: A stored transposed, each k-row padded by 4 floats, so a thread's TM values of A's column are "
          "contiguous (float4 reads) and the transposing stores do not conflict",
          "no handle: the compiler's shared layout, for an fp32 dot unswizzled and unpadded (the shared bytes are the "
          "plain tiles)",
          COMPILER,
          Check("B's tile plus the padded A tile", lambda ev: ev.cuda["shared_bytes"] == padded_tiles(ev),
                ("shared_bytes",)),
          ByForm({Role.PLAIN: Check("unswizzled, the plain tiles", lambda ev: ev.triton["ttgir.shared_swizzled"] == 0
                               and ev.triton["ttgir.local_alloc"] == 2
                               and ev.triton["shared_bytes"] == triton_tiles(ev.triton),
                               ("ttgir.shared_swizzled", "shared_bytes")),
                  Role.TUNED: Check("unswizzled, whole plain tiles (one set per pipeline buffer)",
                                 lambda ev: ev.triton["ttgir.shared_swizzled"] == 0
                                 and ev.triton["ttgir.local_alloc"] == 2
                                 and ev.triton["shared_bytes"] >= triton_tiles(ev.triton)
                                 and ev.triton["shared_bytes"] % triton_tiles(ev.triton) == 0,
                                 ("ttgir.shared_swizzled", "shared_bytes"))})),
    Claim("the transposing copy",
          "a float4 read along a row of A (LDG.128) is written to 4 k-rows with 4-byte stores (STS.32); B's tile "
          "still goes as STS.128",
          "nothing is transposed: both tiles are stored as they are loaded, 16 bytes at a time (no STS.32)",
          COMPILER,
          Check("LDG.128; STS.32 for A, STS.128 for B", lambda ev: ev.cuda["LDG.128"] > 0 and ev.cuda["LDG.32"] == 0
                and ev.cuda["STS.32"] > 0 and ev.cuda["STS.128"] > 0, ("LDG.128", "STS.32", "STS.128")),
          ByForm({Role.PLAIN: Check("STS.128, no STS.32",
                                    lambda ev: ev.triton["STS.128"] > 0 and ev.triton["STS.32"] == 0,
                                    ("STS.32", "STS.128")),
                  Role.TUNED: _WIDE_TO_SHARED})),
    Claim("reading A's column", "a float4 per 4 values of the column: only 16-byte shared loads (LDS.128)",
          "the compiler's LDS.128 on its own layout", COMPILER,
          Check("only LDS.128", lambda ev: _only_wide_lds(ev.cuda), ("LDS.32", "LDS.64", "LDS.128")), _COMPILER_LDS),
    synchronisation(),
    single_buffer(),
)

WARPTILE = (
    Claim("who owns which outputs",
          "a warp owns a WM x WN (32 x 64) sub-block of the tile and a thread's 8 x 8 patch is 2 x 2 pieces of 4 x 4 "
          "spread over it, so a warp's float4 reads of a k-row are consecutive (only LDS.128)",
          "no warp-level handle: the dot's layout (warpsPerCTA, sizePerThread) assigns each warp and thread its part; "
          "num_warps = 8 gives 64 outputs per thread too (the tuned form may take 16 warps, 32 each)",
          COMPILER,
          Check("64 per thread; only LDS.128", lambda ev: ev.cuda["cfg.outputs_per_thread"] == 64
                and ev.cuda["src.register_arrays_2d"] >= 1 and _only_wide_lds(ev.cuda),
                ("cfg.outputs_per_thread", "LDS.32", "LDS.128")),
          ByForm({Role.PLAIN: _SAME_OUTPUTS, Role.TUNED: TUNED_OUTPUTS})),
    Claim("global to shared copy",
          "sgemm_transposed_a's: float4 loads (LDG.128), A transposed on the store (STS.32), k-rows padded by 4",
          "the compiler's: 16-byte loads and stores of both tiles into an unswizzled, unpadded layout (BLOCK_K = 16, "
          "tl.dot's minimum; the CUDA kernel steps 8)",
          COMPILER,
          Check("padded tiles; LDG.128 and STS.32", lambda ev: ev.cuda["shared_bytes"] == padded_tiles(ev)
                and ev.cuda["LDG.128"] > 0 and ev.cuda["LDG.32"] == 0 and ev.cuda["STS.32"] > 0,
                ("shared_bytes", "LDG.128", "STS.32")),
          ByForm({Role.PLAIN: Check("LDG.128, STS.128, unswizzled", lambda ev: ev.triton["LDG.128"] > 0
                               and ev.triton["STS.128"] > 0 and ev.triton["ttgir.shared_swizzled"] == 0
                               and ev.triton["ttgir.local_alloc"] == 2,
                               ("LDG.128", "STS.128", "ttgir.shared_swizzled")),
                  Role.TUNED: Check("16-byte copies into an unswizzled layout", lambda ev: _WIDE_GLOBAL.holds(ev)
                                 and _WIDE_TO_SHARED.holds(ev) and ev.triton["ttgir.shared_swizzled"] == 0,
                                 ("LDG.128", "LDGSTS.128", "STS.128", "LDGSTS.32", "ttgir.shared_swizzled"))})),
    synchronisation(),
    single_buffer(),
)

ASYNC_COPY = (
    _prefetch("STAGES = 4 shared-memory stages of the padded tiles, filled by cp.async (LDGSTS) STAGES - 1 tiles "
              "ahead of the compute, cp.async.wait_group before each step"),
    _COPY_WIDTH,
    Claim("synchronisation",
          "one __syncthreads per K step: it makes the landed tile visible and proves the stage the next copy "
          "overwrites is no longer read (sgemm_warptile has two)",
          "barriers inserted by the compiler around its pipelined buffers", COMPILER,
          Check("one __syncthreads, one BAR", lambda ev: ev.cuda["src.syncthreads"] == 1 and ev.cuda["BAR"] == 1,
                ("src.syncthreads", "BAR")),
          Check("BAR", lambda ev: ev.triton["BAR"] >= 1, ("BAR",))),
)

FRAG_PREFETCH = (
    Claim("register fragments",
          "double-buffered by hand: a_frag[2][TM], b_frag[2][TN]; the LDS.128 of step k + 1 fill one set while the "
          "FFMAs of step k use the other, across the tile boundary too",
          "no handle: the program holds no fragments; the compiler reads the shared tiles for tl.dot "
          "(ttg.local_load) and schedules those loads itself",
          COMPILER,
          Check("[k % 2]-indexed fragments; LDS.128", lambda ev: ev.cuda["src.double_buffered"] >= 2
                and ev.cuda["LDS.128"] > 0, ("src.double_buffered", "LDS.128")),
          Check("local_load for one tl.dot", lambda ev: ev.triton["ttgir.local_load"] >= 1
                and ev.triton["ttgir.dot"] == 1, ("ttgir.local_load", "ttgir.dot"))),
    _prefetch("cp.async stages as in sgemm_cp_async (4 of the padded tiles), the barrier moved to the last k of a "
              "tile"),
    _COPY_WIDTH,
)

SPLIT_COPY = (
    Claim("copy path per operand",
          "B by 16-byte cp.async (LDGSTS.128); A global -> registers (LDG.128) -> shared memory (STS.32, transposed "
          "on the store) one tile ahead",
          "one path for both: with num_stages > 1 the compiler copies both tiles by 16-byte async copies "
          "(LDGSTS.128), nothing through registers",
          COMPILER,
          Check("LDGSTS.128 only; LDG.128 and STS.32", lambda ev: ev.cuda["LDGSTS.128"] > 0
                and ev.cuda["LDGSTS.32"] == 0 and ev.cuda["LDG.128"] > 0 and ev.cuda["STS.32"] > 0,
                ("LDGSTS.128", "LDGSTS.32", "LDG.128", "STS.32")),
          ByForm({Role.PLAIN: Check("async copies, LDGSTS.128 only, no STS.32",
                                    lambda ev: ev.triton["ttgir.async_copy"] > 0 and ev.triton["LDGSTS.128"] > 0
                                    and ev.triton["LDGSTS.32"] + ev.triton["STS.32"] == 0,
                                    ("ttgir.async_copy", "LDGSTS.128", "STS.32")),
                  Role.TUNED: _WIDE_TO_SHARED})),
    Claim("stages",
          "two stages (the shared bytes are twice the padded tiles), one barrier per K step, fragments "
          "double-buffered as in sgemm_frag_prefetch",
          "num_stages = 2: the compiler's pipeline with two buffers per operand (the tuned form: the tuner's 1 to 4)",
          PROGRAMMER,
          Check("2 x the padded tiles; [k % 2] fragments", lambda ev: ev.cuda["shared_bytes"] == 2 * padded_tiles(ev)
                and ev.cuda["src.double_buffered"] >= 2, ("shared_bytes", "src.double_buffered")),
          ByForm({Role.PLAIN: Check("num_stages 2, async copies", lambda ev: ev.triton["cfg.num_stages"] == 2
                               and ev.triton["ttgir.async_copy"] > 0, ("cfg.num_stages", "ttgir.async_copy")),
                  Role.TUNED: TUNED_STAGES})),
)

GENERAL_SHAPE = (
    Claim("bounds",
          "any M, N, K: copies past the edge are clamped or zero-filled once, before the K loop (a partial K tile "
          "first), and the stores are predicated; no tile-multiple precondition",
          "masks on every tl.load and tl.store (and on the async copies the compiler makes of them): any shape",
          PROGRAMMER,
          Check("no tile-multiple precondition", lambda ev: ev.cuda["cfg.tile_preconditions"] == 0,
                ("cfg.tile_preconditions",)),
          Check("masked loads, copies and store", lambda ev: ev.triton["ttgir.masked"] >= 3, ("ttgir.masked",))),
    Claim("alignment",
          "float4 paths only when K % 4 == 0, N % 4 == 0 and A, B, C are 16-byte aligned, chosen once at run time: "
          "both paths are in the SASS (LDG.128 and LDG.32, LDGSTS.128 and LDGSTS.32)",
          "the launch specialises: pointers and sizes divisible by 16 are marked when the kernel is compiled for "
          "them and only 16-byte global loads (or, pipelined, 16-byte async copies) are emitted; another alignment "
          "compiles another kernel",
          COMPILER,
          Check("both widths of LDG and LDGSTS", lambda ev: ev.cuda["LDG.128"] > 0 and ev.cuda["LDG.32"] > 0
                and ev.cuda["LDGSTS.128"] > 0 and ev.cuda["LDGSTS.32"] > 0,
                ("LDG.128", "LDG.32", "LDGSTS.128", "LDGSTS.32")),
          _WIDE_GLOBAL),
    Claim("block order",
          "grouped: blocks are renumbered to walk GROUP_M = 8 block-rows before moving right (L2 reuse)",
          "GROUP_M = 8: the tutorial's grouped program order, computed in the kernel text from program_id",
          PROGRAMMER,
          Check("GROUP_M in the source", lambda ev: ev.cuda["src.group_m"] > 0, ("src.group_m",)),
          Check("GROUP_M > 1", lambda ev: ev.triton["cfg.group_m"] > 1, ("cfg.group_m",))),
    Claim("K-loop pipelining",
          "two stages, A through registers and B by cp.async (sgemm_split_copy's), fragments double-buffered",
          "dot form: num_stages = 2, pipelined by the compiler; tuned and autotuned forms: the autotuner's num_stages "
          "(ahead of time the derived 2 and 1); async copies exactly when num_stages > 1",
          PROGRAMMER,
          Check("LDGSTS; [k % 2] fragments", lambda ev: ev.cuda["LDGSTS"] > 0 and ev.cuda["src.double_buffered"] >= 2,
                ("LDGSTS", "src.double_buffered")),
          ByForm({Role.PLAIN: _PIPELINED,
                  Role.TUNED: TUNED_STAGES, Role.CEILING: TUNED_STAGES})),
)

LADDER_CLAIMS: dict[str, tuple[Claim, ...]] = {
    "vectorize": VECTORIZE, "smem_layout": SMEM_LAYOUT, "warptile": WARPTILE, "async_copy": ASYNC_COPY,
    "frag_prefetch": FRAG_PREFETCH, "split_copy": SPLIT_COPY, "general_shape": GENERAL_SHAPE,
}
