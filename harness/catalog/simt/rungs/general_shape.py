"""The summit of the SIMT ladder: any shape, any alignment, grouped block order."""

from __future__ import annotations

from harness.catalog.checks import TUNED_STAGES
from harness.catalog.simt.checks import PIPELINED, WIDE_GLOBAL
from harness.catalog.simt.rung import Rung, kernel
from harness.catalog_types import COMPILER, PROGRAMMER, ByForm, Check, Claim, Idea, Role

IDEA = Idea("general_shape", "Any shape, any alignment, grouped order (tile-rosetta's top rung)",
            "Edge copies are redirected or zero-filled once, outside the K loop; a partial K tile is handled "
            "first; float4 paths are taken only when alignment allows; blocks are visited in groups for L2 "
            "reuse.")

KERNELS = (
    # The summit: 8x16 per thread, BK = 16, one block of 8 warps an SM. Its figures, and why odd shapes cost it more
    # than the 128x128 instantiation below, are in the results files and the report.
    kernel("general", (128, 256, 16, 32, 128, 8, 16, 8), IDEA.key, 256, stages=2, params={"group_m": 8},
           general=True, ceiling=True,
           notes="The ladder's summit: any M, N, K >= 1 and any 4-byte alignment; float4 paths when K % 4 == 0, "
                 "N % 4 == 0 and A, B, C are 16-byte aligned (one test, uniform over the grid)."),
    # The shape-robust instantiation of the same kernel: smaller tiles, two blocks an SM.
    kernel("general", (128, 128, 8, 32, 64, 8, 8, 16), IDEA.key, 256, stages=2, params={"group_m": 16},
           general=True,
           notes="The same kernel with 128x128 tiles, two blocks an SM: more blocks for odd shapes to spread over."),
)

CLAIMS = (
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
          WIDE_GLOBAL),
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
          ByForm({Role.PLAIN: PIPELINED,
                  Role.TUNED: TUNED_STAGES, Role.CEILING: TUNED_STAGES})),
)
RUNG = Rung(IDEA, KERNELS, CLAIMS, after="split_copy", summit=True)
