"""`rosetta compare`: two results files side by side, ratios, spreads, % of cuBLAS and rank changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.analysis.compare import compare
from harness.analysis.verdicts import Call
from harness.measure.timing import Samples, Timing
from harness.problems import Problem
from harness.records.file import ResultsWriter
from harness.records.lines import Figures, Result, RunEnd, RunHeader, Status
from harness.report.compare import headline, held_headline, op_headline, render_compare

RESULTS = Path(__file__).resolve().parents[1] / "results"
P = Problem("sgemm", 256, 256, 256)


def _file(path: Path, device: str, times: dict[tuple[str | None, str], float]) -> Path:
    with ResultsWriter(path) as w:
        w.write(RunHeader("2026-11-22T00:00:00+00:00", "gpu", device, {}, [], 1, [P], 100.0))
        for (kernel, impl), ms in times.items():
            # ten rounds of five runs, within +-0.5% of ms: each file its own batch
            runs = [ms * (1 + 0.005 * ((i * 7) % 5 - 2) / 2) for i in range(50)]
            t = Timing.of(Samples(runs, [1980.0] * 50, [5] * 10, list(range(10)), device, 1980.0))
            w.write(Result(impl, impl.split(":")[0], P, Status.OK, kernel, timing=t,
                           figures=Figures(1.0, 1.0, 1.0, 1)))
        w.write(RunEnd("2026-11-22T00:01:00+00:00", 0, len(times)))
    return path


def test_every_record_timed_in_both_files_is_paired_with_its_verdict(tmp_path):
    a = _file(tmp_path / "a.jsonl", "GPU A", {(None, "cublas"): 1.0, ("s000.gemm_naive", "cuda"): 10.0,
                                             ("s000.gemm_naive", "triton:naive"): 8.0})
    b = _file(tmp_path / "b.jsonl", "GPU B", {(None, "cublas"): 0.5, ("s000.gemm_naive", "cuda"): 5.0,
                                             ("s000.gemm_naive", "triton:naive"): 8.0})
    cmp = compare(a, b)
    speed = {(r.kernel, r.impl): r.speedup for r in cmp.rows}
    assert speed == pytest.approx({(None, "cublas"): 2.0, ("s000.gemm_naive", "cuda"): 2.0,
                                   ("s000.gemm_naive", "triton:naive"): 1.0})
    calls = {(r.kernel, r.impl): r.call for r in cmp.rows}
    assert calls[("s000.gemm_naive", "cuda")] is Call.FAST and calls[("s000.gemm_naive", "triton:naive")] is Call.SAME
    assert not any(r.verdict.verdict.paired for r in cmp.rows)  # two files: independent sets of rounds
    # A's decided calls, held against B: CUDA against cuBLAS stays SLOW (10x both times); Triton against its CUDA
    # kernel was FAST in A (8 against 10 ms) and is SLOW in B (8 against 5): reversed
    outcome = {(h.relation, h.subject): h.outcome for h in cmp.held}
    assert outcome[("cublas", "s000.gemm_naive [cuda]")] == "repeated"
    assert outcome[("counterpart", "s000.gemm_naive [triton:naive]")] == "reversed"
    assert "reverses 1" in held_headline(cmp)
    # CUDA was slower than Triton on A and faster on B: one idea, one problem, both ranks moved.
    assert {(c.impl, c.rank_a, c.rank_b) for c in cmp.rank_changes} == {
        ("s000.gemm_naive [CUDA]", 2, 1), ("s000.gemm_naive [Triton naive]", 1, 2)}
    assert "2 rank changes" in headline(cmp)
    page = render_compare(cmp, tmp_path / "c.html").read_text()
    text = page.replace("&#x27;", "'")
    assert "GPU A" in page and "GPU B" in page and all(op_headline(cmp, op) in text for op in cmp.ops)
    assert 'src="data:image/png;base64,' in page, "the ratios are plotted"


def _sgemv_file(path: Path, device: str, ms: float) -> Path:
    q = Problem("sgemv", 4096, 4096)
    with ResultsWriter(path) as w:
        w.write(RunHeader("2026-11-22T00:00:00+00:00", "gpu", device, {}, [], 1, [q], 100.0))
        for kernel, impl in ((None, "cublas"), ("s003.naive_sgemv", "cuda")):
            t = Timing(ms, ms * 0.99, ms * 1.01, ms * 0.98, ms * 1.02, 50)
            w.write(Result(impl, impl, q, Status.OK, kernel, timing=t, figures=Figures(1.0, 1.0, 1.0, 1)))
        w.write(RunEnd("2026-11-22T00:01:00+00:00", 0, 2))
    return path


def test_a_side_of_several_files_gives_a_headline_for_every_op(tmp_path):
    times = {(None, "cublas"): 1.0, ("s000.gemm_naive", "cuda"): 10.0}
    a = [_file(tmp_path / "a1.jsonl", "GPU A", times), _sgemv_file(tmp_path / "a2.jsonl", "GPU A", 1.4)]
    b = [_file(tmp_path / "b1.jsonl", "GPU B", times), _sgemv_file(tmp_path / "b2.jsonl", "GPU B", 1.0)]
    cmp = compare(a, b)
    assert cmp.ops == ["sgemm", "sgemv"]
    assert op_headline(cmp, "sgemm").startswith("sgemm: B ran a median 1.00x")
    assert op_headline(cmp, "sgemv").startswith("sgemv: B ran a median 1.40x")
    with pytest.raises(ValueError, match="mixes devices"):
        compare([a[0], b[1]], b)


def test_a_difference_within_both_runs_spreads_is_not_marked(tmp_path):
    # 1% apart, each run spread over 2% (p20..p80): noise, neither coloured nor counted as beyond.
    a = _file(tmp_path / "a.jsonl", "GPU A", {(None, "cublas"): 1.0, ("s000.gemm_naive", "cuda"): 10.0})
    b = _file(tmp_path / "b.jsonl", "GPU B", {(None, "cublas"): 1.0, ("s000.gemm_naive", "cuda"): 10.1})
    cmp = compare(a, b)
    assert not any(r.decided for r in cmp.rows)
    page = render_compare(cmp, tmp_path / "c.html").read_text()
    assert 'class="n slower"' not in page and 'class="n faster"' not in page


def test_two_recorded_h100_runs_compare_on_the_records_they_share():
    a, b = sorted(RESULTS.glob("nvidia-h100-80gb-hbm3-*Z.jsonl"))[:2]
    cmp = compare(a, b)
    assert cmp.rows and all(r.a.problem == r.b.problem for r in cmp.rows)
    assert len(cmp.rows) + len(cmp.only_a) == sum(r.timed for r in cmp.a.results)


def test_merge_refuses_files_of_two_device_types_unless_told(tmp_path):
    from harness.records.file import load
    from harness.records.merge import merge

    a = _file(tmp_path / "a.jsonl", "GPU A", {(None, "cublas"): 1.0, ("s000.gemm_naive", "cuda"): 10.0})
    b = _file(tmp_path / "b.jsonl", "GPU B", {(None, "cublas"): 0.5, ("s000.gemm_naive", "cuda"): 5.0})
    with pytest.raises(ValueError, match=r"measured on 'GPU B'.*--allow-mixed"):
        merge([a, b], tmp_path / "m.jsonl")
    merged = load(merge([a, b], tmp_path / "m.jsonl", allow_mixed=True))
    # One record per (implementation, problem): the first file's, baselines included.
    assert [(r.kernel, r.impl, r.median_ms) for r in merged.results] == [(None, "cublas", 1.0),
                                                                          ("s000.gemm_naive", "cuda", 10.0)]


def test_merged_shards_keep_the_peaks_of_each_shards_gpu_even_when_the_names_agree(tmp_path):
    from harness.device.roofline import Peaks
    from harness.records.file import load
    from harness.records.merge import merge

    parts = []
    for i, tflops in enumerate((60.0, 61.0)):
        path = tmp_path / f"part{i}.jsonl"
        with ResultsWriter(path) as w:
            w.write(RunHeader("2026-11-22T00:00:00+00:00", "gpu", "GPU A", {}, [], 1, [P], 100.0,
                              peaks=Peaks(tflops, 3000.0, "GPU A"), shard=f"{i}/2"))
            w.write(RunEnd("2026-11-22T00:01:00+00:00", 0, 0))
        parts.append(path)
    merged = load(merge(parts, tmp_path / "m.jsonl")).header
    assert {k: p.fp32_tflops for k, p in (merged.peaks_by_device or {}).items()} == {
        "GPU A (shard 0/2)": 60.0, "GPU A (shard 1/2)": 61.0}


def test_compare_in_a_fresh_clone_makes_its_default_folder_and_refuses_a_missing_one(tmp_path, monkeypatch, capsys):
    from harness.cli import main

    times = {(None, "cublas"): 1.0, ("s000.gemm_naive", "cuda"): 10.0}
    a, b = _file(tmp_path / "a.jsonl", "GPU A", times), _file(tmp_path / "b.jsonl", "GPU B", times)
    clone = tmp_path / "clone"
    clone.mkdir()
    monkeypatch.chdir(clone)  # no runs/ here yet, as in a fresh clone
    assert main(["compare", str(a), str(b)]) == 0
    assert (clone / "runs" / "compare-a-vs-b.html").is_file()
    assert "compare: runs/compare-a-vs-b.html" in capsys.readouterr().out
    # A page named by --html goes into a folder that is there: a missing one is more often a typo than a wish.
    assert main(["compare", str(a), str(b), "--html", "new/folder/c.html"]) == 2
    assert "the folder" in capsys.readouterr().err and not (clone / "new").exists()
    (clone / "new").mkdir()
    assert main(["compare", str(a), str(b), "--html", "new/c.html"]) == 0
    assert (clone / "new" / "c.html").is_file()
