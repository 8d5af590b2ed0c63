"""Peaks with their source: the spec sheet's dense TF32 figure (never the sparsity one) for every device it lists, the
clock each sheet figure is stated at, the tensor cores' roof a run measured beside it (cuBLAS TF32 at its clock,
compared with the sheet per SM cycle), and the measured FP32 peak with the SM clock it ran at (flagged where it ran
well under its rows' clock)."""

from __future__ import annotations

import json

import pytest

from harness.analysis.measured import Measured
from harness.analysis.record import read_beside
from harness.device.roofline import TensorRoof
from harness.device.specs import SPARSITY_FACTOR, SPECS, spec
from harness.records.file import load
from tests.recorded import H100_RUN, REPO

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
    assert roof.at_mhz(1829.0) == pytest.approx(roof.tflops * 1829.0 / roof.clock_mhz)
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


NEWEST = H100_RUN


def test_each_sheet_figure_is_stated_at_a_clock_of_its_own() -> None:
    """The H100 SXM's dense TF32 494.5 is 132 SMs x 2048 FLOP per cycle at 1829 MHz, its FP32 67 the same SMs x 256
    at 1983: not the GPU's maximum 1980 for both."""
    h100 = spec("NVIDIA H100 80GB HBM3")
    assert h100 is not None
    assert h100.tf32_mhz == pytest.approx(1829.2, abs=0.1)
    assert h100.sheet_mhz(h100.fp32_tflops, h100.fp32_per_cycle) == pytest.approx(1982.7, abs=0.1)
    assert "1829 MHz" in h100.tf32_text


def test_the_tensor_core_roof_is_compared_with_the_sheet_per_sm_cycle() -> None:
    """Not "468 TFLOP/s at 1980 MHz: 94.6% of the sheet's dense figure" (a rate projected to the maximum clock over a
    figure stated at 1829 MHz), but the rate per SM cycle over the sheet's: the same as both at the sheet's clock."""
    from harness.report import fmt
    from harness.report.method import _facts

    m = Measured(load(NEWEST), read_beside(NEWEST))
    roof, sheet = m.tensor_roof, spec(m.header.device)
    assert roof is not None and sheet is not None
    row = next(r for r in _facts(m).rows if r[0].text == "measured tensor-core roof")[1].text
    per_cycle = roof.flop_per_sm_cycle / sheet.tf32_per_cycle
    assert per_cycle == pytest.approx(roof.at_mhz(sheet.tf32_mhz) / sheet.tf32_tflops)
    assert fmt.pct(100 * per_cycle) in row and f"{roof.at_mhz(sheet.tf32_mhz):.0f} TFLOP/s" in row
    projected = roof.tflops * roof.max_mhz / roof.clock_mhz
    assert f"{projected:.0f}" not in row and fmt.pct(100 * projected / sheet.tf32_tflops) not in row


def test_a_peak_that_ran_well_under_its_rows_clock_is_flagged_and_a_file_without_its_clock_says_so() -> None:
    """results/...20261127T012026Z measured 55.41 TFLOP/s, 1640 MHz effective (it recorded no clock), while its fp32
    rows ran at 1980: flagged on the page; the run 8 minutes later (65.18, 1929 effective) is not."""
    from harness.analysis.clock import peak_clock
    from harness.report.method import _facts
    from harness.report.plots.roofline import roofline

    low = load(NEWEST)
    p = peak_clock(low.header, low.results)
    assert p is not None and p.clock_mhz is None and p.low
    assert p.effective_mhz == pytest.approx(55.40844 * 1e6 / (132 * 256), rel=1e-4)
    m = Measured(low, read_beside(NEWEST))
    row = next(r for r in _facts(m).rows if r[0].text == "measured peaks")[1].text
    assert "not recorded" in row and "flagged low" in row and f"{p.effective_mhz:.0f} MHz effective" in row
    assert "flagged low" in roofline(m).caption   # the roof drawn from it
    later = load(REPO / "results" / "nvidia-h100-80gb-hbm3-20261127T012852Z.jsonl")
    fine = peak_clock(later.header, later.results)
    assert fine is not None and not fine.low


def test_a_peak_keeps_the_clock_it_ran_at_and_the_probes_error_through_its_record() -> None:
    import dataclasses

    from harness.analysis.clock import peak_clock
    from harness.device.roofline import Peaks

    p = Peaks(65.2, 3000.0, "NVIDIA H100 80GB HBM3", 1972.0, 2, {0.05: 0.02, 3.0: 0.004})
    assert Peaks.from_json(json.loads(json.dumps(p.to_json()))) == p
    assert Peaks.from_json({"fp32_tflops": 55.4, "copy_gbps": 3000.0}).fp32_mhz is None
    results = load(NEWEST)
    at = {1972.0: False, 1700.0: True}
    for mhz, flagged in at.items():
        header = dataclasses.replace(results.header, peaks=dataclasses.replace(p, fp32_mhz=mhz))
        found = peak_clock(header, results.results)
        assert found is not None and found.clock_mhz == mhz and found.low is flagged


# alone: a peak measured while other test processes launch on the same GPU is their share of it, not the device's
@pytest.mark.gpu
@pytest.mark.gpu_alone
def test_on_the_gpu_the_fp32_peak_runs_near_the_maximum_clock_and_the_probes_error_is_measured() -> None:
    """A worker's peaks on the device: the FMA peak with its clock within PEAK_CLOCK_DROP of the maximum (or every try
    taken), an issue rate near one FMA per lane per cycle at that clock, and the probe's error at every window
    length."""
    import torch

    from harness.device.specs import HOPPER_FP32_PER_CYCLE
    from harness.measure.sm_clock import max_sm_clock_mhz
    from harness.run.peaks import PEAK_CLOCK_DROP, PEAK_TRIES, PROBE_WINDOWS_MS, measure_peaks

    device = torch.device("cuda", 0)
    p = measure_peaks(device)
    top = max_sm_clock_mhz(device)
    assert p.fp32_mhz is not None and top is not None
    assert p.fp32_mhz >= (1 - PEAK_CLOCK_DROP) * top or p.fp32_tries == PEAK_TRIES
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    issue = p.fp32_tflops * 1e6 / (sms * HOPPER_FP32_PER_CYCLE * p.fp32_mhz)
    assert 0.85 < issue <= 1.01, issue
    assert p.probe_error is not None and set(p.probe_error) == set(PROBE_WINDOWS_MS)
    assert all(0 <= e < 0.2 for e in p.probe_error.values())
