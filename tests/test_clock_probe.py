"""The SM clock probe's error: readings above the GPU's maximum are corrected to it and counted as error, a cycles call
is made only where that error is below the call's margin, and `rosetta clock` shows where the committed runs read
above the maximum (by window length and by what ran) or measures the probe on a GPU (harness/run/clock_error.py).

The samples below are SYNTHETIC FIXTURES (made-up times and clock readings); the committed-run tests read
results/*.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.analysis import clock
from harness.analysis.record import analyse
from harness.analysis.verdicts import MARGIN_SIMT, MARGIN_TENSOR_CORES, compare
from harness.cli import main
from harness.measure.timing import Samples, Timing
from harness.problems import Problem
from harness.records.file import load
from harness.records.lines import Result, Status
from harness.run.clock_error import Window, series_of, window_of
from tests.recorded import H100_RUN, REPO

MAX = 1980.0
RUN = REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T102241Z.jsonl"
SPLITS = REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T102636Z-splits.jsonl"


def samples(ms: float, mhz: list[float], *, batch: str = "b", per: int = 1) -> Samples:
    """One run per round (as a 4096^3 sgemm burst is), the given clock readings in order."""
    rounds = len(mhz) // per
    return Samples([ms * (1 + 0.0005 * (i % 3)) for i in range(len(mhz))], list(mhz), [per] * rounds,
                   list(range(rounds)), batch, MAX)


def test_a_reading_above_the_gpus_maximum_is_brought_down_to_it_for_cycles() -> None:
    s = samples(2.0, [2040.0, 1980.0, 1700.0, 1995.0])
    assert s.clock == [MAX, MAX, 1700.0, MAX]
    assert s.over_max == [0, 3]
    assert s.cycles[0] == pytest.approx(s.ms[0] * MAX * 1e-3)
    assert s.mean_mhz == pytest.approx((3 * MAX + 1700.0) / 4)
    assert Samples.from_json(s.to_json()).mhz == s.mhz          # the record keeps the readings as read


def test_the_clock_error_is_the_largest_excess_of_a_rounds_median_reading() -> None:
    assert samples(2.0, [1980.0, 1900.0, 1700.0]).clock_error == 0.0
    assert samples(2.0, [1990.0, 2040.0, 1980.0]).clock_error == pytest.approx(2040 / MAX - 1)
    # a burst of several runs: its median reading is what a call rests on, one outlying run is not
    many = samples(0.03, [1992.0, 2040.0, 1992.0, 1980.0, 1980.0, 1980.0], per=3)
    assert many.clock_error == pytest.approx(1992 / MAX - 1)
    no_max = Samples([1.0], [2040.0], [1], [0], "b", None)
    assert no_max.clock_error is None


def test_no_cycles_call_without_a_measured_probe_error_not_even_where_no_reading_is_above_the_maximum() -> None:
    """Readings at or under the maximum prove an excess of 0, which says nothing of the probe's error (the tensor-core
    windows' 0.00% by construction): without a measurement there is no cycles call."""
    steady = [1980.0] * 10
    v = compare(samples(1.0, steady), samples(1.1, steady), MARGIN_SIMT)
    assert v.cycles is None and v.cycles_gated and v.clock_error is None and v.clock_excess == 0.0
    cool = [1700.0] * 10
    v = compare(samples(1.0, cool), samples(1.1, cool), MARGIN_TENSOR_CORES)
    assert v.cycles is None and v.clock_excess == 0.0


def test_a_cycles_call_rests_on_the_probes_measured_error_below_the_margin() -> None:
    steady = [1980.0] * 10
    a, b = samples(1.0, steady), samples(1.1, steady)
    measured = {0.1: 0.012, 1.0: 0.004}
    a.probe_error = b.probe_error = measured
    v = compare(a, b, MARGIN_SIMT, a.probe_error)
    assert v.cycles is not None and v.clock_error == pytest.approx(0.004) and not v.cycles_gated
    # the error measured at the longest window not longer than the rows' own
    assert compare(samples(0.5, steady), samples(0.55, steady), MARGIN_SIMT, measured).clock_error == 0.012
    # windows shorter than any measured: unmeasured there
    short = compare(samples(0.05, steady), samples(0.055, steady), MARGIN_SIMT, measured)
    assert short.cycles is None and short.clock_error is None
    # one round of the reference read 2040 MHz: the samples prove an error of 3.0%, over the SIMT margin of 2%
    b_off = samples(1.1, [2040.0, *steady[1:]])
    v = compare(a, b_off, MARGIN_SIMT, measured)
    assert v.cycles is None and v.cycles_gated and v.clock_error == pytest.approx(2040 / MAX - 1)
    assert v.clock_excess == pytest.approx(2040 / MAX - 1)
    assert v.time.call is compare(a, b, MARGIN_SIMT, measured).time.call   # the time call stands
    # measured error over the margin: no call either
    assert compare(a, b, MARGIN_SIMT, {1.0: 0.025}).cycles is None
    back = type(v).from_json(json.loads(json.dumps(v.to_json())))
    assert back.clock_excess == pytest.approx(v.clock_excess, rel=1e-5) == back.clock_error


def test_a_files_measured_probe_error_reaches_every_records_samples(tmp_path: Path) -> None:
    text = RUN.read_text(encoding="utf-8").splitlines()
    header = json.loads(text[0])
    header["peaks"]["probe_error"] = {"0.01": 0.03, "1": 0.004}
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join([json.dumps(header), *text[1:]]) + "\n", encoding="utf-8")
    loaded = load(path)
    assert loaded.header.probe_error == {0.01: 0.03, 1.0: 0.004}
    assert all(s.probe_error == {0.01: 0.03, 1.0: 0.004} for r in loaded.results for s in r.samples())
    assert "probe_error" not in json.dumps(loaded.results[0].timing.to_json())   # the header holds it, once
    assert load(RUN).header.probe_error is None


def test_a_verdict_says_which_side_ran_at_the_higher_clock() -> None:
    hot, cool = samples(1.0, [1696.0] * 10), samples(1.0, [1651.0] * 10)
    v = compare(hot, cool, MARGIN_TENSOR_CORES)
    assert v.clock_ratio == pytest.approx(1696 / 1651)
    assert compare(cool, hot, MARGIN_TENSOR_CORES).clock_ratio == pytest.approx(1651 / 1696)
    back = type(v).from_json(json.loads(json.dumps(v.to_json())))
    assert back.clock_ratio == pytest.approx(v.clock_ratio, rel=1e-5) and back.clock_error == v.clock_error


def test_the_committed_runs_make_no_cycles_call_their_probe_error_being_unmeasured() -> None:
    """The committed runs read up to 3.0% (2040 MHz) and 3.8% (2055 MHz) above the H100's 1980, and none measured the
    probe's error: every comparison keeps the excess its samples prove (a lower bound) and makes no cycles call."""
    for path in (RUN, SPLITS, H100_RUN):
        results = load(path)
        assert results.header.probe_error is None
        an = analyse(results.results, path.name)
        # every comparison but those with B's pack time added (no clock was read while it ran) knows its excess
        assert all(c.verdict.clock_excess is None for c in an.comparisons if c.pack_ms and c.verdict)
        verdicts = [c.verdict for c in an.comparisons if c.verdict is not None and not c.pack_ms]
        assert verdicts and all(v.clock_excess is not None and v.cycles is None for v in verdicts)
        assert all(v.clock_error is None and v.cycles_gated for v in verdicts)
        assert max(v.clock_excess for v in verdicts) > 0.02


def _record(impl: str, ms: float, mhz: list[float], precision: str = "fp32", op: str = "sgemm") -> Result:
    p = Problem(op, 4096, 4096, 4096) if op == "sgemm" else Problem(op, 4096, 4096)
    r = Result(impl, impl.split(":")[0], p, Status.OK, kernel=None if impl.startswith("cublas") else "k",
               precision=precision)
    r.timing = Timing.of(samples(ms, mhz))
    return r


def test_the_excess_is_grouped_by_window_length_and_by_what_ran() -> None:
    recs = [_record("cuda", 0.03, [1992.0, 1995.0]), _record("triton:dot", 4.0, [2040.0, 1980.0]),
            _record("cublas-tf32", 1.5, [1700.0, 1690.0], "tf32"), _record("cuda", 0.03, [1980.0, 1985.0], op="sgemv")]
    rows = {e.group: e for e in clock.by_window(recs)}
    assert list(rows) == ["0-0.05 ms", "1-3 ms", "3-10 ms"]
    assert (rows["0-0.05 ms"].runs, rows["0-0.05 ms"].over) == (4, 3)
    assert rows["3-10 ms"].worst == pytest.approx(2040 / MAX - 1) and rows["1-3 ms"].worst == 0.0
    by = {e.group: e for e in clock.by_implementation(recs)}
    assert set(by) == {"CUDA, sgemm SIMT", "Triton, sgemm SIMT", "cuBLAS, sgemm tensor cores", "CUDA, sgemv"}
    assert by["cuBLAS, sgemm tensor cores"].share_over == 0.0 and by["Triton, sgemm SIMT"].share_over == 0.5
    every = clock.overall(recs)
    assert every is not None and every.runs == 8 and every.max_mhz == 2040.0


def test_rosetta_clock_shows_a_committed_runs_excess_without_a_gpu(capsys) -> None:
    assert main(["clock", str(RUN)]) == 0
    out = capsys.readouterr().out
    worst = max(m for r in load(RUN).results if r.timing and r.timing.samples for m in r.timing.samples.mhz if m)
    assert "by window length" in out and "by what ran in the window" in out
    assert f"{worst:.0f}" in out and "CUDA, sgemm SIMT" in out


def test_rosetta_clock_asks_for_files_or_a_gpu(capsys, monkeypatch) -> None:
    assert main(["clock"]) == 2
    from harness import env

    monkeypatch.setattr(env, "has_gpu", lambda: False)
    assert main(["clock", "--measure"]) == 2
    assert "needs a GPU" in capsys.readouterr().err


def test_a_window_is_read_per_sm_with_the_timers_span() -> None:
    before = [[1000, 0, 1], [5000, 0, 2], [0, 0, 0]]
    after = [[1000 + 1980, 1000, 1], [5000 + 2040, 1000, 2], [9, 9, 3]]   # the third SM ran no program before
    w = window_of(before, after, event_ms=0.001)
    assert (w.mhz, w.sm_low, w.sm_high, w.timer_ms) == (pytest.approx(2010.0), 1980.0, 2040.0, pytest.approx(0.001))
    assert window_of([[0, 0, 0]], [[1, 1, 1]], 1.0).mhz is None


def test_a_series_holds_the_probe_against_nvmls_clock() -> None:
    windows = [Window(1.0, m, m - 5, m + 5, 1.0) for m in (1995.0, 1995.0, 1995.0, 2010.0)]
    s = series_of("busy", 1.0, windows, MAX, nvml=[1980.0, 1980.0, 1965.0])
    assert s.over_max == 4 and s.nvml_mhz == 1980.0 and s.nvml_readings == 3
    assert s.bias == pytest.approx(1995 / 1980 - 1) and s.p95 > s.bias
    assert s.timer_over_events == pytest.approx(1.0)
    bare = series_of("idle", 1.0, windows, MAX, nvml=[])
    assert bare.nvml_mhz is None and bare.bias is None


@pytest.mark.gpu
def test_on_the_gpu_the_probe_reads_a_steady_clock_within_the_simt_margin_of_nvmls(tmp_path: Path) -> None:
    """The measurement runs end to end on the device (few windows), and in a steady state of light work the probe's
    reading is within the SIMT margin of NVML's clock: a cycles call made under that margin rests on it."""
    import torch

    from harness.run import clock_error as sm_clock_error

    m = sm_clock_error.measure(torch.device("cuda", 0), repeats=4, say=lambda line: None)
    assert m.timer_step_ns is not None and m.timer_step_ns > 0
    assert {s.kind for s in m.series} == {"busy", "idle", "sgemm"}
    busy = [s for s in m.series if s.kind == "busy" and s.target_ms >= 1.0]
    assert all(s.timer_over_events == pytest.approx(1.0, abs=0.01) for s in busy)
    path = sm_clock_error.write(m, tmp_path)
    assert json.loads(path.read_text())["steady"]["windows"] == int(sm_clock_error.STEADY_MS)
    if m.steady is None or m.steady.bias is None:
        pytest.skip("NVML's clock could not be read here")
    assert abs(m.steady.bias) < MARGIN_SIMT, m.steady
