"""pytest-benchmark: one benchmark per (kernel, implementation, shape), grouped by problem.

Each round flushes L2 in pedantic's setup (outside the measured call) and synchronises inside it, so
pytest-benchmark's own statistics are cold-cache device times bracketed by the host clock, and
`--benchmark-compare` compares what the suite measures. Each round's CUDA-event time is kept too:
`extra_info` carries the device median and the figures derived from it (`--benchmark-json`).
"""

from __future__ import annotations

import statistics

import pytest
import torch

from harness.launch.implementations import Impl, all_impls, baselines
from harness.numerics import poison_for
from harness.problems import DEFAULT_SGEMM, DEFAULT_SGEMV
from harness.run.runner import ProblemContext, figures, tensors
from harness.timing import L2_FLUSH_BYTES, time_gpu

pytestmark = pytest.mark.gpu
PROBLEMS = {"sgemm": DEFAULT_SGEMM[0], "sgemv": DEFAULT_SGEMV[1]}
CASES = [*baselines("sgemm"), *baselines("sgemv"), *all_impls()]


def _bound(impl: Impl):
    problem = PROBLEMS[impl.op]
    ops = ProblemContext(problem, torch.device("cuda"), seed=5).operands(problem, "random")
    out = ops.fresh_output(poison_for(impl.reads_c_when_beta_zero))
    return impl.bind(tensors(ops, out), problem.alpha, problem.beta)


@pytest.fixture(scope="session")
def yardsticks() -> dict[tuple[str, str], float]:
    """cuBLAS's median per (op, precision class), measured once, before and apart from any kernel."""
    out = {}
    for op in PROBLEMS:
        for impl in baselines(op):
            out[(op, impl.precision)] = time_gpu(_bound(impl), rep_ms=50).median_ms
    return out


@pytest.mark.parametrize("impl", CASES, ids=lambda i: i.label if i.kernel else f"{i.label} {i.op}")
def test_benchmark(benchmark, impl: Impl, yardsticks):
    problem = PROBLEMS[impl.op]
    if impl.unmet(problem):
        pytest.skip("; ".join(impl.unmet(problem)))
    fn = _bound(impl)
    fn()  # compile, load, autotune: not a round
    flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.int8, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    device_ms: list[float] = []

    def cold_cache() -> tuple[tuple, dict]:
        flush.zero_()
        torch.cuda.synchronize()
        return (), {}

    def run() -> None:
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        device_ms.append(start.elapsed_time(end))

    benchmark.group = problem.label
    benchmark.pedantic(run, setup=cold_cache, rounds=10, warmup_rounds=2, iterations=1)
    measured = device_ms[2:]  # pedantic's warm-up rounds call run() too
    median = statistics.median(measured)
    fig = figures(impl, problem, median, yardsticks.get((impl.op, "tf32" if impl.tf32 else "fp32")), None)
    benchmark.extra_info.update({"device_median_ms": median, "device_rounds": len(measured),
                                 "precision": impl.precision, **fig.to_json()})
    assert len(measured) == 10 and median > 0
    host_median = benchmark.stats.stats.median * 1e3
    # The host clock brackets the events: it can be later, never earlier than the device time.
    assert host_median >= 0.9 * median, f"host {host_median:.3f} ms < device {median:.3f} ms"
    assert fig.pct_cublas is not None and 0 < fig.pct_cublas < 10_000
