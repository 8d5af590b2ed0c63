"""Each fact of a run has one home that everything else reads: the run's seed and a problem's seed derived from it
(harness/problems.py), the measured time per implementation (harness/measure/rounds.py REP_MS), what identifies a record
(harness/identity.py RecordKey) and an implementation of a kernel (KernelImpl), what a comparison sets against what
(harness/analysis/relations.py Relation), the throttle threshold (harness/measure/timing.py THROTTLE_FRACTION), each
op's headline problem (harness/problems.py HEADLINE), the worker's state (harness/run/work.py WorkerState) and how a
phase is timed (harness/run/phases.py timed)."""

from __future__ import annotations

import ast
import inspect
import time
from pathlib import Path

import pytest
import torch

from harness import cli
from harness.analysis.record import Comparison
from harness.analysis.relations import Relation
from harness.identity import ImplId, KernelImpl, RecordKey
from harness.measure.rounds import REP_MS, interleave
from harness.problems import SEED, Problem
from harness.records.lines import Result, Status
from harness.run import referee
from harness.run.messages import ImplKey, WorkerOptions
from harness.run.phases import timed
from harness.run.runner import Pending, RunOptions, time_pending
from harness.run.session import RunSession
from harness.run.work import ResourceCache, WorkerState, impl_of, key_of, setup
from harness.run.worker import failed
from tests.recorded import H100_RUN

HARNESS = Path(__file__).resolve().parents[1] / "harness"


def test_the_run_seed_is_written_in_one_module_of_the_harness() -> None:
    found = sorted(str(p.relative_to(HARNESS)) for p in HARNESS.rglob("*.py") if str(SEED) in p.read_text())
    assert found == ["problems/__init__.py"]


def test_every_default_of_a_run_is_the_one_home_s() -> None:
    run = cli.build_parser().parse_args(["run"])
    assert run.seed == SEED
    session = RunSession([], [], Path("x.jsonl"), [])
    assert (session.seed, session.rep_ms) == (SEED, REP_MS)
    assert (RunOptions().seed, RunOptions().rep_ms) == (SEED, REP_MS)
    assert (WorkerOptions().seed, WorkerOptions().rep_ms) == (SEED, REP_MS)
    assert inspect.signature(interleave).parameters["rep_ms"].default == REP_MS
    assert inspect.signature(referee.referee).parameters["rep_ms"].default == REP_MS


def test_a_problem_s_seed_is_the_run_s_plus_its_dimensions_modulo_1000() -> None:
    p = Problem("sgemm", 4096, 4096, 4096)
    assert p.seed() == SEED + 12288 % 1000 and p.seed(7) == 7 + 288
    assert Problem("sgemm", 4096, 4096, 4096, alpha=-2.5, beta=0.75).seed(7) == p.seed(7)
    assert Problem("sgemv", 37, 45).seed(7) == 7 + 37 + 45 + 1


def test_a_problem_s_operands_and_the_order_of_its_rounds_are_drawn_from_its_one_seed(monkeypatch) -> None:
    problem = Problem("sgemm", 1000, 300, 45)
    state = setup(WorkerOptions(seed=11))
    assert state.context(problem).seed == problem.seed(11)
    seen = {}

    class Stop(Exception):
        pass

    def rounds(entries, **kwargs):
        seen.update(kwargs)
        raise Stop

    monkeypatch.setattr("harness.measure.rounds.interleave", rounds)
    pending = [Pending(None, None, lambda: None, 1.0)]  # type: ignore[arg-type]
    with pytest.raises(Stop):
        time_pending(pending, state.context(problem), state.opts, None)
    assert seen["seed"] == problem.seed(11)


def test_the_worker_s_state_is_typed_and_keeps_one_problem_s_operands_at_a_time() -> None:
    state = setup(WorkerOptions())
    assert isinstance(state, WorkerState) and isinstance(state.resources, ResourceCache)
    assert (state.device_name, state.device, state.opts.seed) == ("cpu (Triton interpreter)", torch.device("cpu"), SEED)
    a, b = Problem("sgemv", 37, 45), Problem("sgemv", 5, 1031)
    first = state.context(a)
    assert state.context(a) is first
    state.context(b)
    assert list(state.contexts) == [b]


def test_a_record_s_key_the_plan_s_and_a_comparison_s_are_one_record_key() -> None:
    from harness.registry import KERNELS

    problem = Problem("sgemm", 64, 64, 64, alpha=2.0)
    kernel = KERNELS[0]
    form = kernel.counterparts[0].name
    key = ImplKey(kernel.id, ImplId("triton", form), "sgemm")
    rec = failed(key, problem, "made up", None)
    assert rec.key == key.on(problem) == RecordKey(kernel.id, f"triton:{form}", problem.key)
    assert key.same_as(rec) and not ImplKey(kernel.id, ImplId("cuda"), "sgemm").same_as(rec)
    base = Result.of(ImplId("cublas"), problem, Status.OK)
    c = Comparison(Relation.CUBLAS, problem, rec.kernel_impl, base.kernel_impl, 1.0, None)
    assert (c.subject_key, c.reference_key) == (rec.key, base.key)
    assert isinstance(rec.key, RecordKey) and rec.key == (kernel.id, f"triton:{form}", problem.key)
    assert key_of(impl_of(key)) == key


def test_a_phase_is_the_seconds_of_its_block_added_and_a_block_that_raises_adds_nothing() -> None:
    phases: dict[str, float] = {}
    with timed(phases, "compile"):
        time.sleep(0.01)
    with timed(phases, "compile"):
        time.sleep(0.01)
    assert 0.02 <= phases["compile"] < 1.0
    with pytest.raises(RuntimeError), timed(phases, "numerics"):
        raise RuntimeError("the launch failed")
    assert set(phases) == {"compile"}



def _trees() -> dict[str, ast.Module]:
    return {str(p.relative_to(HARNESS)): ast.parse(p.read_text(encoding="utf-8")) for p in HARNESS.rglob("*.py")}


# Where a comparison is made or asked for by its relation, and the tables that name relations
_ASKS = {"pair", "vs", "where", "one", "_call", "Comparison", "RegimeCall", "_comparison"}


def test_a_relation_is_named_by_its_type_and_never_by_a_string_of_its_name() -> None:
    names = {r.value for r in Relation}
    found = []
    for where, tree in _trees().items():
        for node in ast.walk(tree):
            strings: list[ast.AST] = []
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in _ASKS:
                strings = node.args[:2]
            elif isinstance(node, ast.Compare) and any(getattr(s, "attr", getattr(s, "id", None)) == "relation"
                                                       for s in (node.left, *node.comparators)):
                strings = [n for s in (node.left, *node.comparators) for n in ast.walk(s)]
            elif isinstance(node, ast.Assign) and any("RELATION" in getattr(t, "id", "") for t in node.targets):
                # a table by relation: its keys, or (a CSV prefix's table) the first of each value
                values = node.value.values if isinstance(node.value, ast.Dict) else [node.value]
                strings = [n for v in values for n in ast.walk(v.elts[0] if isinstance(v, ast.Tuple) else v)]
                if isinstance(node.value, ast.Dict) and not any(isinstance(v, ast.Tuple) for v in values):
                    strings += node.value.keys  # type: ignore[arg-type]
            found += [f"{where}:{n.lineno} {n.value!r}" for n in strings
                      if isinstance(n, ast.Constant) and n.value in names]
    assert not found
    back = Comparison.from_json({"relation": "aa", "problem": Problem("sgemv", 5, 7).to_json(),
                                 "subject": [None, "cublas"], "reference": [None, "cublas"], "ratio": 1.0,
                                 "verdict": None})
    assert back.relation is Relation.AA and {Relation.AA: 1}.get("aa") == 1   # an older record's string finds it


def test_a_kernel_s_implementation_is_one_type_never_a_pair_built_by_hand() -> None:
    by_hand = [f"{where}:{node.lineno}" for where, tree in _trees().items() for node in ast.walk(tree)
               if isinstance(node, ast.Tuple) and len(node.elts) >= 2
               and [getattr(e, "attr", None) for e in node.elts[:2]] == ["kernel", "impl"]]
    assert not by_hand
    rec = Result.of(ImplId("cuda"), Problem("sgemv", 5, 7), Status.OK, kernel="k")
    assert rec.kernel_impl == KernelImpl("k", "cuda") == ("k", "cuda")
    assert rec.key == (*rec.kernel_impl, rec.problem.key)


def test_the_throttle_threshold_is_defined_in_one_module() -> None:
    homes = [where for where, tree in _trees().items() for node in ast.walk(tree) if isinstance(node, ast.Assign)
             and any(getattr(t, "id", None) == "THROTTLE_FRACTION" for t in node.targets)]
    assert homes == ["measure/timing.py"]


def test_each_op_has_one_headline_problem_that_every_table_and_finding_of_the_run_shows() -> None:
    from harness.analysis.findings import findings
    from harness.analysis.measured import Measured
    from harness.analysis.overview import headline_rows
    from harness.analysis.record import read_beside
    from harness.problems import HEADLINE
    from harness.records.file import load
    from harness.records.order import headline_problem

    run = H100_RUN
    results = load(run)
    m = Measured(results, read_beside(run))
    for op in ("sgemm", "sgemv"):
        assert headline_problem(results.results, op) == m.headline(op) == HEADLINE[op]
        assert {r.problem for r in headline_rows(m) if r.op == op} == {HEADLINE[op]}
    for found in (f for f in findings(m) if f.kind == "headline"):
        assert [s.problem for s in found.shapes] == [HEADLINE[found.op]]
