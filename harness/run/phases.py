"""A run as a list of declared stages, and where its wall time went, in parts that add up to it.

A stage is a name (how the phases line names its time), what it does, and when a run wants it: `rosetta run`
(harness/cli/run.py) declares its list (the session's stages, the analysis, the profile, the summary, the sustained
regime, the report) and the session declares its own (run/session.py STAGES: the plan, starting the workers, the
implementations, stopping them, the CPU tier's CUDA builds). A feature of a run is a stage in a list, not a branch of
the command. `perform` runs a list in order and times each stage by `timed` into one dict, in the order they ran;
each record carries what its implementation spent in the worker (Result.phase_s: compile, numerics, resources,
timing; a CPU tier's CUDA source its build), which breaks the implementations' stage down, and what no stage covers
is named as "other". The interleaved rounds add each burst's time to its record's "timing" as they go (run/runner.py
time_pending).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

from harness.records.lines import Result

# A record's phases in the worker, in the order they run. "build" (a CPU-tier CUDA source) is the parent's, inside the
# "CUDA builds" stage.
RECORD_PHASES = ("compile", "numerics", "resources", "timing")
PARENT_PHASES = ("build",)
# The stage whose time the records' phases break down
IMPLEMENTATIONS = "implementations"
# What the wall clock holds besides the stages.
OTHER = "imports, option checks, printing"

State = TypeVar("State")


@dataclass(frozen=True)
class Stage(Generic[State]):
    """One stage of a run: its name, what it does to the run's state, and whether this run wants it."""

    name: str
    act: Callable[[State], object]
    wanted: Callable[[State], bool] = lambda _: True
    timed: bool = True      # False: a stage whose parts are stages of their own, timed by them


def perform(stages: Iterable[Stage[State]], state: State, phases: dict[str, float]) -> None:
    """Each wanted stage in order, its wall seconds added to phases[its name]."""
    for stage in stages:
        if not stage.wanted(state):
            continue
        if stage.timed:
            with timed(phases, stage.name):
                stage.act(state)
        else:
            stage.act(state)


def record_sums(results: list[Result]) -> dict[str, float]:
    """Each worker phase summed over the records, the known ones first; a phase a newer worker adds is kept."""
    names = list(RECORD_PHASES) + sorted({k for r in results for k in r.phase_s} - set(RECORD_PHASES)
                                         - set(PARENT_PHASES))
    return {name: sum(r.phase_s.get(name, 0.0) for r in results) for name in names}


def phases_line(results: list[Result], stages: Mapping[str, float], wall_s: float, workers: int = 1) -> str:
    """One line: the stages in the order they ran, the implementations' stage broken down by the records' phases
    (summed over every worker), and the rest of the wall time as "other", saying what that is."""
    inner = ", ".join(f"{name} {s:.1f} s" for name, s in record_sums(results).items())
    parts = []
    for name, seconds in stages.items():
        text = f"{name} {seconds:.1f} s"
        if name == IMPLEMENTATIONS:
            text += f" on {workers} workers (summed over them: {inner})" if workers > 1 else f" ({inner})"
        parts.append(text)
    other = max(0.0, wall_s - sum(stages.values()))
    parts.append(f"other {other:.1f} s ({OTHER})")
    return "phases: " + ", ".join(parts) + f" (wall {wall_s:.1f} s)"


@contextmanager
def timed(phases: dict[str, float], name: str) -> Iterator[None]:
    """Add the wall seconds of the `with` block to phases[name] (a record's phase_s, or a run's stages): the one way a
    phase is timed. A block that raises adds nothing: its time belongs to no phase that finished."""
    start = time.perf_counter()
    yield
    phases[name] = phases.get(name, 0.0) + time.perf_counter() - start
