"""A rung of the SIMT ladder: double-buffered register fragments."""

from __future__ import annotations

from harness.catalog.simt.checks import COPY_WIDTH, prefetch
from harness.catalog.simt.rung import Rung, kernel
from harness.catalog_types import COMPILER, Check, Claim, Idea

IDEA = Idea("frag_prefetch", "Double-buffered register fragments (tile-rosetta's step)",
            "The shared-memory reads for step k+1 are issued before the FFMAs of step k, across tile "
            "boundaries too, so their latency is always covered.")

KERNELS = (
    kernel("frag_prefetch", (128, 128, 8, 32, 64, 8, 8, 4), IDEA.key, 256, stages=4, aligned16=("B", "C"),
           notes="Fragments double-buffered in registers on top of the cp_async rung; its 4-byte copies of A remain."),
)

CLAIMS = (
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
    prefetch("cp.async stages as in sgemm_cp_async (4 of the padded tiles), the barrier moved to the last k of a "
             "tile"),
    COPY_WIDTH,
)
RUNG = Rung(IDEA, KERNELS, CLAIMS, after="async_copy")
