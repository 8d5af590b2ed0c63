// seed:       none (tile-rosetta's own: continues 000_680cc5a5f868a384.txt's "data prefetching" one level down, from
//             global->shared to shared->registers, on top of sgemm_cp_async)
// section:    none
// kernel:     sgemm_frag_prefetch<BM, BN, BK, WM, WN, TM, TN, STAGES>
// launch:     threads (BM/WM)*(BN/WN)*32 (1-D; 256 for <128, 128, 8, 32, 64, 8, 8, 4>); blocks (N / BN, M / BM)
// computes:   C = alpha*A*B + beta*C, row-major A M x K, B K x N, C M x N; C is not read when beta == 0
// limits:     no bounds checks: M % BM == 0, N % BN == 0, K % BK == 0; B and C 16-byte aligned (A needs only the 4
//             bytes of a float); blockDim must be ((BM/WM)*(BN/WN)*32, 1, 1); M, N and K each fit in int
//             (64-bit row offsets)
//             M / BM <= 65535 (the grid's y dimension)
// adds:       over sgemm_cp_async: the register fragments are double-buffered. While the FFMAs of step k run on
//             fragment k % 2, the LDS.128 of step k+1 fill fragment (k+1) % 2, across the tile boundary too: the first
//             fragment of tile kt+1 is read during the last FFMAs of tile kt
// design:     an LDS.128 takes some 30 cycles to return; with 2 (8x16 patch) to 4 (8x8 patch, two blocks an SM) warps
//             per scheduler, the FFMAs that need it must not be the next instructions. Written as two register sets,
//             the dependence distance is a whole k step (64 or 128 FFMAs) by construction, whatever nvcc's scheduler
//             does at the tile boundary (where sgemm_cp_async has its barrier)
//             the barrier moves to the last k of a tile: wait for tile kt+1, __syncthreads, switch stages, then read
//             the first fragment of tile kt+1 while the FFMAs of the last k of tile kt still have operands in
//             registers; the copy of tile kt+STAGES-1 is issued at k = 0 of step kt, after that barrier of step kt-1,
//             so the stage it overwrites (tile kt-1's) is no longer read by any warp
//             cost: TM + TN more registers (the second fragment)
//             the 4-byte copies of A remain (cp.async cannot transpose): sgemm_split_copy fixes the copy
static __device__ __forceinline__ void cp_async_f32(float* smem, const float* gmem) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(gmem));
}

static __device__ __forceinline__ void cp_async_f32x4(float* smem, const float* gmem) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(gmem));
}

static __device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

// the "memory" clobber keeps nvcc from moving shared-memory reads above the wait
template <int PENDING>
static __device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int STAGES>
__global__ void __launch_bounds__(BM / WM * BN / WN * 32, TM * TN <= 64 ? 2 : 1)
sgemm_frag_prefetch(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                    float beta, float* __restrict__ C) {
    constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
    constexpr int LM = WM / TM, LN = WN / TN;
    constexpr int AP = BM + 4;
    constexpr int A_STAGE = BK * AP, B_STAGE = BK * BN;  // floats per stage
    constexpr int A_RUNS = BM * BK / 4 / THREADS;        // runs of 4 k (four 4-byte copies) per thread per tile
    constexpr int B_COPIES = BK * BN / 4 / THREADS;      // 16-byte copies per thread per tile
    static_assert(LM * LN == 32 && LM <= 8 && LN <= 8, "a warp is an LM x LN lane grid with at most 8 lanes a side");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BM % 32 == 0 && BK % 8 == 0, "4x4 pieces; pad; 8-k rows per warp");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0, "whole copies per thread");
    static_assert(STAGES >= 2, "at least double buffering");

    __shared__ __align__(16) float As[STAGES * A_STAGE];
    __shared__ __align__(16) float Bs[STAGES * B_STAGE];

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / (BN / WN)) * WM;
    const int wn0 = (warp % (BN / WN)) * WN;
    const int lm = lane / LN, ln = lane % LN;

    A += (long long)blockIdx.y * BM * K;
    B += (long long)blockIdx.x * BN;
    C += (long long)blockIdx.y * BM * N + (long long)blockIdx.x * BN;

    // This thread's copies, fixed for the whole K loop: source pointers (advanced one tile per step) and
    // destinations within a stage. Run q = tid + p*THREADS of A is k = 8g + 4h + 0..3 of row r, with h = q % 2,
    // r = (q / 2) % BM, g = q / (2*BM): the 4 copies of a run share a pointer and differ by immediate offsets.
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
    for (int l = 0; l < B_COPIES; ++l) {
        const int c = tid + l * THREADS;
        const int kb = c / (BN / 4), n = (c % (BN / 4)) * 4;
        b_src[l] = B + (long long)kb * N + n;
        b_dst[l] = kb * BN + n;
    }
    const long long b_step = (long long)BK * N;

    auto load_tile = [&](int stage) {
#pragma unroll
        for (int p = 0; p < A_RUNS; ++p) {
#pragma unroll
            for (int l = 0; l < 4; ++l) cp_async_f32(&As[stage * A_STAGE + a_dst[p] + l * AP], a_src[p] + l);
            a_src[p] += BK;
        }
#pragma unroll
        for (int l = 0; l < B_COPIES; ++l) {
            cp_async_f32x4(&Bs[stage * B_STAGE + b_dst[l]], b_src[l]);
            b_src[l] += b_step;
        }
    };

    float acc[TM][TN] = {};
    const int ktiles = K / BK;

    // prologue: STAGES-1 tiles in flight; a group is committed even when empty so that group g is always tile g
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles) load_tile(s);
        cp_async_commit();
    }

    // fragment f of the current stage at step k: the warp's TM values of A's column k and TN values of B's row k
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

    cp_async_wait<STAGES - 2>();
    __syncthreads();
    load_frag(0, 0, 0);
    int read = 0, write = STAGES - 1;
    for (int kt = 0; kt < ktiles; ++kt) {
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            if (k == BK - 1) {
                // tile kt+1 has landed and is visible; every warp has read all of tile kt but its last fragment,
                // which is already in registers
                cp_async_wait<STAGES - 2>();
                __syncthreads();
                read = read + 1 == STAGES ? 0 : read + 1;
            }
            // after the last tile this reads a stage nothing writes any more: harmless, and no branch
            load_frag((k + 1) % 2, read, (k + 1) % BK);
            if (k == 0) {
                if (kt + STAGES - 1 < ktiles) load_tile(write);
                cp_async_commit();
                write = write + 1 == STAGES ? 0 : write + 1;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i) {
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[k % 2][i] * b_frag[k % 2][j];
            }
        }
    }
    cp_async_wait<0>();  // nothing may be in flight into shared memory when the block exits

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
