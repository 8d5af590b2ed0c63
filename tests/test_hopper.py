"""Hopper's TF32 wgmma ladder (harness/catalog/hopper.py).

CPU tier: every rung compiles for sm_90a with NVRTC, and its SASS holds the instructions its header claims:
HGMMA everywhere, UTMALDG where the copy engine loads, USETMAXREG where the warpgroups trade registers; none of
them spills. GPU tier: each rung and the Triton counterpart against a float64 reference, output poisoned with NaN,
on the shape the preconditions allow and on one with beta != 0.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from harness.catalog.hopper import KERNELS, TENSOR_MAP_ARGS
from harness.catalog_types.kernel import Kernel
from harness.inspect.sass import sass_mix
from harness.inspect.tools import has_tool
from harness.nvrtc.compiler import Built, build
from harness.nvrtc.options import CPU_TIER_ARCH, DEFAULT_OPTIONS
from harness.problems import Problem
from kernels_cuda import source_path

RUNGS = KERNELS
IDS = [k.id for k in RUNGS]


@cache
def _built_source(source: str, symbol: str) -> Built:
    return build(source_path(source), [symbol], CPU_TIER_ARCH, DEFAULT_OPTIONS)


def _built(kernel: Kernel) -> Built:
    return _built_source(kernel.source, kernel.symbol)


def _mix(kernel: Kernel) -> dict[str, int]:
    built = _built(kernel)
    return sass_mix(built.cubin, built.lowered[kernel.symbol])


def _opcodes(kernel: Kernel) -> set[str]:
    return {op.split(".")[0] for op, n in _mix(kernel).items() if n}


needs_cuobjdump = pytest.mark.skipif(not (has_tool("cuobjdump") or has_tool("nvdisasm")),
                                     reason="no cuobjdump or nvdisasm to read SASS")


@needs_cuobjdump
@pytest.mark.parametrize("kernel", RUNGS, ids=IDS)
def test_every_rung_runs_on_hgmma_from_its_sm90a_build(kernel: Kernel) -> None:
    ops = _opcodes(kernel)
    assert "HGMMA" in ops, f"{kernel.id}: no HGMMA in {sorted(ops)}"
    assert "HMMA" not in ops, f"{kernel.id}: mma.sync (HMMA) on the wgmma ladder"


@needs_cuobjdump
@pytest.mark.parametrize("kernel", RUNGS, ids=IDS)
def test_copy_engine_loads_exactly_where_the_rung_takes_tensor_maps(kernel: Kernel) -> None:
    takes_maps = set(TENSOR_MAP_ARGS) <= set(kernel.args)
    assert ("UTMALDG" in _opcodes(kernel)) == takes_maps


@pytest.mark.skipif(not has_tool("cuobjdump"), reason="no cuobjdump")
@pytest.mark.parametrize("kernel", RUNGS, ids=IDS)
def test_warp_specialised_rungs_trade_registers_with_setmaxnreg(kernel: Kernel) -> None:
    # three warpgroups = one producer and two consumers; setmaxnreg shows as USETMAXREG only when ptxas honoured it
    specialised = kernel.threads == 384
    assert (_mix(kernel)["USETMAXREG"] > 0) == specialised
    if specialised:
        assert "C7508" not in _built(kernel).log, "ptxas ignored setmaxnreg"


@needs_cuobjdump
@pytest.mark.parametrize("kernel", RUNGS, ids=IDS)
def test_no_rung_spills_its_accumulators_to_local_memory(kernel: Kernel) -> None:
    ops = _opcodes(kernel)
    assert not {"LDL", "STL"} & ops, f"{kernel.id}: local-memory traffic {sorted({'LDL', 'STL'} & ops)}"


def test_preconditions_refuse_partial_tiles_before_launch() -> None:
    for k in RUNGS:
        assert k.supports(Problem("sgemm", 1024, 1024, 1024))
        assert not k.supports(Problem("sgemm", 1024 + 64, 1024, 1024))
        assert not k.supports(Problem("sgemm", 1024, 1024 + 64, 1024))
        assert not k.supports(Problem("sgemm", 1024, 1024, 1024 + 16))


# ---------------------------------------------------------------- GPU tier


def _launch_cuda(kernel: Kernel, A, Bt, C, alpha: float, beta: float, grid: tuple | None = None) -> None:
    import cupy as cp
    import torch

    from harness import nvrtc as harness_build
    from harness.launch.tensor_maps import tensor_map

    built = build(source_path(kernel.source), [kernel.symbol], harness_build.device_arch(), DEFAULT_OPTIONS)
    fn = cp.RawModule(path=str(built.cubin)).get_function(built.lowered[kernel.symbol])
    fn.max_dynamic_shared_size_bytes = kernel.dynamic_smem
    M, K = A.shape
    N = Bt.shape[0]
    args = [np.int32(M), np.int32(N), np.int32(K), np.float32(alpha), cp.from_dlpack(A), cp.from_dlpack(Bt),
            np.float32(beta), cp.from_dlpack(C)]
    if set(TENSOR_MAP_ARGS) <= set(kernel.args):
        args += [tensor_map(A, kernel.tile_m), tensor_map(Bt, kernel.tile_n)]
    torch.cuda.synchronize()
    # the suite's 2-D grid unless told: the persistent rung then runs one tile per block (its header: any grid works)
    fn(grid or kernel.grid(Problem("sgemm", M, N, K)), kernel.block, tuple(args), shared_mem=kernel.dynamic_smem)
    cp.cuda.runtime.deviceSynchronize()


def _launch_triton(kernel: Kernel, A, Bt, C, alpha: float, beta: float) -> None:
    import torch

    from harness.launch import triton as launch_triton
    from kernels_triton import gemm_hopper

    gemm_hopper.launch(A, Bt, C, alpha, beta, **launch_triton.config(kernel, kernel.counterparts[0]))
    torch.cuda.synchronize()


def _relative_error(launch, kernel: Kernel, M: int, N: int, K: int, alpha: float, beta: float) -> float:
    import torch

    gen = torch.Generator(device="cuda").manual_seed(M + N + K)
    A = torch.randn(M, K, device="cuda", generator=gen)
    Bt = torch.randn(N, K, device="cuda", generator=gen)
    C0 = torch.randn(M, N, device="cuda", generator=gen)
    C = torch.full((M, N), float("nan"), device="cuda") if beta == 0 else C0.clone()
    ref = alpha * (A.double() @ Bt.double().t()) + beta * C0.double()
    launch(kernel, A, Bt, C, alpha, beta)
    assert torch.isfinite(C).all(), "an output element was not written (NaN poison survived)"
    return ((C.double() - ref).norm() / ref.norm()).item()


# tf32 keeps 10 mantissa bits: truncation of both inputs gives about 2 * 2^-11 relative error on random data
# (measured 7.7e-4 on an H100 at 1024^3); past the harness's K * u + 2 * u_tf32 bound means a wrong kernel.
_TF32_BOUND = 1024 * 2.0**-24 + 2 * 2.0**-11
_SHAPES = [(1024, 1024, 1024, 1.0, 0.0), (384, 512, 1056, 0.5, -1.5)]


# Every rung and its counterpart also go through the suite's own numerics layers (exact, random, subnormal,
# beta = 0) through the harness's launcher in tests/test_gpu.py; these check the persistent walk over many tiles.


@pytest.mark.gpu
@pytest.mark.parametrize("blocks", [1, 3, 7])
def test_persistent_rung_carries_stage_and_phase_across_the_tiles_of_one_block(blocks: int) -> None:
    # 1024 x 1024 is 32 tiles of 128 x 256: with 1, 3 or 7 blocks each block walks many tiles, so the full/empty
    # barrier phases run on across tile boundaries (one tile per block, as the 2-D grid does, never tests that)
    from functools import partial

    kernel = next(k for k in RUNGS if k.id.startswith("rosetta.wgmma_persistent"))
    for shape in _SHAPES:
        err = _relative_error(partial(_launch_cuda, grid=(blocks, 1, 1)), kernel, *shape)
        assert err < _TF32_BOUND, f"{blocks} blocks, {shape}: relative error {err:.2e}"
