"""What a worker process does: set up its device once, then measure one implementation per call.

Runs inside the worker (run/worker.py starts it); the parent never imports CUDA through this module.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from harness import env
from harness.launch.implementations import Impl
from harness.problems import Problem
from harness.records.lines import Resources, Result
from harness.roofline import Peaks
from harness.run.messages import DeviceFacts, ImplKey, WorkerOptions
from harness.run.runner import Pending

SEED = 20261122


def impl_of(key: ImplKey) -> Impl:
    """The implementation a key names."""
    from harness.registry import get

    if key.kernel is None:
        return Impl(key.impl, key.op)
    kernel = get(key.kernel)
    form, gluon = key.impl.form, key.impl.gluon_form
    return Impl(key.impl, key.op, kernel, kernel.counterpart(form) if form is not None else None,
                kernel.gluon_form(gluon) if gluon is not None else None)


def key_of(impl: Impl) -> ImplKey:
    return ImplKey(impl.kernel.id if impl.kernel else None, impl.id, impl.op)


def setup(options: WorkerOptions) -> dict:
    """Pick the device, check fp32 baselines really are fp32, measure the peaks when asked."""
    import torch

    from harness.run.runner import RunOptions

    gpu = env.has_gpu() and not env.interpreting()
    state: dict = {"gpu": gpu, "contexts": {}, "resources": {}, "records": {}}
    state["opts"] = RunOptions(time=gpu, rep_ms=options.rep_ms, seed=SEED if options.seed is None else options.seed,
                               device_type="cuda" if gpu else "cpu",
                               rounds=RunOptions.rounds if options.rounds is None else options.rounds, aa=options.aa)
    if gpu:
        from harness.launch.cublas import fp32_is_default

        if not fp32_is_default():
            raise RuntimeError("torch.backends.cuda.matmul.allow_tf32 is on: fp32 baselines would be TF32")
        state["device_obj"] = torch.device("cuda", torch.cuda.current_device())
        state["device"] = torch.cuda.get_device_name(state["device_obj"])
        props = torch.cuda.get_device_properties(state["device_obj"])
        from harness import nvrtc

        # Every CUDA source compiles in the background from here on (cached on disk across runs), overlapping the
        # peaks, the baselines and the Triton compiles; a kernel whose module is not ready yet waits for it alone.
        nvrtc.prefetch(variants=options.build_variants)
        _prefetch_records(state, options.cuda_kernels, nvrtc.device_arch())
        # What the parent needs to know of this GPU; it asks here so that it never opens a context itself.
        state["facts"] = DeviceFacts(sms=props.multi_processor_count, l2_bytes=getattr(props, "L2_cache_size", None),
                                     free_bytes=torch.cuda.mem_get_info(state["device_obj"])[0],
                                     arch=nvrtc.device_arch())
        if options.peaks:
            from harness.run.peaks import measure_peaks

            state["peaks"] = measure_peaks(state["device_obj"]).to_json()

        def probe() -> None:  # fails when the context was poisoned by an earlier launch
            torch.cuda.synchronize()
            torch.ones(1, device=state["device_obj"]).sum().item()

        state["probe"] = probe
    else:
        state["device_obj"] = torch.device("cpu")
        state["device"] = "cpu (Triton interpreter)"
    return state


# Threads reading the CUDA kernels' compile reports (ptxas log, SASS mix: a cuobjdump child each) in the background:
# read one by one in the worker they took 35 s of a 241 s default run, on its critical path.
RECORD_THREADS = 4


def _prefetch_records(state: dict, kernel_ids: tuple[str, ...] | list[str], arch: str) -> None:
    """Start reading the compile record of each CUDA kernel the plan measures; resources_of waits for its own.
    Only files and child processes are touched here: the driver's view of a kernel (attributes) is asked for by the
    worker's own thread, which holds the CUDA context."""
    if not kernel_ids:
        return
    from harness.inspect.resources import kernel_record
    from harness.registry import get

    pool = ThreadPoolExecutor(RECORD_THREADS, thread_name_prefix="records")
    for kernel_id in kernel_ids:
        state["records"][kernel_id] = pool.submit(kernel_record, get(kernel_id), arch)
    pool.shutdown(wait=False)  # the submitted reads go on; the threads end with them


def measure_one(state: dict, problem: Problem, key: ImplKey) -> Result | Pending:
    """Check one implementation: a finished Result where it fails, is skipped or the run does not time, else the
    Pending record that time_pending times with the problem's other implementations."""
    from harness.run.runner import measure

    impl = impl_of(key)
    result = measure(impl, context(state, problem), state["opts"], lambda i, handle: resources_of(state, i, handle))
    (result.result if isinstance(result, Pending) else result).device = state["device"]
    return result


def time_pending(state: dict, problem: Problem, pending: list[Pending], peaks: Peaks | None,
                 on_burst: Callable[[int, int], None]) -> list[Result]:
    """The interleaved rounds of one problem's checked implementations (harness/run/runner.py)."""
    from harness.run.runner import time_pending as rounds

    return rounds(pending, context(state, problem), state["opts"], peaks, on_burst)


def context(state: dict, problem: Problem):
    """The problem's operands and references, one problem at a time: device memory is for the problem at hand."""
    from harness.run.runner import ProblemContext

    contexts = state["contexts"]
    if problem not in contexts:
        contexts.clear()
        seed = state["opts"].seed + sum(problem.key[1:4]) % 1000
        contexts[problem] = ProblemContext(problem, state["device_obj"], seed)
    return contexts[problem]


def resources_of(state: dict, impl: Impl, handle: object) -> Resources | None:
    """What the compiler chose: for CUDA the ptxas report and SASS of the very cubin the run loads (+ the driver's
    view on a GPU), for Triton the compiled handle on a GPU (the autotuner's choice in its config), an
    ahead-of-time sm_90 compile under the interpreter."""
    from harness.inspect.resources import counterpart_record, handle_record, kernel_record

    if impl.kernel is None:  # a baseline: cuBLAS has nothing to show; the Triton baseline its tuner's choice
        if impl.vendor:
            return None
        from harness.launch.triton_tutorial import chosen_config

        config = chosen_config(impl.name)
        if state["gpu"] and handle is not None and hasattr(handle, "n_regs"):
            return handle_record(handle, config)
        return Resources(config=config, source="Triton interpreter: the configuration it ran, nothing compiled")
    cache = state["resources"]
    key = (impl.kernel.id, impl.name)
    if impl.id.is_cuda:
        if impl.id.is_build_study:
            return None  # a build-study row: its time and numerics are the point, its resources are the default's
        if key not in cache:
            from harness import nvrtc

            ahead: Future | None = state.get("records", {}).get(impl.kernel.id)
            out = ahead.result() if ahead is not None else kernel_record(
                impl.kernel, nvrtc.device_arch() if state["gpu"] else None)
            if state["gpu"]:
                from harness.launch.cuda import attributes

                out.driver = attributes(impl.kernel)
            cache[key] = out
        return cache[key]
    if impl.id.is_gluon:
        from harness.inspect.compile_gluon import gluon_record

        config = impl.gluon.config(impl.kernel)
        if state["gpu"] and handle is not None and hasattr(handle, "n_regs"):
            return handle_record(handle, config)
        if key not in cache:
            cache[key] = gluon_record(impl.kernel, impl.gluon)
        return cache[key]
    from harness.launch import triton

    config = triton.config(impl.kernel, impl.counterpart)
    chosen = triton.chosen_config(impl.counterpart)
    if chosen:
        config = {**config, "autotuned": chosen}
    if state["gpu"] and handle is not None and hasattr(handle, "n_regs"):
        return handle_record(handle, config)
    if key not in cache:
        cache[key] = counterpart_record(impl.kernel, impl.counterpart)
        cache[key].config = config
    return cache[key]
