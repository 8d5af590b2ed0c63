"""The checks and rows several GEMM families share (the seeds' SGEMM ideas and the SIMT ladder): the helpers their
predicates read and the claims whose wording is common to them (operand staging, synchronisation, a single buffer).
"""

from __future__ import annotations

from harness.catalog_types.claim import COMPILER, PROGRAMMER, ByForm, Check, Claim, Side
from harness.catalog_types.evidence import Evidence, Numbers
from harness.catalog_types.kernel import Role


def lds(n: Numbers) -> int:
    """Plain shared-memory loads of any width."""
    return n["LDS.32"] + n["LDS.64"] + n["LDS.128"]


def tiles(ev: Evidence) -> int:
    """Bytes of one A tile and one B tile of the CUDA block."""
    n = ev.cuda
    return 4 * (n["cfg.tile_m"] * n["cfg.tile_k"] + n["cfg.tile_k"] * n["cfg.tile_n"])



def triton_tiles(n: Numbers) -> int:
    return 4 * (n["cfg.block_m"] * n["cfg.block_k"] + n["cfg.block_k"] * n["cfg.block_n"])


def same_outputs_per_thread(ev: Evidence) -> bool:
    return ev.triton["cfg.outputs_per_thread"] == ev.cuda["cfg.outputs_per_thread"]


def scalar_loads(n: Numbers) -> bool:
    return n["LDG.32"] > 0 and n["LDG.64"] + n["LDG.128"] == 0


NO_LOCAL = Check("no spills, no local memory", lambda ev: ev.triton["spills"] + ev.triton["local_bytes"] == 0
                 and ev.triton["LDL"] == 0, ("registers", "spills", "local_bytes"))
DOT_STAGED = Check("two local_alloc into a #shared encoding in the ttgir; shared bytes at least the two tiles",
                   lambda ev: ev.triton["ttgir.local_alloc"] == ev.triton["ttgir.local_alloc_shared"] == 2
                   and ev.triton["shared_bytes"] >= triton_tiles(ev.triton),
                   ("ttgir.local_alloc", "ttgir.local_alloc_shared", "shared_bytes"))
RANK1_UNSTAGED = Check("no tl.dot, no local_alloc: nothing staged by the program",
                       lambda ev: ev.triton["ttgir.dot"] + ev.triton["ttgir.local_alloc"] == 0,
                       ("ttgir.dot", "ttgir.local_alloc", "shared_bytes"))


def staging(cuda_text: str, cuda_check: Side) -> Claim:
    """The shared-memory row of every tiled GEMM idea; its Triton side depends on the form."""
    return Claim(
        "operand staging", cuda_text,
        "dot and tuned forms: the block loads feed tl.dot(input_precision='ieee'), whose operands the compiler stages "
        "in shared memory (two ttg.local_alloc into a #shared encoding); rank1 form, deliberately different: the "
        "program stages nothing (each k loads a column of A and a row of B from global memory), though the compiler "
        "may still use shared memory to convert layouts",
        COMPILER, cuda_check, ByForm({Role.PLAIN: DOT_STAGED, Role.TUNED: DOT_STAGED, Role.RANK1: RANK1_UNSTAGED}))


_BAR = Check("BAR in the SASS", lambda ev: ev.triton["BAR"] >= 1, ("BAR",))


def synchronisation(cuda_text: str = "__syncthreads() written by hand after the tile loads and after the compute: "
                                     "load, sync, compute, sync (BAR in the SASS)") -> Claim:
    return Claim(
        "synchronisation", cuda_text,
        "dot and tuned forms: barriers inserted by the compiler around the shared tiles; rank1 form: only those its "
        "layout conversions need",
        COMPILER,
        Check("__syncthreads in the source, BAR in the SASS",
              lambda ev: ev.cuda["src.syncthreads"] >= 2 and ev.cuda["BAR"] >= 2, ("src.syncthreads", "BAR")),
        ByForm({Role.PLAIN: _BAR, Role.TUNED: _BAR,
                Role.RANK1: Check("BAR only with shared memory for conversions",
                               lambda ev: (ev.triton["BAR"] > 0) == (ev.triton["shared_bytes"] > 0),
                               ("BAR", "shared_bytes"))}))


def copies_iff_stages(ev: Evidence) -> bool:
    return (ev.triton["cfg.num_stages"] > 1) == (ev.triton["ttgir.async_copy"] > 0)


# The tuned form (kernels_triton.gemm_ladder_tuned) keeps its rung's tile and lets the autotuner pick num_warps (the
# rung's or twice) and num_stages (1 to 4): its checks hold for every point of that space.
TUNED_STAGES = Check("the tuner's num_stages; async copies exactly when it is > 1", copies_iff_stages,
                     ("cfg.num_stages", "ttgir.async_copy"))


def _tuned_outputs(ev: Evidence) -> bool:
    t, c = ev.triton, ev.cuda
    per_thread = c["cfg.outputs_per_thread"]
    return (t["cfg.outputs_per_thread"] in (per_thread, per_thread // 2)
            and 32 * t["cfg.num_warps"] * t["cfg.outputs_per_thread"] == c["cfg.tile_m"] * c["cfg.tile_n"])


TUNED_OUTPUTS = Check("the rung's tile over the tuner's warps: the CUDA outputs per thread, or half",
                      _tuned_outputs, ("cfg.num_warps", "cfg.outputs_per_thread"))


def single_buffer() -> Claim:
    one = Check("num_stages 1, no async copy", lambda ev: ev.triton["cfg.num_stages"] == 1
                and ev.triton["ttgir.async_copy"] == 0, ("cfg.num_stages", "ttgir.async_copy"))
    return Claim(
        "K-loop pipelining",
        "none: one buffer per operand, the next tile is loaded only after the current one is consumed (no cp.async)",
        "num_stages = 1 (the counterpart's setting): synchronous loads, no async copies in the ttgir; a larger "
        "num_stages would have the compiler pipeline them, and the tuned form's autotuner tries 1 to 4",
        PROGRAMMER,
        Check("no cp.async in the source or the SASS", lambda ev: ev.cuda["src.cp_async"] + ev.cuda["LDGSTS"] == 0,
              ("src.cp_async", "LDGSTS")),
        ByForm({Role.PLAIN: one, Role.RANK1: one, Role.TUNED: TUNED_STAGES}))


def ffma_only(n: Numbers) -> bool:
    """fp32 FMA arithmetic: FFMA, and no tensor-core instruction."""
    return n["FFMA"] > 0 and n["HMMA"] + n["HGMMA"] == 0
