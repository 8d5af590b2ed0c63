"""The registry is the single list of kernels: it must agree with the sources and the seeds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.ideas import IDEAS
from harness.preconditions import unmet
from harness.problems import DEFAULT_SGEMM, DEFAULT_SGEMV, Problem
from harness.registry import KERNELS, SEEDS, get
from kernels_cuda import SOURCE_DIR, source_path

SEEDS_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "seeds"
_GLOBAL = re.compile(r"__global__\s+void\s+(\w+)\s*\(")


def test_every_cuda_source_has_a_registry_entry_for_each_of_its_kernels():
    for path in sorted(SOURCE_DIR.glob("*.cu")):
        functions = set(_GLOBAL.findall(path.read_text()))
        assert functions, f"{path.name} defines no __global__ function"
        registered = {k.symbol.split("<")[0] for k in KERNELS if k.source == path.name}
        assert functions == registered, f"{path.name}: kernels {functions} but registry entries for {registered}"


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.id)
def test_entry_names_an_existing_file_symbol_seed_and_idea(kernel):
    text = source_path(kernel.source).read_text()
    assert kernel.symbol.split("<")[0] in _GLOBAL.findall(text)
    assert kernel.idea in IDEAS
    if kernel.seed is None:
        assert "seed:       none" in text
    else:
        assert f"seed:       {SEEDS[kernel.seed].file}" in text, "the .cu header names another seed"


def test_seed_files_named_by_the_registry_exist_beside_the_project():
    if not SEEDS_DIR.is_dir():
        pytest.skip(f"no seeds folder at {SEEDS_DIR} (it sits beside the checkout in development and CI)")
    for seed in SEEDS.values():
        assert (SEEDS_DIR / seed.file).is_file(), seed.file


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.id)
def test_launch_geometry_covers_the_seed_problem(kernel):
    problem = DEFAULT_SGEMM[0] if kernel.op == "sgemm" else DEFAULT_SGEMV[1]
    assert not unmet(kernel.preconditions, problem), "the seed's own problem must be allowed"
    gx, gy, _ = kernel.grid(problem)
    if kernel.op == "sgemm":
        assert gx * kernel.tile_n >= problem.N and gy * kernel.tile_m >= problem.M
    else:
        assert gx * kernel.tile_m >= problem.M


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.id)
def test_counterparts_take_their_warps_from_the_cuda_block(kernel):
    for c in kernel.counterparts:
        assert c.num_warps == max(1, kernel.threads // 32), f"{c.name}: num_warps {c.num_warps}"


def test_kernels_with_a_beta_c_term_are_declared_to_read_c():
    for k in KERNELS:
        text = source_path(k.source).read_text()
        assert k.reads_c_when_beta_zero == ("beta * C[" in text), k.id


def test_unknown_kernel_id_is_a_value_error_with_a_hint():
    with pytest.raises(ValueError, match=r"unknown kernel id 'naive_gemm'.*s004\.naive_gemm<32>"):
        get("naive_gemm")


def test_preconditions_reject_shapes_outside_the_tile():
    k = get("s000.gemm_block_tiling_v2<64,16,16>")
    failed = k.unmet(Problem("sgemm", 64, 64, 100))
    assert failed == ["K % 64 == 0 (no bounds checks)"]
    assert get("s002.tiled_matmul<16>").unmet(Problem("sgemm", 32, 32, 48))  # not square
    assert get("s001.v1_naive").unmet(Problem("sgemm", 4, 4, 4, alpha=2.0))  # computes A*B only
