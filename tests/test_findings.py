"""The findings are computed from the results: each carries its numbers, links to its evidence, and says
what an independent reading of the same records says."""

from __future__ import annotations

import copy
import re
from itertools import combinations

import pytest

from harness.analysis.claims import claims_table, stride_sweep, unroll_check
from harness.analysis.findings import MAX_FINDINGS, findings
from harness.analysis.measured import Measured
from harness.analysis.verdicts import Call
from harness.records.file import Results, load
from harness.records.lines import Result
from harness.registry import BY_ID, UNROLL_CLAIM
from harness.report import anchors
from harness.report.doc import Link, Mono, plain
from harness.report.findings import evidence, words
from harness.report.overview import idea_table
from harness.report.plots import all_plots
from tests.recorded import with_rounds
from tests.test_report import cpu_results_file


@pytest.fixture(scope="module")
def found(recorded: Results) -> dict[str, str]:
    m = Measured(recorded)
    return {f.kind: plain(words(f, m)) for f in findings(m) if f.NUMBERED}


def _anchors_of(m: Measured) -> set[str]:
    fixed = {anchors.FINDINGS, anchors.IDEA_TABLE, anchors.SHARED_TRITON, anchors.CLAIMS, anchors.STRIDE,
             anchors.UNROLL, anchors.PLOTS, anchors.IDEAS, anchors.RESULTS, anchors.METHOD}
    return fixed | {anchors.idea(i.key) for i, _ in m.ideas} | {anchors.plot(p.key) for p in all_plots(m)}


def _pct(m: Measured, r: Result) -> float:
    """% of cuBLAS fp32 as the analysis estimates it (the medians' ratio in a file of single bursts)."""
    base = next(b for b in m.all if b.problem == r.problem and b.impl == "cublas" and b.timed)
    assert base.timing and r.timing
    return m.pct(r)


def test_five_to_ten_findings_each_with_numbers_and_a_link_to_its_evidence(recorded: Results) -> None:
    m = Measured(recorded)
    made = findings(m)
    # the numbered findings; a finding per rung (model or compiler) is listed apart, one for each rung it holds for
    numbered = [f for f in made if f.NUMBERED]
    assert 5 <= len(numbered) <= MAX_FINDINGS
    known = _anchors_of(m)
    for f in numbered:
        text = plain(words(f, m))
        assert re.search(r"\d", text), text
        assert evidence(f, m).href.startswith("#") and evidence(f, m).href[1:] in known, (f.kind, evidence(f, m).href)
        for part in words(f, m):
            if isinstance(part, Link):
                assert part.href[1:] in known, part.href
            if isinstance(part, Mono) and part.text in BY_ID:
                assert any(r.kernel == part.text for r in recorded.results), f"{part.text} is named but not measured"


def test_the_headline_names_the_fastest_kernel_of_each_model_with_its_ratio(recorded: Results,
                                                                          found: dict[str, str]) -> None:
    m = Measured(recorded)
    problem = m.headline("sgemm")
    for model in ("cuda", "triton"):
        rows = [r for r in recorded.results if r.problem == problem and r.model == model and r.timed
                and r.precision == "fp32"]
        best = max(rows, key=lambda r: _pct(m, r))
        assert best.kernel and best.kernel in found["headline-sgemm"]
        assert f"{_pct(m, best):.1f}%" in found["headline-sgemm"]


def test_the_unroll_finding_holds_the_documents_words_beside_the_measured_ratio(recorded: Results,
                                                                             found: dict[str, str]) -> None:
    fast = next(r for r in recorded.results if r.kernel == UNROLL_CLAIM.fast and r.model == "cuda" and r.timed)
    slow = next(r for r in recorded.results if r.kernel == UNROLL_CLAIM.slow and r.model == "cuda" and r.timed)
    assert fast.timing and slow.timing
    text = found["unroll"]
    assert UNROLL_CLAIM.words in text
    assert f"{fast.timing.median_ms:.3f} against {slow.timing.median_ms:.3f} ms" in text
    # the ratio is the comparison's, from the interleaved rounds, with its interval; the medians' ratio lies in it
    ratio, lo, hi = map(float, re.search(r"\(([\d.]+)x \[([\d.]+)–([\d.]+)\]\)", text).groups())
    assert lo - 0.005 <= slow.timing.median_ms / fast.timing.median_ms <= hi + 0.005 and lo <= ratio <= hi


def test_the_stride_finding_reports_where_each_sweep_peaks(recorded: Results, found: dict[str, str]) -> None:
    points = [p for p in stride_sweep(recorded) if p.tflops is not None]
    doc = max(points, key=lambda p: p.published.tflops or 0)
    ours = max(points, key=lambda p: p.tflops or 0)
    text = found["stride"]
    assert f"the document peaks at stride {doc.published.stride} " in text
    assert f"here the peak is at stride {ours.published.stride} " in text
    assert ("keeps its shape" in text) == (doc.published.stride == ours.published.stride)


def test_the_rank_finding_names_exactly_the_pairs_whose_order_does_not_hold(recorded: Results,
                                                                           found: dict[str, str]) -> None:
    m = Measured(recorded)
    claims = [c for c in claims_table(m) if c.ours_pct is not None and c.rank_value is not None]
    broken = []
    for a, b in combinations(claims, 2):
        if a.kernel.seed != b.kernel.seed or a.rank_value == b.rank_value:
            continue
        lead, other = (a, b) if a.rank_value > b.rank_value else (b, a)
        clear = lead.rank_value > other.rank_value * 1.02   # the documents' figures carry no interval
        # ours: the rounds' call of the one against the other, never a tolerance on two medians
        c = m.between(lead.ours, other.ours)
        if clear and c.call is not Call.FAST:
            broken.append((lead.kernel.id, other.kernel.id))
    text = found["rank"]
    if not broken:
        assert "holds here" in text
    for lead, other in broken[:3]:
        assert f"{lead} leads {other}" in text


def test_shared_triton_kernels_are_derived_from_counterparts_sharing_a_module(recorded: Results,
                                                                             found: dict[str, str]) -> None:
    modules: dict[str, set[str]] = {}
    for k in (BY_ID[kid] for kid in {r.kernel for r in recorded.results if r.kernel in BY_ID}):
        for c in k.counterparts:
            modules.setdefault(c.module, set()).add(k.idea)
    widest = max(modules, key=lambda mod: len(modules[mod]))
    assert len(modules[widest]) >= 2
    assert f"{len(modules[widest])} ideas" in found["shared"] and f"kernels_triton/{widest}.py" in found["shared"]


def test_a_tf32_result_is_compared_with_cublas_tf32_and_gets_its_own_row(recorded: Results) -> None:
    m = Measured(recorded)
    problem = m.headline("sgemm")
    tri = next(r for r in recorded.results if r.problem == problem and r.model == "triton" and r.timed)
    as_tf32 = copy.deepcopy(tri)
    as_tf32.precision = "tf32"
    as_tf32.impl += "-as-tf32"  # a record of its own: one implementation is one key
    tampered = Results(recorded.path, recorded.header, [*recorded.results, as_tf32], recorded.end)
    mt = Measured(tampered)
    base = next(r for r in recorded.results if r.problem == problem and r.impl == "cublas-tf32")
    assert base.timing and tri.timing
    # the analysis's estimate from the rounds, near the medians' ratio
    assert mt.pct(as_tf32) == pytest.approx(100 * base.timing.median_ms / tri.timing.median_ms, rel=0.01)
    assert mt.pct(as_tf32) != pytest.approx(mt.pct(tri) or 0.0)
    table = idea_table(mt)
    compared = [row[table.headers.index(("compared with", False))].text for row in table.rows]
    assert any("cuBLAS TF32" in c for c in compared) and any(c == "cuBLAS fp32" for c in compared)


def test_without_timings_the_findings_still_say_what_the_compiled_kernels_show(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    m = Measured(load(cpu_results_file(tmp_path_factory.mktemp("rosetta-cpu-findings"))))
    made = findings(m)
    assert made and made[0].kind == "untimed"
    assert all(re.search(r"\d", plain(words(f, m))) for f in made if f.NUMBERED)
    assert not any(f.kind.startswith(("headline", "gaps")) for f in made)


def test_the_unroll_claim_is_not_invented_when_its_kernels_were_not_run(recorded: Results) -> None:
    kept = [r for r in recorded.results if r.kernel not in (UNROLL_CLAIM.fast, UNROLL_CLAIM.slow)]
    m = Measured(Results(recorded.path, recorded.header, kept, recorded.end))
    assert unroll_check(m) is None
    assert "unroll" not in {f.kind for f in findings(m)}


def test_a_gap_is_explained_only_by_what_causes_states_for_its_pair(recorded: Results) -> None:
    from harness.analysis.causes import stated as stated_for
    from harness.analysis.model_findings import pairs
    from harness.report.cause_words import said
    from harness.report.findings import short

    m = Measured(with_rounds(recorded))
    for op in m.ops:
        stated = set()
        for c, _idea, cuda, tri in pairs(m, op):
            lead, trail = (tri, cuda) if c.call is Call.FAST else (cuda, tri)
            why = said(stated_for(m, lead.result, trail.result, limit=1), (short(lead.result), short(trail.result)))
            stated |= {why} if why else set()
        text = next((plain(words(f, m)) for f in findings(m) if f.kind == f"gaps-{op}"), "")
        for clause in re.findall(r", where (.*?)(?:; CUDA's best|; of \d+ ideas|\.$)", text):
            assert clause in stated, clause
