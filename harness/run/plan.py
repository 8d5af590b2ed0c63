"""A run's plan: which implementations are measured on which problem, in what order, and the part of it a shard or a
resumed run takes. Whole problems are the unit: every implementation of a problem, cuBLAS included, is timed in the
same interleaved rounds on one GPU (harness/measure/rounds.py `interleave`), so that every comparison within a
problem is paired round by round.
"""

from __future__ import annotations

from harness.baselines import TRITON_BASELINES
from harness.identity import CUBLAS_FP32, ImplId
from harness.launch.implementations import all_impls, baselines, cupy_build_study
from harness.launch.triton_tutorial import CPU_PROBLEM as TUTORIAL_CPU_PROBLEM
from harness.problems import Problem
from harness.registry import Kernel
from harness.registry.shapes import cpu_problem, seed_problem
from harness.run.messages import ImplKey
from harness.run.work import key_of

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


def compile_problem(kernel: Kernel) -> Problem:
    """The seed's problem (as the kernel's preconditions allow it): what a compile record is filed under."""
    return seed_problem(kernel)


def build_key(kernel: Kernel) -> ImplKey:
    """A CPU tier's CUDA build record of a kernel, as the plan names an implementation."""
    return ImplKey(kernel.id, ImplId("cuda"), kernel.op)


def cuda_kernels(plan: Plan) -> list[str]:
    """The CUDA kernels whose compile records the plan's default-build rows read, in plan order."""
    return list(dict.fromkeys(k.kernel for _, keys in plan for k in keys
                              if k.kernel is not None and k.impl.build == "default"))


def build_variants(plan: Plan) -> tuple[str, ...]:
    """The CUDA build variants the plan's implementations load, so that workers build exactly those."""
    return ("default", *sorted({k.impl.variant for _, keys in plan for k in keys if k.impl.is_build_study}))
