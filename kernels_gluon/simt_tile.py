"""Three rungs of the SIMT ladder in Gluon, the decisions a Triton `tl.dot` gives no handle on written as the CUDA
kernels write them: rosetta.sgemm_transposed_a (A transposed and padded in shared memory), rosetta.sgemm_warptile
(warp tiles of 4 x 4 pieces) and rosetta.sgemm_frag_prefetch (cp.async stages and double-buffered fragments).

The decisions, each the CUDA kernel's (kernels_cuda/rosetta_sgemm_<rung>.cu):
- who owns which outputs: the accumulator's BlockedLayout. transposed_a: a thread's 16 x 8 patch contiguous, 128
  threads as 8 x 16 (BlockedLayout([16, 8], [2, 16], [4, 1])), which is the CUDA kernel's thread mapping exactly;
  warptile and frag_prefetch: 4 x 4 pieces over a lane grid LM x LN and warps (BM/WM) x (BN/WN) (the pieces repeat at
  the block tile's pitch where CUDA repeats them at the warp tile's: the same footprint, placed differently);
- A's shared layout: k-major, each k-row padded by 4 floats (PaddedSharedLayout), so that a thread's values of A's
  column are contiguous (LDS.128) and the transposing stores spread over the banks; B as it lies;
- the copy: transposed_a and warptile load 4 k of a row of A (LDG.128) and store them to 4 k-rows (4-byte STS),
  B's rows 16 bytes at a time (LDG.128, STS.128), one buffer, a barrier after the stores and after the FFMAs;
  frag_prefetch copies A 4 bytes at a time by cp.async (it cannot transpose a float4) and B 16 bytes at a time, into
  STAGES stages (a ring, STAGES - 1 tiles in flight, one barrier per K tile at its last k);
- the register outer product: per k, the thread's column of A and row of B from shared memory into registers
  (SliceLayouts of the accumulator's layout) and their outer product into the accumulators (gl.fma);
- frag_prefetch only: the fragments of step k + 1 are loaded before the FFMAs of step k, across the tile boundary
  too (the barrier before the last k's FFMAs, whose fragments are already in registers).
What is the compiler's: the order ptxas gives the loads and FFMAs between two barriers, registers, and the copy
widths the launch specialises (16-byte where the sizes and pointers are multiples of 16 bytes). Whole tiles only, as
the CUDA kernels. Nothing here checks its operands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import triton

from kernels_gluon.compat import async_copy, barrier, cp_async_load, gl, gluon, reinterpret

if TYPE_CHECKING:
    import torch


@gluon.jit
def _outer(acc, a, b):
    return gl.fma(gl.expand_dims(a, 1), gl.expand_dims(b, 0), acc)


@gluon.jit
def _tile_single(acc, a_s, b_s, a_t, b_t, a_ptrs, b_ptrs, BK: gl.constexpr, LC: gl.constexpr):
    # one buffer: registers to shared memory (A transposed), barrier, BK rank-1 updates, barrier
    a_t.store(gl.load(a_ptrs))
    b_t.store(gl.load(b_ptrs))
    barrier()
    for k in gl.static_range(BK):
        acc = _outer(acc, a_s.index(k).load(gl.SliceLayout(1, LC)), b_s.index(k).load(gl.SliceLayout(0, LC)))
    barrier()
    return acc


@gluon.jit
def _copy_stage(a_t, b_t, a_ptrs, b_ptrs, more):
    # A 4 bytes at a time (transposing), B 16 bytes at a time, by cp.async; past the last tile the copies write zeros
    cp_async_load(a_t, a_ptrs, mask=gl.full(a_ptrs.shape, 1, gl.int1, a_ptrs.type.layout) & more)
    cp_async_load(b_t, b_ptrs, mask=gl.full(b_ptrs.shape, 1, gl.int1, b_ptrs.type.layout) & more)
    async_copy.commit_group()


@gluon.jit
def _ring_tile(acc, fa, fb, a_cur, b_cur, a_next, b_next, a_fill, b_fill, a_ptrs, b_ptrs, more, BK: gl.constexpr,
               LC: gl.constexpr, STAGES: gl.constexpr):
    # one K tile from its stage, the fragments of step k + 1 loaded before the FFMAs of step k (fa, fb: step 0's,
    # loaded by the tile before); at k = 0 the copy of the tile STAGES - 1 ahead goes into the stage the tile before
    # used, released by the barrier that tile met at its last k
    for k in gl.static_range(BK):
        if k == BK - 1:
            async_copy.wait_group(STAGES - 2)
            barrier()
            na = a_next.index(0).load(gl.SliceLayout(1, LC))
            nb = b_next.index(0).load(gl.SliceLayout(0, LC))
        else:
            na = a_cur.index(k + 1).load(gl.SliceLayout(1, LC))
            nb = b_cur.index(k + 1).load(gl.SliceLayout(0, LC))
        if k == 0:
            _copy_stage(a_fill, b_fill, a_ptrs, b_ptrs, more)
        acc = _outer(acc, fa, fb)
        fa = na
        fb = nb
    return acc, fa, fb


@gluon.jit
def _store_half(out, C, rows, cols, N, beta):
    ptrs = C + (gl.expand_dims(rows.to(gl.int64) * N, 2) + cols)
    if beta != 0.0:  # BLAS semantics: C is read only when beta != 0
        out += beta * gl.load(ptrs)
    gl.store(ptrs, out)


@gluon.jit
def simt_tile_kernel(A, B, C, M, N, K, alpha, beta, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr,
                     SPT_M: gl.constexpr, SPT_N: gl.constexpr, TPW_M: gl.constexpr, TPW_N: gl.constexpr,
                     WPC_M: gl.constexpr, WPC_N: gl.constexpr, STAGES: gl.constexpr):
    WARPS: gl.constexpr = WPC_M * WPC_N
    LC: gl.constexpr = gl.BlockedLayout([SPT_M, SPT_N], [TPW_M, TPW_N], [WPC_M, WPC_N], [1, 0])
    LA: gl.constexpr = gl.BlockedLayout([1, 4], [16, 2], [WARPS, 1], [1, 0])
    LB: gl.constexpr = gl.BlockedLayout([1, 4], [1, 32], [WARPS // (BN // 128), BN // 128], [1, 0])
    A_ROWS: gl.constexpr = gl.PaddedSharedLayout.with_identity_for([[BM, 4]], [BM], [0])
    B_ROWS: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])

    pid_n = gl.program_id(0)
    pid_m = gl.program_id(1)
    rows = (pid_m * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, LA))).to(gl.int64)
    a_ptrs = A + (gl.expand_dims(rows * K, 1) + gl.expand_dims(gl.arange(0, BK, layout=gl.SliceLayout(0, LA)), 0))
    kb = gl.arange(0, BK, layout=gl.SliceLayout(1, LB)).to(gl.int64)
    cols = pid_n * BN + gl.arange(0, BN, layout=gl.SliceLayout(0, LB))
    b_ptrs = B + (gl.expand_dims(kb * N, 1) + gl.expand_dims(cols, 0))
    b_step = BK * N.to(gl.int64)
    ktiles = K // BK
    acc = gl.zeros([BM, BN], gl.float32, LC)
    if STAGES == 1:
        a_s = gl.allocate_shared_memory(gl.float32, [BK, BM], A_ROWS)
        b_s = gl.allocate_shared_memory(gl.float32, [BK, BN], B_ROWS)
        a_t = reinterpret(a_s, gl.float32, [BK, BM],
                          gl.PaddedSharedLayout.with_identity_for([[BM, 4]], [BK, BM], [1, 0])).permute((1, 0))
        b_t = reinterpret(b_s, gl.float32, [BK, BN], gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
        for _ in range(ktiles):
            acc = _tile_single(acc, a_s, b_s, a_t, b_t, a_ptrs, b_ptrs, BK, LC)
            a_ptrs += BK
            b_ptrs += b_step
    else:
        # the ring: one allocation per stage (Gluon's compiler puts a barrier between accesses of one allocation,
        # whichever stage they touch), the loop unrolled over the stages so that each is named statically.
        # A unpadded: triton 3.6's Gluon cannot lower a cp.async into a padded layout (its compile asserts "unknown
        # layout"), so the transposing 4-byte copies conflict 2-way, as the summit's do where its pad does not fit
        T2: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
        a_rows = (gl.allocate_shared_memory(gl.float32, [BK, BM], B_ROWS),)
        b_rows = (gl.allocate_shared_memory(gl.float32, [BK, BN], B_ROWS),)
        for _ in gl.static_range(1, STAGES):  # tuples grow by concatenation in a traced kernel, not by unpacking
            a_rows = a_rows + (gl.allocate_shared_memory(gl.float32, [BK, BM], B_ROWS),)  # noqa: RUF005
            b_rows = b_rows + (gl.allocate_shared_memory(gl.float32, [BK, BN], B_ROWS),)  # noqa: RUF005
        for p in gl.static_range(STAGES - 1):
            _copy_stage(reinterpret(a_rows[p], gl.float32, [BK, BM], T2).permute((1, 0)),
                        reinterpret(b_rows[p], gl.float32, [BK, BN], T2), a_ptrs, b_ptrs, p < ktiles)
            a_ptrs += BK
            b_ptrs += b_step
        async_copy.wait_group(STAGES - 2)
        barrier()
        fa = a_rows[0].index(0).load(gl.SliceLayout(1, LC))
        fb = b_rows[0].index(0).load(gl.SliceLayout(0, LC))
        # whole rounds of STAGES tiles, so that no tile is behind a branch (a skipped branch would leave the
        # compiler unsure which stage is still being read, and it would add a barrier before every copy); the tiles
        # past the last are zeros and add nothing
        for kt0 in range(0, ktiles, STAGES):
            for j in gl.static_range(STAGES):
                acc, fa, fb = _ring_tile(acc, fa, fb, a_rows[j], b_rows[j], a_rows[(j + 1) % STAGES],
                                         b_rows[(j + 1) % STAGES],
                                         reinterpret(a_rows[(j + STAGES - 1) % STAGES], gl.float32, [BK, BM],
                                                     T2).permute((1, 0)),
                                         reinterpret(b_rows[(j + STAGES - 1) % STAGES], gl.float32, [BK, BN], T2),
                                         a_ptrs, b_ptrs,
                                         kt0 + j + STAGES - 1 < ktiles, BK, LC, STAGES)
                a_ptrs += BK
                b_ptrs += b_step

    # C in two halves of a thread's rows (a split of its registers, no data moves: with the whole tile's 64-bit row
    # addresses beside all of its products the 16 x 8 patch spills at 255 registers)
    out = acc * alpha
    R: gl.constexpr = SPT_M // 2
    lo, hi = gl.split(gl.permute(gl.reshape(out, [BM // SPT_M, 2, R, BN]), (0, 2, 3, 1)))
    L3: gl.constexpr = lo.type.layout
    blocks = gl.arange(0, BM // SPT_M, layout=gl.SliceLayout(1, gl.SliceLayout(2, L3)))
    within = gl.arange(0, R, layout=gl.SliceLayout(0, gl.SliceLayout(2, L3)))
    rows3 = pid_m * BM + gl.expand_dims(blocks * SPT_M, 1) + gl.expand_dims(within, 0)
    cols = pid_n * BN + gl.arange(0, BN, layout=gl.SliceLayout(0, gl.SliceLayout(0, L3)))
    cols3 = gl.expand_dims(gl.expand_dims(cols, 0), 0)
    _store_half(lo, C, rows3, cols3, N, beta)
    _store_half(hi, C, rows3 + R, cols3, N, beta)


KERNEL = simt_tile_kernel
# The rungs' template arguments: sgemm_transposed_a<BM, BN, BK, TM, TN>, sgemm_warptile<BM, BN, BK, WM, WN, TM, TN>,
# sgemm_frag_prefetch<BM, BN, BK, WM, WN, TM, TN, STAGES>; the catalog names them for each rung
TEMPLATE = ("BM", "BN", "BK", "WM", "WN", "TM", "TN", "STAGES")


def _layout(settings: dict) -> dict[str, int]:
    """The accumulator's layout from the CUDA kernel's template arguments: without a warp tile (WM absent) a thread's
    TM x TN patch is contiguous and the threads form (BM/TM) x (BN/TN) in row-major order; with one, 4 x 4 pieces over
    a (WM/TM) x (WN/TN) lane grid and (BM/WM) x (BN/WN) warps."""
    bm, bn, tm, tn = (int(settings[k]) for k in ("BM", "BN", "TM", "TN"))
    if "WM" not in settings:
        threads_n = bn // tn
        threads = bm // tm * threads_n
        return {"SPT_M": tm, "SPT_N": tn, "TPW_M": 32 // threads_n, "TPW_N": threads_n, "WPC_M": threads // 32,
                "WPC_N": 1}
    wm, wn = int(settings["WM"]), int(settings["WN"])
    return {"SPT_M": 4, "SPT_N": 4, "TPW_M": wm // tm, "TPW_N": wn // tn, "WPC_M": bm // wm, "WPC_N": bn // wn}


def signature(**settings: int) -> dict[str, str]:
    return {"A": "*fp32", "B": "*fp32", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32", "alpha": "fp32",
            "beta": "fp32"}


def constexprs(**settings: int) -> dict:
    return {"BM": int(settings["BM"]), "BN": int(settings["BN"]), "BK": int(settings["BK"]), **_layout(settings),
            "STAGES": int(settings.get("STAGES", 1))}


def num_warps(**settings: int) -> int:
    lay = _layout(settings)
    return lay["WPC_M"] * lay["WPC_N"]


def options(**settings: int) -> dict:
    """Compile options: the CUDA kernel's launch bounds where they ask for two blocks an SM (the prefetching rung's
    __launch_bounds__(threads, TM * TN <= 64 ? 2 : 1)): registers capped so that two fit."""
    if int(settings.get("STAGES", 1)) > 1 and int(settings["TM"]) * int(settings["TN"]) <= 64:
        return {"maxnreg": 65536 // (2 * 32 * num_warps(**settings))}
    return {}


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0,
           **settings: int) -> object:
    """C = alpha * A @ B + beta * C on whole tiles; returns the compiled handle. Checks nothing."""
    M, K = A.shape
    N = B.shape[1]
    grid = (triton.cdiv(N, int(settings["BN"])), triton.cdiv(M, int(settings["BM"])))
    return simt_tile_kernel[grid](A, B, C, M, N, K, alpha, beta, **constexprs(**settings),
                                  num_warps=num_warps(**settings), **options(**settings))
