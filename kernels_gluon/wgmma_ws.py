"""rosetta.wgmma_ws and rosetta.wgmma_persistent in Gluon: warp-specialised TF32 wgmma on 128 x 256 tiles, one tile
a block or a persistent grid walking the tiles in grouped order.

The CUDA kernels' decisions (kernels_cuda/rosetta_wgmma_ws.cu, rosetta_wgmma_persistent.cu and wgmma_ws.cuh),
each written here with gl.warp_specialize:
- roles: a producer that only issues the copy engine's loads, and two consumer warpgroups that only wait and issue
  wgmma, consumer c owning rows 64 c .. 64 c + 63 of the tile and all 256 columns (m64n256k8: 128 accumulators a
  thread); each consumer warpgroup is a partition of its own, so that, as in CUDA, neither waits for the other's
  MMAs (Gluon puts the barriers its compiler adds around a partition's mbarrier operations on that partition's
  warps only);
- registers moved to the consumers: the partitions' register counts are setmaxnreg's, 232 for a consumer and 40
  for the producer as in the CUDA kernel;
- a full and an empty mbarrier per stage (STAGES stages of A 128 x 32 and Bt 256 x 32, 128-byte swizzle); the
  consumer keeps one wgmma group in flight (wait 1) and releases the stage before it; a stage is empty when both
  consumers released it (count 2);
- the grid: one tile a block (rosetta.wgmma_ws) or min(SMs, tiles) blocks each walking tiles b, b + G, ... in
  grouped order, the producer loading the next tile's stages while the consumers store the last one
  (rosetta.wgmma_persistent); the phases run on across tiles.
What differs: the producer is one warp (CUDA: a warpgroup of which one thread issues); Gluon rounds the block up
to whole warpgroups, so the block has the CUDA kernel's 384 threads. Nothing here checks its operands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import triton

from kernels_gluon.compat import gl, gluon, hopper, mbarrier
from kernels_gluon.wgmma_common import descriptor, store_tile, tile_of, tma_producer, tma_signature

if TYPE_CHECKING:
    import torch

CONSUMER_REGS = gl.constexpr(232)
PRODUCER_REGS = gl.constexpr(40)


@gluon.jit
def _consumer(a_s, b_s, full, empty, C, M, N, K, alpha, beta, STAGES: gl.constexpr, GROUP: gl.constexpr,
              BM: gl.constexpr, BN: gl.constexpr, KB: gl.constexpr, HALF: gl.constexpr):
    ROWS: gl.constexpr = BM // 2
    ACC: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BN, 8])
    grid_m = gl.cdiv(M, BM)
    grid_n = gl.cdiv(N, BN)
    ktiles = K // KB
    it = 0
    for tile in range(gl.program_id(0), grid_m * grid_n, gl.num_programs(0)):
        pm, pn = tile_of(tile, grid_m, grid_n, GROUP)
        acc = gl.zeros([ROWS, BN], gl.float32, ACC)
        for kt in range(ktiles):
            s = it % STAGES
            mbarrier.wait(full.index(s), (it // STAGES) & 1)
            acc = hopper.warpgroup_mma(a_s.index(s).slice(HALF * ROWS, ROWS), b_s.index(s).permute((1, 0)), acc,
                                       is_async=True)
            # one group in flight: the one before it is done, so its stage goes back to the producer
            acc = hopper.warpgroup_mma_wait(num_outstanding=1, deps=[acc])
            mbarrier.arrive(empty.index((it + STAGES - 1) % STAGES), pred=kt > 0)
            it += 1
        acc = hopper.warpgroup_mma_wait(num_outstanding=0, deps=[acc])
        mbarrier.arrive(empty.index((it + STAGES - 1) % STAGES))
        store_tile(acc, C, pm * BM + HALF * ROWS, pn * BN, N, alpha, beta, ACC)


@gluon.jit
def wgmma_ws_kernel(a_desc, b_desc, C, M, N, K, alpha, beta, STAGES: gl.constexpr, GROUP: gl.constexpr):
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BN: gl.constexpr = b_desc.block_type.shape[0]
    KB: gl.constexpr = a_desc.block_type.shape[1]
    a_s = gl.allocate_shared_memory(gl.float32, [STAGES, BM, KB], a_desc.layout)
    b_s = gl.allocate_shared_memory(gl.float32, [STAGES, BN, KB], b_desc.layout)
    full = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    for p in gl.static_range(STAGES):
        mbarrier.init(full.index(p), count=1)
        mbarrier.init(empty.index(p), count=2)
    # the barriers' initialisation made visible to the copy engine before its first copy (the CUDA rungs:
    # fence.mbarrier_init)
    hopper.fence_async_shared()
    gl.warp_specialize([
        (_consumer, (a_s, b_s, full, empty, C, M, N, K, alpha, beta, STAGES, GROUP, BM, BN, KB, 0)),
        (_consumer, (a_s, b_s, full, empty, C, M, N, K, alpha, beta, STAGES, GROUP, BM, BN, KB, 1)),
        (tma_producer, (a_desc, b_desc, a_s, b_s, full, empty, M, N, K, STAGES, GROUP))],
        [4, 1], [CONSUMER_REGS, PRODUCER_REGS])


KERNEL = wgmma_ws_kernel
# The CUDA kernels' template arguments: wgmma_ws_tf32<STAGES>, wgmma_persistent_tf32<STAGES, GROUP>
TEMPLATE = ("STAGES", "GROUP")


def signature(**settings: int) -> dict[str, str]:
    return tma_signature(int(settings["BM"]), int(settings["BN"]))


def num_warps(**settings: object) -> int:
    return 4  # the default partition: consumer warpgroup 0; the workers' warps come on top


def constexprs(**settings: int) -> dict:
    return {"STAGES": int(settings["STAGES"]), "GROUP": int(settings["GROUP"])}


def launch(A: torch.Tensor, Bt: torch.Tensor, C: torch.Tensor, alpha: float = 1.0, beta: float = 0.0,
           PERSISTENT: bool = False, SMS: int | None = None, **settings: int) -> object:
    """C = alpha * A @ Bt^T + beta * C on one block a tile, or (PERSISTENT) on min(SMs, tiles) blocks that walk the
    tiles; returns the compiled handle. Checks nothing."""
    M, K = A.shape
    N = Bt.shape[0]
    bm, bn = int(settings["BM"]), int(settings["BN"])
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    if PERSISTENT:
        import torch

        sms = SMS or torch.cuda.get_device_properties(A.device).multi_processor_count
        tiles = min(tiles, sms)
    return wgmma_ws_kernel[(tiles,)](descriptor(A, bm), descriptor(Bt, bn), C, M, N, K, alpha, beta,
                                    **constexprs(**settings), num_warps=num_warps())
