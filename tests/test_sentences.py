"""A sentence is as strong as its comparison, read on the committed H100 run T012026Z (its record as today's analysis
makes it): a row that reads B K-major is said against cuBLAS given B^T or with its pack of B, never alone against a
row-major reader; a cause is said only where no other pair of the run contradicts it; Triton against Gluon is the
model's part only where the two forms share their design; one headline problem per op; every figure names its
regime; the page and the README print the same digit; and the labels say what the charts and tables hold."""

from __future__ import annotations

import re

import pytest

from harness.analysis.causes import causes
from harness.analysis.findings import findings, recorded
from harness.analysis.measured import Measured
from harness.analysis.model_findings import ModelOrCompiler
from harness.analysis.record import b_layout, read_beside
from harness.analysis.verdicts import Call
from harness.baselines import CUBLAS_KMAJOR
from harness.records.file import load
from harness.report import fmt
from harness.report.findings import evidence, words
from harness.report.fmt import plain
from harness.report.markdown import to_markdown
from harness.report.overview import headline_table, idea_table
from tests.recorded import H100_RUN, REPO

RUN = H100_RUN


@pytest.fixture(scope="module")
def m() -> Measured:
    return Measured(load(RUN), read_beside(RUN))


@pytest.fixture(scope="module")
def said(m: Measured) -> str:
    """The headline table and the numbered findings as the page writes them."""
    return to_markdown(headline_table(m)) + "\n" + "\n".join(plain(words(f, m)) for f in recorded(m) if f.NUMBERED)


# ------------------------------------------------------------------------------------------------- B's layout
def test_a_k_major_row_is_held_against_cublas_given_b_transposed(m: Measured) -> None:
    kmajor = [r for r in m.all if r.timed and r.kernel and b_layout(r) == "kmajor"]
    assert kmajor
    for r in kmajor:
        c = m.vs(r, "cublas")
        assert c.reference[1] in CUBLAS_KMAJOR and not c.pack_ms, r.key     # the run timed cuBLAS given B^T
        assert c.pct() == m.vs(r, "cublas-layout").pct() == m.interval(r)


def test_no_sentence_sets_a_k_major_kernel_alone_against_row_major_cublas(m: Measured, said: str) -> None:
    """The headline, the findings and the Hopper idea's paragraph: none prints a K-major row's time alone over cuBLAS
    on row-major B (98.4% for wgmma_cluster before); each names cuBLAS given B^T."""
    from harness.report.sections import measured_paragraph

    idea, kernels = next((i, ks) for i, ks in m.ideas if i.key == "wgmma")
    text = said + plain(measured_paragraph(m, idea, kernels))
    for r in (r for r in m.on(m.headline("sgemm")) if r.timed and r.kernel and b_layout(r) == "kmajor"):
        assert fmt.pct_ci(*m.vs(r, "cublas-alone").pct()) not in text, r.key
    best = m.best(m.timed_of(m.kernels, m.headline("sgemm"), "cuda", "tf32"))
    assert f"{fmt.pct_ci(*best.interval)} of cuBLAS TF32, B^T stored (TN)" in text


def test_against_the_row_major_triton_tutorial_a_k_major_row_carries_its_pack(m: Measured) -> None:
    row = next(r for r in headline_table(m).rows if r[0].sub.startswith("TF32"))
    tri = m.best(m.timed_of(m.kernels, m.headline("sgemm"), "triton", "tf32"))
    c = m.vs(tri.result, "triton-baseline")
    assert c.pack_ms == tri.result.pack_ms and c.pack_on == "subject" and b_layout(m.reference(c)) == "row"
    assert row[-1].text == fmt.ratio_ci(*c.speed()) and "pack of B" in row[-1].sub
    alone = m.between(tri.result, m.reference(c))   # the pack is added wherever the layouts differ
    assert alone.pack_ms == c.pack_ms and alone.speed() == c.speed()


# ------------------------------------------------------------------------------------------------- causes
def test_no_load_width_is_said_as_a_cause(m: Measured) -> None:
    """sgemv_float4's SASS is the same at all five sgemv shapes while Triton's speed goes from slower to faster; the
    Triton forms with 128-bit global loads are faster than their 32-bit CUDA kernels in some pairs and slower in
    others (s001.v3_coarsen_1d<16,4,4>): a load's width decides nothing, and no pair says it does."""
    order = {c.call for c in m.analysis.where("counterpart") if c.subject[0] == "rosetta.sgemv_float4<256,1>"}
    assert {Call.FAST, Call.SLOW} <= order
    for c in m.analysis.comparisons:
        if c.call in (Call.FAST, Call.SLOW) and c.relation in ("counterpart", "between"):
            s, r = m.record(c.subject_key), m.record(c.reference_key)
            fast, slow = (s, r) if c.call is Call.FAST else (r, s)
            assert not any("load_width" in x.quantity for x in causes(m, fast, slow)), c
    text = "\n".join(plain(words(f, m)) for f in recorded(m) if f.NUMBERED)
    assert "64- or 128-bit loads" not in text


def test_a_cause_another_pair_of_the_run_contradicts_is_not_said(m: Measured) -> None:
    """Every stated cause of the run's findings survives every control pair of the run: none has the same difference
    with the speed the other way."""
    for f in recorded(m):
        for cause in f.causes:
            assert cause.kind == "ablation" or cause.detail.get("control"), (f.kind, cause)


# ------------------------------------------------------------------------------------------------- model or compiler
@pytest.fixture(scope="module")
def rungs(m: Measured) -> dict:
    return {f.split.kernel.split("<")[0].removeprefix("rosetta.") + "<" + f.split.kernel.split("<")[1]: f.split
            for f in recorded(m) if isinstance(f, ModelOrCompiler)}


def _split(rungs: dict, prefix: str):
    return next(s for k, s in rungs.items() if k.startswith(prefix))


def test_the_models_part_is_named_only_between_forms_of_one_design(rungs: dict) -> None:
    from harness.report.splits import design, discriminates

    assert {d.name for d in _split(rungs, "sgemm_warptile").differs} == {"K step"}          # Triton 16, Gluon 8
    assert "copies" in {d.name for d in _split(rungs, "wgmma_smem").differs}                # TMA against cp.async
    assert "warp specialisation" in {d.name for d in _split(rungs, "wgmma_tma").differs}
    for s in rungs.values():
        if s.differs:
            assert design(s).startswith("not the model's part: ") and discriminates(s).startswith("none named")
            assert s.moving == []
    assert design(_split(rungs, "sgemm_transposed_a")).startswith("the model's part")


def test_a_quantity_cuda_contradicts_does_not_move_with_the_speed(rungs: dict) -> None:
    """sgemm_general<128,256,...>: CUDA, the fastest, has as many barriers as Triton (18 = 18): BAR is not named."""
    s = _split(rungs, "sgemm_general<128,256")
    bar = next(q for q in s.quantities if q.name == "BAR (static)")
    assert bar.cuda == bar.triton and bar.gluon < bar.triton and s.gap.call is Call.SLOW
    assert bar not in s.moving


def test_the_share_closed_has_its_interval_and_a_tie_closes_the_whole_gap_no_more(rungs: dict) -> None:
    from harness.report.splits import closed_text

    for s in rungs.values():
        if s.closed is None:
            continue
        assert s.closed.lo <= s.closed.value <= s.closed.hi
        text = closed_text(s)
        assert re.search(r"\d+\.\d% \[\d+\.\d–\d+\.\d\]", text), text
        assert text.startswith("more than the whole gap") is (s.compiler.call is Call.FAST)
        assert text.startswith("the whole gap: Gluon and CUDA tie") is (s.compiler.call is Call.SAME)
    assert _split(rungs, "wgmma_3xtf32_rs").compiler.call is Call.SAME


def test_a_tie_is_said_as_a_tie_not_as_undecided(rungs: dict) -> None:
    from harness.report.splits import discriminates

    ties = [s for s in rungs.values() if s.model.call is Call.SAME and s.same_design]
    assert ties and all(discriminates(s) == "none named: Triton and Gluon tie" for s in ties)


def test_model_or_compiler_is_one_table_on_the_page(m: Measured) -> None:
    from harness.report.doc import Bullets, TableBlock
    from harness.report.render import findings_section

    sub = next(b for b in findings_section(m).blocks if getattr(b, "anchor", "") == "model-or-compiler")
    assert [type(b) for b in sub.blocks] == [type(sub.blocks[0]), TableBlock] and not isinstance(sub.blocks[1],
                                                                                                 Bullets)
    assert len(sub.blocks[1].table.rows) == len([f for f in recorded(m) if isinstance(f, ModelOrCompiler)])


# ------------------------------------------------------------------------------------------------- one problem per op
def test_sgemv_has_one_headline_problem_everywhere(m: Measured) -> None:
    problem = m.headline("sgemv")
    assert problem.shape_label == "16384x16384"
    labels = {r[0].text for r in headline_table(m).rows if r[0].text.startswith("sgemv")}
    assert labels == {f"sgemv {problem.shape_label}"}
    for f in findings(m):
        if f.op == "sgemv" and f.NUMBERED:
            assert problem.label in plain(words(f, m)) and "4096x4096," not in plain(words(f, m)), f.kind
    assert problem.label in idea_table(m).notes[0]


# ------------------------------------------------------------------------------------------------- regimes
def test_every_headline_figure_names_its_regime_and_no_sentence_calls_a_burst_sustained(m: Measured) -> None:
    from harness.report.method import timer_paragraph
    from harness.report.regimes import regimes_section

    assert all(row[0].sub.endswith("· burst") for row in headline_table(m).rows)
    assert "the time a sustained run of it takes" not in plain(timer_paragraph(m))
    note = plain(regimes_section(m, []).blocks[0].parts)
    assert "none lies beside this run" in note and "this section shows them" not in note and "`" not in note
    assert "keeps its clock" not in (REPO / "docs" / "method.md").read_text(encoding="utf-8")


def test_one_launch_timed_for_several_kernels_is_one_best_its_first_record(m: Measured) -> None:
    """The three Triton persistent TF32 rows are one launch timed three times: the best is the first, not the one the
    noise puts ahead."""
    problem = m.headline("sgemm")
    rows = m.timed_of(m.kernels, problem, "triton", "tf32")
    launch = m.launch(m.best(rows).result)
    same = sorted((r for r in rows if m.launch(r) == launch), key=m.order)
    assert len(same) >= 3 and m.best(rows).result is same[0]


# ------------------------------------------------------------------------------------------------- one number
def test_the_readme_and_the_page_print_the_same_digits(m: Measured) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    if RUN.name not in readme:
        pytest.skip("the README quotes another run")
    table = to_markdown(headline_table(m))
    assert table in readme
    cuda = m.best(m.timed_of(m.kernels, m.headline("sgemm"), "cuda", "fp32"))
    assert f"reaches {fmt.pct_ci(*cuda.interval)} of cuBLAS fp32" in readme


def test_the_record_keeps_each_ratio_in_full(m: Measured) -> None:
    import json

    from harness.analysis.record import Comparison

    for c in m.analysis.comparisons[:50]:
        assert Comparison.from_json(json.loads(json.dumps(c.to_json()))).pct()[0] == c.pct()[0]


def test_the_fp32_class_section_is_the_run_above_or_says_it_is_another(tmp_path) -> None:
    from harness.report.readme import fp32_section

    other = REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T102636Z-splits.jsonl"
    assert "another run than the one above" in fp32_section(other, tmp_path, RUN)
    assert "another run" not in fp32_section(RUN, tmp_path, RUN)


# ------------------------------------------------------------------------------------------------- labels and links
def test_the_ladder_caption_names_the_rung_each_repeated_launch_comes_from(m: Measured) -> None:
    from harness.report.plots.bars import ladder_chart

    caption = ladder_chart(m).caption
    assert "the rung before's" not in caption
    assert re.search(r"rung 5 repeats rung 2's", caption), caption


def test_each_rung_steps_one_kernel_and_a_launch_timed_twice_is_no_step(m: Measured) -> None:
    from harness.analysis.steps import ladder_steps
    from harness.report.steps import SAME_LAUNCH, step_text

    for s in ladder_steps(m):
        if s.cuda and s.triton and s.cuda.before and s.triton.before:
            assert s.cuda.best.result.kernel == s.triton.best.result.kernel, s.rung.number
            assert s.cuda.against == s.triton.against, s.rung.number
        for side in (s.cuda, s.triton):
            if side is not None and side.before is not None:
                assert side.same_launch == (m.launch(side.best.result) == m.launch(side.before.result))
                assert step_text(side).startswith(SAME_LAUNCH) is side.same_launch
    assert any(s.triton and s.triton.same_launch for s in ladder_steps(m))


def test_the_sgemv_time_caption_names_only_the_series_it_draws(m: Measured) -> None:
    from harness.report.plots.sweep import time_vs_size

    caption = time_vs_size(m, "sgemv").caption
    assert "cuBLAS TF32" not in caption and "black cuBLAS fp32" in caption


def test_the_limits_finding_links_to_the_idea_of_the_row_it_names(m: Measured) -> None:
    limits = next(f for f in findings(m) if f.kind == "limits")
    spilling = m.record(limits.spilling.subject_key)
    assert evidence(limits, m).href == f"#idea-{spilling.kernel_facts.idea}"


def test_the_companion_runs_are_cited(m: Measured) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    results = (REPO / "docs" / "results.md").read_text(encoding="utf-8")
    assert "nvidia-h100-80gb-hbm3-20261127T012852Z.jsonl" in readme and "profile-20261127T012831Z.json" in readme
    assert "8192x8192x8192" in results.split("nvidia-h100-80gb-hbm3-20261127T012852Z.jsonl", 1)[1]
