"""Where a `rosetta run`'s wall time went, in parts that add up to it.

The session times its stages in the parent process (RunSession.phase_s: starting the workers, the implementations,
stopping the workers, the CPU tier's CUDA builds; the command adds the analysis and the sustained regime's pass);
each record carries what its implementation spent in the worker (Result.phase_s: compile, numerics, resources,
timing; a CPU tier's CUDA source its build), which breaks the implementations' stage down. The report is timed by the
command, and what none of these covers is named as "other". Each phase is timed by `timed`; the interleaved rounds
add each burst's time to its record's "timing" as they go (run/runner.py time_pending).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from harness.records.lines import Result

# A record's phases in the worker, in the order they run. "build" (a CPU-tier CUDA source) is the parent's, inside the
# "CUDA builds" stage.
RECORD_PHASES = ("compile", "numerics", "resources", "timing")
PARENT_PHASES = ("build",)
# The session's stages, in the order they happen.
STAGES = ("worker start", "implementations", "worker stop", "CUDA builds", "analysis", "sustained regime")
# What the wall clock holds besides the stages and the report.
OTHER = "imports, plan, results file, summary"


def record_sums(results: list[Result]) -> dict[str, float]:
    """Each worker phase summed over the records, the known ones first; a phase a newer worker adds is kept."""
    names = list(RECORD_PHASES) + sorted({k for r in results for k in r.phase_s} - set(RECORD_PHASES)
                                         - set(PARENT_PHASES))
    return {name: sum(r.phase_s.get(name, 0.0) for r in results) for name in names}


def phases_line(results: list[Result], stages: Mapping[str, float], report_s: float, wall_s: float,
                workers: int = 1) -> str:
    """One line: the stages, the implementations' stage broken down by the records' phases (summed over every
    worker), the report, and the rest of the wall time as "other", saying what that is."""
    inner = ", ".join(f"{name} {s:.1f} s" for name, s in record_sums(results).items())
    parts = []
    for name in [*STAGES, *sorted(set(stages) - set(STAGES))]:
        if name not in stages:
            continue
        text = f"{name} {stages[name]:.1f} s"
        if name == "implementations":
            text += f" on {workers} workers (summed over them: {inner})" if workers > 1 else f" ({inner})"
        parts.append(text)
    other = max(0.0, wall_s - sum(stages.values()) - report_s)
    parts += [f"report {report_s:.1f} s", f"other {other:.1f} s ({OTHER})"]
    return "phases: " + ", ".join(parts) + f" (wall {wall_s:.1f} s)"


@contextmanager
def timed(phases: dict[str, float], name: str) -> Iterator[None]:
    """Add the wall seconds of the `with` block to phases[name] (a record's phase_s, or the session's): the one way a
    phase is timed. A block that raises adds nothing: its time belongs to no phase that finished."""
    start = time.perf_counter()
    yield
    phases[name] = phases.get(name, 0.0) + time.perf_counter() - start
