"""The verbs that read results files: `rosetta compare`, `merge`, `analyse`, `report` and `claims` (no GPU needed)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli_console import console
from harness.cli_options import DEFAULT_OUT, report_dir


def add_compare(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("compare", help="two results files side by side: times, ratios, %% of cuBLAS, rank changes")
    s.add_argument("a", help="results file A (.jsonl), the reference")
    s.add_argument("b", help="results file B: its speed-ups are given as B against A")
    s.add_argument("--html", help=f"where to write the HTML page (default: {DEFAULT_OUT}/compare-A-vs-B.html)")
    s.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from harness.analysis.compare import compare
    from harness.report.compare import print_compare, render_compare

    cmp = compare(Path(args.a), Path(args.b))
    print_compare(cmp, console())
    a, b = Path(args.a), Path(args.b)
    out = Path(args.html) if args.html else Path(DEFAULT_OUT) / f"compare-{a.stem}-vs-{b.stem}.html"
    out.parent.mkdir(parents=True, exist_ok=True)  # runs/ does not exist in a fresh clone
    print(f"compare: {render_compare(cmp, out)}")
    return 0


def add_merge(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("merge", help="join the results files of a run's shards into one")
    s.add_argument("files", nargs="+", help="the shards' results files")
    s.add_argument("--out", required=True, help="the merged results file to write")
    s.add_argument("--allow-mixed", action="store_true", help="join files of different device types or versions")
    s.set_defaults(func=cmd_merge)


def cmd_merge(args: argparse.Namespace) -> int:
    from harness.run.merge import merge

    out = merge([Path(p) for p in args.files], Path(args.out), allow_mixed=args.allow_mixed)
    print(out)
    return 0


def add_analyse(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("analyse", help="(re)write a results file's analysis record: every verdict and the proven "
                       "mapping (compiles only the kernels the file has no evidence of; no GPU needed)")
    s.add_argument("results", help="a results file (.jsonl) of `rosetta run`")
    s.set_defaults(func=cmd_analyse)


def cmd_analyse(args: argparse.Namespace) -> int:
    from harness.analysis.build import write_beside
    from harness.analysis.record import analysis_path
    from harness.run.results import load

    path = Path(args.results)
    an = write_beside(path, load(path))
    proven = an.mapping
    verdicts = [v for rows in proven.rows.values() for row in rows for v in row.verdicts] if proven else []
    print(f"analysis: {len(an.comparisons)} comparisons; mapping: {len(proven.rows) if proven else 0} ideas proven "
          f"({sum(v.holds for v in verdicts)} of {len(verdicts)} verdicts hold)"
          + (f", {len(proven.unproven)} not proven here: {', '.join(proven.unproven)}" if proven and proven.unproven
             else "") + f"; {analysis_path(path)}")
    return 0


def add_report(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("report", help="render a results file as HTML and Markdown (no GPU needed)")
    s.add_argument("results", help="a results file (.jsonl) of `rosetta run`")
    s.add_argument("--out", help=f"folder for the report (default: {DEFAULT_OUT}/report-<results file stem>/)")
    s.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from harness.run.results import load

    load(args.results)  # a clear one-line error for a bad file before anything is imported or written
    from harness.analysis.record import read_beside
    from harness.report import render

    path = Path(args.results)
    html, md = render(path, Path(args.out) if args.out else report_dir(path, Path(DEFAULT_OUT)))
    print(f"report: {html}\n        {md}")
    analysed = read_beside(path)
    if analysed is None or analysed.mapping is None:
        print(f"note: the mapping claims are shown unproven: this file's analysis record has no proof of them "
              f"(`rosetta analyse {path}` writes one)")
    return 0


def add_claims(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("claims", help="the documents' published figures beside ours (%% of cuBLAS)")
    s.add_argument("results", nargs="?", help="a results file to take our figures from (without one: the published "
                   "figures alone)")
    s.set_defaults(func=cmd_claims)


def cmd_claims(args: argparse.Namespace) -> int:
    from harness.analysis.claims import claims_table
    from harness.report.claims import print_claims
    from harness.run.results import load

    results = load(args.results) if args.results else None
    print_claims(claims_table(results), console(), results)
    return 0
