// The 3xTF32 split and its pipeline, shared by rosetta.wgmma_3xtf32 and rosetta.wgmma_3xtf32_rs: the tf32
// truncation the tensor core applies, the rounded remainder, the split warps' loop that writes a landed stage's
// remainders beside it, the fence that keeps an in-flight wgmma's registers live, and the kernel's body (barriers,
// roles, register split) around each rung's consumer.
#pragma once

#include "wgmma.cuh"
#include "wgmma_tma.cuh"

namespace rosetta_wgmma {

constexpr int SPLIT_THREADS = 96;   // warps 1-3 of the producer warpgroup
constexpr int CONSUMER_WARPS = 8;   // every consumer warp's lane 0 arrives on a stage's empty barrier

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

// The body of a 3xTF32 kernel: STAGES stages of STAGE_BYTES (the raw A and Bt tiles first), three barriers per stage
// (full: the copy engine's bytes landed; ready: the split warps wrote the remainders of bytes [FROM, FROM + BYTES)
// to [TO, TO + BYTES); empty: every consumer warp released it), the producer warpgroup (thread 0 loads, warps 1-3
// split) and two consumer warpgroups, each calling consume(base, full0, ready0, empty0, c, first, step) for its half
// c of every tile the block takes (tiles first, first + step, ...).
template <int STAGES, int GROUP, int BM_, int BN_, int STAGE_BYTES, int FROM, int TO, int BYTES, typename Consume>
__device__ __forceinline__ void run_split(int M, int N, int K, const TensorMap* mapA, const TensorMap* mapB,
                                          Consume consume) {
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
    const int tiles = (M / BM_) * (N / BN_), ktiles = K / 32;
    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        // The producer warpgroup keeps 40 registers (the split needs a dozen live values), the consumers take
        // the rest: 40 * 128 + 232 * 256 = 64512 of the SM's 65536.
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0) {
            produce_tiles<STAGES, GROUP, BM_, BN_, STAGE_BYTES>(base, full0, empty0, mapA, mapB, M / BM_, N / BN_,
                                                                ktiles, first, step);
        } else if (threadIdx.x >= 32) {
            const int mine = first < tiles ? (tiles - 1 - first) / step + 1 : 0;
            split<STAGES, STAGE_BYTES, FROM, TO, BYTES>(smem_raw + (base - raw0), full0, ready0, mine * ktiles);
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        consume(base, full0, ready0, empty0, wg - 1, first, step);
    }
}

}  // namespace rosetta_wgmma
