"""What an implementation is, typed: a family (CUDA, Triton, Gluon, or a baseline's) and the variant within it; and
what identifies one of its measurements across problems (KernelImpl) and on one problem (RecordKey).

Records, worker messages and tables name an implementation by one string, its JSON form: "cuda", "cuda:cupy" (a CUDA
build variant, harness/nvrtc/options.py), "triton:<form>" (a counterpart), "gluon:<form>" (a Gluon counterpart:
harness/catalog_types/gluon.py), or a baseline's name from
harness/baselines.py ("cublas", "cublas-tf32", "triton-tutorial", "triton-tutorial-tf32", ...). `ImplId` parses that
string once, so that no caller splits it or compares its prefix again, and names it for display one way (`label`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal, NamedTuple

from harness.baselines import BASELINE_ORDER, KMAJOR_TEXT, TRITON_BASELINE_LABELS, b_layout_of, baseline_precision
from harness.catalog_types.gluon import GLUON_MIRROR
from harness.catalog_types.kernel import PRECISION_CLASSES, Precision
from harness.problems import Problem

Family = Literal["cuda", "triton", "gluon", "cublas", "triton-tutorial"]
# A kernel's implementations write "<family>:<variant>"; a baseline's name is "<family>[-<variant>]" (baselines.py).
KERNEL_FAMILIES: tuple[Family, ...] = ("cuda", "triton", "gluon")
BASELINE_FAMILIES: tuple[Family, ...] = ("triton-tutorial", "cublas")  # the longer prefix first: it is matched first


@dataclass(frozen=True)
class ImplId:
    family: Family
    # the CUDA build ("cupy"; None: the suite's own), the Triton form ("dot", "tuned-bf16x3"), or a baseline's
    # precision suffix ("tf32", "3xtf32"; None: fp32)
    variant: str | None = None

    def __post_init__(self) -> None:
        if self.family in ("triton", "gluon") and not self.variant:
            raise ValueError(f"a {self.family} implementation names its form: {self.family}:<form>")

    # ------------------------------------------------------------------ JSON form
    def to_json(self) -> str:
        if self.variant is None:
            return self.family
        return f"{self.family}{':' if self.family in KERNEL_FAMILIES else '-'}{self.variant}"

    @staticmethod
    def from_json(text: str) -> ImplId:
        """Every form a results file holds; ValueError for a string that names no implementation."""
        return _parse(str(text))

    def __str__(self) -> str:
        return self.to_json()

    # ------------------------------------------------------------------ what callers ask
    @property
    def model(self) -> str:
        """The "model" field of a record: "cuda", "triton" or "gluon" for a kernel's implementations, a baseline's
        name."""
        return self.family if self.family in KERNEL_FAMILIES else self.to_json()

    @property
    def is_cuda(self) -> bool:
        return self.family == "cuda"

    @property
    def build(self) -> str | None:
        """A CUDA row's build variant: "default" for the suite's own build, "cupy" for CuPy's; None for the rest."""
        if not self.is_cuda:
            return None
        return self.variant or "default"

    @property
    def is_build_study(self) -> bool:
        """A CUDA row built with other flags than the suite's (CuPy's default build)."""
        return self.is_cuda and self.variant is not None

    @property
    def is_triton(self) -> bool:
        """A Triton counterpart of a kernel (the Triton tutorial baseline is a baseline, not this)."""
        return self.family == "triton"

    @property
    def form(self) -> str | None:
        """A counterpart's Triton form ("dot", "tuned-bf16x3"); None for anything else."""
        return self.variant if self.is_triton else None

    @property
    def is_gluon(self) -> bool:
        """A Gluon counterpart of a kernel."""
        return self.family == "gluon"

    @property
    def gluon_form(self) -> str | None:
        """A Gluon counterpart's form ("mirror"); None for anything else."""
        return self.variant if self.is_gluon else None

    @property
    def is_triton_baseline(self) -> bool:
        return self.family == "triton-tutorial"

    @property
    def runs_triton(self) -> bool:
        """Compiled by Triton's toolchain: a counterpart, a Gluon counterpart or the Triton baseline."""
        return self.is_triton or self.is_gluon or self.is_triton_baseline

    @property
    def is_cublas(self) -> bool:
        return self.family == "cublas"

    @property
    def is_baseline(self) -> bool:
        """A baseline every problem is measured beside (baselines.py): cuBLAS or the Triton tutorial GEMM."""
        return self.family in BASELINE_FAMILIES

    @property
    def baseline_precision(self) -> Precision:
        """A baseline's precision class (baselines.py); "fp32" for a kernel's implementation."""
        return baseline_precision(self.to_json()) if self.is_baseline else "fp32"

    def label(self, device: str | None = None) -> str:
        """How tables, plots and the terminal name it: 'CUDA', 'CUDA, cupy build', 'Triton dot', 'cuBLAS fp32',
        'cuBLAS TF32', 'Triton tutorial (TF32)', and 'torch CPU (fp32)' for the fp32 baseline of a run without a GPU
        (the same baseline is then torch's CPU matmul, launch/cublas.py; the worker names its device "cpu (...)")."""
        name = self.to_json()
        if self.is_cublas:
            if self.variant is None and (device or "").startswith("cpu"):
                return "torch CPU (fp32)"
            layout = f", {KMAJOR_TEXT}" if b_layout_of(name) == "kmajor" else ""
            return f"cuBLAS {PRECISION_CLASSES[self.baseline_precision].text}{layout}"
        if self.is_triton_baseline:
            return TRITON_BASELINE_LABELS.get(name, name)
        if self.is_cuda:
            return "CUDA" if self.variant is None else f"CUDA, {self.variant} build"
        if self.is_gluon:
            return "Gluon" if self.variant == GLUON_MIRROR else f"Gluon {self.variant}"
        return f"Triton {self.variant}"


# The fp32 library's row: the random layer's reference error and every fp32-class row's yardstick.
CUBLAS_FP32 = ImplId("cublas")


class KernelImpl(NamedTuple):
    """An implementation of a kernel, over every problem it is measured on: its kernel (None for a baseline) and its
    implementation (the JSON form). A table's row, a comparison's subject and reference, a profile's and an autotuned
    configuration's key are each one; as a tuple it equals and hashes as the plain pair. Result.kernel_impl makes a
    record's."""

    kernel: str | None
    impl: str


class RecordKey(NamedTuple):
    """What identifies a measurement across runs and files: its kernel (None for a baseline), its implementation (the
    JSON form) and its problem (Problem.key). A record's key (Result.key), a plan's implementations on a problem and
    the analysis's rows are all built by `of`; as a tuple it equals and hashes as the plain triple."""

    kernel: str | None
    impl: str
    problem: tuple

    @classmethod
    def of(cls, kernel: str | None, impl: ImplId | str, problem: Problem) -> RecordKey:
        return cls(kernel, str(impl), problem.key)


@cache
def _parse(text: str) -> ImplId:
    family, colon, variant = text.partition(":")
    if colon:
        if family not in KERNEL_FAMILIES or not variant:
            raise ValueError(f"implementation {text!r}: expected cuda:<build>, triton:<form> or gluon:<form>")
        return ImplId(family, variant)  # type: ignore[arg-type]
    if text == "cuda":
        return ImplId(text)  # type: ignore[arg-type]
    # a baseline by its family, not by today's list: a file may hold one this version no longer measures
    base = next((f for f in BASELINE_FAMILIES if text == f or text.startswith(f + "-")), None)
    if base is None:
        raise ValueError(f"unknown implementation {text!r}: expected cuda, cuda:<build>, triton:<form>, gluon:<form> "
                         f"or a baseline ({', '.join(BASELINE_ORDER)})")
    return ImplId(base, text[len(base) + 1:] or None)
