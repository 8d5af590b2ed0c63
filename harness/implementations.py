"""The three implementations of a problem behind one interface: a CUDA seed kernel (through CuPy),
a Triton counterpart, a cuBLAS baseline. The runner, the tests and the benchmarks all go through it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from harness import cublas
from harness.problems import Problem
from harness.registry import KERNELS, Counterpart, Kernel


@dataclass(frozen=True)
class Impl:
    name: str                            # "cuda", "triton:<counterpart>", "cublas", "cublas-tf32"
    op: str
    kernel: Kernel | None = None         # None for a baseline
    counterpart: Counterpart | None = None

    @property
    def label(self) -> str:
        return f"{self.kernel.id} [{self.name}]" if self.kernel else self.name

    @property
    def model(self) -> str:
        return self.name.split(":")[0]

    @property
    def tf32(self) -> bool:
        return self.name == "cublas-tf32"

    @property
    def computes_alpha_beta(self) -> bool:
        if self.op == "sgemv":
            return False
        return self.kernel.computes_alpha_beta if self.model == "cuda" else True

    @property
    def reads_c_when_beta_zero(self) -> bool:
        return self.model == "cuda" and self.kernel.reads_c_when_beta_zero

    def unmet(self, problem: Problem) -> list[str]:
        if problem.op != self.op:
            return [f"{self.label} is {self.op}, the problem is {problem.op}"]
        return self.kernel.unmet(problem) if self.model == "cuda" else []

    def bind(self, tensors: dict[str, torch.Tensor], alpha: float = 1.0, beta: float = 0.0,
             device_type: str = "cuda") -> Callable[[], None]:
        if self.model == "cuda":
            from harness import cuda

            return cuda.bind(self.kernel, tensors, alpha, beta)
        if self.model == "triton":
            from harness import triton_side

            return triton_side.bind(self.kernel, self.counterpart, tensors, alpha, beta)
        return cublas.bind(self.name, tensors, alpha, beta, device_type)


def baselines(op: str) -> list[Impl]:
    names = ("cublas",) if op == "sgemv" else cublas.BASELINES
    return [Impl(n, op) for n in names]


def of_kernel(kernel: Kernel, models: tuple[str, ...] = ("cuda", "triton")) -> Iterator[Impl]:
    if "cuda" in models:
        yield Impl("cuda", kernel.op, kernel)
    if "triton" in models:
        for c in kernel.counterparts:
            yield Impl(f"triton:{c.name}", kernel.op, kernel, c)


def all_impls(kernels: list[Kernel] | tuple[Kernel, ...] = KERNELS,
              models: tuple[str, ...] = ("cuda", "triton")) -> list[Impl]:
    return [impl for k in kernels for impl in of_kernel(k, models)]
