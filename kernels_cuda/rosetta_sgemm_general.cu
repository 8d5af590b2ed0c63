// seed:       none (tile-rosetta's own: the top of the ladder that continues 004_625ee54f2972fe01.txt kernels 03/04 and
//             000_680cc5a5f868a384.txt's "data prefetching": sgemm_split_copy made a library kernel)
// section:    none
// kernel:     sgemm_general<BM, BN, BK, WM, WN, TM, TN, GROUP_M>
// launch:     threads (BM/WM)*(BN/WN)*32 (1-D; 256 for the two registered instantiations
//             <128, 256, 16, 32, 128, 8, 16, 8> and <128, 128, 8, 32, 64, 8, 8, 16>); blocks (cdiv(N, BN), cdiv(M, BM))
// computes:   C = alpha*A*B + beta*C, row-major A M x K, B K x N, C M x N; C is not read when beta == 0
// limits:     any M, N, K >= 1, any alignment of A, B, C to a float (4 bytes); M + BM and N + BN fit in int
//             (64-bit row offsets, so the element count may pass 2^31); cdiv(M, BM) <= 65535 (gridDim.y);
//             blockDim must be ((BM/WM)*(BN/WN)*32, 1, 1)
// adds:       over sgemm_split_copy: (1) any shape: copies of rows of A past M and of columns of B past N are
//             redirected to row M-1 / column 0 (their products only reach outputs that are never stored); a K that is
//             not a multiple of BK is handled by making the first K tile the partial one, its k past K zero-filled
//             (loads of A replaced by 0, cp.async of B with a source size of 0), so the K loop only ever copies whole
//             tiles; the stores are predicated; (2) any alignment: float4 copies and stores only when K % 4 == 0,
//             N % 4 == 0 and A, B, C are 16-byte aligned, floats otherwise; (3) grouped tile order for L2 reuse;
//             (4) warps whose whole sub-block lies outside C skip the math
// design:     row r of A only ever meets row r of C, column n of B only column n of C: so the edge costs nothing in the
//             K loop: the copy addresses are clamped once, before it, and an interior block and an edge block run the
//             same instructions; only the first, partial tile tests k, and its zeros make the missing terms 0; nothing
//             outside C is stored
//             the float4/float choice is one test of K, N and three pointers, the same for every thread of the grid, so
//             the two instantiations of the body never diverge (rosetta_sgemv_float4.cu does the same)
//             grouped order: block (x, y) is renumbered so that consecutive blocks walk down GROUP_M block-rows before
//             moving right, so the blocks resident at one time share GROUP_M panels of A and few panels of B in L2
//             an edge block of a shape like 4097 covers 1 row or 1 column: without the skip it would cost a whole
//             block; with it only the warps over real outputs do FFMAs (the others still copy and meet every barrier)
//             <128, 256, 16, 32, 128, 8, 16, 8>: one block of 8 warps an SM, 8x16 per thread, BK = 16 (two stages are
//               exactly 48 KiB without the pad): the summit on large aligned squares. On odd shapes (4097: K, N odd, the
//               float path) it loses more than the smaller tile: its blocks make fewer, longer waves, and the 4-byte
//               copies of A and B take four L1 look-ups per sector where a float4 takes one
//             <128, 128, 8, 32, 64, 8, 8, 16>: two blocks an SM (128 registers), the shape-robust choice
//             the run's figures for both, and the hardware counters, are in the results files and the report
static __device__ __forceinline__ void cp_async_f32(float* smem, const float* gmem, int src_bytes) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(gmem), "r"(src_bytes));
}

static __device__ __forceinline__ void cp_async_f32x4(float* smem, const float* gmem, int src_bytes) {
    const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem), "r"(src_bytes));
}

static __device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

template <int PENDING>
static __device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}

// __syncthreads() is barrier.sync.aligned, which PTX defines only when every thread executes the same barrier
// instruction; warps that skip the math meet the barrier at another instruction, so the unaligned form is used
static __device__ __forceinline__ void block_barrier() { asm volatile("barrier.sync 0;\n" ::: "memory"); }

// The k-rows of the transposed A tile are padded by 4 floats so the transposing stores hit 32 banks; where two
// padded stages would pass the 48 KiB of static shared memory (BK = 16 with a 256-wide tile) the pad is dropped:
// those stores then conflict 2-way (4 per float4 of A a thread copies per K step); the K step's reads, hundreds
// per thread, stay conflict-free.
template <int BM, int BN, int BK>
struct APitch {
    static constexpr int value = 2 * BK * (BM + 4 + BN) * 4 <= 48 * 1024 ? BM + 4 : BM;
};

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool VEC>
static __device__ __forceinline__ void sgemm_general_body(int M, int N, int K, float alpha,
                                                          const float* __restrict__ A, const float* __restrict__ B,
                                                          float beta, float* __restrict__ C, int bm0, int bn0,
                                                          float* As, float* Bs) {
    constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
    constexpr int LM = WM / TM, LN = WN / TN;
    constexpr int AP = APitch<BM, BN, BK>::value;
    constexpr int A_STAGE = BK * AP, B_STAGE = BK * BN;
    constexpr int A_RUNS = BM * BK / 4 / THREADS;    // runs of 4 k of one row of A per thread per tile
    constexpr int B_CHUNKS = BK * BN / 4 / THREADS;  // 4-float chunks of a row of B per thread per tile

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / (BN / WN)) * WM;
    const int wn0 = (warp % (BN / WN)) * WN;
    const int lm = lane / LN, ln = lane % LN;

    // Rows of A past M and columns of B past N feed only outputs that are never stored, so those copies need no
    // predicate at all: they read row M-1 of A or column 0 of B instead (a valid address, any finite value will do).
    // Only k past K must give zeros (its products would land in real outputs): that is the partial tile below.
    // run q = tid + p*THREADS: k = 8g + 4h .. +3 of row r, h = q % 2, r = (q / 2) % BM, g = q / (2*BM)
    const float* a_src[A_RUNS];
    int a_dst[A_RUNS], a_k[A_RUNS];
#pragma unroll
    for (int p = 0; p < A_RUNS; ++p) {
        const int q = tid + p * THREADS;
        const int r = (q / 2) % BM, k = (q / (2 * BM)) * 8 + (q % 2) * 4;
        a_src[p] = A + (long long)min(bm0 + r, M - 1) * K + k;
        a_dst[p] = k * AP + r;
        a_k[p] = k;
    }
    // chunk c = tid + p*THREADS: row kb = c / (BN/4), columns n..n+3, n = (c % (BN/4))*4
    const float* b_src[B_CHUNKS];
    int b_valid[B_CHUNKS], b_dst[B_CHUNKS], b_k[B_CHUNKS];
#pragma unroll
    for (int p = 0; p < B_CHUNKS; ++p) {
        const int c = tid + p * THREADS;
        const int kb = c / (BN / 4), n = (c % (BN / 4)) * 4;
        const int valid = min(max(N - (bn0 + n), 0), 4);  // columns of the chunk inside B (VEC: 0 or 4)
        b_src[p] = B + (long long)kb * N + (valid > 0 ? bn0 + n : 0);  // a chunk past N copies column 0
        b_valid[p] = valid;
        b_dst[p] = kb * BN + n;
        b_k[p] = kb;
    }
    const long long b_step = (long long)BK * N;

    float4 a_stage[A_RUNS];  // A's next tile, between its loads and its stores to shared memory
    // a whole tile of A into a_stage
    auto load_a = [&]() {
#pragma unroll
        for (int p = 0; p < A_RUNS; ++p) {
            if (VEC) {
                a_stage[p] = *reinterpret_cast<const float4*>(a_src[p]);
            } else {
                a_stage[p] = make_float4(a_src[p][0], a_src[p][1], a_src[p][2], a_src[p][3]);
            }
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
    // a whole tile of B by cp.async
    auto load_b = [&](int stage) {
#pragma unroll
        for (int p = 0; p < B_CHUNKS; ++p) {
            float* d = Bs + stage * B_STAGE + b_dst[p];
            if (VEC) {
                cp_async_f32x4(d, b_src[p], 16);
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e) cp_async_f32(d + e, e < b_valid[p] ? b_src[p] + e : b_src[p], 4);
            }
            b_src[p] += b_step;
        }
        cp_async_commit();
    };

    // K = (ktiles - 1)*BK + first: the partial tile, if any, is the first one (k in [0, first), zeros after), so
    // that the K loop copies only whole tiles; the pointers then move by `first` instead of BK
    const int ktiles = (K - 1) / BK + 1;  // K >= 1; written so K near INT_MAX cannot overflow
    const int first = K - (ktiles - 1) * BK;
    if (first == BK) {
        load_a();
        load_b(0);
    } else {
#pragma unroll
        for (int p = 0; p < A_RUNS; ++p) {
            float v[4];
#pragma unroll
            for (int l = 0; l < 4; ++l) v[l] = a_k[p] + l < first ? a_src[p][l] : 0.0f;
            a_stage[p] = make_float4(v[0], v[1], v[2], v[3]);
            a_src[p] += first;
        }
#pragma unroll
        for (int p = 0; p < B_CHUNKS; ++p) {
            const bool in = b_k[p] < first;  // rows of B past the partial tile: 0 bytes from a pointer inside B
            float* d = Bs + b_dst[p];
            if (VEC) {
                cp_async_f32x4(d, in ? b_src[p] : B, in ? 16 : 0);
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    cp_async_f32(d + e, in ? (e < b_valid[p] ? b_src[p] + e : b_src[p]) : B, in ? 4 : 0);
                }
            }
            b_src[p] += (long long)first * N;
        }
        cp_async_commit();
    }
    store_a(0);
    cp_async_wait<0>();
    block_barrier();

    if (bm0 + wm0 >= M || bn0 + wn0 >= N) {
        // a warp with no output inside C: the same copies and the same one barrier per K step as the loop below,
        // and no math
        int cur = 0;
        for (int kt = 0; kt + 1 < ktiles; ++kt) {
            load_a();
            load_b(cur ^ 1);
            store_a(cur ^ 1);
            cp_async_wait<0>();
            block_barrier();
            cur ^= 1;
        }
        block_barrier();  // the loop below meets one barrier in its last step too
        return;
    }

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
                cp_async_wait<0>();
                block_barrier();
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
            const int row = bm0 + wm0 + i * 4 * LM + lm * 4 + r;
            if (row >= M) continue;
            float* c_row = C + (long long)row * N;
#pragma unroll
            for (int j = 0; j < TN / 4; ++j) {
                const int col = bn0 + wn0 + j * 4 * LN + ln * 4;
                const float* a = &acc[4 * i + r][4 * j];
                if (VEC) {
                    if (col >= N) continue;  // N % 4 == 0: a chunk is wholly inside or wholly outside
                    float4 out = make_float4(alpha * a[0], alpha * a[1], alpha * a[2], alpha * a[3]);
                    if (beta != 0.0f) {  // BLAS semantics: C is only read when beta != 0
                        const float4 c = *reinterpret_cast<const float4*>(c_row + col);
                        out.x += beta * c.x;
                        out.y += beta * c.y;
                        out.z += beta * c.z;
                        out.w += beta * c.w;
                    }
                    *reinterpret_cast<float4*>(c_row + col) = out;
                } else {
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        if (col + e < N) {
                            const float out = alpha * a[e];
                            c_row[col + e] = beta != 0.0f ? out + beta * c_row[col + e] : out;
                        }
                    }
                }
            }
        }
    }
}

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int GROUP_M>
__global__ void __launch_bounds__(BM / WM * BN / WN * 32, TM * TN <= 64 ? 2 : 1)
sgemm_general(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B, float beta,
              float* __restrict__ C) {
    constexpr int THREADS = (BM / WM) * (BN / WN) * 32;
    constexpr int LM = WM / TM, LN = WN / TN;
    static_assert(LM * LN == 32 && LM <= 8 && LN <= 8, "a warp is an LM x LN lane grid with at most 8 lanes a side");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BM % 32 == 0 && BK % 8 == 0, "4x4 pieces; pad; 8-k rows per warp");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0, "whole copies per thread");
    static_assert(GROUP_M >= 1, "GROUP_M 1 is plain row-major order");

    __shared__ __align__(16) float As[2 * BK * APitch<BM, BN, BK>::value];  // two stages
    __shared__ __align__(16) float Bs[2 * BK * BN];

    int pid_m = blockIdx.y, pid_n = blockIdx.x;
    if (GROUP_M > 1) {
        // the block's number in launch order, renumbered group by group of GROUP_M block-rows, column-major inside
        // a group (Triton's tutorial swizzle); 64-bit because gridDim.x * gridDim.y may pass 2^31
        const long long grid_n = gridDim.x, grid_m = gridDim.y;
        const long long pid = (long long)blockIdx.y * grid_n + blockIdx.x;
        const long long per_group = GROUP_M * grid_n;
        const long long first_m = (pid / per_group) * GROUP_M;
        const long long rows = min(grid_m - first_m, (long long)GROUP_M);
        pid_m = (int)(first_m + (pid % per_group) % rows);
        pid_n = (int)((pid % per_group) / rows);
    }
    const int bm0 = pid_m * BM, bn0 = pid_n * BN;

    const bool vec = K % 4 == 0 && N % 4 == 0 &&
                     ((reinterpret_cast<unsigned long long>(A) | reinterpret_cast<unsigned long long>(B) |
                       reinterpret_cast<unsigned long long>(C)) & 15ull) == 0;
    if (vec) {
        sgemm_general_body<BM, BN, BK, WM, WN, TM, TN, true>(M, N, K, alpha, A, B, beta, C, bm0, bn0, As, Bs);
    } else {
        sgemm_general_body<BM, BN, BK, WM, WN, TM, TN, false>(M, N, K, alpha, A, B, beta, C, bm0, bn0, As, Bs);
    }
}
