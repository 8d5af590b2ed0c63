// seed:       none (tile-rosetta's own: continues 000_680cc5a5f868a384.txt's closing "Tensor Cores" step, after
//             rosetta.tc_gemm's mma.sync rung)
// section:    none
// kernel:     wgmma_smem_tf32<STAGES>
// launch:     threads 256 (two warpgroups, 1-D); blocks (cdiv(N, 128), cdiv(M, 128)), or any grid of that many
//             blocks (the linear block id is walked in grouped order); dynamic shared memory STAGES * 32768 + 1024
//             bytes (132096 for STAGES = 4): over 48 KB, so the launcher raises the function's max dynamic shared
//             size first. Needs sm_90a.
// computes:   C = alpha * A B + beta * C, A row-major M x K, B given K-major as Bt = B^T (N x K row-major), C
//             row-major M x N; with beta == 0, C is only written (never read)
//             precision: TF32 (the tensor core reads each fp32 operand's upper 19 bits: sign, exponent and 10
//             mantissa bits, i.e. truncated, not rounded), products summed in fp32
// limits:     M % 128 == 0, N % 128 == 0, K % 32 == 0 (no predication: every tile is whole); A, Bt and C
//             16-byte aligned (A, Bt: 16-byte cp.async; C: float2 stores need 8 bytes, the registry asks 16);
//             row offsets are 64-bit
// adds:       (to rosetta.tc_gemm, mma.sync on HMMA) Hopper's warpgroup MMA: wgmma.mma_async m64n128k8 tf32
//             (HGMMA) with both operands read by the tensor core straight from shared memory through matrix
//             descriptors, in the 128-byte swizzled layout those descriptors name; no ldmatrix, no fragments in
//             registers, the accumulators alone live in registers
// design:     one block computes a 128 x 128 tile of C; warpgroup w (threads 128 w .. 128 w + 127) owns rows
//             64 w .. 64 w + 63, all 128 columns: one m64n128k8 per 8-deep K step, 64 accumulators per thread
//             shared layout: a stage holds A (128 rows x 32 floats) then Bt (128 rows x 32 floats), each row 128
//             bytes; 16-byte chunk j of row r is stored at chunk j ^ (r % 8): the 128-byte swizzle, conflict-free
//             for the copies and exactly the layout the descriptor's swizzle mode 1 tells the tensor core to read;
//             stage bases are 1024-byte aligned (the swizzle atom), so the dynamic buffer is aligned up by hand
//             descriptors: 8-row atoms are 1024 bytes apart (stride byte offset); the K step k (0..3) inside a
//             32-float row is selected by adding 32 k bytes to the start address: the hardware applies the XOR
//             to the address bits, so the offset composes with the swizzle
//             pipeline: cp.async.cg 16-byte copies by all 256 threads, STAGES - 1 tiles in flight; a thread's
//             copies are generic-proxy writes and wgmma reads through the async proxy, so each thread fences
//             (fence.proxy.async.shared::cta) after its cp.async group lands and before the block barrier
//             the four wgmma of a K tile are issued back to back, committed as one group and waited on
//             (wait_group 0) before the next barrier, so the buffer the next copy overwrites is free; the copies
//             for tile kt + STAGES - 1 are issued before the wgmma of tile kt, so they overlap the MMAs
//             block order: 1-D grid mapped to (tile row, tile column) in groups of 8 tile rows (L2 reuse)

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

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int TILE_BYTES = BM * BK * 4;  // A and Bt tiles are the same size here

// One stage: A rows m0.., Bt rows n0.., K columns k0..k0+31, swizzled; 1024 + 1024 16-byte chunks, 8 per thread.
__device__ __forceinline__ void load_stage(unsigned sa, unsigned sb, const float* __restrict__ A,
                                           const float* __restrict__ Bt, int K, int m0, int n0, int k0) {
#pragma unroll
    for (int i = 0; i < BM * BK / 4 / 256; ++i) {
        const int c = threadIdx.x + i * 256;
        const int r = c / 8, j = c % 8;
        const unsigned off = r * 128 + ((j ^ (r % 8)) << 4);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa + off),
                     "l"(A + (long long)(m0 + r) * K + k0 + j * 4));
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sb + off),
                     "l"(Bt + (long long)(n0 + r) * K + k0 + j * 4));
    }
}

}  // namespace rosetta_wgmma

template <int STAGES>
__launch_bounds__(256, 1) __global__ void wgmma_smem_tf32(int M, int N, int K, float alpha,
                                                          const float* __restrict__ A, const float* __restrict__ B,
                                                          float beta, float* __restrict__ C) {
    using namespace rosetta_wgmma;
    extern __shared__ unsigned char smem_raw[];
    const unsigned base = (smem_u32(smem_raw) + 1023) & ~1023u;
    const int tiles_m = M / BM, tiles_n = N / BN;
    int tm, tn;
    grouped_tile<8>(blockIdx.y * gridDim.x + blockIdx.x, tiles_m, tiles_n, tm, tn);
    const int m0 = tm * BM, n0 = tn * BN;
    const int wg = threadIdx.x / 128;
    const int ktiles = K / BK;

    float d[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) d[i] = 0.0f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles) load_stage(base + s * 2 * TILE_BYTES, base + (s * 2 + 1) * TILE_BYTES, A, B, K, m0, n0, s * BK);
        asm volatile("cp.async.commit_group;\n" ::: "memory");
    }
    for (int kt = 0; kt < ktiles; ++kt) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2) : "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
        const int next = kt + STAGES - 1;
        if (next < ktiles) {
            const int s = next % STAGES;
            load_stage(base + s * 2 * TILE_BYTES, base + (s * 2 + 1) * TILE_BYTES, A, B, K, m0, n0, next * BK);
        }
        asm volatile("cp.async.commit_group;\n" ::: "memory");
        const int s = kt % STAGES;
        const unsigned sa = base + s * 2 * TILE_BYTES + wg * 64 * 128, sb = base + (s * 2 + 1) * TILE_BYTES;
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < BK / 8; ++k) wgmma_m64n128k8(d, smem_desc(sa + 32 * k), smem_desc(sb + 32 * k));
        wgmma_commit();
        wgmma_wait<0>();
    }
    store_tile<BN>(d, C, N, m0 + wg * 64, n0, alpha, beta);
}
