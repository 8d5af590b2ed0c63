"""Isolation: implementations run in a spawned worker process that owns the CUDA context.

A kernel that writes out of bounds leaves the CUDA context unusable; one that aborts or segfaults
takes its process down; one that hangs never returns. None of these may end a sweep. So the parent
never touches the GPU: it hands a worker one problem and the implementations to measure on it, and
reads back its messages per implementation (run/messages.py: Started, then Finished). When the worker dies, or an
implementation overruns its time limit, or a failure leaves the context poisoned, the parent records
that implementation as failed with the cause, starts a fresh worker and goes on with the next one.

Workers are spawned, not forked (a forked CUDA context is unusable), and pinned to one GPU with
CUDA_VISIBLE_DEVICES. CuPy's and Triton's compile caches live on disk, so a fresh worker reloads
compiled kernels instead of compiling them again.
"""

from __future__ import annotations

import importlib
import multiprocessing as mp
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING

from harness.catalog_types.tables import Catalog
from harness.device.roofline import Peaks
from harness.problems import Problem
from harness.records.kernel_facts import facts_of_id
from harness.records.lines import Result, Status
from harness.run.messages import (
    NO_DEVICE_FACTS,
    Checked,
    Done,
    Finished,
    FromWorker,
    ImplKey,
    Poisoned,
    Ready,
    Started,
    Stop,
    Task,
    WorkerOptions,
)

if TYPE_CHECKING:  # the parent imports no torch through the worker's state; only the worker process builds one
    from harness.run.work import WorkerState

# Within the default limit: compile, autotune, every numerics layer and ~100 ms of timing, with margin.
DEFAULT_TIMEOUT_S = 300.0
# A new worker first imports torch/CuPy/Triton and creates its context (and may measure peaks).
STARTUP_S = 180.0
# The errors after which a CUDA context cannot be used again: the worker is replaced.
STICKY_CUDA_ERRORS = ("illegal memory access", "illegal address", "unspecified launch failure", "misaligned address",
                      "illegal instruction", "an illegal", "CUDA_ERROR_LAUNCH_FAILED", "device-side assert")

# Held while the parent's environment is swapped for one worker's spawn (see Worker.start).
_SPAWN_LOCK = threading.Lock()

@dataclass
class WorkerSpec:
    """How to start a worker: its GPU, its measuring function ("module:function": the module also holds `setup`,
    which makes the WorkerState every call is given, and `time_pending` where a call returns records to time), its
    options."""

    gpu: str | None = None                  # a CUDA_VISIBLE_DEVICES value; None: inherit
    measure: str = "harness.run.work:measure_one"
    options: WorkerOptions = field(default_factory=WorkerOptions)
    env: dict[str, str] = field(default_factory=dict)


def _worker_main(conn: Connection, spec: WorkerSpec) -> None:
    """The worker process: set up, then serve tasks until told to stop.

    A task is one problem and the implementations to measure on it. Each is checked first (Started, then Finished
    where it fails or is not timed, Checked where it waits for the rounds); then every checked one is timed in the
    problem's interleaved rounds (a Started with its round before each burst, so that the parent can blame a crash or
    a hang on the burst that was running), and its Finished follows the rounds.
    """
    quiet_on_interrupt()
    if spec.gpu is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = spec.gpu
    os.environ.update(spec.env)
    module_name, name = spec.measure.split(":")
    module = importlib.import_module(module_name)
    measure: Callable = getattr(module, name)
    time_pending: Callable | None = getattr(module, "time_pending", None)
    state: WorkerState = module.setup(spec.options)
    conn.send(Ready(state.peaks, state.device_name, state.facts))
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):  # the parent is gone (killed): nothing left to report to
            break
        if not isinstance(task, Task):
            break
        problem = task.problem
        waiting: list[tuple[ImplKey, object]] = []
        for key in task.keys:
            conn.send(Started(key))
            outcome = measure(state, problem, key)
            if isinstance(outcome, Result):
                _send_result(conn, outcome, state)
            else:
                waiting.append((key, outcome))
                conn.send(Checked(key))
        if waiting:
            if time_pending is None:
                raise RuntimeError(f"{spec.measure} returned records to time, and its module has no time_pending")

            def burst(index: int, r: int, waiting: list = waiting) -> None:
                conn.send(Started(waiting[index][0], r))

            for result in time_pending(state, problem, [p for _, p in waiting], task.peaks, burst):
                _send_result(conn, result, state)
        conn.send(Done())
    conn.close()


def quiet_on_interrupt() -> None:
    """A child of the run ignores Ctrl-C: the terminal sends it to the whole process group, and the parent, which
    keeps what was measured and says how to resume, ends its children (a child's own KeyboardInterrupt would print
    its traceback over that line)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _send_result(conn: Connection, result: Result, state: WorkerState) -> None:
    conn.send(Finished(result))
    if result.status is Status.FAILED and _poisoned(result.reason, state):
        conn.send(Poisoned(result.reason))
        conn.close()
        os._exit(3)  # skip atexit: a dead context makes CuPy print pages of tracebacks at exit


def _poisoned(reason: str, state: WorkerState) -> bool:
    """Is the context still usable after this failure? A sticky error says no; so does a failing probe."""
    if any(s.lower() in reason.lower() for s in STICKY_CUDA_ERRORS):
        return True
    if state.probe is None:
        return False
    try:
        state.probe()
        return False
    except Exception:
        return True


class Worker:
    """The parent's handle on one worker process."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self.process: mp.process.BaseProcess | None = None
        self.conn: Connection | None = None
        self.peaks: Peaks | None = None
        self.device: str | None = None
        self.facts = NO_DEVICE_FACTS  # what the worker read of its GPU
        self._stopping = threading.Lock()

    def start(self) -> None:
        """Spawn the worker and wait for its "ready". A worker that exits before it is ready is spawned once
        more (a spawn can fail for reasons of the moment, such as memory); twice is an error with both causes."""
        causes = []
        for _ in range(2):
            cause = self._spawn()
            if cause is None:
                return
            causes.append(cause)
            if self.timed_out:  # a worker that hangs at start would hang again
                break
        raise RuntimeError(f"the worker did not start: {'; then '.join(causes)}")

    def _spawn(self) -> str | None:
        """One attempt: None when the worker is ready, else why not."""
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        # The child's environment is the parent's at start(), so the GPU is set in the parent's for the moment of
        # the spawn. Workers start side by side from threads: the lock keeps one thread's setenv/unsetenv off the
        # environment while another forks (a start once failed with exit code 255, what a fork whose exec fails
        # returns; that this was the cause is likely, not proven).
        with _SPAWN_LOCK:
            saved = os.environ.get("CUDA_VISIBLE_DEVICES")
            if self.spec.gpu is not None:
                os.environ["CUDA_VISIBLE_DEVICES"] = self.spec.gpu
            try:
                self.process = ctx.Process(target=_worker_main, args=(child, self.spec), daemon=True)
                self.process.start()
            finally:
                if self.spec.gpu is not None:
                    if saved is None:
                        os.environ.pop("CUDA_VISIBLE_DEVICES", None)
                    else:
                        os.environ["CUDA_VISIBLE_DEVICES"] = saved
        child.close()
        self.conn = parent
        msg = self._recv(STARTUP_S)
        if not isinstance(msg, Ready):
            cause = self.death_cause() if msg is None else f"unexpected message {type(msg).__name__}"
            self.stop(kill=True)
            return cause
        self.peaks, self.device, self.facts = msg.peaks, msg.device, msg.facts
        return None

    def _recv(self, timeout: float) -> FromWorker | None:
        """The next message, or None when the worker died or `timeout` passed (see .timed_out)."""
        self.timed_out = False
        conn = self.conn  # None once another thread ended the worker (Ctrl-C): as if it died
        if conn is None:
            return None
        try:
            if not conn.poll(timeout):
                self.timed_out = True
                return None
            return conn.recv()
        except (EOFError, OSError):
            return None

    def death_cause(self) -> str:
        p = self.process
        if p is None:
            return "no worker"
        p.join(timeout=5)
        code = p.exitcode
        if code is None:
            return "the worker stopped answering"
        if code < 0:
            import signal

            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"the worker process died of {name}"
        return f"the worker process exited with code {code}"

    def stop(self, kill: bool = False) -> None:
        # Ctrl-C kills the workers from the main thread while a worker's own thread may be ending the same one (it saw
        # the process die): whoever takes the handles ends them, so a pipe is never closed twice (EBADF)
        with self._stopping:
            process, conn = self.process, self.conn
            self.process, self.conn = None, None
        if process is None:
            return
        if not kill and conn is not None and process.is_alive():
            try:
                conn.send(Stop())
                process.join(timeout=10)
            except (OSError, BrokenPipeError):
                pass
        if process.is_alive():
            process.kill()
            process.join(timeout=10)
        if conn is not None:
            conn.close()

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.is_alive()


def failed(key: ImplKey, problem: Problem, reason: str, device: str | None, catalog: Catalog | None = None
           ) -> Result:
    """The record of an implementation its worker could not finish (`catalog`: the run's, whose facts it keeps)."""
    return Result.of(key.impl, problem, Status.FAILED, kernel=key.kernel, reason=reason, device=device,
                     facts=facts_of_id(key.kernel, catalog))


def run_problem(worker: Worker, problem: Problem, keys: list[ImplKey], emit: Callable[[Result], None],
                timeout_s: float = DEFAULT_TIMEOUT_S, progress: Callable[[ImplKey], None] | None = None,
                rounds: Callable[[int], None] | None = None) -> None:
    """Measure `keys` on `problem` in `worker`, replacing the worker whenever it dies, hangs or is poisoned.

    Every key ends as exactly one emitted Result. progress(key) is called as an implementation's check starts,
    rounds(r) as the interleaved timing enters round r. A crash or a hang during a burst is blamed on the
    implementation of that burst; the others still waiting for their results are measured again, from their checks,
    by a fresh worker (their samples must come from rounds they all took part in).
    """
    remaining = list(keys)

    def record(result: Result) -> None:
        result.gpu = worker.spec.gpu  # two GPUs of one model share a name: the record says which one measured it
        emit(result)

    while remaining:
        if not worker.alive:
            worker.start()
        assert worker.conn is not None
        worker.conn.send(Task(problem, tuple(remaining), worker.peaks))
        current: ImplKey | None = None
        started = time.monotonic()
        round_seen = -1
        while True:
            wait = timeout_s if current is not None else STARTUP_S
            msg = worker._recv(max(0.0, wait - (time.monotonic() - started)))
            if msg is None:
                if current is None:  # died or stalled between implementations: nothing to blame
                    cause = "timed out" if worker.timed_out else worker.death_cause()
                    worker.stop(kill=True)
                    if not remaining:
                        break
                    current = remaining[0]
                    reason = f"worker lost before the implementation started ({cause})"
                elif worker.timed_out:
                    worker.stop(kill=True)
                    reason = f"timed out after {timeout_s:g} s (the worker was killed and replaced)"
                else:
                    cause = worker.death_cause()
                    worker.stop(kill=True)
                    reason = f"crashed: {cause} (the worker was replaced)"
                if round_seen >= 0:
                    reason += f", in round {round_seen + 1} of the interleaved timing"
                record(failed(current, problem, reason, worker.device, worker.spec.options.catalog))
                remaining.remove(current)
                break
            if isinstance(msg, Started):
                current = msg.key
                started = time.monotonic()
                if msg.round is None and progress:
                    progress(current)
                if msg.round is not None and msg.round != round_seen:
                    round_seen = msg.round
                    if rounds:
                        rounds(round_seen)
            elif isinstance(msg, Checked):
                current = None
                started = time.monotonic()
            elif isinstance(msg, Finished):
                result = msg.result
                if result.device is None:
                    result.device = worker.device
                record(result)
                remaining = [k for k in remaining if not k.same_as(result)]
                current = None
                started = time.monotonic()
            elif isinstance(msg, Poisoned):
                worker.stop(kill=True)  # the result is already recorded; the context is not reusable
                break
            elif isinstance(msg, Done):
                remaining = []
                break
