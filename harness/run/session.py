"""One `rosetta run`: plan the work, spread it over workers (one per GPU), write every record as it comes.

The parent process never touches the GPU: workers (run/worker.py) own the CUDA contexts. Each worker
takes whole problems from a shared queue, largest first, so that no two implementations share a GPU
while timed and all implementations of a problem, cuBLAS included, are timed in the same interleaved
rounds on one GPU (harness/measure/rounds.py `interleave`): every comparison the analysis makes within a
problem is then paired round by round.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness import env
from harness.baselines import TRITON_BASELINES
from harness.identity import CUBLAS_FP32, ImplId
from harness.launch.implementations import Impl, all_impls, baselines, cupy_build_study
from harness.launch.triton_tutorial import CPU_PROBLEM as TUTORIAL_CPU_PROBLEM
from harness.measure.rounds import REP_MS, ROUNDS
from harness.pairs.active import header_tables
from harness.problems import SEED, Problem
from harness.records.file import ResultsWriter, load
from harness.records.kernel_facts import KernelFacts
from harness.records.lines import Result, RunEnd, RunHeader, Status, now
from harness.registry import Kernel
from harness.registry.shapes import cpu_problem, seed_problem
from harness.run.messages import ImplKey, WorkerOptions
from harness.run.phases import timed
from harness.run.precompile import Precompiler
from harness.run.versions import versions as toolchain_versions
from harness.run.work import ResourceCache, key_of
from harness.run.worker import DEFAULT_TIMEOUT_S, Worker, WorkerSpec, run_problem

Plan = list[tuple[Problem, list[ImplKey]]]


def gpu_models() -> tuple[str, ...]:
    """The models a GPU run measures: CUDA, Triton and, where the installed Triton has a usable Gluon, Gluon."""
    from harness.launch.gluon import unavailable

    return ("cuda", "triton") if unavailable() else ("cuda", "triton", "gluon")


def gpu_plan(kernels: list[Kernel], problems: list[Problem]) -> Plan:
    """Every problem: its baselines (TF32 too, for sgemm), then every implementation of its op (the Gluon ones where
    Gluon is usable); on the first problem of each op also the seed kernels as CuPy's default build makes them
    (-ftz=true, sm_90), once per run."""
    plan: Plan = []
    studied: set[str] = set()
    models = gpu_models()
    for p in problems:
        impls = [*baselines(p.op), *(i for i in all_impls(kernels, models) if i.op == p.op)]
        if p.op not in studied:
            studied.add(p.op)
            impls += [i for i in cupy_build_study(kernels) if i.op == p.op]
        plan.append((p, [key_of(i) for i in impls]))
    return plan


def cpu_plan(kernels: list[Kernel], problems: list[Problem]) -> Plan:
    """CPU tier: each counterpart on the small odd shape its tile calls for, beside the CPU's BLAS."""
    groups: dict[Problem, list[ImplKey]] = {}
    ops = {p.op for p in problems}
    for impl in all_impls(kernels, ("triton",)):
        if impl.op in ops:
            groups.setdefault(cpu_problem(impl.kernel, impl.counterpart), []).append(key_of(impl))
    extra: dict[Problem, list[ImplKey]] = {}
    if "sgemm" in ops:
        # The Triton baseline in each class, on the small odd shape of its interpreter configuration (the interpreter
        # rounds TF32 and 3xTF32 as the GPU does: harness/launch/interpreter_precision.py).
        groups.setdefault(TUTORIAL_CPU_PROBLEM, [])
        extra[TUTORIAL_CPU_PROBLEM] = [ImplKey(None, ImplId.from_json(name), "sgemm") for name in TRITON_BASELINES]
    return [(p, [ImplKey(None, CUBLAS_FP32, p.op), *extra.get(p, []), *keys]) for p, keys in groups.items()]


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


def cost(problem: Problem, keys: list[ImplKey]) -> float:
    return problem.flops * len(keys)


def shard(plan: Plan, index: int, count: int) -> Plan:
    """A deterministic 1/count of the plan: whole problems, greedily balanced by work (flops x implementations).

    Every shard of a run computes the same split, so shards run anywhere (a Slurm array, an indexed job)
    merge back into the unsharded run's records.
    """
    loads = [0.0] * count
    mine: Plan = []
    for _, (problem, keys) in sorted(enumerate(plan), key=lambda e: (-cost(*e[1]), e[0])):
        target = min(range(count), key=lambda s: (loads[s], s))
        loads[target] += cost(problem, keys)
        if target == index:
            mine.append((problem, keys))
    mine.sort(key=lambda e: [p for p, _ in plan].index(e[0]))
    return mine


def without_done(plan: Plan, done: set[tuple]) -> Plan:
    """Resume: drop every implementation already recorded as ok (a failed one is tried again)."""
    out: Plan = []
    for problem, keys in plan:
        left = [k for k in keys if k.on(problem) not in done]
        if left:
            baseline_keys = [k for k in keys if k.kernel is None]
            # A kernel measured now is compared with its baselines round by round: time them again beside it.
            out.append((problem, list(dict.fromkeys([*baseline_keys, *left]))))
    return out


@dataclass
class RunSession:
    kernels: list[Kernel]
    problems: list[Problem]
    out_path: Path
    argv: list[str]
    gpus: list[str | None] = field(default_factory=lambda: [None])
    rep_ms: float = REP_MS
    seed: int = SEED
    rounds: int = ROUNDS
    aa: bool = False                        # the A/A control: every implementation timed as two entries
    timeout_s: float = DEFAULT_TIMEOUT_S
    shard: tuple[int, int] | None = None
    resume: bool = False
    measure: str = "harness.run.work:measure_one"
    console: object = None
    results: list[Result] = field(default_factory=list)
    # Wall seconds of the run's stages in this process (harness/run/phases.py STAGES); the records' phase_s say what
    # each implementation spent inside them
    phase_s: dict[str, float] = field(default_factory=dict)
    _versions: dict[str, str] | None = field(default=None, repr=False)

    @property
    def gpu(self) -> bool:
        return env.has_gpu() and not env.interpreting()

    def plan(self) -> Plan:
        plan = gpu_plan(self.kernels, self.problems) if self.gpu else cpu_plan(self.kernels, self.problems)
        if self.shard:
            plan = shard(plan, *self.shard)
        return plan

    def run(self, progress: Callable[[Progress], None] | None = None) -> list[Result]:
        """Run the plan; `progress` (called from the workers' threads) sees every start and every record."""
        plan = self.plan()
        if not self.gpu:
            _prefetch_cpu_build()
        done: set[tuple] = set()
        if self.resume:
            previous = load(self.out_path)
            done = {r.key for r in previous.results if r.status in (Status.OK, Status.SKIPPED)}
            self.results = [r for r in previous.results if r.key in done]
            plan = without_done(plan, done)
        options = WorkerOptions(rep_ms=self.rep_ms, seed=self.seed, rounds=self.rounds, aa=self.aa, peaks=self.gpu,
                                build_variants=self.build_variants(plan), cuda_kernels=tuple(self.cuda_kernels(plan)))
        workers = [Worker(WorkerSpec(gpu=g, measure=self.measure, options=options)) for g in self.gpus]
        lock = threading.Lock()
        total = sum(len(keys) for _, keys in plan) + (0 if self.gpu else len(self.kernels))
        queue = sorted(plan, key=lambda e: -cost(*e))
        builds = () if self.gpu else tuple((compile_problem(k), build_key(k)) for k in self.kernels)
        if progress:
            progress(Progress(0, total, starting="starting the worker(s)", order=list(queue), builds=builds))
        with timed(self.phase_s, "worker start"):
            # Triton's compiles and autotuning configurations, in other processes, ahead of the worker
            # (run/precompile.py)
            precompiler = Precompiler(plan, self.gpus[0]) if self.gpu else None
            _start_all(workers)
            try:
                self.check_memory(plan, workers)
                self.check_target(workers[0].device)  # again, now that the device is known; still before any write
            except ValueError:
                for w in workers:
                    w.stop()
                if precompiler is not None:
                    precompiler.close()
                raise
        writer = (ResultsWriter.continuing(self.out_path) if self.resume
                  else ResultsWriter.new(self.out_path, self.header(plan, workers)))
        with writer as out:

            started: dict[tuple, float] = {}
            done = 0

            def begin(key: ImplKey, problem: Problem, what: str) -> None:
                with lock:
                    started[key.on(problem)] = time.monotonic()
                    if progress:
                        progress(Progress(done, total, starting=what, problem=problem, key=key))

            def tell(what: str, problem: Problem, r: int) -> None:
                with lock:
                    if progress:
                        progress(Progress(done, total, starting=what, problem=problem, round=r))

            def emit(result: Result) -> None:
                nonlocal done
                with lock:
                    out.write(result)
                    self.results.append(result)
                    done += 1
                    t0 = started.pop(result.key, None)
                    if progress:
                        progress(Progress(done, total, result, None if t0 is None else time.monotonic() - t0))

            errors: list[BaseException] = []

            def drive(worker: Worker) -> None:
                try:
                    while True:
                        with lock:
                            if not queue:
                                return
                            problem, keys = queue.pop(0)
                        run_problem(worker, problem, keys, emit, self.timeout_s,
                                    lambda k, p=problem: begin(k, p, f"{p.label}: {k}"),
                                    lambda r, p=problem: tell(f"{p.label}: interleaved timing, round {r + 1} of "
                                                              f"{self.rounds}", p, r))
                except BaseException as e:  # surfaced in the parent once the other workers finish
                    errors.append(e)

            with timed(self.phase_s, "implementations"):
                threads = [threading.Thread(target=drive, args=(w,), daemon=True) for w in workers]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
            with timed(self.phase_s, "worker stop"):
                for w in workers:
                    w.stop()
                if precompiler is not None:
                    precompiler.close()  # waits for the compiles under way
            if errors:
                raise errors[0]
            if not self.gpu:
                with timed(self.phase_s, "CUDA builds"):
                    for kernel in self.kernels:
                        begin(build_key(kernel), compile_problem(kernel), f"compiling {kernel.id}")
                        emit(compile_record(kernel))
            failures = [r for r in self.results if r.status is Status.FAILED]
            out.write(RunEnd(now(), len(failures), len(self.results)))
        return failures

    def check_target(self, device: str | None = None) -> None:
        """Refuse, before anything is written, a results file this run may not write: a folder, a place that cannot
        be written, or a file that holds anything (a new run writes a new file); with resume, anything but a results
        file of this same run (device, toolchain, seed, shard, settings, chosen kernels and problems as its header
        records them). `device`: the workers' GPU (or CPU), once they have started."""
        path = self.out_path
        folder = path.absolute().parent
        if path.is_dir():
            raise ValueError(f"{path} is a folder: a run writes a results file")
        if not folder.is_dir():
            raise ValueError(f"{path}: " + (f"{folder} is not a folder" if folder.exists() else
                                            f"the folder {folder} does not exist"))
        if not os.access(folder, os.W_OK | os.X_OK):
            raise ValueError(f"{path}: {folder} cannot be written into")
        if not self.resume:
            if path.exists() and (not path.is_file() or path.stat().st_size):
                raise ValueError(f"{path} exists: a run writes only a new results file (--resume {path} continues "
                                 f"one that the same run wrote)")
            return
        if not path.is_file():
            raise ValueError(f"{path}: no results file to resume")
        if not os.access(path, os.W_OK):
            raise ValueError(f"{path}: cannot be written")
        differs = self.differences(load(path).header, device)
        if differs:
            raise ValueError(f"{path} was written by another run ({'; '.join(differs)}): --resume continues only "
                             f"the run that wrote the file")

    def differences(self, header: RunHeader, device: str | None = None) -> list[str]:
        """How a results file's run differs from this one, each as "what: there, here" (none: this run continues it).
        The kernels are compared as both runs chose them (--only, --op), the problems as both planned them."""
        out = []

        def differ(what: str, there: object, here: object) -> None:
            if there != here:
                out.append(f"{what}: {there} there, {here} here")

        differ("mode", header.mode, "gpu" if self.gpu else "cpu")
        if device is not None:
            differ("device", header.device, device)
        versions = self.versions()
        changed = sorted(k for k in {*header.versions, *versions} if header.versions.get(k) != versions.get(k))
        if changed:
            out.append("versions: " + ", ".join(f"{k} {header.versions.get(k, 'absent')} there, "
                                                f"{versions.get(k, 'absent')} here" for k in changed))
        differ("seed", header.seed, self.seed)
        differ("shard", header.shard, f"{self.shard[0]}/{self.shard[1]}" if self.shard else None)
        if self.gpu:
            differ("rep_ms", header.rep_ms, self.rep_ms)
            differ("rounds", header.rounds, self.rounds)
            differ("A/A control", header.aa, self.aa)
        differ("kernels chosen", _choice(header.argv) or "all", _choice(self.argv) or "all")
        planned = set(self.planned_problems(self.plan()))
        if set(header.problems) != planned:
            missing, extra = set(header.problems) - planned, planned - set(header.problems)
            out.append("problems: " + "; ".join(
                [*([f"{', '.join(sorted(p.label for p in missing))} there only"] if missing else []),
                 *([f"{', '.join(sorted(p.label for p in extra))} here only"] if extra else [])]))
        return out

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

    @staticmethod
    def cuda_kernels(plan: Plan) -> list[str]:
        """The CUDA kernels whose compile records the plan's default-build rows read, in plan order."""
        return list(dict.fromkeys(k.kernel for _, keys in plan for k in keys
                                  if k.kernel is not None and k.impl.build == "default"))

    @staticmethod
    def build_variants(plan: Plan) -> tuple[str, ...]:
        """The CUDA build variants the plan's implementations load, so that workers build exactly those."""
        return ("default", *sorted({k.impl.variant for _, keys in plan for k in keys if k.impl.is_build_study}))

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
                         pairs=header_tables(self.kernels), power=self.card() if self.gpu else None)

    def card(self) -> dict:
        """The first GPU's power limits and driver through NVML, which needs no CUDA context
        (harness/measure/energy.py)."""
        from harness.measure.energy import card_of

        return card_of(self.gpus[0]).to_json()


# The options of `rosetta run` that choose its kernels; --resume compares them as the file's header recorded them.
CHOICE = ("--only", "--op")


def _choice(argv: list[str]) -> str:
    """The options of an argv that choose kernels, as one string, their values sorted ("" for all kernels)."""
    chosen: dict[str, list[str]] = {}
    option = None
    for arg in argv:
        if arg.startswith("-"):
            option, _, value = arg.partition("=")
            option = option if option in CHOICE else None
            if option is not None:
                chosen.setdefault(option, []).extend([value] if value else [])
        elif option is not None:
            chosen[option].append(arg)
    return " ".join(f"{o} {' '.join(sorted(v))}" for o, v in sorted(chosen.items()))


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


def build_key(kernel: Kernel) -> ImplKey:
    """A CPU tier's CUDA build record of a kernel, as the plan names an implementation."""
    return ImplKey(kernel.id, ImplId("cuda"), kernel.op)


def compile_problem(kernel: Kernel) -> Problem:
    """The seed's problem (as the kernel's preconditions allow it): what a compile record is filed under."""
    return seed_problem(kernel)


def _prefetch_cpu_build() -> None:
    """CPU tier: build every CUDA source in the background while the worker runs the Triton interpreter."""
    from harness import nvrtc

    nvrtc.prefetch(nvrtc.CPU_TIER_ARCH)  # a missing NVRTC surfaces in each compile record, with its reason


def build_description(arch: str | None) -> dict | None:
    """The CUDA build a run used (compiler, arch, variants), for its header; None where NVRTC is missing."""
    from harness import nvrtc

    try:
        return nvrtc.describe(arch or nvrtc.CPU_TIER_ARCH)
    except Exception:  # no NVRTC here: the records then say why nothing was compiled
        return None


def compile_record(kernel: Kernel) -> Result:
    """CPU tier: the CUDA source built by the suite's NVRTC build for sm_90a, its resources recorded (not run)."""
    from harness import nvrtc

    rec = Result.of(ImplId("cuda"), compile_problem(kernel), Status.COMPILED, kernel=kernel.id,
                    precision=kernel.precision, tf32=kernel.precision == "tf32", facts=KernelFacts.of(kernel))
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
