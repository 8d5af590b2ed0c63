"""Tests for harness.inspect: compile-time resource accounting (the NVRTC build, Triton AOT, SASS, ptxas), CPU only."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import pytest
import triton
import triton.language as tl

from harness.inspect import compile_triton, ptxas, sass, tools
from harness.inspect.resources import (
    SASS_KEYS,
    KernelResources,
    Occupancy,
    cuda_resources,
    find_tool,
    sass_mix,
    sm90_occupancy,
    triton_resources,
)
from harness.nvrtc import compiler as build_nvrtc

needs_nvrtc = pytest.mark.skipif(not build_nvrtc.available(),
                                 reason="NVRTC (cuda-bindings + nvidia-cuda-nvrtc) not installed")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    # Every test starts from an empty cache so it really exercises the compiler.
    monkeypatch.setenv("ROSETTA_CACHE_DIR", str(tmp_path / "cache"))


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


TRANSPOSE_CU = """
__global__ void transpose32(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
    out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void other_kernel(float* p) { p[threadIdx.x] = 1.0f; }
"""

TEMPLATE_CU = """
template <int N, bool WIDE>
__global__ void axpy_t(const float4* __restrict__ x, float* __restrict__ y, float a) {
    float4 v = x[blockIdx.x * blockDim.x + threadIdx.x];
    float acc = 0.f;
    #pragma unroll
    for (int i = 0; i < N; ++i) acc += a * (WIDE ? v.x + v.y + v.z + v.w : v.x) + i;
    y[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
"""

LOCAL_ARRAY_CU = """
__global__ void pick(const float* __restrict__ in, float* out, int idx, int stride) {
    float r[64];
    #pragma unroll 1
    for (int i = 0; i < 64; ++i) r[i] = in[i * stride + threadIdx.x];
    out[threadIdx.x] = r[idx & 63];  // run-time indices keep the array in local memory
}
"""


# --------------------------------------------------------------------------
# Occupancy arithmetic (no compiler needed)
# --------------------------------------------------------------------------
def test_occupancy_full_when_threads_are_the_only_limit():
    occ = sm90_occupancy(registers=32, shared_bytes=0, threads_per_block=1024)
    assert occ == Occupancy(blocks_per_sm=2, warps_per_sm=64, fraction=1.0, limiter="threads")


def test_occupancy_quarter_when_registers_limit():
    occ = sm90_occupancy(registers=128, shared_bytes=0, threads_per_block=256)
    assert occ == Occupancy(blocks_per_sm=2, warps_per_sm=16, fraction=0.25, limiter="registers")


def test_occupancy_rounds_registers_to_allocation_unit_and_subpartitions():
    # 33 regs -> 40 per thread (1280 per warp); 16384 // 1280 = 12 warps per
    # sub-partition -> 48 warps -> 6 blocks of 8 warps.
    assert sm90_occupancy(33, 0, 256).blocks_per_sm == 6
    # 200 regs: naive 65536 // 6400 = 10 warps, sub-partitions give 2 * 4 = 8.
    occ = sm90_occupancy(200, 0, 128)
    assert (occ.blocks_per_sm, occ.warps_per_sm) == (2, 8)


def test_occupancy_shared_memory_includes_reserved_kib_and_granularity():
    # 48 KiB + 1 KiB reserved = 50176 B per block -> 233472 // 50176 = 4 blocks.
    occ = sm90_occupancy(32, 48 * 1024, 128)
    assert (occ.blocks_per_sm, occ.limiter) == (4, "shared memory")
    # 100 B rounds up with the reserve to 1152 B -> 202 blocks, so blocks/SM wins.
    assert sm90_occupancy(16, 100, 32).limiter == "blocks"


def test_occupancy_zero_when_a_single_block_cannot_fit():
    assert sm90_occupancy(32, 227 * 1024 + 1, 128).blocks_per_sm == 0
    assert sm90_occupancy(256, 0, 32).blocks_per_sm == 0
    # 255 regs round to 256: 8192 per warp x 16 warps is over the 64K-register block limit.
    too_many = sm90_occupancy(255, 0, 512)
    assert (too_many.blocks_per_sm, too_many.fraction, too_many.limiter) == (0, 0.0, "registers")
    with pytest.raises(ValueError):
        sm90_occupancy(32, 0, 0)


def test_kernel_resources_occupancy_adds_launch_time_dynamic_shared_memory():
    res = KernelResources(32, 0, 0, 0, 0, dict.fromkeys(SASS_KEYS, 0))
    assert res.occupancy(128).blocks_per_sm == 16
    assert res.occupancy(128, dynamic_shared_bytes=100 * 1024).blocks_per_sm == 2


# --------------------------------------------------------------------------
# SASS parsing (synthetic listings, no tools needed)
# --------------------------------------------------------------------------
def test_sass_parser_handles_widths_predicates_and_dual_forms():
    listing = textwrap.dedent(
        """
        \t\tFunction : _Z1kv
                /*0000*/                   LDG.E R2, desc[UR4][R2.64] ;          /* 0x0 */
                /*0010*/               @P0 LDG.E.128.CONSTANT R4, desc[UR4][R4.64] ;
                /*0020*/              @!P1 LDG.E.64 R8, desc[UR4][R8.64] ;
                /*0030*/                   LDG.E.U8 R9, desc[UR4][R8.64] ;
                /*0040*/                   LDG.E.LTC128B.128 R12, desc[UR4][R8.64] ;
                /*0050*/                   LDS.U.128 R4, [R0] ;
                /*0060*/                   LDS.64 R4, [R0+0x8] ;
                /*0070*/                   LDS R4, [R0] ;
                /*0080*/                   LDS.S16 R4, [R0] ;
                /*0090*/                   STS.128 [R0], R4 ;
                /*00a0*/                   STSM.16.M88.4 [R3], R20 ;
                /*00b0*/                   LDSM.16.M88.4 R4, [R3] ;
                /*00c0*/                   FFMA.FTZ R1, R2, R3, R4 ;
                /*00d0*/                   FFMA32I R1, R2, 0x3f800000, R1 ;
                /*00e0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
                /*00f0*/                   HMMA.1688.F32.TF32 R4, R8, R12, R4 ;
                /*0100*/                   STL.64 [R1], R4 ;
                /*0110*/                   EXIT ;
                /*0120*/                   BRA 0x120;
                /*0130*/                   NOP;
        \t\tFunction : _Z1jv
                /*0000*/                   HGMMA.64x64x8.F32.TF32 R24, gdesc[UR4], RZ ;
                /*0010*/                   SHFL.BFLY PT, R3, R2, 0x1, 0x1f ;
        """
    )
    mixes = sass.parse_sass(listing, nvdisasm=False)
    k = mixes["_Z1kv"]
    assert set(SASS_KEYS) <= set(k)
    assert (k["LDG.32"], k["LDG.64"], k["LDG.128"]) == (2, 1, 2)
    assert (k["LDS.32"], k["LDS.64"], k["LDS.128"]) == (2, 1, 1)
    assert (k["STS"], k["STSM"], k["LDSM"]) == (1, 1, 1)
    assert (k["FFMA"], k["BAR"], k["HMMA"], k["STL"]) == (2, 1, 1, 1)
    assert k["total"] == 19  # the NOP padding is not counted
    assert (mixes["_Z1jv"]["HGMMA"], mixes["_Z1jv"]["SHFL"], mixes["_Z1jv"]["total"]) == (1, 1, 2)


def test_ptxas_log_parser_keeps_device_function_frames_out_of_entries():
    log = textwrap.dedent(
        """
        ptxas info    : Compiling entry function '_Z5spillPfii' for 'sm_90'
        ptxas info    : Function properties for _Z5spillPfii
            256 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
        ptxas info    : Used 38 registers, used 0 barriers, 256 bytes cumulative stack size
        ptxas info    : Function properties for _Z6helperPfi
            16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
        ptxas-blackwell info    : Compiling entry function 'k2' for 'sm_90a'
        ptxas-blackwell info    : Function properties for k2
            0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
        ptxas-blackwell info    : Used 79 registers, used 1 barriers, 4224 bytes smem
        """
    )
    entries = ptxas.parse_ptxas_log(log)
    assert set(entries) == {"_Z5spillPfii", "k2"}
    assert entries["_Z5spillPfii"]["stack"] == 256
    assert (entries["_Z5spillPfii"]["spill_stores"], entries["_Z5spillPfii"]["spill_loads"]) == (8, 4)
    assert (entries["k2"]["registers"], entries["k2"]["smem"]) == (79, 4224)


# --------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------
def test_find_tool_falls_back_to_tritons_bundled_binaries(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("CUDA_HOME", raising=False)
    bundled = tools.triton_bin_dir()
    if bundled is None or not (bundled / "cuobjdump").is_file():
        pytest.skip("triton's bundled cuobjdump is not available")
    if Path("/usr/local/cuda/bin/cuobjdump").is_file():
        pytest.skip("a toolkit cuobjdump comes first on this machine")
    assert find_tool("cuobjdump") == bundled / "cuobjdump"


def test_find_tool_error_names_the_places_searched(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("CUDA_HOME", raising=False)
    with pytest.raises(RuntimeError) as info:
        find_tool("no-such-cuda-tool")
    message = str(info.value)
    assert "no-such-cuda-tool" in message
    assert "PATH" in message and "/usr/local/cuda/bin" in message


# --------------------------------------------------------------------------
# CUDA kernels through the suite's NVRTC build
# --------------------------------------------------------------------------
@needs_nvrtc
def test_static_shared_tile_reports_exact_bytes(tmp_path):
    src = _write(tmp_path, "transpose.cu", TRANSPOSE_CU)
    res = cuda_resources(src, "transpose32")
    assert res.shared_bytes == 32 * 33 * 4 == 4224
    assert res.kernel == "_Z11transpose32PKfPfi"
    assert res.registers > 0
    assert (res.local_bytes, res.spill_stores, res.spill_loads) == (0, 0, 0)
    assert res.sass["BAR"] >= 1 and res.sass["STS"] >= 1 and res.sass["LDS.32"] >= 1
    assert res.occupancy(1024) == Occupancy(2, 64, 1.0, "threads")


@needs_nvrtc
def test_template_instantiation_by_name_expression_and_float4_loads(tmp_path):
    src = _write(tmp_path, "axpy.cu", TEMPLATE_CU)
    wide = cuda_resources(src, "axpy_t<4, true>")
    narrow = cuda_resources(src, "axpy_t<8, false>")
    assert wide.kernel == "_Z6axpy_tILi4ELb1EEvPK6float4Pff"
    assert narrow.kernel == "_Z6axpy_tILi8ELb0EEvPK6float4Pff"
    assert wide.sass["LDG.128"] > 0
    assert wide.sass["LDG.32"] == 0
    assert set(SASS_KEYS) <= set(wide.sass)


@needs_nvrtc
def test_kernel_is_picked_out_of_a_file_instantiating_several(tmp_path):
    # The file itself instantiates two specialisations; only the requested one
    # must be reported.
    src = _write(
        tmp_path,
        "multi.cu",
        TEMPLATE_CU
        + """
        template __global__ void axpy_t<2, true>(const float4*, float*, float);
        template __global__ void axpy_t<3, false>(const float4*, float*, float);
        """,
    )
    res = cuda_resources(src, "axpy_t<3, false>")
    assert res.kernel == "_Z6axpy_tILi3ELb0EEvPK6float4Pff"


@needs_nvrtc
def test_name_expression_with_a_named_constant_resolves_through_nvrtcs_lowered_name(tmp_path):
    # A non-template overload shares the identifier and the template argument is a named constant: NVRTC's
    # lowered name says exactly which entry the expression instantiated, with no guessing from mangled names.
    src = _write(
        tmp_path,
        "overload.cu",
        """
        constexpr int WIDTH = 4;
        __global__ void fill(float* p) { p[0] = 1.0f; }
        template <int N> __global__ void fill(float* p) { p[threadIdx.x] = N; }
        """,
    )
    res = cuda_resources(src, "fill<WIDTH>")
    assert res.kernel == "_Z4fillILi4EEvPf"


@needs_nvrtc
def test_runtime_indexed_register_array_lands_in_local_memory(tmp_path):
    src = _write(tmp_path, "local.cu", LOCAL_ARRAY_CU)
    res = cuda_resources(src, "pick")
    assert res.local_bytes > 0 or res.sass["LDL"] + res.sass["STL"] > 0
    assert res.local_bytes == 64 * 4


@needs_nvrtc
def test_compile_error_raises_with_compiler_message(tmp_path):
    src = _write(tmp_path, "broken.cu", "__global__ void broken(float* p) { p[0] = undeclared_thing; }\n")
    with pytest.raises(RuntimeError, match="undeclared_thing"):
        cuda_resources(src, "broken")


@needs_nvrtc
def test_unknown_name_expression_raises_with_compiler_message(tmp_path):
    src = _write(tmp_path, "axpy.cu", TEMPLATE_CU)
    with pytest.raises(RuntimeError, match=r'(?s)NVRTC compile of axpy\.cu .*identifier "axpy_nope" is undefined'):
        cuda_resources(src, "axpy_nope<4, true>")


@needs_nvrtc
def test_second_cuda_call_is_served_from_disk_cache(tmp_path, monkeypatch):
    src = _write(tmp_path, "transpose.cu", TRANSPOSE_CU)
    calls = []
    real = build_nvrtc._compile

    def counting(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(build_nvrtc, "_compile", counting)
    first = cuda_resources(src, "transpose32")
    assert len(calls) == 1
    start = time.perf_counter()
    second = cuda_resources(src, "transpose32")
    assert time.perf_counter() - start < 0.5
    assert second == first and len(calls) == 1
    assert list((tmp_path / "cache" / "build").glob("*/module.cubin"))
    # Editing the source, asking for another arch, or another option, recompiles.
    src.write_text(src.read_text() + "\n// edited\n")
    cuda_resources(src, "transpose32")
    cuda_resources(src, "transpose32", arch="sm_80")
    cuda_resources(src, "transpose32", arch="sm_80", options=("-ftz=true",))
    assert len(calls) == 4


@needs_nvrtc
def test_sass_mix_accepts_cubin_bytes_and_sums_all_kernels(tmp_path):
    src = _write(tmp_path, "transpose.cu", TRANSPOSE_CU)
    cubin = tmp_path / "t.cubin"
    cubin.write_bytes(build_nvrtc.build(src, [], "sm_90a", ("-std=c++17",)).cubin.read_bytes())
    from_bytes = sass_mix(cubin.read_bytes())
    from_path = sass_mix(cubin)
    assert from_bytes == from_path
    one = sass_mix(cubin, function="_Z12other_kernelPf")
    assert one["STG"] == 1 and one["BAR"] == 0
    assert from_path["STG"] == 2 and from_path["BAR"] >= 1
    with pytest.raises(RuntimeError, match="not in cubin"):
        sass_mix(cubin, function="_Z7missingv")


# --------------------------------------------------------------------------
# Triton kernels, compiled ahead of time for sm_90
# --------------------------------------------------------------------------
def _dot_tile(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PREC: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b, input_precision=PREC)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)


def _scale_impl(x):
    return x * 2.0


scale = triton.jit(_scale_impl)


def _scaled_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, scale(tl.load(x_ptr + offs, mask=mask)), mask=mask)


dot_tile = triton.jit(_dot_tile)

DOT_SIGNATURE = {
    "a_ptr": "*fp32",
    "b_ptr": "*fp32",
    "c_ptr": "*fp32",
    "BM": "constexpr",
    "BN": "constexpr",
    "BK": "constexpr",
    "PREC": "constexpr",
}
COPY_SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}


def _dot(prec: str, fn=dot_tile) -> KernelResources:
    return triton_resources(
        fn, DOT_SIGNATURE, {"BM": 64, "BN": 64, "BK": 16, "PREC": prec}, num_warps=4, num_stages=2
    )


def test_triton_ieee_dot_uses_ffma_not_tensor_cores():
    res = _dot("ieee")
    assert res.registers > 0
    assert res.shared_bytes > 0
    assert res.sass["FFMA"] > 0
    assert res.sass["HMMA"] == 0 and res.sass["HGMMA"] == 0
    assert res.kernel == "_dot_tile"
    assert res.spill_stores == 0 and res.spill_loads == 0


def test_triton_tf32_dot_uses_tensor_cores():
    res = _dot("tf32")
    assert res.sass["HMMA"] + res.sass["HGMMA"] > 0


def test_triton_divisibility_hints_decide_vector_loads():
    # A launch marks 16-byte-aligned pointers and multiples of 16 as divisible
    # by 16; with the masked bound n marked too, Triton emits 128-bit loads.
    kwargs = dict(signature=COPY_SIGNATURE, constexprs={"BLOCK": 1024}, num_warps=4, num_stages=1)
    copy = triton.jit(_scaled_copy)
    aligned = triton_resources(copy, **kwargs, divisible_by_16=["x_ptr", "y_ptr", "n"])
    unaligned = triton_resources(copy, **kwargs, divisible_by_16=[])
    assert aligned.sass["LDG.128"] > 0 and aligned.sass["LDG.32"] == 0
    assert unaligned.sass["LDG.128"] == 0 and unaligned.sass["LDG.32"] > 0


def test_triton_second_call_is_served_from_disk_cache(monkeypatch):
    calls = []
    real = compile_triton._compile

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(compile_triton, "_compile", counting)
    # Under the interpreter (the CPU tier) compiles happen in a child process: count those too.
    real_child = compile_triton._in_child

    def counting_child(*args, **kwargs):
        calls.append(1)
        return real_child(*args, **kwargs)

    monkeypatch.setattr(compile_triton, "_in_child", counting_child)
    first = _dot("ieee")
    start = time.perf_counter()
    second = _dot("ieee")
    assert time.perf_counter() - start < 0.5
    assert first == second and len(calls) == 1
    # A different configuration is a different cache entry.
    triton_resources(dot_tile, DOT_SIGNATURE, {"BM": 64, "BN": 64, "BK": 16, "PREC": "ieee"}, 8, 2)
    assert len(calls) == 2


def test_triton_interpreted_function_is_compiled_as_jit(monkeypatch, tmp_path):
    jit_res = triton_resources(triton.jit(_scaled_copy), COPY_SIGNATURE, {"BLOCK": 1024}, 4, 1)
    monkeypatch.setenv("ROSETTA_CACHE_DIR", str(tmp_path / "fresh-cache"))  # really compile again
    # Under TRITON_INTERPRET=1, @triton.jit returns an InterpretedFunction,
    # including for the helper the kernel calls by global name.
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setitem(globals(), "scale", triton.jit(_scale_impl))
    interp_kernel = triton.jit(_scaled_copy)
    from triton.runtime.interpreter import InterpretedFunction

    assert isinstance(interp_kernel, InterpretedFunction)
    assert isinstance(globals()["scale"], InterpretedFunction)
    res = triton_resources(interp_kernel, COPY_SIGNATURE, {"BLOCK": 1024}, num_warps=4, num_stages=1)
    assert res.registers > 0 and res.sass["STG"] > 0
    assert res.sass == jit_res.sass and res.registers == jit_res.registers


def test_triton_ptxas_log_knob_prints_the_report():
    # The spill numbers rely on TRITON_DUMP_PTXAS_LOG printing ptxas -v output. The check compiles, so
    # under the interpreter (the CPU tier) it runs in a child process with the interpreter off.
    if os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
        import subprocess
        import sys

        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        code = "import tests.test_resources as t; t.test_triton_ptxas_log_knob_prints_the_report()"
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                              cwd=Path(__file__).resolve().parents[1])
        assert proc.returncode == 0, proc.stderr[-2000:]
        return
    from triton import knobs

    assert "dump_ptxas_log" in vars(type(knobs.nvidia))
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    src = ASTSource(
        fn=dot_tile, signature=DOT_SIGNATURE, constexprs={"BM": 16, "BN": 16, "BK": 16, "PREC": "ieee"}
    )
    compiled, log = compile_triton._compile(src, GPUTarget("cuda", 90, 32), {"num_warps": 1})
    assert compiled.metadata.name in ptxas.parse_ptxas_log(log)
    assert os.environ.get("TRITON_DUMP_PTXAS_LOG") in (None, "0", "")


# --------------------------------------------------------------------------
# Facts the mapping claims read: ttgir, CUDA sources, typed records
# --------------------------------------------------------------------------
SAMPLE_TTGIR = """
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 8]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#shared1 = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>
    %a = ttg.local_alloc : () -> !ttg.memdesc<2x64x16xf32, #shared, #smem, mutable>
    %b = ttg.local_alloc : () -> !ttg.memdesc<2x16x64xf32, #shared1, #smem, mutable>
    %acc:3 = scf.for %k0 = %c0 to %K step %c16 iter_args(%x = %cst) -> (tensor<64x64xf32, #mma>) : i32 {
      %c = ttg.async_copy_global_to_local %p, %a_1 mask %m : tensor<64x16x!tt.ptr<f32>, #blocked> -> <64x16xf32>
      %w = ttg.async_wait %c {num = 1 : i32}
      %d = ttng.warp_group_dot %l, %r, %x {inputPrecision = 1 : i32} : !ttg.memdesc<64x16xf32>
      %e = tt.dot %u, %v, %x : tensor<64x16xf32> * tensor<16x64xf32> -> tensor<64x64xf32, #mma>
"""


def test_ttgir_facts_count_what_the_compiler_decided():
    from harness.inspect.ttgir import FACT_KEYS, facts

    f = facts(SAMPLE_TTGIR)
    assert set(f) == set(FACT_KEYS)
    assert (f["local_alloc"], f["async_copy"], f["async_wait"], f["warp_group_dot"], f["dot"]) == (2, 1, 1, 1, 1)
    assert (f["loops"], f["mma_version"], f["shared_swizzled"]) == (1, 3, 1)
    plain = facts(SAMPLE_TTGIR.replace("swizzlingByteWidth = 128", "swizzlingByteWidth = 0"))
    assert plain["shared_swizzled"] == 0  # maxPhase 1 and a zero NVMMA swizzle permute nothing
    assert facts("")["mma_version"] == 0


def test_source_facts_ignore_comments_but_keep_inline_ptx(tmp_path):
    from harness.inspect.source_facts import source_facts

    src = _write(tmp_path, "k.cu", """
        // __syncthreads() in a comment is not code; nor is "a quoted __shared__" in one
        /* __shared__ float not_code[4]; */
        __global__ void k(float* p) {
            __shared__ float s[32];
            float acc[4][4];
            float a[4];
            #pragma unroll
            for (int i = 0; i < 4; ++i) a[i] = p[i];
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\\n" :: "r"(0), "l"(p));
            __syncthreads();
        }
        """)
    f = source_facts(src)
    assert (f["shared_arrays"], f["syncthreads"], f["cp_async"], f["pragma_unroll"]) == (1, 1, 1, 1)
    assert (f["register_arrays_1d"], f["register_arrays_2d"], f["unroll_loop_from_zero"]) == (1, 1, 1)


def test_source_facts_count_the_headers_a_source_includes_once_each(tmp_path):
    # What the compiler reads: the helpers a kernel calls from a shared header are its code too.
    from harness.inspect.source_facts import source_facts

    _write(tmp_path, "mma.cuh", """
        #pragma once
        __device__ __forceinline__ void mma(float* d) {
            asm volatile("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {%0}, 0, 0, p, 1, 1;" : "+f"(*d));
        }
        """)
    _write(tmp_path, "sync.cuh", """
        #pragma once
        #include "mma.cuh"
        __device__ __forceinline__ void step(float* d) { __syncthreads(); mma(d); }
        """)
    src = _write(tmp_path, "k.cu", """
        // #include "absent.cuh" in a comment is not followed
        #include "sync.cuh"
        #include "mma.cuh"
        __global__ void k(float* p) { step(p); }
        """)
    f = source_facts(src)
    assert (f["wgmma"], f["syncthreads"]) == (1, 1)  # mma.cuh counted once, though included twice


def test_sass_counts_store_and_async_copy_widths():
    listing = textwrap.dedent(
        """
        \t\tFunction : _Z1kv
                /*0000*/                   STS.128 [R0], R4 ;
                /*0010*/                   STS [R0], R4 ;
                /*0020*/                   LDGSTS.E.BYPASS.LTC128B.128 [R1], desc[UR4][R2.64] ;
                /*0030*/                   LDGSTS.E.LTC128B [R1], desc[UR4][R2.64] ;
                /*0040*/                   LDGDEPBAR ;
                /*0050*/                   DEPBAR.LE SB0, 0x1 ;
                /*0060*/                   STG.E.128 desc[UR4][R2.64], R4 ;
        """
    )
    k = sass.parse_sass(listing, nvdisasm=False)["_Z1kv"]
    assert (k["STS"], k["STS.128"], k["STS.32"]) == (2, 1, 1)
    assert (k["LDGSTS"], k["LDGSTS.128"], k["LDGSTS.32"]) == (2, 1, 1)
    assert (k["LDGDEPBAR"], k["DEPBAR"], k["STG"], k["STG.128"], k["total"]) == (1, 1, 1, 1, 7)


@needs_nvrtc
def test_typed_records_for_a_kernel_and_its_counterpart():
    from harness.inspect.resources import counterpart_record, kernel_record
    from harness.records.lines import Resources
    from harness.registry import BY_ID

    kernel = BY_ID["s003.coalesced_warp_sgemv"]
    cuda = kernel_record(kernel)
    from harness.nvrtc import CPU_TIER_ARCH, nvrtc_version

    assert isinstance(cuda, Resources) and cuda.source == f"NVRTC {nvrtc_version()} {CPU_TIER_ARCH}"
    assert cuda.sass["SHFL"] == 5 and cuda.evidence["src.shuffles"] == 1 and cuda.evidence["barriers"] == 0
    assert 0 < cuda.occupancy <= 1
    triton = counterpart_record(kernel, kernel.counterparts[0])
    assert triton.config["num_warps"] == 1 and triton.sass["SHFL"] == 5
    assert triton.evidence["reduce"] >= 1 and triton.evidence["local_alloc"] == 0
    assert Resources.from_json(triton.to_json()) == triton


@needs_nvrtc
def test_handle_record_reads_a_launch_handle(tmp_path):
    # A GPU launch returns Triton's compiled handle; this stands in for one with a real cubin.
    from types import SimpleNamespace

    from harness.inspect.resources import handle_record

    src = _write(tmp_path, "transpose.cu", TRANSPOSE_CU)
    cubin = tmp_path / "t.cubin"
    cubin.write_bytes(build_nvrtc.build(src, ["transpose32"], "sm_90a", ("-std=c++17",)).cubin.read_bytes())
    handle = SimpleNamespace(asm={"cubin": cubin.read_bytes(), "ttgir": SAMPLE_TTGIR}, n_regs=40, n_spills=0,
                             metadata=SimpleNamespace(name="_Z11transpose32PKfPfi", shared=4224, num_warps=32))
    record = handle_record(handle, config={"num_warps": 32})
    assert (record.registers, record.shared_bytes, record.spills) == (40, 4224, 0)
    assert record.sass["BAR"] >= 1 and record.evidence["local_alloc"] == 2
    assert record.source.startswith("compiled by the GPU run")
