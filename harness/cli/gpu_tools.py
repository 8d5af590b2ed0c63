"""The verbs that run NVIDIA's tools or a study of their own on a GPU: `rosetta profile` (ncu), `rosetta sanitize`
(compute-sanitizer), `rosetta referee` (nvbench, through the optional cuda-bench package) and `rosetta knobs` (why a
Triton form trails Triton's tutorial GEMM)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.console import console
from harness.cli.ids import choose
from harness.cli.options import DEFAULT_OUT, NUMBERS, UserError, add_only, need_gpu, shape_text
from harness.cli.paths import beside, output_folder, results_in
from harness.problems import parse_shape
from harness.run.knob_study import STUDY_ROUNDS


def add_profile(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("profile", help="ncu hardware counters of every implementation on one problem (GPU)")
    add_only(s, "profile")
    s.add_argument("--shape", default="4096x4096x4096", type=shape_text,
                   help="MxNxK (sgemm) or MxN (sgemv) (default: %(default)s)")
    s.add_argument("--out", default=DEFAULT_OUT, help="folder for the counters file (default: %(default)s/)")
    s.add_argument("--results", help="store the counters with this results file's matching records")
    s.add_argument("--baselines", action="store_true",
                   help="profile the problem's baselines too (cuBLAS, the Triton tutorial GEMM), beside the kernels")
    s.add_argument("--impl", nargs="+", metavar="IMPL",
                   help="only these implementations: cuda, triton:<form>, gluon:<form>, a baseline's name "
                        "(`rosetta list --json` names each kernel's)")
    s.set_defaults(func=cmd_profile)


def cmd_profile(args: argparse.Namespace) -> int:
    from harness.inspect.profile import profile

    problem = parse_shape(args.shape)  # as `run` reads it: a malformed shape is named as such, GPU or not
    kernels = choose(args.only, problem.op)
    if args.impl:
        known = impl_names(kernels, problem.op)
        if unknown := [i for i in args.impl if i not in known]:
            raise UserError(f"--impl {' '.join(unknown)}: no such implementation of the chosen kernels "
                            f"(they have: {', '.join(sorted(known))})")
    out = output_folder(args.out, "--out", default=args.out == DEFAULT_OUT)
    if args.results:
        results_in(args.results, "profile", "--results")  # a bad file is refused before any profiling
        beside(args.results, "--results", Path(args.results))  # its counters are written into it
    need_gpu("profile needs a GPU and ncu")
    on_row, configs = None, None
    if args.results:
        from harness.identity import RecordKey
        from harness.records.file import attach_profiles, autotuned_configs

        configs = autotuned_configs(args.results, problem)  # autotuned rows are profiled in their timed config

        def on_row(row) -> None:
            if row.metrics:
                attach_profiles(args.results, {RecordKey.of(row.kernel, row.impl, problem): row.metrics})

    profile(kernels, problem, out, console(), on_row, configs, args.baselines, args.impl)
    return 0


def impl_names(kernels: list, op: str) -> set[str]:
    """What --impl may name for these kernels: each one's implementations and the op's baselines."""
    from harness.launch.implementations import baselines

    return {"cuda", *(f"triton:{c.name}" for k in kernels for c in k.counterparts),
            *(f"gluon:{g.name}" for k in kernels for g in k.gluon), *(b.name for b in baselines(op))}


TOOLS = ("memcheck", "racecheck", "synccheck")


def add_sanitize(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("sanitize", help=f"compute-sanitizer ({', '.join(TOOLS)}) over every CUDA kernel")
    add_only(s, "check")
    s.add_argument("--tool", nargs="+", default=list(TOOLS), choices=TOOLS, help="default: all three")
    s.add_argument("--out", default=DEFAULT_OUT, help="folder for the sanitizer's summary (default: %(default)s/)")
    s.add_argument("--jobs", type=NUMBERS["count"], default=8, help="sanitizer processes at once")
    s.set_defaults(func=cmd_sanitize)


def cmd_sanitize(args: argparse.Namespace) -> int:
    from harness.inspect.sanitize import sanitize

    kernels = choose(args.only)
    out = output_folder(args.out, "--out", default=args.out == DEFAULT_OUT)
    need_gpu("sanitize needs a GPU and compute-sanitizer")
    return sanitize(kernels, tools=args.tool, out_dir=out, console=console(), jobs=args.jobs)


def add_referee(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("referee", help="the suite's timer against NVIDIA's nvbench on the same launches (GPU)",
                       description="Time the chosen implementations with the suite's interleaved rounds and with "
                       "NVIDIA's nvbench (the optional cuda-bench package) on the very same bound launches, and "
                       "print both times, both SM clocks and their ratio.")
    add_only(s, "referee")
    s.add_argument("--shape", default="4096x4096x4096", type=shape_text,
                   help="MxNxK (sgemm) or MxN (sgemv) (default: %(default)s)")
    s.set_defaults(func=cmd_referee)


def cmd_referee(args: argparse.Namespace) -> int:
    from harness.launch.implementations import all_impls, baselines
    from harness.run import referee
    from harness.term_table import Column, print_table

    problem = parse_shape(args.shape)
    kernels = choose(args.only, problem.op)
    need_gpu("referee needs a GPU")
    why = referee.missing()
    if why:
        raise UserError(why)
    impls = [*(b for b in baselines(problem.op) if b.vendor),
             *(i for i in all_impls(kernels) if not i.unmet(problem))]
    rows = referee.referee(impls, problem)

    def f(v: float | None, spec: str) -> str:
        return "-" if v is None else format(v, spec)

    print_table(console(), f"{problem.label}: the suite's rounds against nvbench's cold measurement",
                [Column("implementation"), Column("suite ms", right=True), Column("suite MHz", right=True, drop=2),
                 Column("nvbench ms", right=True), Column("nvbench MHz", right=True, drop=1),
                 Column("nvbench / suite", right=True)],
                [[r.label, f(r.suite_ms, ".4f"), f(r.suite_mhz, ".0f"), f(r.nvbench_ms, ".4f"), f(r.nvbench_mhz, ".0f"),
                  f(r.ratio, ".3f")] for r in rows])
    return 0


def add_knobs(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("knobs", help="why each SLOW Triton form trails Triton's tutorial GEMM, knob by knob (GPU)",
                       description="For each Triton form and class with a row that the results file calls SLOW "
                       "against its Triton baseline, time its fastest such row again beside the baseline, with each "
                       "launch setting (tile, warps, stages, program order) switched alone to the baseline "
                       "autotuner's choice, in interleaved rounds. Writes RESULTS.knobs.json beside the file; the "
                       "report's findings then say which knob explains each gap.")
    s.add_argument("results", help="a results file with its analysis beside it (a GPU run)")
    add_only(s, "study (of those the file calls SLOW)")
    s.add_argument("--shape", default="4096x4096x4096", type=shape_text,
                   help="the sgemm problem studied (default: %(default)s)")
    s.add_argument("--rounds", type=NUMBERS["rounds"], default=STUDY_ROUNDS,
                   help="interleaved rounds (default: %(default)s)")
    s.set_defaults(func=cmd_knobs)


def cmd_knobs(args: argparse.Namespace) -> int:
    from harness.analysis import knobs as found
    from harness.report.knobs import knob_sentence
    from harness.run import knob_study as knobs

    problem = parse_shape(args.shape)
    path = Path(args.results)
    if problem.op != "sgemm":
        raise UserError(f"knobs studies sgemm problems (the Triton baseline's op), not {problem.label}")
    only = {k.id for k in choose(args.only, problem.op)} if args.only else None
    results_in(path, "knobs")
    beside(path, "", found.study_path(path))
    need_gpu("knobs needs a GPU")
    out = console()
    # markup off: kernel ids and implementations hold brackets ("[triton:dot]") that rich would read as styles
    written = knobs.measure(path, problem, rounds=args.rounds, seed=problem.seed(),
                            say=lambda line: out.print(line, markup=False), only=only)
    study = found.read_beside(path)
    for f in study.findings:
        out.print(f"{f.kernel} [{f.impl}] ({f.precision}): {knob_sentence(f)}", markup=False)
    out.print(f"wrote {written}", markup=False)
    return 0
