"""A rung of the SIMT ladder: 128-bit loads and stores (seed 004's kernel 04)."""

from __future__ import annotations

from harness.catalog.checks import TUNED_OUTPUTS, single_buffer, staging, synchronisation, tiles
from harness.catalog.simt.checks import COMPILER_LDS, SAME_OUTPUTS, WIDE_GLOBAL, only_wide_lds
from harness.catalog.simt.rung import ABC, Rung, kernel
from harness.catalog_types import COMPILER, ByForm, Check, Claim, Idea, Role

IDEA = Idea("vectorize", "128-bit loads and stores (tile-rosetta's step)",
            "A and B move from global to shared memory as float4 and B's row and C are accessed as float4: a "
            "quarter of the load/store instructions for the same bytes.")

KERNELS = (
    kernel("vectorized", (128, 128, 32, 16, 8), IDEA.key, 128, aligned16=ABC,
           notes="Seed 004's kernel 04 as its author's repository configures it (TM = 16, TN = 8, 128 threads)."),
)

_TILES_EXACT = Check("shared bytes are the two tiles exactly", lambda ev: ev.cuda["shared_bytes"] == tiles(ev),
                     ("shared_bytes",))

CLAIMS = (
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
                  Role.TUNED: WIDE_GLOBAL})),
    Claim("reading the tiles",
          "B's TN = 8 values per k as two float4 and A's column element by element, which NVVM fuses along k: only "
          "16-byte shared loads (LDS.128)",
          "the compiler's 16-byte shared loads (LDS.128)", COMPILER,
          Check("only LDS.128", lambda ev: only_wide_lds(ev.cuda), ("LDS.32", "LDS.64", "LDS.128")), COMPILER_LDS),
    Claim("outputs per thread",
          "a 16 x 8 patch (128 accumulators) per thread, 128 threads for the 128 x 128 tile, held in registers "
          "without spilling",
          "num_warps = 4 gives each thread 128 accumulators as well; the compiler places them (the tuned form may take "
          "8 warps, 64 each)", COMPILER,
          Check("128 per thread, no spills", lambda ev: ev.cuda["cfg.outputs_per_thread"] == 128
                and ev.cuda["spills"] + ev.cuda["local_bytes"] == 0, ("cfg.outputs_per_thread", "registers", "spills")),
          ByForm({Role.PLAIN: SAME_OUTPUTS, Role.TUNED: TUNED_OUTPUTS})),
    staging("__shared__ __align__(16) As[BM*BK] and Bs[BK*BN], stored as they lie", _TILES_EXACT),
    synchronisation(),
    single_buffer(),
)
RUNG = Rung(IDEA, KERNELS, CLAIMS, after="coarsen_2d")
