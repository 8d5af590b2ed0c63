"""The `rosetta` command as a user meets it on a machine with or without a GPU."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness import env
from harness.cli import main
from harness.cli import options as cli_options
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


def test_a_rung_whose_after_names_no_rung_is_said_in_one_line_naming_both(tmp_path):
    # CONTRIBUTING.md's `after`, mistyped in a copy of the sources: `rosetta list` says which rung and which name
    import shutil

    for part in ("harness", "kernels_cuda", "kernels_triton", "kernels_gluon"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    rung = tmp_path / "harness" / "catalog" / "simt" / "rungs" / "async_copy.py"
    rung.write_text(rung.read_text(encoding="utf-8").replace('after="warptile"', 'after="warptil"'), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "list"], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tmp_path)}, timeout=300)
    assert proc.returncode == 2 and proc.stdout == "" and len(proc.stderr.splitlines()) == 1, proc.stderr[-2000:]
    assert "rung async_copy stands after 'warptil', which is no rung" in proc.stderr


@pytest.mark.skipif(env.has_gpu(), reason="the CPU tier's run; on a GPU `rosetta run` times for real")
def test_ctrl_c_ends_a_run_in_one_line_that_says_what_was_kept_and_the_command_that_continues_it(tmp_path):
    import shlex

    from harness.cli import build_parser
    from harness.cli.options import resumed
    from harness.run.session import RunSession

    cmd = [sys.executable, "-m", "harness.cli", "run", "--out", str(tmp_path), "--no-report", "--only", "s00",
           "rosetta.sgemm"]
    # as a terminal sends Ctrl-C: to the whole process group, the run's workers included
    proc = subprocess.Popen(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_sigint_as_a_shell_leaves_it,
                            start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline and not (
            (files := list(tmp_path.glob("*.jsonl"))) and files[0].read_text().count('"record": "result"') >= 2):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    path = next(tmp_path.glob("*.jsonl"))
    kept = len(load(path).results)
    assert proc.returncode == 130 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    said, command = err.strip().split("; continue it with: ")
    assert said == f"rosetta run: interrupted: {kept} record(s) kept in {path}" and kept >= 2, err
    assert not any(r.status.value == "failed" for r in load(path).results)  # an ended worker is no kernel's fault
    argv = shlex.split(command)
    assert argv[:2] == ["rosetta", "run"] and argv[-2:] == ["--resume", str(path)] and "--only" in argv
    # the command, pasted, continues that run: its options are the run's own
    args = build_parser().parse_args(argv[1:])
    args.argv = argv[1:]
    resumed(args)
    from harness.cli.pairs import kernels_of
    from harness.problems import CPU_SGEMM, CPU_SGEMV

    kernels, _ = kernels_of(args)
    problems = [p for p in (CPU_SGEMM, CPU_SGEMV) if any(k.op == p.op for k in kernels)]  # as cmd_run plans them
    RunSession(kernels, problems, path, args.argv, seed=args.seed, resume=True).check_target()


@pytest.mark.parametrize("given, refused", [
    ([], None), (["--out", "{folder}"], None), (["--results", "{file}"], None), (["--only", "s003", "--op", "sgemv"],
                                                                                  None),
    (["--timeout", "9", "--no-report"], None),
    (["--out", "elsewhere"], "--out elsewhere: --resume {file} appends to that file"),
    (["--results", "other.jsonl"], "--results other.jsonl: --resume {file} appends to that file"),
    (["--only", "s004"], "--only s004: the run in {file} was started with --only s003"),
    (["--seed", "5"], "--seed 5: the run in {file} was started without --seed (its default, 20261122)"),
])
def test_resume_takes_the_options_the_run_was_started_with_and_refuses_only_a_contradiction(given, refused, tmp_path,
                                                                                          monkeypatch, capsys):
    from harness.cli import build_parser
    from harness.cli.options import resumed
    from harness.records.file import ResultsWriter
    from tests.test_cli_paths import _header_of, _session

    monkeypatch.chdir(tmp_path)
    path = tmp_path / "r.jsonl"
    started = ["run", "--only", "s003", "--op", "sgemv", "--out", str(tmp_path)]
    with ResultsWriter.new(path, _header_of(_session(path, started))):
        pass
    argv = ["run", "--resume", str(path), *(a.format(folder=tmp_path, file=path) for a in given)]
    args = build_parser().parse_args(argv)
    args.argv = argv
    if refused:
        with pytest.raises(cli_options.UserError, match=re.escape(refused.format(file=path))):
            resumed(args)
        assert main(argv) == 2 and len(capsys.readouterr().err.splitlines()) == 1
        return
    resumed(args)
    assert (args.only, args.op, args.out, args.results) == (["s003"], "sgemv", None, None)
    assert args.timeout == (9 if "--timeout" in given else build_parser().parse_args(["run"]).timeout)


def test_report_prints_the_headline_figures_before_the_paths_of_the_page(tmp_path, monkeypatch, capsys):
    from tests.recorded import recorded_gpu_run

    path = recorded_gpu_run()
    if path is None:
        pytest.skip("no recorded GPU run under results/")
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["report", str(path), "--out", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    paths = next(i for i, line in enumerate(lines) if line.startswith("report: "))
    assert lines[0] == f"{path.name}: the headline" and "best CUDA" in lines[1], lines[:3]
    figures = [line for line in lines[2:paths] if re.search(r"\d+\.\d% \[\d+\.\d–\d+\.\d\]", line)]
    assert figures and all(re.search(r"\d\.\d\dx \[", line) for line in figures), lines[:paths]  # and the call
    assert all(len(line) <= 80 for line in lines[:paths])
