"""`rosetta gluon`: the Gluon column of a results file, in words: for every rung timed in all three models, which
part of the CUDA-Triton gap is the model's and which the compiler's (harness/analysis/model_or_compiler.py), and what
each model costs to write (harness/catalog/cost.py, the catalog the file was analysed with)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.options import UserError


def add_gluon(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("gluon", help="the model-or-compiler split of each rung a results file timed in CUDA, Triton "
                                     "and Gluon, and what each model costs to write (no GPU needed)")
    s.add_argument("results", help="a results file (.jsonl) of `rosetta run`")
    s.add_argument("--profile", nargs="+", help="`rosetta profile` files (profile-*.json) to add each column's "
                                                "issue-active cycles from, read as one")
    s.set_defaults(func=cmd_gluon)


def cost_lines(costs: dict[str, dict[str, tuple[int, int]]]) -> list[str]:
    """One line a rung: lines of code and decisions stated, CUDA / Triton / Gluon."""
    out = ["what each model costs to write (lines of code, decisions the source states; CUDA / Triton / Gluon):"]
    for kernel_id, by in costs.items():
        cells = " / ".join(f"{by[m][0]} lines, {by[m][1]}" if m in by else "-" for m in ("cuda", "triton", "gluon"))
        out.append(f"    {kernel_id}: {cells}")
    return out


def gluon_lines(results_path: Path, profile: list[Path] | None = None) -> list[str]:
    from harness.analysis.measured import Measured
    from harness.analysis.model_or_compiler import splits
    from harness.analysis.record import read_beside
    from harness.cli.paths import results_in
    from harness.report.splits import lines

    m = Measured(results_in(results_path, "gluon"), read_beside(results_path))
    found = splits(m, profile)
    out = lines(m, found) if found else ["no rung of this file was timed in CUDA, Triton and Gluon on one problem"]
    return [*out, *cost_lines(m.catalog.costs)]


def cmd_gluon(args: argparse.Namespace) -> int:
    from harness.analysis.model_or_compiler import issue_active
    from harness.cli.paths import input_file

    input_file(args.results, "", "results file")  # each path refused in one line before anything is read at length
    profile = [input_file(p, "--profile", "profile file") for p in args.profile] if args.profile else None
    for path in profile or []:
        try:
            issue_active(path)
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise UserError(f"--profile {path}: not a `rosetta profile` file ({type(e).__name__})") from None
    for line in gluon_lines(Path(args.results), profile):
        print(line)
    return 0
