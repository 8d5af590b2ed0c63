"""Findings and causes are data in the analysis record: they round-trip through its JSON, a cause says which side's
value is the better one and only the faster side's is ever said as a "because", and the page says what its record
holds, the same as it said before findings were recorded.

The synthetic pair below is a SYNTHETIC FIXTURE: two records written by hand (made-up timings and counters).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from harness.analysis.build import build
from harness.analysis.causes import causes, stated
from harness.analysis.findings import Found, findings, recorded
from harness.analysis.measured import Measured
from harness.analysis.model_findings import Gaps
from harness.analysis.record import VERSION, Analysis, Cause, analysis_path, read_beside
from harness.analysis.run_findings import Unroll
from harness.analysis.verdicts import Call
from harness.device.roofline import Peaks
from harness.measure.timing import Samples, Timing
from harness.problems import Problem
from harness.records.file import Results, load
from harness.records.lines import Resources, Result, RunHeader, Status
from harness.report import wording
from harness.report.cause_words import phrase, said
from harness.report.doc import Bullets, plain
from harness.report.findings import words
from harness.report.render import findings_section
from tests.recorded import REPO

RUN = REPO / "results" / "nvidia-h100-80gb-hbm3-20261125T102726Z.jsonl"
PROBLEM = Problem("sgemm", 4096, 4096, 4096)


@pytest.fixture(scope="module")
def run() -> Results:
    if not RUN.exists():
        pytest.skip(f"{RUN.name} is not in results/")
    return load(RUN)


def _section_text(m: Measured) -> list[str]:
    """The findings as the page lists them."""
    bullets = next(b for b in findings_section(m).blocks if isinstance(b, Bullets))
    return [plain(item) for item in bullets.items]


def _said(m: Measured, found: list) -> list[tuple[str, str]]:
    """Each finding's rule and sentence: what a record rounded to its JSON digits still says exactly."""
    return [(f.kind, plain(words(f, m))) for f in recorded_as(m, found) if f.NUMBERED]


def recorded_as(m: Measured, found: list) -> list[Found]:
    return [f if isinstance(f, Found) else Found.from_json(f) for f in found]


def _without_findings(an: Analysis) -> Analysis:
    data = an.to_json()
    del data["findings"]               # as written before findings were recorded
    return Analysis.from_json(data)


def test_the_findings_and_their_causes_round_trip_through_the_record(run: Results) -> None:
    an = build(run, prove_mapping=False)
    assert an.findings
    # a cause with the control pair that held it (harness/analysis/causes.py), as the findings record them
    held = Cause("smem_bank_conflicts", "counter", 92.0, 2.2e8, "faster", 0.4,
                 {"control": [["k", "triton:dot"], ["k", "cuda"]]})
    i, gaps = next((i, f) for i, f in enumerate(an.findings) if isinstance(f, Gaps) and f.gaps)
    an.findings[i] = dataclasses.replace(gaps, gaps=(dataclasses.replace(gaps.gaps[0], causes=(held,)),
                                                     *gaps.gaps[1:]))
    back = Analysis.from_json(json.loads(json.dumps(an.to_json())))
    assert back.findings is not None and len(back.findings) == len(an.findings)
    # written again, it is the same record
    typed = [Found.from_json(f) for f in back.findings]
    assert [f.to_json() for f in typed] == an.to_json()["findings"]
    assert [type(f) for f in typed] == [type(f) for f in an.findings]
    assert [c.favours for f in typed for c in f.causes] == [c.favours for f in an.findings for c in f.causes]


def test_the_committed_record_holds_the_findings_its_results_give(run: Results) -> None:
    """A committed record of today's verdict method holds the findings its results give; one of an older method is
    made again where it is read (its findings too), keeping the proof of its mapping."""
    from harness.analysis.verdicts import METHOD

    an = read_beside(RUN)
    assert an is not None
    m = Measured(run, an)
    if (an.method, an.version) == (METHOD, VERSION) and an.findings is not None:
        assert _said(m, an.findings) == _said(m, findings(m))
    else:
        committed = json.loads(analysis_path(RUN).read_text(encoding="utf-8"))
        assert (committed.get("method"), committed.get("version")) != (METHOD, VERSION) and an.findings is None
        assert (an.mapping is None) is (committed.get("mapping") is None)
        assert _said(m, recorded(m)) == _said(m, findings(m))


def test_a_record_from_before_findings_were_recorded_loads_and_has_them_made_from_the_results(run: Results) -> None:
    old = _without_findings(build(run, prove_mapping=False))
    assert old.findings is None
    assert recorded(Measured(run, old)) == findings(Measured(run, old))


def test_a_record_from_before_findings_were_recorded_renders_the_same_text(run: Results) -> None:
    an = build(run, prove_mapping=False)
    assert _section_text(Measured(run, _without_findings(an))) == _section_text(Measured(run, an))


def test_a_page_renders_the_findings_its_record_holds(run: Results) -> None:
    an = build(run, prove_mapping=False)
    assert an.findings is not None
    rank = next(f for f in an.findings if f.kind == "rank")
    # a record that says otherwise than the results would: the page says what the record holds
    an.findings = [dataclasses.replace(rank, pairs=999)]
    text = _section_text(Measured(run, an))
    assert len(text) == 1 and " 999 pairs" in text[0]


def test_a_finding_of_an_unknown_cause_kind_is_refused() -> None:
    data = Unroll(stated=(Cause("spills", "compiled", 0, 512, "faster", 0.1),)).to_json()
    data["stated"][0]["kind"] = "hunch"
    with pytest.raises(ValueError):
        Found.from_json(data)


def test_a_finding_of_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError):
        Found.from_json({"kind": "hunch"})


# ------------------------------------------------------------------------------------------- a synthetic pair
def _record(model: str, ms: float, profile: dict, kernel: str = "rosetta.sgemm_warptile<128,128,8,32,64,8,8>"
            ) -> Result:
    res = Resources(registers=128, spills=0, shared_bytes=16384, sass={"FFMA": 1024, "total": 2000},
                    config={"block_m": 128, "block_n": 128, "block_k": 16, "num_warps": 8} if model == "triton"
                    else None, profile={"duration_ns": ms * 1e6, "fma_pipe_pct": 70.0, **profile})
    # ten rounds of one run in one batch: two rows of one time are called SAME (a control pair)
    samples = Samples([ms * (1 + 0.001 * (i % 3 - 1)) for i in range(10)], [1980.0] * 10, [1] * 10,
                      list(range(10)), "synthetic", 1980.0)
    return Result("cuda" if model == "cuda" else "triton:dot", model, PROBLEM, Status.OK, kernel=kernel,
                  precision="fp32", timing=Timing.of(samples), resources=res)


def _control() -> list[Result]:
    """Two rows of another kernel that run alike, their counters alike: the control pair of the pair's causes."""
    kernel = "rosetta.sgemm_cp_async<128,128,8,32,64,8,8,4>"
    return [_record(model, 2.5, {"smem_bank_conflicts": 1e5, "dram_bytes": 4e8}, kernel) for model in ("cuda",
                                                                                                       "triton")]


def _measured(*records: Result) -> Measured:
    header = RunHeader("synthetic", "gpu", "synthetic", {}, [], 0, [PROBLEM], 100.0, sms=132,
                       peaks=Peaks(60.0, 3000.0, "synthetic"))
    return Measured(Results(Path("synthetic.jsonl"), header, list(records), None))


def test_a_cause_that_favours_the_slower_side_is_recorded_as_such_and_never_said_as_a_because() -> None:
    # the faster kernel has far more bank conflicts (against it) and far less DRAM traffic (for it)
    fast = _record("cuda", 2.0, {"smem_bank_conflicts": 3e8, "dram_bytes": 2e8})
    slow = _record("triton", 3.0, {"smem_bank_conflicts": 1e3, "dram_bytes": 9e8})
    m = _measured(fast, slow, *_control())
    found = {c.quantity: c for c in causes(m, fast, slow)}
    conflicts, dram = found["smem_bank_conflicts"], found["dram_bytes"]
    assert (conflicts.faster, conflicts.slower, conflicts.favours) == (3e8, 1e3, "slower")
    assert (dram.faster, dram.slower, dram.favours) == (2e8, 9e8, "faster")
    assert conflicts not in stated(m, fast, slow)
    assert [(c.quantity, c.faster, c.slower) for c in stated(m, fast, slow)] == [("dram_bytes", 2e8, 9e8)]
    dram = stated(m, fast, slow)[0]       # as stated: with the control pair that held it
    names = ("CUDA", "Triton dot")
    text = said(stated(m, fast, slow), names) or ""
    assert phrase(dram, names) in text
    assert phrase(conflicts, names) not in text and "bank conflicts" not in text
    assert Cause.from_json(json.loads(json.dumps(conflicts.to_json()))).to_json() == conflicts.to_json()


def test_the_record_written_beside_a_file_holds_its_findings(tmp_path: Path, run: Results) -> None:
    from harness.analysis.build import write_beside

    path = tmp_path / RUN.name
    path.write_bytes(RUN.read_bytes())
    write_beside(path, load(path), prove_mapping=False)
    an = Analysis.from_json(json.loads(analysis_path(path).read_text()))
    assert an.findings is not None
    m = Measured(load(path), an)
    assert _said(m, an.findings) == _said(m, findings(m))


def test_a_finding_that_says_one_is_faster_rests_on_the_rounds_call_and_its_interval(run: Results) -> None:
    m = Measured(run)
    for f in (f for f in findings(m) if f.kind in ("unroll", "precision")):
        speed = f.speed
        assert speed is not None and speed.verdict is not None and speed.call is Call.FAST, f.kind
        assert wording.speed(speed) in plain(words(f, m)), f.kind


def test_a_finding_on_a_file_of_single_bursts_gives_the_ratio_and_no_call() -> None:
    single = load(REPO / "results" / "nvidia-h100-80gb-hbm3-20261124T180850Z.jsonl")
    m = Measured(single)
    said = {f.kind: plain(words(f, m)) for f in findings(m) if f.kind in ("unroll", "precision")}
    assert "no verdict" in said["precision"] and " is faster than " not in said["precision"]
    # the seed's own words stay; what the suite says of its measurement is a ratio, not "faster"
    ours = said["unroll"].split("; here", 1)[1]
    assert ours.startswith(" the ratio is") and "faster" not in ours
