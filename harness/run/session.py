"""One `rosetta run` of workers, as a list of declared stages (STAGES): plan the work, start the workers (one per GPU)
and the Triton precompile pool, measure every implementation, stop them, and without a GPU build every CUDA source;
every record is written as it comes.

The parent process never touches the GPU: workers (run/worker.py) own the CUDA contexts. Each worker takes whole
problems from a shared queue, largest first, so that no two implementations share a GPU while timed and all
implementations of a problem, cuBLAS included, are timed in the same interleaved rounds on one GPU (run/plan.py). The
run's catalog (the catalog and a user's declared pairs) is handed to every worker and to the precompile pool in what
each is sent.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness import env
from harness.catalog import CATALOG
from harness.catalog_types.tables import Catalog
from harness.identity import ImplId
from harness.launch.implementations import Impl
from harness.measure.rounds import REP_MS, ROUNDS
from harness.problems import SEED, Problem
from harness.records.file import ResultsWriter, load
from harness.records.kernel_facts import KernelFacts
from harness.records.lines import Result, RunEnd, RunHeader, Status, now
from harness.registry import Kernel
from harness.run.messages import ImplKey, WorkerOptions
from harness.run.phases import Stage, perform, timed
from harness.run.plan import (
    Plan,
    build_key,
    build_variants,
    compile_problem,
    cost,
    cpu_plan,
    cuda_kernels,
    gpu_plan,
    shard,
    without_done,
)
from harness.run.precompile import Precompiler
from harness.run.target import Target
from harness.run.versions import versions as toolchain_versions
from harness.run.work import ResourceCache
from harness.run.worker import DEFAULT_TIMEOUT_S, Worker, WorkerSpec, run_problem


@dataclass(frozen=True)
class Progress:
    """What a run tells its caller as it goes: each implementation as it starts and as its record is written."""

    done: int                       # records written by this run so far
    total: int                      # records this run will write
    result: Result | None = None    # the record just written; None when an implementation starts
    seconds: float | None = None    # with a result: wall time from its start to its record (None: never started)
    starting: str | None = None     # without a result: what starts now, "<problem>: <kernel> [<impl>]"
    problem: Problem | None = None  # what starts: an implementation's check (key) or build, or a timing round
    key: ImplKey | None = None
    round: int | None = None
    order: Plan | None = None       # before anything starts: the plan in the order it will run, and without a GPU
    builds: tuple[tuple[Problem, ImplKey], ...] = ()  # the CUDA builds after it (harness/cli/progress.py prices them)


@dataclass
class RunSession(Target):
    kernels: list[Kernel]
    problems: list[Problem]
    out_path: Path
    argv: list[str]
    catalog: Catalog = CATALOG              # the run's: the catalog and a user's declared pairs
    gpu: bool = field(default_factory=env.has_gpu)   # False: the CPU tier (the interpreter, compile records)
    gpus: list[str | None] = field(default_factory=lambda: [None])
    rep_ms: float = REP_MS
    seed: int = SEED
    rounds: int = ROUNDS
    aa: bool = False                        # the A/A control: every implementation timed as two entries
    timeout_s: float = DEFAULT_TIMEOUT_S
    shard: tuple[int, int] | None = None
    resume: bool = False
    measure: str = "harness.run.work:measure_one"
    results: list[Result] = field(default_factory=list)
    # Wall seconds of the run's stages, in the order they ran (run/phases.py); the records' phase_s say what each
    # implementation spent inside them
    phase_s: dict[str, float] = field(default_factory=dict)
    # What one stage hands the next
    progress: Callable[[Progress], None] | None = field(default=None, repr=False)
    planned: Plan = field(default_factory=list, repr=False)
    workers: list[Worker] = field(default_factory=list, repr=False)
    precompiler: Precompiler | None = field(default=None, repr=False)
    writer: ResultsWriter | None = field(default=None, repr=False)
    _versions: dict[str, str] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _started: dict[tuple, float] = field(default_factory=dict, repr=False)
    _done: int = field(default=0, repr=False)
    _errors: list[BaseException] = field(default_factory=list, repr=False)
    _interrupted: threading.Event = field(default_factory=threading.Event, repr=False)

    def plan(self) -> Plan:
        plan = gpu_plan(self.kernels, self.problems) if self.gpu else cpu_plan(self.kernels, self.problems)
        if self.shard:
            plan = shard(plan, *self.shard)
        return plan

    def run(self, progress: Callable[[Progress], None] | None = None) -> list[Result]:
        """Perform the session's stages; `progress` (called from the workers' threads) sees every start and every
        record. Returns the failures."""
        self.progress = progress
        try:
            perform(STAGES, self, self.phase_s)
        finally:
            self.close()
        return self.failures

    @property
    def failures(self) -> list[Result]:
        return [r for r in self.results if r.status is Status.FAILED]

    # ------------------------------------------------------------------------------------------------ the stages
    def make_plan(self) -> None:
        """The plan, less what a resumed file holds ok; without a GPU every CUDA source starts building now, in the
        background, while the worker runs the Triton interpreter."""
        self.planned = self.plan()
        if not self.gpu:
            from harness import nvrtc
            from harness.registry import build_units

            # a missing NVRTC surfaces in each compile record, with its reason
            nvrtc.prefetch(build_units(self.kernels), nvrtc.CPU_TIER_ARCH)
        if self.resume:
            previous = load(self.out_path)
            done = {r.key for r in previous.results if r.status in (Status.OK, Status.SKIPPED)}
            self.results = [r for r in previous.results if r.key in done]
            self.planned = without_done(self.planned, done)

    def start(self) -> None:
        """The workers and the Triton precompile pool (its compiles and autotuning configurations, in other processes,
        ahead of the worker: run/precompile.py); what they read of the device is checked, then the file is opened.
        Before they start, the progress line is told the whole plan in the order it runs, so it prices it at once."""
        plan = self.planned
        if self.progress:
            builds = () if self.gpu else tuple((compile_problem(k), build_key(k)) for k in self.kernels)
            self.progress(Progress(0, self.total, starting="starting the worker(s)", order=self.queue(), builds=builds))
        options = WorkerOptions(catalog=self.catalog, gpu=self.gpu, rep_ms=self.rep_ms, seed=self.seed,
                                rounds=self.rounds, aa=self.aa, peaks=self.gpu, build_variants=build_variants(plan),
                                cuda_kernels=tuple(cuda_kernels(plan)))
        self.workers = [Worker(WorkerSpec(gpu=g, measure=self.measure, options=options)) for g in self.gpus]
        self.precompiler = Precompiler(plan, self.gpus[0], self.catalog) if self.gpu else None
        _start_all(self.workers)
        self.check_memory(plan, self.workers)
        self.check_target(self.workers[0].device)  # again, now that the device is known; still before any write
        self.writer = (ResultsWriter.continuing(self.out_path) if self.resume
                       else ResultsWriter.new(self.out_path, self.header(plan, self.workers)))

    def measure_all(self) -> None:
        """Every problem of the plan on the workers, one thread each, taking whole problems largest first."""
        queue = self.queue()

        def drive(worker: Worker) -> None:
            try:
                while True:
                    with self._lock:
                        if not queue:
                            return
                        problem, keys = queue.pop(0)
                    run_problem(worker, problem, keys, self._emit, self.timeout_s,
                                lambda k, p=problem: self._begin(k, p, f"{p.label}: {k}"),
                                lambda r, p=problem: self._tell(f"{p.label}: interleaved timing, round {r + 1} of "
                                                                f"{self.rounds}", problem=p, round=r))
            except BaseException as e:  # surfaced in the parent once the other workers finish
                self._errors.append(e)

        threads = [threading.Thread(target=drive, args=(w,), daemon=True) for w in self.workers]
        for t in threads:
            t.start()
        try:
            for t in threads:
                t.join()
        except KeyboardInterrupt:  # the workers ignore Ctrl-C (worker.quiet_on_interrupt): ended here
            self._interrupted.set()
            for w in self.workers:
                w.stop(kill=True)
            if self.precompiler is not None and self.precompiler.pool is not None:
                self.precompiler.pool.shutdown(wait=False, cancel_futures=True)
            raise

    def stop(self) -> None:
        """The workers and the precompile pool (waiting for the compiles under way); what a worker's thread raised is
        raised here."""
        for w in self.workers:
            w.stop()
        if self.precompiler is not None:
            self.precompiler.close()
            self.precompiler = None
        if self._errors:
            raise self._errors[0]

    def build_records(self) -> None:
        """CPU tier: each CUDA kernel's build record (its source built for sm_90a in the background since the plan)."""
        for kernel in self.kernels:
            self._begin(build_key(kernel), compile_problem(kernel), f"compiling {kernel.id}")
            self._emit(compile_record(kernel, self.catalog))

    def end(self) -> None:
        assert self.writer is not None
        self.writer.write(RunEnd(now(), len(self.failures), len(self.results)))

    def close(self) -> None:
        """Whatever a stage left open, on the way out, whether the stages finished or raised."""
        for w in self.workers:
            w.stop()
        if self.precompiler is not None:
            self.precompiler.close()
        if self.writer is not None:
            self.writer.close()

    # ------------------------------------------------------------------------------------------------ progress
    @property
    def total(self) -> int:
        """The records this run will write."""
        return sum(len(keys) for _, keys in self.planned) + (0 if self.gpu else len(self.kernels))

    def queue(self) -> Plan:
        """The plan in the order the workers take it: whole problems, largest first."""
        return sorted(self.planned, key=lambda e: -cost(*e))

    def _begin(self, key: ImplKey, problem: Problem, what: str) -> None:
        with self._lock:
            self._started[key.on(problem)] = time.monotonic()
        self._tell(what, problem=problem, key=key)

    def _tell(self, what: str, problem: Problem | None = None, key: ImplKey | None = None,
              round: int | None = None) -> None:
        with self._lock:
            if self.progress:
                self.progress(Progress(self._done, self.total, starting=what, problem=problem, key=key, round=round))

    def _emit(self, result: Result) -> None:
        with self._lock:
            if self._interrupted.is_set():  # a worker ended by Ctrl-C: not its implementation's fault, nor kept
                raise KeyboardInterrupt
            assert self.writer is not None
            self.writer.write(result)
            self.results.append(result)
            self._done += 1
            t0 = self._started.pop(result.key, None)
            if self.progress:
                self.progress(Progress(self._done, self.total, result, None if t0 is None else time.monotonic() - t0))

    # ------------------------------------------------------------------------------------------------ the file
    def versions(self) -> dict[str, str]:
        """The toolchain's versions (run/versions.py), read once per run: the header records them, resume compares."""
        if self._versions is None:
            self._versions = toolchain_versions()
        return self._versions

    def planned_problems(self, plan: Plan) -> list[Problem]:
        """The problems a header records for `plan`: the plan's, and without a GPU the compile records' too."""
        problems = [p for p, _ in plan]
        if not self.gpu:
            problems += sorted({compile_problem(k) for k in self.kernels}, key=str)
        return problems

    @staticmethod
    def check_memory(plan: Plan, workers: list[Worker]) -> None:
        """Refuse, before any launch, a problem that does not fit on the GPU with the least free memory."""
        from harness.measure.operands import fits_in_memory

        free = [w.facts.free_bytes for w in workers if w.facts.free_bytes is not None]
        if free:
            for problem, _ in plan:
                fits_in_memory("rosetta run", problem, min(free))

    def header(self, plan: Plan, workers: list[Worker]) -> RunHeader:
        # Keyed by name and GPU: two GPUs of one model share a name, and each has its own peaks.
        peaks = {f"{w.device or '?'} (GPU {w.spec.gpu if w.spec.gpu is not None else i})": w.peaks
                 for i, w in enumerate(workers) if w.peaks}
        devices = [w.device or "?" for w in workers]
        first = workers[0]
        problems = self.planned_problems(plan)
        sms, l2 = first.facts.sms, first.facts.l2_bytes
        return RunHeader(started=now(), mode="gpu" if self.gpu else "cpu", device=first.device or "?",
                         versions=self.versions(), argv=self.argv, seed=self.seed, problems=problems,
                         rep_ms=self.rep_ms, sms=sms, l2_bytes=l2, peaks=first.peaks,
                         devices=devices if len(workers) > 1 else None,
                         peaks_by_device=peaks if len(workers) > 1 else None,
                         shard=f"{self.shard[0]}/{self.shard[1]}" if self.shard else None, timeout_s=self.timeout_s,
                         build=build_description(first.facts.arch),
                         rounds=self.rounds if self.gpu else None, aa=self.aa and self.gpu,
                         pairs=self.catalog.declared_json(), power=self.card() if self.gpu else None)

    def card(self) -> dict:
        """The first GPU's power limits and driver through NVML, which needs no CUDA context
        (harness/measure/energy.py)."""
        from harness.measure.energy import card_of

        return card_of(self.gpus[0]).to_json()


STAGES: tuple[Stage[RunSession], ...] = (
    Stage("plan", RunSession.make_plan),
    Stage("worker start", RunSession.start),
    Stage("implementations", RunSession.measure_all),
    Stage("worker stop", RunSession.stop),
    Stage("CUDA builds", RunSession.build_records, lambda s: not s.gpu),
    Stage("end", RunSession.end, timed=False),
)


def _start_all(workers: list[Worker]) -> None:
    """Start workers side by side: each imports torch and measures its GPU's peaks."""
    errors: list[BaseException] = []

    def start(w: Worker) -> None:
        try:
            w.start()
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=start, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        for w in workers:
            w.stop(kill=True)
        raise errors[0]


def build_description(arch: str | None) -> dict | None:
    """The CUDA build a run used (compiler, arch, variants), for its header; None where NVRTC is missing."""
    from harness import nvrtc

    try:
        return nvrtc.describe(arch or nvrtc.CPU_TIER_ARCH)
    except Exception:  # no NVRTC here: the records then say why nothing was compiled
        return None


def compile_record(kernel: Kernel, catalog: Catalog = CATALOG) -> Result:
    """CPU tier: the CUDA source built by the suite's NVRTC build for sm_90a, its resources recorded (not run)."""
    from harness import nvrtc

    rec = Result.of(ImplId("cuda"), compile_problem(kernel), Status.COMPILED, kernel=kernel.id,
                    precision=kernel.precision, tf32=kernel.precision == "tf32", facts=KernelFacts.of(kernel, catalog))
    # waiting for the background build of the source (begun as the run started), then reading its ptxas report
    with timed(rec.phase_s, "build"):
        try:
            rec.resources = ResourceCache(gpu=False).of(Impl(ImplId("cuda"), kernel.op, kernel), None)
            rec.reason = f"no GPU: built by NVRTC {nvrtc.nvrtc_version()} for {nvrtc.CPU_TIER_ARCH}, not run"
        except ImportError as e:  # cuda-bindings or the NVRTC library is not installed
            rec.status, rec.reason = Status.SKIPPED, f"no GPU and no NVRTC ({e}): cannot run or compile"
        except Exception as e:
            rec.status, rec.reason = Status.FAILED, f"compile: {type(e).__name__}: {e}"
    return rec
