"""B's layout on the table: cuBLAS measured on row-major B ("NN") and given B^T stored ("TN") in each class; each row
that reads B K-major read twice, its kernel alone against cuBLAS TN and, with its pack time, against cuBLAS NN
(harness/analysis/record.py "cublas-layout", "cublas-packed"; harness/analysis/measured.py LayoutRead).

The samples of the synthetic tests are SYNTHETIC FIXTURES; the last tests read the committed H100 run."""

from __future__ import annotations

import pytest
import torch

from harness.analysis.measured import Measured
from harness.analysis.record import analyse, read_beside
from harness.baselines import CUBLAS_KMAJOR, b_layout_of, cublas_of
from harness.identity import ImplId
from harness.launch import cublas
from harness.launch.implementations import Impl, baselines
from harness.measure.timing import Samples, Timing
from harness.problems import Problem
from harness.records.file import load
from harness.records.lines import Result, Status
from tests.recorded import REPO

P = Problem("sgemm", 4096, 4096, 4096)
KMAJOR = "rosetta.wgmma_cluster<tf32,128,256,32,4,kmajor>"
RUN = REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T102241Z.jsonl"


def test_cublas_is_a_baseline_in_both_layouts_and_each_class_keeps_its_row_major_yardstick() -> None:
    names = [b.name for b in baselines("sgemm") if b.vendor]
    assert set(CUBLAS_KMAJOR) <= set(names) and {"cublas", "cublas-tf32"} <= set(names)
    assert [b.name for b in baselines("sgemv")] == ["cublas"]
    assert (cublas_of("tf32"), cublas_of("fp32"), cublas_of("3xtf32")) == ("cublas-tf32", "cublas", "cublas")
    assert (cublas_of("tf32", "kmajor"), cublas_of("3xtf32", "kmajor")) == ("cublas-tf32-tn", "cublas-tn")
    assert ImplId.from_json("cublas-tf32-tn").label() == "cuBLAS TF32, B^T stored (TN)"
    assert Impl(ImplId.from_json("cublas-tf32-tn"), "sgemm").precision == "tf32"
    assert {b_layout_of(n) for n in CUBLAS_KMAJOR} == {"kmajor"} and b_layout_of("cublas") == "row"


@pytest.mark.parametrize("name", sorted(CUBLAS_KMAJOR))
def test_cublas_given_b_transposed_computes_a_times_b(name: str) -> None:
    """On a CPU the same launch is the vendor BLAS: B is packed once at bind and handed over transposed."""
    g = torch.Generator().manual_seed(5)
    A, B = torch.rand(33, 17, generator=g), torch.rand(17, 29, generator=g)
    C = torch.full((33, 29), float("nan"))
    ref = A.double() @ B.double()
    launch = cublas.bind(name, {"A": A, "B": B, "C": C}, 1.0, 0.0, device_type="cpu")
    B.fill_(float("nan"))            # the launch reads its own packed copy, made before any launch
    launch()
    assert not torch.isnan(C).any()
    assert float((C.double() - ref).abs().max()) < 1e-5


def _samples(ms: float, batch: str = "b") -> Samples:
    return Samples([ms * (1 + 0.001 * (i % 3 - 1)) for i in range(10)], [1800.0] * 10, [1] * 10, list(range(10)),
                   batch, 1980.0)


def _record(kernel: str | None, impl: str, ms: float, precision: str = "tf32", pack_ms: float | None = None) -> Result:
    r = Result(impl, ImplId.from_json(impl).model, P, Status.OK, kernel=kernel, precision=precision,
               tf32=precision == "tf32", pack_ms=pack_ms)
    r.timing = Timing.of(_samples(ms))
    return r


def test_a_k_major_row_is_read_against_cublas_tn_alone_and_against_cublas_nn_with_its_pack() -> None:
    rows = [_record(None, "cublas-tf32", 1.0), _record(None, "cublas-tf32-tn", 0.97),
            _record(KMAJOR, "cuda", 1.02, pack_ms=0.4), _record("rosetta.tc_gemm<tf32,128,128,32,2,4,3,row>", "cuda",
                                                                   1.5)]
    an = analyse(rows, "synthetic")
    assert {"cublas-layout", "cublas-packed"} <= {c.relation for c in an.comparisons}
    kmajor = rows[2]
    (same,) = an.of(kmajor, "cublas-layout")
    (packed,) = an.of(kmajor, "cublas-packed")
    assert same.reference == (None, "cublas-tf32-tn") and same.ratio == pytest.approx(1.02 / 0.97, rel=2e-3)
    assert packed.reference == (None, "cublas-tf32") and packed.ratio == pytest.approx(1.42, rel=2e-3)
    assert packed.verdict.cycles is None and packed.call.value == "SLOW"
    # a row that reads B as the suite passes it is read once, against cuBLAS NN
    assert not an.of(rows[3], "cublas-layout") and not an.of(rows[3], "cublas-packed")
    from harness.records.file import Results
    from harness.records.lines import RunHeader

    m = Measured(Results(None, RunHeader("s", "gpu", "s", {}, [], 0, [P], 100.0), rows, None), an)  # type: ignore
    read = m.layout(kmajor)
    assert read is not None and read.pack_ms == 0.4 and read.pack_share == pytest.approx(0.4 / kmajor.median_ms)
    assert (read.same_layout, read.packed) == (same, packed) and read.alone.reference == (None, "cublas-tf32")
    assert m.layout(rows[3]) is None


def test_the_committed_runs_k_major_rows_carry_their_pack_time_into_a_second_read() -> None:
    """T102241Z has no cuBLAS TN row (it predates it): its K-major rows are read with their pack against cuBLAS NN,
    each ratio the pack-plus-kernel time over cuBLAS's, from the record's own figures."""
    results = load(RUN)
    m = Measured(results, analyse(results.results, RUN.name, read_beside(RUN).catalog))
    reads = [m.layout(r) for r in results.results if r.timed and r.kernel_facts and r.kernel_facts.b_layout == "kmajor"]
    assert reads and all(x is not None and x.pack_ms for x in reads)
    for x in reads:
        assert x.same_layout is None and x.packed is not None and x.alone is not None
        assert x.packed.ratio > x.alone.ratio                    # the pack is never free
        cu = m.reference(x.alone)
        approx = (x.result.timing.median_ms + x.pack_ms) / cu.timing.median_ms
        assert x.packed.ratio == pytest.approx(approx, rel=0.05)
