"""The verbs that read results files: `rosetta compare`, `merge`, `analyse`, `report` and `claims` (no GPU needed)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.console import console
from harness.cli.options import DEFAULT_OUT, report_dir
from harness.cli.paths import apart, beside, output_file, output_folder, results_in

if TYPE_CHECKING:  # the verbs load what they read when they run, so that `rosetta --help` stays quick
    from harness.analysis.claims import Claim
    from harness.analysis.measured import Measured
    from harness.records.file import Results
    from harness.records.lines import Result


def add_compare(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("compare", help="two results files side by side: times, ratios, %% of cuBLAS, rank changes")
    s.add_argument("a", help="results file A (.jsonl), the reference")
    s.add_argument("b", help="results file B: its speed-ups are given as B against A")
    s.add_argument("--html", help=f"where to write the HTML page (default: {DEFAULT_OUT}/compare-A-vs-B.html)")
    s.set_defaults(func=cmd_compare)


# What the compare page begins with: an existing file that holds it is a page of ours, and is replaced.
COMPARE_PAGE = "<title>tile-rosetta: compare</title>"


def cmd_compare(args: argparse.Namespace) -> int:
    a, b = Path(args.a), Path(args.b)
    out = Path(args.html) if args.html else Path(DEFAULT_OUT) / f"compare-{a.stem}-vs-{b.stem}.html"
    # Every path first: a page that cannot be written is said before the tables, not after them.
    if args.html:
        output_file(out, "--html", replaces=COMPARE_PAGE)
    else:
        output_folder(out.parent, "--html", default=True)
    results_in(a, "compare")
    results_in(b, "compare")
    from harness.analysis.compare import compare
    from harness.report.compare import print_compare, render_compare

    cmp = compare(a, b)
    # the page before the terminal's tables: a reader that stops early (`| head`) must not cost the page
    out.parent.mkdir(parents=True, exist_ok=True)  # runs/ does not exist in a fresh clone
    page = render_compare(cmp, out)
    print_compare(cmp, console())
    print(f"compare: {page}")
    return 0


def add_merge(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("merge", help="join the results files of a run's shards into one")
    s.add_argument("files", nargs="+", help="the shards' results files")
    s.add_argument("--out", required=True, help="the merged results file to write")
    s.add_argument("--allow-mixed", action="store_true", help="join files of different device types or versions")
    s.set_defaults(func=cmd_merge)


def cmd_merge(args: argparse.Namespace) -> int:
    from harness.records.merge import merge

    output_file(args.out, "--out")
    for path in args.files:
        results_in(path, "merge")
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

    path = Path(args.results)
    results = results_in(path, "analyse")
    beside(path, "", analysis_path(path))
    an = write_beside(path, results)
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
    path = Path(args.results)
    out = output_folder(args.out or report_dir(path, Path(DEFAULT_OUT)), "--out", default=not args.out)
    apart((str(path), path), *((f"the page written in {out}", out / f"{path.stem}{suffix}")
                               for suffix in (".html", ".md")))  # render's pages must not replace what it reads
    results_in(path, "report")  # a clear one-line error for a bad file before anything is imported or written
    from harness.analysis.measured import Measured
    from harness.analysis.record import read_beside
    from harness.records.file import load
    from harness.report import render
    from harness.report.overview import headline_table

    html, md = render(path, out)
    analysed = read_beside(path)
    # what the page opens with, in the terminal, before where the page is
    print_headline(headline_table(Measured(load(path), analysed)), f"{path.name}: the headline", console())
    print(f"report: {html}\n        {md}")
    if analysed is None or analysed.mapping is None:
        print(f"note: the mapping claims are shown unproven: this file's analysis record has no proof of them "
              f"(`rosetta analyse {path}` writes one)")
    return 0


def print_headline(table, title: str, console) -> None:
    """The page's headline table in the terminal (harness.term_table): each cell's figure, and under it the first
    words of what the page writes beneath it (the rate, the call, the class); the problem's name wraps, and where the
    width is short the columns past the best CUDA, the best Triton and the first comparison are left out, the last
    first."""
    from harness.term_table import Column, print_table

    if not table:
        console.print(f"{title}: nothing timed", markup=False)
        return
    n = len(table.headers)
    kept = {0, 1, 2, next((i for i, (h, _) in enumerate(table.headers) if " vs " in h), 0)}  # the first call stays
    columns = [Column(h, right=num, wrap=14 if i == 0 else None, drop=None if i in kept else n - i,
                      short="problem" if i == 0 else h.split(",")[0]) for i, (h, num) in enumerate(table.headers)]

    def cell(c) -> str:
        under = c.sub.split(" · ")[0].split("; ")[0].split(" (")[0]
        return f"{c.text}\n{under}" if under else c.text

    print_table(console, title, columns, [[cell(c) for c in row] for row in table.rows], "the page has them")


def add_claims(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("claims", help="the documents' published figures beside ours (%% of cuBLAS)")
    s.add_argument("results", nargs="?", help="a results file to take our figures from (without one: the published "
                   "figures alone)")
    s.set_defaults(func=cmd_claims)


def cmd_claims(args: argparse.Namespace) -> int:
    from harness.analysis.claims import claims_table

    results = results_in(args.results, "claims") if args.results else None
    print_claims(claims_table(results), console(), results)
    return 0


def unroll_ratio(results: Results | Measured | None) -> str:
    from harness.analysis.claims import unroll_check

    check = unroll_check(results)
    if check is None:
        return "unroll ratio: not measured"
    return (f"unroll ratio ({check.claim.slow} time / {check.claim.fast} time): {check.ratio:.2f}x here; "
            f"the document: '{check.claim.words}' ({check.claim.ratio:g}x)")


def print_claims(rows: list[Claim], console, results: Results | Measured | None = None) -> None:
    """`rosetta claims`: the page's tables of the documents' figures (harness/report/overview.py) in the terminal,
    fitted to its width (harness.term_table)."""
    from harness.analysis.claims import as_measured, stride_occupancy, stride_sweep
    from harness.report import fmt
    from harness.report.columns import order_text
    from harness.report.wording import published_text
    from harness.term_table import Column, print_table

    m = as_measured(results)
    where = m.header.device if m else "ours"
    print_table(console, "The documents' figures beside ours (% of cuBLAS, each on its own GPU)",
                # the published figure is the last to go: it is what the table is for
                [Column("kernel"), Column("document GPU", drop=1, wrap=12), Column("published", drop=4, wrap=14),
                 Column("doc % cuBLAS", right=True, short="doc %"), Column(f"ours ({where})", drop=3, wrap=14),
                 Column("our % cuBLAS", right=True, short="our %"), Column("order", drop=2, wrap=12)],
                [[c.kernel.id, c.seed.gpu, published_text(c.published), fmt.pct(c.published_pct),
                  _ours_text(c.ours), fmt.pct(c.ours_pct), order_text(c)] for c in rows], "a wider terminal shows them")
    points = stride_sweep(m)
    if points:
        table = [[str(p.published.stride), str(p.kernel.threads), f"{p.published.tflops:g}",
                  fmt.tflops(p.tflops) if p.tflops else "-", str(p.published.registers), str(p.registers or "-"),
                  fmt.pct(p.published.occupancy_pct), fmt.pct_round(stride_occupancy(m, p) if m else None)]
                 for p in points]
        console.print()
        print_table(console, "Seed 001's stride sweep: the document beside ours",
                    [Column("stride", right=True), Column("threads/block", right=True, short="threads"),
                     Column("doc TFLOP/s", right=True, short="doc TF/s"),
                     Column("our TFLOP/s", right=True, short="our TF/s"),
                     Column("doc regs", right=True, drop=2), Column("our regs", right=True, drop=2),
                     Column("doc theor. occ.", right=True, drop=1, short="doc occ"),
                     Column("our theor. occ.", right=True, drop=1, short="our occ")], table)
    console.print(unroll_ratio(m), markup=False)


def _ours_text(r: Result | None) -> str:
    from harness.report import fmt

    if r is None or r.timing is None or r.figures is None:
        return "not measured"
    if r.op == "sgemm":
        return f"{fmt.ms(r.timing.median_ms)} ms, {fmt.tflops(r.figures.tflops)} TFLOP/s"
    return f"{fmt.ms(r.timing.median_ms)} ms, {fmt.gbps(r.figures.gbps)} GB/s"
