"""`rosetta sanitize`: compute-sanitizer memcheck, racecheck and synccheck over every CUDA kernel.

Each kernel runs in its own compute-sanitizer process (python -m harness.inspect.sanitize --one ID) at the
smallest shape its preconditions allow above a modest, odd-where-allowed target, so one kernel's
report (or crash) cannot hide another's. The summary lands in results/sanitize-<time>.json.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

from harness.inspect.tools import find_tool
from harness.problems import Problem
from harness.problems.preconditions import allowed_shape
from harness.registry import Kernel, get

TARGET = {"sgemm": Problem("sgemm", 300, 200, 136), "sgemv": Problem("sgemv", 300, 1001)}


def shape_for(kernel: Kernel) -> Problem:
    return allowed_shape(kernel.preconditions, TARGET[kernel.op])


def run_one(kernel_id: str) -> None:
    """Launch the kernel once on shape_for(kernel) with real data (the process compute-sanitizer watches)."""
    from harness.inspect.one_launch import launch_once

    kernel = get(kernel_id)
    launch_once(kernel, "cuda", shape_for(kernel))


_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) error|RACECHECK SUMMARY: (\d+) hazard")


def sanitize(kernels: list[Kernel], tools: list[str], out_dir: Path, console, jobs: int = 8) -> int:
    try:
        exe = str(find_tool("compute-sanitizer"))
    except RuntimeError as e:
        raise ValueError(str(e)) from None

    def one(job: tuple[Kernel, str]) -> dict:
        kernel, tool = job
        # --report-api-errors no: NVIDIA's Python bindings probe the driver's entry points with cuGetProcAddress
        # when a tensor map is first encoded, and each probe the driver answers "invalid value" counts as an
        # error (34 per TMA rung on an H100, none in a kernel). A host API call of the launch path that really
        # fails raises in Python and fails the job anyway; what the tools are for is the kernels' accesses.
        cmd = [exe, "--tool", tool, "--report-api-errors", "no", "--error-exitcode", "99", sys.executable, "-m",
               "harness.inspect.sanitize", "--one", kernel.id]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            text, code = proc.stdout + proc.stderr, proc.returncode
        except subprocess.TimeoutExpired:
            text, code = "timed out after 900 s", -1
        found = [int(a or b) for a, b in _SUMMARY.findall(text)]
        count = sum(found) if found else None
        ok = code == 0 and count == 0
        row = {"kernel": kernel.id, "tool": tool, "shape": shape_for(kernel).shape_label, "errors": count,
               "exit": code, "ok": ok, "tail": "" if ok else text[-1500:]}
        console.print(f"{'ok  ' if ok else 'FAIL'} {tool:9s} {kernel.id} {row['shape']}: "
                      f"{count if count is not None else '?'} {'hazards' if tool == 'racecheck' else 'errors'}",
                      markup=False)
        return row

    # Each job is its own process under the sanitizer; several at once keep the GPU and CPUs busy.
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        rows = list(pool.map(one, [(k, t) for k in kernels for t in tools]))
    bad = sum(not r["ok"] for r in rows)
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = out_dir / f"sanitize-{stamp}.json"
    path.write_text(json.dumps({"finished": stamp, "rows": rows}, indent=1))
    found = {tool: sum(r["errors"] or 0 for r in rows if r["tool"] == tool) for tool in tools}
    counts = ", ".join(f"{n} {tool} {'hazards' if tool == 'racecheck' else 'errors'}" for tool, n in found.items())
    console.print(f"sanitize: {len(kernels)} kernels, {counts}, {bad} failed runs; {path}")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        run_one(sys.argv[2])
