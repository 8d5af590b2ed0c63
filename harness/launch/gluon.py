"""Gluon counterparts (kernels_gluon/): checked once when bound, then launched bare; the compiled handle is returned.

A Gluon counterpart takes its CUDA kernel's decisions, so it is held to the CUDA kernel's preconditions (whole tiles
where the CUDA kernel needs them) and alignment, and runs on a GPU only: Triton's interpreter runs no Gluon. Where
the installed Triton has no usable Gluon (kernels_gluon/compat.py), `unavailable()` says why in one line and no
kernel module is imported.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from types import ModuleType

import torch

from harness.catalog_types.gluon import GluonCounterpart
from harness.measure.operands import check_alignment, pack_b, problem_of
from harness.problems import Problem
from harness.problems.preconditions import indices_fit_int32, unmet
from harness.registry import Kernel


def unavailable() -> str | None:
    """Why the installed Triton cannot build the Gluon column, in one line; None where it can."""
    try:
        from kernels_gluon import compat
    except Exception as e:  # no Triton at all, or one that fails to import
        return f"no usable Gluon: {type(e).__name__}: {e}"
    return compat.UNAVAILABLE


def module(form: GluonCounterpart) -> ModuleType:
    """The form's module, kernels_gluon.<module>, checked against the declared interface (kernels_gluon/forms.py)."""
    from kernels_gluon.forms import GluonForm

    if (why := unavailable()) is not None:
        raise RuntimeError(why)
    mod = importlib.import_module(f"kernels_gluon.{form.module}")
    if not isinstance(mod, GluonForm):
        lacking = [n for n in ("KERNEL", "TEMPLATE", "signature", "num_warps", "constexprs", "launch")
                   if not hasattr(mod, n)]
        raise TypeError(f"kernels_gluon.{form.module} is no Gluon form: it lacks {', '.join(lacking)}")
    return mod


def settings(kernel: Kernel, form: GluonCounterpart) -> dict[str, int | bool | str]:
    """The settings the form's launch takes: the CUDA kernel's tile and template arguments, the form's params."""
    return form.config(kernel)


def unmet_by(kernel: Kernel, form: GluonCounterpart, problem: Problem) -> list[str]:
    """What the Gluon form cannot run: the CUDA kernel's preconditions, and operands past 2^31 elements where its
    offsets are not proven 64-bit."""
    out = kernel.unmet(problem)
    if not form.offsets_64bit:
        out += unmet((indices_fit_int32(),), problem)
    return out


def bind(kernel: Kernel, form: GluonCounterpart, tensors: dict[str, torch.Tensor], alpha: float = 1.0,
         beta: float = 0.0, device_type: str = "cuda") -> Callable[[], object]:
    """Check the operands once; return a zero-argument launch that returns the compiled handle."""
    who = f"Gluon counterpart {kernel.id} [{form.name}]"
    problem = problem_of(who, kernel.op, tensors, alpha, beta, device_type)
    if device_type != "cuda":
        raise ValueError(f"{who} needs a GPU: Triton's interpreter runs no Gluon (the CPU tier compiles it only)")
    if refused := unmet_by(kernel, form, problem):
        raise ValueError(f"{who} cannot run {problem.label}: {'; '.join(refused)}")
    check_alignment(who, tensors, kernel.aligned16)
    mod = module(form)
    opts: dict[str, object] = dict(settings(kernel, form))
    if kernel.b_layout == "kmajor":  # the same packed B^T the CUDA kernel reads
        tensors = pack_b(tensors)
    if "SMS" in inspect.signature(mod.launch).parameters:  # a persistent grid: the device's SMs, asked once here
        opts["SMS"] = torch.cuda.get_device_properties(tensors["A"].device).multi_processor_count
    A, B, C = tensors["A"], tensors["B"], tensors["C"]
    alpha, beta = float(alpha), float(beta)
    launch = mod.launch
    return lambda: launch(A, B, C, alpha, beta, **opts)
