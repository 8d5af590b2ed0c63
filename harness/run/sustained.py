"""`rosetta run --regime sustained`: the headline implementations of a run of bursts run again in the sustained
regime (harness/measure/sustained.py), in workers as any run (a crash or a hang is recorded, the rest goes on), and
written as a results file of their own beside the run's (harness/analysis/regimes.py sustained_path), which its page and
the README read.

It reads a finished run's analysis (which rows are the headline) and measures again, so it sits above both
harness/analysis and harness/run, as the knob study does.

Why a flag with its own file, and not a pass of the default run. The default run's budget is 240 s on a fresh
H100 (a fresh H100's `python3 bootstrap.py run` of results/nvidia-h100-80gb-hbm3-20261126T230158Z.jsonl took 339 s,
158 s of them compiling: already over it). A sustained turn is an idle gap (2 s), the burst, the ramp until the
steady-state rule can hold (at least its three windows, 1.5 s) and the measured window (1 s): about 5 s of one
implementation alone on the GPU, nothing overlapping it. The sgemm headline has eight implementations (cuBLAS fp32
and TF32, the best CUDA and best Triton of fp32, TF32 and 3xTF32), so one round costs about 40 s and a call needs
six rounds at the least (harness/measure/rounds.py MIN_ROUNDS: fewer cannot give a 95% interval): some 240 s, twice
that with the A/A control; the turns run longer than their minimum (the rule held after up to 7.5 s), and the pass with
the A/A control of results/nvidia-h100-80gb-hbm3-20261126T230158Z-sustained.jsonl took 534 s. Shortening the turn would
measure something else (a 0.5 s "sustained" window is still a tensor-core GEMM's ramp). So the regime is asked for, and
its file is committed beside the run it belongs to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness.analysis.measured import Measured
from harness.analysis.overview import headline_rows
from harness.analysis.record import catalog_of, read_beside
from harness.analysis.regimes import SUSTAINED, sustained_path
from harness.identity import ImplId
from harness.measure.regime import BURST_RUNS, CHUNK_MS, IDLE_S, RULE
from harness.measure.sustained import ROUNDS
from harness.records.file import Results, load
from harness.records.lines import Result, RunHeader
from harness.run.messages import ImplKey
from harness.run.plan import Plan
from harness.run.session import Progress, RunSession

MEASURE = "harness.run.sustained_work:measure_one"


# The op whose headline rows the regime takes: the one with tensor-core rows, whose fp32 rows are the SIMT control on
# the same problem. sgemv's headline launches last tens of microseconds: back to back they would time the host's
# launch rate as much as the GPU, and no GEMV runs on the tensor cores.
OPS = ("sgemm",)


def headline_plan(results: Results) -> Plan:
    """Per problem of the run's sgemm headline rows: each class's cuBLAS, best CUDA and best Triton, once each."""
    m = Measured(results, read_beside(results.path) if results.path else None)
    plan: dict = {}
    for row in (r for r in headline_rows(m) if r.op in OPS):
        keys = plan.setdefault(row.problem, {})
        for r in (row.cublas, *(b.result for b in (row.cuda, row.triton) if b is not None)):
            keys.setdefault(r.key, _key(r))
    return [(problem, list(keys.values())) for problem, keys in plan.items()]


def _key(r: Result) -> ImplKey:
    return ImplKey(r.kernel, ImplId.from_json(r.impl), r.op)


@dataclass
class SustainedSession(RunSession):
    """A run session whose plan is given (the headline implementations) and whose workers time them back to back."""

    given: Plan = field(default_factory=list)
    source: str = ""

    def plan(self) -> Plan:
        return self.given

    def header(self, plan: Plan, workers: list) -> RunHeader:
        h = super().header(plan, workers)
        h.regime = {"name": SUSTAINED, "source": self.source, "rule": RULE.to_json(), "idle_s": IDLE_S,
                    "burst_runs": BURST_RUNS, "chunk_ms": CHUNK_MS, "flush_l2": False}
        return h


def check_target(burst: Path) -> Path:
    """The sustained file beside `burst`, refused (ValueError, before anything runs) where something other than an
    earlier sustained pass of this same run is there: a run never writes over a file it has not validated."""
    out = sustained_path(burst)
    if out.is_dir():
        raise ValueError(f"{out}: a folder is there, where the sustained regime's results file goes")
    if out.exists():
        try:
            header = load(out).header
        except ValueError as e:
            raise ValueError(f"{out} exists and is not this run's sustained file ({e}); move it away") from None
        if not (header.regime and header.regime.get("source") == burst.name):
            raise ValueError(f"{out} exists and is not the sustained pass of {burst.name}; move it away")
    return out


def run(burst: Path, argv: list[str], *, aa: bool, timeout_s: float, gpu: str | None, seed: int,
        progress: Callable[[Progress], None] | None = None) -> tuple[Path, list[Result]]:
    """Time the headline implementations of the run in `burst` in the sustained regime; return the new file's path
    and its failures. Raises ValueError where the run has no headline row to take."""
    results = load(burst)
    plan = headline_plan(results)
    if not plan:
        raise ValueError(f"{burst.name}: no sgemm headline row was timed, so there is nothing to run in the sustained "
                         "regime")
    out = check_target(burst)
    if out.exists():
        out.unlink()  # this run's own sustained file from an earlier attempt (check_target): this one replaces it
    session = SustainedSession([], [p for p, _ in plan], out, argv, catalog_of(results.header), gpus=[gpu], seed=seed,
                               rounds=ROUNDS, aa=aa, timeout_s=timeout_s, measure=MEASURE, given=plan,
                               source=burst.name)
    failures = session.run(progress)
    return out, failures
