// seed:       none (tile-rosetta's own: continues 000_680cc5a5f868a384.txt's "data prefetching", after measuring that
//             sgemm_cp_async and sgemm_frag_prefetch, which copy A by cp.async, are slower than sgemm_warptile)
// section:    none
// kernel:     sgemm_split_copy<BM, BN, BK, WM, WN, TM, TN>
// launch:     threads (BM/WM)*(BN/WN)*32 (1-D; 256 for <128, 128, 8, 32, 64, 8, 8>); blocks (N / BN, M / BM)
// computes:   C = alpha*A*B + beta*C, row-major A M x K, B K x N, C M x N; C is not read when beta == 0
// limits:     no bounds checks: M % BM == 0, N % BN == 0, K % BK == 0; A, B and C 16-byte aligned; blockDim must be
//             ((BM/WM)*(BN/WN)*32, 1, 1); M, N and K each fit in int (64-bit row offsets)
//             M / BM <= 65535 (the grid's y dimension)
// adds:       over sgemm_frag_prefetch: the two operands are copied differently. B, which lands in shared memory as it
//             lies in global memory, still goes by 16-byte cp.async; A, which must be transposed, goes global ->
//             registers (one LDG.128 per 4 k of a row, issued at the start of a K step) -> shared memory (4 STS, at the
//             end of the step, into the other of two stages). Two stages, one barrier per K step, fragments
//             double-buffered as in sgemm_frag_prefetch
// design:     sgemm_cp_async and sgemm_frag_prefetch fall below sgemm_warptile's synchronous copies: cp.async
//             cannot transpose 16 bytes, so those rungs copy A 4 bytes at a time:
//             four times the copy instructions and the L1 sector look-ups of an LDG.128 for the same bytes, on the
//             same pipe as the fragment reads. Through registers A costs one LDG.128 and four conflict-free STS.32
//             (sgemm_transposed_a's store pattern), and the LDG's latency is covered by the K step's FFMAs: the value
//             is only needed when the step ends
//             the stage a step writes (A's STS at its last k, B's cp.async at its start) is the one the previous step
//             read; every warp finished reading it before the previous step's barrier, so one barrier per step is
//             enough; the STS and the cp.async.wait come right before that barrier
//             two stages suffice: a whole K step of FFMAs (BK * TM * TN per thread) separates a copy from its use
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
__global__ void __launch_bounds__(BM / WM * BN / WN * 32, TM * TN <= 64 ? 2 : 1)
sgemm_split_copy(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                 float beta, float* __restrict__ C) {
    constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
    constexpr int LM = WM / TM, LN = WN / TN;
    constexpr int AP = BM + 4;
    constexpr int A_STAGE = BK * AP, B_STAGE = BK * BN;
    constexpr int A_RUNS = BM * BK / 4 / THREADS;  // float4 of A per thread per tile
    constexpr int B_COPIES = BK * BN / 4 / THREADS;  // 16-byte cp.async of B per thread per tile
    static_assert(LM * LN == 32 && LM <= 8 && LN <= 8, "a warp is an LM x LN lane grid with at most 8 lanes a side");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BM % 32 == 0 && BK % 8 == 0, "4x4 pieces; pad; 8-k rows per warp");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0, "whole copies per thread");

    __shared__ __align__(16) float As[2 * A_STAGE];
    __shared__ __align__(16) float Bs[2 * B_STAGE];

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / (BN / WN)) * WM;
    const int wn0 = (warp % (BN / WN)) * WN;
    const int lm = lane / LN, ln = lane % LN;

    A += (long long)blockIdx.y * BM * K;
    B += (long long)blockIdx.x * BN;
    C += (long long)blockIdx.y * BM * N + (long long)blockIdx.x * BN;

    // run q = tid + p*THREADS of A: the float4 k = 8g + 4h .. +3 of row r, h = q % 2, r = (q / 2) % BM, g = q / (2*BM);
    // a warp covers 16 rows x 2 float4 (16 full sectors), and its 4 scalar stores per run hit 32 different banks
    const float* a_src[A_RUNS];
    int a_dst[A_RUNS];
#pragma unroll
    for (int p = 0; p < A_RUNS; ++p) {
        const int q = tid + p * THREADS;
        const int r = (q / 2) % BM, k = (q / (2 * BM)) * 8 + (q % 2) * 4;
        a_src[p] = A + (long long)r * K + k;
        a_dst[p] = k * AP + r;
    }
    const float* b_src[B_COPIES];
    int b_dst[B_COPIES];
#pragma unroll
    for (int p = 0; p < B_COPIES; ++p) {
        const int c = tid + p * THREADS;
        const int kb = c / (BN / 4), n = (c % (BN / 4)) * 4;
        b_src[p] = B + (long long)kb * N + n;
        b_dst[p] = kb * BN + n;
    }
    const long long b_step = (long long)BK * N;

    float4 a_stage[A_RUNS];  // A's next tile, between its LDG and its STS
    auto load_a = [&]() {
#pragma unroll
        for (int p = 0; p < A_RUNS; ++p) {
            a_stage[p] = *reinterpret_cast<const float4*>(a_src[p]);
            a_src[p] += BK;
        }
    };
    auto store_a = [&](int stage) {
#pragma unroll
        for (int p = 0; p < A_RUNS; ++p) {
            float* d = As + stage * A_STAGE + a_dst[p];
            d[0] = a_stage[p].x;
            d[AP] = a_stage[p].y;
            d[2 * AP] = a_stage[p].z;
            d[3 * AP] = a_stage[p].w;
        }
    };
    auto load_b = [&](int stage) {
#pragma unroll
        for (int p = 0; p < B_COPIES; ++p) {
            const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(Bs + stage * B_STAGE + b_dst[p]));
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(b_src[p]));
            b_src[p] += b_step;
        }
        asm volatile("cp.async.commit_group;\n" ::);
    };

    float acc[TM][TN] = {};
    float a_frag[2][TM], b_frag[2][TN];
    auto load_frag = [&](int f, int stage, int k) {
        const float* as = As + stage * A_STAGE + k * AP + wm0 + lm * 4;
        const float* bs = Bs + stage * B_STAGE + k * BN + wn0 + ln * 4;
#pragma unroll
        for (int i = 0; i < TM / 4; ++i) {
            const float4 a = *reinterpret_cast<const float4*>(as + i * 4 * LM);
            a_frag[f][4 * i] = a.x;
            a_frag[f][4 * i + 1] = a.y;
            a_frag[f][4 * i + 2] = a.z;
            a_frag[f][4 * i + 3] = a.w;
        }
#pragma unroll
        for (int j = 0; j < TN / 4; ++j) {
            const float4 b = *reinterpret_cast<const float4*>(bs + j * 4 * LN);
            b_frag[f][4 * j] = b.x;
            b_frag[f][4 * j + 1] = b.y;
            b_frag[f][4 * j + 2] = b.z;
            b_frag[f][4 * j + 3] = b.w;
        }
    };

    const int ktiles = K / BK;
    load_a();
    load_b(0);
    store_a(0);
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    __syncthreads();
    load_frag(0, 0, 0);

    int cur = 0;
    for (int kt = 0; kt < ktiles; ++kt) {
        const bool more = kt + 1 < ktiles;
        if (more) {  // the next tile, into the other stage (read last in step kt-1, before its barrier)
            load_a();
            load_b(cur ^ 1);
        }
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k == BK - 1) {
                if (more) store_a(cur ^ 1);
                asm volatile("cp.async.wait_group 0;\n" ::: "memory");
                __syncthreads();
                cur ^= 1;
            }
            // after the last tile this reads a stage nothing writes any more: harmless, and no branch
            load_frag((k + 1) % 2, cur, (k + 1) % BK);
#pragma unroll
            for (int i = 0; i < TM; ++i) {
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[k % 2][i] * b_frag[k % 2][j];
            }
        }
    }

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
