"""The baselines every problem is measured beside, by name: what each is, its precision class, its label, its place.

Two kinds. cuBLAS is the vendor's library: its time is the yardstick of its precision class (fp32 and 3xTF32 rows
against cuBLAS fp32, TF32 rows against cuBLAS TF32) and its error the random layer's reference point. It is measured
in two layouts of B: row-major, as the suite passes it (cuBLAS "NN" for row-major A and B), and B^T stored (N x K
contiguous, cuBLAS "TN"), the layout the kernels that read B K-major are given after B is packed: a K-major-B row is
read against cuBLAS given the same layout, and, with its pack time, against cuBLAS on row-major B. The Triton
baseline (kernels_triton/gemm_tutorial.py) is the GEMM a Triton user writes first, in the manner of Triton's tutorial
03, in each precision class an sgemm is measured in: it is to the Triton rows what cuBLAS is to the CUDA rows, a
yardstick of its own, never the cuBLAS one, and its numerics are judged like any Triton row's.

Plain data, so that every layer (launching, running, records, the report) names them one way.
"""

from __future__ import annotations

from harness.catalog_types.kernel import Precision

# The vendor library's rows: the yardsticks of their classes, on row-major B and on B^T stored.
CUBLAS_BASELINES: dict[str, Precision] = {"cublas": "fp32", "cublas-tf32": "tf32", "cublas-tn": "fp32",
                                          "cublas-tf32-tn": "tf32"}
# The cuBLAS rows given B^T stored (N x K contiguous, packed once before the run as for a K-major-B kernel).
CUBLAS_KMAJOR: frozenset[str] = frozenset({"cublas-tn", "cublas-tf32-tn"})
KMAJOR_TEXT = "B^T stored (TN)"
# The Triton tutorial GEMM in each precision class (sgemm only): name -> class.
TRITON_BASELINES: dict[str, Precision] = {"triton-tutorial": "fp32", "triton-tutorial-tf32": "tf32",
                                          "triton-tutorial-3xtf32": "3xtf32"}
TRITON_BASELINE_LABELS: dict[str, str] = {"triton-tutorial": "Triton tutorial (ieee)",
                                          "triton-tutorial-tf32": "Triton tutorial (TF32)",
                                          "triton-tutorial-3xtf32": "Triton tutorial (3xTF32)"}
# How baselines are listed: cuBLAS first (fp32, then TF32), then the Triton baseline by class.
BASELINE_ORDER: tuple[str, ...] = (*CUBLAS_BASELINES, *TRITON_BASELINES)


def is_cublas(name: str) -> bool:
    return name in CUBLAS_BASELINES


def is_triton_baseline(name: str) -> bool:
    return name in TRITON_BASELINES


def baseline_precision(name: str) -> Precision:
    """A baseline's precision class ("fp32" for a name that is none of these)."""
    return CUBLAS_BASELINES.get(name) or TRITON_BASELINES.get(name) or "fp32"


def cublas_of(precision: str, b_layout: str = "row") -> str:
    """The cuBLAS row a precision class is measured against: TF32 against cuBLAS TF32, every fp32-class row (fp32
    SIMT, the fp32-accurate split forms, and bf16x3, which is fp32-class in use though not in accuracy) against
    cuBLAS fp32; with b_layout "kmajor", the same class's cuBLAS given B^T stored."""
    name = "cublas-tf32" if precision == "tf32" else "cublas"
    return ("cublas-tf32-tn" if precision == "tf32" else "cublas-tn") if b_layout == "kmajor" else name


def b_layout_of(name: str) -> str:
    """How a baseline is given B: "kmajor" (B^T stored) or "row"."""
    return "kmajor" if name in CUBLAS_KMAJOR else "row"


def triton_baseline_of(precision: str) -> str | None:
    """The Triton tutorial row of a precision class (None for a class it is not measured in)."""
    return next((name for name, p in TRITON_BASELINES.items() if p == precision), None)
