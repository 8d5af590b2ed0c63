"""rosetta.wgmma_3xtf32_rs in Gluon: fp32-accurate 3xTF32 on Hopper's wgmma with A split in registers, on a
persistent warp-specialised grid of 128 x 128 tiles.

The CUDA kernel's decisions (kernels_cuda/rosetta_wgmma_3xtf32_rs.cu and wgmma_split.cuh), each written here:
- the split: big = trunc_tf32(x) (x's upper 19 bits, what the tensor core reads of an fp32 operand), small =
  rna_tf32(x - big) (cvt.rna.tf32.f32); A B summed as A_small Bt_big + A_big Bt_small + A_big Bt_big, three
  m64n128k8 per 8-deep K step in that order;
- A in registers: each consumer loads its 64 rows of the landed A tile 8 k at a time into wgmma's register-operand
  layout (the compiler's ldmatrix, LDSM), splits them there and hands big and small to wgmma (its RS form); only
  Bt's remainders go through shared memory;
- the remainders of each landed Bt tile are written beside it by split warps while the consumers multiply the
  stage before, made visible to the tensor core's proxy (fence) and announced on the stage's "ready" mbarrier;
- the fp32 running sum outside the tensor core: each pair of K tiles is summed from zero on the tensor core (24
  wgmma, one wait) and added to the total with FADD, which keeps the result fp32-accurate (the tensor core's own
  accumulation truncates); a K tile left over at the end is a pair's first half alone;
- roles and registers: a producer that only issues the copy engine's loads, two consumer warpgroups (a partition
  each, setmaxnreg 232), four stages of A, Bt and Bt's remainders (48 KB each); persistent grid, grouped order.
What differs: the split warps are two (CUDA: three, warps 1-3 of the producer warpgroup; a Gluon partition's warps
are a power of two) and are a partition of their own; the pair loop has no branch inside (a wgmma chain across a
branch makes ptxas serialise every wgmma for want of registers, info C7512, measured on the compile), so an odd
K tile count ends with a single tile after it. Nothing here checks its operands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import triton

from kernels_gluon.compat import gl, gluon, hopper, mbarrier
from kernels_gluon.wgmma_common import descriptor, store_tile, tile_of, tma_producer, tma_signature

if TYPE_CHECKING:
    import torch

CONSUMER_REGS = gl.constexpr(232)
PRODUCER_REGS = gl.constexpr(24)
SPLIT_REGS = gl.constexpr(40)
SPLIT_WARPS = gl.constexpr(2)


@gluon.jit
def _trunc(x):
    # x's upper 19 bits: the tf32 value the tensor core reads of an fp32 operand
    return (x.to(gl.uint32, bitcast=True) & 0xFFFFE000).to(gl.float32, bitcast=True)


@gluon.jit
def _rna(x):
    return gl.inline_asm_elementwise("cvt.rna.tf32.f32 $0, $1;", "=r,f", [x], dtype=gl.uint32, is_pure=True,
                                     pack=1).to(gl.float32, bitcast=True)


@gluon.jit
def _split(b_s, b_small, full, ready, M, N, K, STAGES: gl.constexpr, BM: gl.constexpr, BN: gl.constexpr,
           KB: gl.constexpr):
    # every landed Bt tile's remainders, 16 rows at a time (the split is elementwise: the swizzle is left as it lies)
    L: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [gl.num_warps(), 1], [1, 0])
    tiles = gl.cdiv(gl.cdiv(M, BM) * gl.cdiv(N, BN) - gl.program_id(0), gl.num_programs(0))
    for it in range(tiles * (K // KB)):
        s = it % STAGES
        mbarrier.wait(full.index(s), (it // STAGES) & 1)
        for r in gl.static_range(0, BN, 16):
            x = b_s.index(s).slice(r, 16).load(L)
            b_small.index(s).slice(r, 16).store(_rna(x - _trunc(x)))
        # generic-proxy writes made visible to wgmma, which reads shared memory through the async proxy
        hopper.fence_async_shared()
        mbarrier.arrive(ready.index(s))


@gluon.jit
def _k_tile(p, a_tile, b_big, b_small, FIRST: gl.constexpr, AOP: gl.constexpr, KB: gl.constexpr):
    # one K tile's twelve wgmma; FIRST: the first of them starts the sum from zero
    for k in gl.static_range(KB // 8):
        a = a_tile.slice(k * 8, 8, dim=1).load(AOP)
        big = _trunc(a)
        small = _rna(a - big)
        bb = b_big.slice(k * 8, 8, dim=1).permute((1, 0))
        bs = b_small.slice(k * 8, 8, dim=1).permute((1, 0))
        p = hopper.warpgroup_mma(small, bb, p, use_acc=not (FIRST and k == 0), is_async=True)
        p = hopper.warpgroup_mma(big, bs, p, is_async=True)
        p = hopper.warpgroup_mma(big, bb, p, is_async=True)
    return p


@gluon.jit
def _landed(full, ready, it, STAGES: gl.constexpr):
    s = it % STAGES
    mbarrier.wait(full.index(s), (it // STAGES) & 1)
    mbarrier.wait(ready.index(s), (it // STAGES) & 1)
    return s


@gluon.jit
def _consumer(a_s, b_s, b_small, full, ready, empty, C, M, N, K, alpha, beta, STAGES: gl.constexpr,
              GROUP: gl.constexpr, BM: gl.constexpr, BN: gl.constexpr, KB: gl.constexpr, HALF: gl.constexpr):
    ROWS: gl.constexpr = BM // 2
    ACC: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BN, 8])
    AOP: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=ACC, k_width=1)
    grid_m = gl.cdiv(M, BM)
    grid_n = gl.cdiv(N, BN)
    ktiles = K // KB
    it = 0
    for tile in range(gl.program_id(0), grid_m * grid_n, gl.num_programs(0)):
        pm, pn = tile_of(tile, grid_m, grid_n, GROUP)
        total = gl.zeros([ROWS, BN], gl.float32, ACC)
        for _ in range(0, ktiles - 1, 2):
            s0 = _landed(full, ready, it, STAGES)
            p = _k_tile(total, a_s.index(s0).slice(HALF * ROWS, ROWS), b_s.index(s0), b_small.index(s0), True, AOP,
                        KB)
            s1 = _landed(full, ready, it + 1, STAGES)
            p = _k_tile(p, a_s.index(s1).slice(HALF * ROWS, ROWS), b_s.index(s1), b_small.index(s1), False, AOP, KB)
            p = hopper.warpgroup_mma_wait(num_outstanding=0, deps=[p])
            mbarrier.arrive(empty.index(s0))
            mbarrier.arrive(empty.index(s1))
            total += p  # the pair's sum added in fp32 (FADD)
            it += 2
        if ktiles % 2 == 1:
            s0 = _landed(full, ready, it, STAGES)
            p = _k_tile(total, a_s.index(s0).slice(HALF * ROWS, ROWS), b_s.index(s0), b_small.index(s0), True, AOP,
                        KB)
            p = hopper.warpgroup_mma_wait(num_outstanding=0, deps=[p])
            mbarrier.arrive(empty.index(s0))
            total += p
            it += 1
        store_tile(total, C, pm * BM + HALF * ROWS, pn * BN, N, alpha, beta, ACC)


@gluon.jit
def wgmma_3xtf32_rs_kernel(a_desc, b_desc, C, M, N, K, alpha, beta, STAGES: gl.constexpr, GROUP: gl.constexpr):
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    KB: gl.constexpr = a_desc.block_type.shape[1]
    a_s = gl.allocate_shared_memory(gl.float32, [STAGES, BM, KB], a_desc.layout)
    b_s = gl.allocate_shared_memory(gl.float32, [STAGES, BN, KB], b_desc.layout)
    b_small = gl.allocate_shared_memory(gl.float32, [STAGES, BN, KB], b_desc.layout)
    full = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for p in gl.static_range(STAGES):
        mbarrier.init(full.index(p), count=1)
        mbarrier.init(ready.index(p), count=1)
        mbarrier.init(empty.index(p), count=2)
    # the barriers' initialisation made visible to the copy engine before its first copy (the CUDA rungs:
    # fence.mbarrier_init)
    hopper.fence_async_shared()
    gl.warp_specialize([
        (_consumer, (a_s, b_s, b_small, full, ready, empty, C, M, N, K, alpha, beta, STAGES, GROUP, BM, BN, KB, 0)),
        (_consumer, (a_s, b_s, b_small, full, ready, empty, C, M, N, K, alpha, beta, STAGES, GROUP, BM, BN, KB, 1)),
        (tma_producer, (a_desc, b_desc, a_s, b_s, full, empty, M, N, K, STAGES, GROUP)),
        (_split, (b_s, b_small, full, ready, M, N, K, STAGES, BM, BN, KB))],
        [4, 1, SPLIT_WARPS], [CONSUMER_REGS, PRODUCER_REGS, SPLIT_REGS])


KERNEL = wgmma_3xtf32_rs_kernel
TEMPLATE = ("STAGES", "GROUP")  # wgmma_3xtf32_rs<STAGES, GROUP>


def signature(**settings: int) -> dict[str, str]:
    return tma_signature(int(settings["BM"]), int(settings["BN"]))


def num_warps(**settings: object) -> int:
    return 4  # the default partition: consumer warpgroup 0


def constexprs(**settings: int) -> dict:
    return {"STAGES": int(settings["STAGES"]), "GROUP": int(settings["GROUP"])}


def launch(A: torch.Tensor, Bt: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0,
           SMS: int | None = None, **settings: int) -> object:
    """C = alpha * A @ Bt^T + beta * C in 3xTF32 on min(SMs, tiles) blocks; returns the compiled handle."""
    import torch

    M, K = A.shape
    N = Bt.shape[0]
    bm, bn = int(settings["BM"]), int(settings["BN"])
    sms = SMS or torch.cuda.get_device_properties(A.device).multi_processor_count
    grid = (min(triton.cdiv(M, bm) * triton.cdiv(N, bn), sms),)
    return wgmma_3xtf32_rs_kernel[grid](descriptor(A, bm), descriptor(Bt, bn), C, M, N, K, alpha, beta,
                                        **constexprs(**settings), num_warps=num_warps())
