"""`rosetta profile`'s engine: ncu's CSV read back into the counters a result stores (CPU: parsing only).

The sample below is a SYNTHETIC FIXTURE, written by hand in the layout `ncu --csv --print-units base
--metrics ...` documents for its details page (one row per metric: ID, Process ID, Process Name, Host
Name, Kernel Name, Context, Stream, Block Size, Grid Size, Device, CC, Section Name, Metric Name, Metric
Unit, Metric Value), with ncu's ==PROF== lines and the program's own output around it. Its numbers are
made up; they were not measured.
"""

from __future__ import annotations

import json

import pytest

from harness.inspect import profile
from harness.problems import Problem
from harness.records import file as results
from harness.registry import BY_ID

_HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
           '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def _rows(launch: int, kernel: str, values: dict[str, tuple[str, str]]) -> list[str]:
    return [f'"{launch}","4242","python3","127.0.0.1","{kernel}","1","7","(256, 1, 1)","(64, 64, 1)","0","9.0",'
            f'"Command line profiler metrics","{metric}","{unit}","{value}"'
            for metric, (unit, value) in values.items()]


_TILE = {
    "dram__bytes.sum": ("byte", "201,326,592"),
    "gpu__time_duration.sum": ("ns", "1,234,567"),
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum": ("", "1,048,576"),
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active": ("%", "71.25"),
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active": ("%", "0"),
    "sm__warps_active.avg.pct_of_peak_sustained_active": ("%", "48.90"),
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": ("", "2,097,152"),
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": ("sector", "33,554,432"),
    "sm__sass_inst_executed_op_ldgsts.sum": ("inst", "0"),
    "sm__sass_data_bytes_mem_global_op_ldgsts.sum": ("byte", "0"),
    "sm__sass_inst_executed_op_global_ld.sum": ("inst", "2,097,152"),
    "sm__sass_inst_executed_op_shared_ld.sum": ("inst", "16,777,216"),
    "sm__sass_inst_executed_op_local_ld.sum": ("inst", "1,024"),
    "sm__sass_inst_executed_op_local_st.sum": ("inst", "512"),
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": ("ratio", "1.25"),
    "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio": ("ratio", "0.5"),
    "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio": ("ratio", "0.25"),
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio": ("ratio", "0.75"),
    "lts__t_sectors.avg.pct_of_peak_sustained_elapsed": ("%", "41.5"),
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed": ("%", "63.25"),
    "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio": ("ratio", "0.125"),
    "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio": ("ratio", "0.375"),
    "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio": ("ratio", "0.0625"),
    "smsp__inst_executed.sum": ("inst", "4,294,967,296"),
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": ("inst", "68,719,476,736"),
    "smsp__issue_active.avg.pct_of_peak_sustained_active": ("%", "80.5"),
    "smsp__cycles_elapsed.avg.per_second": ("hz", "1,755,000,000"),
}
SYNTHETIC_NCU_CSV = "\n".join([
    "==PROF== Connected to process 4242 (/usr/bin/python3.11)",
    "==PROF== Profiling \"sgemm_tile_kernel\" - 0: 0%....50%....100% - 9 passes",
    "==PROF== Profiling \"sgemm_tile_kernel\" - 1: 0%....50%....100% - 9 passes",
    "some line the program printed",
    "==PROF== Disconnected from process 4242",
    _HEADER,
    *_rows(0, "distribution_elementwise_grid_stride_kernel", {"dram__bytes.sum": ("byte", "64")}),
    *_rows(1, "sgemm_tile_kernel", {**_TILE, "dram__bytes.sum": ("byte", "999")}),
    *_rows(2, "sgemm_tile_kernel", _TILE),
])


def test_parse_reads_the_last_launch_of_the_named_kernel():
    m = profile.parse_csv(SYNTHETIC_NCU_CSV, "sgemm_tile_kernel")
    assert set(m) == set(profile.METRICS)
    assert m["dram_bytes"] == 201_326_592          # thousands separators dropped
    assert m["smem_bank_conflicts"] == 1_048_576
    assert m["fma_pipe_pct"] == pytest.approx(71.25)
    assert m["tensor_pipe_pct"] == 0.0
    assert m["achieved_occupancy_pct"] == pytest.approx(48.9)
    assert m["duration_ns"] == 1_234_567


def test_parse_without_a_name_takes_the_last_launch_and_converts_units():
    text = "\n".join([_HEADER, *_rows(3, "k", {"dram__bytes.sum": ("Mbyte", "1.5"),
                                                 "gpu__time_duration.sum": ("usecond", "2.5"),
                                                 "sm__warps_active.avg.pct_of_peak_sustained_active": ("%", "n/a")})])
    m = profile.parse_csv(text)
    assert m == {"dram_bytes": 1.5e6, "duration_ns": 2500.0}


def test_parse_says_what_is_missing():
    with pytest.raises(ValueError, match="no ncu CSV header"):
        profile.parse_csv("==PROF== ERR_NVGPUCTRPERM - no permission\n")
    with pytest.raises(ValueError, match="no launch of other_kernel"):
        profile.parse_csv(SYNTHETIC_NCU_CSV, "other_kernel")


def test_derive_sets_dram_beside_the_model():
    kernel = BY_ID["s000.gemm_block_tiling_v3<64,64,16,16,16>"]
    p = Problem("sgemm", 4096, 4096, 4096)
    m = profile.derive(profile.parse_csv(SYNTHETIC_NCU_CSV, "sgemm_tile_kernel"), kernel, "triton:dot", p)
    assert m["model_bytes"] == 4 * 3 * 4096 * 4096
    assert m["dram_vs_model"] == pytest.approx(201_326_592 / (4 * 3 * 4096 * 4096))
    assert m["tile_model_bytes"] > m["model_bytes"]  # each block re-reads its panels of A and B
    assert all(isinstance(v, float) for v in m.values())  # the shape of records.Resources.profile
    assert m["ld_sectors_per_request"] == 16.0            # float4 copies: 512 bytes a warp-wide request
    assert "ldgsts_bytes_per_instruction" not in m        # no cp.async copies: no ratio made of nothing
    assert m["global_requests_per_kfma"] == pytest.approx(2_097_152 / 4096**3 * 1e3)
    assert m["local_instructions"] == 1_536.0             # executed spill traffic: local loads and stores
    assert m["stall_long_scoreboard"] == pytest.approx(1.25)


def test_the_profiled_launch_of_an_autotuned_row_is_pinned_to_the_timed_configuration(monkeypatch):
    from pathlib import Path

    monkeypatch.setattr(profile, "find_tool", lambda name: Path(f"/opt/{name}"))
    kernel = BY_ID["rosetta.sgemm_general<128,256,16,32,128,8,16,8>"]
    chosen = {"block_m": 64, "block_n": 128, "block_k": 64, "group_m": 8, "num_warps": 8, "num_stages": 3}
    p = Problem("sgemm", 4096, 4096, 4096)
    cmd = profile.command(kernel, "triton:autotuned", p, chosen)
    assert cmd[-7:-1] == ["--one", kernel.id, "triton:autotuned", "4096", "4096", "4096"]
    assert json.loads(cmd[-1]) == chosen
    assert profile.command(kernel, "cuda", p)[-1] == "4096"          # nothing to pin: no extra argument


def test_pin_leaves_the_autotuner_one_configuration(monkeypatch):
    import kernels_triton.gemm_autotuned as mod

    chosen = {"block_m": 64, "block_n": 128, "block_k": 64, "group_m": 8, "num_warps": 8, "num_stages": 3}
    monkeypatch.setattr(mod.sgemm_autotuned, "configs", list(mod.sgemm_autotuned.configs))
    assert profile.pin(mod, chosen)
    (only,) = mod.sgemm_autotuned.configs
    assert (only.kwargs["BLOCK_M"], only.kwargs["BLOCK_K"], only.num_stages) == (64, 64, 3)
    assert not profile.pin(mod, {**chosen, "block_m": 4})           # no such configuration: nothing pinned


def test_the_configuration_a_profiled_launch_ran_is_read_back_and_checked(monkeypatch):
    chosen = {"block_m": 64, "num_warps": 8}
    out = SYNTHETIC_NCU_CSV.replace("some line the program printed",
                                    profile.CONFIG_MARK + json.dumps({**chosen, "block_n": 128}))

    class Proc:
        stdout, stderr, returncode = out, "", 0

    monkeypatch.setattr(profile, "run", lambda cmd, timeout: Proc())
    monkeypatch.setattr(profile, "command", lambda *a: ["ncu"])
    monkeypatch.setattr(profile, "_kernel_name", lambda kernel, impl: "sgemm_tile_kernel")
    kernel = BY_ID["s000.gemm_block_tiling_v3<64,64,16,16,16>"]
    p = Problem("sgemm", 4096, 4096, 4096)
    row = profile.profile_one(kernel, "cuda", p, chosen)
    assert row.config == {**chosen, "block_n": 128} and row.metrics["config_pinned"] == 1.0
    row = profile.profile_one(kernel, "cuda", p, {**chosen, "block_m": 128})
    assert row.metrics["config_pinned"] == 0.0                     # another configuration ran: said so
    assert "config_pinned" not in profile.profile_one(kernel, "cuda", p).metrics


def test_autotuned_configs_come_from_the_timed_records(tmp_path):
    from harness.records.file import ResultsWriter
    from harness.records.lines import Resources, Result, RunHeader, Status

    p = Problem("sgemm", 4096, 4096, 4096)
    chosen = {"block_m": 64, "num_warps": 8}
    kid = "rosetta.sgemm_general<128,256,16,32,128,8,16,8>"
    path = tmp_path / "r.jsonl"
    with ResultsWriter(path) as w:
        w.write(RunHeader("t", "gpu", "synthetic", {}, [], 0, [p], 100.0))
        w.write(Result("triton:autotuned", "triton", p, Status.OK, kernel=kid,
                       resources=Resources(config={"block_m": 128, "autotuned": chosen})))
        w.write(Result("triton:dot", "triton", p, Status.OK, kernel=kid, resources=Resources(config={"block_m": 128})))
    assert results.autotuned_configs(path, p) == {(kid, "triton:autotuned"): chosen}
    assert results.autotuned_configs(path, Problem("sgemm", 512, 512, 512)) == {}


def test_counters_this_ncu_does_not_know_are_left_out_not_fatal(monkeypatch):
    known = {v.split(".", 1)[0] for v in profile.METRICS.values()} - {"sm__sass_inst_executed_op_ldgsts"}
    monkeypatch.setattr(profile, "known_metrics", lambda: frozenset(known))
    assert set(profile.METRICS) - set(profile.asked_metrics()) == {"ldgsts_instructions"}
    monkeypatch.setattr(profile, "known_metrics", lambda: None)  # ncu could not say: ask for everything
    assert profile.asked_metrics() == profile.METRICS


def test_the_ncu_command_filters_the_kernel_and_keeps_the_clocks(monkeypatch):
    from pathlib import Path

    monkeypatch.setattr(profile, "find_tool", lambda name: Path(f"/opt/{name}"))
    kernel = BY_ID["s003.coalesced_warp_sgemv"]
    cmd = profile.command(kernel, "cuda", Problem("sgemv", 300, 1001))
    assert cmd[:3] == ["/opt/ncu", "--clock-control", "none"] and "--csv" in cmd
    assert "regex:coalesced_warp_sgemv_kernel" in cmd
    assert cmd[cmd.index("--metrics") + 1].split(",") == list(profile.METRICS.values())
    assert cmd[-6:] == ["--one", kernel.id, "cuda", "300", "1001", "1"]


def test_a_baselines_command_names_no_kernel_and_tells_the_child_the_op(monkeypatch):
    from pathlib import Path

    monkeypatch.setattr(profile, "find_tool", lambda name: Path(f"/opt/{name}"))
    cmd = profile.command(None, "cublas", Problem("sgemm", 300, 301, 302))
    assert not any(a.startswith("regex:") for a in cmd) and "--kernel-name" not in cmd  # the library picks it
    assert cmd[-6:] == ["--one", "baseline:sgemm", "cublas", "300", "301", "302"]
    tutorial = profile.command(None, "triton-tutorial", Problem("sgemm", 300, 301, 302), {"block_m": 64})
    assert "regex:gemm_tutorial_kernel" in tutorial and json.loads(tutorial[-1]) == {"block_m": 64}


def test_a_library_launch_is_read_as_the_longest_one_not_the_last():
    fill = _rows(1, "fill_kernel", {"gpu__time_duration.sum": ("ns", "900"),
                                    "sm__warps_active.avg.pct_of_peak_sustained_active": ("%", "11")})
    gemm = _rows(0, "sm90_xmma_gemm_f32f32", {"gpu__time_duration.sum": ("ns", "9,000,000"),
                                              "sm__warps_active.avg.pct_of_peak_sustained_active": ("%", "22")})
    text = "\n".join([_HEADER, *gemm, *fill])
    assert profile.parse_csv(text)["achieved_occupancy_pct"] == 11.0          # the last launch
    assert profile.parse_csv(text, longest=True)["achieved_occupancy_pct"] == 22.0


@pytest.mark.parametrize("form", ["mirror", "dot"])
def test_a_gluon_forms_counters_are_set_beside_the_cuda_kernels_own_tile(form):
    """A Gluon form has no Triton counterpart of its name ("mirror" failed the whole row on the H100)."""
    kernel = BY_ID["rosetta.sgemm_general<128,256,16,32,128,8,16,8>"]
    p = Problem("sgemm", 4096, 4096, 4096)
    metrics = profile.parse_csv(SYNTHETIC_NCU_CSV, "sgemm_tile_kernel")
    got = profile.derive(metrics, kernel, f"gluon:{form}", p)
    assert got["tile_model_bytes"] == profile.derive(metrics, kernel, "cuda", p)["tile_model_bytes"]


def test_the_instructions_beside_each_ffma_are_derived_from_the_executed_counts():
    p = Problem("sgemm", 64, 64, 64)
    m = profile.derive({"instructions_executed": 12_288.0, "ffma_thread_instructions": 262_144.0}, None,
                       "cublas", p)
    assert m["other_per_ffma"] == pytest.approx((12_288 - 8_192) / 8_192)     # 262,144 FFMAs a thread = 8,192 warp-wide
    assert "tile_model_bytes" not in m and m["model_bytes"] > 0               # a baseline's tile is not ours to model


@pytest.mark.gpu
def test_a_baseline_is_profiled_beside_the_kernels_on_the_gpu(tmp_path):
    from rich.console import Console

    from harness.inspect.tools import has_tool

    if not has_tool("ncu"):
        pytest.skip("ncu (Nsight Compute) is not installed")
    kernel = BY_ID["s003.coalesced_warp_sgemv"]
    rows = profile.profile([kernel], Problem("sgemv", 4096, 4096), tmp_path, Console(quiet=True), baselines=True)
    assert [(r.kernel, r.impl) for r in rows] == [(kernel.id, "cuda"), (kernel.id, "triton:rows"), (None, "cublas")]
    cublas = rows[-1]
    assert cublas.error is None, cublas.error
    assert 0.9 < cublas.metrics["dram_vs_model"] < 1.5  # the longest launch is the GEMV: A read once, not a fill


@pytest.mark.gpu
def test_profile_reads_the_counters_of_both_implementations_on_the_gpu(tmp_path):
    from rich.console import Console

    from harness.inspect.tools import has_tool

    if not has_tool("ncu"):
        pytest.skip("ncu (Nsight Compute) is not installed")
    kernel = BY_ID["s003.coalesced_warp_sgemv"]
    rows = profile.profile([kernel], Problem("sgemv", 4096, 4096), tmp_path, Console(quiet=True))
    assert [r.impl for r in rows] == ["cuda", "triton:rows"]
    for r in rows:
        # every counter asked for is read back, and this ncu knows every counter the suite asks for
        assert r.error is None and set(profile.METRICS) == set(profile.asked_metrics()) <= set(r.metrics), r
        assert 0.9 < r.metrics["dram_vs_model"] < 1.5  # A is read once: the model's bytes, give or take
        assert 0 <= r.metrics["fma_pipe_pct"] <= 100 and r.metrics["tensor_pipe_pct"] < 5
    assert list(tmp_path.glob("profile-*.json"))


@pytest.mark.gpu
def test_an_autotuned_row_is_profiled_in_the_configuration_it_is_given_on_the_gpu():
    from harness.inspect.tools import has_tool

    if not has_tool("ncu"):
        pytest.skip("ncu (Nsight Compute) is not installed")
    import kernels_triton.gemm_autotuned as mod

    kernel = BY_ID["rosetta.sgemm_general<128,256,16,32,128,8,16,8>"]
    first = mod.CONFIGS[-1]  # not the first entry, so a pin that failed would show
    chosen = {"block_m": first.kwargs["BLOCK_M"], "block_n": first.kwargs["BLOCK_N"],
              "block_k": first.kwargs["BLOCK_K"], "group_m": first.kwargs["GROUP_M"], "fold": first.kwargs["FOLD"],
              "num_warps": first.num_warps, "num_stages": first.num_stages}
    row = profile.profile_one(kernel, "triton:autotuned", Problem("sgemm", 2048, 2048, 2048), chosen)
    assert row.error is None, row.error
    assert row.config == chosen and row.metrics["config_pinned"] == 1.0


# ---------------------------------------------------------------------------------------------- rosetta run --profile
def test_the_rows_profiled_are_each_ideas_headline_pair_its_control_rows_and_the_steps_records():
    from harness.analysis.measured import Measured
    from harness.analysis.record import read_beside
    from harness.analysis.steps import counter_rows, hopper_steps, ladder_steps
    from tests.recorded import REPO

    path = REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T102241Z.jsonl"
    m = Measured(results.load(path), read_beside(path))
    rows = counter_rows(m)
    keys = {(k, i, p.key) for p, k, i in rows}
    assert len(keys) == len(rows) and all(k is not None for _, k, _ in rows)     # each once, no baseline
    for _idea, kernels in m.ideas:
        problem = m.headline(kernels[0].op)
        for precision in m.precisions(kernels, problem):
            for best in m.bests(kernels, problem, precision):
                if best is None:
                    continue
                assert best.result.key in keys
                # its control rows: its kernel in the other model, alike in design
                others = [r for r in m.on(problem) if r.kernel == best.result.kernel and r.precision == precision
                          and r.timed and not m.deliberately_different(r) and not r.impl_id.is_build_study]
                assert {r.key for r in others} <= keys
    for s in [*ladder_steps(m), *hopper_steps(m)]:
        for side in (s.cuda, s.triton):
            if side is not None and side.before is not None:
                assert {side.best.result.key, side.before.result.key} <= keys


def test_profile_records_stores_each_records_counters_in_its_timed_configuration(tmp_path, monkeypatch):
    import shutil

    from tests.recorded import REPO

    src = REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T102756Z-tf32.jsonl"
    path = tmp_path / src.name
    shutil.copy(src, path)
    loaded = results.load(path)
    tuned = next(r for r in loaded.results if r.timed and r.resources and (r.resources.config or {}).get("autotuned"))
    plain = next(r for r in loaded.results if r.timed and r.impl == "cuda")
    asked = []

    def fake(kernel, impl, problem, config=None):
        asked.append((kernel.id if kernel else None, impl, config))
        row = profile.ProfileRow(kernel.id if kernel else None, impl, problem.to_json(),
                                 {"duration_ns": 1.0e6, "fma_pipe_pct": 50.0})
        return row

    monkeypatch.setattr(profile, "profile_one", fake)

    class Quiet:
        def print(self, *a, **k):
            pass

    from harness.catalog import CATALOG
    from harness.run.profile import profile_records

    targets = [(tuned.problem, tuned.kernel, tuned.impl), (plain.problem, plain.kernel, plain.impl)]
    rows = profile_records(path, targets, CATALOG, tmp_path, Quiet())
    assert [r.error for r in rows] == [None, None]
    assert asked == [(tuned.kernel, tuned.impl, tuned.resources.config["autotuned"]), (plain.kernel, "cuda", None)]
    again = {r.key: r for r in results.load(path).results}
    assert again[tuned.key].resources.profile == {"duration_ns": 1.0e6, "fma_pipe_pct": 50.0}
    assert again[plain.key].resources.profile["fma_pipe_pct"] == 50.0
    assert len(list(tmp_path.glob("profile-*.json"))) == 1


def test_run_profile_is_refused_before_anything_runs_where_there_is_no_ncu(tmp_path, monkeypatch, capsys):
    from harness import cli, env
    from harness.inspect import tools

    monkeypatch.setattr(env, "has_gpu", lambda: True)
    monkeypatch.setattr(tools, "has_tool", lambda name: name != "ncu")
    assert cli.main(["run", "--only", "s002", "--out", str(tmp_path), "--profile"]) == 2
    assert "ncu" in capsys.readouterr().err and not any(tmp_path.iterdir())


def test_profile_impl_keeps_only_the_named_implementations_and_refuses_an_unknown_one(tmp_path, monkeypatch, capsys):
    from harness import cli, env
    from harness.inspect import profile as profile_mod

    summit = "rosetta.sgemm_general<128,256,16,32,128,8,16,8>"
    assert cli.main(["profile", "--only", summit, "--impl", "gluon:nope", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "gluon:nope" in err and "gluon:mirror" in err and not any(tmp_path.iterdir())

    asked: list[str] = []

    def fake_one(kernel, impl, problem, config):
        asked.append(impl)
        return profile_mod.ProfileRow(kernel.id if kernel else None, impl, problem.to_json(),
                                      {"issue_active_pct": 80.0})

    monkeypatch.setattr(env, "has_gpu", lambda: True)
    monkeypatch.setattr(profile_mod, "profile_one", fake_one)
    assert cli.main(["profile", "--only", summit, "--impl", "gluon:mirror", "gluon:dot", "--out", str(tmp_path)]) == 0
    assert asked == ["gluon:mirror", "gluon:dot"]
