"""Spec-sheet peaks, beside the run's measured ones: the ceiling a measured figure can never pass.

Keyed by the device name the run header records. The measured copy test (a device-to-device copy) runs
below the spec-sheet bandwidth, so a kernel can exceed "% of measured copy" but never the spec sheet.

NVIDIA's datasheets print the tensor cores' figures with 2:4 structured sparsity ("* With sparsity") and say in the
same footnote that without it they are one-half lower. A dense GEMM such as this suite's gets the dense figure, so
each device's row keeps the sheet's printed figure and its sparsity factor, and the dense one is derived from them
(never typed twice). The roof a run measured stands beside it: harness/analysis/measured.py Measured.tensor_roof.
"""

from __future__ import annotations

from dataclasses import dataclass

# The datasheets' footnote: "Shown with sparsity. Specifications are one-half lower without sparsity."
SPARSITY_FACTOR = 2.0


@dataclass(frozen=True)
class Spec:
    hbm_tbps: float            # TB/s, HBM
    fp32_tflops: float         # TFLOP/s, FP32 (non-tensor)
    tf32_sparse_tflops: float  # TFLOP/s, TF32 tensor cores as the datasheet prints it: with 2:4 sparsity
    source: str                # the datasheet the figures are read from

    @property
    def tf32_tflops(self) -> float:
        """TF32 tensor cores, dense: the datasheet's sparsity figure over its footnote's factor."""
        return self.tf32_sparse_tflops / SPARSITY_FACTOR

    @property
    def tf32_text(self) -> str:
        """The dense figure with where it comes from, for a caption."""
        return (f"TF32 tensor {self.tf32_tflops:g} TFLOP/s dense (the sheet's {self.tf32_sparse_tflops:g} is with "
                f"sparsity; {self.source})")


# One row per device name as CUDA reports it; figures as the vendor's datasheet prints them.
SPECS: dict[str, Spec] = {
    "NVIDIA H100 80GB HBM3": Spec(3.35, 67.0, 989.0, "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column"),
    "NVIDIA H100 PCIe": Spec(2.0, 51.0, 756.0, "NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe column"),
    "NVIDIA H200": Spec(4.8, 67.0, 989.0, "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column"),
}


def spec(device: str) -> Spec | None:
    return SPECS.get(device)
