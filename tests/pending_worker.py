"""A worker measuring module whose implementations all pass their checks and wait for the interleaved rounds, with
made-up samples, so the parent's handling of the rounds' messages is tested without a GPU. The implementation named
by ROSETTA_TEST_CRASH_IN_ROUNDS kills the worker in its first burst (what a kernel that faults while timed does)."""

from __future__ import annotations

import os

import torch

from harness.measure.timing import Samples, Timing
from harness.problems import Problem
from harness.records.lines import Result, Status
from harness.run.messages import ImplKey, WorkerOptions
from harness.run.runner import RunOptions
from harness.run.work import ResourceCache, WorkerState

ROUNDS = 4


def setup(options: WorkerOptions) -> WorkerState:
    return WorkerState(RunOptions(time=False, device_type="cpu"), torch.device("cpu"), "made up",
                       ResourceCache(gpu=False))


class Waiting:
    """What a check hands the rounds (anything but a finished Result)."""

    def __init__(self, result: Result) -> None:
        self.result = result


def measure_one(state: WorkerState, problem: Problem, key: ImplKey) -> Waiting:
    return Waiting(Result.of(key.impl, problem, Status.OK, kernel=key.kernel))


def time_pending(state: WorkerState, problem: Problem, pending: list[Waiting], peaks, on_burst) -> list[Result]:
    crash = os.environ.get("ROSETTA_TEST_CRASH_IN_ROUNDS")
    for r in range(ROUNDS):
        for i, w in enumerate(pending):
            on_burst(i, r)
            if crash and w.result.kernel == crash and r == 1:
                os._exit(9)
    out = []
    for i, w in enumerate(pending):
        ms = [1.0 + 0.01 * i] * ROUNDS
        w.result.timing = Timing.of(Samples(ms, [1980.0] * ROUNDS, [1] * ROUNDS, list(range(ROUNDS)), "b", 1980.0))
        out.append(w.result)
    return out
