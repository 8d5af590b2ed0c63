"""Spec-sheet peaks, beside the run's measured ones: the ceiling a measured figure can never pass.

Keyed by the device name the run header records. The measured copy test (a device-to-device copy) runs
below the spec-sheet bandwidth, so a kernel can exceed "% of measured copy" but never the spec sheet.

NVIDIA's datasheets print the tensor cores' figures with 2:4 structured sparsity ("* With sparsity") and say in the
same footnote that without it they are one-half lower. A dense GEMM such as this suite's gets the dense figure, so
each device's row keeps the sheet's printed figure and its sparsity factor, and the dense one is derived from them
(never typed twice). The roof a run measured stands beside it: harness/analysis/measured.py Measured.tensor_roof.

A sheet's figure is a rate per SM cycle of the architecture times the SMs times a clock the sheet chooses, and the sheet
does not choose one clock for all: the H100 SXM's FP32 67 TFLOP/s is 132 SMs x 256 FLOP per cycle at 1983 MHz, its
dense TF32 494.5 the same SMs x 2048 FLOP per cycle at 1829 MHz. So each row declares its SMs and the architecture's
rates per SM cycle, and the clock each figure assumes is derived (Spec.sheet_mhz): a measured rate is compared with a
sheet figure per SM cycle, whatever clock either was taken at, never at a clock the figure was not stated at.
"""

from __future__ import annotations

from dataclasses import dataclass

# The datasheets' footnote: "Shown with sparsity. Specifications are one-half lower without sparsity."
SPARSITY_FACTOR = 2.0


# Rates per SM per cycle of Hopper's SM (NVIDIA H100 Tensor Core GPU Architecture whitepaper): 128 FP32 lanes, an
# FMA counted as two FLOP; the fourth-generation tensor cores' dense TF32 (1024 FMA per SM per cycle).
HOPPER_FP32_PER_CYCLE = 256
HOPPER_TF32_PER_CYCLE = 2048


@dataclass(frozen=True)
class Spec:
    hbm_tbps: float            # TB/s, HBM
    fp32_tflops: float         # TFLOP/s, FP32 (non-tensor)
    tf32_sparse_tflops: float  # TFLOP/s, TF32 tensor cores as the datasheet prints it: with 2:4 sparsity
    source: str                # the datasheet the figures are read from
    sms: int                   # SMs of the part the column describes
    fp32_per_cycle: int        # FP32 FLOP per SM per cycle of its architecture
    tf32_per_cycle: int        # dense TF32 FLOP per SM per cycle

    @property
    def tf32_tflops(self) -> float:
        """TF32 tensor cores, dense: the datasheet's sparsity figure over its footnote's factor."""
        return self.tf32_sparse_tflops / SPARSITY_FACTOR

    def sheet_mhz(self, tflops: float, per_cycle: int) -> float:
        """The SM clock a sheet figure assumes: the figure over the SMs and the rate per SM cycle."""
        return tflops * 1e6 / (self.sms * per_cycle)

    @property
    def tf32_mhz(self) -> float:
        """The clock of the sheet's dense TF32 figure (1829 MHz for the H100 SXM)."""
        return self.sheet_mhz(self.tf32_tflops, self.tf32_per_cycle)

    @property
    def tf32_text(self) -> str:
        """The dense figure with where it comes from, for a caption."""
        return (f"TF32 tensor {self.tf32_tflops:g} TFLOP/s dense (the sheet's {self.tf32_sparse_tflops:g} is with "
                f"sparsity; {self.sms} SMs x {self.tf32_per_cycle} FLOP per SM cycle at {self.tf32_mhz:.0f} MHz; "
                f"{self.source})")


# One row per device name as CUDA reports it; figures as the vendor's datasheet prints them.
SPECS: dict[str, Spec] = {
    "NVIDIA H100 80GB HBM3": Spec(3.35, 67.0, 989.0, "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column", 132,
                                  HOPPER_FP32_PER_CYCLE, HOPPER_TF32_PER_CYCLE),
    "NVIDIA H100 PCIe": Spec(2.0, 51.0, 756.0, "NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe column", 114,
                             HOPPER_FP32_PER_CYCLE, HOPPER_TF32_PER_CYCLE),
    "NVIDIA H200": Spec(4.8, 67.0, 989.0, "NVIDIA H200 Tensor Core GPU datasheet, H200 SXM column", 132,
                        HOPPER_FP32_PER_CYCLE, HOPPER_TF32_PER_CYCLE),
}


def spec(device: str) -> Spec | None:
    return SPECS.get(device)
