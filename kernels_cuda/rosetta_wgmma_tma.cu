// seed:       none (tile-rosetta's own: continues 000_680cc5a5f868a384.txt's closing "Tensor Cores" step, after
//             rosetta.wgmma_smem)
// section:    none
// kernel:     wgmma_tma_tf32<STAGES>
// launch:     threads 256 (two warpgroups, 1-D); blocks (cdiv(N, 128), cdiv(M, 128)), or any
//             grid of that many blocks (the linear block id is walked in grouped order);
//             dynamic shared memory STAGES * 32768 + 1024 bytes (132096 for STAGES = 4); needs sm_90a
//             arguments: M, N, K, alpha, A, B, beta, C as every GEMM of the suite (A and B are not dereferenced:
//             the copy engine reads them through the maps), then two tensor maps by value, mapA and mapB, encoded
//             on the host with cuTensorMapEncodeTiled: fp32, 2-D {K, rows} (K innermost), row stride K * 4 bytes,
//             box {32, 128}, 128-byte swizzle, no interleave, L2 promotion 256 B, out-of-bounds fill zero
// computes:   C = alpha * A B + beta * C, A row-major M x K, B given K-major as Bt = B^T (N x K row-major), C
//             row-major M x N; with beta == 0, C is only written (never read)
//             precision: TF32 (the tensor core reads each fp32 operand's upper 19 bits: truncated, not rounded),
//             products summed in fp32
// limits:     M % 128 == 0, N % 128 == 0, K % 32 == 0 (no predication: every tile is whole); A, Bt and C
//             16-byte aligned (A, Bt: tensor-map rules; C: float2 stores need 8 bytes, the registry asks 16);
//             row offsets are 64-bit
// adds:       (to rosetta.wgmma_smem) loads by the copy engine: one cp.async.bulk.tensor.2d per operand and stage,
//             issued by a single thread, writing the 128-byte swizzled layout itself (the tensor map's swizzle
//             mode), completion counted in bytes on one mbarrier per stage (expect_tx, try_wait.parity); no
//             per-thread address arithmetic or copy instructions, no proxy fence (the copy engine and wgmma are
//             both async-proxy)
// design:     tile, warpgroups and descriptors as rosetta.wgmma_smem; STAGES - 1 tiles in flight; in iteration
//             kt thread 0 issues tile kt + STAGES - 1 into the stage tile kt - 1 used, which every warpgroup has
//             finished (wgmma_wait 0, then the block barrier that ends iteration kt - 1); each warpgroup then
//             waits on stage kt's mbarrier with parity (kt / STAGES) % 2

#include "wgmma.cuh"
#include "wgmma_m64n128k8.cuh"
#include "wgmma_tma.cuh"

namespace rosetta_wgmma {

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int TILE_BYTES = BM * BK * 4;

}  // namespace rosetta_wgmma

template <int STAGES>
__launch_bounds__(256, 1) __global__ void wgmma_tma_tf32(int M, int N, int K, float alpha,
                                                         const float* __restrict__ A, const float* __restrict__ B,
                                                         float beta, float* __restrict__ C,
                                                         const __grid_constant__ rosetta_wgmma::TensorMap mapA,
                                                         const __grid_constant__ rosetta_wgmma::TensorMap mapB) {
    using namespace rosetta_wgmma;
    extern __shared__ unsigned char smem_raw[];
    __shared__ __align__(8) unsigned long long full[STAGES];
    const unsigned base = (smem_u32(smem_raw) + 1023) & ~1023u;
    const int tiles_m = M / BM, tiles_n = N / BN;
    int tm, tn;
    grouped_tile<8>(blockIdx.y * gridDim.x + blockIdx.x, tiles_m, tiles_n, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int wg = threadIdx.x / 128;
    const int ktiles = K / BK;

    if (threadIdx.x == 0) {
#pragma unroll
        for (int s = 0; s < STAGES; ++s) mbar_init(smem_u32(&full[s]), 1);
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES - 1 && s < ktiles; ++s) {
            const unsigned bar = smem_u32(&full[s]);
            mbar_expect_tx(bar, 2 * TILE_BYTES);
            tma_load_2d(base + s * 2 * TILE_BYTES, &mapA, s * BK, m0, bar);
            tma_load_2d(base + (s * 2 + 1) * TILE_BYTES, &mapB, s * BK, n0, bar);
        }
    }

    float d[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) d[i] = 0.0f;

    for (int kt = 0; kt < ktiles; ++kt) {
        const int next = kt + STAGES - 1;
        if (threadIdx.x == 0 && next < ktiles) {
            const int s = next % STAGES;
            const unsigned bar = smem_u32(&full[s]);
            mbar_expect_tx(bar, 2 * TILE_BYTES);
            tma_load_2d(base + s * 2 * TILE_BYTES, &mapA, next * BK, m0, bar);
            tma_load_2d(base + (s * 2 + 1) * TILE_BYTES, &mapB, next * BK, n0, bar);
        }
        const int s = kt % STAGES;
        mbar_wait(smem_u32(&full[s]), (kt / STAGES) & 1);
        const unsigned sa = base + s * 2 * TILE_BYTES + wg * 64 * 128, sb = base + (s * 2 + 1) * TILE_BYTES;
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < BK / 8; ++k) wgmma_m64n128k8(d, smem_desc(sa + 32 * k), smem_desc(sb + 32 * k));
        wgmma_commit();
        wgmma_wait<0>();
        __syncthreads();
    }
    store_tile<BN>(d, C, N, m0 + wg * 64, n0, alpha, beta);
}
