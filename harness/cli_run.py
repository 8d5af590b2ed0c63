"""`rosetta run`: its options and the command; what its arguments ask for is read by cli_options, its progress
printed by cli_progress."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from harness import env
from harness.cli_console import console as make_console
from harness.cli_options import (
    DEFAULT_OUT,
    DEFAULT_REP_MS,
    UserError,
    add_only,
    device_name,
    gpu_list,
    problems_of,
    refuse_what_cannot_apply,
    report_dir,
    results_path,
    shard_spec,
)
from harness.cli_progress import Reporter
from harness.problems import CPU_SGEMM, CPU_SGEMV
from harness.registry import select
from harness.rounds import MIN_ROUNDS, ROUNDS
from harness.run.worker import DEFAULT_TIMEOUT_S

if TYPE_CHECKING:
    from harness.analysis.record import Analysis
    from harness.records.lines import Result


def add_run(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("run", help="check numerics and time every kernel, counterpart and baseline",
                       description="Check numerics and time every kernel, counterpart and baseline. Without a GPU: "
                       "the CPU tier (Triton counterparts in the interpreter on small odd shapes, no timing); the "
                       "options marked 'GPU only' are then refused (exit code 2) rather than ignored.")
    add_only(s, "run")
    s.add_argument("--op", choices=("sgemm", "sgemv"), help="this operation's kernels only")
    s.add_argument("--shape", nargs="+", help="MxNxK (sgemm) or MxN (sgemv). GPU only: the CPU tier picks the "
                   "small odd shape each tile calls for")
    s.add_argument("--sweep", action="store_true", help="sgemm at 256..8192 and LLM-shaped problems. GPU only")
    s.add_argument("--out", help=f"folder for a new results file and its report (default: {DEFAULT_OUT}/)")
    s.add_argument("--results", type=Path, help="append to this results file instead of a new one")
    s.add_argument("--rep-ms", type=float, help=f"measured time per implementation (ms, default {DEFAULT_REP_MS:g}). "
                   "GPU only: the CPU tier does not time")
    s.add_argument("--rounds", type=int, help=f"interleaved timing rounds per problem (default {ROUNDS}; at "
                   f"least {MIN_ROUNDS} for a call). GPU only")
    s.add_argument("--aa", action="store_true", help="the A/A control: time every implementation twice, as two "
                   "entries of the same rounds; their calls must be SAME. GPU only")
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


def cmd_run(args: argparse.Namespace) -> int:
    wall = time.perf_counter()
    gpu = env.has_gpu()
    kernels = select(args.only, args.op)
    problems = problems_of(args)  # a malformed --shape is named as such, even where --shape is refused
    refuse_what_cannot_apply(args, gpu, env.gpu_reason())  # before anything runs or is written
    interpreting = env.use_interpreter_without_gpu()
    console = make_console()
    if args.timeout <= 0:
        raise UserError(f"--timeout {args.timeout:g}: must be a positive number of seconds")
    if args.rounds is not None and args.rounds < MIN_ROUNDS:
        raise UserError(f"--rounds {args.rounds}: a call needs at least {MIN_ROUNDS} rounds")
    if args.resume and not Path(args.resume).exists():
        raise UserError(f"--resume {args.resume}: no such results file")
    if args.resume:
        from harness.records.file import load

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
        from harness.launch.gluon import unavailable

        if (why := unavailable()) is not None:  # one line; the CUDA and Triton columns run
            console.print(f"[yellow]Gluon column left out:[/] {why}")
    from harness.run.session import RunSession

    out_dir = Path(args.out or DEFAULT_OUT)
    out_path = Path(args.resume) if args.resume else args.results or results_path(out_dir, device_name())
    session = RunSession(kernels, problems, out_path, sys.argv[1:], gpus=gpus,
                         rep_ms=args.rep_ms if args.rep_ms is not None else DEFAULT_REP_MS, seed=args.seed,
                         timeout_s=args.timeout, shard=shard_spec(args.shard), resume=bool(args.resume),
                         rounds=args.rounds or ROUNDS, aa=args.aa)
    console.print(f"results: {out_path} (written as each implementation finishes)", markup=False)
    with Reporter(console) as reporter:
        failures = session.run(reporter)
    from harness.analysis.build import write_beside
    from harness.records.file import load
    from harness.report.wording import terminal_cells
    from harness.run.phases import phases_line
    from harness.run.summary import print_summary

    # Every verdict of the file and its proven mapping, made once and written beside it: the table below and the
    # report read it.
    started = time.perf_counter()
    analysis = write_beside(out_path, load(out_path))
    session.phase_s["analysis"] = time.perf_counter() - started
    print_summary(session.results, None, console, terminal_cells(analysis))
    for line in aa_lines(analysis):
        console.print(line, markup=False)
    if any(r.model == "gluon" for r in session.results):  # the model-or-compiler split of each rung with all three
        from harness.cli_gluon import gluon_lines

        for line in gluon_lines(out_path):
            console.print(line, markup=False)
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
    # One line in a log however long (a pipe has no width to fold it to)
    console.print(phases_line(reporter.results, session.phase_s, report_s, time.perf_counter() - wall, len(gpus)),
                  markup=False, soft_wrap=True)
    if failures:
        console.print(f"[red]{len(failures)} implementation(s) failed:[/]")
        for rec in failures:
            console.print(f"  {rec.kernel or rec.impl} ({rec.impl}) {rec.problem.label}: {rec.reason}", markup=False)
        return 1
    return 0


def compiled_line(results: list[Result]) -> str:
    """What became of the CUDA sources in a run without a GPU, counted from the records it wrote."""
    from harness.records.lines import Status

    cuda = [r for r in results if r.impl_id.is_cuda]
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


def aa_lines(analysis: Analysis) -> list[str]:
    """The A/A control in the terminal: how many implementations timed twice were called SAME, then each one that was
    not, with its call and interval, so that a reader sees which and by how much (nothing for a run without --aa)."""
    from harness.report.wording import speed

    controls = [c for c in analysis.where("aa") if c.call is not None]
    if not controls:
        return []
    others = [c for c in controls if c.call.value != "SAME"]
    same = len(controls) - len(others)
    return [f"A/A control: {same} of {len(controls)} implementations timed twice called SAME "
            f"({100 * same / len(controls):.1f}%)",
            *(f"  {c.call.value}: {c.subject[0] or c.subject[1]} [{c.subject[1]}] on {c.problem.label}, second entry "
              f"against first {speed(c)}" for c in others)]
