"""The `rosetta` command as a user meets it on a machine with or without a GPU."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness import env
from harness.cli import main
from harness.problems import Problem
from harness.records.file import load
from harness.registry import KERNELS

ROOT = Path(__file__).resolve().parents[1]


def test_list_json_names_every_kernel_with_its_seed_and_preconditions(capsys):
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == [k.id for k in KERNELS]
    assert all(r["preconditions"] for r in rows)


def test_explain_shows_cuda_source_beside_the_counterpart(capsys):
    assert main(["explain", "s004.block_tiling_gemm<32>"]) == 0
    out = capsys.readouterr().out
    assert "__syncthreads" in out and "tl.dot" in out


@pytest.mark.trust
@pytest.mark.skipif(env.has_gpu(), reason="the CPU tier's run; on a GPU `rosetta run` times for real")
def test_run_without_gpu_checks_counterparts_in_the_interpreter_and_compiles_cuda(tmp_path, capsys):
    code = main(["run", "--only", "s004", "s003", "--out", str(tmp_path), "--no-report"])
    assert code == 0
    results = load(next(tmp_path.glob("*.jsonl")))
    by_model: dict = {}
    for r in results.results:
        by_model.setdefault(r.model, []).append(r.status.value)
    assert set(by_model["triton"]) == {"ok"} and len(by_model["triton"]) == 4
    from harness.nvrtc.compiler import available

    expected = "compiled" if available() else "skipped"  # the suite's NVRTC build: no toolkit needed
    assert set(by_model["cuda"]) == {expected}
    assert results.complete


@pytest.mark.parametrize("text, want", [("4096×4096×4096", Problem("sgemm", 4096, 4096, 4096)),
                                        ("4096X4096x4096", Problem("sgemm", 4096, 4096, 4096)),
                                        ("16384×16384", Problem("sgemv", 16384, 16384))])
def test_profile_and_run_read_a_shape_alike_the_multiplication_sign_included(text, want, monkeypatch, tmp_path):
    # One shape parser for every verb: "4096×4096×4096" is the sgemm problem for profile as it is for run.
    import harness.inspect.profile as profiling
    from harness.cli.options import problems_of

    seen = []
    monkeypatch.setattr(env, "has_gpu", lambda: True)
    monkeypatch.setattr(profiling, "profile", lambda kernels, problem, *rest: seen.append(problem))
    assert main(["profile", "--shape", text, "--out", str(tmp_path)]) == 0
    from harness.cli import build_parser

    assert seen == [want] == problems_of(build_parser().parse_args(["run", "--shape", text]))


def test_trace_reproduces_the_documents_block_00_table():
    from harness.inspect.trace import DOCUMENT_BLOCK_00, trace_triton

    table = trace_triton() if not env.has_gpu() else None
    if table is None:
        pytest.skip("covered on the GPU by test_trace_of_the_cuda_kernel")
    assert table[(0, 0)] == DOCUMENT_BLOCK_00
    # Every other program follows the same formulas: A rows of its block, B columns of its block.
    assert table[(1, 1)][1] == ((10, 11, 14, 15), (10, 11, 14, 15))


@pytest.mark.gpu
def test_trace_of_the_cuda_kernel_matches_the_documents_thread_tables():
    from harness.inspect.trace import DOCUMENT_BLOCK_00, block_sets, trace_cuda

    table = trace_cuda()
    assert block_sets(table, (0, 0)) == DOCUMENT_BLOCK_00
    # The document's per-thread rows for block (0,0), phase 2 (t = 1).
    assert table[(0, 0)][1] == {(0, 0): (2, 8), (0, 1): (3, 9), (1, 0): (6, 12), (1, 1): (7, 13)}


def _sigint_as_a_shell_leaves_it() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_a_run_killed_halfway_keeps_everything_it_measured(tmp_path, sig):
    # Enough implementations that the run is still going when the third record lands (53 with the seeds alone).
    cmd = [sys.executable, "-m", "harness.cli", "run", "--out", str(tmp_path), "--no-report", "--only", "s00",
           "rosetta.sgemm", "rosetta.sgemv"]
    # The child starts with SIGINT as a user's shell leaves it: at its default and not blocked. Both are inherited
    # across exec, and in the full suite under pytest-xdist the run once never saw the interrupt and finished.
    proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=_sigint_as_a_shell_leaves_it)
    deadline = time.time() + 300
    path = None
    while time.time() < deadline:
        files = list(tmp_path.glob("*.jsonl"))
        if files and files[0].read_text().count('"record": "result"') >= 3:
            path = files[0]
            break
        time.sleep(0.05)
    proc.send_signal(sig)
    proc.wait(timeout=60)
    assert path is not None, "the run wrote no results in time"
    results = load(path)
    assert len(results.results) >= 3 and not results.complete
    assert all(r.status.value in ("ok", "failed", "skipped", "compiled") for r in results.results)
