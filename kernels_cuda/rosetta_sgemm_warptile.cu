// seed:       none (tile-rosetta's own: continues 004_625ee54f2972fe01.txt past "Kernel 04: Vectorization", the step
//             its reference, Boehm's worklog, calls warptiling)
// section:    none
// kernel:     sgemm_warptile<BM, BN, BK, WM, WN, TM, TN>
// launch:     threads (BM/WM)*(BN/WN)*32 (1-D; 128 for <128, 128, 32, 64, 64, 16, 8>); blocks (N / BN, M / BM)
// computes:   C = alpha*A*B + beta*C, row-major A M x K, B K x N, C M x N; C is not read when beta == 0
// limits:     no bounds checks: M % BM == 0, N % BN == 0, K % BK == 0; A, B and C 16-byte aligned; blockDim must be
//             ((BM/WM)*(BN/WN)*32, 1, 1); M, N and K each fit in int (64-bit row offsets)
//             M / BM <= 65535 (the grid's y dimension)
// adds:       over sgemm_transposed_a (same block tile and thread count): each warp owns a WM x WN sub-block of the
//             tile, and a thread's TM x TN patch is no longer contiguous but (TM/4) x (TN/4) 4x4 pieces spread over the
//             warp's sub-block, so every float4 a warp reads from shared memory is one wavefront
// design:     lanes form an LM x LN grid (LM = WM/TM, LN = WN/TN, LM*LN = 32); piece (i, j) of lane (lm, ln) covers
//             rows i*4*LM + 4*lm .. +3 and columns j*4*LN + 4*ln .. +3 of the warp's sub-block
//             a float4 read of B for piece column j then touches LN consecutive float4 (LN*16 <= 128 bytes: all 32
//             banks at most once, the lanes sharing an address get it broadcast): one wavefront, where
//             sgemm_transposed_a's 16 float4 32 bytes apart took 4 for 256 unique bytes (2-way conflict); A likewise:
//             LM consecutive float4
//             a warp's threads touch only WM rows of A and WN columns of B per k instead of rows and columns spread
//             over the whole block tile, which is what keeps the distinct addresses per instruction at LM and LN
//             C is written per piece row as float4: LN lanes write LN*16 consecutive bytes
//             the global-to-shared copy is sgemm_transposed_a's (float4 loads, A transposed on the store, pad 4)
//             why <128, 128, 8, 32, 64, 8, 8>: the fastest of the tiles tried while tuning (sgemm_transposed_a's tile and
//             threads, BK = 16, and 128 x 256 were slower); 8x8 per thread fits about 116 registers, so two blocks
//             (16 warps) share an SM
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
__global__ void __launch_bounds__(BM / WM * BN / WN * 32)
sgemm_warptile(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B, float beta,
               float* __restrict__ C) {
    constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
    constexpr int LM = WM / TM, LN = WN / TN;  // the lane grid of a warp
    constexpr int AP = BM + 4;
    static_assert(LM * LN == 32 && LM <= 8 && LN <= 8, "a warp is an LM x LN lane grid with at most 8 lanes a side");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BM % 32 == 0 && BK % 8 == 0, "4x4 pieces; pad and float4 pairs");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0, "whole float4 per thread");

    __shared__ __align__(16) float As[BK * AP];
    __shared__ __align__(16) float Bs[BK * BN];

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / (BN / WN)) * WM;  // the warp's sub-block in the block tile
    const int wn0 = (warp % (BN / WN)) * WN;
    const int lm = lane / LN, ln = lane % LN;

    A += (long long)blockIdx.y * BM * K;
    B += (long long)blockIdx.x * BN;
    C += (long long)blockIdx.y * BM * N + (long long)blockIdx.x * BN;

    float acc[TM][TN] = {};
    float a_reg[TM];
    float b_reg[TN];

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int i = 0; i < BM * BK / 4; i += THREADS) {
            const int idx = i + tid;
            const int r = (idx / 2) % BM;
            const int c = (idx / (2 * BM)) * 2 + idx % 2;
            const float4 v = *reinterpret_cast<const float4*>(A + (long long)r * K + c * 4);
            As[(c * 4 + 0) * AP + r] = v.x;
            As[(c * 4 + 1) * AP + r] = v.y;
            As[(c * 4 + 2) * AP + r] = v.z;
            As[(c * 4 + 3) * AP + r] = v.w;
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
            for (int i = 0; i < TM / 4; ++i) {
                const float4 a = *reinterpret_cast<const float4*>(&As[k * AP + wm0 + i * 4 * LM + lm * 4]);
                a_reg[4 * i] = a.x;
                a_reg[4 * i + 1] = a.y;
                a_reg[4 * i + 2] = a.z;
                a_reg[4 * i + 3] = a.w;
            }
#pragma unroll
            for (int j = 0; j < TN / 4; ++j) {
                const float4 b = *reinterpret_cast<const float4*>(&Bs[k * BN + wn0 + j * 4 * LN + ln * 4]);
                b_reg[4 * j] = b.x;
                b_reg[4 * j + 1] = b.y;
                b_reg[4 * j + 2] = b.z;
                b_reg[4 * j + 3] = b.w;
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

    // acc[4*i + r][4*j + e] is row wm0 + i*4*LM + lm*4 + r, column wn0 + j*4*LN + ln*4 + e of the block tile
#pragma unroll
    for (int i = 0; i < TM / 4; ++i) {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            float* c_row = C + (long long)(wm0 + i * 4 * LM + lm * 4 + r) * N + wn0 + ln * 4;
#pragma unroll
            for (int j = 0; j < TN / 4; ++j) {
                const float* a = &acc[4 * i + r][4 * j];
                float4 out = make_float4(alpha * a[0], alpha * a[1], alpha * a[2], alpha * a[3]);
                if (beta != 0.0f) {  // BLAS semantics: C is only read when beta != 0
                    const float4 c = *reinterpret_cast<const float4*>(c_row + j * 4 * LN);
                    out.x += beta * c.x;
                    out.y += beta * c.y;
                    out.z += beta * c.z;
                    out.w += beta * c.w;
                }
                *reinterpret_cast<float4*>(c_row + j * 4 * LN) = out;
            }
        }
    }
}
