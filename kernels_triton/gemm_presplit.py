"""Persistent Hopper 3xTF32 GEMM on operands split once, before the product: tf32x3 written by hand.

The Triton side of rosetta.wgmma_3xtf32_rs, deliberately different in where the split happens. tl.dot's
input_precision="tf32x3" splits every tile each time a program loads it (M / BLOCK_M times per element of B, N /
BLOCK_N per element of A) and writes B's parts back to shared memory in every K step; here a pre-pass splits each
element once into two fp32 arrays per operand, big = x rounded to the nearest tf32 (ties away from zero, as
tf32x3's cvt.rna.tf32.f32) and small = x - big (exact), and the GEMM loads the four parts through TMA and issues
three TF32 dots per K step from shared memory: small·big and big·small, then big·big, summed from zero on the
tensor core and added to the accumulator in fp32, as tf32x3 does. The price: four operand-sized arrays and the
pre-pass's traffic (read A and B once, write them twice), inside the timed launch.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kernels_triton.gemm_hopper import _scratch_on, _tile_coords, stages_for

_SPLIT_BLOCK = 4096


@triton.jit
def split_kernel(X, BIG, SMALL, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask)
    # round to nearest tf32, ties away from zero, on the bit pattern: what cvt.rna.tf32.f32 does to a finite x,
    # written so that the interpreter (the CPU tier) runs it too
    big = ((x.to(tl.uint32, bitcast=True) + 0x1000) & 0xFFFFE000).to(tl.float32, bitcast=True)
    small = x - big
    # an infinite x leaves inf - inf: its remainder is 0, as tf32x3's guard makes the partial sum's NaN 0
    small = tl.where(small == small, small, 0.0)
    tl.store(BIG + offs, big, mask=mask)
    tl.store(SMALL + offs, small, mask=mask)


@triton.jit
def gemm_presplit_kernel(A_BIG, A_SMALL, B_BIG, B_SMALL, C, M, N, K, alpha, beta,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                         NUM_SMS: tl.constexpr, WARP_SPECIALIZE: tl.constexpr, BETA_ZERO: tl.constexpr,
                         USE_TMA: tl.constexpr):
    # USE_TMA: tensor descriptors where every row stride is 16-byte aligned (K % 4 == 0); otherwise masked pointer
    # loads, so that any M, N, K runs (the descriptors' hardware rule, as in gemm_hopper)
    if USE_TMA:
        a_big = tl.make_tensor_descriptor(A_BIG, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
        a_small = tl.make_tensor_descriptor(A_SMALL, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
        b_big = tl.make_tensor_descriptor(B_BIG, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
        b_small = tl.make_tensor_descriptor(B_SMALL, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    for tile_id in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS, warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _tile_coords(tile_id, num_pid_m, num_pid_n, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        rm = (off_m + tl.arange(0, BLOCK_M)).to(tl.int64)
        rn = (off_n + tl.arange(0, BLOCK_N)).to(tl.int64)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(tl.cdiv(K, BLOCK_K)):
            if USE_TMA:
                a_b = a_big.load([off_m, ki * BLOCK_K])
                a_s = a_small.load([off_m, ki * BLOCK_K])
                b_b = b_big.load([off_n, ki * BLOCK_K]).T
                b_s = b_small.load([off_n, ki * BLOCK_K]).T
            else:
                kk = ki * BLOCK_K + tl.arange(0, BLOCK_K)
                a_at = rm[:, None] * K + kk[None, :]
                a_in = (rm[:, None] < M) & (kk[None, :] < K)
                b_at = rn[:, None] * K + kk[None, :]
                b_in = (rn[:, None] < N) & (kk[None, :] < K)
                a_b = tl.load(A_BIG + a_at, mask=a_in, other=0.0)
                a_s = tl.load(A_SMALL + a_at, mask=a_in, other=0.0)
                b_b = tl.load(B_BIG + b_at, mask=b_in, other=0.0).T
                b_s = tl.load(B_SMALL + b_at, mask=b_in, other=0.0).T
            # the tensor core's own accumulation truncates: each K step is summed from zero and added in fp32
            part = tl.dot(a_s, b_b, input_precision="tf32")
            part = tl.dot(a_b, b_s, part, input_precision="tf32")
            part = tl.dot(a_b, b_b, part, input_precision="tf32")
            acc += part
        # stored from registers (no shared staging buffer: the four parts' stages take the shared memory)
        c_ptr = C + rm[:, None] * N + rn[None, :]
        c_in = (rm[:, None] < M) & (rn[None, :] < N)
        out = acc * alpha
        if not BETA_ZERO:  # beta == 0 never reads C
            out += beta * tl.load(c_ptr, mask=c_in, other=0.0)
        tl.store(c_ptr, out, mask=c_in)


KERNEL = gemm_presplit_kernel
# the GEMM's arguments: the four parts (B's as Bt = B^T, N x K row-major), C and the sizes
SIGNATURE = {"A_BIG": "*fp32", "A_SMALL": "*fp32", "B_BIG": "*fp32", "B_SMALL": "*fp32", "C": "*fp32", "M": "i32",
             "N": "i32", "K": "i32", "alpha": "fp32", "beta": "fp32"}


def constexprs(block_m: int, block_n: int, block_k: int, *, group_m: int = 8, num_sms: int = 132,
               warp_specialize: bool = True, beta_zero: bool = True, use_tma: bool = True) -> dict:
    """The GEMM's constexpr arguments; num_sms is the persistent grid's size."""
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "GROUP_M": group_m, "NUM_SMS": num_sms,
            "WARP_SPECIALIZE": warp_specialize, "BETA_ZERO": beta_zero, "USE_TMA": use_tma}


def _split(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    big, small = torch.empty_like(x), torch.empty_like(x)
    n = x.numel()
    split_kernel[(triton.cdiv(n, _SPLIT_BLOCK),)](x, big, small, n, BLOCK=_SPLIT_BLOCK)
    return big, small


def launch(A: torch.Tensor, Bt: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           block_m: int = 128, block_n: int = 128, block_k: int = 32, group_m: int = 8, num_warps: int = 8,
           num_stages: int = 3, warp_specialize: bool = True, input_precision: str = "tf32x3",
           num_sms: int | None = None):
    """C = alpha * A @ Bt.T + beta * C: the pre-pass on A and Bt, then the GEMM on a persistent grid of min(SMs,
    tiles) programs. Returns the GEMM's handle."""
    if input_precision != "tf32x3":  # the split written here is tf32x3's, and only that
        raise ValueError(f"gemm_presplit computes tf32x3, not {input_precision!r}")
    triton.set_allocator(_scratch_on(A.device))
    M, K = A.shape
    N = Bt.shape[0]
    if num_sms is None:  # the interpreter (CPU tier) has no SMs: a few programs still walk several tiles each
        on_gpu = A.device.type == "cuda"
        num_sms = torch.cuda.get_device_properties(A.device).multi_processor_count if on_gpu else 4
    (a_big, a_small), (b_big, b_small) = _split(A), _split(Bt)
    grid = (min(num_sms, triton.cdiv(M, block_m) * triton.cdiv(N, block_n)),)
    # the parts are fresh, so 16-byte aligned: only K decides (Bt's row stride; N for C is stored by pointer)
    consts = constexprs(block_m, block_n, block_k, group_m=group_m, num_sms=grid[0], warp_specialize=warp_specialize,
                        beta_zero=beta == 0.0, use_tma=K % 4 == 0)
    return gemm_presplit_kernel[grid](a_big, a_small, b_big, b_small, C, M, N, K, alpha, beta, **consts,
                                     num_warps=num_warps, num_stages=stages_for(K, block_k, num_stages))
