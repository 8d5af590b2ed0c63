"""The Triton baseline: Triton's tutorial 03 (matrix multiplication) as published, for the suite's fp32 operands in
each precision class, and the one variant the suite needs where the problem leaves the published kernel behind.

It is to the Triton rows what cuBLAS is to the CUDA rows: a yardstick, not a transcription of any seed kernel. A
yardstick is what it names, so wherever the problem allows the kernel does what the tutorial's does:

* grouped program order: programs are numbered so that GROUP_M tile-rows are walked down before moving one tile-column
  right, and the programs resident at one time share a few panels of A and B in L2;
* strides passed as arguments and offsets formed in 32 bits, as the tutorial forms them;
* rows and columns past the matrix edge folded back onto it (index mod M, mod N), so only K is masked, and a store
  masked on M and N that throws the folded outputs away;
* one ``tl.dot(a, b, acc, ...)`` per K step on pointer blocks advanced by BLOCK_K each step;
* C = A @ B, nothing else: no epilogue;
* the tutorial's autotune list for CUDA, all of it (the entries it gives for fp16 and fp32 operands and those it
  adds for fp8 inputs), keyed on M, N and K. A configuration whose stages do not fit the GPU's shared memory with fp32
  tiles cannot be loaded and the tuner passes over it, as it would for a user who runs the tutorial on fp32 operands.

What differs, and why. The operands are fp32 and so is C (the tutorial's are fp16); ``input_precision`` is the one
change to the dot, naming the precision class: "ieee" (exact fp32 FFMA), "tf32" (tensor cores, inputs cut to TF32) or
"tf32x3" (tensor cores, fp32-accurate split). The tuner's key also holds the class and the form below, so each is tuned
on its own (a tf32 winner says nothing of ieee).

Where the problem needs more than the published kernel, two switches (constexprs, so the published form compiles to the
tutorial's code and nothing else) turn on the variant, and the record says which ran (`FORMS`, `chosen_config`):

* WIDE_OFFSETS: an operand past 2^31 elements, or a K step of B past 2^31 elements: every offset is formed in 64 bits
  (a row or K index widened to int64 before it meets a stride);
* EPILOGUE: alpha != 1 or beta != 0: C = alpha * A @ B + beta * C with BLAS semantics (with beta == 0, C is not read);
  while tuning, C is restored after every timed configuration (``restore_value``), so a beta != 0 call is applied
  once. The published form has no such copy: it reads nothing it writes.

``chosen_config()`` and ``chosen_form()`` give the configuration and the form of the latest launch. A shape is tuned
once per class, in the form of its first launch: a run launches the problem it times first (alpha = 1, beta = 0: the
published form), so the numerics layers, whose alpha and beta call for the epilogue, run at the configuration the
tuner chose for the timed problem rather than tuning the epilogue form on a problem nobody times. Under
``TRITON_INTERPRET=1`` nothing can be timed: the tuner there holds one configuration (the smallest tile of the list, so
that a small odd problem still spans several programs and K steps), and the interpreter computes every
``input_precision`` in full fp32; a launch with ``tune=False`` (the tests' numerics on shapes no run times) runs that
configuration too.
"""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl


@triton.jit
def gemm_tutorial_kernel(A, B, C, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                         alpha, beta,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                         INPUT_PRECISION: tl.constexpr, WIDE_OFFSETS: tl.constexpr, EPILOGUE: tl.constexpr):
    """C = A @ B (EPILOGUE: alpha * A @ B + beta * C) for fp32 A (M x K), B (K x N), C (M x N), strides given."""
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    # A group is GROUP_M tile-rows wide (fewer in the last one); within it consecutive programs go down a column.
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    rows_in_group = tl.minimum(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (pid % per_group) % rows_in_group
    tile_n = (pid % per_group) // rows_in_group

    # Folded onto the matrix: every address the loop loads is inside A and B, whatever M and N are.
    rows = (tile_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    cols = (tile_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    ks = tl.arange(0, BLOCK_K)
    if WIDE_OFFSETS:  # a product of an index and a stride may pass 2^31: form it in 64 bits
        rows = rows.to(tl.int64)
        cols = cols.to(tl.int64)
        ks = ks.to(tl.int64)
        # tl.cast, not .to: a stride of 1 reaches the kernel as a specialised Python int, which has no .to
        stride_ak = tl.cast(stride_ak, tl.int64)
        stride_bk = tl.cast(stride_bk, tl.int64)
    a_ptrs = A + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_ptrs = B + ks[:, None] * stride_bk + cols[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for step in range(0, tl.cdiv(K, BLOCK_K)):
        # The last step may run past K: those columns of A and rows of B load as zeros and add nothing.
        left = K - step * BLOCK_K
        a = tl.load(a_ptrs, mask=ks[None, :] < left, other=0.0)
        b = tl.load(b_ptrs, mask=ks[:, None] < left, other=0.0)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    out_rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    out_cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if WIDE_OFFSETS:
        out_rows = out_rows.to(tl.int64)
        out_cols = out_cols.to(tl.int64)
    c_ptrs = C + out_rows[:, None] * stride_cm + out_cols[None, :] * stride_cn
    c_mask = (out_rows[:, None] < M) & (out_cols[None, :] < N)
    if EPILOGUE:
        acc = alpha * acc
        if beta != 0.0:
            acc += beta * tl.load(c_ptrs, mask=c_mask, other=0.0)
    tl.store(c_ptrs, acc, mask=c_mask)


def _config(bm: int, bn: int, bk: int, stages: int, warps: int) -> triton.Config:
    return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_stages=stages,
                         num_warps=warps)


# The tutorial's autotune list for CUDA, in its order: (BLOCK_M, BLOCK_N, BLOCK_K, stages, warps), all with GROUP_M = 8.
# It gives the first eight for fp16 and fp32 operands and adds eight "for fp8 inputs", and returns them all: the
# baseline tunes over both. Compiled for sm_90 (227 KB of shared memory) with fp32 tiles, those whose stages need more
# than that (the first with tf32 or tf32x3 inputs, most of the fp8 ones with any) fail to load and the tuner skips them.
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
TUTORIAL_FP8_TILES: tuple[tuple[int, int, int, int, int], ...] = (
    (128, 256, 128, 3, 8),
    (256, 128, 128, 3, 8),
    (256, 64, 128, 4, 4),
    (64, 256, 128, 4, 4),
    (128, 128, 128, 4, 4),
    (128, 64, 64, 4, 4),
    (64, 128, 64, 4, 4),
    (128, 32, 64, 4, 4),
)
PUBLISHED_TILES = (*TUTORIAL_TILES, *TUTORIAL_FP8_TILES)
CONFIGS = [_config(*tile) for tile in PUBLISHED_TILES]
# Under the interpreter: the smallest tile of the list, alone (nothing to time); the first of the smallest.
INTERPRETER_CONFIGS = [_config(*min(PUBLISHED_TILES, key=lambda t: (t[0] * t[1] * t[2], t[0])))]

# key: the shape, as the tutorial keys it, and what it compiles differently for: the class and the form.
_KEY = ["M", "N", "K", "INPUT_PRECISION", "WIDE_OFFSETS", "EPILOGUE"]
# The published form writes C and reads nothing it writes: no copy of C around each timed configuration.
gemm_tutorial_tuned = triton.autotune(configs=CONFIGS, key=_KEY)(gemm_tutorial_kernel)
gemm_tutorial_blas_tuned = triton.autotune(configs=CONFIGS, key=_KEY, restore_value=["C"])(gemm_tutorial_kernel)
_TUNERS = {False: gemm_tutorial_tuned, True: gemm_tutorial_blas_tuned}  # by EPILOGUE

KERNEL = gemm_tutorial_kernel
SIGNATURE = {"A": "*fp32", "B": "*fp32", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32", "stride_am": "i32",
             "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32", "stride_cm": "i32", "stride_cn": "i32",
             "alpha": "fp32", "beta": "fp32"}
INPUT_PRECISIONS = ("ieee", "tf32", "tf32x3")
# What the record calls each form: (WIDE_OFFSETS, EPILOGUE) -> its words.
FORMS: dict[tuple[bool, bool], str] = {
    (False, False): "as published",
    (True, False): "64-bit offsets",
    (False, True): "alpha/beta epilogue",
    (True, True): "64-bit offsets, alpha/beta epilogue",
}
_INT32_LIMIT = 2**31
_LARGEST_K_STEP = max(t[2] for t in PUBLISHED_TILES)

_last: list = [None, None]  # the configuration and the form of the latest launch
# The configuration tuned for each (M, N, K, input precision, wide offsets), in whichever form tuned it first
_tuned: dict[tuple, triton.Config] = {}


def _interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def needs_wide_offsets(M: int, N: int, K: int) -> bool:
    """Whether a 32-bit offset can overflow: an operand past 2^31 elements, or one K step of B (the pointer advance of
    the largest K step of the list, BLOCK_K rows of N) past 2^31."""
    return max(M * K, K * N, M * N, _LARGEST_K_STEP * N, _LARGEST_K_STEP) >= _INT32_LIMIT


def form_of(M: int, N: int, K: int, alpha: float, beta: float) -> tuple[bool, bool]:
    """(WIDE_OFFSETS, EPILOGUE) for a problem: the published form wherever the problem allows it."""
    return needs_wide_offsets(M, N, K), not (alpha == 1.0 and beta == 0.0)


def constexprs(block_m: int, block_n: int, block_k: int, *, group_m: int = 8, input_precision: str = "ieee",
               wide_offsets: bool = False, epilogue: bool = False) -> dict:
    """The constexpr arguments of one configuration (for an ahead-of-time compile); the published form by default."""
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "GROUP_M": group_m,
            "INPUT_PRECISION": input_precision, "WIDE_OFFSETS": wide_offsets, "EPILOGUE": epilogue}


def config_dict(config: triton.Config) -> dict:
    """A configuration in the suite's words: block_m, block_n, block_k, group_m, num_warps, num_stages."""
    kw = config.kwargs
    return {"block_m": kw["BLOCK_M"], "block_n": kw["BLOCK_N"], "block_k": kw["BLOCK_K"], "group_m": kw["GROUP_M"],
            "num_warps": config.num_warps, "num_stages": config.num_stages}


def chosen_config() -> dict | None:
    """The configuration the autotuner chose for the latest launch's problem (None before any launch)."""
    return config_dict(_last[0]) if _last[0] is not None else None


def chosen_form() -> str | None:
    """The form of the latest launch, in `FORMS`' words ("as published", ...); None before any launch."""
    return _last[1]


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           input_precision: str = "ieee", tune: bool = True):
    """Launch on fp32 operands (checked by the caller) in the published form wherever the problem allows. The first
    launch of each shape and class tunes (on a GPU); later ones, in either form, run its winner. tune=False runs the
    interpreter's configuration, untuned. Returns the compiled kernel."""
    if input_precision not in INPUT_PRECISIONS:
        raise ValueError(f"input_precision {input_precision!r}: expected one of {', '.join(INPUT_PRECISIONS)}")
    M, K = A.shape
    N = B.shape[1]
    wide, epilogue = form_of(M, N, K, float(alpha), float(beta))

    def grid(meta: dict) -> tuple[int]:
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    args = (A, B, C, M, N, K, A.stride(0), A.stride(1), B.stride(0), B.stride(1), C.stride(0), C.stride(1), alpha, beta)
    shape = (M, N, K, input_precision, wide)
    config = INTERPRETER_CONFIGS[0] if _interpreting() or not tune else _tuned.get(shape)
    if config is None:
        tuner = _TUNERS[epilogue]
        handle = tuner[grid](*args, INPUT_PRECISION=input_precision, WIDE_OFFSETS=wide, EPILOGUE=epilogue)
        config = getattr(tuner, "best_config", None)  # none where nothing was timed (a compile-only launch)
        if config is not None:
            _tuned[shape] = config
    else:
        handle = gemm_tutorial_kernel[grid(config.kwargs)](*args, INPUT_PRECISION=input_precision, WIDE_OFFSETS=wide,
                                                           EPILOGUE=epilogue, **config.all_kwargs())
    _last[0], _last[1] = config, FORMS[(wide, epilogue)]
    return handle


__all__ = ["CONFIGS", "FORMS", "INPUT_PRECISIONS", "INTERPRETER_CONFIGS", "KERNEL", "PUBLISHED_TILES", "SIGNATURE",
           "TUTORIAL_FP8_TILES", "TUTORIAL_TILES", "chosen_config", "chosen_form", "config_dict", "constexprs",
           "form_of", "launch", "needs_wide_offsets"]
