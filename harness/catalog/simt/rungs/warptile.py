"""A rung of the SIMT ladder: warp tiles; its CUDA kernel is kernels_cuda/rosetta_sgemm_warptile.cu."""

from __future__ import annotations

from harness.catalog.checks import TUNED_OUTPUTS, single_buffer, synchronisation
from harness.catalog.simt.checks import SAME_OUTPUTS, WIDE_GLOBAL, WIDE_TO_SHARED, only_wide_lds, padded_tiles
from harness.catalog.simt.rung import ABC, Rung, kernel
from harness.catalog_types import COMPILER, ByForm, Check, Claim, Idea, Role

IDEA = Idea("warptile", "Warp tiles (tile-rosetta's step)",
            "Each warp owns a sub-block of the block tile and each thread's patch is 4x4 pieces spread over "
            "it, so every float4 a warp reads from shared memory is a single wavefront.")

KERNELS = (
    kernel("warptile", (128, 128, 8, 32, 64, 8, 8), IDEA.key, 256, aligned16=ABC,
           notes="8x8 per thread as 2x2 pieces of 4x4 over 32x64 warp tiles."),
)

CLAIMS = (
    Claim("who owns which outputs",
          "a warp owns a WM x WN (32 x 64) sub-block of the tile and a thread's 8 x 8 patch is 2 x 2 pieces of 4 x 4 "
          "spread over it, so a warp's float4 reads of a k-row are consecutive (only LDS.128)",
          "no warp-level handle: the dot's layout (warpsPerCTA, sizePerThread) assigns each warp and thread its part; "
          "num_warps = 8 gives 64 outputs per thread too (the tuned form may take 16 warps, 32 each)",
          COMPILER,
          Check("64 per thread; only LDS.128", lambda ev: ev.cuda["cfg.outputs_per_thread"] == 64
                and ev.cuda["src.register_arrays_2d"] >= 1 and only_wide_lds(ev.cuda),
                ("cfg.outputs_per_thread", "LDS.32", "LDS.128")),
          ByForm({Role.PLAIN: SAME_OUTPUTS, Role.TUNED: TUNED_OUTPUTS})),
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
                  Role.TUNED: Check("16-byte copies into an unswizzled layout", lambda ev: WIDE_GLOBAL.holds(ev)
                                 and WIDE_TO_SHARED.holds(ev) and ev.triton["ttgir.shared_swizzled"] == 0,
                                 ("LDG.128", "LDGSTS.128", "STS.128", "LDGSTS.32", "ttgir.shared_swizzled"))})),
    synchronisation(),
    single_buffer(),
)
RUNG = Rung(IDEA, KERNELS, CLAIMS, after="smem_layout")
