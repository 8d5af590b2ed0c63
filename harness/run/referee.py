"""The suite's timer against NVIDIA's nvbench (the `cuda-bench` package) on the very same launch closures.

nvbench is the reference for GPU timing: cold runs (L2 flushed before each), a blocking kernel that holds the
stream until a batch is queued, the SM clock read on the device around each sample, throttled samples discarded
with a pause, and a noise criterion that decides when to stop. The suite keeps its own engine
(harness/measure/rounds.py `interleave`) because a comparison needs what nvbench's one-benchmark-at-a-time loop does not
give: every implementation of a problem timed in the same shuffled rounds, each sample kept beside its clock. This
module holds the engine to nvbench on the same closures, so that a disagreement is seen (`rosetta referee`, and
tests/test_referee.py on a GPU).

cuda-bench is optional: where it is missing, `missing()` says so and nothing here is run.
"""

from __future__ import annotations

import json
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path

import torch

from harness.launch.implementations import Impl
from harness.measure.rounds import REP_MS
from harness.problems import Problem

# nvbench's own stopping rule, bounded so that a slow kernel costs seconds, not its default 15 s per benchmark
NVBENCH_TIMEOUT_S = 6.0


def missing() -> str | None:
    """Why nvbench cannot referee here (None where it can)."""
    try:
        import cuda.bench  # noqa: F401
    except Exception as e:  # not installed, or its native part does not load for this CUDA
        return (f"cuda-bench (NVIDIA's nvbench for Python) is not importable ({type(e).__name__}: {e}); "
                "`pip install cuda-bench[cu13]` (or [cu12]) to have the suite's timer checked against it")
    return None


@dataclass(frozen=True)
class Row:
    label: str
    suite_ms: float              # median over every sample of the interleaved rounds
    suite_mhz: float | None      # mean SM clock of those samples
    nvbench_ms: float | None     # nvbench's cold GPU mean
    nvbench_mhz: float | None    # the SM clock nvbench measured (None where its summary has none)
    nvbench_samples: int | None

    @property
    def ratio(self) -> float | None:
        """nvbench over the suite: 1.0 is agreement."""
        return self.nvbench_ms / self.suite_ms if self.nvbench_ms else None


class _Stream:
    """torch's current stream as nvbench takes a stream: through the `__cuda_stream__` protocol."""

    def __init__(self, stream: torch.cuda.Stream) -> None:
        self._stream = stream

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self._stream.cuda_stream)


def referee(impls: list[Impl], problem: Problem, *, rounds: int = 10, rep_ms: float = REP_MS, seed: int = 5
            ) -> list[Row]:
    """Time each implementation with the suite's interleaved rounds, then with nvbench, on one bound closure each."""
    from harness.measure.rounds import Entry, estimate_ms, interleave
    from harness.run.runner import ProblemContext

    device = torch.device("cuda", torch.cuda.current_device())
    ctx = ProblemContext(problem, device, seed)
    ops = ctx.operands(problem, "random")
    launches = {}
    for impl in impls:
        if impl.unmet(problem):
            continue
        launches[impl.label] = impl.bind(ops.tensors(ops.fresh_output(0.0)), problem.alpha, problem.beta)
    samples = interleave([Entry(label, fn, estimate_ms(fn, device)) for label, fn in launches.items()],
                         rounds=rounds, rep_ms=rep_ms, seed=seed, device=device)
    theirs = nvbench_times(launches)
    rows = []
    for label, s in samples.items():
        got = theirs.get(label, {})
        rows.append(Row(label, statistics.median(s.ms), s.mean_mhz, got.get("ms"), got.get("mhz"),
                        got.get("samples")))
    return rows


def nvbench_times(launches: dict[str, object]) -> dict[str, dict]:
    """nvbench's cold GPU mean time, SM clock and sample count of each closure, by name."""
    import cuda.bench as bench

    stream = _Stream(torch.cuda.current_stream())
    for name, fn in launches.items():
        def body(state, fn=fn) -> None:
            state.set_stream(stream)
            state.exec(lambda launch: fn())

        bench.register(body).set_name(name).set_timeout(NVBENCH_TIMEOUT_S)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "nvbench.json"
        bench.run_all_benchmarks(["rosetta-referee", "--json", str(out), "--devices", "0"])
        return parse(json.loads(out.read_text()))


def parse(data: dict) -> dict[str, dict]:
    """From nvbench's JSON: per benchmark name, its cold GPU mean (ms), SM clock (MHz) and sample count."""
    out = {}
    for b in data.get("benchmarks", []):
        for state in b.get("states", []):
            tags = {}
            for summary in state.get("summaries") or []:
                values = {d.get("name"): d.get("value") for d in summary.get("data", [])}
                if "value" in values:
                    tags[summary.get("tag", "")] = values["value"]
            got: dict = {"tags": tags}
            for tag, value in tags.items():
                if tag.endswith("cold/time/gpu/mean"):
                    got["ms"] = float(value) * 1e3
                elif tag.endswith("cold/sample_size"):
                    got["samples"] = int(float(value))
                elif "sm_clock" in tag and tag.endswith("mean"):
                    got["mhz"] = float(value) / 1e6
            out[b.get("name", "?")] = got
    return out
