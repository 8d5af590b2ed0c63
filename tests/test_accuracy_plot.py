"""The accuracy-against-speed plot: fp32-class rows and cuBLAS TF32, each at its worst error over the numerics layers,
the Pareto front of the fp32 classes, speed intervals as horizontal bars; a file from before the scaled layer draws."""

from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.container import ErrorbarContainer

from harness.analysis.fp32_work import for_fp32_work, pareto_front, worst_error
from harness.analysis.measured import Measured
from harness.measure.numerics import Verdict
from harness.measure.timing import Timing
from harness.problems import Problem
from harness.records.file import Results, load
from harness.records.lines import Figures, Numerics, Result, RunHeader, Status
from harness.registry import BY_ID, KERNELS
from harness.report.plots.accuracy import accuracy
from tests.recorded import recorded_run_before_the_scaled_layer

P = Problem("sgemm", 4096, 4096, 4096)
SUMMIT = next(k for k in KERNELS if k.id.startswith("rosetta.sgemm_general<128,256"))
WGMMA_3XTF32 = next(k for k in KERNELS if k.id.startswith("rosetta.wgmma_3xtf32"))
SEED_KERNEL = next(k for k in KERNELS if k.seed is not None and k.op == "sgemm")


def _record(impl: str, model: str, tflops: float, precision: str, random: float, scaled_cw: float | None = None,
            kernel: str | None = None) -> Result:
    """A made-up timed record: its speed, its random-layer error, and (where given) a scaled layer whose
    componentwise error is `scaled_cw`. Nothing here is a measurement."""
    ms = 2 * P.M * P.N * P.K / tflops / 1e9
    scaled = (Verdict(True, "scaled", scaled_cw / 3, 1e-3, componentwise=scaled_cw) if scaled_cw is not None
              else None)
    numerics = Numerics(True, Verdict(True, "exact", 0.0, 0.0), Verdict(True, "random", random, 1e-3),
                        subnormal=Verdict(True, "subnormal", random, 1e-3), scaled=scaled)
    return Result(impl, model, P, Status.OK, kernel=kernel, precision=precision, tf32=precision == "tf32",
                  timing=Timing(ms, ms, ms, ms, ms, 10), numerics=numerics,
                  figures=Figures(tflops=tflops, gbps=1.0, intensity=1.0, bytes_model=1))


RECORDS = [
    _record("cublas", "cublas", 51.7, "fp32", 3.9e-7, 9e-7),
    _record("cublas-tf32", "cublas-tf32", 380.0, "tf32", 2.7e-5, 1.8e-3),
    _record("cuda", "cuda", 52.5, "fp32", 3.9e-7, 9.5e-7, SUMMIT.id),
    _record("triton:dot", "triton", 40.1, "fp32", 3.9e-7, 9.1e-7, SUMMIT.id),
    _record("cuda", "cuda", 94.1, "3xtf32", 1.7e-7, 4e-7, WGMMA_3XTF32.id),
    _record("triton:persistent", "triton", 82.2, "3xtf32", 1.0e-7, 3e-7, WGMMA_3XTF32.id),
    _record("triton:persistent-bf16x6", "triton", 70.0, "bf16x6", 1.2e-7, 3.5e-7, WGMMA_3XTF32.id),
    _record("triton:persistent-bf16x3", "triton", 105.0, "bf16x3", 6e-7, 2e-5, WGMMA_3XTF32.id),
    _record("cuda", "cuda", 20.0, "fp32", 3.9e-7, 9e-7, SEED_KERNEL.id),
]


def _measured(records: list[Result]) -> Measured:
    return Measured(Results(None, RunHeader("synthetic", "gpu", "synthetic", {}, [], 0, [P], 100.0), records, None))


def test_a_record_is_placed_at_its_worst_error_over_layers_and_measures():
    bf16x3 = RECORDS[7]
    assert worst_error(bf16x3) == (2e-5, "scaled, componentwise")
    only_random = _record("cuda", "cuda", 1.0, "fp32", 4e-7)
    assert worst_error(only_random)[0] == 4e-7 and "normwise" in worst_error(only_random)[1]


def test_the_points_are_the_fp32_classes_summit_and_splits_plus_cublas_tf32():
    m = _measured(RECORDS)
    shown = [r for r in RECORDS if for_fp32_work(m, r)]
    assert SEED_KERNEL.id not in {r.kernel for r in shown}, "a seed kernel is no fp32 answer on this plot"
    assert {r.precision for r in shown} == {"fp32", "tf32", "3xtf32", "bf16x3", "bf16x6"}
    assert {r.impl for r in shown if r.baseline} == {"cublas", "cublas-tf32"}


def test_the_pareto_front_keeps_the_points_nothing_beats_on_both():
    points = [(51.7, 3.9e-7), (94.1, 1.7e-7), (82.2, 1.0e-7), (70.0, 1.2e-7), (105.0, 2e-5), (40.0, 1e-7)]
    assert pareto_front(points) == [2, 1, 4]
    assert pareto_front([(1.0, 1.0), (1.0, 1.0)]) == [0, 1]   # ties beat neither


def test_the_plot_draws_the_front_and_labels_its_points():
    plot = accuracy(_measured(RECORDS))
    assert plot.png and plot.size[0] > 800
    ax = plot.figure.axes[0]
    dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert len(dashed) == 1
    xs = list(dashed[0].get_xdata())
    assert xs == [82.2, 94.1, 105.0], "the front: Triton 3xTF32, CUDA 3xTF32, Triton bf16x3; cuBLAS TF32 never"
    assert {t.get_text() for t in ax.texts} == {"1", "2", "3", "cuBLAS fp32", "cuBLAS TF32"}
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "bf16x3 (not fp32-accurate)" in legend and "bf16x6" in legend
    assert legend[-3:] == ["wgmma_3xtf32 Triton persistent", "wgmma_3xtf32 CUDA",
                           "wgmma_3xtf32 Triton persistent-bf16x3"]
    assert "Pareto front" in plot.caption and "scaled layers" in plot.caption and "older records" not in plot.caption
    assert not [c for c in ax.containers if isinstance(c, ErrorbarContainer)], "no intervals given: no bars"


def test_speed_intervals_draw_horizontal_bars():
    intervals = {RECORDS[4].key: (90.0, 97.0), RECORDS[5].key: (80.0, 84.5)}
    plot = accuracy(_measured(RECORDS), intervals=intervals)
    bars = [c for c in plot.figure.axes[0].containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 2 and all(c.has_xerr and not c.has_yerr for c in bars)
    spans = sorted(tuple(seg[:, 0]) for c in bars for seg in c.lines[2][0].get_segments())
    assert spans == [(80.0, 84.5), (90.0, 97.0)]
    assert "2 of the 8 points" in plot.caption


def test_a_file_from_before_the_scaled_layer_still_draws(tmp_path: Path):
    path = recorded_run_before_the_scaled_layer()
    if path is None:
        pytest.skip("no committed GPU run from before the scaled layer")
    plot = accuracy(Measured(load(path)))
    assert plot.png, plot.missing
    assert "(older records: no scaled layer and no componentwise error)" in plot.caption


def test_the_recorded_summit_and_3xtf32_rows_are_for_fp32_work(recorded: Results):
    m = Measured(recorded)
    problem = m.headline("sgemm")
    shown = [r for r in m.on(problem) if r.timed and for_fp32_work(m, r)]
    kernels = {BY_ID[r.kernel].idea for r in shown if r.kernel}
    if not shown:
        pytest.skip("the recorded run timed no fp32-class sgemm")
    assert {"cublas", "cublas-tf32"} <= {r.impl for r in shown}
    assert kernels <= {SUMMIT.idea, "tensor_core", "wgmma"}, kernels
