"""The Triton ceiling for fp32 SIMT SGEMM: the ladder's ``tl.dot`` kernel, autotuned.

The kernel is gemm_ladder's (pointer blocks advanced per K step, masks for any shape, 64-bit offsets, grouped program
order, ``input_precision="ieee"``: exact fp32 FFMA, never TF32). What changes is who picks the tile: instead of copying
a CUDA rung's block tile, ``@triton.autotune`` times a small set of configurations on the first call for each
(M, N, K) and keeps the fastest. ``chosen_config()`` reads back what it chose.

The set is kept small on purpose: a cold tune at 4096^3 took 10 s on the H100 (each configuration is compiled once
and timed for about 0.1 s). It holds the fastest of two measured sweeps (about 30 tiles) on the H100: 32 or 64
accumulators per thread (64 x 64 with 4 warps, 64 x 128 with 8, 128 x 128 with 16), K steps of 32 and 64, 3 or 4
stages, all with GROUP_M = 8. Larger per-program tiles (128 x 256, 256 x 128) make ``tl.dot``'s FMA layout hold 128
accumulators per thread next to its operand registers, and measured slower.

To these the search adds the configurations of Triton's tutorial 03 list for CUDA (the eight it gives for fp16 and
fp32 operands, the list the Triton baseline kernels_triton/gemm_tutorial.py tunes over), so that this ceiling can find
whatever that baseline finds: its algorithm is the same (grouped order, one ``tl.dot`` per K step, masks), and every
one of them fits it: GROUP_M = 8, K steps of 32 and 64, 48 to 192 KB of shared memory for fp32 tiles at their stage
counts (sm_90 has 227 KB). Compiled ahead of time for sm_90, the tutorial's first entry (128 x 256 x 64, 8 warps)
spills heavily and 128 x 128 x 32 with 4 warps spills some; they stay, because the tuner judges by time. Twice the
configurations make a cold tune about twice as long; the run's precompile pool compiles them ahead of the worker.

The search has one knob beyond the tile: FOLD, how loads stay inside the matrix. Masked (FOLD off), every load is
masked on M or N and on K; folded (FOLD on, the tutorial's way), rows and columns past the edge are folded back onto
it (index mod M, mod N) so only K is masked, and the store's mask throws the folded outputs away. Timed on an H100 in
interleaved rounds, folding was about 3% faster at the tutorial's own pick (64 x 128 x 32, 4 warps, 4 stages) and
about 3% slower at 64 x 64 x 64 with 2 stages, at 4096^3 and 8192^3 alike: neither is always right, so the tuner is
given both. The same sweep put 2-stage tiles first at 8192^3, so the best of them are in the set as well.

Under ``TRITON_INTERPRET=1`` there is nothing to time (no GPU): ``launch`` runs the same kernel with the first
configuration, so the code path (masks and 64-bit offsets included) is still checked on small odd shapes.

BLAS semantics: with beta == 0, C is not read (it may hold NaN). While tuning, C is restored after every timed run
(``restore_value``), so a beta != 0 call is not applied more than once.
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl

from kernels_triton.gemm_tutorial import TUTORIAL_TILES


@triton.jit
def sgemm_autotuned_kernel(A, B, C, M, N, K, alpha, beta,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                           GROUP_M: tl.constexpr, FOLD: tl.constexpr = False):
    """C = alpha * A @ B + beta * C for row-major fp32 A (M x K), B (K x N), C (M x N)."""
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    # Grouped order: GROUP_M tile-rows are walked down before moving right (L2 reuse of A and B panels).
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    if FOLD:  # past the edge, fold back onto the matrix: every address is inside A and B, only K needs a mask
        a_rows = rows % M
        b_cols = cols % N
    else:
        a_rows = rows
        b_cols = cols
    # 64-bit offsets: row * K and k * N pass 2^31 for large matrices even though M, N, K fit in int32.
    a_ptrs = A + a_rows[:, None].to(tl.int64) * K + ks[None, :]
    b_ptrs = B + ks[:, None].to(tl.int64) * N + b_cols[None, :]
    b_step = BLOCK_K * tl.cast(N, tl.int64)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        in_k = ks < K - k0
        if FOLD:
            a = tl.load(a_ptrs, mask=in_k[None, :], other=0.0)
            b = tl.load(b_ptrs, mask=in_k[:, None], other=0.0)
        else:
            a = tl.load(a_ptrs, mask=(rows[:, None] < M) & in_k[None, :], other=0.0)
            b = tl.load(b_ptrs, mask=in_k[:, None] & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K
        b_ptrs += b_step

    c_ptrs = C + rows[:, None].to(tl.int64) * N + cols[None, :]
    c_mask = (rows[:, None] < M) & (cols[None, :] < N)
    out = alpha * acc
    if beta != 0.0:
        out += beta * tl.load(c_ptrs, mask=c_mask, other=0.0)
    tl.store(c_ptrs, out, mask=c_mask)


def _config(bm: int, bn: int, bk: int, warps: int, stages: int, fold: bool = False) -> triton.Config:
    return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "FOLD": fold}, num_warps=warps,
                         num_stages=stages)


CONFIGS = [
    _config(64, 128, 64, 8, 3),
    _config(64, 128, 64, 8, 4),
    _config(64, 64, 64, 4, 3),
    _config(64, 64, 32, 4, 3),
    _config(64, 128, 32, 8, 3),
    _config(128, 128, 32, 16, 3),
    _config(128, 128, 32, 16, 4),
    _config(128, 128, 64, 16, 3),
]
# Triton's tutorial list, after the suite's own (the interpreter runs CONFIGS[0]); (bm, bn, bk, stages, warps) there.
_SEEN = {(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"], c.num_warps, c.num_stages) for c in CONFIGS}
CONFIGS += [_config(bm, bn, bk, warps, stages) for bm, bn, bk, stages, warps in TUTORIAL_TILES
            if (bm, bn, bk, warps, stages) not in _SEEN]
# The 2-stage tiles and the folded loads of the measured sweep (module docstring): the best of each at 8192^3.
CONFIGS += [
    _config(64, 64, 64, 4, 2),
    _config(64, 128, 32, 4, 2, fold=True),
    _config(64, 64, 64, 4, 3, fold=True),
    _config(64, 128, 64, 8, 3, fold=True),
    _config(64, 128, 32, 4, 4, fold=True),
]

sgemm_autotuned = triton.autotune(configs=CONFIGS, key=["M", "N", "K"], restore_value=["C"])(sgemm_autotuned_kernel)

KERNEL = sgemm_autotuned_kernel
SIGNATURE = {"A": "*fp32", "B": "*fp32", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32",
             "alpha": "fp32", "beta": "fp32"}


def _interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def constexprs(block_m: int, block_n: int, block_k: int, group_m: int = 8, fold: bool = False,
               **other: object) -> dict:
    """The constexpr arguments of one configuration (for an ahead-of-time compile of a chosen config)."""
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "GROUP_M": group_m, "FOLD": fold}


def chosen_config() -> dict | None:
    """The configuration the tuner chose on its latest tuning (None before the first GPU launch)."""
    best = getattr(sgemm_autotuned, "best_config", None)  # set by the first tuning
    if best is None:
        return None
    return {"block_m": best.kwargs["BLOCK_M"], "block_n": best.kwargs["BLOCK_N"], "block_k": best.kwargs["BLOCK_K"],
            "group_m": best.kwargs["GROUP_M"], "fold": bool(best.kwargs["FOLD"]), "num_warps": best.num_warps,
            "num_stages": best.num_stages}


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           block_m: int | None = None, block_n: int | None = None, block_k: int | None = None,
           num_warps: int | None = None, num_stages: int | None = None, tune: bool = True, **other: object):
    """Launch on row-major contiguous fp32 operands (checked by the caller); the tile is the tuner's choice, so the
    configuration keywords of the common interface are accepted and ignored (tune=False: the first configuration,
    untuned). Returns the compiled kernel."""
    M, K = A.shape
    N = B.shape[1]

    def grid(meta: dict) -> tuple[int]:
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    if _interpreting() or not tune:
        first = CONFIGS[0]
        return sgemm_autotuned_kernel[grid(first.kwargs)](A, B, C, M, N, K, alpha, beta, **first.kwargs)
    return sgemm_autotuned[grid](A, B, C, M, N, K, alpha, beta)


__all__ = ["CONFIGS", "KERNEL", "SIGNATURE", "chosen_config", "constexprs", "launch"]
