"""`rosetta run`'s progress as it goes: one live line on a terminal, one line per finished implementation in a log,
each with how long the run has left from its first second: every step of its plan priced before it starts, the prices
recalibrated by what the finished steps took.

A run is a list of steps in the order the session takes them: each implementation's check (its first launch: compile,
autotuning; its numerics; its resources), and per problem its interleaved timing rounds; on a CPU each CUDA source's
build. A step's price is a declared estimate (below). As steps start, the time the finished ones took against their
prices gives a factor per kind of step (checks vary with what is cached and tuned, rounds with the kernels' speed),
blended with 1 by PRIOR_WEIGHT_S of price so that the first few steps do not swing it; what is left is each kind's
factor times the prices of its steps not yet started, plus what the running step is still expected to take.
tests/test_progress_estimate.py replays the recorded runs under results/ (each record's phase_s) through it.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.catalog import CATALOG
from harness.catalog_types.tables import Catalog
from harness.problems import Problem
from harness.run.messages import ImplKey

if TYPE_CHECKING:
    from rich.console import Console

    from harness.records.lines import Result
    from harness.run.session import Progress

HEARTBEAT_S = 10.0

# Declared estimates, in seconds, read off the H100 runs under results/ (a record's phase_s) and a cold CPU tier run on
# 2 shared cores (2026-11-28: 83 checks in 341 s, most of it each counterpart's sm_90a compile; 47 builds in 34 s):
CHECK_S = {"gpu": 0.15, "cpu": 4.0}  # a check (on a GPU with its binaries compiled ahead: the pool, NVRTC prefetch)
TUNE_S_PER_CONFIG = {"gpu": 0.15, "cpu": 0.0}  # an autotuner, per configuration it compiles and times (none on a CPU)
DRAW_S_PER_ELEMENT = {"gpu": 45e-9, "cpu": 0.0}  # a problem's first check: its layers' operands drawn on the CPU
BUILD_S = 0.75          # a CUDA source's build record on a CPU (built in the background while the interpreter runs)
ROUND_OVERHEAD = 4.0    # a round takes this many times its measured time (L2 flush, clock probe, launch gaps)
RUN_FLOPS, RUN_BYTES_S = 40e12, 2e12  # a run takes at least its flops or bytes at about an H100 kernel's rates
RUNNING_ON = 0.5
PRIOR_WEIGHT_S = 60.0   # how much price the measured factor must see before it outweighs the declared one
TUNED_CONFIGS = 8       # an autotuned form that does not say how many configurations it tunes (CONFIGS_MAX)


@dataclass(frozen=True)
class Step:
    """One priced step of a run: what starts it (its id, as the session names it) and its kind."""

    id: Hashable
    kind: str          # "check", "tune" (an autotuned one's), "operands" (a problem's first), "round" or "build"
    price_s: float


def configs_tuned(key: ImplKey, catalog: Catalog = CATALOG) -> int:
    """How many configurations an autotuned implementation compiles and times at a problem (0: not autotuned)."""
    from harness.run.work import impl_of

    impl = impl_of(key, catalog)
    if not impl.autotuned:
        return 0
    if impl.kernel is None:  # the Triton baseline
        from harness.launch.triton_tutorial import configs

        return configs()
    from harness.launch.triton import module

    return int(getattr(module(impl.counterpart, impl.kernel), "CONFIGS_MAX", TUNED_CONFIGS))


def elements(problem: Problem) -> int:
    if problem.op == "sgemv":
        return problem.M * problem.N + problem.M + problem.N
    return problem.M * problem.K + problem.K * problem.N + problem.M * problem.N


def steps(order: Sequence[tuple[Problem, Sequence[ImplKey]]], gpu: bool, rounds: int, rep_ms: float,
          aa: bool = False, builds: Sequence[tuple[Problem, ImplKey]] = (), catalog: Catalog = CATALOG) -> list[Step]:
    """The run's steps in the order the session takes them: each problem's checks then (on a GPU) its rounds (with
    the A/A control, each implementation timed twice); then, on a CPU, the CUDA builds."""
    side = "gpu" if gpu else "cpu"
    out = []
    for problem, keys in order:
        for i, key in enumerate(keys):
            configs = configs_tuned(key, catalog) if gpu else 0
            price = CHECK_S[side] + TUNE_S_PER_CONFIG[side] * configs
            kind = "tune" if configs else "check"
            if i == 0:  # the problem's first check draws its operands
                price, kind = price + DRAW_S_PER_ELEMENT[side] * elements(problem), "operands"
            out.append(Step((problem, key), kind, price))
        if gpu:  # each implementation's measured time, and at least one run of it, per round
            one_run = max(problem.flops / RUN_FLOPS, 4 * elements(problem) / RUN_BYTES_S)
            per_round = (2 if aa else 1) * len(keys) * max(rep_ms / 1e3 / rounds, one_run) * ROUND_OVERHEAD
            out += [Step((problem, r), "round", per_round) for r in range(rounds)]
    out += [Step(build, "build", BUILD_S) for build in builds]
    return out


class Estimate:
    """Time left in a run of `steps`, told as each step starts (seconds on one clock); `workers` share the steps."""

    def __init__(self, plan: Sequence[Step], workers: int = 1) -> None:
        self.plan = list(plan)
        self.index = {s.id: i for i, s in enumerate(self.plan)}
        self.workers = max(1, workers)
        self.started: dict[int, float] = {}   # step index -> when it started
        self.current: int | None = None       # the step started last

    def start(self, step_id: Hashable, at: float) -> None:
        """A step starts (one the plan does not hold is ignored)."""
        i = self.index.get(step_id)
        if i is not None and i not in self.started:
            self.started[i] = at
            self.current = i

    def factors(self) -> dict[str, float]:
        """Per kind: (time its finished steps took + PRIOR_WEIGHT_S) / (their prices + PRIOR_WEIGHT_S). A step is
        finished when the next one has started; it took the time until then."""
        order = sorted(self.started.items(), key=lambda e: e[1])
        took: dict[str, float] = {}
        priced: dict[str, float] = {}
        for (i, t0), (_, t1) in itertools.pairwise(order):
            kind = self.plan[i].kind
            took[kind] = took.get(kind, 0.0) + (t1 - t0) * self.workers
            priced[kind] = priced.get(kind, 0.0) + self.plan[i].price_s
        return {kind: (took.get(kind, 0.0) + PRIOR_WEIGHT_S) / (priced.get(kind, 0.0) + PRIOR_WEIGHT_S)
                for kind in {s.kind for s in self.plan}}

    def left(self, now: float) -> float:
        """Seconds left: the steps not started, each at its kind's factor, and the rest of the running one."""
        k = self.factors()
        rest = sum(k[s.kind] * s.price_s for i, s in enumerate(self.plan) if i not in self.started)
        if self.current is not None:
            running = self.plan[self.current]
            running_for = now - self.started[self.current]
            # a step past its price is taken to run on half as long again as it has (a long tuning runs long)
            rest += max(k[running.kind] * running.price_s - running_for, RUNNING_ON * running_for)
        return rest / self.workers


def clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m}:{s:02d}"


class Reporter:
    """A run's progress. On a terminal, one live line: "N of M, elapsed, ~left" (left: elapsed per finished
    implementation times those still to run) and what runs now. In a log (stdout not a terminal), one line per
    finished implementation, and a line at least every HEARTBEAT_S seconds while nothing finishes (worker start,
    a slow compile), so a log never stays silent for minutes."""

    def __init__(self, console: Console, gpu: bool = False, rounds: int = 1, rep_ms: float = 0.0, aa: bool = False,
                 workers: int = 1, catalog: Catalog = CATALOG) -> None:
        """The run's settings price its steps (`steps`) once the session names them; without them (the sustained
        pass) time left is the time per finished implementation times those left."""
        self.console = console
        self.settings = {"gpu": gpu, "rounds": rounds, "rep_ms": rep_ms, "aa": aa, "catalog": catalog}
        self.workers = workers
        self.estimate: Estimate | None = None
        self.checked = 0
        self.results: list[Result] = []
        self.started = time.monotonic()
        self.last_line = self.started
        self.done = self.total = 0
        self.running = "starting the worker(s)"
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def __enter__(self) -> Reporter:
        if self.console.is_terminal:
            from rich.progress import Progress as Bar
            from rich.progress import TextColumn

            self.bar = Bar(TextColumn("{task.description}"), console=self.console, transient=True)
            self.bar.__enter__()
            self.task = self.bar.add_task(self._status())
        self.ticker = threading.Thread(target=self._tick, daemon=True)
        self.ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.ticker.join()
        if self.console.is_terminal:
            self.bar.__exit__(*exc)

    def _status(self) -> str:
        elapsed = time.monotonic() - self.started
        if self.estimate is not None:
            left = f"~{clock(self.estimate.left(elapsed))} left"
        else:
            left = f"~{clock(elapsed / self.done * (self.total - self.done))} left" if self.done else "~? left"
        checked = f" ({self.checked} started)" if self.checked > self.done else ""
        head = f"{self.done} of {self.total}{checked}, elapsed {clock(elapsed)}, {left}" if self.total else \
            f"elapsed {clock(elapsed)}"
        return f"{head}: {self.running}"

    def _tick(self) -> None:
        while not self.stop.wait(0.5):
            with self.lock:
                if self.console.is_terminal:
                    self.bar.update(self.task, description=self._status()[: max(20, self.console.width - 2)])
                elif time.monotonic() - self.last_line >= HEARTBEAT_S:
                    self._line(f"... {self._status()}")

    def _line(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)
        self.last_line = time.monotonic()

    def __call__(self, event: Progress) -> None:
        with self.lock:
            self.done, self.total = event.done, event.total
            now = time.monotonic() - self.started
            if event.order is not None:
                plan = steps(event.order, builds=event.builds, **self.settings)
                self.estimate = Estimate(plan, self.workers)
            if self.estimate is not None and event.problem is not None:
                self.estimate.start((event.problem, event.key if event.round is None else event.round), now)
            self.checked += event.key is not None
            if event.result is None:
                self.running = event.starting or ""
                return
            r = event.result
            self.results.append(r)
            seconds = "" if event.seconds is None else f"{event.seconds:6.1f} s"
            text = (f"{event.done:>{len(str(event.total))}} of {event.total}  {r.status.value:<8} {seconds:>8}  "
                    f"{r.problem.label}  {r.kernel or 'baseline'}  {r.label}")
            if r.status.value == "failed":
                text += f": {' '.join(r.reason.split())[:200]}"
            if self.console.is_terminal:
                if r.status.value == "failed":  # above the live line, so a failure is seen as it happens
                    self.bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
                self.bar.update(self.task, description=self._status())
            else:
                self._line(text)
