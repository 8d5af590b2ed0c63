"""The checks and rows several rungs of the SIMT ladder share: 16-byte shared loads, the pipelined K loop, the copy
widths, and the prefetching rungs' pipelining and copy-width claims.

Every rung's Triton counterpart is one kernel (kernels_triton.gemm_ladder) with different launch settings, so
most rows of the rungs say the same thing from the Triton side: the decision has no handle, the compiler makes it;
only num_stages (and GROUP_M) are the programmer's. The tuned form (kernels_triton.gemm_ladder_tuned) is the same
kernel on the rung's tile with warps and stages chosen by the autotuner; where a row depends on those two, its
tuned check holds for every configuration the tuner may pick.
"""

from __future__ import annotations

from harness.catalog.checks import TUNED_STAGES, ffma_only, same_outputs_per_thread
from harness.catalog_types.claim import COMPILER, PROGRAMMER, ByForm, Check, Claim
from harness.catalog_types.evidence import Evidence, Numbers
from harness.catalog_types.kernel import Role


def padded_tiles(ev: Evidence) -> int:
    """Bytes of one stage of the ladder's tiles: A transposed with each k-row padded by 4 floats, B as it lies."""
    n = ev.cuda
    return 4 * (n["cfg.tile_k"] * (n["cfg.tile_m"] + 4) + n["cfg.tile_k"] * n["cfg.tile_n"])


def only_wide_lds(n: Numbers) -> bool:
    return n["LDS.128"] > 0 and n["LDS.32"] + n["LDS.64"] == 0


COMPILER_LDS = Check("16-byte shared loads into FFMA", lambda ev: ev.triton["LDS.128"] > 0 and ffma_only(ev.triton),
                     ("LDS.128", "FFMA"))
PIPELINED = Check("num_stages > 1; async copies and waits in the ttgir, LDGSTS in the SASS",
                  lambda ev: ev.triton["cfg.num_stages"] > 1 and ev.triton["ttgir.async_copy"] > 0
                  and ev.triton["ttgir.async_wait"] > 0 and ev.triton["LDGSTS"] > 0,
                  ("cfg.num_stages", "ttgir.async_copy", "LDGSTS"))
_CP_ASYNC_STAGES = Check("cp.async (LDGSTS) into whole stages of the padded tiles",
                         lambda ev: ev.cuda["src.cp_async"] > 0 and ev.cuda["LDGSTS"] > 0
                         and ev.cuda["shared_bytes"] % padded_tiles(ev) == 0
                         and ev.cuda["shared_bytes"] // padded_tiles(ev) >= 2,
                         ("src.cp_async", "LDGSTS", "shared_bytes"))


SAME_OUTPUTS = Check("as in CUDA", same_outputs_per_thread, ("cfg.num_warps", "cfg.outputs_per_thread"))
# 16-byte global accesses only, as loads (LDG.128, num_stages 1) or async copies (LDGSTS.128, num_stages > 1)
WIDE_GLOBAL = Check("only 16-byte global loads or async copies", lambda ev: ev.triton["LDG.128"]
                    + ev.triton["LDGSTS.128"] > 0 and ev.triton["LDG.32"] + ev.triton["LDG.64"]
                    + ev.triton["LDGSTS.32"] == 0, ("LDG.128", "LDGSTS.128", "LDG.32", "LDGSTS.32"))
# nothing transposed on the way to shared memory: 16-byte stores or async copies, no 4-byte ones
WIDE_TO_SHARED = Check("16-byte shared stores or async copies, no 4-byte ones", lambda ev: ev.triton["STS.128"]
                       + ev.triton["LDGSTS.128"] > 0 and ev.triton["STS.32"] + ev.triton["LDGSTS.32"] == 0,
                       ("STS.128", "LDGSTS.128", "STS.32", "LDGSTS.32"))


def prefetch(cuda: str) -> Claim:
    return Claim("K-loop pipelining", cuda,
                 "num_stages (the programmer's one setting) > 1: the compiler pipelines the K loop itself, async "
                 "copies into num_stages buffers (ttg.async_copy_global_to_local, LDGSTS) and waits (ttg.async_wait); "
                 "the tuned form's autotuner tries 1 to 4",
                 PROGRAMMER, _CP_ASYNC_STAGES, ByForm({Role.PLAIN: PIPELINED, Role.TUNED: TUNED_STAGES}))


COPY_WIDTH = Claim(
    "copy width",
    "A 4 bytes at a time (cp.async.ca, LDGSTS.32: cp.async cannot transpose a float4), B in 16-byte copies "
    "(cp.async.cg, LDGSTS.128)",
    "16-byte async copies of both tiles (LDGSTS.128 only): nothing is transposed on the way",
    COMPILER,
    Check("LDGSTS.32 and LDGSTS.128", lambda ev: ev.cuda["LDGSTS.32"] > 0 and ev.cuda["LDGSTS.128"] > 0,
          ("LDGSTS.32", "LDGSTS.128")),
    ByForm({Role.PLAIN: Check("only LDGSTS.128", lambda ev: ev.triton["LDGSTS.128"] > 0 and ev.triton["LDGSTS.32"] == 0,
                         ("LDGSTS.32", "LDGSTS.128")),
            Role.TUNED: WIDE_TO_SHARED}))
