"""rosetta.wgmma_smem and rosetta.wgmma_tma in Gluon: Hopper's wgmma reading both operands from 128-byte swizzled
shared memory, fed by cp.async from every thread (COPY = "cp.async") or by the copy engine (COPY = "tma").

The CUDA kernels' decisions (kernels_cuda/rosetta_wgmma_smem.cu, rosetta_wgmma_tma.cu), each written here:
- a 128 x 128 tile of C per block of two warpgroups, warpgroup w owning rows 64 w .. 64 w + 63 and all 128 columns:
  the accumulator's NVMMADistributedLayout (version 3, warps [8, 1], instruction m64n128k8): 64 floats per thread;
- K tiles of 32 floats in STAGES stages of the 128-byte swizzled layout (NVMMASharedLayout(128)), STAGES - 1 tiles
  in flight, each K tile's four m64n128k8 issued back to back (warpgroup_mma over K = 32) and waited on (wait 0)
  before the stage is reused;
- COPY = "cp.async": 16-byte cp.async by all 256 threads, a fence for the async proxy (wgmma reads through it) and
  the block barrier; COPY = "tma": one thread's tensor copies per operand and stage completing on mbarriers
  (expect_tx, wait on the phase parity), the block barrier per K tile;
- grouped tile order (GROUP tile rows); 64-bit row offsets in the epilogue.

What differs, and why: with TMA, Gluon's compiler treats every mbarrier operation as a write to the barrier's
shared memory and puts a block barrier between two of them on one allocation (each stage's expect and copy would
take two more per K tile); A and Bt complete on two barriers of their own, so their expects go together and a K
tile costs one barrier more than the CUDA kernel's, not two. Nothing here checks its operands: the harness binds once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import triton

from kernels_gluon.compat import async_copy, barrier, cp_async_load, gl, gluon, hopper, mbarrier, tma_load
from kernels_gluon.wgmma_common import BK, descriptor, store_tile, tile_of, tma_signature

if TYPE_CHECKING:
    import torch


@gluon.jit
def _tile_coords(M, N, BM: gl.constexpr, BN: gl.constexpr, GROUP: gl.constexpr):
    pm, pn = tile_of(gl.program_id(0), gl.cdiv(M, BM), gl.cdiv(N, BN), GROUP)
    return pm * BM, pn * BN


@gluon.jit
def wgmma_tma_kernel(a_desc, b_desc, C, M, N, K, alpha, beta, STAGES: gl.constexpr, GROUP: gl.constexpr):
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    KB: gl.constexpr = a_desc.block_type.shape[1]
    ACC: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[gl.num_warps(), 1],
                                                  instr_shape=[16, BN, 8])
    off_m, off_n = _tile_coords(M, N, BM, BN, GROUP)
    a_s = gl.allocate_shared_memory(gl.float32, [STAGES, BM, KB], a_desc.layout)
    b_s = gl.allocate_shared_memory(gl.float32, [STAGES, BN, KB], b_desc.layout)
    # a stage's A and Bt land on barriers of their own (see the module's docstring)
    a_full = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    b_full = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for p in gl.static_range(STAGES):
        mbarrier.init(a_full.index(p), count=1)
        mbarrier.init(b_full.index(p), count=1)
    # the barriers' initialisation made visible to the copy engine before its first copy (the CUDA rungs:
    # fence.mbarrier_init)
    hopper.fence_async_shared()
    ktiles = K // KB
    for p in gl.static_range(STAGES - 1):
        mbarrier.expect(a_full.index(p), BM * KB * 4, pred=p < ktiles)
        mbarrier.expect(b_full.index(p), BN * KB * 4, pred=p < ktiles)
        tma_load(a_desc, [off_m, p * KB], a_full.index(p), a_s.index(p), pred=p < ktiles)
        tma_load(b_desc, [off_n, p * KB], b_full.index(p), b_s.index(p), pred=p < ktiles)
    acc = gl.zeros([BM, BN], gl.float32, ACC)
    for kt in range(ktiles):
        # tile kt + STAGES - 1 into the stage tile kt - 1 used: every warpgroup waited for its wgmma (wait 0) and
        # passed the block barrier before this
        ahead = kt + STAGES - 1
        if ahead < ktiles:
            s_ahead = ahead % STAGES
            mbarrier.expect(a_full.index(s_ahead), BM * KB * 4)
            mbarrier.expect(b_full.index(s_ahead), BN * KB * 4)
            tma_load(a_desc, [off_m, ahead * KB], a_full.index(s_ahead), a_s.index(s_ahead))
            tma_load(b_desc, [off_n, ahead * KB], b_full.index(s_ahead), b_s.index(s_ahead))
        s = kt % STAGES
        mbarrier.wait(a_full.index(s), (kt // STAGES) & 1)
        mbarrier.wait(b_full.index(s), (kt // STAGES) & 1)
        acc = hopper.warpgroup_mma(a_s.index(s), b_s.index(s).permute((1, 0)), acc, is_async=True)
        acc = hopper.warpgroup_mma_wait(num_outstanding=0, deps=[acc])
        barrier()
    store_tile(acc, C, off_m, off_n, N, alpha, beta, ACC)


@gluon.jit
def _copy_stage(a_smem, b_smem, A, Bt, off_m, off_n, k0, K, BM: gl.constexpr, BN: gl.constexpr,
                KB: gl.constexpr):
    # 16-byte copies by every thread: 8 threads a 128-byte row, the swizzle applied by the shared layout
    L: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [gl.num_warps(), 1], [1, 0])
    ks = k0 + gl.arange(0, KB, layout=gl.SliceLayout(0, L))
    ra = (off_m + gl.arange(0, BM, layout=gl.SliceLayout(1, L))).to(gl.int64)
    rb = (off_n + gl.arange(0, BN, layout=gl.SliceLayout(1, L))).to(gl.int64)
    cp_async_load(a_smem, A + (gl.expand_dims(ra * K, 1) + gl.expand_dims(ks, 0)))
    cp_async_load(b_smem, Bt + (gl.expand_dims(rb * K, 1) + gl.expand_dims(ks, 0)))
    async_copy.commit_group()


@gluon.jit
def wgmma_smem_kernel(A, Bt, C, M, N, K, alpha, beta, BM: gl.constexpr, BN: gl.constexpr, KB: gl.constexpr,
                      STAGES: gl.constexpr, GROUP: gl.constexpr):
    ACC: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[gl.num_warps(), 1],
                                                  instr_shape=[16, BN, 8])
    SW: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=32, rank=2)
    off_m, off_n = _tile_coords(M, N, BM, BN, GROUP)
    a_s = gl.allocate_shared_memory(gl.float32, [STAGES, BM, KB], SW)
    b_s = gl.allocate_shared_memory(gl.float32, [STAGES, BN, KB], SW)
    ktiles = K // KB
    for p in gl.static_range(STAGES - 1):
        if p < ktiles:
            _copy_stage(a_s.index(p), b_s.index(p), A, Bt, off_m, off_n, p * KB, K, BM, BN, KB)
        else:
            async_copy.commit_group()  # an empty group keeps the count the waits below expect
    acc = gl.zeros([BM, BN], gl.float32, ACC)
    for kt in range(ktiles):
        # this thread's copies of tile kt have landed (STAGES - 2 groups may still be in flight), made visible to
        # the async proxy wgmma reads through, and every thread's are, after the barrier
        async_copy.wait_group(STAGES - 2)
        hopper.fence_async_shared()
        barrier()
        ahead = kt + STAGES - 1
        if ahead < ktiles:
            _copy_stage(a_s.index(ahead % STAGES), b_s.index(ahead % STAGES), A, Bt, off_m, off_n, ahead * KB, K,
                        BM, BN, KB)
        else:
            async_copy.commit_group()
        s = kt % STAGES
        acc = hopper.warpgroup_mma(a_s.index(s), b_s.index(s).permute((1, 0)), acc, is_async=True)
        acc = hopper.warpgroup_mma_wait(num_outstanding=0, deps=[acc])
    store_tile(acc, C, off_m, off_n, N, alpha, beta, ACC)


KERNELS = {"tma": wgmma_tma_kernel, "cp.async": wgmma_smem_kernel}
KERNEL = wgmma_tma_kernel
# The CUDA kernels' template argument (wgmma_smem_tf32<STAGES>, wgmma_tma_tf32<STAGES>); the tile, the K step and
# the group are constants of their text, taken here from the catalog entry (block_m, block_n) and this package
TEMPLATE = ("STAGES",)


def kernel(COPY: str = "tma", **settings: object) -> object:
    return KERNELS[COPY]


def signature(COPY: str = "tma", **settings: int) -> dict[str, str]:
    if COPY == "tma":
        return tma_signature(int(settings["BM"]), int(settings["BN"]))
    return {"A": "*fp32", "Bt": "*fp32", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32", "alpha": "fp32",
            "beta": "fp32"}


def num_warps(**settings: object) -> int:
    return 8  # two warpgroups, as the CUDA kernels' 256 threads


def constexprs(COPY: str = "tma", **settings: int) -> dict:
    out = {"STAGES": int(settings["STAGES"]), "GROUP": int(settings["GROUP"])}
    if COPY != "tma":
        out.update(BM=int(settings["BM"]), BN=int(settings["BN"]), KB=BK)
    return out


def launch(A: torch.Tensor, Bt: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0,
           COPY: str = "tma", **settings: int) -> object:
    """C = alpha * A @ Bt^T + beta * C, one tile a block; returns the compiled handle. Checks nothing."""
    M, K = A.shape
    N = Bt.shape[0]
    bm, bn = int(settings["BM"]), int(settings["BN"])
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    cx = constexprs(COPY, **settings)
    if COPY == "tma":
        return wgmma_tma_kernel[grid](descriptor(A, bm), descriptor(Bt, bn), C, M, N, K, alpha, beta, **cx,
                                      num_warps=num_warps())
    return wgmma_smem_kernel[grid](A, Bt, C, M, N, K, alpha, beta, **cx, num_warps=num_warps())
