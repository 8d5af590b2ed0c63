"""Steps within their lineage: a rung's step is measured against the kernel its source is shown as a diff against (the
same document's kernel before it, or tile-rosetta's ladder's rung before); a kernel that opens its series starts a
lineage and is no step (harness/analysis/steps.py). Read on the committed H100 run."""

from __future__ import annotations

import pytest

from harness.analysis.measured import Measured
from harness.analysis.record import read_beside
from harness.analysis.steps import LINEAGES, hopper_steps, ladder_steps, lineage_before, lineage_file, series
from harness.catalog import CATALOG
from harness.records.file import load
from harness.report.sources import SourcePlanner
from tests.recorded import REPO

RUN = REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T102241Z.jsonl"


@pytest.fixture(scope="module")
def m() -> Measured:
    return Measured(load(RUN), read_beside(RUN))


def _kernel(kid: str):
    return CATALOG.by_id[kid]


def test_the_step_before_is_the_same_documents_kernel_at_the_same_tile_else_its_file_before() -> None:
    kernels = CATALOG.kernels
    before = {k.id: [b.id for b in lineage_before(k, kernels)] for k in kernels}
    # seed 000's v4 takes its step from v3 at the same 128x128x8 tile, not from v3's unrolled variants
    assert before["s000.gemm_block_tiling_v4<128,128,8,16,16>"] == ["s000.gemm_block_tiling_v3<128,128,8,16,16>"]
    assert before["s000.v3_unroll_idx<64,64,16,16,16>"] == ["s000.gemm_block_tiling_v3<64,64,16,16,16>"]
    # seed 001's 1D coarsening from its own v2 tiling, never seed 000's unrolled tile
    assert before["s001.v3_coarsen_1d<16,2,8>"] == ["s001.v2_tiling<16>"]
    # a file with no kernel of the tile: every kernel of the file before (the fastest stands for it)
    assert before["s001.v4_coarsen_2d<64,64,8,8,8>"] == [k.id for k in kernels if k.source == "s001_v3_coarsen_1d.cu"]
    # tile-rosetta's ladder: the rung before, per precision class
    assert before["rosetta.sgemm_vectorized<128,128,32,16,8>"] == ["rosetta.sgemm_coarsen_2d<128,128,32,8,8>"]
    wgmma_3xtf32 = "rosetta.wgmma_3xtf32<3xtf32,128,128,32,3,kmajor>"
    assert before[wgmma_3xtf32] == ["rosetta.tc_gemm<3xtf32,128,128,32,2,4,3,kmajor>"]
    # the first kernel of a series starts a lineage
    for kid in ("s000.gemm_naive", "s002.tiled_matmul<2>", "rosetta.sgemm_coarsen_2d<128,128,32,8,8>"):
        assert before[kid] == [], kid
    for k in kernels:
        assert all(series(b) == series(k) for b in lineage_before(k, kernels))


def test_every_rungs_step_is_within_its_lineage(m: Measured) -> None:
    steps = ladder_steps(m)
    assert steps
    for s in steps:
        for side in (s.cuda, s.triton):
            if side is None:
                continue
            assert side.lineage in LINEAGES
            kernel = _kernel(side.best.result.kernel)
            expected = tuple(k.id for k in lineage_before(kernel, m.catalog.kernels))
            assert side.against == expected
            if side.lineage == "starts":
                assert not expected and side.before is None and side.verdict is None
                continue
            assert side.lineage == ("ladder" if kernel.ours else "document")
            if side.before is not None:   # measured against a record of the kernel its diff is shown against
                assert side.before.result.kernel in expected
                assert series(_kernel(side.before.result.kernel)) == series(kernel)
                assert side.before.result.impl_id.family == side.best.result.impl_id.family
                assert side.points == pytest.approx(side.best.pct - side.before.pct)


def test_a_document_step_reads_its_own_gain_not_another_documents(m: Measured) -> None:
    by_idea = {s.rung.idea.key: s for s in ladder_steps(m)}
    coarsen = by_idea["coarsen_1d"].cuda
    assert coarsen.before.result.kernel == "s001.v2_tiling<16>" and coarsen.points > 0
    outer = by_idea["outer_product"].cuda
    assert outer.before.result.kernel == "s000.gemm_block_tiling_v3<128,128,8,16,16>" and outer.points > 0
    assert by_idea["coarsen_2d"].cuda.lineage == "starts"


def test_the_page_diffs_each_step_against_the_file_it_is_measured_against(m: Measured) -> None:
    planner = SourcePlanner(m)
    shown = {}
    for idea, kernels in m.ideas:
        for source in planner.cuda(kernels, idea.key, idea.title):
            if not source.shown_at:
                shown[source.path.removeprefix("kernels_cuda/")] = source.diff_against.removeprefix("kernels_cuda/")
    for s in ladder_steps(m):
        for side in (s.cuda, s.triton):
            if side is None or side.best.result.impl != "cuda":
                continue
            kernel = _kernel(side.best.result.kernel)
            users = [k for k in m.catalog.kernels if k.source == kernel.source]
            assert shown[kernel.source] == (lineage_file(users, m.catalog.kernels) or ""), kernel.source
            if side.lineage == "starts":
                assert shown[kernel.source] == ""
            else:
                assert shown[kernel.source] in {_kernel(k).source for k in side.against}


def test_hoppers_chains_say_theirs_is_the_ladders_step(m: Measured) -> None:
    for s in hopper_steps(m):
        for side in (s.cuda, s.triton):
            if side is not None:
                assert side.lineage == ("starts" if side.before is None and not side.against else "ladder")
