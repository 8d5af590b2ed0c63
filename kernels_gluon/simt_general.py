"""rosetta.sgemm_general in Gluon: the SIMT summit's own decisions (kernels_cuda/rosetta_sgemm_general.cu) written
with explicit layouts in Triton's toolchain.

What is the CUDA kernel's, decision by decision:
- block tile BM x BN x BK, 8 warps as (BM/WM) x (BN/WN), lanes as an LM x LN grid (LM = WM/TM, LN = WN/TN) and a
  TM x TN patch per thread made of 4 x 4 pieces: the accumulator's BlockedLayout([4, 4], [LM, LN], [BM/WM, BN/WN]),
  which a warp covers with WM + WN floats of the tiles per k, as the CUDA warp tile does (the pieces repeat at the
  block tile's pitch here, at the warp tile's pitch in CUDA: the same footprint per warp and per thread, placed
  differently);
- the register outer product: per k, the thread's TM values of A's column and TN values of B's row are loaded from
  shared memory as 4-float vectors (LDS.128) into registers and multiplied into the TM x TN accumulators (gl.fma on
  the two SliceLayouts of the accumulator's layout): TM*TN FFMA per (TM + TN) / 4 LDS.128;
- A through registers: 16-byte global loads of 4 k of one row (LDG.128), stored transposed (k-major, 4-byte STS)
  into shared memory; B by 16-byte cp.async; two stages, each its own allocation (Gluon's compiler puts a barrier
  between accesses of one allocation, whatever slot they touch: one allocation per stage keeps the one barrier per
  K tile the CUDA kernel has); the next tile's loads are issued before the current tile's FFMAs and A's stores
  after them;
- A's k-rows padded by 4 floats exactly when two padded stages fit in 48 KiB (the CUDA kernel's APitch rule);
- any M, N, K: rows of A past M read row M-1 (their outputs are never stored); K tiles are aligned to the end of
  K, so the first one is the partial one and only the first two (loaded before the loop) test k; grouped block
  order (GROUP_M block rows at a time); stores masked where the block crosses an edge.

A second form ("dot", PRODUCT = "dot_fma") takes the same decisions but writes each K tile's product as one
gl.dot_fma on the accumulator's dot-operand layouts, leaving the per-k loads and their order to the compiler: the
same tile written the way Gluon offers for it, beside the CUDA kernel's own loop. A third ("ordered") writes out the
CUDA kernel's order as well: step k + 1's fragments loaded before step k's FFMAs (PRODUCT = "prefetch"), the
accumulator's registers in acc[TM][TN] order (ORDER = 2: the same layout as a DistributedLinearLayout whose register
bases put a thread's TN columns innermost; ORDER = 1 puts its TM rows innermost), and a launch with beta == 0 running
a kernel compiled without C's read (READ_C = "beta"). None of these changes what a thread computes or loads; each
changes the PTX, and with it the registers ptxas assigns: what decides the summit's register-bank conflicts, and so
the speed the same decisions reach (harness/run/ablation.py measures each).

What is the compiler's: the order of the loads and FFMAs inside a K tile (ptxas schedules them; the CUDA kernel
fixes a double-buffered fragment order by hand), the registers (the CUDA kernel's launch bounds ask two blocks an SM
for the 128 x 128 instantiation: it compiles to 128 registers uncapped, and capping it at 128 made ptxas spill 16
bytes on triton 3.6, so no cap is passed), and the copy widths the launch's specialisation
allows (16-byte copies where K, N and the pointers are multiples of 16 bytes; the CUDA kernel decides that at run
time, for K % 4 == 0). Deviations: B's columns past N are zero-filled by a masked copy (CUDA redirects them to
column 0); when the number of K tiles is odd, one more tile of zeros makes it even (the loop takes the two stages
in turn, so its body is one K tile per stage), so an odd shape pays one K tile of FFMAs more.

Nothing here checks its operands: the harness binds once (harness/launch/gluon.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import triton

from kernels_gluon.compat import async_copy, barrier, cp_async_load, gl, gluon, reinterpret

if TYPE_CHECKING:
    import torch


@gluon.constexpr_function
def _accumulator(BM, BN, WM, WN, TM, TN, ORDER):
    """The accumulator's layout: 4 x 4 pieces, lanes LM x LN, warps (BM/WM) x (BN/WN); ORDER only orders a thread's
    registers, and with them the FFMAs the product is written as: 0 a BlockedLayout's (a 4 x 4 piece at a time),
    1 one B value against the thread's TM values of A in turn, 2 the CUDA kernel's acc[TM][TN] (one A value against
    its TN values of B). The same outputs per thread in each."""
    LM, LN = WM // TM, WN // TN
    if ORDER == 0:
        return gl.BlockedLayout([4, 4], [LM, LN], [BM // WM, BN // WN], [1, 0])
    pm, pn = 4 * LM * (BM // WM), 4 * LN * (BN // WN)   # the pieces' pitch: the block tile's, as the blocked layout's
    cols = [[0, 1], [0, 2]] + [[0, pn << b] for b in range((TN // 4).bit_length() - 1)]
    rows = [[1, 0], [2, 0]] + [[pm << b, 0] for b in range((TM // 4).bit_length() - 1)]
    lanes = [[0, 4 << b] for b in range(LN.bit_length() - 1)] + [[4 << b, 0] for b in range(LM.bit_length() - 1)]
    warps = ([[0, 4 * LN << b] for b in range((BN // WN).bit_length() - 1)]
             + [[4 * LM << b, 0] for b in range((BM // WM).bit_length() - 1)])
    # Triton emits an elementwise op's registers from the last basis to the first: the fastest-varying operand last
    return gl.DistributedLinearLayout(cols + rows if ORDER == 1 else rows + cols, lanes, warps, [], [BM, BN])


@gluon.jit
def _issue(a_ptrs, b_ptrs, b_next, b_in, more):
    # the next K tile: A into registers (stored after the FFMAs), B by cp.async into the other stage
    a = gl.load(a_ptrs, mask=gl.full(a_ptrs.shape, 1, gl.int1, a_ptrs.type.layout) & more, other=0.0)
    cp_async_load(b_next, b_ptrs, mask=b_in & more)
    async_copy.commit_group()
    return a


@gluon.jit
def _k_tile(acc, a_cur, b_cur, a_next, a_regs, BK: gl.constexpr, LC: gl.constexpr, DOT: gl.constexpr,
            PREFETCH: gl.constexpr, A_TILE: gl.constexpr, B_TILE: gl.constexpr):
    if DOT:
        # the "dot" form: the whole K tile's operands in the accumulator's dot-operand layouts, one gl.dot_fma (the
        # compiler expands the products and orders their loads)
        a = reinterpret(a_cur, gl.float32, [BK, acc.shape[0]], A_TILE).permute((1, 0)).load(
            gl.DotOperandLayout(0, LC, 0))
        b = reinterpret(b_cur, gl.float32, [BK, acc.shape[1]], B_TILE).load(gl.DotOperandLayout(1, LC, 0))
        acc = gl.dot_fma(a, b, acc)
    elif PREFETCH:
        # the CUDA kernel's fragment order inside a K tile: step k + 1's fragments loaded before step k's FFMAs
        fa = a_cur.index(0).load(gl.SliceLayout(1, LC))
        fb = b_cur.index(0).load(gl.SliceLayout(0, LC))
        for k in gl.static_range(BK):
            if k < BK - 1:
                na = a_cur.index(k + 1).load(gl.SliceLayout(1, LC))
                nb = b_cur.index(k + 1).load(gl.SliceLayout(0, LC))
            acc = gl.fma(gl.expand_dims(fa, 1), gl.expand_dims(fb, 0), acc)
            if k < BK - 1:
                fa = na
                fb = nb
    else:
        # per k: a column of A's tile and a row of B's into registers, their outer product into the accumulators
        for k in gl.static_range(BK):
            a = a_cur.index(k).load(gl.SliceLayout(1, LC))
            b = b_cur.index(k).load(gl.SliceLayout(0, LC))
            acc = gl.fma(gl.expand_dims(a, 1), gl.expand_dims(b, 0), acc)
    a_next.store(a_regs)
    async_copy.wait_group(0)
    barrier()
    return acc


@gluon.jit
def _store(out, c_rows, rows, cols, M, N, beta, READ_C: gl.constexpr):
    ptrs = gl.expand_dims(c_rows, 1) + gl.expand_dims(cols, 0)
    inside = gl.expand_dims(rows < M, 1) & gl.expand_dims(cols < N, 0)
    if READ_C:  # noqa: SIM102 (a compile-time test: a kernel compiled without it has no read of C)
        if beta != 0.0:  # BLAS semantics: C is read only when beta != 0
            out += beta * gl.load(ptrs, mask=inside, other=0.0)
    gl.store(ptrs, out, mask=inside)


@gluon.jit
def sgemm_general_kernel(A, B, C, M, N, K, alpha, beta, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr,
                         WM: gl.constexpr, WN: gl.constexpr, TM: gl.constexpr, TN: gl.constexpr,
                         GROUP_M: gl.constexpr, DOT: gl.constexpr = False,
                         PREFETCH: gl.constexpr = False, ORDER: gl.constexpr = 0,
                         READ_C: gl.constexpr = True):
    WARPS: gl.constexpr = (BM // WM) * (BN // WN)
    # the accumulator: 4 x 4 pieces, lanes LM x LN, warps (BM/WM) x (BN/WN)
    LC: gl.constexpr = _accumulator(BM, BN, WM, WN, TM, TN, ORDER)
    # A's copy: a thread takes 4 k of one row (lanes: 16 rows x 2 runs of 4 k); B's: 4 columns of one k-row
    LA: gl.constexpr = gl.BlockedLayout([1, 4], [16, 2], [WARPS, 1], [1, 0])
    LB: gl.constexpr = gl.BlockedLayout([1, 4], [1, 32], [WARPS // (BN // 128), BN // 128], [1, 0])
    PAD: gl.constexpr = 4 if 2 * BK * (BM + 4 + BN) * 4 <= 48 * 1024 else 0
    AP: gl.constexpr = BM + PAD
    # A k-major (one k-row of BM floats, then the pad, per k); B as it lies; both read one k-row at a time
    A_ROWS: gl.constexpr = gl.PaddedSharedLayout.with_identity_for([[BM, 4]], [BM], [0]) if PAD else \
        gl.SwizzledSharedLayout(1, 1, 1, [0])
    A_TILE: gl.constexpr = gl.PaddedSharedLayout.with_identity_for([[BM, 4]], [BK, BM], [1, 0]) if PAD else \
        gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    B_ROWS: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
    B_TILE: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    gl.static_assert(AP % 4 == 0, "k-rows of A stay 16-byte aligned")

    # grouped order: GROUP_M block rows, column-major within a group (the CUDA kernel's renumbering of its 2-D grid)
    pid = gl.program_id(0)
    grid_n = gl.cdiv(N, BN)
    per_group = GROUP_M * grid_n
    first_m = (pid // per_group) * GROUP_M
    rows_in = gl.minimum(gl.cdiv(M, BM) - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % rows_in
    pid_n = (pid % per_group) // rows_in

    # K tiles aligned to the end of K, their number made even: tiles 0 and 1 may reach below k = 0
    ktiles = gl.cdiv(K, BK)
    kt_even = ktiles + ktiles % 2
    k0 = K - kt_even * BK
    rows = gl.minimum(pid_m * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, LA)), M - 1).to(gl.int64)
    ka = k0 + gl.arange(0, BK, layout=gl.SliceLayout(0, LA))
    a_ptrs = A + (gl.expand_dims(rows * K, 1) + gl.expand_dims(ka, 0))
    cols = pid_n * BN + gl.arange(0, BN, layout=gl.SliceLayout(0, LB))
    kb = k0 + gl.arange(0, BK, layout=gl.SliceLayout(1, LB))
    b_ptrs = B + (gl.expand_dims(kb.to(gl.int64) * N, 1) + gl.expand_dims(cols, 0))
    b_in = gl.expand_dims(cols < N, 0)
    # N as a 64-bit tensor: a launch with N == 1 makes it a Python int (Triton specialises 1), which has no .to
    b_step = BK * (N + 0 * pid_n).to(gl.int64)

    a_s0 = gl.allocate_shared_memory(gl.float32, [BK, BM], A_ROWS)
    a_s1 = gl.allocate_shared_memory(gl.float32, [BK, BM], A_ROWS)
    b_s0 = gl.allocate_shared_memory(gl.float32, [BK, BN], B_ROWS)
    b_s1 = gl.allocate_shared_memory(gl.float32, [BK, BN], B_ROWS)
    # the same bytes as whole tiles, A's transposed: what the copies write
    a_t0 = reinterpret(a_s0, gl.float32, [BK, BM], A_TILE).permute((1, 0))
    a_t1 = reinterpret(a_s1, gl.float32, [BK, BM], A_TILE).permute((1, 0))
    b_t0 = reinterpret(b_s0, gl.float32, [BK, BN], B_TILE)
    b_t1 = reinterpret(b_s1, gl.float32, [BK, BN], B_TILE)

    a = gl.load(a_ptrs, mask=gl.expand_dims(ka >= 0, 0), other=0.0)
    cp_async_load(b_t0, b_ptrs, mask=b_in & gl.expand_dims(kb >= 0, 1))
    async_copy.commit_group()
    a_t0.store(a)
    a = gl.load(a_ptrs + BK, mask=gl.expand_dims(ka + BK >= 0, 0), other=0.0)
    cp_async_load(b_t1, b_ptrs + b_step, mask=b_in & gl.expand_dims(kb + BK >= 0, 1))
    async_copy.commit_group()
    a_ptrs += 2 * BK
    b_ptrs += 2 * b_step
    async_copy.wait_group(1)
    barrier()

    acc = gl.zeros([BM, BN], gl.float32, LC)
    for t in range(0, kt_even, 2):
        acc = _k_tile(acc, a_s0, b_s0, a_t1, a, BK, LC, DOT, PREFETCH, A_TILE, B_TILE)
        a = _issue(a_ptrs, b_ptrs, b_t0, b_in, t + 2 < kt_even)
        a_ptrs += BK
        b_ptrs += b_step
        acc = _k_tile(acc, a_s1, b_s1, a_t0, a, BK, LC, DOT, PREFETCH, A_TILE, B_TILE)
        a = _issue(a_ptrs, b_ptrs, b_t1, b_in, t + 3 < kt_even)
        a_ptrs += BK
        b_ptrs += b_step

    # C in two halves of BN / 2 columns (a split of the registers, no data moves): the whole tile's 64-bit row
    # addresses beside all of its products spill at 255 registers
    out = acc * alpha
    lo, hi = gl.split(gl.permute(gl.reshape(out, [BM, 2, BN // 2]), (0, 2, 1)))
    rows_c = pid_m * BM + gl.arange(0, BM, layout=gl.SliceLayout(1, lo.type.layout))
    cols_c = pid_n * BN + gl.arange(0, BN // 2, layout=gl.SliceLayout(0, lo.type.layout))
    c_rows = C + rows_c.to(gl.int64) * N
    _store(lo, c_rows, rows_c, cols_c, M, N, beta, READ_C)
    _store(hi, c_rows, rows_c, cols_c + BN // 2, M, N, beta, READ_C)


KERNEL = sgemm_general_kernel
# The CUDA kernel's template arguments, in its order: the settings this form takes from its catalog entry.
TEMPLATE = ("BM", "BN", "BK", "WM", "WN", "TM", "TN", "GROUP_M")


def signature(**settings: int) -> dict[str, str]:
    return {"A": "*fp32", "B": "*fp32", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32", "alpha": "fp32",
            "beta": "fp32"}


def num_warps(**settings: int) -> int:
    return (settings["BM"] // settings["WM"]) * (settings["BN"] // settings["WN"])


def constexprs(**settings: int) -> dict:
    return {**{name: int(settings[name]) for name in TEMPLATE}, "DOT": settings.get("PRODUCT") == "dot_fma",
            "PREFETCH": settings.get("PRODUCT") == "prefetch", "ORDER": int(settings.get("ORDER", 0)),
            "READ_C": settings.get("READ_C", 1) not in (0, "beta")}  # "beta": compiled as a launch with beta == 0


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0,
           **settings: int) -> object:
    """C = alpha * A @ B + beta * C; returns the compiled handle. Checks nothing (the harness binds once)."""
    M, K = A.shape
    N = B.shape[1]
    grid = (triton.cdiv(M, settings["BM"]) * triton.cdiv(N, settings["BN"]),)
    cx = constexprs(**settings)
    if settings.get("READ_C") == "beta":  # a kernel compiled for beta == 0 has no read of C at all
        cx["READ_C"] = beta != 0.0
    return sgemm_general_kernel[grid](A, B, C, M, N, K, alpha, beta, **cx, num_warps=num_warps(**settings))
