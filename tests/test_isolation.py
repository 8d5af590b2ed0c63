"""A sweep survives its kernels: a worker that aborts or hangs is recorded and replaced, resume skips
what is done, and shards of a run merge into the unsharded run's records (CPU tier, interpreter)."""

from __future__ import annotations

import pytest

from harness import env
from harness.problems import CPU_SGEMV
from harness.records.file import load
from harness.records.lines import Status
from harness.records.merge import merge
from harness.registry import select
from harness.run.plan import gpu_plan, shard
from harness.run.session import RunSession
from harness.run.worker import Worker, WorkerSpec

CPU_TIER = pytest.mark.skipif(env.has_gpu(), reason="the CPU tier's interpreter path; the GPU test below covers a GPU")
SGEMV = select(None, "sgemv")


def _session(path, **kw) -> RunSession:
    return RunSession(kw.pop("kernels", SGEMV), [CPU_SGEMV], path, ["test"], **kw)


@CPU_TIER
def test_a_worker_that_aborts_or_hangs_is_recorded_and_the_sweep_goes_on(tmp_path):
    # The limit is per implementation: long enough for a cold ahead-of-time compile on a small CI machine.
    path = tmp_path / "r.jsonl"
    failures = _session(path, measure="tests.dying_worker:measure_one", timeout_s=45).run()
    results = load(path)
    by_kernel = {r.kernel: r for r in results.results if r.model == "triton"}
    assert "SIGABRT" in by_kernel["s003.naive_sgemv"].reason
    assert "timed out after 45 s" in by_kernel["s003.coalesced_warp_sgemv"].reason
    after = [r for r in results.results if r.model == "triton" and r.kernel.startswith("rosetta.")]
    assert after and all(r.status is Status.OK for r in after), [r.reason for r in after]
    assert {r.kernel for r in failures} == {"s003.naive_sgemv", "s003.coalesced_warp_sgemv"}
    assert results.complete


@CPU_TIER
def test_resume_runs_only_what_is_not_recorded_ok(tmp_path):
    path = tmp_path / "r.jsonl"
    _session(path, measure="tests.dying_worker:measure_one", timeout_s=30).run()
    first = load(path)
    ok_before = {r.key for r in first.results if r.status is Status.OK}
    resumed = _session(path, resume=True)  # the real measuring function: the two failed ones now pass
    resumed.run()
    again = load(path)
    new = again.results[len(first.results):]
    assert {r.kernel for r in new if r.model == "triton"} == {"s003.naive_sgemv", "s003.coalesced_warp_sgemv"}
    assert all(r.status is Status.OK for r in new if r.model == "triton")
    assert not ok_before & {r.key for r in new if not r.baseline}


@CPU_TIER
def test_shards_merged_hold_the_records_of_the_unsharded_run(tmp_path):
    kernels = select(["s003", "rosetta.sgemv_block"], "sgemv")
    plan = gpu_plan(kernels, [CPU_SGEMV])
    both = [entry for i in range(2) for entry in shard(plan, i, 2)]
    assert sorted(both, key=str) == sorted(plan, key=str)
    whole = tmp_path / "whole.jsonl"
    _session(whole, kernels=kernels).run()
    parts = []
    for i in range(2):
        parts.append(tmp_path / f"part{i}.jsonl")
        _session(parts[-1], kernels=kernels, shard=(i, 2)).run()
    merged = load(merge(parts, tmp_path / "merged.jsonl"))
    strip = {(r.kernel, r.impl, r.problem, r.status) for r in load(whole).results}
    assert {(r.kernel, r.impl, r.problem, r.status) for r in merged.results} == strip


@pytest.mark.gpu
def test_an_out_of_bounds_cuda_kernel_is_recorded_and_the_next_one_passes(tmp_path):
    from harness.problems import DEFAULT_SGEMV

    path = tmp_path / "r.jsonl"
    kernels = select(["s003"], "sgemv")
    RunSession(kernels, [DEFAULT_SGEMV[0]], path, ["test"], measure="tests.oob_worker:measure_one").run()
    by = {(r.kernel, r.impl): r for r in load(path).results}
    assert by[("s003.naive_sgemv", "cuda")].status is Status.FAILED
    after = [r for (k, i), r in by.items() if k == "s003.coalesced_warp_sgemv"]
    assert after and all(r.status is Status.OK for r in after), [r.reason for r in after]


@CPU_TIER
def test_the_header_takes_the_gpu_facts_from_the_first_worker(tmp_path, monkeypatch):
    from tests.small_gpu_worker import L2_BYTES, SMS

    monkeypatch.setenv("ROSETTA_TEST_FREE_BYTES", str(1 << 40))
    path = tmp_path / "r.jsonl"
    kernels = select(["rosetta.sgemv_block_reduce"], "sgemv")
    _session(path, kernels=kernels, measure="tests.small_gpu_worker:measure_one").run()
    header = load(path).header
    assert (header.sms, header.l2_bytes) == (SMS, L2_BYTES)


@CPU_TIER
def test_a_problem_larger_than_the_workers_free_memory_is_refused_before_anything_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("ROSETTA_TEST_FREE_BYTES", "1000")
    path = tmp_path / "r.jsonl"
    with pytest.raises(ValueError, match=r"rosetta run: .* needs about .* GiB on the device"):
        _session(path, measure="tests.small_gpu_worker:measure_one").run()
    assert not path.exists()


@CPU_TIER
def test_a_run_over_several_gpus_records_which_gpu_measured_each_implementation(tmp_path, monkeypatch):
    monkeypatch.setenv("ROSETTA_TEST_FREE_BYTES", str(1 << 40))
    path = tmp_path / "r.jsonl"
    kernels = select(["rosetta.sgemv_block_reduce", "s004.naive_gemm"])
    RunSession(kernels, [CPU_SGEMV], path, ["test"], gpus=["0", "1"],
               measure="tests.small_gpu_worker:measure_one").run()
    results = load(path)
    assert results.header.devices is not None and len(results.header.devices) == 2
    by_gpu = results.header.peaks_by_device or {}
    assert sorted(p.fp32_tflops for p in by_gpu.values()) == [60.0, 61.0], by_gpu  # one entry per GPU, not per name
    measured = [r for r in results.results if r.status is not Status.COMPILED]
    assert measured and all(r.gpu in ("0", "1") for r in measured), [(r.kernel, r.gpu) for r in measured]


@CPU_TIER
def test_a_worker_that_exits_before_it_is_ready_is_spawned_once_more(tmp_path):
    spec = WorkerSpec(measure="tests.flaky_start_worker:measure_one",
                      env={"ROSETTA_TEST_START_MARKER": str(tmp_path / "failed-once")})
    worker = Worker(spec)
    try:
        worker.start()
        assert worker.alive and (tmp_path / "failed-once").exists()
    finally:
        worker.stop(kill=True)


def test_a_worker_ended_from_two_threads_at_once_closes_its_pipe_once():
    # Ctrl-C: the main thread kills the workers while a worker's thread, seeing its process die, ends it too. Here the
    # second stop arrives while the first is closing the pipe, as it did in a run that ended in "Bad file descriptor".
    worker = Worker(WorkerSpec())
    closes = []

    class Pipe:
        def close(self) -> None:
            closes.append(1)
            if len(closes) > 1:
                raise OSError(9, "Bad file descriptor")
            worker.stop(kill=True)  # the other thread, arriving mid-close

    worker.process = type("Ended", (), {"is_alive": lambda self: False})()
    worker.conn = Pipe()
    worker.stop(kill=True)
    assert closes == [1] and worker.process is None and worker.conn is None


@CPU_TIER
def test_a_worker_that_cannot_start_twice_raises_with_both_causes(tmp_path):
    spec = WorkerSpec(measure="tests.flaky_start_worker:measure_one",
                      env={"ROSETTA_TEST_START_MARKER": str(tmp_path / "m"), "ROSETTA_TEST_START_ALWAYS": "1"})
    with pytest.raises(RuntimeError, match=r"did not start: .*exited with code 255; then .*exited with code 255"):
        Worker(spec).start()


@CPU_TIER
def test_a_crash_during_the_interleaved_rounds_is_blamed_on_its_burst_and_the_others_are_timed_again(tmp_path,
                                                                                                    monkeypatch):
    monkeypatch.setenv("ROSETTA_TEST_CRASH_IN_ROUNDS", "s003.naive_sgemv")
    path = tmp_path / "r.jsonl"
    failures = _session(path, measure="tests.pending_worker:measure_one", timeout_s=60).run()
    results = load(path)
    crashed = [r for r in results.results if r.kernel == "s003.naive_sgemv" and r.model == "triton"]
    assert len(crashed) == 1 and "in round 2 of the interleaved timing" in crashed[0].reason
    assert [r.kernel for r in failures] == ["s003.naive_sgemv"]
    timed = [r for r in results.results if r.status is Status.OK]
    assert timed and all(r.timing is not None and r.timing.samples.rounds == 4 for r in timed)
    # one record per implementation, however many times the rounds were started
    measured = [r for r in results.results if r.status is not Status.COMPILED]
    assert len({r.key for r in measured}) == len(measured)
