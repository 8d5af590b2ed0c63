"""`rosetta`: list, run, compare, profile, merge, report, claims, explain, trace, sanitize.

Errors a user can cause (a bad id, shape or file) end with a one-line message and exit code 2, never
a traceback; a run in which any implementation failed ends with exit code 1 after its summary.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from harness import env
from harness.cli_options import (
    DEFAULT_OUT,
    DEFAULT_REP_MS,
    UserError,
    device_name,
    gpu_list,
    problems_of,
    refuse_what_cannot_apply,
    report_dir,
    results_path,
    shard_spec,
)
from harness.problems import CPU_SGEMM, CPU_SGEMV, parse_shape
from harness.registry import SEEDS, get, select
from harness.run.worker import DEFAULT_TIMEOUT_S

if TYPE_CHECKING:
    from rich.console import Console

    from harness.run.records import Result
    from harness.run.session import Progress

# `rosetta explain` puts CUDA and Triton side by side from this width on (two 80-column halves), stacked below it.
SIDE_BY_SIDE = 160


def _console() -> Console:
    """rich on a terminal (its width); anywhere else plain text at term_table.plain_width(), no colour."""
    from rich.console import Console

    from harness.term_table import plain_width

    if sys.stdout.isatty():
        return Console(highlight=False)
    return Console(width=plain_width(), no_color=True, highlight=False)


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
    from harness.term_table import Column, print_table

    # Left out first when narrow: the source file (its name is the kernel id, README "Layout"), then the Triton
    # modules, preconditions, beta=0, tile, threads, idea, seed; the kernel id is never left out or cut. The
    # idea is its key (as in --json): one short word that never wraps.
    columns = [Column("kernel"), Column("seed", drop=8), Column("idea", drop=7), Column("threads", drop=6, short="thr"),
               Column("tile", drop=5), Column("preconditions", drop=3, wrap=16), Column("beta=0", drop=4),
               Column("kernels_cuda/", drop=1), Column("kernels_triton/", drop=2)]
    rows = [[k.id, k.seed or "ours", k.idea, "x".join(map(str, k.block[:2])),
             f"{k.tile_m}x{k.tile_n}x{k.tile_k}" if k.tile_n else f"{k.tile_m} row(s)",
             "\n".join(c.text for c in k.preconditions), "reads C" if k.reads_c_when_beta_zero else "honours",
             k.source, "\n".join(f"{c.name}: {c.module}.py" for c in k.counterparts)] for k in kernels]
    print_table(_console(), f"tile-rosetta: {len(kernels)} kernels", columns, rows,
                "a wider terminal or `rosetta list --json` shows them")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    wall = time.perf_counter()
    gpu = env.has_gpu()
    kernels = select(args.only, args.op)
    problems = problems_of(args)  # a malformed --shape is named as such, even where --shape is refused
    refuse_what_cannot_apply(args, gpu, env.gpu_reason())  # before anything runs or is written
    interpreting = env.use_interpreter_without_gpu()
    console = _console()
    if args.timeout <= 0:
        raise UserError(f"--timeout {args.timeout:g}: must be a positive number of seconds")
    if args.resume and not Path(args.resume).exists():
        raise UserError(f"--resume {args.resume}: no such results file")
    if args.resume:
        from harness.run.results import load

        load(args.resume)  # a one-line error for a file that is not a results file, before anything runs
    if not gpu:
        # What is attempted, not what happened: the end of the run says how many sources were compiled.
        console.print(f"[yellow]No GPU ({env.gpu_reason()}):[/] running the CPU tier instead: Triton counterparts "
                      f"in the interpreter on small odd shapes (numerics only, no timing), beside torch's CPU "
                      f"matmul; then each CUDA source is compiled if this machine can, not run.")
        problems = [p for p in (CPU_SGEMM, CPU_SGEMV) if any(k.op == p.op for k in kernels)]
        gpus: list[str | None] = [None]
    elif interpreting:
        raise UserError("TRITON_INTERPRET is set on a GPU machine: unset it for a GPU run")
    else:
        gpus = gpu_list(args.gpus)  # memory is checked by the session, from what its workers read of their GPUs
    from harness.run.session import RunSession

    out_dir = Path(args.out or DEFAULT_OUT)
    out_path = Path(args.resume) if args.resume else args.results or results_path(out_dir, device_name())
    session = RunSession(kernels, problems, out_path, sys.argv[1:], gpus=gpus,
                         rep_ms=args.rep_ms if args.rep_ms is not None else DEFAULT_REP_MS, seed=args.seed,
                         timeout_s=args.timeout, shard=shard_spec(args.shard), resume=bool(args.resume))
    console.print(f"results: {out_path} (written as each implementation finishes)", markup=False)
    with _Reporter(console) as reporter:
        failures = session.run(reporter)
    from harness.run.summary import print_summary

    print_summary(session.results, None, console)
    if not gpu:
        console.print(compiled_line(reporter.results), markup=False)
    console.print(f"run took {time.perf_counter() - wall:.1f} s on {len(gpus)} worker(s); results: {out_path}",
                  markup=False)
    report_s = 0.0
    if not args.no_report:
        started = time.perf_counter()
        try:
            from harness.report import render

            html, md = render(out_path, report_dir(out_path, out_path.parent))
            console.print(f"report: {html}\n        {md}", markup=False)
        except Exception as e:  # a report problem must not hide the measurements
            console.print(f"[red]report not written:[/] {type(e).__name__}: {e}")
        report_s = time.perf_counter() - started
    console.print(phases_line(reporter.results, report_s, time.perf_counter() - wall), markup=False)
    if failures:
        console.print(f"[red]{len(failures)} implementation(s) failed:[/]")
        for rec in failures:
            console.print(f"  {rec.kernel or rec.impl} ({rec.impl}) {rec.problem.label}: {rec.reason}", markup=False)
        return 1
    return 0


def compiled_line(results: list[Result]) -> str:
    """What became of the CUDA sources in a run without a GPU, counted from the records it wrote."""
    from harness.run.records import Status

    cuda = [r for r in results if r.model == "cuda"]
    if not cuda:
        return "CUDA sources: none in this run"
    by_status: dict[str, list[Result]] = {}
    for r in cuda:
        by_status.setdefault(r.status.value, []).append(r)
    parts = []
    for status in (Status.COMPILED, Status.SKIPPED, Status.FAILED):
        rs = by_status.get(status.value, [])
        if rs:
            reasons = sorted({r.reason.split(":", 1)[0] if status is Status.FAILED else r.reason for r in rs})
            parts.append(f"{len(rs)} {status.value}" + (f" ({'; '.join(reasons)})" if any(reasons) else ""))
    return f"CUDA sources: {len(cuda)} in this run, " + ", ".join(parts)


def phases_line(results: list[Result], report_s: float, wall_s: float) -> str:
    """Where the run's time went: the records' phases summed (over every worker), the report, the wall clock."""
    sums = {name: sum(r.phase_s.get(name, 0.0) for r in results) for name in PHASES}
    return ("phases: " + ", ".join(f"{name} {sums[name]:.1f} s" for name in PHASES)
            + f", report {report_s:.1f} s (wall {wall_s:.1f} s)")


PHASES = ("compile", "numerics", "timing")
HEARTBEAT_S = 10.0


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m}:{s:02d}"


class _Reporter:
    """A run's progress. On a terminal, one live line: "N of M, elapsed, ~left" (left: elapsed per finished
    implementation times those still to run) and what runs now. In a log (stdout not a terminal), one line per
    finished implementation, and a line at least every HEARTBEAT_S seconds while nothing finishes (worker start,
    a slow compile), so a log never stays silent for minutes."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.results: list[Result] = []
        self.started = time.monotonic()
        self.last_line = self.started
        self.done = self.total = 0
        self.running = "starting the worker(s)"
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def __enter__(self) -> _Reporter:
        if self.console.is_terminal:
            from rich.progress import Progress as Bar
            from rich.progress import TextColumn

            self.bar = Bar(TextColumn("{task.description}"), console=self.console, transient=True)
            self.bar.__enter__()
            self.task = self.bar.add_task(self._status())
        self.ticker = threading.Thread(target=self._tick, daemon=True)
        self.ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.ticker.join()
        if self.console.is_terminal:
            self.bar.__exit__(*exc)

    def _status(self) -> str:
        elapsed = time.monotonic() - self.started
        left = f"~{_clock(elapsed / self.done * (self.total - self.done))} left" if self.done else "~? left"
        head = f"{self.done} of {self.total}, elapsed {_clock(elapsed)}, {left}" if self.total else \
            f"elapsed {_clock(elapsed)}"
        return f"{head}: {self.running}"

    def _tick(self) -> None:
        while not self.stop.wait(0.5):
            with self.lock:
                if self.console.is_terminal:
                    self.bar.update(self.task, description=self._status()[: max(20, self.console.width - 2)])
                elif time.monotonic() - self.last_line >= HEARTBEAT_S:
                    self._line(f"... {self._status()}")

    def _line(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)
        self.last_line = time.monotonic()

    def __call__(self, event: Progress) -> None:
        with self.lock:
            self.done, self.total = event.done, event.total
            if event.result is None:
                self.running = event.starting or ""
                return
            r = event.result
            self.results.append(r)
            seconds = "" if event.seconds is None else f"{event.seconds:6.1f} s"
            text = (f"{event.done:>{len(str(event.total))}} of {event.total}  {r.status.value:<8} {seconds:>8}  "
                    f"{r.problem.label}  {r.kernel or 'baseline'}  {r.label}")
            if r.status.value == "failed":
                text += f": {' '.join(r.reason.split())[:200]}"
            if self.console.is_terminal:
                if r.status.value == "failed":  # above the live line, so a failure is seen as it happens
                    self.bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
                self.bar.update(self.task, description=self._status())
            else:
                self._line(text)


def cmd_compare(args: argparse.Namespace) -> int:
    from harness.report.compare import compare, print_compare, render_compare

    cmp = compare(Path(args.a), Path(args.b))
    print_compare(cmp, _console())
    a, b = Path(args.a), Path(args.b)
    out = Path(args.html) if args.html else Path(DEFAULT_OUT) / f"compare-{a.stem}-vs-{b.stem}.html"
    print(f"compare: {render_compare(cmp, out)}")
    return 0


def cmd_profile(args: argparse.Namespace) -> int:
    from harness.inspect.profile import profile

    if not env.has_gpu():
        raise UserError(f"profile needs a GPU and ncu ({env.gpu_reason()})")
    problem = parse_shape(args.shape, "sgemm" if args.shape.lower().count("x") == 2 else "sgemv")
    on_row, configs = None, None
    if args.results:
        from harness.inspect.profile import autotuned_configs
        from harness.run.results import attach_profiles, load

        load(args.results)  # a bad file is refused before any profiling
        configs = autotuned_configs(args.results, problem)  # autotuned rows are profiled in their timed config

        def on_row(row) -> None:
            if row.metrics:
                attach_profiles(args.results, {(row.kernel, row.impl, problem.key): row.metrics})

    profile(select(args.only, problem.op), problem, Path(args.out), _console(), on_row, configs)
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

    path = Path(args.results)
    html, md = render(path, Path(args.out) if args.out else report_dir(path, Path(DEFAULT_OUT)))
    print(f"report: {html}\n        {md}")
    return 0


def cmd_claims(args: argparse.Namespace) -> int:
    from harness.report.claims import claims_table, print_claims
    from harness.run.results import load

    results = load(args.results) if args.results else None
    print_claims(claims_table(results), _console(), results)
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from harness.report.explain import explain

    explain(get(args.kernel), _console(), SIDE_BY_SIDE)
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


def _only(s: argparse.ArgumentParser, verb: str) -> None:
    s.add_argument("--only", nargs="+", metavar="ID", help=f"kernel ids (or parts of ids) to {verb}; `rosetta list` "
                   "names them")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rosetta", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("list", help="the kernels, their seed, idea and preconditions (fitted to the width; "
                       "--json: every field)")
    s.add_argument("--json", action="store_true", help="every field of every kernel, as JSON")
    s.add_argument("--op", choices=("sgemm", "sgemv"), help="this operation's kernels only")
    s.set_defaults(func=cmd_list)
    s = sub.add_parser("run", help="check numerics and time every kernel, counterpart and baseline",
                       description="Check numerics and time every kernel, counterpart and baseline. Without a GPU: "
                       "the CPU tier (Triton counterparts in the interpreter on small odd shapes, no timing); the "
                       "options marked 'GPU only' are then refused (exit code 2) rather than ignored.")
    _only(s, "run")
    s.add_argument("--op", choices=("sgemm", "sgemv"), help="this operation's kernels only")
    s.add_argument("--shape", nargs="+", help="MxNxK (sgemm) or MxN (sgemv). GPU only: the CPU tier picks the "
                   "small odd shape each tile calls for")
    s.add_argument("--sweep", action="store_true", help="sgemm at 256..8192 and LLM-shaped problems. GPU only")
    s.add_argument("--out", help=f"folder for a new results file and its report (default: {DEFAULT_OUT}/)")
    s.add_argument("--results", type=Path, help="append to this results file instead of a new one")
    s.add_argument("--rep-ms", type=float, help=f"measured time per implementation (ms, default {DEFAULT_REP_MS:g}). "
                   "GPU only: the CPU tier does not time")
    s.add_argument("--seed", type=int, default=20261122, help="seed of the random inputs")
    s.add_argument("--no-report", action="store_true", help="write the results file only")
    s.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                   help="seconds an implementation may take before its worker is killed and it is recorded as "
                   "failed (CPU tier too)")
    s.add_argument("--resume", metavar="FILE",
                   help="continue this results file: skip what is recorded ok, run the rest, append to it")
    s.add_argument("--gpus", help="'all', a count, or a comma list of GPU indices: one worker per GPU. GPU only")
    s.add_argument("--shard", metavar="i/n", help="run the i-th of n deterministic parts (merge them with `merge`); "
                   "the CPU tier is sharded the same way")
    s.set_defaults(func=cmd_run)
    s = sub.add_parser("compare", help="two results files side by side: times, ratios, %% of cuBLAS, rank changes")
    s.add_argument("a", help="results file A (.jsonl), the reference")
    s.add_argument("b", help="results file B: its speed-ups are given as B against A")
    s.add_argument("--html", help=f"where to write the HTML page (default: {DEFAULT_OUT}/compare-A-vs-B.html)")
    s.set_defaults(func=cmd_compare)
    s = sub.add_parser("profile", help="ncu hardware counters of every implementation on one problem (GPU)")
    _only(s, "profile")
    s.add_argument("--shape", default="4096x4096x4096", help="MxNxK (sgemm) or MxN (sgemv) (default: %(default)s)")
    s.add_argument("--out", default=DEFAULT_OUT, help="folder for the counters file (default: %(default)s/)")
    s.add_argument("--results", help="store the counters with this results file's matching records")
    s.set_defaults(func=cmd_profile)
    s = sub.add_parser("merge", help="join the results files of a run's shards into one")
    s.add_argument("files", nargs="+", help="the shards' results files")
    s.add_argument("--out", required=True, help="the merged results file to write")
    s.add_argument("--allow-mixed", action="store_true", help="join files of different device types or versions")
    s.set_defaults(func=cmd_merge)
    s = sub.add_parser("report", help="render a results file as HTML and Markdown (no GPU needed)")
    s.add_argument("results", help="a results file (.jsonl) of `rosetta run`")
    s.add_argument("--out", help=f"folder for the report (default: {DEFAULT_OUT}/report-<results file stem>/)")
    s.set_defaults(func=cmd_report)
    s = sub.add_parser("claims", help="the documents' published figures beside ours (%% of cuBLAS)")
    s.add_argument("results", nargs="?", help="a results file to take our figures from (without one: the published "
                   "figures alone)")
    s.set_defaults(func=cmd_claims)
    s = sub.add_parser("explain", help=f"a kernel's CUDA source beside its Triton counterpart (side by side from "
                       f"{SIDE_BY_SIDE} columns, stacked below)")
    s.add_argument("kernel", help="a kernel id as `rosetta list` shows it (a part of one lists the ids it matches)")
    s.set_defaults(func=cmd_explain)
    s = sub.add_parser("trace", help="seed 002's worked example: indices each block/thread loads per phase")
    s.add_argument("--interpreter", action="store_true", help="use the Triton interpreter even with a GPU")
    s.set_defaults(func=cmd_trace)
    tools = ("memcheck", "racecheck", "synccheck")
    s = sub.add_parser("sanitize", help=f"compute-sanitizer ({', '.join(tools)}) over every CUDA kernel")
    _only(s, "check")
    s.add_argument("--tool", nargs="+", default=list(tools), choices=tools, help="default: all three")
    s.add_argument("--out", default=DEFAULT_OUT, help="folder for the sanitizer's summary (default: %(default)s/)")
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
