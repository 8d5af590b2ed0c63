// The m64n128k8 tf32 wgmma, the instruction of the rungs whose consumer warpgroups own 64 x 128 of a 128 x 128 tile
// (rosetta.wgmma_smem, rosetta.wgmma_tma, rosetta.wgmma_3xtf32, rosetta.wgmma_3xtf32_rs), in its two forms: A and B
// from shared memory through descriptors (SS), and A from registers (RS). scale-d is an operand: 1 (the default)
// adds to D, 0 overwrites it, which the 3xTF32 rungs use to start each pair of K tiles' sum from zero. Where it is
// the constant 1, ptxas folds the predicate: the SASS is that of an immediate 1 in the PTX.
#pragma once

// The 64 accumulators of both forms: their place in the instruction, then their operands (%0 ... %63).
#define ROSETTA_WGMMA_D64_TEXT "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define ROSETTA_WGMMA_D64(d) \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])

namespace rosetta_wgmma {

// SS: 64 fp32 accumulators per thread, D = A B + (scale_d ? D : 0); with the default scale_d = 1, D += A B (the
// caller zeroes D first).
__device__ __forceinline__ void wgmma_m64n128k8(float (&d)[64], unsigned long long da, unsigned long long db,
                                                int scale_d = 1) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " ROSETTA_WGMMA_D64_TEXT
                 ", %64, %65, p, 1, 1;\n}\n"
                 : ROSETTA_WGMMA_D64(d)
                 : "l"(da), "l"(db), "r"(scale_d));
}

// RS: the warp's 16 x 8 slice of A in four registers (the layout of mma.m16n8k8's A: (g, t), (g + 8, t), (g, t + 4),
// (g + 8, t + 4) for lane g * 4 + t), B through its descriptor; D = A B + (scale_d ? D : 0). A wgmma reads these
// registers asynchronously: the caller keeps them unchanged until the wait_group that retires it.
__device__ __forceinline__ void wgmma_m64n128k8_rs(float (&d)[64], const float* a, unsigned long long db,
                                                   int scale_d) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " ROSETTA_WGMMA_D64_TEXT
                 ", {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
                 : ROSETTA_WGMMA_D64(d)
                 : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])),
                   "r"(__float_as_uint(a[3])), "l"(db), "r"(scale_d));
}

}  // namespace rosetta_wgmma
