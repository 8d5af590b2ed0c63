// The 3xTF32 split and its pipeline pieces, shared by rosetta.wgmma_3xtf32 and rosetta.wgmma_3xtf32_rs: the tf32
// truncation the tensor core applies, the rounded remainder, the producer thread's TMA loop, the split warps' loop
// that writes a landed stage's remainders beside it, and the fence that keeps an in-flight wgmma's registers live.
#pragma once

#include "wgmma.cuh"
#include "wgmma_tma.cuh"

namespace rosetta_wgmma {

constexpr int SPLIT_THREADS = 96;  // warps 1-3 of the producer warpgroup

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

// Tells the compiler that the wgmma in flight may still read or write these registers: it keeps every use of them
// after the wgmma_wait that precedes this fence, and keeps them from being reused before it.
template <int N>
__device__ __forceinline__ void fence_operands(float (&d)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// Warp 0 lane 0 of the producer warpgroup: keeps STAGES stages in flight, each an A tile (BM_ x 32) and a Bt tile
// (BN_ x 32) at the start of a STAGE_BYTES stage, waiting for the consumers to release a stage before refilling it.
template <int STAGES, int GROUP, int BM_, int BN_, int STAGE_BYTES>
__device__ __forceinline__ void load(unsigned base, unsigned full0, unsigned empty0, const TensorMap* mapA,
                                     const TensorMap* mapB, int tiles_m, int tiles_n, int ktiles, int first,
                                     int step) {
    constexpr int A_TILE = BM_ * 32 * 4, B_TILE = BN_ * 32 * 4;
    int it = 0;
    for (int tile = first; tile < tiles_m * tiles_n; tile += step) {
        int tm, tn;
        grouped_tile<GROUP>(tile, tiles_m, tiles_n, tm, tn);
        for (int kt = 0; kt < ktiles; ++kt, ++it) {
            const int s = it % STAGES;
            if (it >= STAGES) mbar_wait(empty0 + 8 * s, ((it / STAGES) + 1) & 1);
            const unsigned bar = full0 + 8 * s;
            mbar_expect_tx(bar, A_TILE + B_TILE);
            tma_load_2d(base + s * STAGE_BYTES, mapA, kt * 32, tm * BM_, bar);
            tma_load_2d(base + s * STAGE_BYTES + A_TILE, mapB, kt * 32, tn * BN_, bar);
        }
    }
}

// Warps 1-3 of the producer warpgroup: for every landed stage, write the remainders of its BYTES bytes at offset
// FROM to offset TO, then mark the stage ready. `stage0` is the generic address of stage 0; each thread takes
// every 96th float4. The split is elementwise, so it works on the swizzled layout as it lies.
template <int STAGES, int STAGE_BYTES, int FROM, int TO, int BYTES>
__device__ __forceinline__ void split(unsigned char* stage0, unsigned full0, unsigned ready0, int iterations) {
    const int t = threadIdx.x - 32;
    for (int it = 0; it < iterations; ++it) {
        const int s = it % STAGES;
        mbar_wait(full0 + 8 * s, (it / STAGES) & 1);
        const float4* raw = reinterpret_cast<const float4*>(stage0 + s * STAGE_BYTES + FROM);
        float4* small = reinterpret_cast<float4*>(stage0 + s * STAGE_BYTES + TO);
#pragma unroll 4
        for (int i = t; i < BYTES / 16; i += SPLIT_THREADS) {
            const float4 x = raw[i];
            small[i] = make_float4(remainder_tf32(x.x), remainder_tf32(x.y), remainder_tf32(x.z),
                                   remainder_tf32(x.w));
        }
        // Generic-proxy writes must be made visible to wgmma, which reads shared memory through the async proxy.
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        mbar_arrive(ready0 + 8 * s);
    }
}

}  // namespace rosetta_wgmma
