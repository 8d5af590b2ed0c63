"""The SGEMV family: the ideas of seed 003's two kernels and of tile-rosetta's two steps after its cut-off (several
warps per row, then 16-byte loads), tile-rosetta's kernels of those steps, and the mapping claims of all four.

A GEMV has no K loop and no tensor-core layout: each row is one dot product with x, and the decisions
are who walks a row, how wide the loads are and how the partial sums of a row are combined. Seed 003's kernels
themselves are with their document's (harness/catalog/seeds/kernels.py).
"""

from __future__ import annotations

from harness.catalog.checks import scalar_loads
from harness.catalog.seeds.kernels import GEMV, ROWS
from harness.catalog_types.claim import COMPILER, PROGRAMMER, Check, Claim
from harness.catalog_types.evidence import Evidence
from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import Counterpart, Deviation, Kernel
from harness.problems.preconditions import dims_fit_int32

IDEAS: dict[str, Idea] = {
    idea.key: idea
    for idea in (
        Idea(
            "gemv_naive",
            "SGEMV, one thread per row",
            "Thread i walks row i: neighbouring threads read addresses N floats apart, so no load coalesces.",
        ),
        Idea(
            "gemv_warp",
            "SGEMV, one warp per row with a shuffle reduction",
            "A 32-thread block walks one row with stride 32 (coalesced), then __shfl_down_sync folds the 32 "
            "partial sums.",
        ),
        Idea(
            "gemv_block",
            "SGEMV, several warps per row (tile-rosetta's step)",
            "A block of several warps per row: shuffles inside each warp, then a shared-memory pass across "
            "the warps.",
        ),
        Idea(
            "gemv_vector",
            "SGEMV with 16-byte loads (tile-rosetta's step)",
            "float4 loads quarter the load instructions and keep more bytes in flight per thread: the last "
            "step towards the copy bandwidth.",
        ),
    )
}

_BASE = {"op": "sgemv", "seed": None, "args": GEMV, "reads_c_when_beta_zero": False, "tile_n": 0,
         "section": "tile-rosetta's step after kernel 2", "preconditions": (dims_fit_int32(),)}

KERNELS: tuple[Kernel, ...] = (
    Kernel(id="rosetta.sgemv_block_reduce<256>", idea="gemv_block", symbol="sgemv_block_reduce<256>",
           block=(256, 1, 1), tile_m=1, tile_k=256, counterparts=(ROWS,), **_BASE),
    # Per step a row's threads each take one float4 and the loop is unrolled 4 times: 16 floats per thread.
    Kernel(id="rosetta.sgemv_float4<256,1>", idea="gemv_vector", symbol="sgemv_float4<256, 1>", block=(256, 1, 1),
           tile_m=1, tile_k=256 * 16,
           counterparts=(Counterpart("rows", "gemv_rows", deviations={"block_n": Deviation(
               1024, "one float4 per thread per step: the CUDA kernel's 4x unroll is a per-thread loop Triton does "
                     "not expose, and the compiler keeps several loads in flight itself")}),), **_BASE),
    Kernel(id="rosetta.sgemv_float4<128,4>", idea="gemv_vector", symbol="sgemv_float4<128, 4>", block=(128, 1, 1),
           tile_m=4, tile_k=32 * 16, counterparts=(ROWS,), **_BASE),
)


def _warps_per_row(ev: Evidence) -> int:
    return ev.cuda["cfg.threads"] // ev.cuda["cfg.tile_m"] // 32


def _row_walk(cuda: str, triton: str, cuda_check: Check) -> Claim:
    return Claim("who walks a row", cuda, triton, PROGRAMMER, cuda_check,
                 Check("BLOCK_M rows x BLOCK_N columns per step on num_warps warps",
                       lambda ev: ev.triton["cfg.block_m"] == ev.cuda["cfg.tile_m"]
                       and 32 * ev.triton["cfg.num_warps"] == ev.cuda["cfg.threads"],
                       ("cfg.block_m", "cfg.block_n", "cfg.num_warps")))


def _scalar(cuda: str, triton: str) -> Claim:
    return Claim("load width", cuda, triton, COMPILER,
                 Check("only LDG.32", lambda ev: scalar_loads(ev.cuda), ("LDG.32", "LDG.128")),
                 Check("only LDG.32", lambda ev: scalar_loads(ev.triton), ("LDG.32", "LDG.128")))


_NO_SHARED = Check("no SHFL, no BAR, no shared memory",
                   lambda ev: ev.cuda["SHFL"] + ev.cuda["BAR"] + ev.cuda["shared_bytes"] == 0,
                   ("SHFL", "BAR", "shared_bytes"))

GEMV_NAIVE = (
    _row_walk("one thread per row: thread i loops over the N columns of row i",
              "a program of BLOCK_M = threads rows and BLOCK_N = 1 column per step: the layout gives each thread "
              "one row",
              Check("one row per thread", lambda ev: ev.cuda["cfg.tile_m"] == ev.cuda["cfg.threads"]
                    and ev.cuda["cfg.tile_k"] == 1, ("cfg.threads", "cfg.tile_m", "cfg.tile_k"))),
    _scalar("scalar 4-byte loads; neighbouring threads read addresses N floats apart, so no load coalesces",
            "scalar as well: with BLOCK_N = 1 there is nothing contiguous to vectorise"),
    Claim("combining a row's partial sums",
          "nothing to combine: a thread's running sum is its row's result (no shuffle, no shared memory, no barrier)",
          "tl.sum over a BLOCK_N = 1 axis: nothing crosses threads (no shuffle, no shared memory, no barrier)",
          COMPILER, _NO_SHARED,
          Check("a tt.reduce; no SHFL, no BAR, no shared memory", lambda ev: ev.triton["ttgir.reduce"] >= 1
                and ev.triton["SHFL"] + ev.triton["BAR"] + ev.triton["shared_bytes"] == 0,
                ("ttgir.reduce", "SHFL", "BAR", "shared_bytes"))),
)

GEMV_WARP = (
    _row_walk("one 32-thread block per row; lane l reads columns l, l + 32, ...: a warp reads 128 contiguous bytes",
              "one program per row (BLOCK_M = 1), BLOCK_N = 32 columns per step on one warp",
              Check("a warp per row", lambda ev: ev.cuda["cfg.tile_m"] == 1 and ev.cuda["cfg.threads"] == 32,
                    ("cfg.threads", "cfg.tile_m"))),
    _scalar("scalar 4-byte loads, coalesced across the warp",
            "scalar as well: 32 columns over 32 lanes is one element per lane"),
    Claim("combining a row's partial sums",
          "a __shfl_down_sync tree, offsets 16, 8, 4, 2, 1 (5 SHFL); no shared memory, no barrier",
          "tl.sum(axis=1): the compiler emits the same 5-step shuffle tree; no shared memory, no barrier",
          COMPILER,
          Check("5 SHFL; no BAR, no shared memory", lambda ev: ev.cuda["SHFL"] == 5 and ev.cuda["src.shuffles"] >= 1
                and ev.cuda["BAR"] + ev.cuda["shared_bytes"] == 0, ("SHFL", "BAR", "shared_bytes")),
          Check("5 SHFL; no BAR, no shared memory", lambda ev: ev.triton["SHFL"] == 5
                and ev.triton["BAR"] + ev.triton["shared_bytes"] == 0, ("SHFL", "BAR", "shared_bytes"))),
)

_CROSS_WARP = Check("SHFL, a BAR and shared memory", lambda ev: ev.triton["SHFL"] >= 5 and ev.triton["BAR"] >= 1
                    and ev.triton["shared_bytes"] > 0, ("SHFL", "BAR", "shared_bytes"))

GEMV_BLOCK = (
    _row_walk("one block of 256 threads per row, column stride 256",
              "one program per row (BLOCK_M = 1), BLOCK_N = 256 columns per step on 8 warps",
              Check("several warps per row", lambda ev: ev.cuda["cfg.tile_m"] == 1 and ev.cuda["cfg.threads"] > 32,
                    ("cfg.threads", "cfg.tile_m"))),
    _scalar("scalar 4-byte loads, coalesced", "scalar as well: 256 columns over 256 threads, one element each"),
    Claim("combining a row's partial sums",
          "shuffles inside each warp, the warp sums through __shared__ (4 bytes per warp) and one __syncthreads, "
          "then a second shuffle tree in warp 0: all written by hand",
          "tl.sum(axis=1) across 8 warps: the compiler emits the shuffles, a 4-byte-per-warp shared scratch and "
          "the barrier",
          COMPILER,
          Check("SHFL, one BAR, 4 B of shared memory per warp", lambda ev: ev.cuda["SHFL"] >= 10
                and ev.cuda["BAR"] == 1 and ev.cuda["src.syncthreads"] == 1
                and ev.cuda["shared_bytes"] == 4 * ev.cuda["cfg.threads"] // 32, ("SHFL", "BAR", "shared_bytes")),
          _CROSS_WARP),
)

GEMV_VECTOR = (
    _row_walk("BLOCK_THREADS / ROWS_PER_BLOCK threads per row (256 for <256,1>, 32 for <128,4>), each taking one "
              "float4 per step in a loop marked #pragma unroll 4",
              "BLOCK_M rows per program, BLOCK_N columns per step on threads / 32 warps (<256,1>: BLOCK_N = 1024, "
              "one float4 per thread per step; unrolling and loads in flight are the compiler's)",
              Check("whole warps per row; a pragma unroll",
                    lambda ev: _warps_per_row(ev) >= 1 and ev.cuda["cfg.threads"] % (32 * ev.cuda["cfg.tile_m"]) == 0
                    and ev.cuda["src.pragma_unroll"] >= 1,
                    ("cfg.threads", "cfg.tile_m", "src.pragma_unroll"))),
    Claim("load width",
          "float4 written by hand (LDG.E.128), taken when N % 4 == 0 and A and x are 16-byte aligned; a scalar "
          "loop (LDG.32) otherwise",
          "LDG.128 chosen by the compiler: the launch marks N and the pointers divisible by 16, so each thread's "
          "4 contiguous columns are one 16-byte load; there is no scalar path",
          COMPILER,
          Check("float4 in the source; LDG.128 and the scalar fallback's LDG.32", lambda ev: ev.cuda["src.float4"] > 0
                and ev.cuda["LDG.128"] > 0 and ev.cuda["LDG.32"] > 0, ("src.float4", "LDG.128", "LDG.32")),
          Check("only LDG.128", lambda ev: ev.triton["LDG.128"] > 0 and ev.triton["LDG.32"] + ev.triton["LDG.64"] == 0,
                ("LDG.128", "LDG.32"))),
    Claim("combining a row's partial sums",
          "a shuffle tree in each warp; <256,1> gives a row 8 warps, whose sums go through __shared__ (32 B) and "
          "one __syncthreads; <128,4> gives a row one warp: no shared memory, no barrier (the source's "
          "WARPS_PER_ROW == 1 branch)",
          "tl.sum(axis=1): the compiler spreads each row over several warps in both configurations (<128,4>'s "
          "BLOCK_M = 4 rows over 4 warps too), so both reduce across warps through shared memory and a barrier",
          COMPILER,
          Check("5 SHFL; a BAR and shared memory exactly when a row has several warps",
                lambda ev: ev.cuda["SHFL"] == 5 and (ev.cuda["BAR"] == 1) == (_warps_per_row(ev) > 1)
                and ev.cuda["shared_bytes"] == (4 * ev.cuda["cfg.threads"] // 32 if _warps_per_row(ev) > 1 else 0),
                ("SHFL", "BAR", "shared_bytes")),
          _CROSS_WARP),
)

CLAIMS: dict[str, tuple[Claim, ...]] = {
    "gemv_naive": GEMV_NAIVE, "gemv_warp": GEMV_WARP, "gemv_block": GEMV_BLOCK, "gemv_vector": GEMV_VECTOR,
}
