// seed:       none (tile-rosetta's own: continues 004_625ee54f2972fe01.txt "Kernel 03: 2D thread coarsening", which the
//             text names but never writes)
// section:    none
// kernel:     sgemm_coarsen_2d<BM, BN, BK, TM, TN>
// launch:     threads BM*BN/(TM*TN) (1-D; 256 for <128, 128, 32, 8, 8>); blocks (N / BN, M / BM)
//             [the configuration of the author's published repository: BM = BN = 128, BK = 32, TM = TN = 8]
// computes:   C = alpha*A*B + beta*C, row-major A M x K, B K x N, C M x N; C is not read when beta == 0
// limits:     no bounds checks: M % BM == 0, N % BN == 0, K % BK == 0; blockDim must be (BM*BN/(TM*TN), 1, 1);
//             M, N and K each fit in int (64-bit row offsets, so the element count may pass 2^31)
//             M / BM <= 65535 (the grid's y dimension)
// adds:       over kernel 02 (one output per thread, 32x32 tiles): each thread computes a TM x TN patch of C, so one
//             element of A read from shared memory serves TN products and one element of B serves TM
// design:     per k each thread copies TM values of A's column and TN values of B's row from shared memory into
//             registers and does TM*TN FFMAs on them: TM + TN shared loads per TM*TN FFMAs (16 per 64) instead of 2
//             per 1; with 64 accumulators the registers, not shared memory, hold the running sums
//             loads to shared memory keep kernel 02's pattern: consecutive threads read consecutive floats of a row
//             of A (BK = 32 floats, one 128-byte line per warp) and of B (BN floats), so every global read is coalesced
//             the A tile is stored as it lies in memory ([BM][BK]); nvcc fuses each thread's reads of 4 consecutive k
//             of one row of A, and of 4 consecutive columns of B, into LDS.128 (seen in the SASS), which is why the
//             fully unrolled k loop needs all 255 registers; the threads of a warp read A at 2 rows 8 apart (one bank,
//             a 2-way conflict) and B at 16 float4 32 bytes apart (4 per bank quad, again 2-way); later rungs remove
//             both conflicts
//             global loads and shared stores stay 32-bit (vectorising them is the next rung)
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(BM * BN / TM / TN)
sgemm_coarsen_2d(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B, float beta,
                 float* __restrict__ C) {
    constexpr int THREADS = BM * BN / (TM * TN);
    static_assert(BM % TM == 0 && BN % TN == 0, "the block tile must split into whole thread patches");
    static_assert((BM * BK) % THREADS == 0 && (BK * BN) % THREADS == 0, "whole copies per thread");

    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];

    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN);  // which TN-column patch of the block tile
    const int ty = tid / (BN / TN);  // which TM-row patch

    // Block origin in 64 bits: M * K or K * N may exceed 2^31 even though each of M, N, K fits in int.
    A += (long long)blockIdx.y * BM * K;
    B += (long long)blockIdx.x * BN;
    C += (long long)blockIdx.y * BM * N + (long long)blockIdx.x * BN;

    float acc[TM][TN] = {};
    float a_reg[TM];
    float b_reg[TN];

    for (int k0 = 0; k0 < K; k0 += BK) {
        // idx = i + tid (not i = tid): the trip count is a compile-time constant, so the loop unrolls
#pragma unroll
        for (int i = 0; i < BM * BK; i += THREADS) {
            const int idx = i + tid;
            As[idx] = A[(long long)(idx / BK) * K + idx % BK];
        }
#pragma unroll
        for (int i = 0; i < BK * BN; i += THREADS) {
            const int idx = i + tid;
            Bs[idx] = B[(long long)(idx / BN) * N + idx % BN];
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) a_reg[i] = As[(ty * TM + i) * BK + k];
#pragma unroll
            for (int j = 0; j < TN; ++j) b_reg[j] = Bs[k * BN + tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i) {
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_reg[i] * b_reg[j];
            }
        }
        // the next iteration overwrites the tiles: every thread must be done reading them
        __syncthreads();
        A += BK;
        B += (long long)BK * N;
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        float* c_row = C + (long long)(ty * TM + i) * N + tx * TN;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            // BLAS semantics: with beta == 0, C is write-only (it may hold NaN)
            c_row[j] = beta == 0.0f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * c_row[j];
        }
    }
}
