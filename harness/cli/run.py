"""`rosetta run`: its options and the command; what its arguments ask for is read by options, its progress
printed by progress."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness import env
from harness.cli.console import console as make_console
from harness.cli.options import (
    DEFAULT_OUT,
    NUMBERS,
    UserError,
    add_only,
    device_name,
    gpu_list,
    gpus_text,
    interrupted,
    problems_of,
    refuse_what_cannot_apply,
    report_dir,
    results_path,
    resumed,
    shape_text,
    shard_spec,
    shard_text,
)
from harness.cli.pairs import add_pair, kernels_of
from harness.cli.paths import output_folder
from harness.cli.progress import Reporter
from harness.cli.run_lines import summary_lines, tally, unchecked_pairs
from harness.measure.rounds import MIN_ROUNDS, REP_MS, ROUNDS
from harness.problems import CPU_SGEMM, CPU_SGEMV, SEED
from harness.records.file import load
from harness.run.phases import Stage, perform, phases_line
from harness.run.worker import DEFAULT_TIMEOUT_S

if TYPE_CHECKING:
    from rich.console import Console

    from harness.analysis.record import Analysis
    from harness.records.lines import Result
    from harness.run.session import RunSession


def add_run(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("run", help="check numerics and time every kernel, counterpart and baseline",
                       description="Check numerics and time every kernel, counterpart and baseline. Without a GPU: "
                       "the CPU tier (Triton counterparts in the interpreter on small odd shapes, no timing); the "
                       "options marked 'GPU only' are then refused (exit code 2) rather than ignored.")
    add_only(s, "run")
    add_pair(s)
    s.add_argument("--op", choices=("sgemm", "sgemv"), help="this operation's kernels only")
    s.add_argument("--shape", nargs="+", type=shape_text, help="MxNxK (sgemm) or MxN (sgemv). GPU only: the CPU "
                   "tier picks the small odd shape each tile calls for")
    s.add_argument("--sweep", action="store_true", help="sgemm at 256..8192 and LLM-shaped problems. GPU only")
    s.add_argument("--out", help=f"folder for a new results file and its report (default: {DEFAULT_OUT}/)")
    s.add_argument("--results", type=Path, help="append to this results file instead of a new one")
    s.add_argument("--rep-ms", type=NUMBERS["milliseconds"], help=f"measured time per implementation (ms, default "
                   f"{REP_MS:g}). GPU only: the CPU tier does not time")
    s.add_argument("--rounds", type=NUMBERS["rounds"], help=f"interleaved timing rounds per problem (default "
                   f"{ROUNDS}; at least {MIN_ROUNDS} for a call). GPU only")
    s.add_argument("--aa", action="store_true", help="the A/A control: time every implementation twice, as two "
                   "entries of the same rounds; their calls must be SAME. GPU only")
    s.add_argument("--profile", action="store_true", help="after timing, Nsight Compute's counters of each idea's "
                   "headline pair and the rows its causes are held to, in the timed configuration, stored with their "
                   "records: the report's counter cells and counter causes (minutes per idea). GPU only, needs ncu")
    s.add_argument("--regime", choices=("burst", "sustained"),
                   help="burst (default): interleaved short bursts. sustained: then the run's headline "
                   "implementations again, each back to back to a detected steady state after an idle gap, with "
                   "clock, power and energy per GEMM, in a results file of its own beside the run's "
                   "(<run>-sustained.jsonl). GPU only")
    s.add_argument("--seed", type=NUMBERS["seed"], default=SEED, help="seed of the random inputs")
    s.add_argument("--no-report", action="store_true", help="write the results file only")
    s.add_argument("--timeout", type=NUMBERS["seconds"], default=DEFAULT_TIMEOUT_S,
                   help="seconds an implementation may take before its worker is killed and it is recorded as "
                   "failed (CPU tier too)")
    s.add_argument("--resume", metavar="FILE",
                   help="continue this results file: skip what is recorded ok, run the rest, append to it")
    s.add_argument("--gpus", type=gpus_text, help="'all', a count, or a comma list of GPU indices: one worker per "
                   "GPU. GPU only")
    s.add_argument("--shard", metavar="i/n", type=shard_text, help="run the i-th of n deterministic parts (merge "
                   "them with `merge`); the CPU tier is sharded the same way")
    s.set_defaults(func=cmd_run)


@dataclass
class Run:
    """One `rosetta run` as its stages see it: what was asked, the session that measures, and what each stage leaves
    the next."""

    args: argparse.Namespace
    session: RunSession
    console: Console
    written: list[Result] = field(default_factory=list)   # the records this run wrote (not those it resumed)
    failures: list[Result] = field(default_factory=list)
    analysis: Analysis | None = None


def cmd_run(args: argparse.Namespace) -> int:
    wall = time.perf_counter()
    run = prepare(args)
    try:
        perform(STAGES, run, run.session.phase_s)
    except KeyboardInterrupt:  # what was kept and how to go on, in one line (the workers are ended quietly)
        print(interrupted(run.session.out_path, args.argv), file=sys.stderr)
        return 130
    console, session = run.console, run.session
    console.print(f"run took {time.perf_counter() - wall:.1f} s on {len(session.gpus)} worker(s): "
                  f"{tally(session.results)}; results: {session.out_path}", markup=False)
    # One line in a log however long (a pipe has no width to fold it to)
    console.print(phases_line(run.written, session.phase_s, time.perf_counter() - wall, len(session.gpus)),
                  markup=False, soft_wrap=True)
    if run.failures:
        console.print(f"[red]{len(run.failures)} implementation(s) failed:[/]")
        for rec in run.failures:
            console.print(f"  {rec.kernel or rec.impl} ({rec.impl}) {rec.problem.label}: {rec.reason}", markup=False)
        return 1
    return unchecked_pairs(session.results, session.kernels, console)


def prepare(args: argparse.Namespace) -> Run:
    """Every check of what was asked, before anything runs or is written, and the session that will run it."""
    if args.resume:
        resumed(args)  # the options the file's run was started with, before anything reads them
    gpu = env.has_gpu()
    # --pair: a user's own pairs, checked before anything runs and added to the run's catalog (cli/pairs.py)
    kernels, catalog = kernels_of(args)
    problems = problems_of(args)  # a malformed --shape is named as such, even where --shape is refused
    refuse_what_cannot_apply(args, gpu, env.gpu_reason())
    # Triton reads TRITON_INTERPRET when a kernel is defined, so the CPU tier's interpreter is switched on here, before
    # anything imports kernels_triton; everything below is told whether the run has a GPU by parameter.
    interpreting = env.use_interpreter_without_gpu()
    console = make_console()
    check_options(args)
    if not gpu:
        problems = [p for p in (CPU_SGEMM, CPU_SGEMV) if any(k.op == p.op for k in kernels)]
        gpus: list[str | None] = [None]
    elif interpreting:
        raise UserError("TRITON_INTERPRET is set on a GPU machine: unset it for a GPU run")
    else:
        gpus = gpu_list(args.gpus)  # memory is checked by the session, from what its workers read of their GPUs
    from harness.run.session import RunSession  # the workers' side (torch) only for a run

    out_dir = Path(args.out or DEFAULT_OUT)
    out_path = Path(args.resume) if args.resume else args.results or results_path(out_dir, device_name())
    if out_path.parent == out_dir:  # checked above (or the default, runs/ under the current folder): a new file's home
        out_dir.mkdir(parents=not args.out, exist_ok=True)
    session = RunSession(kernels, problems, out_path, args.argv, catalog, gpu, gpus=gpus,
                         rep_ms=args.rep_ms if args.rep_ms is not None else REP_MS, seed=args.seed,
                         timeout_s=args.timeout, shard=shard_spec(args.shard), resume=bool(args.resume),
                         rounds=args.rounds or ROUNDS, aa=burst_aa(args))
    session.check_target()  # the file it writes, before the first line is (the device is checked once known)
    if args.regime == "sustained":
        from harness.run.sustained import check_target

        try:
            check_target(out_path)  # the second file it writes, likewise
        except ValueError as e:
            raise UserError(str(e)) from None
    for line in opening_lines(gpu):
        console.print(line)
    console.print(f"results: {out_path} (written as each implementation finishes)", markup=False)
    return Run(args, session, console)


def check_options(args: argparse.Namespace) -> None:
    """The options that cannot go together and the tools they need, each refused in one line."""
    if args.regime == "sustained" and args.shard:
        raise UserError("--regime sustained and --shard together: the sustained regime takes the whole run's headline "
                        "rows; give one")
    if args.out:
        output_folder(args.out, "--out")
    if args.profile:
        from harness.inspect.tools import has_tool

        if not has_tool("ncu"):
            raise UserError("--profile needs Nsight Compute's ncu (on PATH, $CUDA_HOME/bin or /usr/local/cuda/bin)")


def opening_lines(gpu: bool) -> list[str]:
    """What the run says before it starts: where it cannot do all it would on a GPU."""
    if not gpu:
        # What is attempted, not what happened: the end of the run says how many sources were compiled.
        return [f"[yellow]No GPU ({env.gpu_reason()}):[/] running the CPU tier instead: Triton counterparts in the "
                f"interpreter on small odd shapes (numerics only, no timing), beside torch's CPU matmul; then each "
                f"CUDA source is compiled if this machine can, not run."]
    from harness.launch.gluon import unavailable

    why = unavailable()  # one line; the CUDA and Triton columns run
    return [] if why is None else [f"[yellow]Gluon column left out:[/] {why}"]


# ----------------------------------------------------------------------------------------------------- the stages
def measure(run: Run) -> None:
    """The session's stages (run/session.py: plan, workers, implementations, CUDA builds), each timed by itself."""
    session = run.session
    with Reporter(run.console, session.gpu, session.rounds, session.rep_ms, session.aa, len(session.gpus),
                  session.catalog) as reporter:
        run.failures = session.run(reporter)
    run.written = reporter.results


def analyse(run: Run) -> None:
    """Every verdict of the file and its proven mapping, made once and written beside it: the summary and the
    report read it."""
    from harness.analysis.build import write_beside

    run.analysis = write_beside(run.session.out_path, load(run.session.out_path))


def profile(run: Run) -> None:
    from harness.run.profile import profile_headlines

    assert run.analysis is not None
    run.analysis = profile_headlines(run.session.out_path, run.analysis, run.session.catalog, run.console)


def summary(run: Run) -> None:
    """The side-by-side table, then each line the run's records call for (summary_lines)."""
    from harness.analysis.measured import Measured
    from harness.report.terminal import print_summary

    print_summary(Measured(load(run.session.out_path), run.analysis), run.console)
    for line in summary_lines(run.session, run.analysis, run.written):
        run.console.print(line, markup=False)


def sustained(run: Run) -> None:
    """`--regime sustained`: the run's headline implementations in the sustained regime (harness/run/sustained.py),
    written beside the run and analysed; its table in the terminal."""
    from harness.analysis.build import write_beside
    from harness.analysis.regimes import study
    from harness.report.regimes import terminal_lines
    from harness.run.sustained import run as sustained_pass

    args, console = run.args, run.console
    console.print("sustained regime: the headline implementations, each back to back to its steady state",
                  markup=False)
    try:
        with Reporter(console) as reporter:
            path, failures = sustained_pass(run.session.out_path, args.argv, aa=args.aa, timeout_s=args.timeout,
                                            gpu=run.session.gpus[0], seed=args.seed, progress=reporter)
    except ValueError as e:  # no headline row to take: said, and the run's own results and report stand
        console.print(f"sustained regime not run: {e}", markup=False)
        return
    results = load(path)
    write_beside(path, results)
    found = study(results)
    for line in terminal_lines(found) if found else []:
        console.print(line, markup=False, soft_wrap=True)
    console.print(f"sustained regime: {path}", markup=False)
    run.failures += failures


def report(run: Run) -> None:
    out_path = run.session.out_path
    try:
        from harness.report import render

        html, md = render(out_path, report_dir(out_path, out_path.parent))
        run.console.print(f"report: {html}\n        {md}", markup=False)
    except Exception as e:  # a report problem must not hide the measurements
        run.console.print(f"[red]report not written:[/] {type(e).__name__}: {e}")


STAGES: tuple[Stage[Run], ...] = (
    Stage("measure", measure, timed=False),
    Stage("analysis", analyse),
    Stage("profile", profile, lambda run: run.args.profile),
    Stage("summary", summary),
    Stage("sustained regime", sustained, lambda run: run.args.regime == "sustained"),
    Stage("report", report, lambda run: not run.args.no_report),
)


def burst_aa(args: argparse.Namespace) -> bool:
    """The burst run's A/A control. A sustained pass resumed on a finished run takes --aa for itself: the run it
    continues keeps the setting its file records, so that the A/A control of the sustained regime can be added to any
    run (and the burst rows are not timed again)."""
    if args.resume and args.regime == "sustained":
        return load(Path(args.resume)).header.aa
    return args.aa
