"""pytest-benchmark: one benchmark per (kernel, implementation) on the default problem of its op, grouped by problem.

The statistics pytest-benchmark keeps, shows, saves and compares are device times. A benchmark round is a call
bracketed by two readings of the benchmark's timer, and the timer here is harness.measure.timing.EventClock (set by the
`benchmark(timer=...)` marker): a clock that stands still on the host and advances only by CUDA-event times. The
round is `CLOCK.timed(fn)`: it enqueues one run as time_gpu's loop does (L2 flushed with time_gpu's buffer before
the start event, start event, fn(), end event), then waits for the run enqueued `CLOCK.depth` rounds earlier and
advances the clock by that run's event time. The difference pytest-benchmark reads is therefore one run's device
time, with runs queued back to back so that the GPU never waits for the host: neither the launch nor the
synchronisation nor pytest-benchmark's bookkeeping is in any statistic. So the table, `--benchmark-json`,
`--benchmark-histogram`, `--benchmark-compare` and `--benchmark-compare-fail` all work on device times.
`benchmark.pedantic` runs the rounds: pytest-benchmark's own calibration reads the timer in a loop until it
moves, which a clock that moves only with the device never does.

test_benchmark_median_is_time_gpus_median pins this on the GPU: the benchmark's median and time_gpu's agree
within 5%. Ids, markers and the order within a group come from tests/benchmark_cases.py (derived from the
registry). The tests without the `gpu` marker check ids and the clock on the CPU, with a fake event source.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from harness.analysis.verdicts import compare, margin_for
from harness.launch.implementations import Impl, baselines
from harness.measure.numerics import poison_for
from harness.measure.rounds import Entry, estimate_ms, interleave
from harness.measure.sm_clock import ProbeBuffer
from harness.measure.timing import EventClock, Samples, time_gpu
from harness.problems import DEFAULT_SGEMM, DEFAULT_SGEMV, OPS, Problem
from harness.run.messages import ImplKey
from harness.run.runner import ProblemContext, figures
from harness.run.work import impl_of, key_of
from tests.benchmark_cases import CASES, case_id, case_marks, markers, model_of, param, sort_chosen

PROBLEMS = {"sgemm": DEFAULT_SGEMM[0], "sgemv": DEFAULT_SGEMV[1]}
CLOCK = EventClock()
ROUNDS, WARMUP_ROUNDS = 30, 3
AGREEMENT = 0.05  # the benchmark's median against time_gpu's, same implementation, same process


def _bound(impl: Impl):
    problem = PROBLEMS[impl.op]
    ops = ProblemContext(problem, torch.device("cuda"), seed=5).operands(problem, "random")
    out = ops.fresh_output(poison_for(impl.reads_c_when_beta_zero))
    return impl.bind(ops.tensors(out), problem.alpha, problem.beta)


def ahead_plan(impls: list[Impl]) -> list[tuple[Problem, list[ImplKey]]]:
    """The benchmarks chosen to run, as a run's plan: each op's default problem with its implementations."""
    keys = {op: [key_of(i) for i in impls if i.op == op] for op in PROBLEMS}
    return [(PROBLEMS[op], found) for op, found in keys.items() if found]


@pytest.fixture(scope="session")
def compiled_ahead(request: pytest.FixtureRequest):
    """As a run compiles (harness/run/precompile.py): a pool of processes compiles every chosen Triton benchmark, an
    autotuner's list spread over them, while the benchmarks before it are timed, so that a first call loads its
    kernels from Triton's disk cache instead of compiling them one after another. Nothing starts where the
    benchmarks are skipped."""
    from harness.run.precompile import Precompiler

    chosen = [item.callspec.params["impl"] for item in request.session.items
              if getattr(item, "originalname", "") == "test_benchmark" and hasattr(item, "callspec")]
    skipped = request.config.getoption("benchmark_skip", default=False)
    pool = None if skipped or not chosen else Precompiler(ahead_plan(chosen), None)
    yield
    if pool is not None:
        pool.close()


@pytest.fixture(scope="session")
def yardsticks() -> dict[tuple[str, str], Samples]:
    """cuBLAS's samples per (op, precision class), measured once, in interleaved rounds, apart from any kernel."""
    device = torch.device("cuda", torch.cuda.current_device())
    entries = [Entry((op, impl.precision), fn, estimate_ms(fn, device))
               for op in PROBLEMS for impl in baselines(op) if impl.vendor for fn in [_bound(impl)]]
    return interleave(entries, rep_ms=50, device=device)


def _as_samples(seconds: list[float], mhz: float | None, name: str) -> Samples:
    """A benchmark's rounds as rounds of the verdict design: ROUNDS runs in 10 consecutive groups."""
    per = len(seconds) // 10
    ms = [s * 1e3 for s in seconds[:10 * per]]
    return Samples(ms, [mhz] * len(ms), [per] * 10, [0] * 10, f"benchmark {name}")


@pytest.mark.gpu
@pytest.mark.benchmark(timer=CLOCK)
@pytest.mark.parametrize("impl", [param(i) for i in CASES])
def test_benchmark(benchmark, impl: Impl, yardsticks, compiled_ahead):
    problem = PROBLEMS[impl.op]
    if impl.unmet(problem):
        pytest.skip("; ".join(impl.unmet(problem)))
    fn = _bound(impl)
    fn()  # compile, load, autotune: not a round
    benchmark.group = problem.label
    probes = ProbeBuffer.make(1, torch.device("cuda", torch.cuda.current_device()))
    probes.probe(0, 0)
    benchmark.pedantic(CLOCK.timed(fn), rounds=ROUNDS, warmup_rounds=WARMUP_ROUNDS, iterations=1)
    CLOCK.drop_queued()  # this benchmark's last runs end here, not in the next test
    probes.probe(0, 1)
    if benchmark.disabled:  # --benchmark-disable, or under xdist: one call, no statistics
        return
    stats = benchmark.stats.stats
    mhz = probes.clocks_mhz(1)[0]
    fig = figures(impl, problem, stats.median * 1e3, None)
    # The verdict against cuBLAS of the class: this benchmark's rounds against cuBLAS's interleaved rounds, two
    # independent sets, so that --benchmark-compare output can be read against an interval and a call.
    yardstick = yardsticks[(impl.op, "tf32" if impl.tf32 else "fp32")]
    v = compare(_as_samples(list(stats.data), mhz, impl.label), yardstick, margin_for(impl.precision))
    benchmark.extra_info.update({"precision": impl.precision, **fig.to_json(), "sm_clock_mhz": mhz,
                                 "vs_cublas": {"pct": 100 / v.time.ratio, "lo": 100 / v.time.hi,
                                               "hi": 100 / v.time.lo, "call": v.call.value}})
    assert stats.rounds == ROUNDS and stats.min > 0
    assert mhz is not None and 0 < v.time.lo <= v.time.ratio <= v.time.hi


@pytest.mark.gpu
@pytest.mark.benchmark(timer=CLOCK, group="EventClock against time_gpu")
@pytest.mark.parametrize("impl", [param(b) for b in baselines("sgemm") if b.vendor])
def test_benchmark_median_is_time_gpus_median(benchmark, impl: Impl):
    """cuBLAS at the default sgemm problem: fp32 (the suite's yardstick) and TF32 (a sub-millisecond kernel, where
    rounds of one synchronised launch each read about twice time_gpu's median). time_gpu runs before and after the
    benchmark, so a drift of the SM clock between them does not count against the agreement."""
    fn = _bound(impl)
    before = time_gpu(fn).median_ms
    benchmark.pedantic(CLOCK.timed(fn), rounds=ROUNDS, warmup_rounds=WARMUP_ROUNDS, iterations=1)
    CLOCK.drop_queued()
    after = time_gpu(fn).median_ms
    if benchmark.disabled:
        pytest.skip("benchmarks disabled (--benchmark-disable or xdist): no statistics to compare")
    suite = (before + after) / 2
    ours = benchmark.stats.stats.median * 1e3
    benchmark.extra_info.update({"time_gpu_median_ms_before": before, "time_gpu_median_ms_after": after})
    assert abs(ours - suite) <= AGREEMENT * suite, (
        f"benchmark median {ours:.4f} ms, time_gpu {before:.4f} / {after:.4f} ms: more than {AGREEMENT:.0%} apart")


# CPU tier: ids, markers, order, and the clock through pytest-benchmark with a fake event source.


def test_every_benchmark_id_is_plain_words():
    bad = [case_id(i) for i in CASES if not re.fullmatch(r"[\w.-]+", case_id(i), re.ASCII)]
    assert not bad, f"ids -k cannot name: {bad}"


def test_the_compile_pool_is_given_every_chosen_benchmark_at_its_default_problem():
    # each key names, in the pool's own lookup (impl_of), the implementation the benchmark launches
    plan = ahead_plan(list(CASES))
    assert [problem for problem, _ in plan] == [PROBLEMS[op] for op in PROBLEMS if any(i.op == op for i in CASES)]
    for problem, keys in plan:
        assert [impl_of(k).label for k in keys] == [i.label for i in CASES if i.op == problem.op]


def test_benchmark_ids_are_unique():
    ids = [case_id(i) for i in CASES]
    assert len(set(ids)) == len(ids), sorted({i for i in ids if ids.count(i) > 1})


def test_an_id_keeps_every_part_of_the_kernel_id_and_implementation():
    impl = next(i for i in CASES if i.kernel and i.kernel.id == "s000.gemm_block_tiling_v3<64,64,16,16,16>"
                and i.model == "cuda")
    assert case_id(impl) == "s000-gemm_block_tiling_v3-64-64-16-16-16-cuda"
    assert case_id(baselines("sgemm")[1]) == "cublas-tf32-sgemm"


def test_every_case_carries_registered_op_model_and_idea_markers(request):
    registered = {line.split(":")[0] for line in request.config.getini("markers")}
    assert set(markers()) <= registered
    for impl in CASES:
        marks = case_marks(impl)
        assert impl.op in marks and model_of(impl) in marks and model_of(impl) in ("cuda", "triton", "gluon", "cublas")
        assert impl.kernel is None or impl.kernel.idea in marks
        assert set(marks) <= set(registered), f"{case_id(impl)}: {set(marks) - set(registered)} not registered"


def test_sorted_by_name_each_problem_lists_cublas_first():
    for op in OPS:
        names = sorted(f"test_benchmark[{case_id(i)}]" for i in CASES if i.op == op)
        cublas = sorted(f"test_benchmark[{case_id(b)}]" for b in baselines(op) if b.vendor)
        assert names[:len(cublas)] == cublas
        assert cublas[0] == f"test_benchmark[{case_id(baselines(op)[0])}]"  # fp32 before TF32


def test_the_default_sort_is_by_name_unless_the_user_chose_one(request):
    assert sort_chosen(["-m", "gpu", "--benchmark-sort=min"], [], "")
    assert sort_chosen([], [], "--benchmark-sort mean")
    assert not sort_chosen(["-m", "gpu", "--benchmark-only"], ["-ra"], "")
    if not sort_chosen(list(request.config.invocation_params.args), list(request.config.getini("addopts")), ""):
        assert request.config.getoption("benchmark_sort") == "name"


def test_a_round_flushes_then_brackets_fn_with_events_and_advances_by_their_time():
    log: list[str] = []
    device_ms = [0.0]  # a fake device whose time moves only while its kernel runs

    class Event:
        def record(self) -> None:
            log.append("record")
            self.at = device_ms[0]

        def synchronize(self) -> None:
            log.append("synchronize")

        def elapsed_time(self, end: Event) -> float:
            return end.at - self.at

    def kernel() -> None:
        log.append("fn")
        device_ms[0] += 2.5

    clock = EventClock(depth=0, event=Event)
    clock.flush_l2 = lambda: log.append("flush")
    before = clock()
    clock.timed(kernel)()
    assert log == ["flush", "record", "fn", "record", "synchronize"]
    assert clock() - before == pytest.approx(2.5e-3)
    assert clock() == clock()  # host time passing does not move it


def test_a_queued_round_reports_the_run_depth_rounds_earlier_and_never_waits_for_its_own():
    device_ms = [0.0]
    durations = iter([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
    waited: list[int] = []

    class Event:
        made = 0

        def __init__(self) -> None:
            self.run = Event.made // 2  # two events per run
            Event.made += 1

        def record(self) -> None:
            self.at = device_ms[0]

        def synchronize(self) -> None:
            waited.append(self.run)

        def elapsed_time(self, end: Event) -> float:
            return end.at - self.at

    def kernel() -> None:
        device_ms[0] += next(durations)

    clock = EventClock(depth=2, event=Event)
    clock.flush_l2 = lambda: None
    one, reported = clock.timed(kernel), []
    for _ in range(4):
        before = clock()
        one()
        reported.append(round((clock() - before) * 1e3, 9))
    assert reported == [1.0, 2.0, 3.0, 4.0]  # every run reported once, in order, from the first
    assert waited == [0, 1, 2, 3] and Event.made == 2 * (4 + 2)  # each round waited only for a run 2 older
    clock.timed(kernel)  # the next benchmark: the two runs still queued are waited for and dropped
    assert waited == [0, 1, 2, 3, 4, 5] and clock() - before == pytest.approx(4e-3)


_FAKE_BENCHMARK = '''
import os
import time

import pytest

from harness.measure.timing import EventClock

NOW_MS = [0.0]  # a fake device whose time moves only while its kernel runs
DEVICE_MS = iter(float(ms) for ms in os.environ["DEVICE_MS"].split(","))


class Event:
    def record(self):
        self.at = NOW_MS[0]

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return end.at - self.at


CLOCK = EventClock(flush_l2=False, depth=3, event=Event)


def kernel():
    time.sleep(0.004)  # host time that no statistic may see
    NOW_MS[0] += next(DEVICE_MS)


@pytest.mark.benchmark(timer=CLOCK, group="fake")
def test_fake(benchmark):
    benchmark.pedantic(CLOCK.timed(kernel), rounds=5, warmup_rounds=1, iterations=1)
'''


def _pytest_benchmark(tmp_path: Path, device_ms: str, *args: str) -> subprocess.CompletedProcess:
    root = Path(__file__).resolve().parents[1]
    # the inner pytest is a session of its own: none of this one's PYTEST_* settings (addopts, an xdist worker's id)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(DEVICE_MS=device_ms, PYTHONPATH=f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "--rootdir", str(tmp_path), f"--benchmark-storage=file://{tmp_path / 'store'}",
                           str(tmp_path / "test_fake.py"), *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.slow
def test_pytest_benchmark_statistics_and_compare_fail_are_the_event_times(tmp_path):
    """Through pytest-benchmark itself: rounds whose host time is 4 ms and device time 1-3 ms report the device
    times, and a second run 20% slower on the device fails --benchmark-compare-fail=median:10%."""
    (tmp_path / "test_fake.py").write_text(textwrap.dedent(_FAKE_BENCHMARK))
    # 3 runs queued ahead, 1 warm-up round, 5 rounds: runs 0-8 run, 1-5 are the statistics.
    first = _pytest_benchmark(tmp_path, "0.5,1,3,2,2,2,9,9,9", "--benchmark-autosave",
                              f"--benchmark-json={tmp_path}/a.json")
    assert first.returncode == 0, first.stdout + first.stderr
    stats = json.loads((tmp_path / "a.json").read_text())["benchmarks"][0]["stats"]
    assert stats["data"] == pytest.approx([1e-3, 3e-3, 2e-3, 2e-3, 2e-3])  # the warm-up round is not kept
    assert (stats["median"], stats["min"], stats["max"]) == pytest.approx((2e-3, 1e-3, 3e-3))
    slower = _pytest_benchmark(tmp_path, "0.5,1.2,3.6,2.4,2.4,2.4,9,9,9", "--benchmark-compare",
                               "--benchmark-compare-fail=median:10%")
    assert slower.returncode != 0 and "Performance has regressed" in slower.stdout + slower.stderr, slower.stdout
    same = _pytest_benchmark(tmp_path, "0.5,1,3,2,2,2.1,9,9,9", "--benchmark-compare",
                             "--benchmark-compare-fail=median:10%")
    assert same.returncode == 0, same.stdout + same.stderr
