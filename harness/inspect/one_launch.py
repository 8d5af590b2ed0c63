"""One launch of one implementation on one problem, with real data: what a tool process watches.

compute-sanitizer (`sanitize`) and ncu (`profile`) each run `python -m harness.inspect.<tool> --one ...`
under the tool, so that one kernel's report (or crash) cannot hide another's; this is the launch
those child processes make.
"""

from __future__ import annotations

from typing import Any

from harness.measure import numerics
from harness.problems import Problem
from harness.registry import Kernel


def tensors_for(kernel: Kernel, problem: Problem, layer: str = "random", seed: int = 1, device: str = "cuda",
                scalars: tuple[float, float] | None = None) -> tuple[Problem, dict[str, Any]]:
    """The problem as the kernel computes it and its operands: with `scalars` None, a kernel that takes
    alpha and beta gets the numerics layer's (so that C is read, as a sanitizer should see it)."""
    p = problem
    if scalars is not None:
        p = p.with_scalars(*scalars)
    elif kernel.op == "sgemm" and kernel.computes_alpha_beta:
        p = p.with_scalars(*(numerics.RANDOM_SCALARS if layer == "random" else numerics.EXACT_SCALARS))
    ops = numerics.make_operands(p, layer, seed, device)
    return p, ops.tensors(ops.fresh_output(numerics.poison_for(kernel.reads_c_when_beta_zero)))


def launch_once(kernel: Kernel, impl: str, problem: Problem, scalars: tuple[float, float] | None = None) -> object:
    """Launch `impl` ("cuda", "triton:<counterpart>" or "gluon:<form>") once on the GPU and wait; returns what the
    launch returned (a Triton or Gluon launch's compiled handle)."""
    import torch

    from harness.launch.implementations import Impl

    p, tensors = tensors_for(kernel, problem, scalars=scalars)
    if impl == "cuda":
        chosen = Impl("cuda", kernel.op, kernel)
    elif impl.startswith("gluon:"):
        name = impl.split(":", 1)[-1]
        chosen = Impl(impl, kernel.op, kernel, gluon=kernel.gluon_form(name))
    else:
        name = impl.split(":", 1)[-1]
        chosen = Impl(f"triton:{name}", kernel.op, kernel, kernel.counterpart(name))
    result = chosen.bind(tensors, p.alpha, p.beta)()
    torch.cuda.synchronize()
    return result


def launch_baseline_once(name: str, problem: Problem) -> None:
    """Launch the baseline `name` (harness/baselines.py) once on the GPU on the random layer's operands and wait."""
    import torch

    from harness.launch.implementations import Impl

    ops = numerics.make_operands(problem, "random", 1, "cuda")
    Impl(name, problem.op).bind(ops.tensors(ops.fresh_output(numerics.poison_for(False))), problem.alpha,
                                problem.beta)()
    torch.cuda.synchronize()
