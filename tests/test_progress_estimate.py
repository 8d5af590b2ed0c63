"""The progress line's time left (harness/cli/progress.py), replayed on the runs recorded under results/: each record's
phase_s says how long its check took (compile, numerics, resources) and its share of its problem's interleaved timing,
so a run's steps can be started again on the clock they ran on, and the estimate asked what it would have said."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import progress
from harness.problems import Problem
from harness.records.file import Results, load
from harness.run.messages import ImplKey
from tests.recorded import recorded_gpu_run

RESULTS = Path(__file__).resolve().parents[1] / "results"
CHOOSING = ("--only", "--op", "--shape", "--sweep", "--pair", "--resume", "--shard")


def full_runs() -> list[Path]:
    """Every recorded GPU run of the default plan timed in interleaved rounds (its header names them), with phases."""
    out = []
    for path in sorted(RESULTS.glob("*.jsonl")):
        results = load(path)
        h = results.header
        if (h.mode == "gpu" and h.rounds and not any(a.split("=")[0] in CHOOSING for a in h.argv)
                and len(results.results) > 100 and all(r.phase_s for r in results.results)):
            out.append(path)
    return out


def replay(results: Results) -> tuple[list[progress.Step], list[tuple[object, float]], float]:
    """(the run's steps as the Reporter prices them, each step's id and start on the run's clock, the run's length)
    from its records: problems in the order they ran, each record's check after the one before, then the problem's
    rounds evenly over its timing."""
    h = results.header
    groups: dict[Problem, list] = {}
    for r in results.results:
        groups.setdefault(r.problem, []).append(r)
    order = [(p, [ImplKey(r.kernel, r.impl_id, p.op) for r in records]) for p, records in groups.items()]
    steps = progress.steps(order, True, h.rounds, h.rep_ms, h.aa)
    starts, t = [], 0.0
    for (p, keys), records in zip(order, groups.values(), strict=True):
        for key, r in zip(keys, records, strict=True):
            starts.append(((p, key), t))
            t += sum(s for phase, s in r.phase_s.items() if phase != "timing")
        timing = sum(r.phase_s.get("timing", 0.0) for r in records)
        starts += [((p, i), t + i * timing / h.rounds) for i in range(h.rounds)]
        t += timing
    return steps, starts, t


def left_at(steps: list[progress.Step], starts: list[tuple[object, float]], now: float) -> float:
    estimate = progress.Estimate(steps)
    for step, at in starts:
        if at <= now:
            estimate.start(step, at)
    return estimate.left(now)


def test_the_replay_takes_the_newest_full_run_and_every_earlier_one_of_the_default_plan():
    runs = full_runs()
    assert len(runs) >= 10 and recorded_gpu_run() in runs


@pytest.mark.parametrize("path", full_runs(), ids=lambda p: p.stem)
def test_a_quarter_into_a_recorded_run_the_time_left_is_within_25_percent(path):
    steps, starts, total = replay(load(path))
    now = total / 4
    truth = total - now
    said = left_at(steps, starts, now)
    assert abs(said - truth) <= 0.25 * truth, f"said {said:.0f} s left, {truth:.0f} s were"


def test_before_any_step_starts_the_time_left_is_every_steps_price():
    steps, _, total = replay(load(full_runs()[-1]))
    first = left_at(steps, [], 0.0)
    assert first == pytest.approx(sum(s.price_s for s in steps)) and 0.5 * total < first < 1.5 * total


def test_a_step_running_past_its_price_is_expected_to_run_on():
    """A tuning that has run 100 s where 1 s was expected is not about to end: the estimate keeps half of its time so
    far on top of the steps still to come."""
    p = Problem("sgemm", 64, 64, 64)
    steps = [progress.Step((p, "a"), "check", 1.0), progress.Step((p, "b"), "check", 1.0)]
    estimate = progress.Estimate(steps)
    estimate.start((p, "a"), 0.0)
    assert estimate.left(0.5) == pytest.approx(0.5 + 1.0)
    assert estimate.left(100.0) == pytest.approx(50.0 + 1.0)


def test_from_its_first_event_the_line_says_what_runs_how_many_of_how_many_and_the_time_left():
    import io

    from rich.console import Console

    from harness.run.session import Progress

    results = load(full_runs()[-1])
    steps, starts, _ = replay(results)
    order = [(p, [k for (q, k), _ in starts if q == p and isinstance(k, ImplKey)]) for p in {s.id[0]: 0 for s in steps}]
    reporter = progress.Reporter(Console(file=io.StringIO()), gpu=True, rounds=results.header.rounds,
                                 rep_ms=results.header.rep_ms)
    reporter(Progress(0, len(results.results), starting="starting the worker(s)", order=order))
    status = reporter._status()
    assert status.startswith(f"0 of {len(results.results)}, elapsed 0:00, ~")
    assert "~?" not in status and status.endswith(": starting the worker(s)")
