"""`rosetta profile`'s engine: Nsight Compute counters for each implementation of each kernel on one problem.

Each implementation runs in its own process under ncu (``python -m harness.inspect.profile --one KERNEL_ID
IMPL M N K``), launched once, so one kernel's replay (or crash) cannot disturb another's.
``--clock-control none`` keeps the clocks as the timed runs see them. From the CSV ncu prints, the
counters the report needs are read back: FMA-pipe and tensor-pipe utilisation, shared-memory bank
conflicts, DRAM bytes (set beside the roofline model's bytes), achieved occupancy, global reads (plain
loads and cp.async copies), executed load and spill instructions and the cycles warps stall on memory and
barriers. The result per implementation is a flat ``dict[str, float]``, the shape of ``records.Resources.profile``.

An autotuned counterpart chooses its tile by timing, and under the profiler's replay it may choose another one
than the timed run did, so its counters would describe another kernel. Given the configuration a results file
recorded for it (``harness.run.results.autotuned_configs``), the launch under ncu is pinned to that
configuration, and the counters
carry ``config_pinned`` (1.0: the timed configuration ran; 0.0: it could not be pinned and another one ran).
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import Any

from harness.baselines import is_triton_baseline
from harness.inspect.tools import find_tool, run
from harness.problems import Problem
from harness.registry import Kernel, get
from harness.roofline import operand_bytes, tile_bytes
from kernels_triton.forms import AutotunedForm

__all__ = ["METRICS", "ProfileRow", "command", "derive", "parse_csv", "pin", "profile",
           "profile_one"]

# What each counter is called in the result, and ncu's name for it.
METRICS: dict[str, str] = {
    "fma_pipe_pct": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "tensor_pipe_pct": "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
    # The two memories a wgmma kernel leans on: L2 (the copy engine's source) and shared memory, which wgmma reads
    # its operands from (the tensor pipe above counts HGMMA too).
    "l2_throughput_pct": "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
    "smem_throughput_pct": "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed",
    "smem_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "dram_bytes": "dram__bytes.sum",
    "achieved_occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "duration_ns": "gpu__time_duration.sum",
    # How a kernel reads global memory: plain loads (through registers) and cp.async (LDGSTS, straight to shared
    # memory). A float4 copy moves 4x the bytes of a float copy per warp instruction, so a kernel that falls back
    # to 4-byte copies on an unaligned shape shows it here: more requests, fewer bytes each.
    "ld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "ld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "ldgsts_instructions": "sm__sass_inst_executed_op_ldgsts.sum",
    "ldgsts_bytes": "sm__sass_data_bytes_mem_global_op_ldgsts.sum",
    # Executed instruction counts (not the static SASS, which includes paths that never run, such as the beta != 0
    # read of C): global and shared loads, and local-memory traffic (spills) as it actually runs.
    "global_ld_instructions": "sm__sass_inst_executed_op_global_ld.sum",
    "shared_ld_instructions": "sm__sass_inst_executed_op_shared_ld.sum",
    "local_ld_instructions": "sm__sass_inst_executed_op_local_ld.sum",
    "local_st_instructions": "sm__sass_inst_executed_op_local_st.sum",
    # Why warps wait, in cycles per issued instruction: on global memory (long scoreboard), on shared memory
    # (short scoreboard, MIO throttle) and at barriers.
    "stall_long_scoreboard": "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "stall_short_scoreboard": "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
    "stall_mio_throttle": "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
    "stall_barrier": "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
    # ... on a busy execution pipe (a saturated tensor pipe shows here), and on fixed-latency dependencies
    "stall_math_pipe_throttle": "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",
    "stall_wait": "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
    "stall_not_selected": "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio",
    # What the issue slots spend: every warp instruction executed, the FFMAs among them (per thread), and how often
    # a scheduler issued at all. An SGEMM's FFMA count is fixed by the problem, so the instructions beside each FFMA
    # (loads, address arithmetic, loop control) are what a faster fp32 kernel has fewer of.
    "instructions_executed": "smsp__inst_executed.sum",
    "ffma_thread_instructions": "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "issue_active_pct": "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "sm_clock_hz": "smsp__cycles_elapsed.avg.per_second",
}
# What the profiled child prints of the configuration it launched (an autotuned counterpart's choice).
CONFIG_MARK = "rosetta-profiled-config: "
# Unit prefixes ncu may print when --print-units base is not honoured (it is asked for).
_SCALE = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_TIME = {"ns": 1.0, "nsecond": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6, "second": 1e9, "s": 1e9}
TIMEOUT_S = 900
# What the child is given in place of a kernel id when it launches a baseline: this and the problem's op.
BASELINE_MARK = "baseline:"


@dataclass
class ProfileRow:
    kernel: str | None              # None for a baseline
    impl: str                       # "cuda", "triton:<counterpart>" or a baseline's name (harness/baselines.py)
    problem: dict
    metrics: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    config: dict | None = None      # an autotuned counterpart's configuration as the profiled launch ran it


def _value(text: str, unit: str) -> float | None:
    text = text.strip().replace(",", "")
    try:
        value = float(text)
    except ValueError:
        return None  # "n/a" and the like
    unit = unit.strip()
    if unit in _TIME:
        return value * _TIME[unit]
    if unit.endswith("byte"):
        return value * _SCALE.get(unit[: -len("byte")], 1.0)
    return value


def parse_csv(text: str, kernel_name: str | None = None, longest: bool = False) -> dict[str, float]:
    """The last profiled launch's counters, by METRICS key, from ``ncu --csv`` output (the long
    "one row per metric" layout: ID, ..., Kernel Name, ..., Metric Name, Metric Unit, Metric Value).

    Lines before the header (ncu's ==PROF== notes, the program's own output) are skipped. With
    `kernel_name`, only launches whose name contains it count. With `longest`, the launch that ran longest counts
    instead of the last: a library's GEMM, whose kernel name is its own choice, beside the fills that made its
    operands.
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        raise ValueError("no ncu CSV header (a line starting with \"ID\") in the output")
    by_launch: dict[str, dict[str, float]] = {}
    names = {v: k for k, v in METRICS.items()}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        if not row.get("ID") or not row["ID"].strip().isdigit():
            continue  # an interleaved line from the program, not a record
        if kernel_name and kernel_name not in row.get("Kernel Name", ""):
            continue
        key = names.get(row.get("Metric Name", ""))
        value = _value(row.get("Metric Value", ""), row.get("Metric Unit", ""))
        if key is not None and value is not None:
            by_launch.setdefault(row["ID"], {})[key] = value
    if not by_launch:
        raise ValueError(f"ncu reported no launch{' of ' + kernel_name if kernel_name else ''} with these metrics")
    if longest:
        return max(by_launch.values(), key=lambda m: m.get("duration_ns", 0.0))
    return by_launch[max(by_launch, key=int)]


def derive(metrics: dict[str, float], kernel: Kernel | None, impl: str, problem: Problem) -> dict[str, float]:
    """Set the DRAM bytes beside the model's: the fewest bytes any implementation must move, and the bytes
    of the implementation's tile (each block reads its A rows and B columns once; a baseline's tile is its own
    affair, so it has none)."""
    out = dict(metrics)
    out["model_bytes"] = float(operand_bytes(problem))
    if kernel is not None:
        if impl == "cuda":
            tm, tn = kernel.tile_m, kernel.tile_n
        else:
            from harness.launch import triton as launch_triton

            cfg = launch_triton.config(kernel, kernel.counterpart(impl.split(":", 1)[1]))
            tm, tn = int(cfg.get("block_m", kernel.tile_m)), int(cfg.get("block_n", kernel.tile_n) or 1)
        out["tile_model_bytes"] = float(tile_bytes(problem, tm, max(tn, 1), kernel.reads_c_when_beta_zero))
    if "dram_bytes" in out:
        out["dram_vs_model"] = out["dram_bytes"] / out["model_bytes"]
    if out.get("ld_requests"):
        out["ld_sectors_per_request"] = out.get("ld_sectors", 0.0) / out["ld_requests"]
    if out.get("ldgsts_instructions"):
        out["ldgsts_bytes_per_instruction"] = out.get("ldgsts_bytes", 0.0) / out["ldgsts_instructions"]
    if "local_ld_instructions" in out or "local_st_instructions" in out:
        out["local_instructions"] = out.get("local_ld_instructions", 0.0) + out.get("local_st_instructions", 0.0)
    if "ld_requests" in out or "ldgsts_instructions" in out:
        # Global read instructions per thousand FMAs: the copy path's cost beside the math it feeds.
        fmas = problem.flops / 2
        reads = out.get("ld_requests", 0.0) + out.get("ldgsts_instructions", 0.0)
        out["global_requests_per_kfma"] = reads / fmas * 1e3
    if out.get("ffma_thread_instructions") and "instructions_executed" in out:
        # Warp instructions issued beside each warp-wide FFMA: 0 would be a kernel that does nothing but multiply.
        ffma_warp = out["ffma_thread_instructions"] / 32
        out["other_per_ffma"] = (out["instructions_executed"] - ffma_warp) / ffma_warp
    return out


@cache
def known_metrics() -> frozenset[str] | None:
    """The base names of the counters this ncu knows on this GPU, or None when it cannot say.

    A counter's name can change between ncu versions; asking for one it lacks fails the whole launch, so
    `command` leaves such counters out (and `profile` names them) rather than losing every counter.
    """
    try:
        proc = run([find_tool("ncu"), "--query-metrics"], timeout=120)
    except Exception:
        return None
    names = {line.split()[0] for line in proc.stdout.splitlines() if line.split() and "__" in line.split()[0]}
    return frozenset(names) if "dram__bytes" in names else None  # an output this parser does not understand


def asked_metrics() -> dict[str, str]:
    """METRICS less the counters this ncu does not know (all of them when it cannot say)."""
    known = known_metrics()
    return {k: v for k, v in METRICS.items() if known is None or v.split(".", 1)[0] in known}


def _kernel_name(kernel: Kernel | None, impl: str) -> str | None:
    """The name ncu shows for the implementation's kernel: the CUDA function's identifier or the Triton
    kernel's Python name; None for a cuBLAS baseline, whose kernel the library picks (its longest launch counts)."""
    if kernel is None:
        if is_triton_baseline(impl):
            from kernels_triton import gemm_tutorial

            return gemm_tutorial.gemm_tutorial_kernel.__name__
        return None
    if impl == "cuda":
        return kernel.symbol.split("<", 1)[0].strip()
    from harness.launch import triton as launch_triton

    mod = launch_triton.module(kernel.counterpart(impl.split(":", 1)[1]))
    return getattr(getattr(mod.KERNEL, "fn", mod.KERNEL), "__name__", "")


def command(kernel: Kernel | None, impl: str, problem: Problem, config: dict | None = None) -> list[str]:
    ncu = find_tool("ncu")
    name = _kernel_name(kernel, impl)
    return [str(ncu), "--clock-control", "none", "--csv", "--print-units", "base",
            *(["--kernel-name", f"regex:{name}"] if name else []), "--metrics", ",".join(asked_metrics().values()),
            sys.executable, "-m", "harness.inspect.profile", "--one",
            kernel.id if kernel else BASELINE_MARK + problem.op, impl,
            str(problem.M), str(problem.N), str(problem.K), *([json.dumps(config, sort_keys=True)] if config else [])]


def _config_read_back(stdout: str) -> dict | None:
    line = next((ln for ln in reversed(stdout.splitlines()) if ln.startswith(CONFIG_MARK)), None)
    return json.loads(line[len(CONFIG_MARK):]) if line else None


def profile_one(kernel: Kernel | None, impl: str, problem: Problem, config: dict | None = None) -> ProfileRow:
    """One implementation under ncu (`kernel` None: the baseline `impl`); with `config` (the timed run's autotuned
    choice) the launch is pinned to it."""
    row = ProfileRow(kernel.id if kernel else None, impl, problem.to_json())
    unmet = kernel.unmet(problem) if kernel else []
    if unmet:
        row.error = "skipped: " + "; ".join(unmet)
        return row
    try:
        proc = run(command(kernel, impl, problem, config), timeout=TIMEOUT_S)
    except Exception as e:  # no ncu, or the replay overran: recorded, the sweep goes on
        row.error = f"{type(e).__name__}: {e}"
        return row
    try:
        name = _kernel_name(kernel, impl)
        row.metrics = derive(parse_csv(proc.stdout, name, longest=name is None), kernel, impl, problem)
    except ValueError as e:
        row.error = f"{e} (exit {proc.returncode}): {(proc.stderr or proc.stdout)[-1500:]}"
        return row
    row.config = _config_read_back(proc.stdout)
    if config is not None:
        row.metrics["config_pinned"] = 1.0 if _same_config(row.config, config) else 0.0
    return row


def _same_config(ran: dict | None, wanted: dict) -> bool:
    return ran is not None and all(ran.get(k) == v for k, v in wanted.items())


def pin(module: Any, config: dict) -> bool:
    """Restrict every autotuner in a counterpart's module to the one configuration `config` names (block_m,
    num_warps, ... as ``chosen_config()`` reports them), so a launch runs it without tuning. False where no
    autotuner of the module has that configuration."""
    from triton.runtime.autotuner import Autotuner

    pinned = False
    for tuner in (v for v in vars(module).values() if isinstance(v, Autotuner)):
        same = [c for c in tuner.configs
                if c.num_warps == config.get("num_warps", c.num_warps)
                and c.num_stages == config.get("num_stages", c.num_stages)
                and all(config.get(k.lower(), v) == v for k, v in c.kwargs.items())]
        if same:
            tuner.configs = same[:1]              # one configuration: the autotuner launches it without timing
            pinned = True
    return pinned


def profile(kernels: list[Kernel], problem: Problem, out_dir: Path, console: Any,
            on_row: Callable[[ProfileRow], None] | None = None,
            configs: dict[tuple[str | None, str], dict] | None = None,
            baselines: bool = False) -> list[ProfileRow]:
    """Every implementation of every kernel under ncu on `problem`; writes profile-<time>.json in out_dir.
    With `baselines`, the problem's baselines too (cuBLAS in each class, the Triton tutorial GEMM in each class),
    so that a kernel's counters stand beside the yardstick it is timed against.

    `configs` ((kernel id, impl) -> configuration, see `harness.run.results.autotuned_configs`) pins autotuned
    counterparts to the configuration their timed run chose. The JSON is rewritten after every implementation (and
    `on_row` called), so a profile cut short keeps every counter it read.
    """
    rows: list[ProfileRow] = []
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = out_dir / f"profile-{stamp}.json"
    todo: list[tuple[Kernel | None, str]] = [(k, impl) for k in kernels if k.op == problem.op
                                             for impl in ["cuda", *(f"triton:{c.name}" for c in k.counterparts)]]
    if baselines:
        from harness.launch.implementations import baselines as of_op

        todo += [(None, impl.name) for impl in of_op(problem.op)]
    for kernel, impl in todo:
        row = profile_one(kernel, impl, problem, (configs or {}).get((kernel.id if kernel else None, impl)))
        rows.append(row)
        m = row.metrics
        said = row.error or (f"FMA pipe {m.get('fma_pipe_pct', float('nan')):.1f}%, tensor pipe "
                             f"{m.get('tensor_pipe_pct', float('nan')):.1f}%, bank conflicts "
                             f"{m.get('smem_bank_conflicts', 0):.0f}, DRAM {m.get('dram_vs_model', 0):.2f}x model, "
                             f"occupancy {m.get('achieved_occupancy_pct', float('nan')):.1f}%, issue active "
                             f"{m.get('issue_active_pct', float('nan')):.1f}%, other instructions per FFMA "
                             f"{m.get('other_per_ffma', float('nan')):.3f}")
        console.print(f"{'ok  ' if not row.error else 'FAIL'} {kernel.id if kernel else impl}"
                      f"{f' [{impl}]' if kernel else ''} {problem.shape_label}: {said}",
                      markup=False)
        path.write_text(json.dumps({"started": stamp, "problem": problem.to_json(), "metrics": asked_metrics(),
                                    "not_known_to_ncu": sorted(set(METRICS) - set(asked_metrics())),
                                    "rows": [asdict(r) for r in rows]}, indent=1))
        if on_row is not None:
            on_row(row)
    console.print(f"profile: {len(rows)} implementations, {sum(r.error is not None for r in rows)} without counters; "
                  f"{path}", markup=False)
    return rows


def _problem(op: str, m: str, n: str, k: str) -> Problem:
    """The problem the child is given on its command line (an sgemv's K is not part of it)."""
    return Problem(op, int(m), int(n), int(k)) if op == "sgemm" else Problem(op, int(m), int(n))


def _main(argv: list[str]) -> None:
    from harness.inspect.one_launch import launch_once

    kernel_id, impl, m, n, k = argv[:5]
    config = json.loads(argv[5]) if len(argv) > 5 else None
    if kernel_id.startswith(BASELINE_MARK):
        _baseline_main(impl, _problem(kernel_id[len(BASELINE_MARK):], m, n, k), config)
        return
    kernel = get(kernel_id)
    problem = _problem(kernel.op, m, n, k)
    mod = None
    if impl != "cuda":
        from harness.launch import triton as launch_triton

        mod = launch_triton.module(kernel.counterpart(impl.split(":", 1)[1]))
        if config is not None and not pin(mod, config):
            print(f"profile: no configuration of {impl} matches {config}; the tuner chooses", file=sys.stderr)
    launch_once(kernel, impl, problem, scalars=(problem.alpha, problem.beta))
    ran = mod.chosen_config() if isinstance(mod, AutotunedForm) else None
    if ran is not None:
        print(CONFIG_MARK + json.dumps(ran, sort_keys=True), flush=True)


def _baseline_main(name: str, problem: Problem, config: dict | None) -> None:
    from harness.inspect.one_launch import launch_baseline_once

    if config is not None and is_triton_baseline(name):
        from kernels_triton import gemm_tutorial

        if not pin(gemm_tutorial, config):
            print(f"profile: no configuration of {name} matches {config}; the tuner chooses", file=sys.stderr)
    launch_baseline_once(name, problem)
    if is_triton_baseline(name):
        from harness.launch import triton_tutorial

        ran = triton_tutorial.chosen_config(name).get("autotuned")
        if ran is not None:
            print(CONFIG_MARK + json.dumps(ran, sort_keys=True), flush=True)


if __name__ == "__main__":
    if len(sys.argv) in (7, 8) and sys.argv[1] == "--one":
        _main(sys.argv[2:])
