"""The Triton baseline (kernels_triton/gemm_tutorial.py) bound like cuBLAS: operands checked once, then a bare launch.

One kernel, three baselines: the name picks the precision class, and the class the ``input_precision`` of its dot
(catalog_types/kernel.py TRITON_INPUT_PRECISION: ieee, tf32, tf32x3). The problem picks the form: the tutorial's as
published (32-bit offsets, C = A @ B) wherever it allows, 64-bit offsets where an operand passes 2^31 elements, the
alpha/beta epilogue where alpha != 1 or beta != 0 (kernels_triton/gemm_tutorial.py form_of); the record says which
("form" in its configuration), so no operand size is refused and a row names the kernel that ran.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from harness.baselines import TRITON_BASELINES
from harness.catalog_types.kernel import TRITON_INPUT_PRECISION
from harness.launch import interpreter_precision
from harness.measure.operands import problem_of
from harness.problems import Problem

# The CPU tier's problem: odd, for the interpreter's one configuration (a 32 x 64 tile, K step 32): three program
# rows and three program columns, the last of each partial, and K = two full steps and a partial one.
CPU_PROBLEM = Problem("sgemm", 2 * 32 + 3, 2 * 64 + 5, 2 * 32 + 5)


def input_precision(name: str) -> str:
    if name not in TRITON_BASELINES:
        raise ValueError(f"unknown Triton baseline {name!r}: expected one of {', '.join(TRITON_BASELINES)}")
    return TRITON_INPUT_PRECISION[TRITON_BASELINES[name]]


def bind(name: str, tensors: dict[str, torch.Tensor], alpha: float = 1.0, beta: float = 0.0,
         device_type: str = "cuda", tune: bool = True) -> Callable[[], object]:
    """A zero-argument launch of the named Triton baseline; it returns the compiled kernel (tune=False: at its one
    declared configuration, untuned)."""
    precision = input_precision(name)
    problem_of(f"Triton baseline {name}", "sgemm", tensors, alpha, beta, device_type)
    if device_type == "cpu":  # Triton's interpreter: its TF32 and 3xTF32 rows rounded as on the GPU
        interpreter_precision.install()
    from kernels_triton.gemm_tutorial import launch

    A, B, C = tensors["A"], tensors["B"], tensors["C"]
    alpha, beta = float(alpha), float(beta)
    return lambda: launch(A, B, C, alpha, beta, input_precision=precision, tune=tune)


def configs() -> int:
    """How many configurations the tutorial's autotuner times at a problem."""
    from kernels_triton.gemm_tutorial import CONFIGS

    return len(CONFIGS)


def chosen_config(name: str) -> dict:
    """What a record keeps of the latest launch: the input precision, the form the problem allowed ("as published",
    "64-bit offsets", ...) and the configuration the autotuner chose for the problem (under ``autotuned``, as the
    suite's autotuned counterparts record theirs)."""
    from kernels_triton.gemm_tutorial import chosen_config as chosen
    from kernels_triton.gemm_tutorial import chosen_form

    config: dict = {"input_precision": input_precision(name)}
    if (form := chosen_form()) is not None:
        config["form"] = form
    if (tuned := chosen()) is not None:
        config["autotuned"] = tuned
    return config
