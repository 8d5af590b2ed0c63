// seed:       none (tile-rosetta's own: continues 000_680cc5a5f868a384.txt's closing "Tensor Cores" step, after
//             rosetta.wgmma_persistent)
// section:    none
// kernel:     wgmma_3xtf32<STAGES, GROUP>
// launch:     as rosetta.wgmma_persistent: threads 384 (three warpgroups, 1-D); blocks (min(SMs, cdiv(N, 128) *
//             cdiv(M, 128)), 1), any grid works (block b takes tiles b, b + G, ...); dynamic shared memory
//             STAGES * 65536 + 1024 bytes (197632 for STAGES = 3); needs sm_90a; arguments M, N, K, alpha, A, B,
//             beta, C, mapA, mapB (fp32 tensor maps, {K, rows}, 128-byte swizzle, box {32, 128})
// computes:   C = alpha * A B + beta * C, A row-major M x K, B given K-major as Bt = B^T (N x K row-major), C
//             row-major M x N; with beta == 0, C is only written (never read)
//             precision: 3xTF32, fp32-accurate: each operand x is split into big = trunc_tf32(x) (x's upper 19
//             bits) and small = rna_tf32(x - big); A B is summed as A_small B_big + A_big B_small + A_big B_big
//             (A_small B_small, below 2^-20 of a product, is left out)
// limits:     M % 128 == 0, N % 128 == 0, K % 32 == 0 (no predication: every tile is whole); A, Bt and C 16-byte
//             aligned; row offsets are 64-bit
// adds:       (to rosetta.wgmma_persistent) the split, done by the producer warpgroup while the consumers
//             multiply the stage before: warp 0 (one thread) issues the copies; warps 1-3 wait for a stage's
//             bytes, write each element's remainder x - trunc_tf32(x), rounded, into the stage's second half,
//             fence the writes for the tensor core's (async) proxy and arrive on the stage's "ready" barrier,
//             which is what the consumers wait for. The split is elementwise, so it works on the swizzled layout
//             as it lies. Each 8-deep K step issues three wgmma instead of one, and each pair of K tiles is summed
//             from zero (scale-d = 0) into a second accumulator and added to the total by FADD, as
//             rosetta.tc_gemm<3xtf32> does per K tile, because the tensor core's own accumulation truncates
// design:     big is the raw tile itself: the tensor core reads an fp32 operand's upper 19 bits, which is
//             tf32_trunc(x), so the split writes only the remainder. Measured on an H100 against a split that also
//             rewrote big in place as rna_tf32(x) (rosetta run and rosetta profile --only wgmma_3xtf32 --shape
//             4096x4096x4096, both variants registered side by side): 1.51 ms under ncu against 1.71 ms, tensor
//             pipe 58.7% against 50.7%, forward error 7.8e-8 against 6.9e-8 (cuBLAS fp32: 3.9e-7). A stage holds
//             the raw tiles and their remainders, twice rosetta.wgmma_persistent's bytes, so 3 stages of
//             128 x 128 fit. 128 x 256 tiles were measured the same way and left out: 2 stages fit, and the
//             64 + 64 accumulators per thread that the FADD fold needs do not (168 registers at most), so they
//             summed on the tensor core throughout, with a forward error of 5.3e-6 at 8192^3, over 16x cuBLAS
//             fp32's. The fold per pair of K tiles, measured the same way against a fold per K tile: 190.6%
//             against 176.1% of cuBLAS fp32 at 4096^3, 184.4% against 167.3% at 8192^3, forward error 7.8e-8 and
//             8.0e-8 (tensor pipe 62.1% against 58.7% under ncu). ptxas reports inserting a wgmma.wait_group here
//             (info C7517); a branch-free form unrolled by pairs, without it, measured 186.0% / 177.7%, and
//             staggering the two consumers by one K tile (so that their waits alternate) 179.3% / 171.6%

#include "wgmma.cuh"
#include "wgmma_m64n128k8.cuh"
#include "wgmma_split.cuh"
#include "wgmma_tma.cuh"

namespace rosetta_wgmma {

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int A_BYTES = BM * BK * 4, B_BYTES = BN * BK * 4;
constexpr int RAW = A_BYTES + B_BYTES;  // a stage: the raw A and Bt tiles, then their remainders
constexpr int STAGE_BYTES = 2 * RAW;

// One K tile's twelve wgmma (three per 8-deep step: the two remainder products first, then big x big) into `p`;
// first_scale = 0 makes the first of them overwrite `p` (scale-d = 0), 1 adds to what `p` holds.
__device__ __forceinline__ void k_tile(float (&p)[BN / 2], unsigned stage, int c, int first_scale) {
    const unsigned a_big = stage + c * 64 * 128, b_big = stage + A_BYTES;
    const unsigned a_small = a_big + RAW, b_small = b_big + RAW;
#pragma unroll
    for (int k = 0; k < BK / 8; ++k) {
        wgmma_m64n128k8(p, smem_desc(a_small + 32 * k), smem_desc(b_big + 32 * k), k == 0 ? first_scale : 1);
        wgmma_m64n128k8(p, smem_desc(a_big + 32 * k), smem_desc(b_small + 32 * k), 1);
        wgmma_m64n128k8(p, smem_desc(a_big + 32 * k), smem_desc(b_big + 32 * k), 1);
    }
}

// A consumer warpgroup: rows 64 c .. 64 c + 63 of each output tile, all 128 columns. Each pair of K tiles is summed
// from zero on the tensor core and added to the total by FADD (round to nearest); a K tile left over at the end is
// a group of its own. The launch bound caps a thread at 168 registers, so a second partial sum, to keep one wgmma
// group in flight during the FADDs, does not fit (it spills): this warpgroup waits for its group while the other
// consumer keeps the tensor core busy, and waiting once per pair instead of once per K tile halves those waits.
template <int STAGES, int GROUP>
__device__ __forceinline__ void consume(unsigned base, unsigned ready0, unsigned empty0, int c, int M, int N,
                                        int ktiles, int first, int step, float alpha, float beta,
                                        float* __restrict__ C) {
    const int tiles_m = M / BM, tiles_n = N / BN;
    const bool arrives = threadIdx.x % 32 == 0;
    int it = 0;
    float d[BN / 2], p[BN / 2];
    for (int tile = first; tile < tiles_m * tiles_n; tile += step) {
        int tm, tn;
        grouped_tile<GROUP>(tile, tiles_m, tiles_n, tm, tn);
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) d[i] = 0.0f;
        for (int kt = 0; kt < ktiles; ++kt, ++it) {
            const int s = it % STAGES;
            mbar_wait(ready0 + 8 * s, (it / STAGES) & 1);
            wgmma_fence();
            k_tile(p, base + s * STAGE_BYTES, c, kt % 2 == 0 ? 0 : 1);
            wgmma_commit();
            if (kt % 2 == 1 || kt == ktiles - 1) {
                wgmma_wait<0>();
                fence_operands(p);
#pragma unroll
                for (int i = 0; i < BN / 2; ++i) d[i] += p[i];
                if (arrives) {  // the group's stages: this one, and the one before when it held two
                    mbar_arrive(empty0 + 8 * s);
                    if (kt % 2 == 1) mbar_arrive(empty0 + 8 * ((it - 1) % STAGES));
                }
            }
        }
        store_tile<BN>(d, C, N, tm * BM + c * 64, tn * BN, alpha, beta);
    }
}

}  // namespace rosetta_wgmma

template <int STAGES, int GROUP>
__launch_bounds__(384, 1) __global__ void wgmma_3xtf32(int M, int N, int K, float alpha, const float* __restrict__ A,
                                                       const float* __restrict__ B, float beta,
                                                       float* __restrict__ C,
                                                       const __grid_constant__ rosetta_wgmma::TensorMap mapA,
                                                       const __grid_constant__ rosetta_wgmma::TensorMap mapB) {
    using namespace rosetta_wgmma;
    run_split<STAGES, GROUP, BM, BN, STAGE_BYTES, 0, RAW, RAW>(
        M, N, K, &mapA, &mapB,
        [&](unsigned base, unsigned /*full0*/, unsigned ready0, unsigned empty0, int c, int first, int step) {
            consume<STAGES, GROUP>(base, ready0, empty0, c, M, N, K / BK, first, step, alpha, beta, C);
        });
}
