"""The registry is the single list of kernels: it must agree with the sources and the seeds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.problems import DEFAULT_SGEMM, DEFAULT_SGEMV, Problem
from harness.problems.preconditions import unmet
from harness.registry import IDEAS, KERNELS, SEEDS, get
from kernels_cuda import SOURCE_DIR, source_path

SEEDS_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "seeds"
_GLOBAL = re.compile(r"__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?(\w+)\s*\(")


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
def test_counterparts_take_tile_and_warps_from_the_cuda_kernel_unless_a_deviation_says_why(kernel):
    for c in kernel.counterparts:
        cfg = c.config(kernel)
        derived = {"block_m": kernel.tile_m, "num_warps": kernel.threads // 32,
                   "block_n": kernel.tile_k if kernel.op == "sgemv" else kernel.tile_n}
        if kernel.op == "sgemm":
            derived["block_k"] = kernel.tile_k
        for key, value in derived.items():
            if key in c.deviations:
                assert c.deviations[key].why.strip(), f"{c.name}: {key} deviates without a reason"
                assert cfg[key] == c.deviations[key].value != value, f"{c.name}: {key} 'deviation' equals the kernel's"
            else:
                assert cfg[key] == value, f"{c.name}: {key} = {cfg[key]}, the kernel implies {value}"


def test_a_kernel_id_names_its_cu_file():
    stems = {p.stem for p in SOURCE_DIR.glob("*.cu")}
    for k in KERNELS:
        assert k.id.split("<")[0].replace(".", "_") in stems, f"{k.id}: no kernels_cuda/{k.source}"


def _header(kernel) -> dict[str, str]:
    """The .cu header's fields ("// name:   value"), continuation lines ("//      more") joined."""
    fields: dict[str, str] = {}
    last = None
    for line in source_path(kernel.source).read_text().splitlines():
        if not line.startswith("//"):
            break
        m = re.match(r"// (\w+):\s*(.*)", line)
        if m:
            last = m.group(1)
            fields[last] = m.group(2)
        elif last:
            fields[last] += " " + line[2:].strip()
    return fields


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.id)
def test_cu_header_limits_agree_with_the_registry_preconditions(kernel):
    limits = _header(kernel).get("limits", "")
    assert limits, f"{kernel.source} has no limits: line"
    lower = limits.lower()
    for c in kernel.preconditions:
        if c.kind == "multiple":
            dim = c.multiple[0]
            assert re.search(rf"\b{dim}\s*%", limits, re.IGNORECASE), f"header states no {dim} % ... limit: {c.text}"
            assert f"any {dim.lower()}" not in lower, f"header says any {dim} but the registry requires {c.text}"
        elif c.kind == "int32_indices":
            assert "int32" in lower or "32-bit" in lower, f"header does not state the 32-bit index limit: {c.text}"
        elif c.kind == "int32_dims":
            assert "64-bit" in lower, "registry trusts 64-bit offsets the header does not state"
        elif c.kind == "square":
            assert "square" in lower or "n x n" in lower, "header does not state that the kernel is square-only"
    if kernel.aligned16:
        assert "16-byte aligned" in lower, f"registry requires {kernel.aligned16} 16-byte aligned, the header does not"
    stated = {d for d in "MNK" if re.search(rf"\b{d}\s*%", limits, re.IGNORECASE)}
    declared = {c.multiple[0] for c in kernel.preconditions if c.kind == "multiple"}
    assert stated <= declared | {"K"} if kernel.op == "sgemv" else stated == declared, \
        f"header limits on {sorted(stated)}, registry on {sorted(declared)}"


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


def test_every_rank1_form_is_labelled_deliberately_different_and_its_kernel_keeps_a_staged_form():
    from harness.catalog_types.kernel import DELIBERATELY_DIFFERENT

    rank1 = [(k, c) for k in KERNELS for c in k.counterparts if c.module == "gemm_outer"]
    assert rank1, "the registry has rank-1 forms to label"
    for k, c in rank1:
        assert c.design.startswith(DELIBERATELY_DIFFERENT) and c.deliberately_different, f"{k.id} [{c.name}]"
        staged = [s for s in k.counterparts if not s.deliberately_different]
        assert staged and all(s.module in ("gemm_tile", "gemm_ladder") for s in staged), k.id
    # beside them, only the pre-split 3xTF32 form departs from its kernel's design (tests/test_presplit.py)
    others = {c.module for k in KERNELS for c in k.counterparts if c.deliberately_different} - {"gemm_outer"}
    assert others == {"gemm_presplit"}


def test_a_design_text_must_say_deliberately_different_and_a_kernel_cannot_have_only_such_forms():
    from dataclasses import replace

    from harness.registry import Counterpart

    with pytest.raises(ValueError, match="deliberately different"):
        Counterpart("rank1", "gemm_outer", design="rank-1 updates")
    kernel = get("s000.gemm_block_tiling_v4<128,128,8,16,16>")
    with pytest.raises(ValueError, match="every counterpart is deliberately different"):
        replace(kernel, counterparts=tuple(c for c in kernel.counterparts if c.deliberately_different))


LADDER = [k for k in KERNELS if k.id.startswith("rosetta.sgemm_")]


@pytest.mark.parametrize("kernel", LADDER, ids=lambda k: k.id)
def test_each_ladder_rung_has_a_tuned_row_on_its_own_tile_with_a_small_space_holding_its_own_setting(kernel):
    from harness.launch import triton as launch_triton

    dot, tuned = kernel.counterpart("dot"), kernel.counterpart("tuned")
    cfg = launch_triton.config(kernel, tuned)
    assert cfg == launch_triton.config(kernel, dot), "the tuned row is derived from the rung like the dot row"
    module = launch_triton.module(tuned)
    space = module.configs(**{k: v for k, v in cfg.items() if k in ("block_m", "block_n", "block_k", "num_warps",
                                                                    "group_m")})
    assert 2 <= len(space) <= 8
    want = launch_triton.constexprs(kernel, tuned)
    assert all(c.kwargs == want for c in space), "every configuration keeps the rung's tile and program order"
    assert (cfg["num_warps"], cfg["num_stages"]) in {(c.num_warps, c.num_stages) for c in space}
    assert len({(c.num_warps, c.num_stages) for c in space}) == len(space)


def test_tf32_rounding_text_is_stated_for_every_tensor_core_implementation_and_only_there():
    from harness.catalog_types.kernel import TF32_CONVERSION_TEXT

    for k in KERNELS:
        if k.precision == "fp32":
            assert k.tf32_rounding == "" and all(c.tf32_rounding(k) == "" for c in k.counterparts)
            continue
        # which conversion is proven on the code by the tensor-core mapping claim "fp32 to TF32 conversion"
        assert k.tf32_conversion in TF32_CONVERSION_TEXT, f"{k.id} states no tf32_conversion"
        assert k.tf32_rounding == TF32_CONVERSION_TEXT[k.tf32_conversion], k.id
        for c in k.counterparts:
            if c.precision_of(k).startswith("bf16"):  # Triton's bf16 splits: no TF32 anywhere
                assert c.tf32_conversion(k) is None and c.tf32_rounding(k) == "", (k.id, c.name)
                continue
            want = "truncate" if k.precision == "tf32" else "rna"
            assert c.tf32_conversion(k) == want and c.tf32_rounding(k) == TF32_CONVERSION_TEXT[want], (k.id, c.name)
