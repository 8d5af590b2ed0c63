"""`rosetta`: list, run, merge, compare, report, claims, explain, trace, sanitize.

Errors a user can cause (a bad id, shape or file) end with a one-line message and exit code 2, never
a traceback; a run in which any implementation failed ends with exit code 1 after its summary.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from harness import env
from harness.cli_options import UserError, device_name, gpu_list, problems_of, results_path, shard_spec
from harness.problems import CPU_SGEMM, CPU_SGEMV, parse_shape
from harness.registry import SEEDS, get, select
from harness.registry.ideas import IDEAS
from harness.run.worker import DEFAULT_TIMEOUT_S

if TYPE_CHECKING:
    from rich.console import Console


def _console() -> Console:
    """rich on a terminal; piped into a file or a CI log, a wide plain console so no row folds."""
    from rich.console import Console

    if sys.stdout.isatty():
        return Console()
    return Console(width=200, no_color=True, highlight=False)


def cmd_list(args: argparse.Namespace) -> int:
    kernels = select(None, args.op)
    if args.json:
        rows = [{"id": k.id, "op": k.op, "idea": k.idea, "seed": k.seed, "precision": k.precision,
                 "b_layout": k.b_layout, "seed_file": SEEDS[k.seed].file if k.seed else None, "section": k.section,
                 "source": f"kernels_cuda/{k.source}", "symbol": k.symbol, "block": k.block,
                 "tile": [k.tile_m, k.tile_n, k.tile_k], "preconditions": [c.text for c in k.preconditions],
                 "reads_c_when_beta_zero": k.reads_c_when_beta_zero,
                 "counterparts": [{"name": c.name, "module": f"kernels_triton/{c.module}.py", "config": c.config(k),
                                   "deviations": c.deviation_notes()} for c in k.counterparts]}
                for k in kernels]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    from rich.table import Table

    console = _console()
    table = Table(title=f"tile-rosetta: {len(kernels)} kernels", show_lines=False)
    for col in ("kernel", "seed", "idea", "threads", "tile", "preconditions", "beta=0", "CUDA source", "Triton"):
        table.add_column(col, overflow="fold", no_wrap=col in ("kernel", "CUDA source"))
    for k in kernels:
        table.add_row(k.id, k.seed or "ours", IDEAS[k.idea].title, "x".join(map(str, k.block[:2])),
                      f"{k.tile_m}x{k.tile_n}x{k.tile_k}" if k.tile_n else f"{k.tile_m} row(s)",
                      "\n".join(c.text for c in k.preconditions),
                      "reads C" if k.reads_c_when_beta_zero else "honours", f"kernels_cuda/{k.source}",
                      "\n".join(f"{c.name}: kernels_triton/{c.module}.py" for c in k.counterparts))
    console.print(table)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    interpreting = env.use_interpreter_without_gpu()
    console = _console()
    kernels = select(args.only, args.op)
    problems = problems_of(args)
    if args.timeout <= 0:
        raise UserError(f"--timeout {args.timeout:g}: must be a positive number of seconds")
    if args.resume and not Path(args.resume).exists():
        raise UserError(f"--resume {args.resume}: no such results file")
    if args.resume:
        from harness.run.results import load

        load(args.resume)  # a one-line error for a file that is not a results file, before anything runs
    if not env.has_gpu():
        console.print(f"[yellow]No GPU ({env.gpu_reason()}):[/] running the CPU tier instead - Triton counterparts "
                      f"in the interpreter on small odd shapes (numerics only, no timing) and the CUDA sources "
                      f"compiled for sm_90 with their resource usage.")
        problems = [p for p in (CPU_SGEMM, CPU_SGEMV) if any(k.op == p.op for k in kernels)]
        gpus: list[str | None] = [None]
    elif interpreting:
        raise UserError("TRITON_INTERPRET is set on a GPU machine: unset it for a GPU run")
    else:
        gpus = gpu_list(args.gpus)  # memory is checked by the session, from what its workers read of their GPUs
    from harness.run.session import RunSession

    out_path = Path(args.resume) if args.resume else args.results or results_path(Path(args.out), device_name())
    session = RunSession(kernels, problems, out_path, sys.argv[1:], gpus=gpus, rep_ms=args.rep_ms, seed=args.seed,
                         timeout_s=args.timeout, shard=shard_spec(args.shard), resume=bool(args.resume))
    started = time.perf_counter()
    with _progress(console) as progress:
        failures = session.run(progress)
    from harness.run.summary import print_summary

    print_summary(session.results, None, console)
    console.print(f"run took {time.perf_counter() - started:.1f} s on {len(gpus)} worker(s); results: {out_path}")
    if not args.no_report:
        try:
            from harness.report import render

            html, md = render(out_path, out_path.parent)
            console.print(f"report: {html}\n        {md}")
        except Exception as e:  # a report problem must not hide the measurements
            console.print(f"[red]report not written:[/] {type(e).__name__}: {e}")
    if failures:
        console.print(f"[red]{len(failures)} implementation(s) failed:[/]")
        for rec in failures:
            console.print(f"  {rec.kernel or rec.impl} ({rec.impl}) {rec.problem.label}: {rec.reason}", markup=False)
        return 1
    return 0


class _progress:
    """A progress line on a terminal; nothing when output goes to a file or a CI log."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def __enter__(self) -> Callable[[str], None] | None:
        if not self.console.is_terminal:
            return None
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self.bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                            console=self.console, transient=True)
        self.bar.__enter__()
        task = self.bar.add_task("starting workers")
        return lambda text: self.bar.update(task, description=text[:100])

    def __exit__(self, *exc: object) -> None:
        if self.console.is_terminal:
            self.bar.__exit__(*exc)


def cmd_compare(args: argparse.Namespace) -> int:
    from harness.report.compare import compare, print_compare, render_compare

    cmp = compare(Path(args.a), Path(args.b))
    print_compare(cmp, _console())
    a, b = Path(args.a), Path(args.b)
    out = Path(args.html) if args.html else b.with_name(f"compare-{a.stem}-vs-{b.stem}.html")
    print(render_compare(cmp, out))
    return 0


def cmd_profile(args: argparse.Namespace) -> int:
    from harness.inspect.profile import profile

    if not env.has_gpu():
        raise UserError(f"profile needs a GPU and ncu ({env.gpu_reason()})")
    problem = parse_shape(args.shape, "sgemm" if args.shape.lower().count("x") == 2 else "sgemv")
    on_row = None
    if args.results:
        from harness.run.results import attach_profiles, load

        load(args.results)  # a bad file is refused before any profiling

        def on_row(row) -> None:
            if row.metrics:
                attach_profiles(args.results, {(row.kernel, row.impl, problem.key): row.metrics})

    profile(select(args.only, problem.op), problem, Path(args.out), _console(), on_row)
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from harness.run.merge import merge

    out = merge([Path(p) for p in args.files], Path(args.out), allow_mixed=args.allow_mixed)
    print(out)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from harness.run.results import load

    load(args.results)  # a clear one-line error for a bad file before anything is imported or written
    from harness.report import render

    html, md = render(Path(args.results), Path(args.out) if args.out else Path(args.results).parent)
    print(f"{html}\n{md}")
    return 0


def cmd_claims(args: argparse.Namespace) -> int:
    from harness.report.claims import claims_table, print_claims
    from harness.run.results import load

    results = load(args.results) if args.results else None
    print_claims(claims_table(results), _console(), results)
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from harness.report.explain import explain

    explain(get(args.kernel), _console())
    return 0


def cmd_trace(args: argparse.Namespace) -> int:
    env.use_interpreter_without_gpu()
    from harness.inspect.trace import print_trace, trace

    use_gpu = env.has_gpu() and not args.interpreter
    print_trace(trace(gpu=use_gpu), _console(), "CUDA kernel on the GPU" if use_gpu else
                "Triton counterpart in the interpreter")
    return 0


def cmd_sanitize(args: argparse.Namespace) -> int:
    from harness.inspect.sanitize import sanitize

    if not env.has_gpu():
        raise UserError(f"sanitize needs a GPU and compute-sanitizer ({env.gpu_reason()})")
    return sanitize(select(args.only, None), tools=args.tool, out_dir=Path(args.out), console=_console(),
                    jobs=args.jobs)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rosetta", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("list", help="the kernels, their seed, idea and preconditions")
    s.add_argument("--json", action="store_true")
    s.add_argument("--op", choices=("sgemm", "sgemv"))
    s.set_defaults(func=cmd_list)
    s = sub.add_parser("run", help="check numerics and time every kernel, counterpart and baseline")
    s.add_argument("--only", nargs="+", metavar="ID", help="kernel ids (or parts of ids) to run")
    s.add_argument("--op", choices=("sgemm", "sgemv"))
    s.add_argument("--shape", nargs="+", help="MxNxK (sgemm) or MxN (sgemv)")
    s.add_argument("--sweep", action="store_true", help="sgemm at 256..8192 and LLM-shaped problems")
    s.add_argument("--out", default="results", help="folder for the results file and report")
    s.add_argument("--results", type=Path, help="append to this results file instead of a new one")
    s.add_argument("--rep-ms", type=float, default=100.0, help="measured time per implementation (ms)")
    s.add_argument("--seed", type=int, default=20261122, help="seed of the random inputs")
    s.add_argument("--no-report", action="store_true")
    s.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                   help="seconds an implementation may take before its worker is killed and it is recorded as failed")
    s.add_argument("--resume", metavar="FILE",
                   help="continue this results file: skip what is recorded ok, run the rest, append to it")
    s.add_argument("--gpus", help="'all', a count, or a comma list of GPU indices: one worker per GPU")
    s.add_argument("--shard", metavar="i/n", help="run the i-th of n deterministic parts (merge them with `merge`)")
    s.set_defaults(func=cmd_run)
    s = sub.add_parser("compare", help="two results files side by side: times, ratios, % of cuBLAS, rank changes")
    s.add_argument("a")
    s.add_argument("b")
    s.add_argument("--html", help="where to write the HTML page (default: beside B)")
    s.set_defaults(func=cmd_compare)
    s = sub.add_parser("profile", help="ncu hardware counters of every implementation on one problem (GPU)")
    s.add_argument("--only", nargs="+", metavar="ID")
    s.add_argument("--shape", default="4096x4096x4096", help="MxNxK (sgemm) or MxN (sgemv)")
    s.add_argument("--out", default="results")
    s.add_argument("--results", help="store the counters with this results file's matching records")
    s.set_defaults(func=cmd_profile)
    s = sub.add_parser("merge", help="join the results files of a run's shards into one")
    s.add_argument("files", nargs="+")
    s.add_argument("--out", required=True)
    s.add_argument("--allow-mixed", action="store_true", help="join files of different device types or versions")
    s.set_defaults(func=cmd_merge)
    s = sub.add_parser("report", help="render a results file as HTML and Markdown (no GPU needed)")
    s.add_argument("results")
    s.add_argument("--out", help="folder for the report (default: beside the results)")
    s.set_defaults(func=cmd_report)
    s = sub.add_parser("claims", help="the documents' published figures beside ours")
    s.add_argument("results", nargs="?")
    s.set_defaults(func=cmd_claims)
    s = sub.add_parser("explain", help="a kernel's CUDA source beside its Triton counterpart")
    s.add_argument("kernel")
    s.set_defaults(func=cmd_explain)
    s = sub.add_parser("trace", help="seed 002's worked example: indices each block/thread loads per phase")
    s.add_argument("--interpreter", action="store_true", help="use the Triton interpreter even with a GPU")
    s.set_defaults(func=cmd_trace)
    s = sub.add_parser("sanitize", help="compute-sanitizer memcheck and racecheck over every CUDA kernel")
    s.add_argument("--only", nargs="+", metavar="ID")
    s.add_argument("--tool", nargs="+", default=["memcheck", "racecheck"], choices=("memcheck", "racecheck"))
    s.add_argument("--out", default="results")
    s.add_argument("--jobs", type=int, default=8, help="sanitizer processes at once")
    s.set_defaults(func=cmd_sanitize)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (UserError, ValueError) as e:
        print(f"rosetta {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"rosetta {args.command}: interrupted; results measured so far are on disk", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
