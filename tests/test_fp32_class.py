"""The fp32-class table (harness/report/overview.py) and the accuracy chart's speed intervals, on the committed run
of the 3xTF32 kernels with Triton's bf16 splits: every row the chart draws, labelled by class, its call against
cuBLAS fp32, its error per layer beside cuBLAS fp32's; and the headline keeps to its three classes."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.analysis.fp32_work import for_fp32_work, speed_intervals
from harness.analysis.measured import Measured
from harness.records.file import load
from harness.report.overview import fp32_class_table, headline_table

SPLITS = Path(__file__).resolve().parents[1] / "results" / "nvidia-h100-80gb-hbm3-20261126T102636Z-splits.jsonl"


@pytest.fixture(scope="module")
def m() -> Measured:
    return Measured(load(SPLITS))


def test_every_point_of_the_chart_has_a_row_with_its_class_and_an_error_per_layer(m: Measured) -> None:
    table = fp32_class_table(m)
    assert table is not None
    drawn = [r for p in m.problems for r in m.on(p) if r.timed and r.figures and for_fp32_work(m, r)]
    assert len(table.rows) == len(drawn)
    headers = [h for h, _ in table.headers]
    assert headers[-3:] == ["error: random", "error: subnormal", "error: scaled"]
    classes = {row[2].text for row in table.rows}
    assert {"3xTF32", "bf16x6", "bf16x3 (not fp32-accurate)", "TF32", "fp32"} <= classes


def test_the_pre_split_triton_form_is_drawn_though_its_design_is_deliberately_different(m: Measured) -> None:
    # the chart is what someone who needs fp32 would run: Triton's fastest fp32-accurate form belongs on it
    presplit = [r for r in m.all if r.impl == "triton:presplit" and r.timed]
    assert presplit and all(m.deliberately_different(r) and for_fp32_work(m, r) for r in presplit)
    names = {row[1].text for row in fp32_class_table(m).rows}
    assert all(f"{r.kernel} · {r.label}" in names for r in presplit)


def test_an_error_cell_is_the_worse_of_the_two_errors_and_its_ratio_to_cublas_fp32s(m: Measured) -> None:
    table = fp32_class_table(m)
    problem = m.headline("sgemm")
    base = m.baseline(problem, "fp32").numerics.layers["scaled"]
    theirs = max(base.error, base.componentwise)
    row = next(r for r in m.on(problem) if r.precision == "bf16x3")
    mine = max(row.numerics.layers["scaled"].error, row.numerics.layers["scaled"].componentwise)
    cells = next(c for c in table.rows if c[1].text == f"{row.kernel} · {row.label}" and c[0].text ==
                 problem.shape_label)
    assert cells[-1].text == f"{mine:.1e} ({mine / theirs:.2f}x)"
    # bf16x3 is not held to cuBLAS fp32's error: its worse error is not marked as a miss
    assert mine > theirs and cells[-1].cls == ""


def test_the_tf32_reference_row_has_no_percent_of_cublas_fp32(m: Measured) -> None:
    table = fp32_class_table(m)
    tf32 = [row for row in table.rows if row[2].text == "TF32"]
    assert tf32 and all(row[4].text == "—" and row[5].text == "—" for row in tf32)


def test_speed_intervals_bracket_each_rate_and_leave_cublas_out(m: Measured) -> None:
    spans = speed_intervals(m)
    timed = [r for r in m.all if r.timed and r.figures and not (r.baseline and r.impl.startswith("cublas"))]
    assert timed and all(r.key in spans for r in timed)
    for r in timed:
        lo, hi = spans[r.key]
        assert lo <= r.figures.tflops <= hi
    assert not any(r.key in spans for r in m.all if r.impl in ("cublas", "cublas-tf32"))


def test_the_headline_has_no_row_for_the_bf16_splits(m: Measured) -> None:
    classes = {row[0].sub for row in headline_table(m).rows}
    assert classes and not any("bf16" in c for c in classes)
