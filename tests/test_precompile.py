"""The Triton precompile pool of a run (harness/run/precompile.py): it fills Triton's disk cache ahead of the worker
and never gets in the way of a result."""

from __future__ import annotations

import os
from concurrent.futures import wait

import pytest

from harness.identity import ImplId
from harness.launch.implementations import all_impls
from harness.problems import Problem
from harness.registry import BY_ID
from harness.run import precompile
from harness.run.messages import ImplKey
from harness.run.work import key_of


def test_problems_past_the_memory_cap_are_left_to_the_worker():
    assert precompile._fits(Problem("sgemm", 4096, 4096, 4096))
    assert not precompile._fits(Problem("sgemv", 65536, 32800))


def test_a_plan_without_triton_implementations_starts_no_processes():
    kernel = BY_ID["s000.gemm_naive"]
    cuda_only = [(Problem("sgemm", 64, 64, 64), [key_of(i) for i in all_impls([kernel], ("cuda",))])]
    pre = precompile.Precompiler(cuda_only, None)
    assert pre.pool is None and pre.close() == []


@pytest.mark.gpu
@pytest.mark.parametrize(("kernel_id", "impl", "at_least"), [
    ("s000.gemm_block_tiling_v3<64,64,16,16,16>", "triton:dot", 1),
    # an autotuned counterpart: every configuration compiled, none timed
    ("rosetta.sgemm_general<128,256,16,32,128,8,16,8>", "triton:tuned", 2),
    # a Gluon counterpart compiles through the same JIT, so the same pool takes it (a tensor-descriptor one too)
    ("rosetta.sgemm_general<128,256,16,32,128,8,16,8>", "gluon:mirror", 1),
    ("rosetta.wgmma_persistent<tf32,128,256,32,4,kmajor>", "gluon:mirror", 1),
])
def test_the_pool_compiles_a_counterpart_into_tritons_disk_cache(tmp_path, monkeypatch, kernel_id, impl, at_least):
    if (os.cpu_count() or 1) < 4:
        pytest.skip("the pool only starts on a machine with 4 or more cores")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))  # the spawned processes inherit it
    kernel = BY_ID[kernel_id]
    plan = [(Problem("sgemm", 256, 256, 256), [ImplKey(kernel.id, ImplId.from_json(impl), "sgemm")])]
    pre = precompile.Precompiler(plan, None, processes=1)
    assert pre.pool is not None
    wait(pre.futures)  # close() drops the tasks not yet started (an autotuner's configurations are several)
    assert pre.close() == []
    cubins = list((tmp_path / "triton").rglob("*.cubin"))
    assert len(cubins) >= at_least, f"the pool compiled {len(cubins)} kernels into Triton's cache"


def test_the_worker_reads_the_plans_cuda_compile_records_in_the_background_and_waits_for_its_own(monkeypatch):
    """The worker starts reading every default-build CUDA kernel's compile record of the plan when it starts (the
    build-variant rows read none), and a row's record is the one that read produced, not a second read."""
    from harness.launch.implementations import Impl
    from harness.records.lines import Resources
    from harness.run import work
    from harness.run.plan import cuda_kernels

    kernel = BY_ID["s000.gemm_naive"]
    plan = [(Problem("sgemm", 64, 64, 64), [key_of(i) for i in all_impls([kernel])])]
    assert cuda_kernels(plan) == [kernel.id]

    read: list[str] = []

    def record(k, arch):
        read.append((k.id, arch))
        return Resources(source=f"read for {arch}")

    monkeypatch.setattr("harness.inspect.resources.kernel_record", record)
    cache = work.ResourceCache(gpu=False)
    cache.read_ahead([BY_ID[k] for k in cuda_kernels(plan)], "sm_90a")
    got = cache.of(Impl("cuda", "sgemm", kernel), None)
    again = cache.of(Impl("cuda", "sgemm", kernel), None)
    assert got is again and got.source == "read for sm_90a" and read == [(kernel.id, "sm_90a")]


def test_each_binary_is_one_task_and_an_autotuned_launch_is_spread_over_every_process_at_the_timed_problem_alone():
    """The tutorial's 16 configurations compiled in one process were most of a cold run; its numerics run the
    configuration tuned at the timed problem, so its other form is not compiled 16 times. A plain form compiles once
    for the timed problem and once for the first numerics layer whose scalars make another binary (alpha != 1 or
    beta != 0: the exact layer's); the random and scaled layers' scalars make that same binary again, the subnormal
    layer's the timed one."""
    from harness.baselines import TRITON_BASELINES

    name = next(iter(TRITON_BASELINES))
    tutorial = ImplKey(None, ImplId.from_json(name), "sgemm")
    kernel = BY_ID["rosetta.sgemm_general<128,256,16,32,128,8,16,8>"]
    dot = ImplKey(kernel.id, ImplId.from_json("triton:dot"), "sgemm")
    ceiling = ImplKey(kernel.id, ImplId.from_json("triton:autotuned"), "sgemm")  # a tuner's ceiling, not "tuned*"
    from harness.run.work import impl_of

    assert impl_of(ceiling).autotuned and not impl_of(dot).autotuned
    problem = Problem("sgemm", 256, 256, 256)
    got = precompile.tasks([(problem, [tutorial, dot])], 4)
    tuned = [(p, part, parts) for p, part, parts, keys in got if keys == [tutorial]]
    assert len(tuned) == 8 and {part for _, part, _ in tuned} == set(range(8))
    assert {(p, parts) for p, _, parts in tuned} == {(problem, 8)}
    plain = [(p.alpha, p.beta, part, parts) for p, part, parts, keys in got if keys == [dot]]
    assert plain == [(1.0, 0.0, 0, 1), (2.0, -0.5, 0, 1)]
    # in the worker's order: the tutorial's warm-up launch (the timed problem) first, the dot form after it
    assert got[0][3] == [tutorial] and got[0][0] == problem
    assert got[-1][3] == [dot]


@pytest.mark.gpu
def test_the_pool_compiles_every_configuration_of_the_tutorial_once_at_the_timed_problem(tmp_path, monkeypatch):
    if (os.cpu_count() or 1) < 4:
        pytest.skip("the pool only starts on a machine with 4 or more cores")
    from harness.baselines import TRITON_BASELINES
    from kernels_triton.gemm_tutorial import PUBLISHED_TILES

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    # its TF32 class: the quickest to compile (the ieee class's largest tiles take several seconds each)
    name = next(n for n, precision in TRITON_BASELINES.items() if precision == "tf32")
    tutorial = ImplKey(None, ImplId.from_json(name), "sgemm")
    pre = precompile.Precompiler([(Problem("sgemm", 256, 256, 256), [tutorial])], None, processes=4)
    assert pre.pool is not None
    wait(pre.futures)  # close() drops the tasks not yet started, as a run's end does
    pre.close()
    cubins = list((tmp_path / "triton").rglob("*.cubin"))
    # as published (C = A @ B, the timed problem's form), each once; not the epilogue's 16 beside them
    assert len(PUBLISHED_TILES) <= len(cubins) < 2 * len(PUBLISHED_TILES), f"the pool compiled {len(cubins)} kernels"


@pytest.mark.gpu
def test_after_the_pool_the_workers_launches_load_from_tritons_cache_and_compile_only_the_tuned_epilogue(
        tmp_path, monkeypatch):
    """The worker's warm-up, numerics and beta == 0 launches of a plain form add nothing to Triton's disk cache the
    pool filled (every binary loaded, none compiled again); the tutorial's add one binary: its epilogue form at the
    configuration tuned for the timed problem, which no pool can know ahead."""
    if (os.cpu_count() or 1) < 4:
        pytest.skip("the pool only starts on a machine with 4 or more cores")
    import torch

    from harness.baselines import TRITON_BASELINES
    from harness.run.runner import ProblemContext, RunOptions, measure
    from harness.run.work import impl_of

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    kernel = BY_ID["s000.gemm_block_tiling_v3<64,64,16,16,16>"]
    name = next(n for n, precision in TRITON_BASELINES.items() if precision == "tf32")
    keys = [ImplKey(kernel.id, ImplId.from_json("triton:dot"), "sgemm"), ImplKey(None, ImplId.from_json(name), "sgemm")]
    problem = Problem("sgemm", 320, 192, 128)  # a shape no other test launches: nothing in memory from before
    pre = precompile.Precompiler([(problem, keys)], None, processes=4)
    wait(pre.futures)
    assert pre.close() == []
    added = []
    for key in keys:
        before = set((tmp_path / "triton").rglob("*.cubin"))
        ctx = ProblemContext(problem, torch.device("cuda"), seed=3)
        rec = measure(impl_of(key), ctx, RunOptions(time=False))
        assert rec.ok, rec.reason
        added.append(len(set((tmp_path / "triton").rglob("*.cubin")) - before))
    assert added == [0, 1]
