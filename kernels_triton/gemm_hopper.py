"""Persistent Hopper GEMM: device-side TMA descriptors, grouped tile order, optional warp specialisation.

The Triton side of the rosetta.wgmma_* ladder. B is given K-major (Bt = B^T, N x K row-major), the layout TF32
wgmma needs for both operands; each program walks tiles pid, pid + NUM_SMS, ... like the CUDA persistent rung.
Tensor descriptors made on the device (tl.make_tensor_descriptor) need a global scratch allocator, installed by
launch() through triton.set_allocator.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _tile_coords(tile_id, num_pid_m, num_pid_n, GROUP_M: tl.constexpr):
    # grouped order: GROUP_M tile rows are walked before moving right, as the CUDA kernels do
    per_group = GROUP_M * num_pid_n
    first_m = (tile_id // per_group) * GROUP_M
    rows = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (tile_id % per_group) % rows
    pid_n = (tile_id % per_group) // rows
    return pid_m, pid_n


@triton.jit
def gemm_hopper_kernel(A, B, C, M, N, K, alpha, beta,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                       NUM_SMS: tl.constexpr, WARP_SPECIALIZE: tl.constexpr, BETA_ZERO: tl.constexpr,
                       INPUT_PRECISION: tl.constexpr, EPILOGUE_SPLIT: tl.constexpr, USE_TMA: tl.constexpr):
    # USE_TMA: tensor descriptors (the copy engine) where every row stride and base is 16-byte aligned; otherwise
    # masked pointer loads and stores, so that any M, N, K runs (the descriptors' hardware rule, not a choice)
    # EPILOGUE_SPLIT stores C in two BLOCK_N / 2 halves, which halves the epilogue's shared-memory staging buffer
    # and leaves room for a 128 x 256 tile's pipeline stages
    C_N: tl.constexpr = BLOCK_N // 2 if EPILOGUE_SPLIT else BLOCK_N
    if USE_TMA:
        a_desc = tl.make_tensor_descriptor(A, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
        b_desc = tl.make_tensor_descriptor(B, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
        c_desc = tl.make_tensor_descriptor(C, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, C_N])
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    for tile_id in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS, warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _tile_coords(tile_id, num_pid_m, num_pid_n, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        if USE_TMA:
            for ki in range(k_tiles):
                a = a_desc.load([off_m, ki * BLOCK_K])
                b = b_desc.load([off_n, ki * BLOCK_K])
                acc = tl.dot(a, b.T, acc, input_precision=INPUT_PRECISION)
            out = acc * alpha
            if EPILOGUE_SPLIT:
                lo, hi = tl.split(tl.permute(tl.reshape(out, (BLOCK_M, 2, C_N)), (0, 2, 1)))
                if not BETA_ZERO:  # beta == 0 never reads C
                    lo += beta * c_desc.load([off_m, off_n])
                    hi += beta * c_desc.load([off_m, off_n + C_N])
                c_desc.store([off_m, off_n], lo)
                c_desc.store([off_m, off_n + C_N], hi)
            else:
                if not BETA_ZERO:
                    out += beta * c_desc.load([off_m, off_n])
                c_desc.store([off_m, off_n], out)
        else:
            rm = (off_m + tl.arange(0, BLOCK_M)).to(tl.int64)
            rn = (off_n + tl.arange(0, BLOCK_N)).to(tl.int64)
            rk = tl.arange(0, BLOCK_K)
            for ki in range(k_tiles):
                kk = ki * BLOCK_K + rk
                a = tl.load(A + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
                b = tl.load(B + rn[:, None] * K + kk[None, :], mask=(rn[:, None] < N) & (kk[None, :] < K), other=0.0)
                acc = tl.dot(a, b.T, acc, input_precision=INPUT_PRECISION)
            out = acc * alpha
            c_ptr = C + rm[:, None] * N + rn[None, :]
            c_mask = (rm[:, None] < M) & (rn[None, :] < N)
            if not BETA_ZERO:
                out += beta * tl.load(c_ptr, mask=c_mask, other=0.0)
            tl.store(c_ptr, out, mask=c_mask)


KERNEL = gemm_hopper_kernel
# B is Bt = B^T (N x K row-major): the kernel's B pointer reads the K-major operand.
SIGNATURE = {"A": "*fp32", "B": "*fp32", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32", "alpha": "fp32",
             "beta": "fp32"}


def constexprs(block_m: int, block_n: int, block_k: int, *, group_m: int = 8, num_sms: int = 132,
               warp_specialize: bool = True, beta_zero: bool = True, input_precision: str = "tf32",
               epilogue_split: bool = False, use_tma: bool = True) -> dict:
    """The kernel's constexpr arguments (for ahead-of-time compilation and for launch); num_sms is the persistent
    grid's size (132 on an H100 SXM, the device's count at launch)."""
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k, "GROUP_M": group_m, "NUM_SMS": num_sms,
            "WARP_SPECIALIZE": warp_specialize, "BETA_ZERO": beta_zero, "INPUT_PRECISION": input_precision,
            "EPILOGUE_SPLIT": epilogue_split, "USE_TMA": use_tma}


def stages_for(K: int, block_k: int, num_stages: int) -> int:
    """The pipeline depth a launch asks for: one stage where the problem has a single K step.

    With one K step there is nothing to overlap along K, and where K == 1 Triton specialises it to a constant, drops
    the K loop and pipelines the tile loop instead, keeping every stage's buffers alive through the epilogue's layout
    conversion: sgemm 1x1x1 at 128 x 256 tiles and 3 stages asked for 278528 bytes of shared memory (Triton 3.6 and
    3.9 alike), past an H100's 232448, and failed at launch.
    """
    return 1 if triton.cdiv(K, block_k) == 1 else num_stages


def _scratch_on(device: torch.device):
    def scratch(size: int, alignment: int, stream: int | None) -> torch.Tensor:
        return torch.empty(size, dtype=torch.int8, device=device)
    return scratch


def launch(A: torch.Tensor, Bt: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0, *,
           block_m: int = 128, block_n: int = 128, block_k: int = 32, group_m: int = 8, num_warps: int = 8,
           num_stages: int = 4, warp_specialize: bool = True, input_precision: str = "tf32",
           epilogue_split: bool = False, num_sms: int | None = None):
    """C = alpha * A @ Bt.T + beta * C on a persistent grid of min(SMs, tiles) programs. Returns the handle."""
    triton.set_allocator(_scratch_on(A.device))
    M, K = A.shape
    N = Bt.shape[0]
    if num_sms is None:  # the interpreter (CPU tier) has no SMs: a few programs still walk several tiles each
        on_gpu = A.device.type == "cuda"
        num_sms = torch.cuda.get_device_properties(A.device).multi_processor_count if on_gpu else 4
    sms = num_sms
    tiles = triton.cdiv(M, block_m) * triton.cdiv(N, block_n)
    grid = (min(sms, tiles),)
    use_tma = K % 4 == 0 and N % 4 == 0 and all(t.data_ptr() % 16 == 0 for t in (A, Bt, C))
    consts = constexprs(block_m, block_n, block_k, group_m=group_m, num_sms=grid[0], warp_specialize=warp_specialize,
                        beta_zero=beta == 0.0, input_precision=input_precision, epilogue_split=epilogue_split,
                        use_tma=use_tma)
    return gemm_hopper_kernel[grid](A, Bt, C, M, N, K, alpha, beta, **consts, num_warps=num_warps,
                                   num_stages=stages_for(K, block_k, num_stages))
