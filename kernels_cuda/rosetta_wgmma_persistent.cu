// seed:       none (tile-rosetta's own: continues 000_680cc5a5f868a384.txt's closing "Tensor Cores" step, after
//             rosetta.wgmma_ws)
// section:    none
// kernel:     wgmma_persistent_tf32<STAGES, GROUP>
// launch:     threads 384 (three warpgroups, 1-D); blocks (min(SMs, cdiv(N, 256) * cdiv(M, 128)), 1); any
//             grid works: the block of linear id b takes tiles b, b + G, b + 2 G, ... (G blocks in all), so the
//             2-D grid (cdiv(N, 256), cdiv(M, 128)) runs one tile per block; one block per SM is the intended launch (the
//             dynamic shared memory, STAGES * 49152 + 1024 bytes, 197632 for STAGES = 4, allows no second);
//             needs sm_90a; arguments as rosetta.wgmma_ws (M, N, K, alpha, A, B, beta, C, mapA, mapB)
// computes:   C = alpha * A B + beta * C, A row-major M x K, B given K-major as Bt = B^T (N x K row-major), C
//             row-major M x N; with beta == 0, C is only written (never read)
//             precision: TF32 (operands truncated to their upper 19 bits by the tensor core), fp32 sums
// limits:     M % 128 == 0, N % 256 == 0, K % 32 == 0 (no predication: every tile is whole); A, Bt and C
//             16-byte aligned (A, Bt: tensor-map rules; C: float2 stores need 8 bytes, the registry asks 16);
//             row offsets are 64-bit
// adds:       (to rosetta.wgmma_ws) a persistent grid with a static tile scheduler: the block walks tiles b,
//             b + G, ... (linear block id b, G blocks) in grouped order (GROUP tile rows at a time); the producer
//             starts the next tile's copies while the consumers still run the last tile's epilogue, so the pipeline does
//             not drain between tiles and the launch and prologue costs are paid once per SM
// design:     as rosetta.wgmma_ws, whose pipeline (wgmma_ws.cuh) runs unchanged: this file holds only the
//             scheduler, the first tile and the step each block hands it; stage and phase counters run across
//             tiles (never reset), so the full/empty barrier protocol is unchanged

#include "wgmma_ws.cuh"

template <int STAGES, int GROUP>
__launch_bounds__(384, 1) __global__ void wgmma_persistent_tf32(int M, int N, int K, float alpha,
                                                                const float* __restrict__ A,
                                                                const float* __restrict__ B, float beta,
                                                                float* __restrict__ C,
                                                                const __grid_constant__ rosetta_wgmma::TensorMap mapA,
                                                                const __grid_constant__ rosetta_wgmma::TensorMap mapB) {
    rosetta_wgmma::run<STAGES, GROUP>(M, N, K, alpha, beta, C, &mapA, &mapB,
                                      blockIdx.y * gridDim.x + blockIdx.x, gridDim.x * gridDim.y);
}
