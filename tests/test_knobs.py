"""The knob study: which SLOW Triton rows it explains and with which variants (harness/run/knob_study.py), which knob it
names from the samples (harness/analysis/knobs.py), and how it is said (knobs.py too).
CPU tier: the committed GPU run's records and made-up samples; `rosetta knobs` itself times on a GPU."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from harness.analysis.knobs import read_beside, study_of, study_path
from harness.analysis.record import read_beside as analysis_beside
from harness.analysis.verdicts import Call
from harness.cli import main
from harness.launch.triton import launch_settings as takes_of
from harness.measure.rounds import MIN_ROUNDS
from harness.measure.timing import Samples
from harness.problems import Problem
from harness.records.file import load
from harness.report.knobs import knob_sentence
from harness.run import knob_study as knobs
from tests.recorded import recorded_gpu_run

P = Problem("sgemm", 4096, 4096, 4096)
TARGET = {"block_m": 64, "block_n": 128, "block_k": 32, "group_m": 8, "num_stages": 4, "num_warps": 4}


def subject(settings: dict, *, has_dot: bool = True, form: str = "gemm_ladder") -> knobs.Subject:
    return knobs.Subject("rosetta.sgemm_warptile<128,128,8,32,64,8,8>", "triton:dot", "triton-tutorial", P, 1.4, form,
                         settings, has_dot)


def test_each_differing_knob_is_switched_alone_to_the_baselines_value_then_all_at_once():
    own = {"block_m": 128, "block_n": 128, "block_k": 16, "num_warps": 8, "num_stages": 1, "group_m": 1}
    made = knobs.variants(subject(own), TARGET, takes_of("gemm_ladder"))
    assert [v.knob for v in made] == ["own", "tile", "warps", "stages", "order", "all"]
    by = {v.knob: v for v in made}
    assert by["own"].settings == own
    assert by["stages"].settings == {**own, "num_stages": 4} and by["stages"].changed == {"num_stages": (1, 4)}
    assert by["tile"].changed == {"block_m": (128, 64), "block_k": (16, 32)}   # block_n is already the target's
    assert by["all"].settings == {**own, **{k: TARGET[k] for k in own}}


def test_a_setting_left_at_the_forms_default_is_compared_and_a_form_without_that_knob_has_none():
    own = {"block_m": 64, "block_n": 128, "block_k": 32, "num_warps": 4, "num_stages": 4}  # group_m: default 1
    ladder = knobs.variants(subject(own), TARGET, takes_of("gemm_ladder"))
    assert [v.knob for v in ladder] == ["own", "order"] and ladder[1].changed == {"group_m": (1, 8)}
    tile = knobs.variants(subject(own, form="gemm_tile"), TARGET, takes_of("gemm_tile"))
    assert [v.knob for v in tile] == ["own"]   # gemm_tile has no program order to switch


def test_a_form_without_a_dot_is_set_beside_the_same_tile_through_tl_dot():
    own = {"block_m": 16, "block_n": 16, "num_warps": 8, "num_stages": 1}
    made = knobs.variants(subject(own, has_dot=False, form="gemm_naive"), TARGET, takes_of("gemm_naive"))
    assert [v.knob for v in made] == ["own", "product"]
    assert made[1].form == knobs.DOT_FORM
    assert made[1].settings == {**own, "block_k": knobs.DOT_K_STEP}


def test_the_study_takes_the_fastest_slow_row_of_each_triton_form_and_class_from_a_recorded_run():
    path = recorded_gpu_run()
    if path is None or analysis_beside(path) is None:
        pytest.skip("no committed GPU run with its analysis")
    analysis = analysis_beside(path)
    results = load(path).results
    got = knobs.subjects(results, analysis, P, lambda k, i, c: ("form", {}))
    slow = [c for c in analysis.where("triton-baseline") if c.problem == P and c.call is Call.SLOW]
    by_key = {r.key: r for r in results}
    groups = {(by_key[c.subject_key].impl, by_key[c.subject_key].precision) for c in slow}
    assert len(got) == len(groups) > 0
    for s in got:
        ratios = [c.ratio for c in slow if c.subject[1] == s.impl
                  and by_key[c.subject_key].precision == by_key[(s.kernel, s.impl, P.key)].precision]
        assert s.ratio == min(ratios)


def _samples(mean: float, seed: int, rounds: int = 10, per: int = 5) -> dict:
    rng = random.Random(seed)
    ms = [mean * (1 + rng.gauss(0, 0.003)) for _ in range(rounds * per)]
    return Samples(ms, [1980.0] * len(ms), [per] * rounds, list(range(rounds)), "batch", 1980.0).to_json()


def _study(own: float, base: float, variants: dict[str, float | None]) -> dict:
    row = {"kernel": "rosetta.sgemm_general<128,256,16,32,128,8,16,8>", "impl": "triton:dot",
           "baseline": "triton-tutorial", "problem": P.to_json(), "ratio": own / base, "form": "gemm_ladder",
           "settings": {}, "has_dot": True, "target": TARGET,
           "variants": [{"knob": "own", "form": "gemm_ladder", "settings": {}, "changed": {},
                         "samples": _samples(own, 1)}]}
    changes = {"tile": {"block_m": [128, 64]}, "stages": {"num_stages": [2, 4]}, "warps": {"num_warps": [8, 4]},
               "all": {"block_m": [128, 64], "num_stages": [2, 4], "num_warps": [8, 4]}}
    for i, (knob, ms) in enumerate(variants.items()):
        v = {"knob": knob, "form": "gemm_ladder", "settings": {}, "changed": changes[knob]}
        v.update({"samples": _samples(ms, 10 + i)} if ms is not None else {"failed": "OutOfResources: shared memory"})
        row["variants"].append(v)
    return {"record": "knob-study", "source": "x.jsonl", "device": "H100", "problem": P.to_json(), "rounds": 10,
            "baselines": {"triton-tutorial": {"config": TARGET, "samples": _samples(base, 99)}}, "subjects": [row]}


def test_the_knob_that_explains_a_gap_is_the_fastest_single_switch_and_its_share_of_the_gap_is_computed():
    study = study_of(_study(1.10, 1.00, {"tile": 1.09, "stages": 1.02, "warps": 1.10, "all": 1.04}))
    (f,) = study.findings
    assert f.gap.call is Call.SLOW and f.explains is not None and f.explains.knob == "stages"
    # (1 - 1.02/1.10) / (1 - 1.00/1.10) = 0.8
    assert f.closed == pytest.approx(0.8, abs=0.03)
    assert f.residual is not None and f.residual.call is Call.SLOW
    text = knob_sentence(f)
    assert "stages 2 → 4" in text and "faster" in text and "the rest is in the code" in text


def test_no_knob_is_named_where_no_single_switch_is_faster_and_a_failed_variant_says_why():
    study = study_of(_study(1.10, 1.00, {"tile": 1.10, "stages": None, "warps": 1.101}))
    (f,) = study.findings
    assert f.explains is None and f.closed is None and f.residual is None
    text = knob_sentence(f)
    assert "no single knob is faster when switched alone" in text
    assert "not timed (OutOfResources" in text
    assert " faster" not in text.replace("is faster when", "")   # only a FAST call is said as faster


def test_a_study_is_read_beside_its_results_file_and_none_is_none(tmp_path: Path):
    results = tmp_path / "run.jsonl"
    assert read_beside(results) is None
    study_path(results).write_text(json.dumps(_study(1.1, 1.0, {"stages": 1.0})))
    assert study_path(results).name == "run.knobs.json"
    assert read_beside(results).findings[0].explains.knob == "stages"


def test_rosetta_knobs_refuses_a_gemv_shape_a_missing_file_and_too_few_rounds(tmp_path: Path, capsys):
    assert main(["knobs", str(tmp_path / "none.jsonl")]) == 2
    assert "no such results file" in capsys.readouterr().err
    results = tmp_path / "run.jsonl"
    results.write_text("")
    assert main(["knobs", str(results), "--shape", "4096x4096"]) == 2
    assert "sgemm" in capsys.readouterr().err
    assert main(["knobs", str(results), "--rounds", "2"]) == 2
    assert f"--rounds: 2: expected a whole number of rounds from {MIN_ROUNDS}" in capsys.readouterr().err


def test_a_k_step_tl_dot_cannot_take_is_widened_to_the_smallest_it_can_and_said():
    own = {"block_m": 64, "block_n": 64, "block_k": 8, "num_warps": 2, "num_stages": 1, "unroll": True}
    made = knobs.variants(subject(own, has_dot=False, form="gemm_outer"), TARGET, takes_of("gemm_outer"))
    product = made[1]
    assert product.settings == {"block_m": 64, "block_n": 64, "block_k": 16, "num_warps": 2, "num_stages": 1}
    assert product.changed["block_k"] == (8, 16)


# gpu_alone: the study starts from the run's SLOW call, which test workers sharing the GPU can make undecided (at
# 512^3 under `-n 6` the naive row's interval against the tutorial spanned 0.33x to 2.39x)
@pytest.mark.gpu
@pytest.mark.gpu_alone
def test_rosetta_knobs_times_a_slow_forms_variants_beside_the_baseline_and_the_report_names_its_knob_on_the_gpu(
        tmp_path: Path):
    from harness import env

    if not env.has_gpu():
        pytest.skip(env.gpu_reason())
    shape = "1024x1024x1024"
    assert main(["run", "--only", "s000.gemm_naive", "--shape", shape, "--out", str(tmp_path), "--no-report",
                 "--rounds", str(MIN_ROUNDS)]) == 0
    (results,) = tmp_path.glob("*.jsonl")
    assert main(["knobs", str(results), "--shape", shape, "--rounds", str(MIN_ROUNDS)]) == 0
    study = read_beside(results)
    (f,) = [f for f in study.findings if f.impl == "triton:naive"]
    assert f.gap.call is Call.SLOW
    (product,) = [e for e in f.effects if e.knob == "product"]
    assert product.verdict is not None, product.failed   # checked against float64, then timed
    assert "products through tl.dot on the same tile (16x16x16" in knob_sentence(f)
