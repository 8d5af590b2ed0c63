"""`rosetta claims` on the recorded GPU run: every published figure has ours beside it."""

from __future__ import annotations

import io

from rich.console import Console

from harness.analysis.claims import claims_table, published_pct, rank, stride_sweep
from harness.catalog import CATALOG
from harness.cli.results import print_claims, unroll_ratio
from harness.registry import KERNELS, UNROLL_CLAIM
from harness.report.columns import order_text


def test_every_published_figure_of_a_measured_kernel_has_ours_and_an_order(recorded):
    measured = {r.kernel for r in recorded.results if r.timed}
    rows = [c for c in claims_table(recorded) if c.kernel.id in measured]
    assert rows and all(c.ours is not None and c.ours_pct is not None for c in rows)
    ranked = [c for c in rows if c.rank_value is not None]
    assert ranked and all(c.rank_ours is not None and order_text(c) != "—" for c in ranked)


def test_kernels_within_two_percent_share_a_rank():
    values = {"a": 10.0, "b": 15.9, "c": 15.95, "d": 20.0}
    assert rank(values, "b") == rank(values, "c") == 2
    assert rank(values, "d") == 4 and rank(values, "a") == 1


def test_a_published_percentage_is_derived_from_the_documents_own_cublas_figure():
    for k in KERNELS:
        pct = published_pct(k, CATALOG)
        if k.published is None or k.seed is None:
            assert pct is None
        elif k.published.pct_cublas is not None:
            assert pct == k.published.pct_cublas


def test_stride_sweep_and_unroll_ratio_come_from_the_run(recorded):
    points = stride_sweep(recorded)
    strides = [p.published.stride for p in points]
    assert strides == sorted(strides) and len(strides) >= 3
    assert all(p.tflops and p.registers for p in points)
    fast = next(r for r in recorded.results if r.kernel == UNROLL_CLAIM.fast and r.model == "cuda")
    slow = next(r for r in recorded.results if r.kernel == UNROLL_CLAIM.slow and r.model == "cuda")
    assert f"{slow.timing.median_ms / fast.timing.median_ms:.2f}x here" in unroll_ratio(recorded)


def test_the_terminal_tables_name_the_device_of_the_run(recorded):
    buf = io.StringIO()
    print_claims(claims_table(recorded), Console(file=buf, width=220, color_system=None), recorded)
    text = buf.getvalue()
    assert f"ours ({recorded.header.device})" in text and "stride sweep" in text and "unroll ratio" in text
