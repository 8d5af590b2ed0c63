"""The sustained regime without a GPU: the steady-state rule on made-up NVML series, the records it writes, the
energy call beside the time call, and what the analysis and the page make of a sustained results file (one built here
from made-up rounds: nothing in it is a measurement)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from harness.analysis.regimes import study, study_beside, sustained_path
from harness.analysis.verdicts import Call, compare
from harness.identity import ImplId
from harness.measure.energy import COUNTER
from harness.measure.energy_record import Energy
from harness.measure.regime import RULE, Regime, Rule, SteadyRound, steady_at, window_means
from harness.measure.sustained import ROUNDS as SUSTAINED_ROUNDS
from harness.measure.timing import Samples, Timing
from harness.problems import Problem
from harness.records.file import ResultsWriter, load
from harness.records.lines import Result, RunEnd, RunHeader, Status

TICK = 0.01


def series(seconds: float, mhz, watts) -> list[tuple[float, float | None, float | None]]:
    """NVML readings every TICK from t = 0."""
    return [(k * TICK, mhz(k * TICK), watts(k * TICK)) for k in range(int(seconds / TICK) + 1)]


def tf32_like(t: float) -> float:
    """A clock falling from 1980 to 1400 MHz with a time constant of 0.4 s: a tensor-core GEMM at the limit."""
    return 1400 + 580 * math.exp(-t / 0.4)


def test_window_means_cover_complete_windows_only() -> None:
    got = window_means(series(1.26, lambda t: 1000 + (t >= 0.5) * 100, lambda t: None), 0.0, 0.5)
    assert len(got) == 2 and got[0] == (1000.0, None) and got[1] == (1100.0, None)


def test_the_rule_waits_out_a_ramp_and_holds_once_clock_and_power_stop_moving() -> None:
    readings = series(6.0, tf32_like, lambda t: 700 - 100 * math.exp(-t / 0.4))
    found = steady_at(readings, 0.0, RULE)
    assert found is not None
    t, windows = found
    # the clock falls by 2% of 1400 MHz within about 0.4 * ln(580 / 28) = 1.2 s; three windows of flat means after
    assert 1.5 < t <= 3.0 and len(windows) == RULE.windows
    spread = (max(w[0] for w in windows) - min(w[0] for w in windows)) / (sum(w[0] for w in windows) / 3)
    assert spread <= RULE.clock_tol


def test_the_rule_never_holds_on_a_run_that_keeps_drifting() -> None:
    # 3% a second of drift in the clock: over three windows of 0.5 s, 3% apart, past the 2% tolerance
    readings = series(8.0, lambda t: 1980 * (1 - 0.03 * t), lambda t: 700.0)
    assert steady_at(readings, 0.0, RULE) is None


def test_the_rule_holds_on_flat_readings_after_its_windows_and_not_before() -> None:
    readings = series(3.0, lambda t: 1980.0, lambda t: 690.0)
    t, _ = steady_at(readings, 0.0, RULE)  # type: ignore[misc]
    assert t == pytest.approx(RULE.windows * RULE.window_s)
    assert steady_at(series(1.4, lambda t: 1980.0, lambda t: 690.0), 0.0, RULE) is None


def test_the_rule_uses_the_quantity_nvml_gives_and_never_holds_on_none() -> None:
    assert steady_at(series(3.0, lambda t: 1980.0, lambda t: None), 0.0, RULE) is not None   # clock alone
    assert steady_at(series(3.0, lambda t: None, lambda t: 650.0), 0.0, RULE) is not None    # power alone
    assert steady_at(series(5.0, lambda t: None, lambda t: None), 0.0, RULE) is None
    # power still climbing while the clock is flat: not steady
    assert steady_at(series(3.0, lambda t: 1980.0, lambda t: 500 + 60 * t), 0.0, RULE) is None


def test_the_rule_says_itself_from_its_values() -> None:
    text = Rule(0.25, 4, 0.01, 0.02, 6.0, 2.0).text()
    assert "4 consecutive windows of 0.25 s" in text and "1% (clock)" in text and "2% (power)" in text
    assert "at most 6 s" in text and "next 2 s" in text
    assert Rule.from_json(RULE.to_json()) == RULE


# ---------------------------------------------------------------------------------------------------- made-up rounds
PROBLEM = Problem("sgemm", 4096, 4096, 4096)
ROUNDS = SUSTAINED_ROUNDS   # the sustained pass's rounds: the fewest that give a 95% interval


def rounds_of(ms: float, mhz: float, jitter: float, *, runs: int, batch: str, joules: float | None = None,
              launches: int = 1) -> Samples:
    values = [ms * (1 + jitter * ((i * 7919) % 7 - 3) / 3) for i in range(runs * ROUNDS)]
    energy = None
    if joules is not None:
        per_round = [joules * runs * launches * (1 + 0.002 * (r % 2)) for r in range(ROUNDS)]
        energy = Energy(COUNTER, [j * 1e3 * 1.01 for j in per_round], [1.0] * ROUNDS, per_round, 100.0)
    return Samples(values, [mhz] * len(values), [runs] * ROUNDS, list(range(ROUNDS)), batch, 1980.0, energy,
                   launches)


def sustained_record(impl: str, precision: str, kernel: str | None, burst_ms: float, steady_ms: float,
                     steady_mhz: float, joules: float, aa: bool = False) -> Result:
    steady = rounds_of(steady_ms, steady_mhz, 0.001, runs=20, batch="s", joules=joules, launches=7)
    burst = rounds_of(burst_ms, 1980.0, 0.002, runs=10, batch="s")
    twin = rounds_of(steady_ms, steady_mhz, 0.001, runs=20, batch="s", joules=joules, launches=7) if aa else None
    steady_round = SteadyRound(2.0, True, [[steady_mhz, 690.0], [steady_mhz * 1.005, 692.0], [steady_mhz, 689.0]],
                               1.0, steady_mhz, 690.0)
    return Result.of(ImplId.from_json(impl), PROBLEM, Status.OK, kernel=kernel, precision=precision,
                     tf32=precision == "tf32", timing=Timing.of(steady, twin),
                     regime=Regime("sustained", burst, [steady_round] * ROUNDS, burst if aa else None,
                                   [steady_round] * ROUNDS if aa else None))


def write_sustained(path: Path, records: list[Result], sustained: bool = True) -> Path:
    header = RunHeader("2026-01-01T00:00:00+00:00", "gpu", "Fake H100", {}, ["run", "--regime", "sustained"], 1,
                       [PROBLEM], 0.0, rounds=ROUNDS,
                       power={"limit_w": 700.0, "enforced_w": 700.0, "driver": "999.1"},
                       regime={"name": "sustained", "source": path.name.replace("-sustained", ""),
                               "rule": RULE.to_json(), "idle_s": 2.0} if sustained else None)
    with ResultsWriter(path) as w:
        w.write(header)
        for r in records:
            w.write(r)
        w.write(RunEnd("2026-01-01T00:10:00+00:00", 0, len(records)))
    return path


CUDA_TF32 = "rosetta.wgmma_persistent<tf32,128,256,32,4,kmajor>"


def made_up(tmp_path: Path) -> Path:
    """cuBLAS TF32 and a TF32 kernel's CUDA and Triton rows: in bursts Triton 5% slower than CUDA, sustained the
    same speed; the CUDA row's energy per launch 5% above Triton's although their times tie."""
    records = [
        sustained_record("cublas-tf32", "tf32", None, 0.372, 0.414, 1536.0, 0.285, aa=True),
        sustained_record("cuda", "tf32", CUDA_TF32, 0.370, 0.415, 1370.0, 0.300, aa=True),
        sustained_record("triton:persistent", "tf32", CUDA_TF32, 0.3885, 0.415, 1482.0, 0.2857, aa=True),
    ]
    return write_sustained(tmp_path / "gpu-20260101T000000Z-sustained.jsonl", records)


def test_a_sustained_record_reads_back_as_it_was_written(tmp_path: Path) -> None:
    path = made_up(tmp_path)
    loaded = load(path)
    assert loaded.header.regime["name"] == "sustained" and loaded.header.power["enforced_w"] == 700.0
    first = loaded.results[0]
    assert first.regime is not None and first.regime.steady_rounds == ROUNDS
    assert first.timing.samples.launches == 7 and first.timing.samples.energy.method == COUNTER
    line = json.loads(path.read_text().splitlines()[1])
    assert Result.from_json(line).to_json() == line


def test_an_energy_call_is_made_beside_the_time_call_from_the_rounds() -> None:
    a = rounds_of(0.4, 1400.0, 0.001, runs=20, batch="x", joules=0.30)
    b = rounds_of(0.4, 1500.0, 0.001, runs=20, batch="x", joules=0.27)
    v = compare(a, b, 0.03)
    assert v.time.call is Call.SAME
    assert v.energy is not None and v.energy.ratio == pytest.approx(0.30 / 0.27, rel=1e-3)
    assert v.energy.call is Call.SLOW and v.energy_differs
    back = type(v).from_json(v.to_json())
    assert back.energy is not None and back.energy.call is Call.SLOW and back.to_json() == v.to_json()


def test_no_energy_call_without_enough_resolved_rounds_and_the_verdict_writes_as_before() -> None:
    a = rounds_of(0.4, 1400.0, 0.001, runs=20, batch="x")
    v = compare(a, a, 0.03)
    assert v.energy is None and "energy" not in v.to_json()


def test_the_study_tabulates_both_regimes_and_finds_the_flip_and_the_energy_disagreement(tmp_path: Path) -> None:
    s = study(load(made_up(tmp_path)))
    assert s is not None and len(s.rows) == 3
    cuda = next(r for r in s.rows if r.key[1] == "cuda")
    assert cuda.sustained_tflops < cuda.burst_tflops and cuda.change.call is Call.SLOW
    assert cuda.energy is not None and cuda.energy.joules.value == pytest.approx(0.300, rel=0.01)
    assert cuda.energy.gflop_per_j.value == pytest.approx(PROBLEM.flops / 0.300 / 1e9, rel=0.01)
    assert cuda.steady_rounds == ROUNDS and cuda.spread is not None and cuda.spread[0] == pytest.approx(0.005, rel=0.1)
    flips = s.flips
    assert len(flips) == 1 and flips[0].burst.call is Call.SLOW and flips[0].sustained.call is Call.SAME
    assert any(c.subject_label == flips[0].subject_label and c.energy_disagrees for c in s.disagreements)
    assert len(s.aa) == 3 and all(c.sustained.call is Call.SAME and c.burst.call is Call.SAME for c in s.aa)
    assert s.card is not None and s.card.enforced_w == 700.0 and s.period_ms == 100.0


def test_a_run_of_bursts_finds_its_sustained_file_beside_it(tmp_path: Path) -> None:
    sustained = made_up(tmp_path)
    burst = tmp_path / "gpu-20260101T000000Z.jsonl"
    assert sustained_path(burst) == sustained
    write_sustained(burst, [], sustained=False)  # a header is all study_beside reads of the run itself
    found = study_beside(burst)
    assert found is not None and found.source == sustained.name


def test_a_later_run_of_the_same_device_shows_the_newest_sustained_study_and_another_devices_none(
        tmp_path: Path) -> None:
    from harness.analysis.regimes import newest_study

    sustained = made_up(tmp_path)  # the pass of gpu-20260101T000000Z.jsonl
    later = write_sustained(tmp_path / "gpu-20260102T000000Z.jsonl", [], sustained=False)
    assert study_beside(later) is None
    found = newest_study(later)
    assert found is not None and found.source == sustained.name and found.burst_source == "gpu-20260101T000000Z.jsonl"
    other = tmp_path / "other"
    other.mkdir()
    (other / sustained.name).write_bytes(sustained.read_bytes())
    text = later.read_text(encoding="utf-8").replace('"Fake H100"', '"Fake H200"')
    (other / later.name).write_text(text, encoding="utf-8")
    assert newest_study(other / later.name) is None


def test_the_page_of_a_sustained_file_shows_the_regimes_section_and_names_its_regime(tmp_path: Path) -> None:
    from harness.report.render import render

    path = made_up(tmp_path)
    _, md = render(path, tmp_path / "page")
    text = md.read_text(encoding="utf-8")
    assert "Burst and sustained regimes" in text and "J per GEMM" in text
    assert re.search(r"TF32 vs cuBLAS TF32 \([^)]*\) · sustained", text), "a tensor-core headline names its regime"
    assert (tmp_path / "page" / f"{path.stem}-regimes.png").exists()
    assert "sustained, a tie in time" in text and "more energy per launch" in text


def test_the_readme_gets_the_regimes_findings_and_docs_regimes_the_table_the_chart_and_every_comparison(
        tmp_path: Path) -> None:
    from harness.report.regimes import doc_text, readme_lines

    sustained = made_up(tmp_path)
    burst = tmp_path / "gpu-20260101T000000Z.jsonl"
    assert sustained_path(burst) == sustained
    write_sustained(burst, [], sustained=False)
    readme = "\n\n".join(readme_lines(burst))
    assert "A/A control" in readme and "docs/regimes.md" in readme and "![" not in readme
    docs = tmp_path / "docs"
    doc = doc_text(burst, docs)
    assert doc is not None and "A/A control" in doc and "J per GEMM" in doc and f"](../{burst.stem}-regimes.png)" in doc
    assert (tmp_path / f"{burst.stem}-regimes.png").exists()
    assert readme_lines(tmp_path / "none.jsonl") == [] and doc_text(tmp_path / "none.jsonl", docs) is None


# ---------------------------------------------------------------------------------------------------- the committed run
def test_the_sustained_regime_takes_each_sgemm_class_cublas_best_cuda_and_best_triton_once() -> None:
    from harness.analysis.measured import Measured
    from harness.analysis.overview import headline_rows
    from harness.analysis.record import read_beside
    from harness.run.sustained import headline_plan
    from tests.recorded import recorded_gpu_run

    path = recorded_gpu_run()
    assert path is not None
    results = load(path)
    plan = headline_plan(results)
    rows = headline_rows(Measured(results, read_beside(path)))
    want = {(row.problem, k) for row in rows if row.op == "sgemm" for k in
            [row.cublas.key, *(b.result.key for b in (row.cuda, row.triton) if b)]}
    got = {(p, (k.kernel, k.impl.to_json(), p.key)) for p, keys in plan for k in keys}
    assert got == want
    assert all(len(keys) == len(set(keys)) for _, keys in plan)  # cuBLAS fp32 heads two classes, planned once
    assert [p.op for p, _ in plan] == ["sgemm"]
    assert {k.impl.to_json() for k in plan[0][1]} >= {"cublas", "cublas-tf32", "cuda"}
    assert len(plan[0][1]) == 8  # cuBLAS fp32 and TF32, and the best CUDA and Triton of fp32, TF32 and 3xTF32


def test_a_committed_run_of_bursts_names_the_regime_of_every_headline_figure(tmp_path: Path) -> None:
    """Every class's figures depend on the regime (the sustained study shows the fp32 rows slower too): every headline
    row names the regime of its figures."""
    from harness.analysis.measured import Measured
    from harness.analysis.record import read_beside
    from harness.report.markdown import to_markdown
    from harness.report.overview import headline_table
    from tests.recorded import recorded_gpu_run

    path = recorded_gpu_run()
    assert path is not None
    text = to_markdown(headline_table(Measured(load(path), read_beside(path))))
    lines = [ln for ln in text.splitlines() if ln.startswith("| sgemm")]
    assert lines and all("· burst" in ln.split("|")[1] for ln in lines)


def test_a_run_without_nvml_says_so_in_one_line() -> None:
    from harness.analysis.energy import file_energy
    from harness.measure.energy import NONE
    from harness.report.regimes import energy_line

    s = Samples([1.0] * 4, [1980.0] * 4, [1] * 4, [0] * 4, "b", 1980.0,
                Energy(NONE, [None] * 4, [None] * 4, [None] * 4, None, "pynvml (nvidia-ml-py) is not installed"))
    r = Result.of(ImplId("cublas"), PROBLEM, Status.OK, timing=Timing.of(s))
    line = energy_line(file_energy([r]))
    assert "\n" not in line and "not measured" in line and "pynvml" in line
    assert "before energy was read" in energy_line(file_energy([Result.of(
        ImplId("cublas"), PROBLEM, Status.OK, timing=Timing.of(Samples([1.0], [None], [1], [0], "b")))]))


def test_regime_sustained_with_a_shard_is_refused_before_anything_runs(tmp_path: Path, monkeypatch, capsys) -> None:
    from harness import cli, env

    monkeypatch.setattr(env, "has_gpu", lambda: True)
    assert cli.main(["run", "--only", "s002", "--out", str(tmp_path), "--regime", "sustained", "--shard", "0/2"]) == 2
    assert "--shard" in capsys.readouterr().err and not list(tmp_path.iterdir())


def test_a_sustained_session_plans_what_it_is_given_and_its_header_names_the_regime_and_its_source(monkeypatch) -> None:
    from harness import env
    from harness.run.messages import NO_DEVICE_FACTS
    from harness.run.sustained import MEASURE, SustainedSession
    from harness.run.worker import WorkerSpec

    monkeypatch.setattr(env, "has_gpu", lambda: False)  # the header of a machine without NVML or a GPU
    plan = [(PROBLEM, [])]
    session = SustainedSession([], [PROBLEM], Path("x-sustained.jsonl"), ["run"], measure=MEASURE, given=plan,
                               source="x.jsonl")
    assert session.plan() is plan
    worker = type("W", (), {"device": "Fake H100", "peaks": None, "facts": NO_DEVICE_FACTS, "spec": WorkerSpec()})()
    header = session.header(plan, [worker])
    assert header.regime["name"] == "sustained" and header.regime["source"] == "x.jsonl"
    assert Rule.from_json(header.regime["rule"]) == RULE and header.regime["flush_l2"] is False
    assert RunHeader.from_json(header.to_json()).regime == header.regime


def test_a_run_of_bursts_whose_counter_resolved_them_shows_energy_per_launch_and_its_call(tmp_path: Path) -> None:
    from harness.analysis.measured import Measured
    from harness.report.markdown import to_markdown
    from harness.report.regimes import burst_energy_table, regimes_section

    def burst(impl: str, kernel: str | None, joules: float) -> Result:
        s = rounds_of(0.415, 1500.0, 0.001, runs=20, batch="s", joules=joules)
        return Result.of(ImplId.from_json(impl), PROBLEM, Status.OK, kernel=kernel, precision="tf32", tf32=True,
                         timing=Timing.of(s))

    path = write_sustained(tmp_path / "gpu-20260101T000000Z.jsonl",
                           [burst("cublas-tf32", None, 0.285), burst("cuda", CUDA_TF32, 0.300)], sustained=False)
    m = Measured(load(path))
    text = to_markdown(burst_energy_table(m))
    assert "0.285 [" in text and "0.300 [" in text and "more energy" in text and "SAME" in text
    section = regimes_section(m, [])
    assert section is not None and "2 of 2 timed records resolved" in section.blocks[0].parts[0]


def test_the_committed_four_round_sustained_files_intervals_are_said_as_ranges_and_make_no_call() -> None:
    """Four rounds cover a median with 87.5% at most: cuBLAS fp32's 691 W [688-697] was the min and max of its four
    rounds, labelled a 95% interval. It is said as the range it is, and no call rests on four rounds."""
    from harness.analysis.regimes import study
    from harness.records.file import load
    from harness.report.regimes import interval_text, speed_text
    from tests.recorded import REPO

    s = study(load(REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T230158Z-sustained.jsonl"))
    assert s is not None and s.rows
    for row in s.rows:
        assert row.energy is not None and row.energy.watts is not None
        watts = row.energy.watts
        assert watts.rounds == 4 and watts.coverage == 0.875 and not watts.at_level
        assert interval_text(watts, ".0f") == f"{watts.value:.0f} (range {watts.lo:.0f}–{watts.hi:.0f} of 4 rounds)"
        assert "range of too few rounds, 87.5% coverage" in speed_text(row.change)
    assert all(v.call.value == "AMBIGUOUS" for c in s.calls for v in (c.burst, c.sustained) if v is not None)
