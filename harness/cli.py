"""`rosetta`: list, run, report, claims, explain, trace, sanitize.

Errors a user can cause (a bad id, shape or file) end with a one-line message and exit code 2, never
a traceback; a run in which any implementation failed ends with exit code 1 after its summary.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from harness import env
from harness.ideas import IDEAS
from harness.problems import DEFAULT_SGEMM, DEFAULT_SGEMV, SWEEP_SGEMM, Problem, parse_shape
from harness.registry import SEEDS, get, select

# Small, odd shapes for the CPU tier: every Triton counterpart in the interpreter in seconds.
CPU_SGEMM = Problem("sgemm", 37, 45, 29)
CPU_SGEMV = Problem("sgemv", 37, 45)


class UserError(Exception):
    """A mistake in what the user asked for: reported in one line, exit code 2."""


def _console():
    from rich.console import Console

    return Console()


def cmd_list(args: argparse.Namespace) -> int:
    kernels = select(None, args.op)
    if args.json:
        rows = [{"id": k.id, "op": k.op, "idea": k.idea, "seed": k.seed,
                 "seed_file": SEEDS[k.seed].file if k.seed else None, "section": k.section, "source": k.source,
                 "symbol": k.symbol, "block": k.block, "tile": [k.tile_m, k.tile_n],
                 "preconditions": [c.text for c in k.preconditions],
                 "reads_c_when_beta_zero": k.reads_c_when_beta_zero,
                 "counterparts": [{"name": c.name, "module": c.module, "params": c.params, "num_warps": c.num_warps,
                                   "num_stages": c.num_stages, "note": c.note} for c in k.counterparts]}
                for k in kernels]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    from rich.table import Table

    table = Table(title=f"tile-rosetta: {len(kernels)} kernels", show_lines=False)
    for col in ("kernel", "seed", "idea", "threads", "tile", "preconditions", "beta=0", "Triton"):
        table.add_column(col, overflow="fold")
    for k in kernels:
        table.add_row(k.id, k.seed or "ours", IDEAS[k.idea].title, "x".join(map(str, k.block[:2])),
                      f"{k.tile_m}x{k.tile_n}" if k.tile_n else f"{k.tile_m} row(s)",
                      "\n".join(c.text for c in k.preconditions),
                      "reads C" if k.reads_c_when_beta_zero else "honours",
                      ", ".join(c.name for c in k.counterparts))
    _console().print(table)
    return 0


def _problems(args: argparse.Namespace) -> list[Problem]:
    ops = [args.op] if args.op else ["sgemm", "sgemv"]
    if args.shape:
        out = []
        for text in args.shape:
            dims = text.lower().replace("×", "x").count("x") + 1
            op = args.op or ("sgemm" if dims == 3 else "sgemv")
            out.append(parse_shape(text, op))
        return out
    if args.sweep:
        return [p for p in SWEEP_SGEMM if p.op in ops]
    return [p for p in (*DEFAULT_SGEMM, *DEFAULT_SGEMV) if p.op in ops]


def _results_path(out_dir: Path, device: str) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    slug = "".join(ch if ch.isalnum() else "-" for ch in device).strip("-").lower() or "device"
    return out_dir / f"{slug}-{stamp}.jsonl"


def cmd_run(args: argparse.Namespace) -> int:
    interpreting = env.use_interpreter_without_gpu()
    console = _console()
    kernels = select(args.only, args.op)
    problems = _problems(args)
    if not env.has_gpu():
        console.print(f"[yellow]No GPU ({env.gpu_reason()}):[/] running the CPU tier instead - Triton counterparts "
                      f"in the interpreter on small odd shapes (numerics only, no timing) and the CUDA sources "
                      f"compiled for sm_90 with their resource usage.")
        problems = [p for p in (CPU_SGEMM, CPU_SGEMV) if any(k.op == p.op for k in kernels)]
    elif interpreting:
        raise UserError("TRITON_INTERPRET is set on a GPU machine: unset it for a GPU run")
    else:
        import torch

        from harness.operands import fits_in_memory

        for p in problems:
            fits_in_memory("rosetta run", p, torch.cuda.mem_get_info()[0])
    from harness.run_session import RunSession

    session = RunSession(kernels, problems, gpu=env.has_gpu(), rep_ms=args.rep_ms,
                         out_path=args.results or _results_path(Path(args.out), _device_name()),
                         seed=args.seed, console=console, argv=sys.argv)
    started = time.perf_counter()
    failures = session.run()
    console.print(f"run took {time.perf_counter() - started:.1f} s; results: {session.out_path}")
    if not args.no_report:
        try:
            from harness.report import render

            html, md = render(session.out_path, session.out_path.parent)
            console.print(f"report: {html}\n        {md}")
        except Exception as e:  # a report problem must not hide the measurements
            console.print(f"[red]report not written:[/] {type(e).__name__}: {e}")
    if failures:
        console.print(f"[red]{len(failures)} implementation(s) failed:[/]")
        for rec in failures:
            console.print(f"  {rec.get('kernel') or rec['impl']} ({rec['impl']}) {rec['problem']}: {rec['reason']}",
                          markup=False)
        return 1
    return 0


def _device_name() -> str:
    if env.has_gpu():
        import torch

        return torch.cuda.get_device_name()
    return "cpu-interpreter"


def cmd_report(args: argparse.Namespace) -> int:
    from harness.report import render
    from harness.results import load

    load(args.results)  # a clear error for a bad file before anything is written
    html, md = render(Path(args.results), Path(args.out) if args.out else Path(args.results).parent)
    print(f"{html}\n{md}")
    return 0


def cmd_claims(args: argparse.Namespace) -> int:
    from harness.claims import claims_table, print_claims
    from harness.results import load

    results = load(args.results) if args.results else None
    print_claims(claims_table(results), _console(), results)
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from harness.explain import explain

    explain(get(args.kernel), _console())
    return 0


def cmd_trace(args: argparse.Namespace) -> int:
    env.use_interpreter_without_gpu()
    from harness.trace import print_trace, trace

    use_gpu = env.has_gpu() and not args.interpreter
    print_trace(trace(gpu=use_gpu), _console(), "CUDA kernel on the GPU" if use_gpu else
                "Triton counterpart in the interpreter")
    return 0


def cmd_sanitize(args: argparse.Namespace) -> int:
    from harness.sanitize import sanitize

    if not env.has_gpu():
        raise UserError(f"sanitize needs a GPU and compute-sanitizer ({env.gpu_reason()})")
    return sanitize(select(args.only, None), tools=args.tool, out_dir=Path(args.out), console=_console(),
                    jobs=args.jobs)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rosetta", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("list", help="the kernels, their seed, idea and preconditions")
    s.add_argument("--json", action="store_true")
    s.add_argument("--op", choices=("sgemm", "sgemv"))
    s.set_defaults(func=cmd_list)
    s = sub.add_parser("run", help="check numerics and time every kernel, counterpart and baseline")
    s.add_argument("--only", nargs="+", metavar="ID", help="kernel ids (or parts of ids) to run")
    s.add_argument("--op", choices=("sgemm", "sgemv"))
    s.add_argument("--shape", nargs="+", help="MxNxK (sgemm) or MxN (sgemv)")
    s.add_argument("--sweep", action="store_true", help="sgemm at 256..8192 and LLM-shaped problems")
    s.add_argument("--out", default="results", help="folder for the results file and report")
    s.add_argument("--results", type=Path, help="append to this results file instead of a new one")
    s.add_argument("--rep-ms", type=float, default=100.0, help="measured time per implementation (ms)")
    s.add_argument("--seed", type=int, default=20261122, help="seed of the random inputs")
    s.add_argument("--no-report", action="store_true")
    s.set_defaults(func=cmd_run)
    s = sub.add_parser("report", help="render a results file as HTML and Markdown (no GPU needed)")
    s.add_argument("results")
    s.add_argument("--out", help="folder for the report (default: beside the results)")
    s.set_defaults(func=cmd_report)
    s = sub.add_parser("claims", help="the documents' published figures beside ours")
    s.add_argument("results", nargs="?")
    s.set_defaults(func=cmd_claims)
    s = sub.add_parser("explain", help="a kernel's CUDA source beside its Triton counterpart")
    s.add_argument("kernel")
    s.set_defaults(func=cmd_explain)
    s = sub.add_parser("trace", help="seed 002's worked example: indices each block/thread loads per phase")
    s.add_argument("--interpreter", action="store_true", help="use the Triton interpreter even with a GPU")
    s.set_defaults(func=cmd_trace)
    s = sub.add_parser("sanitize", help="compute-sanitizer memcheck and racecheck over every CUDA kernel")
    s.add_argument("--only", nargs="+", metavar="ID")
    s.add_argument("--tool", nargs="+", default=["memcheck", "racecheck"], choices=("memcheck", "racecheck"))
    s.add_argument("--out", default="results")
    s.add_argument("--jobs", type=int, default=8, help="sanitizer processes at once")
    s.set_defaults(func=cmd_sanitize)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (UserError, ValueError) as e:
        print(f"rosetta {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"rosetta {args.command}: interrupted; results measured so far are on disk", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
