"""The implementations of a problem behind one interface: a CUDA kernel (through CuPy), a Triton counterpart, a Gluon
counterpart, a baseline (cuBLAS, the Triton tutorial GEMM). The runner, the tests and the benchmarks all go through
it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from harness.baselines import TRITON_BASELINES
from harness.catalog_types.gluon import GluonCounterpart
from harness.identity import ImplId
from harness.launch import cublas
from harness.problems import Problem
from harness.registry import KERNELS, PRECISION_CLASSES, Counterpart, Kernel, Precision, PrecisionClass


@dataclass(frozen=True)
class Impl:
    id: ImplId                           # its JSON form ("cuda", "triton:dot", "cublas") is taken too
    op: str
    kernel: Kernel | None = None         # None for a baseline
    counterpart: Counterpart | None = None
    gluon: GluonCounterpart | None = None

    def __post_init__(self) -> None:
        if isinstance(self.id, str):
            object.__setattr__(self, "id", ImplId.from_json(self.id))

    @property
    def name(self) -> str:
        return self.id.to_json()

    @property
    def label(self) -> str:
        return f"{self.kernel.id} [{self.name}]" if self.kernel else self.name

    @property
    def model(self) -> str:
        return self.id.model

    @property
    def variant(self) -> str:
        """The CUDA build variant (harness/nvrtc/options.py): "default", or "cupy" for CuPy's default build."""
        return self.id.build or "default"

    @property
    def declares_flush(self) -> bool:
        """Built to flush subnormals on purpose (the study of CuPy's -ftz=true): the subnormal layer expects it."""
        from harness.nvrtc.options import VARIANTS

        return self.id.is_cuda and VARIANTS[self.variant].flushes

    @property
    def autotuned(self) -> bool:
        """Launched through an autotuner: the Triton baseline, and a counterpart whose role says so."""
        return self.id.is_triton_baseline or (self.counterpart is not None and self.counterpart.autotuned)

    @property
    def vendor(self) -> bool:
        """A cuBLAS row: the yardstick of its precision class (the Triton baseline is a baseline, not this)."""
        return self.kernel is None and self.id.is_cublas

    @property
    def precision(self) -> Precision:
        """The precision class: a counterpart's own where it sets one (Triton's bf16 splits), else its kernel's."""
        if self.counterpart is not None and self.kernel is not None:
            return self.counterpart.precision_of(self.kernel)
        if self.gluon is not None and self.kernel is not None:
            return self.gluon.precision_of(self.kernel)
        return self.kernel.precision if self.kernel else self.id.baseline_precision

    @property
    def precision_class(self) -> PrecisionClass:
        return PRECISION_CLASSES[self.precision]

    @property
    def tf32(self) -> bool:
        """TF32 rows are held to the tf32 bound and compared with cuBLAS TF32 only (3xTF32 is fp32-accurate)."""
        return self.precision == "tf32"

    @property
    def computes_alpha_beta(self) -> bool:
        if self.op == "sgemv":
            return False
        return self.kernel.computes_alpha_beta if self.id.is_cuda else True

    @property
    def reads_c_when_beta_zero(self) -> bool:
        return self.id.is_cuda and self.kernel.reads_c_when_beta_zero

    def unmet(self, problem: Problem) -> list[str]:
        if problem.op != self.op:
            return [f"{self.label} is {self.op}, the problem is {problem.op}"]
        if self.id.is_cuda:
            return self.kernel.unmet(problem)
        if self.gluon is not None:
            from harness.launch.gluon import unmet_by

            return unmet_by(self.kernel, self.gluon, problem)
        return self.counterpart.unmet(problem) if self.counterpart is not None else []

    def bind(self, tensors: dict[str, torch.Tensor], alpha: float = 1.0, beta: float = 0.0,
             device_type: str = "cuda", tune: bool = True) -> Callable[[], object]:
        """Check the operands once; return a bare zero-argument launch (Triton's returns its compiled handle).
        tune=False: an autotuned implementation runs its declared configuration, untuned (a launch no run times)."""
        if self.id.is_cuda:
            from harness.launch import cuda

            return cuda.bind(self.kernel, tensors, alpha, beta, self.variant)
        if self.id.is_triton:
            from harness.launch import triton

            return triton.bind(self.kernel, self.counterpart, tensors, alpha, beta, device_type, tune)
        if self.id.is_gluon:
            from harness.launch import gluon

            return gluon.bind(self.kernel, self.gluon, tensors, alpha, beta, device_type)
        if self.id.is_triton_baseline:
            from harness.launch import triton_tutorial

            return triton_tutorial.bind(self.name, tensors, alpha, beta, device_type, tune)
        return cublas.bind(self.name, tensors, alpha, beta, device_type)


def baselines(op: str) -> list[Impl]:
    """The baselines of every problem of an op, cuBLAS first; sgemm also has the Triton baseline in each class."""
    names = ("cublas",) if op == "sgemv" else (*cublas.BASELINES, *TRITON_BASELINES)
    return [Impl(ImplId.from_json(n), op) for n in names]


# Every model a kernel can be implemented in: its CUDA source, its Triton counterparts, its Gluon counterparts.
MODELS: tuple[str, ...] = ("cuda", "triton", "gluon")


def of_kernel(kernel: Kernel, models: tuple[str, ...] = MODELS) -> Iterator[Impl]:
    if "cuda" in models:
        yield Impl(ImplId("cuda"), kernel.op, kernel)
    if "triton" in models:
        for c in kernel.counterparts:
            yield Impl(ImplId("triton", c.name), kernel.op, kernel, c)
    if "gluon" in models:
        for g in kernel.gluon:
            yield Impl(ImplId("gluon", g.name), kernel.op, kernel, gluon=g)


def cupy_build_study(kernels: list[Kernel] | tuple[Kernel, ...] = KERNELS) -> list[Impl]:
    """The seed kernels as CuPy's default build makes them (-ftz=true, sm_90): measured once per run beside the
    suite's build, labelled, never an idea's best."""
    return [Impl(ImplId("cuda", "cupy"), k.op, k) for k in kernels if k.seed is not None]


def all_impls(kernels: list[Kernel] | tuple[Kernel, ...] = KERNELS,
              models: tuple[str, ...] = MODELS) -> list[Impl]:
    return [impl for k in kernels for impl in of_kernel(k, models)]
