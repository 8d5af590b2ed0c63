"""Autotuned ceiling of the tensor-core counterpart: gemm_tc's kernel, with the tile chosen by timing.

gemm_tc is launched with the CUDA kernel's own tile so that the comparison is like for like; this module asks what
the same Triton source reaches when the tile, K step, warps, pipeline depth and program grouping are free. The
search space is a handful of Hopper-sized tiles (cold tuning at 4096^3 stays within seconds: each configuration
is one compilation and a short benchmark); the autotuner keys on the shape, the B layout and the input precision,
so TF32 and 3xTF32, row-major and K-major B are tuned separately. ``chosen_config()`` reports the winner of the
latest launch. The tuner times with a warm L2 and few repetitions, so its winner is not always the fastest under the
harness's cold-L2 timer (for TF32 with K-major B it has picked 4 stages where 3 ran faster cold). Under the CPU
interpreter nothing can be timed, so the first configuration is launched untuned.
"""

from __future__ import annotations

import os

import torch
import triton

from kernels_triton.gemm_tc import SIGNATURE, constexprs, gemm_tc_kernel

# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages). Shared memory per stage is (BLOCK_M + BLOCK_N) * BLOCK_K * 4
# bytes; every entry fits Hopper's 227 KB with its stages (a configuration that does not is skipped by the tuner).
_TILES: tuple[tuple[int, int, int, int, int], ...] = (
    (128, 256, 32, 8, 3),
    (128, 256, 32, 8, 4),
    (256, 128, 32, 8, 3),
    (128, 128, 32, 8, 4),
    (128, 128, 32, 8, 5),
    (128, 128, 64, 8, 3),
    (128, 256, 64, 8, 2),
    (128, 64, 64, 4, 4),
)
GROUP_M = 8

CONFIGS = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": GROUP_M}, num_warps=w,
                         num_stages=s) for bm, bn, bk, w, s in _TILES]

# restore_value: with beta != 0 every timed configuration would otherwise accumulate into C again.
gemm_tc_tuned = triton.autotune(configs=CONFIGS, key=["M", "N", "K", "B_KMAJOR", "INPUT_PRECISION"],
                                restore_value=["C"])(gemm_tc_kernel)

KERNEL = gemm_tc_kernel
PLAIN = "gemm_tc"  # the form that launches this kernel at one configuration (forms.TunedAroundForm)
__all__ = ["CONFIGS", "KERNEL", "PLAIN", "SIGNATURE", "chosen_config", "constexprs", "launch"]


def _interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           b_kmajor: bool = False, input_precision: str = "tf32", tune: bool = True, **ignored):
    """Start the autotuned kernel (B is Bt, N x K, when b_kmajor). Tile arguments are ignored: the tuner picks
    (tune=False: the first configuration, untuned). Returns the compiled handle."""
    M, K = A.shape
    N = C.shape[1]
    if _interpreting() or not tune:
        bm, bn, bk, w, s = _TILES[0]
        grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
        return gemm_tc_kernel[grid](A, B, C, M, N, K, alpha, beta, num_warps=w, num_stages=s,
                                    **constexprs(bm, bn, bk, group_m=GROUP_M, b_kmajor=b_kmajor,
                                                 input_precision=input_precision))

    def grid(meta: dict) -> tuple[int]:
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    return gemm_tc_tuned[grid](A, B, C, M, N, K, alpha, beta, B_KMAJOR=b_kmajor, INPUT_PRECISION=input_precision)


def chosen_config() -> dict | None:
    """The configuration the tuner chose for the latest launch (None before any tuned launch)."""
    best = getattr(gemm_tc_tuned, "best_config", None)
    if best is None:
        return None
    kw = best.kwargs
    return {"block_m": kw["BLOCK_M"], "block_n": kw["BLOCK_N"], "block_k": kw["BLOCK_K"], "group_m": kw["GROUP_M"],
            "num_warps": best.num_warps, "num_stages": best.num_stages}
