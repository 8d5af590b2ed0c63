// The copy engine and its barriers, from rosetta.wgmma_tma on (rosetta.wgmma_tma, rosetta.wgmma_ws,
// rosetta.wgmma_persistent, rosetta.wgmma_3xtf32, rosetta.wgmma_3xtf32_rs): the driver's tensor map as a kernel
// parameter, the mbarrier operations (init, arrive with an expected byte count, arrive, wait on a phase), one 2-D
// TMA tile load, and the producer thread's loop of the warp-specialised rungs.
#pragma once

#include "wgmma.cuh"

namespace rosetta_wgmma {

// The driver's CUtensorMap (an opaque 128-byte, 64-byte aligned struct), declared here because NVRTC sees no
// CUDA headers. Passed by value as a __grid_constant__ parameter: the copy engine reads it from parameter space.
struct alignas(64) TensorMap {
    unsigned long long opaque[16];
};

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
    asm volatile(
        "{\n.reg .pred done;\nWAIT_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT_%=;\n}\n" ::"r"(bar), "r"(parity) : "memory");
}

// Clusters (rosetta.wgmma_cluster): this block's rank in its cluster; the address, in a peer block's shared memory,
// of one of this block's shared variables; an arrival on a peer's mbarrier; a barrier of every thread of the cluster.
__device__ __forceinline__ unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
__device__ __forceinline__ unsigned peer_address(unsigned addr, unsigned rank) {
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
    return r;
}
__device__ __forceinline__ void mbar_arrive_peer(unsigned peer_bar) {
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(peer_bar) : "memory");
}
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// One 2-D tile (box) global -> shared through the copy engine; completion counted in bytes on the mbarrier.
// c0 is the innermost coordinate (the K element index), c1 the row.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TensorMap* map, int c0, int c1, unsigned bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
        ::"r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(bar) : "memory");
}

// The same tile into the same offset of every block of the cluster named in `mask`, completing on the mbarrier at
// the same offset in each.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const TensorMap* map, int c0, int c1, unsigned bar,
                                                      unsigned short mask) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
        : "memory");
}

// The tile of block `rank` of a cluster of CLUSTER blocks stacked along M that takes the tile group `pair`: the
// cluster walks groups of CLUSTER vertically adjacent tiles (the same Bt tile) in grouped order.
template <int GROUP, int CLUSTER>
__device__ __forceinline__ void cluster_tile(int pair, int tiles_m, int tiles_n, unsigned rank, int& tm, int& tn) {
    grouped_tile<GROUP>(pair, tiles_m / CLUSTER, tiles_n, tm, tn);
    tm = tm * CLUSTER + rank;
}

// The producer thread of the warp-specialised rungs: keeps STAGES stages in flight, each an A tile (BM_ x 32) and a
// Bt tile (BN_ x 32) at the start of a STAGE_BYTES stage, waiting for all consumer warps to release a stage before
// refilling it. `it` counts K tiles across every output tile the block takes, so stage and phase run on without a
// reset between tiles. In a cluster (CLUSTER > 1, blocks stacked along M on the same Bt tile) the blocks take turns
// by K tile to load Bt once and multicast it to all of them; the stage's empty barrier then also counts the peers'
// consumer warps, so no block writes into a peer's stage that is still being read.
template <int STAGES, int GROUP, int BM_, int BN_, int STAGE_BYTES, int CLUSTER = 1>
__device__ __forceinline__ void produce_tiles(unsigned base, unsigned full0, unsigned empty0, const TensorMap* mapA,
                                              const TensorMap* mapB, int tiles_m, int tiles_n, int ktiles, int first,
                                              int step) {
    constexpr int A_TILE = BM_ * 32 * 4, B_TILE = BN_ * 32 * 4;
    const unsigned rank = CLUSTER > 1 ? cluster_rank() : 0;
    int it = 0;
    for (int tile = first; tile < tiles_m * tiles_n / CLUSTER; tile += step) {
        int tm, tn;
        cluster_tile<GROUP, CLUSTER>(tile, tiles_m, tiles_n, rank, tm, tn);
        for (int kt = 0; kt < ktiles; ++kt, ++it) {
            const int s = it % STAGES;
            if (it >= STAGES) mbar_wait(empty0 + 8 * s, ((it / STAGES) + 1) & 1);
            const unsigned bar = full0 + 8 * s;
            mbar_expect_tx(bar, A_TILE + B_TILE);
            tma_load_2d(base + s * STAGE_BYTES, mapA, kt * 32, tm * BM_, bar);
            if (CLUSTER == 1)
                tma_load_2d(base + s * STAGE_BYTES + A_TILE, mapB, kt * 32, tn * BN_, bar);
            else if (kt % CLUSTER == (int)rank)
                tma_load_2d_multicast(base + s * STAGE_BYTES + A_TILE, mapB, kt * 32, tn * BN_, bar,
                                      (unsigned short)((1 << CLUSTER) - 1));
        }
    }
}

}  // namespace rosetta_wgmma
