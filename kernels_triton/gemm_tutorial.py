"""The Triton baseline: the GEMM a Triton user writes first, in the manner of Triton's tutorial 03 (matrix
multiplication), for the suite's fp32 operands in each precision class.

It is to the Triton rows what cuBLAS is to the CUDA rows: a yardstick, not a transcription of any seed kernel. What it
takes from the tutorial:

* grouped program order: the programs are numbered so that GROUP_M tile-rows are walked down before moving one
  tile-column right, and the programs resident at one time share a few panels of A and B in L2;
* one ``tl.dot(a, b, acc, input_precision=...)`` per K step, on pointer blocks advanced by BLOCK_K each step;
* masks on K only: rows and columns past the matrix edge are folded back onto it (index mod M, mod N), so the loads
  stay in bounds without a mask on M or N and the folded rows compute values that the masked store throws away;
* the tutorial's autotune list for CUDA (the configurations it gives for fp16 and fp32 operands; those it adds for
  fp8 are left out), keyed on M, N and K, and here also on the input precision, so each class is tuned on its own.

What the suite adds: C = alpha * A @ B + beta * C with BLAS semantics (with beta == 0, C is not read), B row-major
K x N as the suite passes it, fp32 operands throughout, and offsets formed in 64 bits (a row or K index is widened to
int64 before it meets a row stride), so any one operand may pass 2^31 elements. ``input_precision`` is "ieee" (exact
fp32 FFMA), "tf32" (tensor cores, inputs cut to TF32) or "tf32x3" (tensor cores, fp32-accurate split).

While tuning, C is restored after every timed configuration (``restore_value``), so a beta != 0 call is applied once.
``chosen_config()`` gives the configuration used by the latest launch. Under ``TRITON_INTERPRET=1`` nothing can be
timed: the autotuner there holds one configuration (the smallest tile of the list, so that a small odd problem still
spans several programs and K steps), and the interpreter computes every ``input_precision`` in full fp32.
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl


@triton.jit
def gemm_tutorial_kernel(A, B, C, M, N, K, alpha, beta,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                         INPUT_PRECISION: tl.constexpr):
    """C = alpha * A @ B + beta * C for row-major fp32 A (M x K), B (K x N), C (M x N)."""
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    # A group is GROUP_M tile-rows wide (fewer in the last one); within it consecutive programs go down a column.
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    rows_in_group = tl.minimum(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (pid % per_group) % rows_in_group
    tile_n = (pid % per_group) // rows_in_group

    offs_m = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    # Folded onto the matrix: every address the loop loads is inside A and B, whatever M and N are.
    a_rows = (offs_m % M).to(tl.int64)
    b_cols = offs_n % N
    a_ptrs = A + a_rows[:, None] * K + offs_k[None, :]
    b_ptrs = B + offs_k[:, None].to(tl.int64) * N + b_cols[None, :]
    b_step = BLOCK_K * tl.cast(N, tl.int64)  # BLOCK_K rows of B: past 2^31 elements when N is large

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        # The last step may run past K: those columns of A and rows of B load as zeros and add nothing.
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k0, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k0, other=0.0)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)
        a_ptrs += BLOCK_K
        b_ptrs += b_step

    c_ptrs = C + offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    out = alpha * acc
    if beta != 0.0:
        out += beta * tl.load(c_ptrs, mask=c_mask, other=0.0)
    tl.store(c_ptrs, out, mask=c_mask)


def _config(bm: int, bn: int, bk: int, stages: int, warps: int) -> triton.Config:
    return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_stages=stages,
                         num_warps=warps)


# The tutorial's CUDA list for fp16 and fp32 operands, in its order: (BLOCK_M, BLOCK_N, BLOCK_K, stages, warps), all
# with GROUP_M = 8. A configuration whose stages do not fit the GPU's shared memory with fp32 tiles cannot be loaded,
# and the tuner skips it, as it would for a user who runs the tutorial on fp32 operands. Compiled for sm_90 (227 KB):
# with ieee every entry fits (48 to 192 KB); the first needs 288 KB with tf32 and 320 KB with tf32x3.
TUTORIAL_TILES: tuple[tuple[int, int, int, int, int], ...] = (
    (128, 256, 64, 3, 8),
    (64, 256, 32, 4, 4),
    (128, 128, 32, 4, 4),
    (128, 64, 32, 4, 4),
    (64, 128, 32, 4, 4),
    (128, 32, 32, 4, 4),
    (64, 32, 32, 5, 2),
    (32, 64, 32, 5, 2),
)
CONFIGS = [_config(*tile) for tile in TUTORIAL_TILES]
# Under the interpreter: the smallest tile of the list, alone (nothing to time).
INTERPRETER_CONFIGS = [_config(*TUTORIAL_TILES[-1])]

# key: the shape, as the tutorial keys it, and the input precision (a tf32 winner says nothing of ieee).
_KEY = ["M", "N", "K", "INPUT_PRECISION"]
gemm_tutorial_tuned = triton.autotune(configs=CONFIGS, key=_KEY, restore_value=["C"])(gemm_tutorial_kernel)
gemm_tutorial_interpreted = triton.autotune(configs=INTERPRETER_CONFIGS, key=_KEY,
                                            restore_value=["C"])(gemm_tutorial_kernel)

KERNEL = gemm_tutorial_kernel
SIGNATURE = {"A": "*fp32", "B": "*fp32", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32", "alpha": "fp32",
             "beta": "fp32"}
INPUT_PRECISIONS = ("ieee", "tf32", "tf32x3")

_last: list[triton.Config | None] = [None]  # the configuration of the latest launch


def _interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def constexprs(block_m: int, block_n: int, block_k: int, *, group_m: int = 8, input_precision: str = "ieee") -> dict:
    """The constexpr arguments of one configuration (for an ahead-of-time compile)."""
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "GROUP_M": group_m,
            "INPUT_PRECISION": input_precision}


def config_dict(config: triton.Config) -> dict:
    """A configuration in the suite's words: block_m, block_n, block_k, group_m, num_warps, num_stages."""
    kw = config.kwargs
    return {"block_m": kw["BLOCK_M"], "block_n": kw["BLOCK_N"], "block_k": kw["BLOCK_K"], "group_m": kw["GROUP_M"],
            "num_warps": config.num_warps, "num_stages": config.num_stages}


def chosen_config() -> dict | None:
    """The configuration the autotuner chose for the latest launch's problem (None before any launch)."""
    return config_dict(_last[0]) if _last[0] is not None else None


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           input_precision: str = "ieee"):
    """Launch on row-major contiguous fp32 operands (checked by the caller). The first launch of each problem and
    input precision tunes (on a GPU); later ones reuse the winner. Returns the compiled kernel."""
    if input_precision not in INPUT_PRECISIONS:
        raise ValueError(f"input_precision {input_precision!r}: expected one of {', '.join(INPUT_PRECISIONS)}")
    M, K = A.shape
    N = B.shape[1]

    def grid(meta: dict) -> tuple[int]:
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    tuner = gemm_tutorial_interpreted if _interpreting() else gemm_tutorial_tuned
    handle = tuner[grid](A, B, C, M, N, K, alpha, beta, INPUT_PRECISION=input_precision)
    _last[0] = getattr(tuner, "best_config", None)
    return handle


__all__ = ["CONFIGS", "INPUT_PRECISIONS", "INTERPRETER_CONFIGS", "KERNEL", "SIGNATURE", "TUTORIAL_TILES",
           "chosen_config", "config_dict", "constexprs", "launch"]
