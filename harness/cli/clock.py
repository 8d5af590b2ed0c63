"""`rosetta clock`: the SM clock probe's error. Given results files, where their readings exceed the GPU's maximum SM
clock, by window length and by implementation (no GPU); with --measure, the probe measured against NVML, the CUDA
events and the host's clock on this machine's GPU (harness/run/clock_error.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.console import console
from harness.cli.options import DEFAULT_OUT, NUMBERS, UserError, need_gpu


def add_clock(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("clock", help="the SM clock probe's error: in results files, or measured on this GPU",
                       description="With results files: how many of their clock readings exceed the GPU's maximum SM "
                       "clock, by the window's length and by what ran (no GPU needed). With --measure: the probe's "
                       "readings of windows of 10 us to 10 ms against NVML's clock, the CUDA events and the host's "
                       "clock, and the timer's step, written to a JSON file (GPU).")
    s.add_argument("results", nargs="*", help="results files whose clock readings to examine")
    s.add_argument("--measure", action="store_true", help="measure the probe's error on this machine's GPU")
    s.add_argument("--repeats", type=NUMBERS["count"], default=None, help="windows of each kind and length (--measure)")
    s.add_argument("--out", default=DEFAULT_OUT, help="folder for the measurement's JSON (default: %(default)s/)")
    s.set_defaults(func=cmd_clock)


def cmd_clock(args: argparse.Namespace) -> int:
    if not args.results and not args.measure:
        raise UserError("give results files to examine, or --measure to measure the probe on this GPU")
    from harness.cli.paths import output_folder, results_in

    loaded = [(Path(name), results_in(name, "clock")) for name in args.results]  # every file checked before any output
    if args.measure:
        output_folder(args.out, "--out", default=args.out == DEFAULT_OUT)
    out = console()
    for path, results in loaded:
        _examine(path, results.results, out)
    if args.measure:
        need_gpu("clock --measure needs a GPU")
        import torch

        from harness.run import clock_error as sm_clock_error

        repeats = args.repeats or sm_clock_error.REPEATS
        if repeats < 2:
            raise UserError(f"--repeats {repeats}: at least 2 windows of each kind and length")
        m = sm_clock_error.measure(torch.device("cuda", torch.cuda.current_device()), repeats,
                                   say=lambda line: out.print(line, markup=False))
        out.print(f"wrote {sm_clock_error.write(m, Path(args.out))}", markup=False)
    return 0


def _examine(path: Path, results: list, out) -> None:
    from harness.analysis import clock
    from harness.term_table import Column, print_table

    every = clock.overall(results)
    if every is None:
        out.print(f"{path.name}: no clock readings with the GPU's maximum recorded", markup=False)
        return
    columns = [Column("windows"), Column("runs", right=True), Column("above max", right=True),
               Column("median MHz", right=True), Column("p95 MHz", right=True), Column("max MHz", right=True),
               Column("worst excess", right=True)]

    def rows(found: list[clock.Excess]) -> list[list[str]]:
        return [[e.group, str(e.runs), f"{100 * e.share_over:.1f}%", f"{e.median_mhz:.0f}", f"{e.p95_mhz:.0f}",
                 f"{e.max_mhz:.0f}", f"{100 * e.worst:.2f}%"] for e in found]

    print_table(out, f"{path.name}: clock readings against the GPU's {every.device_max_mhz:.0f} MHz, by window length "
                "(a run's event time)", columns, rows([every, *clock.by_window(results)]))
    print_table(out, f"{path.name}: by what ran in the window", columns, rows(clock.by_implementation(results)))
