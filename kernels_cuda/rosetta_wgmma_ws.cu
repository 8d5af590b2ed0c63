// seed:       none (tile-rosetta's own: continues 000_680cc5a5f868a384.txt's closing "Tensor Cores" step, after
//             rosetta.wgmma_tma)
// section:    none
// kernel:     wgmma_ws_tf32<STAGES>
// launch:     threads 384 (three warpgroups, 1-D); blocks (cdiv(N, 256), cdiv(M, 128)), or any grid of that
//             many blocks (the linear block id is walked in grouped order); dynamic shared memory STAGES * 49152 +
//             1024 bytes (197632 for STAGES = 4); needs sm_90a
//             arguments: M, N, K, alpha, A, B, beta, C, then tensor maps mapA and mapB by value (as
//             rosetta.wgmma_tma: fp32, {K, rows}, 128-byte swizzle, box {32, 128} for A and {32, 256} for Bt)
// computes:   C = alpha * A B + beta * C, A row-major M x K, B given K-major as Bt = B^T (N x K row-major), C
//             row-major M x N; with beta == 0, C is only written (never read)
//             precision: TF32 (operands truncated to their upper 19 bits by the tensor core), fp32 sums
// limits:     M % 128 == 0, N % 256 == 0, K % 32 == 0 (no predication: every tile is whole); A, Bt and C
//             16-byte aligned (A, Bt: tensor-map rules; C: float2 stores need 8 bytes, the registry asks 16);
//             row offsets are 64-bit
// adds:       (to rosetta.wgmma_tma) warp specialisation: warpgroup 0 is the producer (one thread issues the
//             copies), warpgroups 1 and 2 are consumers that only wait and issue wgmma; a full and an empty
//             mbarrier per stage replace the block barrier, so no warp waits for another's MMAs; setmaxnreg
//             moves registers from the producer (40) to the consumers (232), which lets a consumer hold a 64 x 256
//             accumulator tile (m64n256k8, twice the N of one instruction); one wgmma group kept in flight
//             (wait_group 1) while the stage before it is released
// design:     one block computes a 128 x 256 tile of C; consumer c owns rows 64 c .. 64 c + 63; __launch_bounds__
//             (384, 1) gives the kernel the register cap at entry that setmaxnreg needs (the roles are the two
//             branches of one if/else, as setmaxnreg requires); the pipeline (producer, consumers, barriers,
//             register split) is wgmma_ws.cuh, which rosetta.wgmma_persistent runs too: this kernel hands it one
//             tile per block (first = the linear block id, step = the number of tiles)

#include "wgmma_ws.cuh"

template <int STAGES>
__launch_bounds__(384, 1) __global__ void wgmma_ws_tf32(int M, int N, int K, float alpha,
                                                        const float* __restrict__ A, const float* __restrict__ B,
                                                        float beta, float* __restrict__ C,
                                                        const __grid_constant__ rosetta_wgmma::TensorMap mapA,
                                                        const __grid_constant__ rosetta_wgmma::TensorMap mapB) {
    rosetta_wgmma::run<STAGES, 8>(M, N, K, alpha, beta, C, &mapA, &mapB,
                                  blockIdx.y * gridDim.x + blockIdx.x, M / 128 * (N / 256));
}
