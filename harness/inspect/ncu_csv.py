"""What Nsight Compute is asked and what its answer means: the counters `rosetta profile` reads (METRICS, by the name
a result gives them), the reading of ``ncu --csv`` output into them, and the figures derived from them beside the
roofline model's bytes (`derive`). Running ncu is harness/inspect/profile.py's."""

from __future__ import annotations

import csv
import io

from harness.device.roofline import operand_bytes, tile_bytes
from harness.problems import Problem
from harness.registry import Kernel

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
# Unit prefixes ncu may print when --print-units base is not honoured (it is asked for).
_SCALE = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_TIME = {"ns": 1.0, "nsecond": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6, "second": 1e9, "s": 1e9}


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
        if impl.startswith("gluon:"):  # a Gluon form takes the CUDA kernel's tile (catalog_types/gluon.py config)
            cfg = kernel.gluon_form(impl.split(":", 1)[1]).config(kernel)
            tm, tn = int(cfg["BM"]), int(cfg["BN"])
        elif impl == "cuda":
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
