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

namespace rosetta_wgmma {

// Shared-memory address of a generic pointer, in PTX so that no CUDA header is needed under NVRTC.
__device__ __forceinline__ unsigned smem_u32(const void* p) {
    unsigned r;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(r) : "l"(p));
    return r;
}

// wgmma shared-memory matrix descriptor for a K-major tile stored with the 128-byte swizzle: rows of 128 bytes
// (32 floats), 8-row atoms of 1024 bytes. Fields (16-byte units): start address (bits 0-13), leading byte offset
// (16-29, unused when one instruction's K extent, 32 bytes, stays inside the 128-byte swizzle row: set to 1),
// stride byte offset (32-45: 1024, the distance between 8-row atoms), swizzle mode (62-63: 1 = 128-byte).
__device__ __forceinline__ unsigned long long smem_desc(unsigned addr) {
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((unsigned long long)(1024 >> 4) << 32) |
           (1ull << 62);
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Grouped block order (GROUP tile rows walked before moving right), so the tiles running together share A rows
// and B columns in L2.
template <int GROUP>
__device__ __forceinline__ void grouped_tile(int id, int tiles_m, int tiles_n, int& tm, int& tn) {
    const int per_group = GROUP * tiles_n;
    const int first_m = (id / per_group) * GROUP;
    const int rows = min(tiles_m - first_m, GROUP);
    const int in_group = id % per_group;
    tm = first_m + in_group % rows;
    tn = in_group / rows;
}

// Stores one warpgroup's 64 x NT accumulator tile: warp w of the group owns rows 16 w .. 16 w + 15; lane (g =
// lane / 4, t = lane % 4) holds, for each 8-column slice i, (row g, cols 8 i + 2 t, +1) in d[4 i], d[4 i + 1] and
// (row g + 8, same cols) in d[4 i + 2], d[4 i + 3]. beta == 0 never reads C.
template <int NT>
__device__ __forceinline__ void store_tile(const float (&d)[NT / 2], float* __restrict__ C, int N, int row0, int col0,
                                           float alpha, float beta) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    const int g = lane / 4, t = lane % 4;
    float* c0 = C + (long long)(row0 + warp * 16 + g) * N + col0 + 2 * t;
    float* c1 = c0 + 8ll * N;
#pragma unroll
    for (int i = 0; i < NT / 8; ++i) {
        float2 v0 = make_float2(alpha * d[4 * i], alpha * d[4 * i + 1]);
        float2 v1 = make_float2(alpha * d[4 * i + 2], alpha * d[4 * i + 3]);
        if (beta != 0.0f) {
            const float2 o0 = *reinterpret_cast<const float2*>(c0 + 8 * i);
            const float2 o1 = *reinterpret_cast<const float2*>(c1 + 8 * i);
            v0.x += beta * o0.x; v0.y += beta * o0.y; v1.x += beta * o1.x; v1.y += beta * o1.y;
        }
        *reinterpret_cast<float2*>(c0 + 8 * i) = v0;
        *reinterpret_cast<float2*>(c1 + 8 * i) = v1;
    }
}

// wgmma tf32 m64n128k8 (64 fp32 accumulators per thread): D = A B + (scale_d ? D : 0).
__device__ __forceinline__ void wgmma_tf32(float (&d)[64], unsigned long long da, unsigned long long db,
                                           int scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1;\n}\n"
        :
          "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db), "r"(scale_d));
}

// The driver's CUtensorMap (an opaque 128-byte, 64-byte aligned struct), declared here because NVRTC sees no
// CUDA headers. Passed by value as a __grid_constant__ parameter: the copy engine reads it from parameter space.
struct alignas(64) TensorMap {
    unsigned long long opaque[16];
};

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
    asm volatile(
        "{\n.reg .pred done;\nWAIT_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT_%=;\n}\n" ::"r"(bar), "r"(parity) : "memory");
}

// One 2-D tile (box) global -> shared through the copy engine; completion counted in bytes on the mbarrier.
// c0 is the innermost coordinate (the K element index), c1 the row.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TensorMap* map, int c0, int c1, unsigned bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
        ::"r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(bar) : "memory");
}

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int A_BYTES = BM * BK * 4, B_BYTES = BN * BK * 4;
constexpr int RAW = A_BYTES + B_BYTES;  // a stage: the raw A and Bt tiles, then their remainders
constexpr int STAGE_BYTES = 2 * RAW;
constexpr int CONSUMER_WARPS = 8;       // every consumer warp's lane 0 arrives on the empty barrier
constexpr int SPLIT_THREADS = 96;       // warps 1-3 of the producer warpgroup

// x's upper 19 bits (sign, exponent, 10 mantissa bits): the tf32 value the tensor core reads from an fp32 operand.
__device__ __forceinline__ float tf32_trunc(float x) { return __uint_as_float(__float_as_uint(x) & 0xffffe000u); }

// Round to the nearest tf32 (ties away from zero), returned as an fp32 whose low 13 bits are zero, so that the
// tensor core's truncation reads it exactly.
__device__ __forceinline__ float tf32_rna(float x) {
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return __uint_as_float(r);
}

// x - tf32_trunc(x) is exact in fp32 (it is x's low 13 mantissa bits); rounding it to tf32 costs at most 2^-11 of
// itself, under 2^-21 of x.
__device__ __forceinline__ float remainder_tf32(float x) { return tf32_rna(x - tf32_trunc(x)); }

// Tells the compiler that the wgmma in flight may still write these registers: it keeps every read of them after
// the wgmma_wait that precedes this fence.
template <int N>
__device__ __forceinline__ void fence_operands(float (&d)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// Warp 0 lane 0 of the producer warpgroup: keeps STAGES stages of raw tiles in flight.
template <int STAGES, int GROUP>
__device__ __forceinline__ void load(unsigned base, unsigned full0, unsigned empty0, const TensorMap* mapA,
                                     const TensorMap* mapB, int tiles_m, int tiles_n, int ktiles, int first,
                                     int step) {
    int it = 0;
    for (int tile = first; tile < tiles_m * tiles_n; tile += step) {
        int tm, tn;
        grouped_tile<GROUP>(tile, tiles_m, tiles_n, tm, tn);
        for (int kt = 0; kt < ktiles; ++kt, ++it) {
            const int s = it % STAGES;
            if (it >= STAGES) mbar_wait(empty0 + 8 * s, ((it / STAGES) + 1) & 1);
            const unsigned bar = full0 + 8 * s;
            mbar_expect_tx(bar, RAW);
            tma_load_2d(base + s * STAGE_BYTES, mapA, kt * BK, tm * BM, bar);
            tma_load_2d(base + s * STAGE_BYTES + A_BYTES, mapB, kt * BK, tn * BN, bar);
        }
    }
}

// Warps 1-3 of the producer warpgroup: write the remainders of every landed stage, then mark it ready. `stage0`
// is the generic address of stage 0; each thread takes every 96th float4 of a stage's raw tiles.
template <int STAGES>
__device__ __forceinline__ void split(unsigned char* stage0, unsigned full0, unsigned ready0, int iterations) {
    const int t = threadIdx.x - 32;
    for (int it = 0; it < iterations; ++it) {
        const int s = it % STAGES;
        mbar_wait(full0 + 8 * s, (it / STAGES) & 1);
        const float4* raw = reinterpret_cast<const float4*>(stage0 + s * STAGE_BYTES);
        float4* small = reinterpret_cast<float4*>(stage0 + s * STAGE_BYTES + RAW);
#pragma unroll 4
        for (int i = t; i < RAW / 16; i += SPLIT_THREADS) {
            const float4 x = raw[i];
            small[i] = make_float4(remainder_tf32(x.x), remainder_tf32(x.y), remainder_tf32(x.z),
                                   remainder_tf32(x.w));
        }
        // Generic-proxy writes must be made visible to wgmma, which reads shared memory through the async proxy.
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        mbar_arrive(ready0 + 8 * s);
    }
}

// One K tile's twelve wgmma (three per 8-deep step: the two remainder products first, then big x big) into `p`;
// first_scale = 0 makes the first of them overwrite `p` (scale-d = 0), 1 adds to what `p` holds.
__device__ __forceinline__ void k_tile(float (&p)[BN / 2], unsigned stage, int c, int first_scale) {
    const unsigned a_big = stage + c * 64 * 128, b_big = stage + A_BYTES;
    const unsigned a_small = a_big + RAW, b_small = b_big + RAW;
#pragma unroll
    for (int k = 0; k < BK / 8; ++k) {
        wgmma_tf32(p, smem_desc(a_small + 32 * k), smem_desc(b_big + 32 * k), k == 0 ? first_scale : 1);
        wgmma_tf32(p, smem_desc(a_big + 32 * k), smem_desc(b_small + 32 * k), 1);
        wgmma_tf32(p, smem_desc(a_big + 32 * k), smem_desc(b_big + 32 * k), 1);
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
    extern __shared__ unsigned char smem_raw[];
    __shared__ __align__(8) unsigned long long full[STAGES], ready[STAGES], empty[STAGES];
    const unsigned raw0 = smem_u32(smem_raw);
    const unsigned base = (raw0 + 1023) & ~1023u;
    const unsigned full0 = smem_u32(&full[0]), ready0 = smem_u32(&ready[0]), empty0 = smem_u32(&empty[0]);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full0 + 8 * s, 1);
            mbar_init(ready0 + 8 * s, SPLIT_THREADS);
            mbar_init(empty0 + 8 * s, CONSUMER_WARPS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    const int first = blockIdx.y * gridDim.x + blockIdx.x, step = gridDim.x * gridDim.y;
    const int tiles = (M / BM) * (N / BN), ktiles = K / BK;
    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        // The producer warpgroup keeps 40 registers (the split needs a dozen live values), the consumers take
        // the rest: 40 * 128 + 232 * 256 = 64512 of the SM's 65536.
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0) {
            load<STAGES, GROUP>(base, full0, empty0, &mapA, &mapB, M / BM, N / BN, ktiles, first, step);
        } else if (threadIdx.x >= 32) {
            const int mine = first < tiles ? (tiles - 1 - first) / step + 1 : 0;
            split<STAGES>(smem_raw + (base - raw0), full0, ready0, mine * ktiles);
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        consume<STAGES, GROUP>(base, ready0, empty0, wg - 1, M, N, ktiles, first, step, alpha, beta, C);
    }
}
