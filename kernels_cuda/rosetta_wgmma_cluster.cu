// seed:       none (tile-rosetta's own: continues 000_680cc5a5f868a384.txt's closing "Tensor Cores" step, after
//             rosetta.wgmma_persistent)
// section:    none
// kernel:     wgmma_cluster_tf32<STAGES, GROUP>
// launch:     threads 384 (three warpgroups, 1-D); blocks (min(SMs, cdiv(N, 256) * cdiv(M, 128)), 1), an even count
//             (clusters of 2 blocks, __cluster_dims__); dynamic shared memory STAGES * 49152 + 1024 bytes (197632
//             for STAGES = 4); needs sm_90a; arguments as rosetta.wgmma_ws (M, N, K, alpha, A, B, beta, C, mapA, mapB)
// computes:   C = alpha * A B + beta * C, A row-major M x K, B given K-major as Bt = B^T (N x K row-major), C
//             row-major M x N; with beta == 0, C is only written (never read)
//             precision: TF32 (operands truncated to their upper 19 bits by the tensor core), fp32 sums
// limits:     M % 256 == 0 (a cluster's two tiles stack along M), N % 256 == 0, K % 32 == 0 (no predication:
//             every tile is whole); A, Bt and C 16-byte aligned; row offsets are 64-bit
// adds:       (to rosetta.wgmma_persistent) thread block clusters with TMA multicast: the two blocks of a cluster
//             take vertically adjacent tiles, which read the same Bt tile, and take turns by K tile to load it once
//             and multicast it into both blocks' shared memory; each consumer warp releases a stage to both
//             producers (a remote mbarrier arrive through mapa), so a stage is refilled only when both blocks have
//             read it. Each block reads from L2 its A tile and half of the Bt tiles: 32 KB of every 48 KB stage
// design:     the pipeline of wgmma_ws.cuh with CLUSTER = 2: the cluster walks pairs of tiles in grouped order
//             (first = cluster id, step = clusters), both blocks in lockstep over the same K tiles, and the blocks
//             meet at a cluster barrier after their barriers are made and before they leave

#include "wgmma_ws.cuh"

template <int STAGES, int GROUP>
__cluster_dims__(2, 1, 1) __launch_bounds__(384, 1) __global__
    void wgmma_cluster_tf32(int M, int N, int K, float alpha, const float* __restrict__ A,
                            const float* __restrict__ B, float beta, float* __restrict__ C,
                            const __grid_constant__ rosetta_wgmma::TensorMap mapA,
                            const __grid_constant__ rosetta_wgmma::TensorMap mapB) {
    rosetta_wgmma::run<STAGES, GROUP, 2>(M, N, K, alpha, beta, C, &mapA, &mapB, blockIdx.x / 2, gridDim.x / 2);
}
