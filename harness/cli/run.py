"""`rosetta run`: its options and the command; what its arguments ask for is read by options, its progress
printed by progress."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING

from harness import env
from harness.cli.console import console as make_console
from harness.cli.options import (
    DEFAULT_OUT,
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
from harness.cli.pairs import add_pair, kernels_of
from harness.cli.paths import output_folder, results_in
from harness.cli.progress import Reporter
from harness.measure.rounds import MIN_ROUNDS, REP_MS, ROUNDS
from harness.problems import CPU_SGEMM, CPU_SGEMV, SEED
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
    add_pair(s)
    s.add_argument("--op", choices=("sgemm", "sgemv"), help="this operation's kernels only")
    s.add_argument("--shape", nargs="+", help="MxNxK (sgemm) or MxN (sgemv). GPU only: the CPU tier picks the "
                   "small odd shape each tile calls for")
    s.add_argument("--sweep", action="store_true", help="sgemm at 256..8192 and LLM-shaped problems. GPU only")
    s.add_argument("--out", help=f"folder for a new results file and its report (default: {DEFAULT_OUT}/)")
    s.add_argument("--results", type=Path, help="append to this results file instead of a new one")
    s.add_argument("--rep-ms", type=float, help=f"measured time per implementation (ms, default {REP_MS:g}). "
                   "GPU only: the CPU tier does not time")
    s.add_argument("--rounds", type=int, help=f"interleaved timing rounds per problem (default {ROUNDS}; at "
                   f"least {MIN_ROUNDS} for a call). GPU only")
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
    s.add_argument("--seed", type=int, default=SEED, help="seed of the random inputs")
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
    kernels = kernels_of(args)  # --pair: a user's own pairs, checked before anything runs (cli/pairs.py)
    problems = problems_of(args)  # a malformed --shape is named as such, even where --shape is refused
    refuse_what_cannot_apply(args, gpu, env.gpu_reason())  # before anything runs or is written
    interpreting = env.use_interpreter_without_gpu()
    console = make_console()
    if args.timeout <= 0:
        raise UserError(f"--timeout {args.timeout:g}: must be a positive number of seconds")
    if args.regime == "sustained" and args.shard:
        raise UserError("--regime sustained and --shard together: the sustained regime takes the whole run's headline "
                        "rows; give one")
    if args.rounds is not None and args.rounds < MIN_ROUNDS:
        raise UserError(f"--rounds {args.rounds}: a call needs at least {MIN_ROUNDS} rounds")
    if args.out:
        output_folder(args.out, "--out")
    if args.profile:
        from harness.inspect.tools import has_tool

        if not has_tool("ncu"):
            raise UserError("--profile needs Nsight Compute's ncu (on PATH, $CUDA_HOME/bin or /usr/local/cuda/bin)")
    if args.resume:
        results_in(args.resume, "run", "--resume")  # a file that is not a results file, before anything runs
    if not gpu:
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
    if out_path.parent == out_dir:  # checked above (or the default, runs/ under the current folder): a new file's home
        out_dir.mkdir(parents=not args.out, exist_ok=True)
    session = RunSession(kernels, problems, out_path, args.argv, gpus=gpus,
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
    if not gpu:
        # What is attempted, not what happened: the end of the run says how many sources were compiled.
        console.print(f"[yellow]No GPU ({env.gpu_reason()}):[/] running the CPU tier instead: Triton counterparts "
                      f"in the interpreter on small odd shapes (numerics only, no timing), beside torch's CPU "
                      f"matmul; then each CUDA source is compiled if this machine can, not run.")
    console.print(f"results: {out_path} (written as each implementation finishes)", markup=False)
    with Reporter(console, session.gpu, session.rounds, session.rep_ms, session.aa, len(session.gpus)) as reporter:
        failures = session.run(reporter)
    from harness.analysis.build import write_beside
    from harness.analysis.measured import Measured
    from harness.records.file import load
    from harness.report.terminal import print_summary
    from harness.run.phases import phases_line, timed

    # Every verdict of the file and its proven mapping, made once and written beside it: the table below and the
    # report read it.
    with timed(session.phase_s, "analysis"):
        results = load(out_path)
        analysis = write_beside(out_path, results)
    if args.profile:
        analysis = profile_headlines(out_path, analysis, console)
        results = load(out_path)
    print_summary(Measured(results, analysis), console)
    for line in aa_lines(analysis):
        console.print(line, markup=False)
    if gpu:
        from harness.analysis.energy import file_energy

        console.print(file_energy(session.results).line(), markup=False)
    if any(r.model == "gluon" for r in session.results):  # the model-or-compiler split of each rung with all three
        from harness.cli.gluon import gluon_lines

        for line in gluon_lines(out_path):
            console.print(line, markup=False)
    if args.regime == "sustained":
        with timed(session.phase_s, "sustained regime"):
            failures += sustained_regime(args, out_path, gpus[0], console)
    if not gpu:
        console.print(compiled_line(reporter.results), markup=False)
    console.print(f"run took {time.perf_counter() - wall:.1f} s on {len(gpus)} worker(s); results: {out_path}",
                  markup=False)
    report: dict[str, float] = {}
    if not args.no_report:
        with timed(report, "report"):
            try:
                from harness.report import render

                html, md = render(out_path, report_dir(out_path, out_path.parent))
                console.print(f"report: {html}\n        {md}", markup=False)
            except Exception as e:  # a report problem must not hide the measurements
                console.print(f"[red]report not written:[/] {type(e).__name__}: {e}")
    # One line in a log however long (a pipe has no width to fold it to)
    console.print(phases_line(reporter.results, session.phase_s, report.get("report", 0.0), time.perf_counter() - wall,
                              len(gpus)), markup=False, soft_wrap=True)
    if failures:
        console.print(f"[red]{len(failures)} implementation(s) failed:[/]")
        for rec in failures:
            console.print(f"  {rec.kernel or rec.impl} ({rec.impl}) {rec.problem.label}: {rec.reason}", markup=False)
        return 1
    return 0


def profile_headlines(out_path: Path, analysis: Analysis, console) -> Analysis:
    """`--profile`: ncu on the records the causes and steps read counters of (analysis/steps.py counter_rows), their
    counters stored with the records, then the analysis made again with them."""
    from harness.analysis.build import write_beside
    from harness.analysis.measured import Measured
    from harness.analysis.steps import counter_rows
    from harness.inspect.profile import profile_records
    from harness.records.file import load

    started = time.perf_counter()
    targets = counter_rows(Measured(load(out_path), analysis))
    console.print(f"profile: {len(targets)} records under Nsight Compute", markup=False)
    profile_records(out_path, targets, out_path.parent, console)
    again = write_beside(out_path, load(out_path))
    console.print(f"profile took {time.perf_counter() - started:.0f} s", markup=False)
    return again


def burst_aa(args: argparse.Namespace) -> bool:
    """The burst run's A/A control. A sustained pass resumed on a finished run takes --aa for itself: the run it
    continues keeps the setting its file records, so that the A/A control of the sustained regime can be added to any
    run (and the burst rows are not timed again)."""
    if args.resume and args.regime == "sustained":
        from harness.records.file import load

        return load(Path(args.resume)).header.aa
    return args.aa


def sustained_regime(args: argparse.Namespace, burst: Path, gpu: str | None, console) -> list[Result]:
    """`--regime sustained`: the run's headline implementations in the sustained regime (harness/run/sustained.py),
    written beside the run and analysed; its table in the terminal. Returns its failures."""
    from harness.analysis.build import write_beside
    from harness.analysis.regimes import study, terminal_lines
    from harness.records.file import load
    from harness.run.sustained import run

    console.print("sustained regime: the headline implementations, each back to back to its steady state",
                  markup=False)
    try:
        with Reporter(console) as reporter:
            path, failures = run(burst, args.argv, aa=args.aa, timeout_s=args.timeout, gpu=gpu, seed=args.seed,
                                 progress=reporter)
    except ValueError as e:  # no headline row to take: said, and the run's own results and report stand
        console.print(f"sustained regime not run: {e}", markup=False)
        return []
    results = load(path)
    write_beside(path, results)
    found = study(results)
    for line in terminal_lines(found) if found else []:
        console.print(line, markup=False, soft_wrap=True)
    console.print(f"sustained regime: {path}", markup=False)
    return failures


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
    from harness.analysis.wording import speed

    controls = [c for c in analysis.where("aa") if c.call is not None]
    if not controls:
        return []
    others = [c for c in controls if c.call.value != "SAME"]
    same = len(controls) - len(others)
    return [f"A/A control: {same} of {len(controls)} implementations timed twice called SAME "
            f"({100 * same / len(controls):.1f}%)",
            *(f"  {c.call.value}: {c.subject[0] or c.subject[1]} [{c.subject[1]}] on {c.problem.label}, second entry "
              f"against first {speed(c)}" for c in others)]
