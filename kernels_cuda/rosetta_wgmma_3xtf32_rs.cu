// seed:       none (tile-rosetta's own: continues 000_680cc5a5f868a384.txt's closing "Tensor Cores" step, after
//             rosetta.wgmma_3xtf32)
// section:    none
// kernel:     wgmma_3xtf32_rs<STAGES, GROUP>
// launch:     as rosetta.wgmma_3xtf32: threads 384 (three warpgroups, 1-D); blocks (min(SMs, cdiv(N, 128) *
//             cdiv(M, 128)), 1), any grid works (block b takes tiles b, b + G, ...); dynamic shared memory
//             STAGES * 49152 + 1024 bytes (197632 for STAGES = 4); needs sm_90a; arguments M, N, K, alpha, A, B,
//             beta, C, mapA, mapB (fp32 tensor maps, {K, rows}, 128-byte swizzle, box {32, 128})
// computes:   C = alpha * A B + beta * C, A row-major M x K, B given K-major as Bt = B^T (N x K row-major), C
//             row-major M x N; with beta == 0, C is only written (never read)
//             precision: 3xTF32, fp32-accurate, the same split and the same sums as rosetta.wgmma_3xtf32: big =
//             trunc_tf32(x), small = rna_tf32(x - big), A B summed as A_small B_big + A_big B_small + A_big B_big
// limits:     M % 128 == 0, N % 128 == 0, K % 32 == 0 (no predication: every tile is whole); A, Bt and C 16-byte
//             aligned; row offsets are 64-bit
// adds:       (to rosetta.wgmma_3xtf32) A from registers. Each consumer thread loads its A fragments from the
//             landed tile (ldmatrix, four m8n8.x4 per K tile, conflict-free on the 128-byte swizzle), splits them in
//             registers and hands big and small to wgmma as register operands (the RS form); only Bt's remainders
//             are written to shared memory, by the producer warpgroup as before. Per K tile and consumer this drops
//             the A remainder tile (16 KB written, then read by four wgmma) and the twelve wgmma's shared-memory
//             reads of A (8 KB each wgmma group), and a stage shrinks from 64 KB to 48 KB, so four stages fit where
//             three did
// design:     a consumer works a pair of K tiles per wait, as rosetta.wgmma_3xtf32 does, with the pair's A
//             fragments in separate registers (2 x 32): a wgmma reads its register operands asynchronously, so they
//             stay untouched until the wait_group that retires it (fence_operands keeps them live to there)

#include "wgmma.cuh"
#include "wgmma_m64n128k8.cuh"
#include "wgmma_split.cuh"
#include "wgmma_tma.cuh"

namespace rosetta_wgmma {

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int A_BYTES = BM * BK * 4, B_BYTES = BN * BK * 4;
constexpr int STAGE_BYTES = A_BYTES + 2 * B_BYTES;  // a stage: the raw A and Bt tiles, then Bt's remainders

// This thread's A fragments of one K tile (four 8-deep steps), split: big[4 k + i] = trunc_tf32(x), small[4 k + i]
// = rna_tf32(x - big). `rows` is the shared address of the warpgroup's 64 rows of the landed A tile. Lane l gives
// the address of row l % 8 of matrix l / 8 of an ldmatrix.x4: matrices (rows 0-7 | 8-15) x (K 0-3 | 4-7) of the
// step, so that register i of every lane is a fragment element in the order wgmma takes them. A row is 128 bytes
// with its 16-byte chunk c stored at c ^ (row % 8) (the 128-byte swizzle), and row % 8 = lane % 8 here.
__device__ __forceinline__ void a_fragments(unsigned rows, float (&big)[16], float (&small)[16]) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    const int m = lane / 8, r = lane % 8;
    const unsigned row = rows + (warp * 16 + (m % 2) * 8 + r) * 128;
#pragma unroll
    for (int k = 0; k < BK / 8; ++k) {
        const unsigned chunk = 2 * k + m / 2;
        unsigned x[4];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3])
                     : "r"(row + ((chunk ^ r) << 4)));
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const float v = __uint_as_float(x[i]);
            big[4 * k + i] = tf32_trunc(v);
            small[4 * k + i] = remainder_tf32(v);
        }
    }
}

// One K tile's twelve wgmma (per 8-deep step: A_small Bt_big, A_big Bt_small, A_big Bt_big) into `p`; first_scale = 0
// makes the first of them overwrite `p`, 1 adds to what `p` holds.
__device__ __forceinline__ void k_tile(float (&p)[BN / 2], const float (&big)[16], const float (&small)[16],
                                       unsigned stage, int first_scale) {
    const unsigned b_big = stage + A_BYTES, b_small = b_big + B_BYTES;
#pragma unroll
    for (int k = 0; k < BK / 8; ++k) {
        wgmma_m64n128k8_rs(p, small + 4 * k, smem_desc(b_big + 32 * k), k == 0 ? first_scale : 1);
        wgmma_m64n128k8_rs(p, big + 4 * k, smem_desc(b_small + 32 * k), 1);
        wgmma_m64n128k8_rs(p, big + 4 * k, smem_desc(b_big + 32 * k), 1);
    }
}

// A consumer warpgroup: rows 64 c .. 64 c + 63 of each output tile, all 128 columns. A stage is ready when its
// tiles have landed (full: A is read from here on) and Bt's remainders are written (ready). Each pair of K tiles is
// summed from zero on the tensor core and added to the total by FADD; a K tile left over at the end is a pair's
// first half alone.
template <int STAGES, int GROUP>
__device__ __forceinline__ void consume(unsigned base, unsigned full0, unsigned ready0, unsigned empty0, int c, int M,
                                        int N, int ktiles, int first, int step, float alpha, float beta,
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
        for (int kt = 0; kt < ktiles; kt += 2) {
            const bool two = kt + 1 < ktiles;
            const int s0 = it % STAGES, s1 = (it + 1) % STAGES;
            const unsigned stage0 = base + s0 * STAGE_BYTES, stage1 = base + s1 * STAGE_BYTES;
            float big0[16], small0[16], big1[16], small1[16];
            mbar_wait(full0 + 8 * s0, (it / STAGES) & 1);
            mbar_wait(ready0 + 8 * s0, (it / STAGES) & 1);
            a_fragments(stage0 + c * 64 * 128, big0, small0);
            wgmma_fence();
            k_tile(p, big0, small0, stage0, 0);
            if (two) {
                mbar_wait(full0 + 8 * s1, ((it + 1) / STAGES) & 1);
                mbar_wait(ready0 + 8 * s1, ((it + 1) / STAGES) & 1);
                a_fragments(stage1 + c * 64 * 128, big1, small1);
                wgmma_fence();
                k_tile(p, big1, small1, stage1, 1);
            }
            wgmma_commit();
            wgmma_wait<0>();
            fence_operands(p);
            fence_operands(big0);
            fence_operands(small0);
            if (two) {
                fence_operands(big1);
                fence_operands(small1);
            }
#pragma unroll
            for (int i = 0; i < BN / 2; ++i) d[i] += p[i];
            if (arrives) {
                mbar_arrive(empty0 + 8 * s0);
                if (two) mbar_arrive(empty0 + 8 * s1);
            }
            it += two ? 2 : 1;
        }
        store_tile<BN>(d, C, N, tm * BM + c * 64, tn * BN, alpha, beta);
    }
}

}  // namespace rosetta_wgmma

template <int STAGES, int GROUP>
__launch_bounds__(384, 1) __global__ void wgmma_3xtf32_rs(int M, int N, int K, float alpha,
                                                          const float* __restrict__ A, const float* __restrict__ B,
                                                          float beta, float* __restrict__ C,
                                                          const __grid_constant__ rosetta_wgmma::TensorMap mapA,
                                                          const __grid_constant__ rosetta_wgmma::TensorMap mapB) {
    using namespace rosetta_wgmma;
    run_split<STAGES, GROUP, BM, BN, STAGE_BYTES, A_BYTES, A_BYTES + B_BYTES, B_BYTES>(
        M, N, K, &mapA, &mapB,
        [&](unsigned base, unsigned full0, unsigned ready0, unsigned empty0, int c, int first, int step) {
            consume<STAGES, GROUP>(base, full0, ready0, empty0, c, M, N, K / BK, first, step, alpha, beta, C);
        });
}
