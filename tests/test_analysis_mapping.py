"""The proven mapping lives in the analysis record: proven where the kernels can be compiled (or were, by the run),
kept as data, and rendered from the record by a page that compiles nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from harness.analysis.mapping import ProvenMapping, Row, Verdict, rows
from harness.analysis.measured import Measured
from harness.analysis.record import Analysis, analysis_path, read_beside
from harness.analysis.recorded_evidence import RUN_EVIDENCE
from harness.records.file import load
from harness.registry import IDEAS
from harness.report.sections import UNPROVEN, mapping_table
from tests.recorded import REPO, recorded_gpu_run


def _row(holds: bool) -> Row:
    v = Verdict("naive", "who computes which output", "s000.gemm_naive", "triton", "naive", "one output per thread",
                holds, "cfg.outputs_per_thread 1", where=RUN_EVIDENCE)
    return Row("who computes which output", "one thread per element", "the program's tile", "compiler", (v,))


def _measured(mapping: ProvenMapping | None) -> Measured:
    path = recorded_gpu_run()
    if path is None:
        pytest.skip("no recorded GPU run under results/")
    return Measured(load(path), Analysis(path.name, mapping=mapping))


def test_the_proven_mapping_round_trips_through_the_analysis_record(tmp_path: Path) -> None:
    proven = ProvenMapping({"naive": [_row(True), _row(False)]}, {"wgmma": "RuntimeError: no NVRTC"})
    path = Analysis("run.jsonl", mapping=proven).write(tmp_path / "run.analysis.json")
    back = Analysis.from_json(json.loads(path.read_text()))
    assert back.mapping == proven
    assert Analysis.from_json(Analysis("run.jsonl").to_json()).mapping is None   # not proven: said, not invented


def test_a_page_shows_the_verdicts_its_record_holds_not_a_compile_of_its_own() -> None:
    # a verdict that fails in the record fails on the page, though today's kernels would pass it
    table = mapping_table(IDEAS["naive"], _measured(ProvenMapping({"naive": [_row(False)]})))
    (proof,) = [row[-1] for row in table.rows]
    assert proof.text.startswith("✗ not as stated: s000.gemm_naive [naive]") and proof.cls == "bad"
    assert RUN_EVIDENCE in table.notes[-1]


def test_a_page_names_the_compiler_a_false_check_was_made_on_and_what_its_code_does() -> None:
    made = replace(_row(False).verdicts[0], compiler="triton", compiler_version="3.10.0")
    table = mapping_table(IDEAS["naive"], _measured(ProvenMapping({"naive": [replace(_row(False), verdicts=(made,))]})))
    (proof,) = [row[-1] for row in table.rows]
    assert proof.text.startswith(f"✗ not as stated on Triton 3.10.0: s000.gemm_naive [naive]: {made.evidence}")


def test_a_record_without_a_proof_shows_the_claims_text_and_says_how_to_prove_them() -> None:
    table = mapping_table(IDEAS["naive"], _measured(None))
    assert [row[0].text for row in table.rows] == [r.decision for r in rows("naive", prove=False)]
    assert all(row[-1].text == "not checked" for row in table.rows)
    assert UNPROVEN in table.notes[-1]
    unproven = mapping_table(IDEAS["naive"], _measured(ProvenMapping({}, {"naive": "RuntimeError: no NVRTC"})))
    assert "not proven (RuntimeError: no NVRTC)" in unproven.notes[-1]


def test_rendering_a_page_imports_neither_the_inspectors_nor_the_build_nor_a_compiler(tmp_path: Path) -> None:
    path = recorded_gpu_run()
    if path is None:
        pytest.skip("no recorded GPU run under results/")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from harness.report import render\n"
        f"render(Path({str(path)!r}), Path({str(tmp_path)!r}))\n"
        "mods = sorted(m for m in sys.modules if m.split('.')[0] in ('harness', 'kernels_cuda', 'kernels_triton', "
        "'triton', 'cupy') or m.startswith('cuda.bindings.nvrtc'))\n"
        "print('\\n'.join(mods))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = proc.stdout.split()
    assert "harness.report.render" in imported
    compilers = [m for m in imported if m.startswith(("harness.inspect", "harness.nvrtc", "harness.launch", "triton",
                                                      "cupy", "cuda.bindings.nvrtc"))]
    assert not compilers, compilers


def test_the_committed_runs_record_proves_every_claim_on_the_kernels_it_measured() -> None:
    path = recorded_gpu_run()
    if path is None:
        pytest.skip("no recorded GPU run under results/")
    an = read_beside(path)
    assert an is not None and an.mapping is not None, f"{analysis_path(path).name}: `rosetta analyse {path.name}`"
    measured = {IDEAS[k].key for k in an.mapping.rows}
    assert measured and not an.mapping.unproven
    failing = [v.label for found in an.mapping.rows.values() for row in found for v in row.verdicts if not v.holds]
    assert not failing, failing
    # the run's own evidence stands for every kernel it compiled: nothing of it was compiled again
    wheres = {v.where for found in an.mapping.rows.values() for row in found for v in row.verdicts}
    assert RUN_EVIDENCE in wheres
