"""The report prints declarations: a metric is declared once and every table (HTML, Markdown, the terminal) prints it;
a finding kind is one typed declaration; no class name, level or threshold is restated in the report's sources; every
comparison is said with its call and interval; a clock sentence names its direction."""

from __future__ import annotations

import ast
import dataclasses
import io
import re
import typing
from pathlib import Path

import pytest
from rich.console import Console

from harness.analysis.causes import COUNTER_TOLERANCE
from harness.analysis.claims import TIE
from harness.analysis.findings import KINDS, Found, findings
from harness.analysis.measured import Measured
from harness.analysis.record import Comparison, read_beside
from harness.analysis.run_findings import Rank
from harness.analysis.verdicts import LEVEL, MARGIN_SIMT, MARGIN_TENSOR_CORES, Call, Estimate, Verdict
from harness.baselines import TRITON_BASELINE_LABELS
from harness.catalog_types.kernel import PRECISION_CLASSES
from harness.measure.timing import CLOCK_DROP_LIMIT, SPREAD_LIMIT, THROTTLE_FRACTION
from harness.problems import Problem
from harness.records.file import load
from harness.report import metrics, wording
from harness.report.findings import SAID, words
from harness.report.fmt import plain
from harness.report.markdown import to_markdown
from harness.report.metrics import Metric
from harness.report.results_tables import results_table
from harness.report.terminal import print_summary
from harness.term_table import Column
from tests.recorded import REPO

REPORT = REPO / "harness" / "report"
ANALYSIS = REPO / "harness" / "analysis"
RUN = REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T102241Z.jsonl"


@pytest.fixture(scope="module")
def m() -> Measured:
    return Measured(load(RUN), read_beside(RUN))


# ------------------------------------------------------------------------------------------- the report's sources
def _strings(path: Path) -> list[tuple[int, str]]:
    """Every string constant of a module that is text (docstrings left out: they explain, the page does not show)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def test_no_threshold_level_or_class_name_is_restated_in_the_page_or_the_analysis_sources() -> None:
    constants = {"LEVEL": LEVEL, "MARGIN_SIMT": MARGIN_SIMT, "MARGIN_TENSOR_CORES": MARGIN_TENSOR_CORES,
                 "SPREAD_LIMIT": SPREAD_LIMIT, "THROTTLE_FRACTION": THROTTLE_FRACTION,
                 "CLOCK_DROP_LIMIT": CLOCK_DROP_LIMIT, "COUNTER_TOLERANCE": COUNTER_TOLERANCE, "TIE": TIE}
    thresholds = {f"{name} ({value:.0%})": re.compile(r"(?<![\d.])" + re.escape(f"{value:.0%}"))
                  for name, value in constants.items()}
    names = [c.label for p, c in PRECISION_CLASSES.items() if p != "fp32"]
    names += [wording.baseline_label(p) for p in PRECISION_CLASSES] + list(TRITON_BASELINE_LABELS.values())
    # the page names classes and baselines through their one definition; the analysis, which holds no sentence, says
    # no threshold either (its class names are keys, not text)
    patterns = {path: thresholds | ({name: re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)") for name in names}
                                    if path.is_relative_to(REPORT) else {})
                for path in sorted([*REPORT.rglob("*.py"), *ANALYSIS.rglob("*.py")])}
    restated = [f"{path.relative_to(REPO)}:{line}: {name}" for path, found in patterns.items()
                for line, text in _strings(path) for name, pattern in found.items() if pattern.search(text)]
    assert restated == []


def test_no_module_of_the_page_or_the_analysis_is_over_four_hundred_lines() -> None:
    long = {p.name: n for p in [*REPORT.rglob("*.py"), *ANALYSIS.rglob("*.py")]
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert long == {}


# ------------------------------------------------------------------------------------------- metrics
def test_a_new_column_is_one_declaration_printed_by_the_page_the_markdown_and_the_terminal(monkeypatch, m) -> None:
    per_cycle = Metric("ms × MHz", lambda m, r: r.timing.median_ms * m.clock(r) if r.timed and m.clock(r) else None,
                       lambda v: f"{v:.0f}", legend="ms × MHz: a made-up column, declared once for this test.",
                       term=Column("ms×MHz", drop=1, right=True))
    monkeypatch.setattr(metrics, "RESULTS", [*metrics.RESULTS, per_cycle])
    problem = m.headline("sgemm")
    table = results_table(m, problem)
    assert table.headers[-1] == ("ms × MHz", True) and per_cycle.legend in table.notes
    cublas = next(i for i, r in enumerate(m.on(problem)) if r.impl == "cublas")
    want = f"{m.on(problem)[cublas].timing.median_ms * m.clock(m.on(problem)[cublas]):.0f}"
    assert table.rows[cublas][-1].text == want
    assert "| ms × MHz |" in to_markdown(table).splitlines()[0] + " |"
    buf = io.StringIO()
    print_summary(m, Console(file=buf, width=400, force_terminal=False, color_system=None))
    header = next(line for line in buf.getvalue().splitlines() if line.startswith("kernel "))
    assert header.rstrip().endswith("ms×MHz")


def test_a_metrics_legend_line_is_built_from_the_constant_that_decides_it(monkeypatch) -> None:
    """The legend moves with the threshold: no sentence of a table says a number its code does not use."""
    assert f"amber above {SPREAD_LIMIT:.0%}" in metrics.MS.legend
    assert f"±{MARGIN_SIMT:.0%}" in metrics.PCT.legend and f"±{MARGIN_TENSOR_CORES:.0%}" in metrics.PCT.legend
    assert f"{LEVEL:.0%} interval" in metrics.TUTORIAL.legend
    assert f"under {THROTTLE_FRACTION:.0%} of the maximum" in metrics.FLAGS.legend


def test_an_empty_optional_column_is_not_drawn(m) -> None:
    """Without counters the column of what moved is not drawn: no cell says 'no counters recorded'."""
    from harness.report.steps import ladder_steps_table

    table = ladder_steps_table(m)
    assert not any("moved" in h for h, _ in table.headers)
    assert not any("counters" in cell.text for row in table.rows for cell in row)
    sgemv = results_table(m, next(p for p in m.problems if p.op == "sgemv"))
    assert ("vs Triton tutorial", True) not in sgemv.headers      # no Triton tutorial is timed on a GEMV


# ------------------------------------------------------------------------------------------- typed findings
def test_every_finding_kind_declares_typed_figures_its_rule_and_its_sentence() -> None:
    assert set(KINDS) >= {"untimed", "headline", "gaps", "shared", "limits", "rank", "unroll", "stride", "precision",
                          "sizes", "failures", "numerics"}
    for cls in KINDS.values():
        hints = typing.get_type_hints(cls)
        assert "figures" not in hints and all(hints[f.name] not in (dict, typing.Any) for f in dataclasses.fields(cls))
        assert cls.find is not Found.find, cls.KIND
        # a numbered finding is said by the page; one per rung or idea is shown where its rung or idea is
        assert cls in SAID or not cls.NUMBERED, cls.KIND


def test_every_finding_round_trips_through_its_json_to_the_same_sentence(m) -> None:
    for f in findings(m):
        back = Found.from_json(f.to_json())
        assert type(back) is type(f) and back.to_json() == f.to_json(), f.kind
        assert not f.NUMBERED or plain(words(back, m)) == plain(words(f, m)), f.kind


# ------------------------------------------------------------------------------------------- calls and intervals
INTERVAL = re.compile(r"\d+\.\d\dx \[\d+\.\d\d–\d+\.\d\d\]")


def test_every_comparison_a_finding_makes_carries_its_call_and_interval(m) -> None:
    """No tie by a tolerance on two point estimates: the rank finding says the rounds' call on each pair it names."""
    rank = next(f for f in findings(m) if isinstance(f, Rank))
    said = plain(words(rank, m))
    assert rank.broken and all(o.speed.verdict is not None and o.speed.call is not Call.FAST for o in rank.broken)
    for o in rank.broken[:3]:
        assert wording.speed(o.speed) in said
    # seed 000's v4 against v3: 53.2% against 54.1%, an interval that reaches inside the 2% margin: undecided, with
    # its interval, neither "slower" (by a margin it does not clear) nor "a tie"
    assert re.search(r"the first against the second is undecided \(0\.98x \[0\.97–0\.98\]\)", said), said
    for f in findings(m):
        text = plain(words(f, m)) if f.NUMBERED else ""
        for clause in re.split(r"; ", text):
            if re.search(r"\d%.* against .*\d%", clause) and ("faster" in clause or "slower" in clause
                                                                  or "tie" in clause):
                assert INTERVAL.search(clause), (f.kind, clause)


def test_every_rung_step_carries_its_ratio_interval_and_call(m) -> None:
    from harness.report.steps import SAME_LAUNCH, STARTS, hopper_steps_table, ladder_steps_table

    for table in (ladder_steps_table(m), hopper_steps_table(m)):
        steps = [i for i, (h, _) in enumerate(table.headers) if h.endswith("step")]
        cells = [row[i].text for row in table.rows for i in steps if row[i].text != "—"]
        ratios = [c.removeprefix(f"{SAME_LAUNCH}: ") for c in cells if c != STARTS]
        assert ratios and STARTS in cells   # a rung whose kernel opens its series says so, every other its step
        assert all(INTERVAL.match(c) and re.search(r" (FAST|SLOW|SAME|AMBIGUOUS)( · |$)", c) for c in ratios), ratios


# ------------------------------------------------------------------------------------------- the clock's direction
def _comparison(time: tuple[float, Call], cycles: tuple[float, Call]) -> Comparison:
    def estimate(ratio: float, call: Call) -> Estimate:
        return Estimate(ratio, ratio * 0.998, ratio * 1.002, call)

    verdict = Verdict(estimate(*time), estimate(*cycles), MARGIN_TENSOR_CORES, (20, 20), True)
    return Comparison("between", Problem("sgemm", 64, 64, 64), ("k", "triton:persistent"), ("k", "cuda"),
                      time[0], verdict)


def test_a_clock_that_hid_a_difference_is_named_with_the_side_that_ran_faster_clocked() -> None:
    # a tie in time, slower in cycles: the subject needs 4.5% more cycles and ran at the higher clock
    c = _comparison((1.01, Call.SAME), (1.047, Call.SLOW))
    said = wording.sentence(c, "Triton persistent", "the CUDA kernel", (1696.0, 1651.0))
    assert "Triton persistent ran at the higher SM clock (median 1696 against 1651 MHz)" in said
    assert "which hid a difference in the code: Triton persistent needs more cycles" in said
    assert "power effect" not in said and "made the time difference" not in said


def test_a_clock_that_made_a_difference_names_the_other_side_when_the_reference_ran_faster_clocked() -> None:
    # slower in time, a tie in cycles: the reference ran at the higher clock, and that is the whole time difference
    c = _comparison((1.05, Call.SLOW), (1.005, Call.SAME))
    said = wording.sentence(c, "the tuned row", "cuBLAS", (1600.0, 1690.0))
    assert "cuBLAS ran at the higher SM clock (median 1690 against 1600 MHz), which made the time difference" in said
    assert "hid" not in said and "the tuned row ran at the higher" not in said
    # the two calls agree: nothing is said of the clock
    assert wording.clock_clause(_comparison((1.05, Call.SLOW), (1.04, Call.SLOW)), "a", "b") == ""


def test_the_hopper_sentence_of_the_committed_run_makes_no_cycles_call_on_an_unmeasured_probe(m) -> None:
    """The run did not measure its clock probe's error: the tie in time stands, and no sentence says what the clock
    hid (it said "in cycles it is slower (0.96x [0.95-0.96])" on a probe error of 0.00% by construction)."""
    from harness.report.sections import measured_paragraph

    idea, kernels = next((i, ks) for i, ks in m.ideas if i.key == "wgmma")
    said = plain(measured_paragraph(m, idea, kernels))
    cuda, tri = m.bests(kernels, m.headline("sgemm"), "tf32")
    c = m.between(tri.result, cuda.result)
    assert c.call is Call.SAME and c.verdict.cycles is None
    assert f"Triton persistent and the CUDA kernel tie ({wording.speed(c)}, within the 3% margin)" in said
    assert "in cycles" not in said and "higher SM clock" not in said
