"""`rosetta profile`'s engine: Nsight Compute counters for each implementation of each kernel on one problem.

Each implementation runs in its own process under ncu (``python -m harness.inspect.profile --one KERNEL_ID
IMPL M N K``; a user's declared kernel is handed over as its catalog entry, ``@FILE`` of its JSON), launched once, so
one kernel's replay (or crash) cannot disturb another's.
``--clock-control none`` keeps the clocks as the timed runs see them. From the CSV ncu prints, the counters the
report needs are read back (harness/inspect/ncu_csv.py): FMA-pipe and tensor-pipe utilisation, shared-memory bank
conflicts, DRAM bytes (set beside the roofline model's bytes), achieved occupancy, global reads (plain loads and
cp.async copies), executed load and spill instructions and the cycles warps stall on memory and barriers. The result
per implementation is a flat ``dict[str, float]``, the shape of ``records.Resources.profile``.

An autotuned counterpart chooses its tile by timing, and under the profiler's replay it may choose another one
than the timed run did, so its counters would describe another kernel. Given the configuration a results file
recorded for it (``harness.records.file.autotuned_configs``, read by the caller), the launch under ncu is pinned to
that configuration, and the counters carry ``config_pinned`` (1.0: the timed configuration ran; 0.0: it could not be
pinned and another one ran). The counters are returned; storing them with their records is the caller's
(harness/run/profile.py for `rosetta run --profile`, `rosetta profile --results`).
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import Any

from harness.baselines import is_triton_baseline
from harness.catalog_types.tables import kernel_from_json, kernel_json
from harness.identity import KernelImpl
from harness.inspect.ncu_csv import METRICS, derive, parse_csv
from harness.inspect.tools import find_tool, run
from harness.problems import Problem
from harness.registry import Kernel, get
from kernels_triton.forms import AutotunedForm

__all__ = ["METRICS", "ProfileRow", "command", "derive", "parse_csv", "pin", "profile", "profile_one"]

# What the profiled child prints of the configuration it launched (an autotuned counterpart's choice).
CONFIG_MARK = "rosetta-profiled-config: "
TIMEOUT_S = 900
# What the child is given in place of a kernel id when it launches a baseline: this and the problem's op.
BASELINE_MARK = "baseline:"
# What the child is given in place of a kernel id for a user's declared kernel: this and a file of its catalog entry
DECLARED_MARK = "@"


@dataclass
class ProfileRow:
    kernel: str | None              # None for a baseline
    impl: str                       # "cuda", "triton:<counterpart>" or a baseline's name (harness/baselines.py)
    problem: dict
    metrics: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    config: dict | None = None      # an autotuned counterpart's configuration as the profiled launch ran it


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
    if impl.startswith("gluon:"):
        from harness.launch import gluon as launch_gluon

        form = kernel.gluon_form(impl.split(":", 1)[1])
        gmod = launch_gluon.module(form)
        fn = gmod.kernel(**form.config(kernel)) if hasattr(gmod, "kernel") else gmod.KERNEL
        return getattr(getattr(fn, "fn", fn), "__name__", "")
    from harness.launch import triton as launch_triton

    mod = launch_triton.module(kernel.counterpart(impl.split(":", 1)[1]), kernel)
    return getattr(getattr(mod.KERNEL, "fn", mod.KERNEL), "__name__", "")


def command(kernel: Kernel | None, impl: str, problem: Problem, config: dict | None = None,
            entry: Path | None = None) -> list[str]:
    """ncu's command line for one launch; `entry`: the file of a declared kernel's catalog entry (`entry_file`)."""
    ncu = find_tool("ncu")
    name = _kernel_name(kernel, impl)
    which = (DECLARED_MARK + str(entry) if entry is not None else kernel.id) if kernel else BASELINE_MARK + problem.op
    return [str(ncu), "--clock-control", "none", "--csv", "--print-units", "base",
            *(["--kernel-name", f"regex:{name}"] if name else []), "--metrics", ",".join(asked_metrics().values()),
            sys.executable, "-m", "harness.inspect.profile", "--one", which, impl,
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
        with tempfile.TemporaryDirectory(prefix="rosetta-profile-") as tmp:
            entry = _entry_file(kernel, Path(tmp)) if kernel is not None and kernel.declared else None
            proc = run(command(kernel, impl, problem, config, entry), timeout=TIMEOUT_S)
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
            configs: dict[KernelImpl, dict] | None = None,
            baselines: bool = False, impls: list[str] | None = None) -> list[ProfileRow]:
    """Every implementation of every kernel under ncu on `problem`; writes profile-<time>.json in out_dir.
    With `baselines`, the problem's baselines too (cuBLAS in each class, the Triton tutorial GEMM in each class),
    so that a kernel's counters stand beside the yardstick it is timed against. `impls` ("cuda", "triton:dot",
    "gluon:mirror", a baseline's name) keeps only those implementations.

    `configs` ((kernel id, impl) -> configuration, see `harness.records.file.autotuned_configs`) pins autotuned
    counterparts to the configuration their timed run chose. The JSON is rewritten after every implementation (and
    `on_row` called), so a profile cut short keeps every counter it read.
    """
    todo: list[tuple[Kernel | None, str]] = [(k, impl) for k in kernels if k.op == problem.op
                                             for impl in ["cuda", *(f"triton:{c.name}" for c in k.counterparts),
                                                          *(f"gluon:{g.name}" for g in k.gluon)]]
    if baselines:
        from harness.launch.implementations import baselines as of_op

        todo += [(None, impl.name) for impl in of_op(problem.op)]
    if impls is not None:  # a profile cut short is taken up where it stopped, one model at a time
        todo = [(kernel, impl) for kernel, impl in todo if impl in impls]
    return profile_each([(k, impl, problem, (configs or {}).get(KernelImpl(k.id if k else None, impl)))
                         for k, impl in todo], out_dir, console, on_row, {"problem": problem.to_json()})


def profile_each(todo: list[tuple[Kernel | None, str, Problem, dict | None]], out_dir: Path, console: Any,
                 on_row: Callable[[ProfileRow], None] | None = None, about: dict | None = None) -> list[ProfileRow]:
    """Each (kernel, implementation, problem, configuration to pin) under ncu in turn, a line each; profile-<time>.json
    in out_dir (with `about`: what was profiled) is rewritten after every one and `on_row` called, so that a profile
    cut short keeps every counter it read."""
    rows: list[ProfileRow] = []
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = out_dir / f"profile-{stamp}.json"
    for kernel, impl, problem, config in todo:
        row = profile_one(kernel, impl, problem, config)
        rows.append(row)
        m = row.metrics
        said = row.error or (f"FMA pipe {m.get('fma_pipe_pct', float('nan')):.1f}%, tensor pipe "
                             f"{m.get('tensor_pipe_pct', float('nan')):.1f}%, bank conflicts "
                             f"{m.get('smem_bank_conflicts', 0):.0f}, DRAM {m.get('dram_vs_model', 0):.2f}x model, "
                             f"occupancy {m.get('achieved_occupancy_pct', float('nan')):.1f}%, issue active "
                             f"{m.get('issue_active_pct', float('nan')):.1f}%, other instructions per FFMA "
                             f"{m.get('other_per_ffma', float('nan')):.3f}")
        console.print(f"{'ok  ' if not row.error else 'FAIL'} {kernel.id if kernel else impl}"
                      f"{f' [{impl}]' if kernel else ''} {problem.shape_label}: {said}", markup=False)
        path.write_text(json.dumps({"started": stamp, **(about or {}), "metrics": asked_metrics(),
                                    "not_known_to_ncu": sorted(set(METRICS) - set(asked_metrics())),
                                    "rows": [asdict(r) for r in rows]}, indent=1))
        if on_row is not None:
            on_row(row)
    console.print(f"profile: {len(rows)} implementations, {sum(r.error is not None for r in rows)} without counters; "
                  f"{path}", markup=False)
    return rows


def _entry_file(kernel: Kernel, folder: Path) -> Path:
    """A declared kernel's catalog entry in a file of `folder`, for the child under ncu: no process is told of a
    user's pair any other way."""
    path = folder / "kernel.json"
    path.write_text(json.dumps(kernel_json(kernel)), encoding="utf-8")
    return path


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
    kernel = (kernel_from_json(json.loads(Path(kernel_id[len(DECLARED_MARK):]).read_text(encoding="utf-8")))
              if kernel_id.startswith(DECLARED_MARK) else get(kernel_id))
    problem = _problem(kernel.op, m, n, k)
    mod = None
    if impl != "cuda" and not impl.startswith("gluon:"):
        from harness.launch import triton as launch_triton

        mod = launch_triton.module(kernel.counterpart(impl.split(":", 1)[1]), kernel)
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
