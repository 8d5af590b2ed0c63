"""`rosetta run --pair`: a user's own CUDA/Triton pair declared for a run (harness/pairs), checked before anything
runs, and the kernels a run measures with or without one."""

from __future__ import annotations

import argparse

from harness.catalog import CATALOG
from harness.catalog_types.tables import Catalog
from harness.cli.ids import choose, resolve
from harness.cli.options import problems_of
from harness.pairs.declaration import PairError
from harness.registry import Kernel


def add_pair(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pair", nargs="+", action="append", metavar="FILE|KEY=VALUE",
                        help="a CUDA/Triton pair of your own: a declaration file (.toml), KEY=VALUE words (cuda.file=, "
                        "cuda.symbol=, triton.file=, op=, tile=, ...), or a file then words that override it; run "
                        "beside cuBLAS and the Triton tutorial GEMM (and its `beside` kernel), instead of the catalog "
                        "unless --only names kernels too. Repeat for several pairs. docs/pairs.md")


def kernels_of(args: argparse.Namespace) -> tuple[list[Kernel], Catalog]:
    """The kernels a run measures and the run's catalog: with --pair, the declared pairs (each checked, one line and
    exit code 2 where it cannot run, before anything is launched), their `beside` kernels and those --only names, in
    the catalog with the pairs added as entries of its own; without --pair, the catalog's by --only and --op."""
    if not getattr(args, "pair", None):
        return choose(args.only, args.op), CATALOG
    from harness.pairs import checks
    from harness.pairs.pair import build
    from harness.pairs.read import read
    from harness.problems import CPU_SGEMM, CPU_SGEMV
    from harness.registry.shapes import cpu_problem

    declarations = [read(words) for words in args.pair]
    for field, values in (("name", [d.name for d in declarations]),
                          ("cuda.symbol", [d.cuda.symbol.replace(" ", "") for d in declarations])):
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise PairError(f"--pair: two pairs declare the {field} {', '.join(twice)}")
    ops = {d.op for d in declarations}
    if args.op is None and len(ops) == 1:
        args.op = next(iter(ops))  # the problems of the pair's op only: no baselines timed for nothing
    elif args.op is not None and ops - {args.op}:
        raise PairError(f"--op {args.op}: the pair {next(d.name for d in declarations if d.op != args.op)} is an "
                        f"{next(d.op for d in declarations if d.op != args.op)} pair")
    pairs = [build(d) for d in declarations]
    for p in pairs:
        if p.kernel.id in CATALOG.by_id:
            raise PairError(f"{p.declaration.who}: {p.kernel.id} is a catalog kernel's id")
    beside = [resolve(d.beside) for d in declarations if d.beside]  # an unknown id: one line naming the matches
    for d, k in zip([d for d in declarations if d.beside], beside, strict=True):
        if k.op != d.op:
            raise PairError(f"{d.who}: beside {k.id} is an {k.op} kernel, the pair an {d.op} one")
    checks.module_names(pairs)
    problems = [*problems_of(args), *(cpu_problem(p.kernel, p.counterpart) for p in pairs), CPU_SGEMM, CPU_SGEMV]
    for p in pairs:
        checks.check(p, problems)
    chosen = choose(args.only, args.op) if args.only else []
    kernels = list({k.id: k for k in (*(p.kernel for p in pairs), *beside, *chosen)}.values())
    return kernels, CATALOG.adding([p.kernel for p in pairs], [p.idea for p in pairs])
