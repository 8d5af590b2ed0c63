// The copy engine and its barriers, from rosetta.wgmma_tma on (rosetta.wgmma_tma, rosetta.wgmma_ws,
// rosetta.wgmma_persistent, rosetta.wgmma_3xtf32, rosetta.wgmma_3xtf32_rs): the driver's tensor map as a kernel
// parameter, the mbarrier operations (init, arrive with an expected byte count, arrive, wait on a phase) and one 2-D
// TMA tile load.
#pragma once

namespace rosetta_wgmma {

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

}  // namespace rosetta_wgmma
