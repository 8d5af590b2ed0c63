"""Peaks with their source: the spec sheet's dense TF32 figure (never the sparsity one) for every device it lists, and
the tensor cores' roof a run measured beside it (cuBLAS TF32 at its clock, and scaled to the GPU's maximum)."""

from __future__ import annotations

import pytest

from harness.analysis.measured import Measured
from harness.analysis.record import read_beside
from harness.device.roofline import TensorRoof
from harness.device.specs import SPARSITY_FACTOR, SPECS, spec
from harness.records.file import load
from tests.recorded import REPO

RUN = REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T102756Z-tf32.jsonl"


@pytest.mark.parametrize("device", list(SPECS))
def test_every_devices_tf32_peak_is_the_dense_figure_of_its_named_datasheet(device: str) -> None:
    s = SPECS[device]
    assert s.tf32_tflops == s.tf32_sparse_tflops / SPARSITY_FACTOR
    assert "datasheet" in s.source and device.removeprefix("NVIDIA ").split()[0] in s.source
    # no tensor-core peak of a dense GEMM above the FP32 figure times the sparsity ratio of the sheet: the dense TF32
    # peak is 7.4x (H100) the FP32 one, the sparsity figure 14.8x
    assert s.tf32_tflops / s.fp32_tflops < 8
    assert f"{s.tf32_tflops:g}" in s.tf32_text and f"{s.tf32_sparse_tflops:g}" in s.tf32_text


def test_the_h100s_dense_tf32_peak_is_half_the_sheets_989() -> None:
    h100 = spec("NVIDIA H100 80GB HBM3")
    assert h100 is not None and h100.tf32_sparse_tflops == 989.0 and h100.tf32_tflops == pytest.approx(494.5)


def test_the_measured_tensor_core_roof_is_read_from_the_runs_cublas_tf32_records() -> None:
    results = load(RUN)
    m = Measured(results, read_beside(RUN))
    roof = m.tensor_roof
    assert isinstance(roof, TensorRoof)
    rows = [r for r in results.results if r.impl == "cublas-tf32" and r.timed]
    best = max(rows, key=lambda r: r.figures.tflops * r.timing.samples.max_mhz / r.timing.samples.mean_mhz)
    assert roof.tflops == best.figures.tflops and roof.clock_mhz == best.timing.samples.mean_mhz
    assert roof.max_mhz == best.timing.samples.max_mhz and roof.sms == results.header.sms
    assert roof.at_max_clock == pytest.approx(roof.tflops * roof.max_mhz / roof.clock_mhz)
    assert roof.flop_per_sm_cycle == pytest.approx(roof.tflops * 1e12 / (roof.clock_mhz * 1e6 * roof.sms))
    assert best.problem.label in roof.source and "cuBLAS TF32" in roof.source
    # the roof a run measures stands below the dense spec at the clock it ran at
    sheet = spec(results.header.device)
    assert sheet is not None and roof.tflops < sheet.tf32_tflops


def test_a_run_without_cublas_tf32_has_no_measured_roof() -> None:
    from harness.records.file import Results

    results = load(RUN)
    bare = Results(results.path, results.header, [r for r in results.results if r.impl != "cublas-tf32"],
                   results.end)
    assert Measured(bare, read_beside(RUN)).tensor_roof is None
