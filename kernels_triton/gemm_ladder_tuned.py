"""The ladder's ``tl.dot`` kernel tuned around one rung: the rung's tile kept, warps and pipeline depth timed.

gemm_ladder is launched with a CUDA rung's exact settings, so that it asks "what does Triton make of this decision";
this module asks "what does Triton make of this tile". The tile (``BLOCK_M`` x ``BLOCK_N`` x ``BLOCK_K``) and the
program order (``GROUP_M``) stay the rung's; ``@triton.autotune`` times every pairing of

* ``num_warps``: the rung's (CUDA threads / 32) and twice that (at most 16): the same tile over more threads, half the
  accumulators each;
* ``num_stages``: 1 (load, then compute) to 4 (the compiler pipelines the K loop three tiles ahead),

eight configurations at most, the rung's own among them, tuned on the first call for each (M, N, K). A rung whose
Triton row is slow at its own settings but fast here is held back by a setting Triton exposes; one slow at every
setting has a tile Triton does not do well with. ``chosen_config()`` reports the winner of the latest launch.

Under ``TRITON_INTERPRET=1`` nothing can be timed: ``launch`` runs the kernel once with the rung's own settings, so
the code path (masks, 64-bit offsets) is still checked on small odd shapes.

BLAS semantics: with beta == 0, C is not read. While tuning, C is restored after every timed run (``restore_value``),
so a beta != 0 call is applied once.
"""

from __future__ import annotations

import os

import torch
import triton

from kernels_triton.gemm_ladder import SIGNATURE, constexprs, sgemm_ladder_kernel

KERNEL = sgemm_ladder_kernel
PLAIN = "gemm_ladder"  # the form that launches this kernel at one configuration (forms.TunedAroundForm)
STAGES = (1, 2, 3, 4)
MAX_WARPS = 16  # a program of 512 threads: the largest tried
CONFIGS_MAX = 2 * len(STAGES)  # warps x1 and x2, each stage count

_tuners: dict[tuple[int, ...], object] = {}  # one autotuner per search space
_latest: list[object] = []  # the tuner of the latest launch, for chosen_config()


def configs(block_m: int, block_n: int, block_k: int, num_warps: int, group_m: int = 1) -> list[triton.Config]:
    """The search space around one rung: its tile and order, warps x1 and x2, stages 1 to 4."""
    warps = sorted({num_warps, min(2 * num_warps, MAX_WARPS)})
    return [triton.Config(constexprs(block_m, block_n, block_k, group_m), num_warps=w, num_stages=s)
            for w in warps for s in STAGES]


def _tuner(block_m: int, block_n: int, block_k: int, num_warps: int, group_m: int) -> object:
    key = (block_m, block_n, block_k, num_warps, group_m)
    if key not in _tuners:
        # restore_value: with beta != 0 every timed configuration would otherwise accumulate into C again.
        _tuners[key] = triton.autotune(configs=configs(*key), key=["M", "N", "K"],
                                       restore_value=["C"])(sgemm_ladder_kernel)
    return _tuners[key]


def _interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def chosen_config() -> dict | None:
    """The configuration the tuner chose for the latest launch (None before any tuned launch)."""
    best = getattr(_latest[-1], "best_config", None) if _latest else None
    if best is None:
        return None
    kw = best.kwargs
    return {"block_m": kw["BLOCK_M"], "block_n": kw["BLOCK_N"], "block_k": kw["BLOCK_K"], "group_m": kw["GROUP_M"],
            "num_warps": best.num_warps, "num_stages": best.num_stages}


def launch(A: torch.Tensor, B: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           block_m: int, block_n: int, block_k: int, num_warps: int, num_stages: int, group_m: int = 1,
           tune: bool = True, **other: object):
    """Launch on row-major contiguous fp32 operands (checked by the caller). The rung's settings name the search
    space; num_stages is the rung's and is used only untuned (under the interpreter, or tune=False). Returns the
    compiled kernel."""
    M, K = A.shape
    N = B.shape[1]
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n),)
    if _interpreting() or not tune:
        return sgemm_ladder_kernel[grid](A, B, C, M, N, K, alpha, beta, num_warps=num_warps, num_stages=num_stages,
                                         **constexprs(block_m, block_n, block_k, group_m))
    tuner = _tuner(block_m, block_n, block_k, num_warps, group_m)
    _latest[:] = [tuner]
    return tuner[grid](A, B, C, M, N, K, alpha, beta)


__all__ = ["CONFIGS_MAX", "KERNEL", "PLAIN", "SIGNATURE", "STAGES", "chosen_config", "configs", "constexprs", "launch"]
