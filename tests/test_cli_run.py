"""`rosetta run` as a user meets it: refused options, progress in a log, where files go, what the end says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness import cli, env
from harness.cli import progress as cli_progress
from harness.cli import run as cli_run
from harness.cli import run_lines
from harness.cli.options import GPU_ONLY
from harness.problems import Problem
from harness.records.lines import Result, Status

ROOT = Path(__file__).resolve().parents[1]
NO_GPU = "no CUDA GPU is visible to torch"


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(env, "has_gpu", lambda: False)
    monkeypatch.setattr(env, "gpu_reason", lambda: NO_GPU)


GPU_ONLY_ARGS = {"--shape": ["--shape", "64x64x64"], "--sweep": ["--sweep"], "--gpus": ["--gpus", "2"],
                 "--rep-ms": ["--rep-ms", "100"], "--rounds": ["--rounds", "8"], "--aa": ["--aa"],
                 "--profile": ["--profile"], "--regime": ["--regime", "sustained"]}


def test_every_gpu_only_option_has_a_refusal_test() -> None:
    assert set(GPU_ONLY_ARGS) == set(GPU_ONLY.values())


@pytest.mark.parametrize("flag", sorted(GPU_ONLY_ARGS))
def test_a_gpu_only_option_is_refused_without_a_gpu_before_anything_runs(flag, no_gpu, tmp_path, capsys) -> None:
    assert cli.main(["run", "--only", "s002", "--out", str(tmp_path), *GPU_ONLY_ARGS[flag]]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and flag in err[0] and "GPU only" in err[0] and NO_GPU in err[0]
    assert captured.out == "" and not any(tmp_path.iterdir())


@pytest.mark.parametrize("args,named", [
    (["--shape", "64x64x64", "--sweep"], "--shape and --sweep"),
    (["--results", "y.jsonl", "--out", "elsewhere"], "--results and --out"),
])
def test_options_that_would_silently_override_each_other_are_refused(args, named, monkeypatch, capsys) -> None:
    monkeypatch.setattr(env, "has_gpu", lambda: True)  # the pairs are refused with or without a GPU
    assert cli.main(["run", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and named in err[0]


def test_options_that_apply_without_a_gpu_are_accepted(no_gpu) -> None:
    from argparse import Namespace

    from harness.cli.options import refuse_what_cannot_apply

    args = cli.build_parser().parse_args(["run", "--only", "s002", "--op", "sgemm", "--seed", "3", "--timeout", "9",
                                          "--shard", "0/2", "--no-report", "--out", "x"])
    refuse_what_cannot_apply(args, False, NO_GPU)
    assert isinstance(args, Namespace)


def record(impl: str, device: str, status: Status = Status.OK, **kw) -> Result:
    return Result(impl=impl, model=impl.split(":")[0], problem=Problem("sgemm", 35, 37, 29), status=status,
                  device=device, **kw)


def test_the_cpu_baseline_is_labelled_as_torch_on_the_cpu_and_the_gpu_one_as_cublas() -> None:
    assert record("cublas", "cpu (Triton interpreter)").label == "torch CPU (fp32)"
    assert record("cublas", "NVIDIA H100 80GB HBM3").label == "cuBLAS fp32"
    assert record("cublas-tf32", "NVIDIA H200").label == "cuBLAS TF32"
    # A file read back keeps the label: it is derived from the record's own device.
    again = Result.from_json(record("cublas", "cpu (Triton interpreter)").to_json())
    assert again.label == "torch CPU (fp32)"


def test_phase_seconds_survive_the_file_and_old_files_read_as_empty() -> None:
    r = record("triton:dot", "cpu", phase_s={"compile": 1.5, "numerics": 0.25})
    data = r.to_json()
    assert Result.from_json(data).phase_s == {"compile": 1.5, "numerics": 0.25}
    del data["phase_s"]
    assert Result.from_json(data).phase_s == {}
    with pytest.raises(ValueError, match="phase_s"):
        Result.from_json({**data, "phase_s": {"compile": "slow"}})


def test_the_phases_line_gives_the_stages_in_the_order_they_ran_the_records_phases_within_and_the_rest() -> None:
    from harness.run.phases import phases_line

    rs = [record("cuda", "cpu", phase_s={"compile": 1.0, "numerics": 2.0}),
          record("triton:dot", "cpu", phase_s={"compile": 0.5, "resources": 2.0, "timing": 4.0}),
          record("cublas", "cpu"), record("cuda", "cpu", phase_s={"build": 0.7})]
    stages = {"worker start": 1.5, "implementations": 10.0, "worker stop": 0.2, "CUDA builds": 0.8, "report": 3.25}
    assert phases_line(rs, stages, 20.0) == (
        "phases: worker start 1.5 s, implementations 10.0 s (compile 1.5 s, numerics 2.0 s, resources 2.0 s, "
        "timing 4.0 s), worker stop 0.2 s, CUDA builds 0.8 s, report 3.2 s, other 4.2 s (imports, option checks, "
        "printing) (wall 20.0 s)")
    # Two workers measure side by side: their phases are summed over both, inside the stage's wall time.
    assert "implementations 10.0 s on 2 workers (summed over them: compile 1.5 s" in phases_line(rs, stages, 20, 2)
    # A sustained pass is a stage of its own, not "other" (on the H100 its 522 s were read as other)
    stages.pop("report")
    sustained = phases_line(rs, {**stages, "sustained regime": 500.0, "report": 3.25}, 520.0)
    assert "analysis" not in sustained and "CUDA builds 0.8 s, sustained regime 500.0 s, report 3.2 s, other 4.2 s" \
        in sustained


def test_a_stage_is_performed_where_the_run_wants_it_and_timed_under_its_name_in_the_order_it_ran() -> None:
    from harness.run.phases import Stage, perform

    done: list[str] = []
    phases: dict[str, float] = {}
    stages = [Stage("analysis", lambda s: s.append("analysis")),
              Stage("profile", lambda s: s.append("profile"), lambda s: False),
              Stage("measure", lambda s: s.append("measure"), timed=False),
              Stage("report", lambda s: s.append("report"))]
    perform(stages, done, phases)
    assert done == ["analysis", "measure", "report"] and list(phases) == ["analysis", "report"]


def test_the_cuda_line_counts_what_was_compiled_rather_than_promising_it() -> None:
    rs = [record("cuda", "cpu", Status.COMPILED, kernel="a", reason="no GPU: compiled for sm_90a, not run"),
          record("cuda", "cpu", Status.SKIPPED, kernel="b", reason="no compiler"),
          record("cuda", "cpu", Status.FAILED, kernel="c", reason="compile: NVRTCError: boom")]
    line = run_lines.compiled_line(rs)
    assert line.startswith("CUDA sources: 3 in this run, 1 compiled (no GPU: compiled for sm_90a, not run)")
    assert "1 skipped (no compiler)" in line and "1 failed (compile)" in line
    nothing = run_lines.compiled_line([record("cuda", "cpu", Status.SKIPPED, kernel="a", reason="no compiler")])
    assert "compiled" not in nothing.replace("0 compiled", "")


def test_report_defaults_to_a_folder_under_runs_not_beside_the_results(tmp_path, monkeypatch, capsys) -> None:
    import harness.report

    src = next((ROOT / "results").glob("*.jsonl"), None)
    if src is None:
        pytest.skip("no recorded results under results/")
    seen = {}

    def fake_render(path: Path, out_dir: Path) -> tuple[Path, Path]:
        seen["out"] = out_dir
        return out_dir / f"{path.stem}.html", out_dir / f"{path.stem}.md"

    monkeypatch.setattr(harness.report, "render", fake_render)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["report", str(src)]) == 0
    assert seen["out"] == Path("runs") / f"report-{src.stem}"
    assert f"runs/report-{src.stem}/{src.stem}.html" in capsys.readouterr().out


def test_explain_stacks_below_the_side_by_side_width_and_says_so(capsys) -> None:
    import io

    from rich.console import Console

    from harness.cli.kernels import explain
    from harness.registry import get

    kernel = get("s004.block_tiling_gemm<32>")
    for width, said in ((100, "layout: stacked"), (180, "layout: side by side")):
        buf = io.StringIO()
        explain(kernel, Console(file=buf, width=width, color_system=None), side_by_side=160)
        text = buf.getvalue()
        assert said in text and "__syncthreads" in text and "tl.dot" in text
        assert max(len(line) for line in text.splitlines()) <= width
        if width >= 160:  # side by side: a line holds CUDA and Triton panels' borders next to each other
            assert any(line.count("╭") >= 2 for line in text.splitlines())


@pytest.mark.skipif(env.has_gpu(), reason="the CPU tier's run; on a GPU `rosetta run` times for real")
def test_a_piped_cpu_run_logs_progress_and_writes_under_runs(tmp_path) -> None:
    # stdout is a pipe, as in a CI log: no terminal, so one line per finished implementation.
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "run", "--only", "s002.tiled_matmul<16>",
                           "--no-report"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    done = [ln for ln in lines if " of " in ln and ("ok" in ln or "compiled" in ln or "skipped" in ln)]
    assert len(done) >= 3, proc.stdout          # the baseline, the counterpart, the CUDA source
    assert any("torch CPU (fp32)" in ln for ln in done) and "cuBLAS fp32" not in proc.stdout
    assert any(ln.startswith("phases: plan ") for ln in lines)
    assert not any("sm_90" in ln for ln in lines[:3]), "the banner promises a compile before it happened"
    written = list((tmp_path / "runs").glob("*.jsonl"))
    assert len(written) == 1 and f"results: runs/{written[0].name}" in proc.stdout


@pytest.mark.skipif(env.has_gpu(), reason="the CPU tier's run; on a GPU `rosetta run` times for real")
def test_a_cold_cpu_runs_phases_add_up_to_its_wall_time_and_name_the_rest(tmp_path) -> None:
    # Empty caches, as in a fresh clone: the Triton counterpart's sm_90 compile (its resources) and the CUDA build are
    # paid in full, and each must show as a phase rather than vanish into the wall time.
    import re

    from harness.records.file import load

    caches = {"ROSETTA_CACHE_DIR": str(tmp_path / "cache"), "TRITON_CACHE_DIR": str(tmp_path / "triton")}
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "run", "--only", "s003.naive_sgemv", "--out",
                           str(tmp_path / "out")], cwd=tmp_path, env={**os.environ, **caches, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("phases: "))
    wall = float(re.search(r"\(wall (\d+\.\d) s\)$", line).group(1))
    inner = re.search(r"implementations \d+\.\d s \(([^)]*)\)", line).group(1)
    outside = re.sub(r"\([^)]*\)", "", line.removeprefix("phases: "))  # the stages, the report, the rest
    top = {name.strip(): float(s) for name, s in re.findall(r"([a-zA-Z][a-zA-Z ]*?) (\d+\.\d) s", outside)}
    assert {"plan", "worker start", "implementations", "CUDA builds", "analysis", "summary", "report", "other"} \
        <= set(top), line
    assert sum(top.values()) == pytest.approx(wall, abs=0.05 * len(top)), line
    assert sum(float(s) for s in re.findall(r"(\d+\.\d) s", inner)) >= 0.8 * top["implementations"] - 0.2, line
    assert re.search(r"other \d+\.\d s \(imports, ", line), line
    records = load(next((tmp_path / "out").glob("*.jsonl"))).results
    assert all(r.phase_s.get("resources", 0) > 0 for r in records if r.model == "triton")
    assert all(r.phase_s.get("build", 0) > 0 for r in records if r.model == "cuda")


def test_a_log_gets_a_line_per_finished_implementation_and_a_heartbeat_while_nothing_finishes(monkeypatch) -> None:
    import io
    import time

    from rich.console import Console

    from harness.run.session import Progress

    monkeypatch.setattr(cli_progress, "HEARTBEAT_S", 0.2)
    buf = io.StringIO()
    with cli_progress.Reporter(Console(file=buf, width=100)) as reporter:
        reporter(Progress(0, 2, starting="sgemm 35x37x29: s002.tiled_matmul<16> [triton:dot]"))
        time.sleep(1.2)
        reporter(Progress(1, 2, record("triton:dot", "cpu", kernel="s002.tiled_matmul<16>"), 0.5))
    lines = buf.getvalue().splitlines()
    beats = [ln for ln in lines if ln.startswith("... 0 of 2, elapsed")]
    assert beats and "s002.tiled_matmul<16> [triton:dot]" in beats[0]
    assert lines[-1].split() == ["1", "of", "2", "ok", "0.5", "s", "sgemm", "35x37x29", "s002.tiled_matmul<16>",
                                 "Triton", "dot"]
    assert reporter.results and reporter.results[0].kernel == "s002.tiled_matmul<16>"


def test_a_terminal_gets_one_live_line_and_failures_as_they_happen() -> None:
    import io

    from rich.console import Console

    from harness.run.session import Progress

    buf = io.StringIO()
    console = Console(file=buf, width=100, force_terminal=True, color_system=None)
    with cli_progress.Reporter(console) as reporter:
        reporter(Progress(0, 2, starting="sgemm 35x37x29: baseline [cublas]"))
        reporter(Progress(1, 2, record("cublas", "cpu"), 0.2))
        reporter(Progress(2, 2, record("cuda", "cpu", Status.FAILED, kernel="k", reason="crashed: SIGSEGV"), 1.0))
        assert reporter._status().startswith("2 of 2, elapsed 0:00, ~0:00 left")
    text = buf.getvalue()
    assert "failed" in text and "crashed: SIGSEGV" in text
    assert "torch CPU (fp32)" not in text  # a success is not printed above the live line on a terminal


def test_a_sustained_pass_resumed_with_aa_keeps_the_runs_own_aa_setting_for_its_burst_rows(tmp_path) -> None:
    """--aa with --resume and --regime sustained is the sustained pass's A/A control: the finished run it continues
    was timed without one, and is neither refused as another run's file nor timed again."""
    import argparse

    from harness.records.file import load

    recorded = sorted(Path("results").glob("nvidia-h100-*Z.jsonl"))
    burst = next(p for p in reversed(recorded) if not load(p).header.aa and not load(p).header.regime)
    args = argparse.Namespace(resume=str(burst), regime="sustained", aa=True)
    assert cli_run.burst_aa(args) is False
    assert cli_run.burst_aa(argparse.Namespace(resume=None, regime="sustained", aa=True)) is True
    assert cli_run.burst_aa(argparse.Namespace(resume=str(burst), regime="burst", aa=True)) is True
