"""Spec-sheet peaks, beside the run's measured ones: the ceiling a measured figure can never pass.

Keyed by the device name the run header records. The measured copy test (a device-to-device copy) runs
below the spec-sheet bandwidth, so a kernel can exceed "% of measured copy" but never the spec sheet.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Spec:
    hbm_tbps: float            # TB/s, HBM
    fp32_tflops: float         # TFLOP/s, FP32 (non-tensor)
    tf32_tflops: float         # TFLOP/s, TF32 tensor cores, dense (the sparsity figure excluded)
    source: str


# One row per device name as CUDA reports it; figures as the vendor's datasheet prints them.
SPECS: dict[str, Spec] = {
    "NVIDIA H100 80GB HBM3": Spec(3.35, 67.0, 989.0, "NVIDIA H100 datasheet (SXM5)"),
    "NVIDIA H200": Spec(4.8, 67.0, 989.0, "NVIDIA H200 datasheet (SXM)"),
}


def spec(device: str) -> Spec | None:
    return SPECS.get(device)
