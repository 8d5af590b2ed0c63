// seed:       none (tile-rosetta's own: continues 000_680cc5a5f868a384.txt's closing "Tensor Cores" step)
// section:    none
// kernel:     tc_gemm_tf32<BM, BN, BK, WARPS_M, WARPS_N, STAGES, MIN_BLOCKS, B_KMAJOR>
//             tc_gemm_3xtf32<BM, BN, BK, WARPS_M, WARPS_N, STAGES, MIN_BLOCKS, B_KMAJOR>
// launch:     threads WARPS_M * WARPS_N * 32 (1-D); blocks (cdiv(N, BN), cdiv(M, BM)); dynamic shared memory
//             STAGES * (BM * BK + (B_KMAJOR ? BN * BK : BK * (BN + 8))) * 4 bytes (101376 for <128, 128, 32, 2, 4,
//             3, 1, false>, 98304 with K-major B): over 48 KB, so the launcher raises the function's max dynamic
//             shared size first; launched with less, the kernel writes NaN over its C tile instead of computing
// computes:   C = alpha * A B + beta * C, A row-major M x K, C row-major M x N; B is row-major K x N when B_KMAJOR is
//             false, and is given as Bt = B^T (N x K row-major, i.e. K-major B) when it is true; with beta == 0, C
//             is only written (never read, so NaN in C cannot leak)
//             precision: tc_gemm_tf32 is TF32 (both operands rounded to nearest even to 10 mantissa bits, products
//             summed in fp32 by the tensor core); tc_gemm_3xtf32 is 3xTF32 (x = big + small, big = x rounded to
//             tf32, small = tf32(x - big); small*big + big*small + big*big per 8-deep step, each K tile summed from
//             zero and added to the running sum with a rounded fp32 add): fp32-accurate
// limits:     any M, N, K >= 1 (every tile load is predicated, K tails are zero-filled, stores are masked); cdiv(M,
//             BM) <= 65535 (gridDim.y: a larger M fails to launch); row offsets are 64-bit, so M * K, K * N, M * N
//             may pass 2^31; 16-byte copies need K (and N, for row-major B) to be a multiple of 4 and A, B 16-byte
//             aligned, otherwise the same kernel takes a 4-byte copy path (slower, same result); 3xTF32 turns an
//             infinite input into NaN (small = Inf - Inf, as in every 3xTF32 scheme; TF32 keeps Inf), and so does
//             a finite input within 2^-12 of FLT_MAX, whose tf32 rounding overflows
// adds:       tensor cores through mma.sync.m16n8k8 tf32 (HMMA); a cp.async multi-stage shared-memory pipeline;
//             ldmatrix for 32-bit fragments; swizzled (A, Bt) or padded (row-major B) shared layouts without bank
//             conflicts; a permuted B fragment so that row-major B is read with 16-byte loads; fragments double-
//             buffered in registers; grouped block order for L2 reuse; the 3xTF32 operand split
// design:     one block computes a BM x BN tile of C; its WARPS_M x WARPS_N warps each own a (BM / WARPS_M) x
//             (BN / WARPS_N) sub-tile made of 16 x 8 mma.sync tiles; the fp32 accumulators stay in registers for
//             all of K
//             why mma.sync and not wgmma: Hopper's full tensor rate needs wgmma (HGMMA), which exists only for the
//             sm_90a target; CuPy appends -arch=sm_90 to every NVRTC compile, so wgmma cannot be assembled on this
//             path. mma.sync (HMMA) is the tensor-core instruction of every sm_80+ target: this is the Ampere-style
//             design run on Hopper: its tensor-pipe activity (ncu, `rosetta profile`, in the report) bounds what it
//             can reach, well under wgmma's rate
//             pipeline: STAGES shared-memory buffers filled by cp.async.cg (16-byte global -> shared copies that
//             bypass registers and L1); STAGES - 1 tiles are in flight while one is computed; one barrier per K
//             tile both publishes the tile that landed and retires the buffer the next copy overwrites
//             A fragments: the m16n8k8 tf32 A fragment of lane (g = lane / 4, t = lane % 4) is rows g, g + 8 and
//             columns t, t + 4; ldmatrix.x4 (a b16 instruction) hands lane l word l % 4 of row l / 4 of each 8 x 8
//             b16 matrix, which read as 32-bit words is exactly an 8-row x 4-float block: one ldmatrix.x4 gives
//             the four A registers of one 16 x 8 tile
//             A shared layout: a row of BK = 32 floats is 128 bytes, so the 8 rows one ldmatrix phase reads would
//             all hit the same banks; the 16-byte chunk index is XORed with (row % 8), which spreads them over all
//             32 banks with no padding (the pattern of Hopper's 128-byte swizzle)
//             B fragment: lane (g, t) needs B[k = t][n = g] and B[k = t + 4][n = g]. ldmatrix.trans transposes
//             16-bit elements only, so row-major fp32 B cannot be handed out by ldmatrix. Instead the n index of
//             each mma tile is permuted: in a 32-column group, mma tile j's column g is global column 4 g + j, so
//             one 16-byte load of B[k][4 g .. 4 g + 3] gives lane (g, t) its b0 for four mma tiles at once (two
//             16-byte loads per 8-deep k step instead of eight 4-byte ones). Row-major B rows are padded to BN + 8
//             floats, which makes those loads conflict-free (row stride = 8 banks). The price that remains is a
//             register move per fragment: HMMA wants b0, b1 of a tile in a register pair, and they come from two
//             different 16-byte loads (about 20% more instructions than the K-major loop)
//             the permutation is undone for free in the epilogue: lane (g, t) then owns 8 consecutive columns,
//             8 t .. 8 t + 7 of each 32-column group, and stores them as two float4
//             K-major Bt gets the same permuted mapping through ldmatrix (one ldmatrix.x4 = b0, b1 of two mma
//             tiles, already paired); its rows are 4 apart in a phase, so its swizzle XORs the chunk with (n / 4) % 8
//             TF32 rounds every fragment element with cvt.rn.tf32.f32 (one F2FP instruction on sm_90; the tensor
//             core would otherwise truncate the low 13 mantissa bits, a biased error twice as large) right before
//             its mma's; the loads were issued a whole k step earlier
//             3xTF32 splits each element into big and small in registers after the shared-memory load, so shared
//             memory and global traffic are those of TF32 and only the mma count triples. The three products of a
//             K tile accumulate from zero in a second register tile, which is added to the running sum with FADD:
//             the tensor core's accumulation does not round to nearest, and carrying the whole K sum through it
//             gave a forward error of 3.3e-6 at 4096^3, ten times cuBLAS fp32's 3.1e-7; per-tile sums give 7e-8
//             block order: consecutive block ids walk down a group of 8 block rows before moving right, so the
//             blocks resident together share A rows and B columns in L2
//             the 16-byte path needs 16-byte aligned rows; whether it is safe is decided once per kernel from K, N
//             and the pointers (uniform over the grid); the 4-byte path uses cp.async.ca with zero fill
//             rows and columns past M, N are zero-filled rather than skipped, so every barrier and every mma is
//             reached by every thread

namespace rosetta_tc {

// Shared-memory address of a generic pointer, in PTX so that no CUDA header is needed under NVRTC.
__device__ __forceinline__ unsigned smem_u32(const void* p) {
    unsigned r;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(r) : "l"(p));
    return r;
}

// 16-byte global -> shared copy; src_bytes 0 zero-fills the destination without reading the source.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, bool valid) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0)
                 : "memory");
}

// 4-byte copy for unaligned rows (.cg only takes 16 bytes, .ca takes 4, 8 or 16).
__device__ __forceinline__ void cp_async_4(unsigned dst, const void* src, bool valid) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 4 : 0)
                 : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int N>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void ldsm_x4(unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3, unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr));
}

// fp32 -> tf32 operand, round to nearest even: one native instruction on sm_90 (F2FP.TF32), Inf and NaN kept.
// PTX leaves the bit layout of a tf32 register to the implementation, so this value only feeds mma.
__device__ __forceinline__ unsigned to_tf32(unsigned x) {
    unsigned r;
    asm("cvt.rn.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(x)));
    return r;
}

// 3xTF32 split of one fp32 value: big = x rounded to 10 mantissa bits as an exact fp32 number (adding half a tf32
// ulp to the bit pattern and clearing the 13 low bits is round to nearest, ties away, carries into the exponent
// included), small = tf32(x - big), where x - big is exact. A NaN x leaves big meaningless but small NaN, so NaN
// still propagates; an infinite x gives small = Inf - Inf = NaN, as in every 3xTF32 scheme.
__device__ __forceinline__ void split_tf32(unsigned x, unsigned& big, unsigned& small) {
    big = (x + 0x1000u) & 0xffffe000u;
    small = to_tf32(__float_as_uint(__uint_as_float(x) - __uint_as_float(big)));
}

// D = A * B + D for one 16 x 8 x 8 tile (row-major A fragment, column-major B fragment).
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, bool B_KMAJOR, bool SPLIT3>
struct TcGemm {
    static constexpr int THREADS = WARPS_M * WARPS_N * 32;
    static constexpr int WTM = BM / WARPS_M;  // warp tile
    static constexpr int WTN = BN / WARPS_N;
    static constexpr int MT = WTM / 16;       // mma tiles per warp
    static constexpr int NT = WTN / 8;
    static constexpr int NQ = WTN / 32;       // 32-column groups of the permuted B mapping
    static constexpr int A_STAGE = BM * BK;   // floats
    static constexpr int B_LD = B_KMAJOR ? BK : BN + 8;
    static constexpr int B_STAGE = B_KMAJOR ? BN * BK : BK * (BN + 8);
    static constexpr int GROUP_M = 8;
    static constexpr unsigned SMEM_BYTES = 4u * STAGES * (A_STAGE + B_STAGE);

    static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "the warps must split the block tile evenly");
    static_assert(WTM % 16 == 0 && WTN % 32 == 0, "a warp tile is 16-row mma tiles by 32-column groups");
    static_assert(BK % 32 == 0, "the swizzle permutes the 8 16-byte chunks of a 128-byte row");
    static_assert((BM * BK / 4) % THREADS == 0 && (BN * BK / 4) % THREADS == 0, "whole 16-byte copies per thread");
    static_assert(STAGES >= 2, "the pipeline needs at least two buffers");

    // 16-byte chunk c of a row whose swizzle key is x: the low 3 bits of c are XORed with x, so the 8 rows an
    // ldmatrix phase (or 8 threads of a copy) touch land in 8 different 16-byte bank groups.
    __device__ static __forceinline__ int swz(int c, int x) { return (c & ~7) | ((c ^ x) & 7); }

    // Float offsets inside one stage. A: key = row % 8; Bt: key = (n / 4) % 8, because the permuted mapping
    // reads rows 4 apart; row-major B: padded rows, no swizzle.
    __device__ static __forceinline__ int a_off(int m, int k) { return m * BK + swz(k >> 2, m) * 4 + (k & 3); }
    __device__ static __forceinline__ int b_off(int k, int n) {
        if (B_KMAJOR) return n * BK + swz(k >> 2, n >> 2) * 4 + (k & 3);
        return k * B_LD + n;
    }

    // Issue the copies of one K tile (rows m0.., columns n0.., depth k0..) into one stage (shared byte addresses).
    template <bool VEC>
    __device__ static __forceinline__ void load_tile(unsigned sA, unsigned sB, const float* A, const float* B, int M,
                                                     int N, int K, int m0, int n0, int k0, int tid) {
        if (VEC) {
            constexpr int CH = BK / 4;  // 16-byte chunks per row of A / Bt
#pragma unroll
            for (int i = 0; i < BM * CH / THREADS; ++i) {
                const int id = tid + i * THREADS;
                const int r = id / CH, k = (id % CH) * 4;
                const bool ok = m0 + r < M && k0 + k < K;
                const float* src = ok ? A + (long long)(m0 + r) * K + (k0 + k) : A;
                cp_async_16(sA + 4 * a_off(r, k), src, ok);
            }
            if (B_KMAJOR) {
#pragma unroll
                for (int i = 0; i < BN * CH / THREADS; ++i) {
                    const int id = tid + i * THREADS;
                    const int r = id / CH, k = (id % CH) * 4;
                    const bool ok = n0 + r < N && k0 + k < K;
                    const float* src = ok ? B + (long long)(n0 + r) * K + (k0 + k) : B;
                    cp_async_16(sB + 4 * b_off(k, r), src, ok);
                }
            } else {
                constexpr int CN = BN / 4;  // 16-byte chunks per row of B
#pragma unroll
                for (int i = 0; i < BK * CN / THREADS; ++i) {
                    const int id = tid + i * THREADS;
                    const int k = id / CN, n = (id % CN) * 4;
                    const bool ok = k0 + k < K && n0 + n < N;
                    const float* src = ok ? B + (long long)(k0 + k) * N + (n0 + n) : B;
                    cp_async_16(sB + 4 * b_off(k, n), src, ok);
                }
            }
        } else {
            // One float per copy; consecutive threads take consecutive addresses of a row.
#pragma unroll 4
            for (int id = tid; id < BM * BK; id += THREADS) {
                const int r = id / BK, k = id % BK;
                const bool ok = m0 + r < M && k0 + k < K;
                const float* src = ok ? A + (long long)(m0 + r) * K + (k0 + k) : A;
                cp_async_4(sA + 4 * a_off(r, k), src, ok);
            }
#pragma unroll 4
            for (int id = tid; id < BN * BK; id += THREADS) {
                const int k = B_KMAJOR ? id % BK : id / BN;
                const int n = B_KMAJOR ? id / BK : id % BN;
                const bool ok = k0 + k < K && n0 + n < N;
                const float* src = !ok       ? B
                                   : B_KMAJOR ? B + (long long)(n0 + n) * K + (k0 + k)
                                              : B + (long long)(k0 + k) * N + (n0 + n);
                cp_async_4(sB + 4 * b_off(k, n), src, ok);
            }
        }
    }

    // The fragments of one 8-deep k step: A through ldmatrix, B through ldmatrix (Bt) or 16-byte loads (B).
    __device__ static __forceinline__ void load_fragments(unsigned (&a)[MT][4], unsigned (&b)[NT][2], unsigned sA,
                                                          unsigned sB, const float* Bs, int kk, int warp_m,
                                                          int warp_n, int lane) {
        const int mat = lane >> 3, r8 = lane & 7;
#pragma unroll
        for (int i = 0; i < MT; ++i) {
            // matrices 0..3 = rows 0-7 / 8-15 at k 0-3, then rows 0-7 / 8-15 at k 4-7: a0, a1, a2, a3
            const int m = warp_m + i * 16 + (mat & 1) * 8 + r8;
            ldsm_x4(a[i][0], a[i][1], a[i][2], a[i][3], sA + 4 * a_off(m, kk + (mat >> 1) * 4));
        }
#pragma unroll
        for (int q = 0; q < NQ; ++q) {
            if (B_KMAJOR) {
#pragma unroll
                for (int p = 0; p < 2; ++p) {
                    // matrices (tile j, b0), (j, b1), (j + 1, b0), (j + 1, b1) with j = 4q + 2p; row r of tile j is
                    // column 4 r + (j % 4) of the 32-column group q
                    const int j = 4 * q + 2 * p;
                    const int n = warp_n + q * 32 + r8 * 4 + 2 * p + (mat >> 1);
                    ldsm_x4(b[j][0], b[j][1], b[j + 1][0], b[j + 1][1], sB + 4 * b_off(kk + (mat & 1) * 4, n));
                }
            } else {
                const int g = lane >> 2, t = lane & 3;
                const int n = warp_n + q * 32 + g * 4;
                const float4 lo = *reinterpret_cast<const float4*>(Bs + b_off(kk + t, n));
                const float4 hi = *reinterpret_cast<const float4*>(Bs + b_off(kk + t + 4, n));
                b[4 * q + 0][0] = __float_as_uint(lo.x);
                b[4 * q + 1][0] = __float_as_uint(lo.y);
                b[4 * q + 2][0] = __float_as_uint(lo.z);
                b[4 * q + 3][0] = __float_as_uint(lo.w);
                b[4 * q + 0][1] = __float_as_uint(hi.x);
                b[4 * q + 1][1] = __float_as_uint(hi.y);
                b[4 * q + 2][1] = __float_as_uint(hi.z);
                b[4 * q + 3][1] = __float_as_uint(hi.w);
            }
        }
    }

    // The mma's of one 8-deep k step. TF32: d += tf32(a) tf32(b). 3xTF32: d += a_small b_big + a_big b_small +
    // a_big b_big, the small products first.
    __device__ static __forceinline__ void mma_step(float (&d)[MT][NT][4], unsigned (&a)[MT][4],
                                                    unsigned (&b)[NT][2]) {
        if (SPLIT3) {
            unsigned b_small[NT][2];
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int r = 0; r < 2; ++r) split_tf32(b[j][r], b[j][r], b_small[j][r]);
            // One A tile at a time: its big and small parts live only while its row of the warp tile is updated.
            // Each pass over j issues NT independent mma's, so a dependent pair is NT mma's apart.
#pragma unroll
            for (int i = 0; i < MT; ++i) {
                unsigned a_big[4], a_small[4];
#pragma unroll
                for (int r = 0; r < 4; ++r) split_tf32(a[i][r], a_big[r], a_small[r]);
#pragma unroll
                for (int j = 0; j < NT; ++j) mma_tf32(d[i][j], a_small, b[j]);
#pragma unroll
                for (int j = 0; j < NT; ++j) mma_tf32(d[i][j], a_big, b_small[j]);
#pragma unroll
                for (int j = 0; j < NT; ++j) mma_tf32(d[i][j], a_big, b[j]);
            }
        } else {
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int r = 0; r < 4; ++r) a[i][r] = to_tf32(a[i][r]);
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int r = 0; r < 2; ++r) b[j][r] = to_tf32(b[j][r]);
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) mma_tf32(d[i][j], a[i], b[j]);
        }
    }

    template <bool VEC>
    __device__ static __forceinline__ void mainloop(float (&acc)[MT][NT][4], float* smem, const float* A,
                                                    const float* B, int M, int N, int K, int m0, int n0, int tid) {
        constexpr int KSTEPS = BK / 8;
        static_assert(KSTEPS % 2 == 0, "fragment buffers alternate per k step and must line up across tiles");
        // Shared memory as 32-bit shared-window addresses: one conversion here, plain integer offsets after.
        const unsigned sA0 = smem_u32(smem);
        const unsigned sB0 = sA0 + 4 * STAGES * A_STAGE;
        const float* Bs0 = smem + STAGES * A_STAGE;
        const int lane = tid & 31, warp = tid >> 5;
        const int warp_m = (warp / WARPS_N) * WTM, warp_n = (warp % WARPS_N) * WTN;
        const int ktiles = (K + BK - 1) / BK;  // >= 1
        // Prologue: STAGES - 1 tiles in flight. A group is committed even when empty, so that wait_group's count
        // always means "the oldest tile not yet computed has landed".
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < ktiles)
                load_tile<VEC>(sA0 + 4 * s * A_STAGE, sB0 + 4 * s * B_STAGE, A, B, M, N, K, m0, n0, s * BK, tid);
            cp_async_commit();
        }
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        // Fragments are double-buffered in registers: the shared-memory loads of k step ks + 1 are issued before
        // the mma's of step ks, so their latency hides behind tensor-core work even with only 8 warps per SM
        // (faster, when tuning, than loading each step's fragments right before its mma's).
        unsigned fa[2][MT][4], fb[2][NT][2];
        load_fragments(fa[0], fb[0], sA0, sB0, Bs0, 0, warp_m, warp_n, lane);
        for (int kt = 0; kt < ktiles; ++kt) {
            const int s = kt % STAGES;
            // 3xTF32 sums each K tile in its own accumulator, started at zero, and adds it to acc in fp32 (FADD,
            // rounded to nearest). The tensor core's own accumulation does not round to nearest; carrying the
            // running sum through thousands of mma's costs more than a decimal digit, which is what a 3xTF32
            // GEMM is written to keep. TF32 accumulates in place: its error is the operand rounding.
            float tacc[MT][NT][4];  // 3xTF32 only (dead, and removed, in TF32)
            if constexpr (SPLIT3) {
#pragma unroll
                for (int i = 0; i < MT; ++i)
#pragma unroll
                    for (int j = 0; j < NT; ++j)
#pragma unroll
                        for (int r = 0; r < 4; ++r) tacc[i][j][r] = 0.0f;
            }
#pragma unroll
            for (int ks = 0; ks < KSTEPS; ++ks) {
                if (ks == 0) {
                    // Refill the buffer of tile kt - 1: every warp read its last fragments before the barrier
                    // that ended tile kt - 1.
                    const int next = kt + STAGES - 1;
                    if (next < ktiles) {
                        const int sn = next % STAGES;
                        load_tile<VEC>(sA0 + 4 * sn * A_STAGE, sB0 + 4 * sn * B_STAGE, A, B, M, N, K, m0, n0,
                                       next * BK, tid);
                    }
                    cp_async_commit();
                }
                if (ks < KSTEPS - 1) {
                    load_fragments(fa[(ks + 1) & 1], fb[(ks + 1) & 1], sA0 + 4 * s * A_STAGE,
                                   sB0 + 4 * s * B_STAGE, Bs0 + s * B_STAGE, (ks + 1) * 8, warp_m, warp_n, lane);
                } else {
                    // Last step of the tile: wait until tile kt + 1 has landed (and every warp is done with tile
                    // kt's shared memory), then fetch its first fragments before this step's mma's.
                    cp_async_wait<STAGES - 2>();
                    __syncthreads();
                    if (kt + 1 < ktiles) {
                        const int sn = (kt + 1) % STAGES;
                        load_fragments(fa[0], fb[0], sA0 + 4 * sn * A_STAGE, sB0 + 4 * sn * B_STAGE,
                                       Bs0 + sn * B_STAGE, 0, warp_m, warp_n, lane);
                    }
                }
                // The fragments are rounded (TF32) or split (3xTF32) here, right before their mma's. Rounding the
                // next step's fragments after this step's mma's instead was slower when tuning (more live
                // registers: more spills in the 64 x 64 warp tiles, and no gain in the others)
                mma_step(SPLIT3 ? tacc : acc, fa[ks & 1], fb[ks & 1]);
            }
            if constexpr (SPLIT3) {
#pragma unroll
                for (int i = 0; i < MT; ++i)
#pragma unroll
                    for (int j = 0; j < NT; ++j)
#pragma unroll
                        for (int r = 0; r < 4; ++r) acc[i][j][r] += tacc[i][j][r];
            }
        }
        cp_async_wait<0>();
    }

    __device__ static __forceinline__ void run(int M, int N, int K, float alpha, const float* A, const float* B,
                                               float beta, float* C) {
        extern __shared__ __align__(128) float smem[];
        // Grouped block order (as in Triton's matmul tutorial): GROUP_M block rows are walked top to bottom
        // before the next block column.
        const int grid_n = gridDim.x, grid_m = gridDim.y;
        const long long pid = (long long)blockIdx.y * grid_n + blockIdx.x;
        const long long per_group = (long long)GROUP_M * grid_n;
        const int first_m = (int)(pid / per_group) * GROUP_M;
        const int rows_in_group = grid_m - first_m < GROUP_M ? grid_m - first_m : GROUP_M;
        const int in_group = (int)(pid % per_group);
        const int m0 = (first_m + in_group % rows_in_group) * BM;
        const int n0 = (in_group / rows_in_group) * BN;

        const int tid = threadIdx.x;
        // Launched with too little dynamic shared memory, the stages would overlap memory the block does not own:
        // write NaN over the tile instead, which every check flags, and leave the context usable.
        unsigned dyn_smem;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn_smem));
        if (dyn_smem < SMEM_BYTES) {
            for (int e = tid; e < BM * BN; e += THREADS) {
                const int row = m0 + e / BN, col = n0 + e % BN;
                if (row < M && col < N) C[(long long)row * N + col] = __uint_as_float(0x7fc00000u);
            }
            return;
        }
        float acc[MT][NT][4];
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;

        const unsigned long long ab = reinterpret_cast<unsigned long long>(A) | reinterpret_cast<unsigned long long>(B);
        const bool vec = K % 4 == 0 && (B_KMAJOR || N % 4 == 0) && (ab & 15ull) == 0;
        if (vec) {
            mainloop<true>(acc, smem, A, B, M, N, K, m0, n0, tid);
        } else {
            mainloop<false>(acc, smem, A, B, M, N, K, m0, n0, tid);
        }

        // Epilogue: lane (g, t) holds, for rows g and g + 8 of each 16-row mma tile and each 32-column group,
        // columns 8 t .. 8 t + 7: mma column 2 t + h of tile 4 q + jj is global column 8 t + 4 h + jj.
        const int lane = tid & 31, warp = tid >> 5;
        const int g = lane >> 2, t = lane & 3;
        const int row0 = m0 + (warp / WARPS_N) * WTM + g;
        const int col0 = n0 + (warp % WARPS_N) * WTN + 8 * t;
        const bool vec_c = N % 4 == 0 && (reinterpret_cast<unsigned long long>(C) & 15ull) == 0;
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int rr = 0; rr < 2; ++rr) {
                const int row = row0 + i * 16 + rr * 8;
                if (row >= M) continue;
                float* c_row = C + (long long)row * N;
#pragma unroll
                for (int q = 0; q < NQ; ++q)
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const int col = col0 + q * 32 + 4 * h;
                        float v[4];
#pragma unroll
                        for (int jj = 0; jj < 4; ++jj) v[jj] = alpha * acc[i][4 * q + jj][2 * rr + h];
                        if (vec_c) {
                            // N % 4 == 0 and col % 4 == 0: a float4 is either wholly inside the row or wholly past N
                            if (col < N) {
                                float4* p = reinterpret_cast<float4*>(c_row + col);
                                if (beta != 0.0f) {
                                    const float4 old = *p;
                                    v[0] += beta * old.x;
                                    v[1] += beta * old.y;
                                    v[2] += beta * old.z;
                                    v[3] += beta * old.w;
                                }
                                *p = make_float4(v[0], v[1], v[2], v[3]);
                            }
                        } else {
#pragma unroll
                            for (int jj = 0; jj < 4; ++jj) {
                                if (col + jj < N) {
                                    float* p = c_row + col + jj;
                                    *p = beta != 0.0f ? v[jj] + beta * *p : v[jj];
                                }
                            }
                        }
                    }
            }
    }
};

}  // namespace rosetta_tc

// MIN_BLOCKS is the occupancy the register allocator must allow (__launch_bounds__' second argument): 2 caps a
// 256-thread block at 128 registers a thread so that two blocks share an SM.
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int MIN_BLOCKS, bool B_KMAJOR>
__launch_bounds__(WARPS_M * WARPS_N * 32, MIN_BLOCKS) __global__ void tc_gemm_tf32(
    int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B, float beta,
    float* __restrict__ C) {
    rosetta_tc::TcGemm<BM, BN, BK, WARPS_M, WARPS_N, STAGES, B_KMAJOR, false>::run(M, N, K, alpha, A, B, beta, C);
}

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int MIN_BLOCKS, bool B_KMAJOR>
__launch_bounds__(WARPS_M * WARPS_N * 32, MIN_BLOCKS) __global__ void tc_gemm_3xtf32(
    int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B, float beta,
    float* __restrict__ C) {
    rosetta_tc::TcGemm<BM, BN, BK, WARPS_M, WARPS_N, STAGES, B_KMAJOR, true>::run(M, N, K, alpha, A, B, beta, C);
}
