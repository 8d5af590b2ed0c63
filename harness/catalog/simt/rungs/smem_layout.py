"""A rung of the SIMT ladder: A stored transposed and padded in shared memory."""

from __future__ import annotations

from harness.catalog.checks import single_buffer, synchronisation, triton_tiles
from harness.catalog.simt.checks import COMPILER_LDS, WIDE_TO_SHARED, only_wide_lds, padded_tiles
from harness.catalog.simt.rung import ABC, Rung, kernel
from harness.catalog_types import COMPILER, ByForm, Check, Claim, Idea, Role

IDEA = Idea("smem_layout", "Transposed, padded A tile (tile-rosetta's step)",
            "A is stored k-major in shared memory so a thread's column of A is contiguous (one float4 read, "
            "no bank conflict); a pad of 4 floats keeps the transposing stores conflict-free and the rows "
            "16-byte aligned.")

KERNELS = (
    kernel("transposed_a", (128, 128, 32, 16, 8), IDEA.key, 128, aligned16=ABC,
           notes="Same tile and threads as the vectorized rung; only A's shared-memory layout changes."),
)

CLAIMS = (
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
                  Role.TUNED: WIDE_TO_SHARED})),
    Claim("reading A's column", "a float4 per 4 values of the column: only 16-byte shared loads (LDS.128)",
          "the compiler's LDS.128 on its own layout", COMPILER,
          Check("only LDS.128", lambda ev: only_wide_lds(ev.cuda), ("LDS.32", "LDS.64", "LDS.128")), COMPILER_LDS),
    synchronisation(),
    single_buffer(),
)
RUNG = Rung(IDEA, KERNELS, CLAIMS, after="vectorize")
