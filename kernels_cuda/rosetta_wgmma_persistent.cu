// seed:       none (tile-rosetta's own: continues 000_680cc5a5f868a384.txt's closing "Tensor Cores" step, after
//             rosetta.wgmma_ws)
// section:    none
// kernel:     wgmma_persistent_tf32<STAGES, GROUP>
// launch:     threads 384 (three warpgroups, 1-D); blocks (min(SMs, cdiv(N, 256) * cdiv(M, 128)), 1); any
//             grid works: the block of linear id b takes tiles b, b + G, b + 2 G, ... (G blocks in all), so the
//             2-D grid (cdiv(N, 256), cdiv(M, 128)) runs one tile per block; one block per SM is the intended launch (the
//             dynamic shared memory, STAGES * 49152 + 1024 bytes, 197632 for STAGES = 4, allows no second);
//             needs sm_90a; arguments as rosetta.wgmma_ws (M, N, K, alpha, A, B, beta, C, mapA, mapB)
// computes:   C = alpha * A B + beta * C, A row-major M x K, B given K-major as Bt = B^T (N x K row-major), C
//             row-major M x N; with beta == 0, C is only written (never read)
//             precision: TF32 (operands truncated to their upper 19 bits by the tensor core), fp32 sums
// limits:     M % 128 == 0, N % 256 == 0, K % 32 == 0 (no predication: every tile is whole); A, Bt and C
//             16-byte aligned (A, Bt: tensor-map rules; C: float2 stores need 8 bytes, the registry asks 16);
//             row offsets are 64-bit
// adds:       (to rosetta.wgmma_ws) a persistent grid with a static tile scheduler: the block walks tiles b,
//             b + G, ... (linear block id b, G blocks) in grouped order (GROUP tile rows at a time); the producer
//             starts the next tile's copies while the consumers still run the last tile's epilogue, so the pipeline does
//             not drain between tiles and the launch and prologue costs are paid once per SM
// design:     as rosetta.wgmma_ws; stage and phase counters run across tiles (never reset), so the full/empty
//             barrier protocol is unchanged

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

constexpr int BM = 128, BN = 256, BK = 32;
constexpr int A_BYTES = BM * BK * 4, B_BYTES = BN * BK * 4, STAGE_BYTES = A_BYTES + B_BYTES;
constexpr int CONSUMER_WARPS = 8;  // every consumer warp's lane 0 arrives on the empty barrier

// The producer warpgroup's loop: one elected thread keeps STAGES tiles in flight, waiting for a stage to be
// released by all consumer warps before refilling it. `it` counts K tiles across every output tile the block
// takes, so stage and phase run on without a reset between tiles.
template <int STAGES, int GROUP>
__device__ __forceinline__ void produce(unsigned base, unsigned full0, unsigned empty0, const TensorMap* mapA,
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
            mbar_expect_tx(bar, STAGE_BYTES);
            tma_load_2d(base + s * STAGE_BYTES, mapA, kt * BK, tm * BM, bar);
            tma_load_2d(base + s * STAGE_BYTES + A_BYTES, mapB, kt * BK, tn * BN, bar);
        }
    }
}

// A consumer warpgroup's loop: rows 64 c .. 64 c + 63 of each output tile, all 256 columns (m64n256k8, 128
// accumulators per thread). One wgmma group stays in flight: after committing tile kt's group, wait_group 1
// retires tile kt - 1's, whose stage is then released, so the tensor core always has the next group queued.
template <int STAGES, int GROUP>
__device__ __forceinline__ void consume(unsigned base, unsigned full0, unsigned empty0, int c, int M, int N,
                                        int ktiles, int first, int step, float alpha, float beta,
                                        float* __restrict__ C) {
    const int tiles_m = M / BM, tiles_n = N / BN;
    const bool arrives = threadIdx.x % 32 == 0;
    int it = 0;
    float d[128];
    for (int tile = first; tile < tiles_m * tiles_n; tile += step) {
        int tm, tn;
        grouped_tile<GROUP>(tile, tiles_m, tiles_n, tm, tn);
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
            if (kt > 0 && arrives) mbar_arrive(empty0 + 8 * ((it - 1) % STAGES));
        }
        wgmma_wait<0>();
        if (arrives) mbar_arrive(empty0 + 8 * ((it - 1) % STAGES));
        store_tile<BN>(d, C, N, tm * BM + c * 64, tn * BN, alpha, beta);
    }
}

// Shared by the two warp-specialised kernels: barriers, register split, roles. Tiles first, first + step, ...
template <int STAGES, int GROUP>
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
            mbar_init(empty0 + 8 * s, CONSUMER_WARPS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        // The producer needs a handful of registers; giving them back lets the consumers hold 128 accumulators
        // and their addresses without spilling (40 * 128 + 232 * 256 = 64512 of the SM's 65536).
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0)
            produce<STAGES, GROUP>(base, full0, empty0, mapA, mapB, M / BM, N / BN, K / BK, first, step);
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        consume<STAGES, GROUP>(base, full0, empty0, wg - 1, M, N, K / BK, first, step, alpha, beta, C);
    }
}

}  // namespace rosetta_wgmma

template <int STAGES, int GROUP>
__launch_bounds__(384, 1) __global__ void wgmma_persistent_tf32(int M, int N, int K, float alpha,
                                                                const float* __restrict__ A,
                                                                const float* __restrict__ B, float beta,
                                                                float* __restrict__ C,
                                                                const __grid_constant__ rosetta_wgmma::TensorMap mapA,
                                                                const __grid_constant__ rosetta_wgmma::TensorMap mapB) {
    rosetta_wgmma::run<STAGES, GROUP>(M, N, K, alpha, beta, C, &mapA, &mapB,
                                      blockIdx.y * gridDim.x + blockIdx.x, gridDim.x * gridDim.y);
}
