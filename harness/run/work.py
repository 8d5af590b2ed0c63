"""What a worker process does: set up its device once (WorkerState), then measure one implementation per call.

Runs inside the worker (run/worker.py starts it); the parent never imports CUDA through this module.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import torch

from harness.catalog import CATALOG
from harness.catalog_types.tables import Catalog
from harness.device.roofline import Peaks
from harness.launch.implementations import Impl
from harness.problems import Problem
from harness.records.lines import Resources, Result
from harness.registry import Kernel
from harness.run.messages import NO_DEVICE_FACTS, DeviceFacts, ImplKey, WorkerOptions
from harness.run.runner import Pending, ProblemContext, RunOptions

# Threads reading the CUDA kernels' compile reports (ptxas log, SASS mix: a cuobjdump child each) in the background:
# read one by one in the worker they took 35 s of a 241 s default run, on its critical path.
RECORD_THREADS = 4


@dataclass
class ResourceCache:
    """What the compilers chose for each implementation a worker measures, read once per (kernel, implementation):
    for CUDA the ptxas report and SASS of the very cubin the run loads (+ the driver's view on a GPU), for Triton the
    compiled handle on a GPU (the autotuner's choice in its config), an ahead-of-time sm_90 compile without one; for
    Gluon likewise, its configuration the CUDA kernel's own."""

    gpu: bool
    records: dict[tuple[str, str], Resources] = field(default_factory=dict)   # by (kernel id, implementation name)
    ahead: dict[str, Future[Resources]] = field(default_factory=dict)        # CUDA compile records being read, by id

    def read_ahead(self, kernels: list[Kernel], arch: str) -> None:
        """Start reading the compile record of each CUDA kernel the plan measures; `of` waits for its own. Only files
        and child processes are touched here: the driver's view of a kernel (attributes) is asked for by the worker's
        own thread, which holds the CUDA context."""
        if not kernels:
            return
        from harness.inspect.resources import kernel_record

        pool = ThreadPoolExecutor(RECORD_THREADS, thread_name_prefix="records")
        for kernel in kernels:
            self.ahead[kernel.id] = pool.submit(kernel_record, kernel, arch)
        pool.shutdown(wait=False)  # the submitted reads go on; the threads end with them

    def of(self, impl: Impl, handle: object) -> Resources | None:
        """The record of what the compiler chose for `impl` (`handle`: what its launch returned, on a GPU); None for
        cuBLAS, which has nothing to show, and for a build-study row, whose resources are the default build's."""
        from harness.inspect.resources import counterpart_record, handle_record, kernel_record

        if impl.kernel is None:  # a baseline: cuBLAS has nothing to show; the Triton baseline its tuner's choice
            if impl.vendor:
                return None
            from harness.launch.triton_tutorial import chosen_config

            config = chosen_config(impl.name)
            if self.gpu and handle is not None and hasattr(handle, "n_regs"):
                return handle_record(handle, config)
            return Resources(config=config, source="Triton interpreter: the configuration it ran, nothing compiled")
        key = (impl.kernel.id, impl.name)
        if impl.id.is_cuda:
            if impl.id.is_build_study:
                return None
            if key not in self.records:
                from harness import nvrtc

                ahead = self.ahead.get(impl.kernel.id)
                out = ahead.result() if ahead is not None else kernel_record(
                    impl.kernel, nvrtc.device_arch() if self.gpu else None)
                if self.gpu:
                    from harness.launch.cuda import attributes

                    out.driver = attributes(impl.kernel)
                self.records[key] = out
            return self.records[key]
        if impl.id.is_gluon:
            from harness.inspect.compile_gluon import gluon_record

            config = impl.gluon.config(impl.kernel)
            if self.gpu and handle is not None and hasattr(handle, "n_regs"):
                return handle_record(handle, config)
            if key not in self.records:
                self.records[key] = gluon_record(impl.kernel, impl.gluon)
            return self.records[key]
        from harness.launch import triton

        config = triton.config(impl.kernel, impl.counterpart)
        chosen = triton.chosen_config(impl.counterpart, impl.kernel)
        if chosen:
            config = {**config, "autotuned": chosen}
        if self.gpu and handle is not None and hasattr(handle, "n_regs"):
            return handle_record(handle, config)
        if key not in self.records:
            self.records[key] = counterpart_record(impl.kernel, impl.counterpart)
            self.records[key].config = config
        return self.records[key]


@dataclass
class WorkerState:
    """What a worker holds from its setup to its end: how it measures, its device, and what it keeps between calls.
    run/worker.py reads its device's name, facts and peaks (for Ready) and its probe (after a failure)."""

    opts: RunOptions
    device: torch.device
    device_name: str                                  # as the records name it ("cpu (Triton interpreter)" on a CPU)
    resources: ResourceCache
    facts: DeviceFacts = NO_DEVICE_FACTS              # what the parent needs to know of this GPU
    peaks: Peaks | None = None                        # measured at start where the run asks
    probe: Callable[[], None] | None = None           # fails when the context was poisoned by an earlier launch
    catalog: Catalog = CATALOG                        # the run's: what its keys name, a user's pairs included
    # The problem at hand's operands and references: one problem at a time, device memory is for the problem at hand.
    contexts: dict[Problem, ProblemContext] = field(default_factory=dict)

    def context(self, problem: Problem) -> ProblemContext:
        if problem not in self.contexts:
            self.contexts.clear()
            self.contexts[problem] = ProblemContext(problem, self.device, problem.seed(self.opts.seed))
        return self.contexts[problem]


def impl_of(key: ImplKey, catalog: Catalog = CATALOG) -> Impl:
    """The implementation a key names, in the run's catalog."""
    if key.kernel is None:
        return Impl(key.impl, key.op)
    kernel = catalog.kernel(key.kernel)
    form, gluon = key.impl.form, key.impl.gluon_form
    return Impl(key.impl, key.op, kernel, kernel.counterpart(form) if form is not None else None,
                kernel.gluon_form(gluon) if gluon is not None else None)


def key_of(impl: Impl) -> ImplKey:
    return ImplKey(impl.kernel.id if impl.kernel else None, impl.id, impl.op)


def setup(options: WorkerOptions) -> WorkerState:
    """Pick the device, check fp32 baselines really are fp32, measure the peaks when asked."""
    gpu = options.gpu
    opts = RunOptions(time=gpu, rep_ms=options.rep_ms, seed=options.seed, device_type="cuda" if gpu else "cpu",
                      rounds=options.rounds, aa=options.aa)
    catalog = options.catalog
    if not gpu:
        return WorkerState(opts, torch.device("cpu"), "cpu (Triton interpreter)", ResourceCache(gpu=False),
                           catalog=catalog)
    from harness.launch.cublas import fp32_is_default

    if not fp32_is_default():
        raise RuntimeError("torch.backends.cuda.matmul.allow_tf32 is on: fp32 baselines would be TF32")
    device = torch.device("cuda", torch.cuda.current_device())
    props = torch.cuda.get_device_properties(device)
    from harness import nvrtc
    from harness.registry import build_units

    # Every CUDA source the plan loads compiles in the background from here on (cached on disk across runs),
    # overlapping the peaks, the baselines and the Triton compiles; a kernel whose module is not ready yet waits for
    # it alone.
    kernels = [catalog.kernel(k) for k in options.cuda_kernels]
    nvrtc.prefetch(build_units(kernels), variants=options.build_variants)
    resources = ResourceCache(gpu=True)
    resources.read_ahead(kernels, nvrtc.device_arch())
    # What the parent needs to know of this GPU; it asks here so that it never opens a context itself.
    facts = DeviceFacts(sms=props.multi_processor_count, l2_bytes=getattr(props, "L2_cache_size", None),
                        free_bytes=torch.cuda.mem_get_info(device)[0], arch=nvrtc.device_arch())
    peaks = None
    if options.peaks:
        from harness.run.peaks import measure_peaks

        peaks = measure_peaks(device)

    def probe() -> None:
        torch.cuda.synchronize()
        torch.ones(1, device=device).sum().item()

    return WorkerState(opts, device, torch.cuda.get_device_name(device), resources, facts, peaks, probe, catalog)


def measure_one(state: WorkerState, problem: Problem, key: ImplKey) -> Result | Pending:
    """Check one implementation: a finished Result where it fails, is skipped or the run does not time, else the
    Pending record that time_pending times with the problem's other implementations."""
    from harness.run.runner import measure

    result = measure(impl_of(key, state.catalog), state.context(problem), state.opts, state.resources.of,
                     state.catalog)
    (result.result if isinstance(result, Pending) else result).device = state.device_name
    return result


def time_pending(state: WorkerState, problem: Problem, pending: list[Pending], peaks: Peaks | None,
                 on_burst: Callable[[int, int], None]) -> list[Result]:
    """The interleaved rounds of one problem's checked implementations (harness/run/runner.py)."""
    from harness.run.runner import time_pending as rounds

    return rounds(pending, state.context(problem), state.opts, peaks, on_burst)
