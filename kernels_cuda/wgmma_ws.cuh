// The warp-specialised pipeline of rosetta.wgmma_ws, which rosetta.wgmma_persistent runs unchanged: a 128 x 256 tile
// per block, one producer warpgroup (one thread issues the TMA copies) and two consumer warpgroups (m64n256k8, 128
// accumulators per thread), a full and an empty mbarrier per stage, setmaxnreg moving registers to the consumers.
// `run` takes the block's tiles as first, first + step, ...: the two kernels differ only in the first and step they
// pass (rosetta.wgmma_ws one tile per block, rosetta.wgmma_persistent a grid-strided walk).
#pragma once

#include "wgmma.cuh"
#include "wgmma_tma.cuh"

namespace rosetta_wgmma {

// m64n256k8 tf32: 128 fp32 accumulators per thread, D += A B (scale-d = 1: the caller zeroes D first).
__device__ __forceinline__ void wgmma_m64n256k8(float (&d)[128], unsigned long long da, unsigned long long db) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(da), "l"(db));
}

constexpr int BM = 128, BN = 256, BK = 32;
constexpr int A_BYTES = BM * BK * 4, B_BYTES = BN * BK * 4, STAGE_BYTES = A_BYTES + B_BYTES;
constexpr int CONSUMER_WARPS = 8;  // every consumer warp's lane 0 arrives on the empty barrier

// A consumer warpgroup's loop: rows 64 c .. 64 c + 63 of each output tile, all 256 columns (m64n256k8, 128
// accumulators per thread). One wgmma group stays in flight: after committing tile kt's group, wait_group 1
// retires tile kt - 1's, whose stage is then released, so the tensor core always has the next group queued.
template <int STAGES, int GROUP, int CLUSTER>
__device__ __forceinline__ void consume(unsigned base, unsigned full0, unsigned empty0, int c, int M, int N,
                                        int ktiles, int first, int step, float alpha, float beta,
                                        float* __restrict__ C) {
    const int tiles_m = M / BM, tiles_n = N / BN;
    const bool arrives = threadIdx.x % 32 == 0;
    const unsigned rank = CLUSTER > 1 ? cluster_rank() : 0;
    int it = 0;
    float d[128];
    // a stage is released to this block's producer and, in a cluster, to the peer's, which multicasts into it
    auto release = [&](int s) {
        if (!arrives) return;
        mbar_arrive(empty0 + 8 * s);
        if (CLUSTER > 1) mbar_arrive_peer(peer_address(empty0 + 8 * s, rank ^ 1));
    };
    for (int tile = first; tile < tiles_m * tiles_n / CLUSTER; tile += step) {
        int tm, tn;
        cluster_tile<GROUP, CLUSTER>(tile, tiles_m, tiles_n, rank, tm, tn);
#pragma unroll
        for (int i = 0; i < 128; ++i) d[i] = 0.0f;
        for (int kt = 0; kt < ktiles; ++kt, ++it) {
            const int s = it % STAGES;
            mbar_wait(full0 + 8 * s, (it / STAGES) & 1);
            const unsigned sa = base + s * STAGE_BYTES + c * 64 * 128, sb = base + s * STAGE_BYTES + A_BYTES;
            wgmma_fence();
#pragma unroll
            for (int k = 0; k < BK / 8; ++k) wgmma_m64n256k8(d, smem_desc(sa + 32 * k), smem_desc(sb + 32 * k));
            wgmma_commit();
            wgmma_wait<1>();
            if (kt > 0) release((it - 1) % STAGES);
        }
        wgmma_wait<0>();
        release((it - 1) % STAGES);
        store_tile<BN>(d, C, N, tm * BM + c * 64, tn * BN, alpha, beta);
    }
}

// Shared by the warp-specialised kernels: barriers, register split, roles. Tiles (or, in a cluster of CLUSTER blocks,
// groups of tiles) first, first + step, ...
template <int STAGES, int GROUP, int CLUSTER = 1>
__device__ __forceinline__ void run(int M, int N, int K, float alpha, float beta, float* __restrict__ C,
                                    const TensorMap* mapA, const TensorMap* mapB, int first, int step) {
    extern __shared__ unsigned char smem_raw[];
    __shared__ __align__(8) unsigned long long full[STAGES], empty[STAGES];
    const unsigned base = (smem_u32(smem_raw) + 1023) & ~1023u;
    const unsigned full0 = smem_u32(&full[0]), empty0 = smem_u32(&empty[0]);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full0 + 8 * s, 1);
            mbar_init(empty0 + 8 * s, CONSUMER_WARPS * CLUSTER);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    if (CLUSTER > 1) cluster_sync();  // the peers' barriers exist before anything arrives on them
    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        // The producer needs a handful of registers; giving them back lets the consumers hold 128 accumulators
        // and their addresses without spilling (40 * 128 + 232 * 256 = 64512 of the SM's 65536).
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0)
            produce_tiles<STAGES, GROUP, BM, BN, STAGE_BYTES, CLUSTER>(base, full0, empty0, mapA, mapB, M / BM, N / BN,
                                                                       K / BK, first, step);
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        consume<STAGES, GROUP, CLUSTER>(base, full0, empty0, wg - 1, M, N, K / BK, first, step, alpha, beta, C);
    }
    // no block leaves while a peer may still multicast into its stages or arrive on its barriers
    if (CLUSTER > 1) cluster_sync();
}

}  // namespace rosetta_wgmma
