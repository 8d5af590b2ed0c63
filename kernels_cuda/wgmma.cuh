// The helpers every rung of the Hopper wgmma ladder shares (rosetta.wgmma_smem, rosetta.wgmma_tma,
// rosetta.wgmma_ws, rosetta.wgmma_persistent, rosetta.wgmma_3xtf32, rosetta.wgmma_3xtf32_rs): the shared-memory
// address of a pointer, the wgmma matrix descriptor of a 128-byte swizzled K-major tile, the wgmma fence / commit /
// wait, the grouped tile order and the store of one warpgroup's accumulator tile. Plain C++ and inline PTX: NVRTC
// sees no CUDA headers. Each rung's .cu includes this file; the suite's build hands it to NVRTC with the source and
// keys its cache on its text, and the report shows it expanded in place of the #include.
#pragma once

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

}  // namespace rosetta_wgmma
