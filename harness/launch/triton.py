"""Triton counterparts: checked once when bound, then launched bare; the compiled handle is returned.

Named for the model it launches; inside the package `import triton` still means the Triton package.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from types import ModuleType

import torch

from harness.launch import interpreter_precision
from harness.measure.operands import pack_b, problem_of
from harness.registry import Counterpart, Kernel
from kernels_triton.forms import AutotunedForm, TritonForm

# Triton's interpreter (the CPU tier) computes every tl.dot as an fp32 matmul whatever input_precision says, and it
# accepts only "tf32", "tf32x3" and "ieee". harness/launch/interpreter_precision.py makes it round each class as the
# GPU does; where that cannot be installed a bf16 split runs as "ieee" (what the interpreter computes for the others
# too), and its row says it was not checked at its precision.
UNROUNDED_PRECISION = {"bf16x3": "ieee", "bf16x6": "ieee"}


def form(name: str) -> TritonForm:
    """A form of kernels_triton by its module name, checked against the declared interface (kernels_triton/forms.py)."""
    mod: ModuleType = importlib.import_module(f"kernels_triton.{name}")
    if not isinstance(mod, TritonForm):
        lacking = [n for n in ("KERNEL", "SIGNATURE", "constexprs", "launch") if not hasattr(mod, n)]
        raise TypeError(f"kernels_triton.{name} is no Triton form: it lacks {', '.join(lacking)} "
                        "(kernels_triton/forms.py)")
    return mod


def module(counterpart: Counterpart, kernel: Kernel | None = None) -> TritonForm:
    """The counterpart's form: its kernels_triton module, or a user's Triton file (harness/pairs) as the counterpart
    declares it, for its kernel (`kernel`, which a declared counterpart needs)."""
    if not counterpart.file:
        return form(counterpart.module)
    if kernel is None:
        raise ValueError(f"the Triton form of {counterpart.path} is built for its kernel: name it")
    from harness.launch.declared import form_of

    return form_of(kernel, counterpart)


def chosen_config(counterpart: Counterpart, kernel: Kernel | None = None) -> dict | None:
    """The configuration an autotuned form's tuner chose at its last launch; None for a form without a tuner."""
    mod = module(counterpart, kernel)
    return mod.chosen_config() if isinstance(mod, AutotunedForm) else None


def config(kernel: Kernel, counterpart: Counterpart) -> dict:
    """The counterpart's launch settings, as its module's launch takes them (derived in the registry)."""
    wanted = counterpart.config(kernel)
    accepted = inspect.signature(module(counterpart, kernel).launch).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values()):
        return wanted
    extra = set(counterpart.params) | set(counterpart.deviations)
    refused = sorted(k for k in extra if k not in accepted)
    if refused:
        raise ValueError(f"{kernel.id} [{counterpart.name}]: {counterpart.path}'s launch takes no "
                         f"{', '.join(refused)}")
    # A derived setting the form does not use (the naive form has no K step) is simply not passed.
    return {k: v for k, v in wanted.items() if k in accepted}


def constexprs(kernel: Kernel, counterpart: Counterpart) -> dict:
    cfg = config(kernel, counterpart)
    mod = module(counterpart, kernel)
    names = inspect.signature(mod.constexprs).parameters
    return mod.constexprs(**{k: v for k, v in cfg.items() if k in names})


def bind(kernel: Kernel, counterpart: Counterpart, tensors: dict[str, torch.Tensor], alpha: float = 1.0,
         beta: float = 0.0, device_type: str = "cuda", tune: bool = True) -> Callable[[], object]:
    """Check the operands once; return a zero-argument launch that returns the compiled handle. tune=False: an
    autotuned form runs its declared configuration (a launch no run times; kernels_triton/forms.py AutotunedForm)."""
    who = f"Triton counterpart {kernel.id} [{counterpart.name}]"
    problem = problem_of(who, kernel.op, tensors, alpha, beta, device_type)
    if refused := counterpart.unmet(problem):
        raise ValueError(f"{who} cannot run {problem.label}: {'; '.join(refused)}")
    launch = module(counterpart, kernel).launch
    opts = config(kernel, counterpart)
    if not tune and "tune" in inspect.signature(launch).parameters:  # an autotuned form (forms.AutotunedForm)
        opts = {**opts, "tune": False}
    if device_type == "cpu":  # Triton's interpreter: its dots rounded as each class is on the GPU
        interpreter_precision.install()
        precision = str(opts.get("input_precision", ""))
        if precision in UNROUNDED_PRECISION and interpreter_precision.not_checked(precision):
            opts = {**opts, "input_precision": UNROUNDED_PRECISION[precision]}
    return _launcher(kernel, launch, opts, tensors, alpha, beta)


def _launcher(kernel: Kernel, launch: Callable[..., object], opts: dict, tensors: dict[str, torch.Tensor],
              alpha: float, beta: float) -> Callable[[], object]:
    if kernel.op == "sgemv":
        A, x, y = tensors["A"], tensors["x"], tensors["y"]
        return lambda: launch(A, x, y, **opts)
    if kernel.b_layout == "kmajor":  # the counterpart of a K-major kernel reads the same packed B^T
        tensors = pack_b(tensors)
    A, B, C = tensors["A"], tensors["B"], tensors["C"]
    alpha, beta = float(alpha), float(beta)
    return lambda: launch(A, B, C, alpha, beta, **opts)


def launch_settings(name: str) -> dict[str, object]:
    """The settings a form's launch takes by keyword (block sizes, warps, stages, ...) with their defaults (None
    where a setting has none)."""
    return {k: (None if p.default is inspect.Parameter.empty else p.default)
            for k, p in inspect.signature(form(name).launch).parameters.items()
            if p.kind is inspect.Parameter.KEYWORD_ONLY}


def bind_settings(kernel: Kernel, name: str, settings: dict, tensors: dict[str, torch.Tensor], alpha: float = 1.0,
                  beta: float = 0.0) -> Callable[[], object]:
    """A zero-argument launch of form `name` on a kernel's operands with settings of the caller's choosing (a knob
    study's variants: harness/run/knob_study.py), not the registry's. The operands are the kernel's, already checked."""
    return _launcher(kernel, form(name).launch, dict(settings), tensors, alpha, beta)
