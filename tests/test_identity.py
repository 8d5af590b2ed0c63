"""An implementation's identity, the worker's messages and the kernel facts a record carries: each survives its JSON
form or the pipe, every string form the committed results hold parses, and a record is drawn with its own facts."""

from __future__ import annotations

import json
import multiprocessing as mp
from dataclasses import replace

import pytest

from harness.analysis.compare import _idea
from harness.analysis.measured import Measured
from harness.catalog import CATALOG
from harness.identity import ImplId
from harness.launch.implementations import all_impls, baselines, cupy_build_study
from harness.problems import Problem
from harness.records.kernel_facts import KernelFacts
from harness.records.lines import Result, Status
from harness.registry import KERNELS, get
from harness.report.metrics import KERNEL
from harness.run.messages import NO_DEVICE_FACTS, Checked, Finished, ImplKey, Ready, Started, Task, WorkerOptions
from harness.run.work import impl_of, key_of
from tests.recorded import REPO

P = Problem("sgemm", 64, 64, 64)


def _kernel_cell(record: Result, catalog):
    """The results table's kernel cell of one record, drawn with the given catalog."""
    return KERNEL.cell(Measured.of([record], catalog), record)
NAIVE = "s004.naive_gemm<32>"


def _committed_impls() -> set[str]:
    forms: set[str] = set()
    for path in (REPO / "results").glob("*.jsonl"):
        for line in path.read_text().splitlines():
            data = json.loads(line)
            if data.get("record") == "result":
                forms.add(data["impl"])
    return forms


COMMITTED = sorted(_committed_impls())


def test_the_committed_results_hold_kernel_rows_and_baselines_of_every_family():
    families = {ImplId.from_json(s).family for s in COMMITTED}
    assert families == {"cuda", "triton", "gluon", "cublas", "triton-tutorial"}


@pytest.mark.parametrize("text", COMMITTED)
def test_every_implementation_string_a_committed_file_holds_round_trips(text):
    impl = ImplId.from_json(text)
    assert impl.to_json() == text and ImplId.from_json(impl.to_json()) == impl


@pytest.mark.parametrize("text", ["torch", "triton", "triton:", "cuda:", "opencl:dot"])
def test_a_string_that_names_no_implementation_is_refused(text):
    with pytest.raises(ValueError, match="implementation"):
        ImplId.from_json(text)


def test_the_identity_answers_what_the_model_prefix_and_the_split_used_to():
    cupy, dot, tf32 = ImplId.from_json("cuda:cupy"), ImplId.from_json("triton:tuned-bf16x3"), ImplId.from_json(
        "cublas-tf32")
    assert (cupy.model, cupy.build, cupy.is_build_study, cupy.form) == ("cuda", "cupy", True, None)
    assert (ImplId("cuda").build, ImplId("cuda").is_build_study) == ("default", False)
    assert (dot.model, dot.form, dot.is_triton, dot.runs_triton, dot.is_baseline) == (
        "triton", "tuned-bf16x3", True, True, False)
    assert (tf32.model, tf32.is_cublas, tf32.is_baseline, tf32.baseline_precision) == (
        "cublas-tf32", True, True, "tf32")
    tutorial = ImplId.from_json("triton-tutorial-3xtf32")
    assert (tutorial.is_triton_baseline, tutorial.runs_triton, tutorial.is_triton, tutorial.baseline_precision) == (
        True, True, False, "3xtf32")


def test_one_namer_labels_every_implementation_as_the_tables_show_it():
    labels = {s: ImplId.from_json(s).label() for s in ("cuda", "cuda:cupy", "triton:dot", "cublas", "cublas-tf32",
                                                       "triton-tutorial-tf32")}
    assert labels == {"cuda": "CUDA", "cuda:cupy": "CUDA, cupy build", "triton:dot": "Triton dot",
                      "cublas": "cuBLAS fp32", "cublas-tf32": "cuBLAS TF32",
                      "triton-tutorial-tf32": "Triton tutorial (TF32)"}
    assert ImplId("cublas").label("cpu (Triton interpreter)") == "torch CPU (fp32)"


def test_every_planned_implementation_is_found_again_from_its_key():
    for impl in [*baselines("sgemm"), *all_impls(), *cupy_build_study()]:
        again = impl_of(key_of(impl))
        assert (again.id, again.op, again.kernel, again.counterpart) == (impl.id, impl.op, impl.kernel,
                                                                          impl.counterpart)


def _echo(conn) -> None:
    conn.send(conn.recv())
    conn.close()


def test_the_worker_messages_cross_a_process_pipe_unchanged():
    kernel = get(NAIVE)
    key = ImplKey(kernel.id, ImplId("triton", kernel.counterparts[0].name), "sgemm")
    record = Result.of(key.impl, P, Status.OK, kernel=kernel.id, facts=KernelFacts.of(kernel))
    messages = [Ready(None, "made up", replace(NO_DEVICE_FACTS, sms=7)), Task(P, (key,), None), Started(key),
                Started(key, round=2), Checked(key), Finished(record), WorkerOptions(cuda_kernels=(kernel.id,))]
    ctx = mp.get_context("spawn")
    for message in messages:
        parent, child = ctx.Pipe()
        process = ctx.Process(target=_echo, args=(child,))
        process.start()
        parent.send(message)
        assert parent.recv() == message
        process.join(timeout=60)


def test_a_key_knows_the_record_of_its_implementation_and_no_other():
    key = ImplKey(NAIVE, ImplId("cuda"), "sgemm")
    assert key.same_as(Result.of(ImplId("cuda"), P, Status.OK, kernel=NAIVE))
    assert not key.same_as(Result.of(ImplId("cuda", "cupy"), P, Status.OK, kernel=NAIVE))
    assert str(key) == f"{NAIVE} [cuda]"


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.id)
def test_a_kernels_facts_survive_their_json_form(kernel):
    facts = KernelFacts.of(kernel)
    assert KernelFacts.from_json(json.loads(json.dumps(facts.to_json()))) == facts


def test_a_record_carries_its_kernels_facts_through_its_file_form():
    kernel = get(NAIVE)
    record = Result.of(ImplId("cuda"), P, Status.OK, kernel=kernel.id, facts=KernelFacts.of(kernel))
    again = Result.from_json(json.loads(json.dumps(record.to_json())))
    assert again.facts == KernelFacts.of(kernel) and again.impl_id == ImplId("cuda")


def _renamed(kernel_id: str) -> Result:
    """A record of a kernel that a later registry renamed: its id is listed no more, its facts came with it."""
    facts = replace(KernelFacts.of(get(kernel_id)), id="s004.gemm_once_named_so", idea="an-idea-since-removed",
                    idea_title="An idea since removed")
    return Result.of(ImplId("cuda"), P, Status.OK, kernel=facts.id, facts=facts)


def test_a_record_whose_kernel_is_no_longer_listed_renders_with_the_facts_it_recorded():
    record = _renamed(NAIVE)
    cell = _kernel_cell(record, CATALOG)
    assert cell.text == "s004.gemm_once_named_so" and "An idea since removed" in cell.sub
    assert "seed 004" in cell.sub and "not in the registry" not in cell.sub
    assert not cell.href  # no idea section draws it: there is nothing to link to
    assert _idea(record) == "an-idea-since-removed"


def test_a_record_written_by_an_older_version_renders_with_todays_registry():
    kernel = get(NAIVE)
    old = Result.from_json({k: v for k, v in _renamed(kernel.id).to_json().items() if k != "kernel_facts"}
                           | {"kernel": kernel.id})
    assert old.facts is None and old.kernel_facts == KernelFacts.of(kernel)
    cell = _kernel_cell(old, CATALOG)
    assert cell.href and "seed 004" in cell.sub
    unknown = Result.from_json({**old.to_json(), "kernel": "s004.gemm_once_named_so"})
    assert unknown.kernel_facts is None and _kernel_cell(unknown, CATALOG).sub == "not in the registry"


def test_recorded_facts_win_over_todays_registry():
    kernel = get(NAIVE)
    moved = replace(KernelFacts.of(kernel), idea="moved")
    record = Result.of(ImplId("cuda"), P, Status.OK, kernel=kernel.id, facts=moved)
    assert record.kernel_facts == moved and _idea(record) == "moved"
