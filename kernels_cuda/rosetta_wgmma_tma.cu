// seed:       none (tile-rosetta's own: continues 000_680cc5a5f868a384.txt's closing "Tensor Cores" step, after
//             rosetta.wgmma_smem)
// section:    none
// kernel:     wgmma_tma_tf32<STAGES>
// launch:     threads 256 (two warpgroups, 1-D); blocks (cdiv(N, 128), cdiv(M, 128)), or any
//             grid of that many blocks (the linear block id is walked in grouped order);
//             dynamic shared memory STAGES * 32768 + 1024 bytes (132096 for STAGES = 4); needs sm_90a
//             arguments: M, N, K, alpha, A, B, beta, C as every GEMM of the suite (A and B are not dereferenced:
//             the copy engine reads them through the maps), then two tensor maps by value, mapA and mapB, encoded
//             on the host with cuTensorMapEncodeTiled: fp32, 2-D {K, rows} (K innermost), row stride K * 4 bytes,
//             box {32, 128}, 128-byte swizzle, no interleave, L2 promotion 256 B, out-of-bounds fill zero
// computes:   C = alpha * A B + beta * C, A row-major M x K, B given K-major as Bt = B^T (N x K row-major), C
//             row-major M x N; with beta == 0, C is only written (never read)
//             precision: TF32 (the tensor core reads each fp32 operand's upper 19 bits: truncated, not rounded),
//             products summed in fp32
// limits:     M % 128 == 0, N % 128 == 0, K % 32 == 0 (no predication: every tile is whole); A, Bt and C
//             16-byte aligned (A, Bt: tensor-map rules; C: float2 stores need 8 bytes, the registry asks 16);
//             row offsets are 64-bit
// adds:       (to rosetta.wgmma_smem) loads by the copy engine: one cp.async.bulk.tensor.2d per operand and stage,
//             issued by a single thread, writing the 128-byte swizzled layout itself (the tensor map's swizzle
//             mode), completion counted in bytes on one mbarrier per stage (expect_tx, try_wait.parity); no
//             per-thread address arithmetic or copy instructions, no proxy fence (the copy engine and wgmma are
//             both async-proxy)
// design:     tile, warpgroups and descriptors as rosetta.wgmma_smem; STAGES - 1 tiles in flight; in iteration
//             kt thread 0 issues tile kt + STAGES - 1 into the stage tile kt - 1 used, which every warpgroup has
//             finished (wgmma_wait 0, then the block barrier that ends iteration kt - 1); each warpgroup then
//             waits on stage kt's mbarrier with parity (kt / STAGES) % 2

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

// m64n128k8 tf32: 64 fp32 accumulators per thread, D += A B (scale-d = 1: the caller zeroes D first).
__device__ __forceinline__ void wgmma_m64n128k8(float (&d)[64], unsigned long long da, unsigned long long db) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(da), "l"(db));
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
constexpr int TILE_BYTES = BM * BK * 4;

}  // namespace rosetta_wgmma

template <int STAGES>
__launch_bounds__(256, 1) __global__ void wgmma_tma_tf32(int M, int N, int K, float alpha,
                                                         const float* __restrict__ A, const float* __restrict__ B,
                                                         float beta, float* __restrict__ C,
                                                         const __grid_constant__ rosetta_wgmma::TensorMap mapA,
                                                         const __grid_constant__ rosetta_wgmma::TensorMap mapB) {
    using namespace rosetta_wgmma;
    extern __shared__ unsigned char smem_raw[];
    __shared__ __align__(8) unsigned long long full[STAGES];
    const unsigned base = (smem_u32(smem_raw) + 1023) & ~1023u;
    const int tiles_m = M / BM, tiles_n = N / BN;
    int tm, tn;
    grouped_tile<8>(blockIdx.y * gridDim.x + blockIdx.x, tiles_m, tiles_n, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int wg = threadIdx.x / 128;
    const int ktiles = K / BK;

    if (threadIdx.x == 0) {
#pragma unroll
        for (int s = 0; s < STAGES; ++s) mbar_init(smem_u32(&full[s]), 1);
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES - 1 && s < ktiles; ++s) {
            const unsigned bar = smem_u32(&full[s]);
            mbar_expect_tx(bar, 2 * TILE_BYTES);
            tma_load_2d(base + s * 2 * TILE_BYTES, &mapA, s * BK, m0, bar);
            tma_load_2d(base + (s * 2 + 1) * TILE_BYTES, &mapB, s * BK, n0, bar);
        }
    }

    float d[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) d[i] = 0.0f;

    for (int kt = 0; kt < ktiles; ++kt) {
        const int next = kt + STAGES - 1;
        if (threadIdx.x == 0 && next < ktiles) {
            const int s = next % STAGES;
            const unsigned bar = smem_u32(&full[s]);
            mbar_expect_tx(bar, 2 * TILE_BYTES);
            tma_load_2d(base + s * 2 * TILE_BYTES, &mapA, next * BK, m0, bar);
            tma_load_2d(base + (s * 2 + 1) * TILE_BYTES, &mapB, next * BK, n0, bar);
        }
        const int s = kt % STAGES;
        mbar_wait(smem_u32(&full[s]), (kt / STAGES) & 1);
        const unsigned sa = base + s * 2 * TILE_BYTES + wg * 64 * 128, sb = base + (s * 2 + 1) * TILE_BYTES;
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < BK / 8; ++k) wgmma_m64n128k8(d, smem_desc(sa + 32 * k), smem_desc(sb + 32 * k));
        wgmma_commit();
        wgmma_wait<0>();
        __syncthreads();
    }
    store_tile<BN>(d, C, N, m0 + wg * 64, n0, alpha, beta);
}
