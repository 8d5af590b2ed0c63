"""A stated reason is a measured difference that points the way the speed does, and discriminates.

The synthetic pairs below are SYNTHETIC FIXTURES: records written by hand (made-up timings, samples, compiled facts
and counters, not measured) in which the faster side has the worse value of one quantity (adversarial: it must never
be cited) or the better one (positive: it must be). Each pair comes with a control pair (two rows of another kernel
that the rounds call SAME, their quantities alike), which holds a positive pair's cause; the control tests make the
control pair differ the way the pair does. The last tests read the committed H100 runs.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from harness.analysis.causes import COUNTER_TOLERANCE, against, controls, counters, stated, tied
from harness.analysis.causes import causes as reasons
from harness.analysis.measured import Measured
from harness.analysis.record import Cause
from harness.analysis.verdicts import Call
from harness.device.roofline import Peaks
from harness.measure.timing import Samples, Timing
from harness.problems import Problem
from harness.records.file import Results, load
from harness.records.lines import Resources, Result, RunHeader, Status
from harness.report.cause_words import phrase, said
from harness.report.doc import plain
from tests.recorded import REPO, with_rounds

PROBLEM = Problem("sgemm", 4096, 4096, 4096)
KERNEL = "rosetta.sgemm_warptile<128,128,8,32,64,8,8>"      # 256 threads; its Triton form runs 8 warps
CONTROL = "rosetta.sgemm_cp_async<128,128,8,32,64,8,8,4>"  # the control pair's kernel: CUDA and Triton run alike
SASS = {"FFMA": 1024, "LDG.32": 32, "LDS.128": 64, "HMMA": 0, "HGMMA": 0, "LDL": 0, "STL": 0, "total": 2000}


def _counters(ms: float, **over: float) -> dict[str, float]:
    """Counters of a kernel that is neither latency-bound nor different from its partner unless `over` says so."""
    base = {"duration_ns": ms * 1e6, "fma_pipe_pct": 70.0, "tensor_pipe_pct": 0.0, "smem_bank_conflicts": 1e5,
            "dram_bytes": 4e8, "model_bytes": 2.01e8, "achieved_occupancy_pct": 25.0}
    return {**base, **over}


def _record(model: str, ms: float, *, regs: int = 128, spills: int = 0, sass: dict | None = None,
            profile: dict | None = None, precision: str = "fp32", kernel: str = KERNEL) -> Result:
    res = Resources(registers=regs, spills=spills, shared_bytes=16384, sass={**SASS, **(sass or {})},
                    config={"block_m": 128, "block_n": 128, "block_k": 16, "num_warps": 8} if model == "triton"
                    else None, profile=profile)
    # one batch of 10 rounds of one run each: rows of equal time are called SAME, a 1.5x gap FAST or SLOW
    samples = Samples([ms * (1 + 0.001 * (i % 3 - 1)) for i in range(10)], [1980.0] * 10, [1] * 10,
                      list(range(10)), "synthetic", 1980.0)
    return Result("cuda" if model == "cuda" else "triton:dot", model, PROBLEM, Status.OK, kernel=kernel,
                  precision=precision, timing=Timing.of(samples), resources=res)


def _control(precision: str = "fp32", fast: dict | None = None, slow: dict | None = None) -> list[Result]:
    """Two rows of another kernel at the same time: the rounds call them SAME; their quantities are the base ones
    unless `fast` / `slow` make them differ (the first row taking the pair's faster side's values)."""
    return [_record("cuda", 2.5, precision=precision, kernel=CONTROL, **(fast or {})),
            _record("triton", 2.5, precision=precision, kernel=CONTROL, **(slow or {}))]


def _measured(*records: Result) -> Measured:
    header = RunHeader("synthetic", "gpu", "synthetic", {}, [], 0, [PROBLEM], 100.0, sms=132,
                       peaks=Peaks(60.0, 3000.0, "synthetic"))
    return Measured(Results(None, header, list(records), None))  # type: ignore[arg-type]


def _profiled(kw: dict, ms: float) -> dict:
    """A control row's settings: counters of its own time where the pair's row has counters at all."""
    return {"profile": _counters(ms)} if "profile" in kw else {}


def _pair(fast: dict, slow: dict, control: tuple[dict, dict] | None = None) -> tuple[Measured, Result, Result]:
    """The faster side is the CUDA kernel at 2 ms, the slower its Triton form at 3 ms (a 1.5x gap), beside a control
    pair in the same class (`control`: its two rows' settings; by default alike, with counters where the pair has)."""
    f, s = _record("cuda", 2.0, **fast), _record("triton", 3.0, **slow)
    precision = fast.get("precision", "fp32")
    cf, cs = control or (_profiled(fast, 2.5), _profiled(slow, 2.5))
    return _measured(f, s, *_control(precision, cf, cs)), f, s


def pair_names(fast: Result, slow: Result) -> tuple[str, str]:
    """The two sides as a sentence names them: the model, or the kernel where both are of one model."""
    a, b = ("CUDA" if r.impl_id.is_cuda else r.label for r in (fast, slow))
    return (fast.kernel or a, slow.kernel or b) if a == b else (a, b)


def because(m: Measured, fast: Result, slow: Result) -> str | None:
    """The stated causes of a pair as the page says them."""
    return said(stated(m, fast, slow), pair_names(fast, slow))


def despite(m: Measured, fast: Result, slow: Result) -> str | None:
    c = against(m, fast, slow)
    return phrase(c, pair_names(fast, slow)) if c is not None else None


def _phrase(c: Cause, fast: Result, slow: Result) -> str:
    return phrase(c, pair_names(fast, slow))


def _cited(m: Measured, fast: Result, slow: Result) -> list[Cause]:
    text = because(m, fast, slow) or ""
    return [r for r in reasons(m, fast, slow) if _phrase(r, fast, slow) in text]


# ------------------------------------------------------------------------------------------- adversarial pairs
ADVERSARIAL = {
    # the faster side has the lower theoretical occupancy (255 registers against 64)
    "lower theoretical occupancy": ({"regs": 255}, {"regs": 64}, "theoretical_occupancy"),
    # ... and the lower achieved occupancy, with the slower side latency-bound
    "lower achieved occupancy": ({"profile": _counters(2.0, achieved_occupancy_pct=12.0)},
                                 {"profile": _counters(3.0, achieved_occupancy_pct=25.0, fma_pipe_pct=30.0)},
                                 "achieved_occupancy_pct"),
    # more static global loads (the beta != 0 read of C that never runs is in them)
    "more static loads": ({"sass": {"LDG.32": 160}}, {"sass": {"LDG.32": 32}}, None),
    # more spills: 512 B with a tenth of its SASS local-memory traffic
    "more spills": ({"spills": 512, "sass": {"LDL": 100, "STL": 100}}, {}, "spills"),
    # more registers and nothing else
    "more registers": ({"regs": 200}, {"regs": 96}, None),
    # more bank conflicts, more DRAM bytes, a less busy FMA pipe: all counted against it
    "worse counters": ({"profile": _counters(2.0, smem_bank_conflicts=3e8, dram_bytes=9e8, fma_pipe_pct=40.0)},
                       {"profile": _counters(3.0, fma_pipe_pct=60.0)}, "smem_bank_conflicts"),
}


@pytest.mark.parametrize("case", list(ADVERSARIAL))
def test_a_quantity_that_favours_the_slower_side_is_never_cited(case: str) -> None:
    fast_kw, slow_kw, quantity = ADVERSARIAL[case]
    m, fast, slow = _pair(fast_kw, slow_kw)
    cited = _cited(m, fast, slow)
    assert all(r.points_with_speed for r in cited), [_phrase(r, fast, slow) for r in cited]
    if quantity is not None:
        found = [r for r in reasons(m, fast, slow) if r.quantity == quantity]
        assert found and not any(r.points_with_speed for r in found), found
        assert quantity not in {r.quantity for r in cited}
    text = because(m, fast, slow) or ""
    assert "global load instructions" not in text and "registers against" not in text


def test_higher_occupancy_is_no_cause_without_counters_saying_the_slower_kernel_waits_on_latency() -> None:
    m, fast, slow = _pair({"regs": 64}, {"regs": 255})             # fast: higher occupancy, no counters
    assert because(m, fast, slow) is None
    busy = _counters(3.0, fma_pipe_pct=85.0, achieved_occupancy_pct=12.0)   # the slower one's pipe is busy
    m, fast, slow = _pair({"regs": 64, "profile": _counters(2.0, achieved_occupancy_pct=25.0)},
                          {"regs": 255, "profile": busy})
    assert not any("occupancy" in r.quantity for r in _cited(m, fast, slow))


def test_tiny_spills_never_explain_a_large_gap() -> None:
    m, fast, slow = _pair({}, {"spills": 2, "sass": {"LDL": 1, "STL": 1}})
    spill = next(r for r in reasons(m, fast, slow) if r.quantity == "spills")
    assert spill.points_with_speed and not spill.cause
    assert because(m, fast, slow) is None


def test_counters_of_another_configuration_are_refused() -> None:
    # The slower side's counters show huge bank conflicts, but ncu's kernel time is 60% off the timed one.
    m, fast, slow = _pair({"profile": _counters(2.0)}, {"profile": _counters(4.8, smem_bank_conflicts=3e8)})
    assert tied(slow) is False and counters(slow) is None
    assert because(m, fast, slow) is None
    ok = _counters(3.0 * (1 + COUNTER_TOLERANCE / 2), smem_bank_conflicts=3e8)
    m, fast, slow = _pair({"profile": _counters(2.0)}, {"profile": ok})
    assert tied(slow) is True and "bank conflicts" in (because(m, fast, slow) or "")


def test_a_profile_that_could_not_pin_the_timed_configuration_is_refused() -> None:
    m, fast, slow = _pair({"profile": _counters(2.0)},
                          {"profile": _counters(3.0, smem_bank_conflicts=3e8, config_pinned=0.0)})
    assert tied(slow) is False and because(m, fast, slow) is None


# ------------------------------------------------------------------------------------------- positive pairs
def test_wgmma_against_mma_sync_is_cited() -> None:
    m, fast, slow = _pair({"sass": {"HGMMA": 4}, "precision": "tf32"}, {"sass": {"HMMA": 256}, "precision": "tf32"})
    text = because(m, fast, slow) or ""
    assert "wgmma" in text and "4 HGMMA" in text and "256 HMMA" in text
    m, fast, slow = _pair({"sass": {"HMMA": 256}}, {"sass": {"HGMMA": 4}})  # reversed: context, not cause
    assert because(m, fast, slow) is None and "wgmma" in (despite(m, fast, slow) or "")


def test_fewer_bank_conflicts_are_cited_with_both_counts() -> None:
    m, fast, slow = _pair({"profile": _counters(2.0, smem_bank_conflicts=92.0)},
                          {"profile": _counters(3.0, smem_bank_conflicts=2.2e8)})
    text = because(m, fast, slow) or ""
    assert "2.2e8 shared-memory bank conflicts against 92" in text


def test_a_busier_fma_pipe_is_cited() -> None:
    m, fast, slow = _pair({"profile": _counters(2.0, fma_pipe_pct=82.0)},
                          {"profile": _counters(3.0, fma_pipe_pct=62.0)})
    assert "FMA pipe is busy 82%" in (because(m, fast, slow) or "")


def test_heavy_spills_on_the_slower_side_are_cited() -> None:
    m, fast, slow = _pair({}, {"spills": 1104, "sass": {"LDL": 300, "STL": 300}})
    assert "spills 1104 B" in (because(m, fast, slow) or "")


def test_higher_occupancy_is_cited_where_the_slower_kernel_waits_on_latency() -> None:
    m, fast, slow = _pair({"profile": _counters(2.0, achieved_occupancy_pct=24.0)},
                          {"profile": _counters(3.0, achieved_occupancy_pct=12.0, fma_pipe_pct=45.0, dram_bytes=4e8)})
    assert "24% of its warp slots" in (because(m, fast, slow) or "")


def test_a_tie_has_no_cause() -> None:
    f, s = _record("cuda", 2.0, sass={"HGMMA": 4}), _record("triton", 2.02, sass={"HMMA": 256})
    assert because(_measured(f, s, *_control()), f, s) is None


# ------------------------------------------------------------------------------------------- control pairs
def test_a_quantity_that_differs_as_much_between_two_rows_that_run_alike_is_no_cause() -> None:
    """The shared-memory tile's defect: a difference explained a 1.5x gap, while another pair with the same difference
    ran alike."""
    few = {"profile": _counters(2.0, smem_bank_conflicts=1e3)}
    many = {"profile": _counters(3.0, smem_bank_conflicts=1e8)}
    m, fast, slow = _pair(few, many, control=({"profile": _counters(2.5, smem_bank_conflicts=1e5)},
                                              {"profile": _counters(2.5, smem_bank_conflicts=1e5)}))
    assert [c.quantity for c in stated(m, fast, slow)] == ["smem_bank_conflicts"]   # held: the control is alike
    m, fast, slow = _pair(few, many, control=({"profile": _counters(2.5, smem_bank_conflicts=1e3)},
                                              {"profile": _counters(2.5, smem_bank_conflicts=1e8)}))
    assert any(c.quantity == "smem_bank_conflicts" for c in reasons(m, fast, slow))
    assert stated(m, fast, slow) == [] and because(m, fast, slow) is None
    held = controls(m, fast, slow, [c for c in reasons(m, fast, slow) if c.cause])
    assert held and all(h.refutes for h in held)
    assert {h.pair.subject[0] for h in held} == {CONTROL}


def test_a_load_width_is_no_cause() -> None:
    """A load's width is one form in the static code, the same at every shape of a kernel pair whose order changes
    with the shape: it is never said as a cause, nor as context."""
    m, fast, slow = _pair({"sass": {"LDG.128": 8, "LDG.32": 0}}, {"sass": {"LDG.32": 32}}, control=({}, {}))
    assert not any("load_width" in c.quantity for c in reasons(m, fast, slow))


def test_a_counter_that_moves_less_in_the_control_pair_holds_and_names_it() -> None:
    m, fast, slow = _pair({"profile": _counters(2.0, smem_bank_conflicts=92.0)},
                          {"profile": _counters(3.0, smem_bank_conflicts=2.2e8)},
                          control=({"profile": _counters(2.5, smem_bank_conflicts=1e5)},
                                   {"profile": _counters(2.5, smem_bank_conflicts=3e5)}))
    (cause, *_) = stated(m, fast, slow)
    assert cause.quantity == "smem_bank_conflicts"
    assert cause.detail["control"] == [[CONTROL, "triton:dot"], [CONTROL, "cuda"]]
    # as much or more, the same way, between the alike rows: refuted
    m, fast, slow = _pair({"profile": _counters(2.0, smem_bank_conflicts=92.0)},
                          {"profile": _counters(3.0, smem_bank_conflicts=2.2e8)},
                          control=({"profile": _counters(2.5, smem_bank_conflicts=10.0)},
                                   {"profile": _counters(2.5, smem_bank_conflicts=3e8)}))
    assert "smem_bank_conflicts" not in {c.quantity for c in stated(m, fast, slow)}


def test_without_a_control_pair_no_cause_was_measured() -> None:
    f, s = _record("cuda", 2.0, spills=0), _record("triton", 3.0, spills=1104, sass={"LDL": 300, "STL": 300})
    m = _measured(f, s)
    assert any(c.cause for c in reasons(m, f, s)) and stated(m, f, s) == []
    assert _pair({}, {"spills": 1104, "sass": {"LDL": 300, "STL": 300}})[0] is not None


def test_an_ablation_is_its_own_control() -> None:
    f, s = _record("triton", 2.0), _record("triton", 3.0)
    s = dataclasses.replace(s, resources=dataclasses.replace(s.resources, config={**s.resources.config,
                                                                                   "num_stages": 4}))
    assert [c.quantity for c in stated(_measured(f, s), f, s)] == ["num_stages"]


def test_two_launches_differing_in_one_setting_name_it() -> None:
    f, s = _record("triton", 2.0), _record("triton", 3.0)
    s = dataclasses.replace(s, resources=dataclasses.replace(s.resources, config={**s.resources.config,
                                                                                   "num_stages": 4}))
    found = [r for r in reasons(_measured(f, s), f, s) if r.kind == "ablation"]
    assert [(r.quantity, r.points_with_speed) for r in found] == [("num_stages", True)]


# ------------------------------------------------------------------------------------------- the committed run
# The run the reviewed findings were read from; its counters cover 39 records.
H100_RUN = REPO / "results" / "nvidia-h100-80gb-hbm3-20261122T172035Z.jsonl"


@pytest.fixture(scope="module")
def h100() -> Measured:
    """The reviewed run, its medians given made-up rounds (tests/recorded.py `with_rounds`): a cause is stated only
    under a FAST or SLOW call, and these tests are about which counters are named once it is."""
    if not H100_RUN.exists():
        pytest.skip(f"{H100_RUN.name} is not in results/")
    return Measured(with_rounds(load(H100_RUN)))


def _better(r: Cause) -> bool:
    """Independently of causes.py's own flag: does the faster side have the better raw value?"""
    f, s = r.faster, r.slower
    if r.quantity in ("fma_pipe_pct", "tensor_pipe_pct", "achieved_occupancy_pct", "theoretical_occupancy"):
        return float(f) > float(s)
    if r.quantity == "tensor_core_instructions":
        return f == "HGMMA"
    if r.kind == "ablation":
        return True
    return float(f) < float(s)                       # conflicts, bytes, spills, stalls: fewer is better


def _pairs(m: Measured) -> list[tuple[Result, Result]]:
    out = []
    for _idea, kernels in m.ideas:
        problem = m.headline(kernels[0].op)
        for precision in m.precisions(kernels, problem) if problem else []:
            cuda = m.best(m.timed_of(kernels, problem, "cuda", precision))
            tri = m.best(m.timed_of(kernels, problem, "triton", precision))
            c = m.between(tri.result, cuda.result) if cuda and tri else None
            if c is not None and c.call in (Call.FAST, Call.SLOW):
                out.append((tri.result, cuda.result) if c.call is Call.FAST else (cuda.result, tri.result))
    return out


def test_no_stated_reason_on_the_h100_run_favours_the_slower_side(h100: Measured) -> None:
    pairs = _pairs(h100)
    assert pairs
    for fast, slow in pairs:
        text = because(h100, fast, slow)
        if text is None:
            continue
        every = reasons(h100, fast, slow)
        cited = [r for r in every if _phrase(r, fast, slow) in text]
        assert cited, text
        for r in cited:
            assert _better(r), (fast.kernel, r)
        for r in every:
            if not _better(r):
                assert _phrase(r, fast, slow) not in text, (fast.kernel, _phrase(r, fast, slow))


def test_the_h100_findings_state_the_reviewed_causes(h100: Measured) -> None:
    from harness.analysis.findings import findings
    from harness.report.findings import words
    from harness.report.sections import measured_paragraph

    texts = [plain(words(f, h100)) for f in findings(h100) if f.NUMBERED]
    texts += [plain(measured_paragraph(h100, idea, kernels)) for idea, kernels in h100.ideas]
    joined = "\n".join(texts)
    assert "(static counts)" not in joined and "global load instructions" not in joined
    assert not re.search(r"spills [1-9] B", joined)                      # a few bytes are never a cause
    gaps = next(t for t in texts if t.startswith("Per idea on sgemm"))
    # the tensor-core lead (HGMMA against HMMA) has no control pair in its class here: it is not said as a cause
    assert "wgmma" not in gaps.split("; of ")[0] and "no cause was measured" in gaps
    for f in findings(h100):
        for c in f.causes:
            assert c.kind == "ablation" or c.detail.get("control"), (f.kind, c)
    # cp.async's Triton dot is faster with 2e6-fold fewer bank conflicts, but in another pair of the run (frag_prefetch)
    # the Triton dot has as many fewer and is the slower: the conflicts do not discriminate, and are not said
    cp_async = next(plain(measured_paragraph(h100, idea, ks)) for idea, ks in h100.ideas if idea.key == "async_copy")
    assert "bank conflicts" not in cp_async and "no cause was measured" in cp_async


# ------------------------------------------------------------------------------------------- the ladder, rung by rung
def test_the_ladder_steps_table_has_one_row_per_rung_in_registry_order(h100: Measured) -> None:
    from harness.analysis.steps import ladder_rungs
    from harness.report.steps import ladder_steps_table

    table = ladder_steps_table(h100)
    # the ladder chart's rungs, numbered as the chart: the seeds' SIMT ideas, then tile-rosetta's steps
    rungs = ladder_rungs(h100)
    assert [(row[0].text, row[1].text) for row in table.rows] == [(str(r.number), r.idea.title) for r in rungs]
    assert rungs[0].idea.key == "naive" and rungs[-1].idea.key == "general_shape"
    # each step against the step before in the rung's lineage (the kernel its diff is shown against), or none
    from harness.analysis.steps import ladder_steps

    steps = [row[_col(table, "CUDA step")].text for row in table.rows]
    assert steps[0] in ("—", "starts a lineage: no step")
    for text, step in zip(steps, ladder_steps(h100), strict=True):
        s = step.cuda
        if s is None or s.before is None:
            assert text in ("—", "starts a lineage: no step")
            continue
        assert _points(text) == pytest.approx(s.best.pct - s.before.pct, abs=0.11)
        # every step with its speed ratio, interval and call
        pattern = r"\d+\.\d\dx \[\d+\.\d\d–\d+\.\d\d\] (FAST|SLOW|SAME|AMBIGUOUS) · [-+]\d+\.\d pts"
        assert re.fullmatch(pattern, text), text


def _col(table, header: str) -> int:
    return [h for h, _ in table.headers].index(header)


def _points(step: str) -> float:
    """The change in points a step cell ends with: '1.62x [1.62–1.63] FAST · +6.5 pts'."""
    return float(step.split(" · ")[-1].split()[0])


def test_a_rung_names_the_counter_that_moved_its_way_or_says_none_was_recorded(h100: Measured) -> None:
    from harness.report.steps import ladder_steps_table

    table = ladder_steps_table(h100)
    warptile = next(row for row in table.rows if row[1].text.startswith("Warp tiles"))
    # conflicts fell 70-fold, but another pair of the run has fewer conflicts on its slower side: not what moved
    moved = warptile[_col(table, "CUDA: what moved")].text
    assert moved.startswith("FMA pipe") and "bank conflicts" not in moved
    from harness.analysis.steps import ladder_rungs

    rung_kernels = {k.id for rung in ladder_rungs(h100) for k in rung.kernels}
    stripped = [r for r in h100.all if r.kernel in rung_kernels]
    bare = [dataclasses.replace(r, resources=dataclasses.replace(r.resources, profile=None)) if r in stripped
            and r.resources else r for r in h100.all]
    table = ladder_steps_table(Measured(Results(h100.file.path, h100.header, bare, h100.file.end)))
    # without counters the column of what moved is not drawn: no cell says "no counters recorded"
    headers = [h for h, _ in table.headers]
    assert "CUDA: what moved" not in headers and "Triton: what moved" not in headers
    assert not any("no counters" in cell.text for row in table.rows for cell in row)


# ------------------------------------------------------------------------------ Hopper's ladder, rung by rung
def test_the_hopper_steps_table_follows_each_precision_from_mma_sync_through_the_wgmma_rungs(recorded) -> None:
    from harness.analysis.steps import chains
    from harness.catalog import hopper
    from harness.report.steps import STARTS, hopper_steps_table

    m = Measured(with_rounds(recorded))
    table = hopper_steps_table(m)
    if not table.rows:
        pytest.skip("the recorded run timed no wgmma rung")
    order = {"TF32": ["tc_gemm"] + [k.id.split("<")[0].removeprefix("rosetta.") for k in hopper.KERNELS
                                    if k.precision == "tf32"],
             "3xTF32": ["tc_gemm"] + [k.id.split("<")[0].removeprefix("rosetta.") for k in hopper.KERNELS
                                      if k.precision == "3xtf32"]}
    assert [c for c, _ in chains(m)] == ["tf32", "3xtf32"]
    for problem in dict.fromkeys(row[0].text for row in table.rows):
        for label, rungs in order.items():
            rows = [row for row in table.rows if row[0].text == problem and row[1].text == label]
            names = [row[2].text for row in rows]
            assert names == [n for n in rungs if n in names], (problem, label, names)
            if not rows:
                continue
            step, pct = _col(table, "CUDA step"), _col(table, "CUDA % cuBLAS")
            assert rows[0][2].text == "tc_gemm" and rows[0][step].text == STARTS  # the chain starts from mma.sync
            cuda = [float(row[pct].text.split("%")[0]) for row in rows]
            for i in range(1, len(rows)):
                assert rows[i][step].text != STARTS, (problem, label, rows[i][2].text)
                assert _points(rows[i][step].text) == pytest.approx(cuda[i] - cuda[i - 1], abs=0.11)


def test_the_tensor_core_instruction_is_a_reason_between_two_kernels_of_one_model(recorded) -> None:
    """wgmma against mma.sync is told apart per side, not per model: two CUDA rungs differ in it too."""
    m = Measured(recorded)
    problem = m.headline("sgemm")
    rows = [r for r in m.on(problem) if r.impl == "cuda" and r.timed and r.kernel
            and r.kernel.startswith(("rosetta.wgmma_smem<", "rosetta.tc_gemm<tf32,128,128,32,2,4,3,kmajor>"))]
    if len(rows) != 2:
        pytest.skip("the recorded run lacks the two CUDA tensor-core rungs")
    fast, slow = sorted(rows, key=lambda r: r.timing.median_ms)
    found = {r.quantity: r for r in reasons(m, fast, slow)}
    assert "tensor_core_instructions" in found
    assert (found["tensor_core_instructions"].faster, found["tensor_core_instructions"].slower) == \
        ("HGMMA", "HMMA")


def test_the_hopper_chart_draws_the_steps_tables_rungs_on_the_headline_problem(recorded) -> None:
    from harness.report.plots.bars import hopper_chart
    from harness.report.steps import hopper_steps_table

    m = Measured(recorded)
    headline = m.headline("sgemm")
    rows = [r for r in hopper_steps_table(m).rows if headline and r[0].text == headline.shape_label]
    if not rows:
        pytest.skip("the recorded run timed no wgmma rung")
    axes = hopper_chart(m).figure.axes
    drawn = [(t.get_text().replace("\n", "_").replace(" ", "_"), ax.get_title(loc="left")) for ax in axes
             if ax.get_title(loc="left") for t in ax.get_xticklabels()]
    assert drawn == [(r[2].text, r[1].text) for r in rows]
