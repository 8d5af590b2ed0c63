// seed:       none (tile-rosetta's own: continues 004_625ee54f2972fe01.txt "Kernel 04: Vectorization", which the text
//             names but never writes)
// section:    none
// kernel:     sgemm_vectorized<BM, BN, BK, TM, TN>
// launch:     threads BM*BN/(TM*TN) (1-D; 128 for <128, 128, 32, 16, 8>); blocks (N / BN, M / BM)
//             [the configuration of the author's published repository for kernel 04: BM = BN = 128, BK = 32, TM = 16,
//             TN = 8]
// computes:   C = alpha*A*B + beta*C, row-major A M x K, B K x N, C M x N; C is not read when beta == 0
// limits:     no bounds checks: M % BM == 0, N % BN == 0, K % BK == 0; A, B and C 16-byte aligned (with N % 4 == 0 and
//             K % 4 == 0, implied by the above, every row then starts on 16 bytes);
//             blockDim must be (BM*BN/(TM*TN), 1, 1); M, N and K each fit in int (64-bit row offsets)
//             M / BM <= 65535 (the grid's y dimension)
// adds:       over sgemm_coarsen_2d: 128-bit accesses everywhere the data is contiguous: A and B come from global
//             memory as float4 (LDG.128) and go to shared memory as float4 (STS.128), B's row is read as float4 and C
//             is written as float4; the thread patch doubles to TM x TN = 16 x 8 with half the threads
// design:     a quarter of the load/store instructions for the same bytes, and a 16-byte access per thread moves a
//             warp's 512 bytes in one instruction: the LSU queue, not DRAM, limited the 32-bit tile copy
//             why BM = BN = 128, BK = 32 with TM = 16, TN = 8: it is the author's setting, and it fits float4 exactly:
//             BM*BK/4 = BK*BN/4 = 1024 float4 per tile, 8 per thread of 128; a row of the A tile is BK/4 = 8 float4
//             (4 rows per warp, 128 bytes each: coalesced), a row of the B tile 32 float4 (one warp); TN = 8 is two
//             float4 of B per k and TM = 16 gives 128 accumulators, 16 + 8 shared loads per 128 FFMAs per k (vs 16 per
//             64)
//             the A tile is still stored as it lies ([BM][BK]): the threads of a warp read it at 2 rows 16 apart, 512
//             floats, the same bank (2-way conflict); nvcc fuses 4 consecutive k of a row into one LDS.128
//             the smaller block (128 threads) holds twice the accumulators per thread; the price is registers (checked
//             with ptxas: no spills)
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(BM * BN / TM / TN)
sgemm_vectorized(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B, float beta,
                 float* __restrict__ C) {
    constexpr int THREADS = BM * BN / (TM * TN);
    static_assert(BM % TM == 0 && BN % TN == 0 && TN % 4 == 0 && BK % 4 == 0, "float4 patches and tile rows");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0, "whole float4 per thread");

    __shared__ __align__(16) float As[BM * BK];
    __shared__ __align__(16) float Bs[BK * BN];

    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN);
    const int ty = tid / (BN / TN);

    A += (long long)blockIdx.y * BM * K;
    B += (long long)blockIdx.x * BN;
    C += (long long)blockIdx.y * BM * N + (long long)blockIdx.x * BN;

    float acc[TM][TN] = {};
    float a_reg[TM];
    float b_reg[TN];

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int i = 0; i < BM * BK / 4; i += THREADS) {
            const int idx = i + tid;  // float4 index in the tile: row idx / (BK/4), float4 column idx % (BK/4)
            const int row = idx / (BK / 4), c4 = idx % (BK / 4);
            reinterpret_cast<float4*>(As)[idx] =
                *reinterpret_cast<const float4*>(A + (long long)row * K + c4 * 4);
        }
#pragma unroll
        for (int i = 0; i < BK * BN / 4; i += THREADS) {
            const int idx = i + tid;
            const int row = idx / (BN / 4), c4 = idx % (BN / 4);
            reinterpret_cast<float4*>(Bs)[idx] =
                *reinterpret_cast<const float4*>(B + (long long)row * N + c4 * 4);
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) a_reg[i] = As[(ty * TM + i) * BK + k];
#pragma unroll
            for (int j = 0; j < TN; j += 4) {
                const float4 b = *reinterpret_cast<const float4*>(&Bs[k * BN + tx * TN + j]);
                b_reg[j] = b.x;
                b_reg[j + 1] = b.y;
                b_reg[j + 2] = b.z;
                b_reg[j + 3] = b.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i) {
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_reg[i] * b_reg[j];
            }
        }
        __syncthreads();
        A += BK;
        B += (long long)BK * N;
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        float* c_row = C + (long long)(ty * TM + i) * N + tx * TN;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            float4 out = make_float4(alpha * acc[i][j], alpha * acc[i][j + 1], alpha * acc[i][j + 2],
                                     alpha * acc[i][j + 3]);
            if (beta != 0.0f) {  // BLAS semantics: C is only read when beta != 0
                const float4 c = *reinterpret_cast<const float4*>(c_row + j);
                out.x += beta * c.x;
                out.y += beta * c.y;
                out.z += beta * c.z;
                out.w += beta * c.w;
            }
            *reinterpret_cast<float4*>(c_row + j) = out;
        }
    }
}
