"""Compile a run's Triton counterparts ahead of the worker that measures them, in a pool of processes.

A cold run used to spend most of its time compiling: each Triton counterpart compiled on its first launch, one at
a time, and an autotuned one compiled every configuration in turn inside its tuning. Triton caches every compiled
kernel on disk, keyed by the source, the argument specialisation and the options, so processes that make the same
launches with `warmup` (compile, do not run) fill that cache while the worker measures; when the worker reaches a
counterpart, its first launch loads the kernel instead of compiling it. The pool also reads each compiled kernel's
SASS mix and ttgir facts into the suite's cache (harness/inspect/cache.py), which the worker's record reads next.
Autotuned kernels get every configuration compiled this way, spread over the processes a few configurations a task
(an autotuner's list compiled in one process was most of a cold run: the tutorial's 16 configurations over three
classes); the tuning itself (timing each configuration) still happens in the worker, on the GPU it measures. Each
distinct binary is compiled once: a launch compiles differently for alpha == 1 and beta == 0 alone (the tutorial's
epilogue, a form's beta == 0 constexpr), so an implementation is compiled for the problem the worker times and
launches first, then for each numerics layer whose scalars fall on the other side of those two tests; an autotuned
one for the timed problem alone, since its numerics run the configuration tuned there (harness/run/runner.py
warm_up, kernels_triton/gemm_tutorial.py).

Nothing here decides a result: a compile that fails, or a key that differs from the worker's, only means the worker
compiles it itself, as it would without this pool. The pool launches no kernel, so it does not disturb the timing.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor

from harness.catalog import CATALOG
from harness.catalog_types.tables import Catalog
from harness.measure import numerics
from harness.problems import Problem
from harness.run.messages import ImplKey

# A problem whose operands need more device memory than this is left to the worker: the pool's processes hold
# their own copies, and the largest problems (past 2^31 elements) would not fit beside the worker's.
MAX_BYTES = 2 << 30


def _force_warmup() -> None:
    """In this process only: every Triton launch compiles without running, and an autotuner compiles each of its
    configurations instead of timing them (a warm-up launch has no time to give)."""
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction

    run = JITFunction.run

    def compile_only(self, *args, grid, warmup, **kwargs):
        return run(self, *args, grid=grid, warmup=True, **kwargs)

    def compile_configs(self, *args, **kwargs):
        kwargs.pop("warmup", None)  # a launch passes warmup=False; Autotuner.warmup passes its own to each config
        part, parts = _PART
        # Autotuner.warmup over this task's share of the list: every parts-th configuration from part
        self.nargs = dict(zip(self.arg_names, args, strict=False))  # as Autotuner.warmup: keywords may follow
        try:
            return [self.fn.warmup(*args, **kwargs, **config.all_kwargs())
                    for config in list(self.prune_configs(kwargs))[part::parts]]
        finally:
            self.nargs = None

    JITFunction.run = compile_only
    Autotuner.run = compile_configs


# (part, parts) of an autotuner's configuration list that this process's current task compiles
_PART = [0, 1]


def _init(gpu: str | None) -> None:
    from harness.run.worker import quiet_on_interrupt

    quiet_on_interrupt()
    if gpu is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = gpu
    _force_warmup()


def _compile(problem_json: dict, keys: list[ImplKey], part: int = 0, parts: int = 1,
             catalog: Catalog = CATALOG) -> list[str]:
    """Make each implementation's launches with empty operands of the problem's shape and scalars (an autotuner's
    launch: its part-th share of every parts configurations); returns the errors. `catalog`: the run's, which names
    the keys' kernels (a user's pairs too)."""
    import torch
    from triton.runtime.errors import OutOfResources

    from harness.inspect.compile_triton import handle_resources
    from harness.measure.numerics import make_operands
    from harness.run.work import impl_of

    problem = Problem.from_json(problem_json)
    _PART[:] = [part, parts]
    errors = []
    device = torch.device("cuda")
    ops = make_operands(problem, "exact", 0, device)  # values do not matter to a compile; shapes and layout do
    for key in keys:
        try:
            impl = impl_of(key, catalog)
            out = ops.fresh_output(0.0)
            # A launch with these scalars: the alpha/beta of the problem its numerics or timing launch
            compiled = impl.bind(ops.tensors(out), problem.alpha, problem.beta)()
            # what the worker will read off each compiled kernel (its SASS mix, its ttgir facts), cached on disk
            for handle in compiled if isinstance(compiled, list) else [compiled]:
                if hasattr(handle, "asm"):
                    try:
                        handle._init_handles()  # a warm-up compile loads nothing: its register count comes with loading
                    except OutOfResources:
                        # an autotuned configuration that does not fit the device: the autotuner skips it when it
                        # times the list (as Triton's Autotuner does), so the pool does too
                        continue
                    handle_resources(handle)
        except Exception as e:  # the worker meets the same failure and records it
            errors.append(f"{key}: {type(e).__name__}: {e}"[:300])
    return errors


class Precompiler:
    """A pool of compile-only processes working through a plan's Triton implementations in the worker's order."""

    def __init__(self, plan: list[tuple[Problem, list[ImplKey]]], gpu: str | None, catalog: Catalog = CATALOG,
                 processes: int | None = None):
        wanted = [(p, [k for k in keys if k.impl.runs_triton]) for p, keys in plan if _fits(p)]
        wanted = [(p, keys) for p, keys in wanted if keys]
        cores = os.cpu_count() or 2
        self.processes = processes or max(1, min(8, cores - 4))
        self.futures: list[Future] = []
        self.pool: ProcessPoolExecutor | None = None
        if not wanted or cores < 4:  # on a small machine the pool would only compete with the worker
            return
        self.pool = ProcessPoolExecutor(self.processes, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_init, initargs=(gpu,))
        for problem, part, parts, keys in tasks(wanted, self.processes, catalog):
            self.futures.append(self.pool.submit(_compile, problem.to_json(), keys, part, parts, catalog))

    def close(self) -> list[str]:
        """Wait for compiles under way, drop the rest; returns the errors the pool met (for the log only)."""
        if self.pool is None:
            return []
        self.pool.shutdown(wait=True, cancel_futures=True)
        errors: list[str] = []
        for f in self.futures:
            if f.done() and not f.cancelled() and f.exception() is None:
                errors += f.result()
        return errors


def compiles_as(problem: Problem) -> tuple[bool, bool]:
    """What of a problem's scalars a launch compiles for: alpha == 1 and beta == 0 (a float argument is never
    specialised on its value; only a launch's own choice of form or constexpr makes another binary)."""
    return problem.alpha == 1.0, problem.beta == 0.0


def launch_problems(problem: Problem, key: ImplKey, catalog: Catalog = CATALOG) -> list[Problem]:
    """The problems that make the distinct binaries the worker launches the implementation as, in its order: the
    problem itself (harness/run/runner.py warm_up, then timing), then the first numerics layer that compiles otherwise
    (check_numerics); an autotuned implementation the problem alone (its numerics run what it tuned there)."""
    from harness.run.work import impl_of

    impl = impl_of(key, catalog)
    if impl.autotuned:
        return [problem]
    layers = [numerics.layer_problem(problem, layer, impl.computes_alpha_beta) for layer in numerics.LAYERS]
    firsts: dict[tuple[bool, bool], Problem] = {}
    for p in [problem, *layers]:
        firsts.setdefault(compiles_as(p), p)
    return list(firsts.values())


def _plain_tasks(problem: Problem, keys: list[ImplKey], catalog: Catalog
                 ) -> list[tuple[Problem, int, int, list[ImplKey]]]:
    """One task per problem that makes a binary of any of `keys` (launch_problems), each naming the keys it makes."""
    launches = {key: launch_problems(problem, key, catalog) for key in keys}
    return [(p, 0, 1, [key for key in keys if p in launches[key]])
            for p in dict.fromkeys(p for ps in launches.values() for p in ps)]


def tasks(plan: list[tuple[Problem, list[ImplKey]]], processes: int, catalog: Catalog = CATALOG
          ) -> list[tuple[Problem, int, int, list[ImplKey]]]:
    """(problem, part, parts, keys) for the pool, in the worker's order, so that the pool keeps ahead of the worker:
    an autotuned implementation's launch split into parts tasks (each compiles every parts-th configuration), the
    others two implementations a task (small enough to spread one problem's counterparts over every process)."""
    from harness.run.work import impl_of

    out: list[tuple[Problem, int, int, list[ImplKey]]] = []
    # two tasks a process: the tutorial's 16 configurations one a task on 8 processes, since one configuration (its
    # ieee 128x256x64 tile) compiles for several seconds on its own
    parts = 2 * processes
    for problem, keys in plan:
        plain: list[ImplKey] = []
        for key in keys:
            if not impl_of(key, catalog).autotuned:
                plain.append(key)
                if len(plain) == 2:
                    out += _plain_tasks(problem, plain, catalog)
                    plain = []
                continue
            out += _plain_tasks(problem, plain, catalog)
            plain = []
            out += [(p, part, parts, [key]) for p in launch_problems(problem, key, catalog) for part in range(parts)]
        out += _plain_tasks(problem, plain, catalog)
    return out


def _fits(problem: Problem) -> bool:
    elements = problem.M * problem.K + problem.K * problem.N + problem.M * problem.N if problem.op == "sgemm" else (
        problem.M * problem.N + problem.M + problem.N)
    return 4 * elements <= MAX_BYTES
