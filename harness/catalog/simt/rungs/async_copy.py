"""A rung of the SIMT ladder: cp.async prefetch into shared-memory stages."""

from __future__ import annotations

from harness.catalog.simt.checks import COPY_WIDTH, prefetch
from harness.catalog.simt.rung import Rung, kernel
from harness.catalog_types import COMPILER, Check, Claim, Idea

IDEA = Idea("async_copy", "cp.async prefetch into shared-memory stages (tile-rosetta's step)",
            "Tiles are copied global -> shared by cp.async several K steps ahead while the warps compute: one"
            " barrier per K step and no registers spent on the copy.")

KERNELS = (
    kernel("cp_async", (128, 128, 8, 32, 64, 8, 8, 4), IDEA.key, 256, stages=4, aligned16=("B", "C"),
           notes="cp.async cannot transpose, so A is copied 4 bytes at a time; where that makes the rung slower than "
                 "the one before, it is kept as the measured step."),
)

CLAIMS = (
    prefetch("STAGES = 4 shared-memory stages of the padded tiles, filled by cp.async (LDGSTS) STAGES - 1 tiles "
             "ahead of the compute, cp.async.wait_group before each step"),
    COPY_WIDTH,
    Claim("synchronisation",
          "one __syncthreads per K step: it makes the landed tile visible and proves the stage the next copy "
          "overwrites is no longer read (sgemm_warptile has two)",
          "barriers inserted by the compiler around its pipelined buffers", COMPILER,
          Check("one __syncthreads, one BAR", lambda ev: ev.cuda["src.syncthreads"] == 1 and ev.cuda["BAR"] == 1,
                ("src.syncthreads", "BAR")),
          Check("BAR", lambda ev: ev.triton["BAR"] >= 1, ("BAR",))),
)
RUNG = Rung(IDEA, KERNELS, CLAIMS, after="warptile")
