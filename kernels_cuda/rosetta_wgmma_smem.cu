// seed:       none (tile-rosetta's own: continues 000_680cc5a5f868a384.txt's closing "Tensor Cores" step, after
//             rosetta.tc_gemm's mma.sync rung)
// section:    none
// kernel:     wgmma_smem_tf32<STAGES>
// launch:     threads 256 (two warpgroups, 1-D); blocks (cdiv(N, 128), cdiv(M, 128)), or any grid of that many
//             blocks (the linear block id is walked in grouped order); dynamic shared memory STAGES * 32768 + 1024
//             bytes (132096 for STAGES = 4): over 48 KB, so the launcher raises the function's max dynamic shared
//             size first. Needs sm_90a.
// computes:   C = alpha * A B + beta * C, A row-major M x K, B given K-major as Bt = B^T (N x K row-major), C
//             row-major M x N; with beta == 0, C is only written (never read)
//             precision: TF32 (the tensor core reads each fp32 operand's upper 19 bits: sign, exponent and 10
//             mantissa bits, i.e. truncated, not rounded), products summed in fp32
// limits:     M % 128 == 0, N % 128 == 0, K % 32 == 0 (no predication: every tile is whole); A, Bt and C
//             16-byte aligned (A, Bt: 16-byte cp.async; C: float2 stores need 8 bytes, the registry asks 16);
//             row offsets are 64-bit
// adds:       (to rosetta.tc_gemm, mma.sync on HMMA) Hopper's warpgroup MMA: wgmma.mma_async m64n128k8 tf32
//             (HGMMA) with both operands read by the tensor core straight from shared memory through matrix
//             descriptors, in the 128-byte swizzled layout those descriptors name; no ldmatrix, no fragments in
//             registers, the accumulators alone live in registers
// design:     one block computes a 128 x 128 tile of C; warpgroup w (threads 128 w .. 128 w + 127) owns rows
//             64 w .. 64 w + 63, all 128 columns: one m64n128k8 per 8-deep K step, 64 accumulators per thread
//             shared layout: a stage holds A (128 rows x 32 floats) then Bt (128 rows x 32 floats), each row 128
//             bytes; 16-byte chunk j of row r is stored at chunk j ^ (r % 8): the 128-byte swizzle, conflict-free
//             for the copies and exactly the layout the descriptor's swizzle mode 1 tells the tensor core to read;
//             stage bases are 1024-byte aligned (the swizzle atom), so the dynamic buffer is aligned up by hand
//             descriptors: 8-row atoms are 1024 bytes apart (stride byte offset); the K step k (0..3) inside a
//             32-float row is selected by adding 32 k bytes to the start address: the hardware applies the XOR
//             to the address bits, so the offset composes with the swizzle
//             pipeline: cp.async.cg 16-byte copies by all 256 threads, STAGES - 1 tiles in flight; a thread's
//             copies are generic-proxy writes and wgmma reads through the async proxy, so each thread fences
//             (fence.proxy.async.shared::cta) after its cp.async group lands and before the block barrier
//             the four wgmma of a K tile are issued back to back, committed as one group and waited on
//             (wait_group 0) before the next barrier, so the buffer the next copy overwrites is free; the copies
//             for tile kt + STAGES - 1 are issued before the wgmma of tile kt, so they overlap the MMAs
//             block order: 1-D grid mapped to (tile row, tile column) in groups of 8 tile rows (L2 reuse)

#include "wgmma.cuh"
#include "wgmma_m64n128k8.cuh"

namespace rosetta_wgmma {

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int TILE_BYTES = BM * BK * 4;  // A and Bt tiles are the same size here

// One stage: A rows m0.., Bt rows n0.., K columns k0..k0+31, swizzled; 1024 + 1024 16-byte chunks, 8 per thread.
__device__ __forceinline__ void load_stage(unsigned sa, unsigned sb, const float* __restrict__ A,
                                           const float* __restrict__ Bt, int K, int m0, int n0, int k0) {
#pragma unroll
    for (int i = 0; i < BM * BK / 4 / 256; ++i) {
        const int c = threadIdx.x + i * 256;
        const int r = c / 8, j = c % 8;
        const unsigned off = r * 128 + ((j ^ (r % 8)) << 4);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa + off),
                     "l"(A + (long long)(m0 + r) * K + k0 + j * 4));
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sb + off),
                     "l"(Bt + (long long)(n0 + r) * K + k0 + j * 4));
    }
}

}  // namespace rosetta_wgmma

template <int STAGES>
__launch_bounds__(256, 1) __global__ void wgmma_smem_tf32(int M, int N, int K, float alpha,
                                                          const float* __restrict__ A, const float* __restrict__ B,
                                                          float beta, float* __restrict__ C) {
    using namespace rosetta_wgmma;
    extern __shared__ unsigned char smem_raw[];
    const unsigned base = (smem_u32(smem_raw) + 1023) & ~1023u;
    const int tiles_m = M / BM, tiles_n = N / BN;
    int tm, tn;
    grouped_tile<8>(blockIdx.y * gridDim.x + blockIdx.x, tiles_m, tiles_n, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int wg = threadIdx.x / 128;
    const int ktiles = K / BK;

    float d[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) d[i] = 0.0f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles) load_stage(base + s * 2 * TILE_BYTES, base + (s * 2 + 1) * TILE_BYTES, A, B, K, m0, n0, s * BK);
        asm volatile("cp.async.commit_group;\n" ::: "memory");
    }
    for (int kt = 0; kt < ktiles; ++kt) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2) : "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
        const int next = kt + STAGES - 1;
        if (next < ktiles) {
            const int s = next % STAGES;
            load_stage(base + s * 2 * TILE_BYTES, base + (s * 2 + 1) * TILE_BYTES, A, B, K, m0, n0, next * BK);
        }
        asm volatile("cp.async.commit_group;\n" ::: "memory");
        const int s = kt % STAGES;
        const unsigned sa = base + s * 2 * TILE_BYTES + wg * 64 * 128, sb = base + (s * 2 + 1) * TILE_BYTES;
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < BK / 8; ++k) wgmma_m64n128k8(d, smem_desc(sa + 32 * k), smem_desc(sb + 32 * k));
        wgmma_commit();
        wgmma_wait<0>();
    }
    store_tile<BN>(d, C, N, m0 + wg * 64, n0, alpha, beta);
}
