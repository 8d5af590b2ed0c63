"""A rung of the SIMT ladder: A through registers, B by cp.async."""

from __future__ import annotations

from harness.catalog.checks import TUNED_STAGES
from harness.catalog.simt.checks import WIDE_TO_SHARED, padded_tiles
from harness.catalog.simt.rung import ABC, Rung, kernel
from harness.catalog_types import COMPILER, PROGRAMMER, ByForm, Check, Claim, Idea, Role

IDEA = Idea("split_copy", "A through registers, B by cp.async (tile-rosetta's step)",
            "The operand that must be transposed (A) goes global -> registers -> shared one tile ahead; the "
            "one that lands as it lies (B) goes by 16-byte cp.async: neither pays the other's cost.")

KERNELS = (
    kernel("split_copy", (128, 128, 8, 32, 64, 8, 8), IDEA.key, 256, stages=2, aligned16=ABC,
           notes="A through registers (it must be transposed), B by 16-byte cp.async (it lands as it lies)."),
)

CLAIMS = (
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
                  Role.TUNED: WIDE_TO_SHARED})),
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
RUNG = Rung(IDEA, KERNELS, CLAIMS, after="frag_prefetch")
