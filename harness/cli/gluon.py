"""`rosetta gluon`: the Gluon column of a results file, in words: for every rung timed in all three models, which
part of the CUDA-Triton gap is the model's and which the compiler's (harness/analysis/model_or_compiler.py), and what
each model costs to write (harness/catalog/cost.py, the catalog the file was analysed with). `rosetta ablate`: the
SIMT summit's ablation, why its Gluon forms trail CUDA, one thing at a time (harness/run/ablation.py, GPU), written
beside a results file and printed by both verbs."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.options import NUMBERS, UserError, need_gpu


def add_gluon(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("gluon", help="the model-or-compiler split of each rung a results file timed in CUDA, Triton "
                                     "and Gluon, and what each model costs to write (no GPU needed)")
    s.add_argument("results", help="a results file (.jsonl) of `rosetta run`")
    s.add_argument("--profile", nargs="+", help="`rosetta profile` files (profile-*.json) to add each column's "
                                                "issue-active cycles from, read as one")
    s.set_defaults(func=cmd_gluon)


def add_ablate(sub: argparse._SubParsersAction) -> None:
    from harness.run.ablation import ROUNDS, SIZES, VARIANTS

    s = sub.add_parser("ablate", help="why the SIMT summit's Gluon forms trail its CUDA kernel, one thing at a time "
                                      "(GPU; prints a written ablation anywhere)",
                       description="Times the CUDA summit, cuBLAS fp32 and variants that each change one thing (the "
                       "assembler; the CUDA cubin's register-bank conflicts; the Gluon form's register and fragment "
                       "order) in interleaved rounds, with the static facts of each timed cubin's main loop. Writes "
                       "RESULTS.ablation.json beside the results file (or --out); with --show, prints it.")
    s.add_argument("results", help="the results file the ablation is written beside (or, with --show, read from)")
    s.add_argument("--out", help="write the ablation to this file instead")
    s.add_argument("--show", action="store_true", help="print the ablation beside RESULTS; no GPU needed")
    s.add_argument("--sizes", type=NUMBERS["size"], nargs="+", default=list(SIZES),
                   help="square sizes (default: %(default)s)")
    s.add_argument("--rounds", type=NUMBERS["rounds"], default=ROUNDS, help="interleaved rounds (default: %(default)s)")
    s.add_argument("--variants", nargs="+", choices=[v.name for v in VARIANTS], metavar="NAME",
                   help="only these variants (CUDA and cuBLAS always)")
    s.set_defaults(func=cmd_ablate)


def cmd_ablate(args: argparse.Namespace) -> int:
    from harness.analysis import ablation as found
    from harness.cli.paths import beside, output_file, results_in
    from harness.report.ablation import lines

    path = Path(args.results)
    results_in(path, "ablate")  # each path refused in one line before anything is written
    written = '{"record":"simt-ablation"'   # what an ablation file begins with: one this verb may replace
    target = output_file(args.out, "--out", replaces=written) if args.out else found.ablation_path(path)
    if not args.out:
        beside(path, "", target)
    if args.show:
        if not target.is_file():
            raise UserError(f"no ablation at {target}: `rosetta ablate {path}` on a GPU writes one")
        print("\n".join(lines(found.read(target))))
        return 0
    need_gpu("ablate needs a GPU", "; --show prints a written one")
    from harness.run.ablation import measure

    measure(target, sizes=tuple(args.sizes), rounds=args.rounds, seed=0, say=lambda line: print(line, flush=True),
            only=set(args.variants) if args.variants else None)
    print("\n".join(lines(found.read(target))))
    print(f"wrote {target}")
    return 0


def cost_lines(costs: dict[str, dict[str, tuple[int, int]]]) -> list[str]:
    """One line a rung: lines of code and decisions stated, CUDA / Triton / Gluon."""
    out = ["what each model costs to write (lines of code, decisions the source states; CUDA / Triton / Gluon):"]
    for kernel_id, by in costs.items():
        cells = " / ".join(f"{by[m][0]} lines, {by[m][1]}" if m in by else "-" for m in ("cuda", "triton", "gluon"))
        out.append(f"    {kernel_id}: {cells}")
    return out


def gluon_lines(results_path: Path, profile: list[Path] | None = None) -> list[str]:
    from harness.analysis.ablation import read_beside as ablation_beside
    from harness.analysis.measured import Measured
    from harness.analysis.model_or_compiler import splits
    from harness.analysis.record import read_beside
    from harness.cli.paths import results_in
    from harness.report.ablation import lines as ablation_lines
    from harness.report.splits import lines

    m = Measured(results_in(results_path, "gluon"), read_beside(results_path))
    found = splits(m, profile)
    out = lines(m, found) if found else ["no rung of this file was timed in CUDA, Triton and Gluon on one problem"]
    ablation = ablation_beside(results_path)
    return [*out, *cost_lines(m.catalog.costs), *(ablation_lines(ablation) if ablation else [])]


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
    print("\n".join(gluon_lines(Path(args.results), profile)))
    return 0
