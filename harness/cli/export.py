"""`rosetta export RESULTS`: a results file as CSV that `pandas.read_csv` reads as it is: --csv, a row per
implementation and problem; --samples, a row per timed run. The rows are harness/report/export.py's; the columns
are documented in docs/export.md. Reads the records and the analysis record only: nothing is run or compiled."""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Iterable
from contextlib import nullcontext
from pathlib import Path

from harness.cli.options import UserError


def add_export(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("export", help="a results file as CSV: a row per implementation and problem, or per timed run",
                       description="Write a results file as CSV (pandas.read_csv reads it with no arguments): "
                       "--csv, a row per implementation and problem (ids, model, precision class, the configuration "
                       "that ran, times, rates, %% of cuBLAS with its interval, every call, numerics per layer, "
                       "registers, spills); --samples, a row per timed run (round, position, ms, SM clock, cycles). "
                       "Columns: docs/export.md.")
    s.add_argument("results", type=Path, help="a results file (.jsonl) of `rosetta run`")
    s.add_argument("--csv", metavar="FILE", help="write the rows of implementations and problems here ('-': standard "
                   "output)")
    s.add_argument("--samples", metavar="FILE", help="write the rows of timed runs here ('-': standard output)")
    s.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    if not args.csv and not args.samples:
        raise UserError("give --csv FILE, --samples FILE or both ('-' writes to standard output)")
    if args.csv == "-" and args.samples == "-":
        raise UserError("--csv - and --samples -: one table to standard output at a time")
    from harness.analysis.measured import Measured
    from harness.analysis.record import read_beside
    from harness.cli.paths import apart, output_file, results_in
    from harness.report.export import SAMPLE_COLUMNS, columns_of, rows, sample_rows

    # every path checked before anything is written: no file named twice, the results file, then each file to write
    apart((str(args.results), args.results), (f"--csv {args.csv}", args.csv),
          (f"--samples {args.samples}", args.samples))
    results = results_in(args.results, "export")
    for flag, target in (("--csv", args.csv), ("--samples", args.samples)):
        if target and target != "-":
            output_file(target, flag)
    # the file's analysis record (the verdicts its page shows); made now, the same way, where it is missing or stale
    m = Measured(results, read_beside(Path(args.results)))
    for target, names, table in ((args.csv, [c.name for c in columns_of(m)], rows),
                                 (args.samples, [n for n, _ in SAMPLE_COLUMNS], sample_rows)):
        if target:
            count = write(target, names, table(m))
            if target != "-":
                print(f"{target}: {count} rows", file=sys.stderr)
    return 0


def write(target: str, names: list[str], rows: Iterable[dict]) -> int:
    """CSV with a header row, comma-separated, fields quoted only where needed, missing values empty."""
    with open(target, "w", newline="", encoding="utf-8") if target != "-" else nullcontext(sys.stdout) as out:
        writer = csv.DictWriter(out, fieldnames=names, lineterminator="\n")
        writer.writeheader()
        count = 0
        for row in rows:
            writer.writerow(row)
            count += 1
        return count
