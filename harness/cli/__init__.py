"""`rosetta`: list, run, compare, profile, merge, analyse, report, claims, explain, trace, sanitize, referee, knobs,
clock, export, gluon, ablate.

Errors a user can cause (a bad id, shape or file) end with a one-line message and exit code 2, never
a traceback; a run in which any implementation failed ends with exit code 1 after its summary, and one in which
nothing failed but a user's own CUDA kernel could not be checked (no GPU) with exit code 3.

The verbs live here, each a thin call into the layers below, in the module of its group: run (run; its arguments
read by options, its progress printed by progress), results (compare, merge, analyse, report, claims), kernels
(list, explain, trace), gpu_tools (profile, sanitize, referee, knobs), clock (clock), export (export) and gluon
(gluon, ablate). Every verb reads kernel ids through ids and checks every path it is given through paths, before it
writes anything.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from harness.cli.options import Parser, UserError


def verbs() -> tuple[Callable[[argparse._SubParsersAction], None], ...]:
    """Each verb's subparser, in the order `rosetta --help` lists them. Imported here, not with this package, so that
    main can say in one line what the catalog refuses as the verbs load it (a rung whose `after` names no rung)."""
    from harness.cli import clock, export, gluon, gpu_tools, kernels, results, run

    return (kernels.add_list, run.add_run, results.add_compare, gpu_tools.add_profile, results.add_merge,
            results.add_analyse, results.add_report, results.add_claims, kernels.add_explain, kernels.add_trace,
            gpu_tools.add_sanitize, gpu_tools.add_referee, gpu_tools.add_knobs, clock.add_clock, export.add_export,
            gluon.add_gluon, gluon.add_ablate)


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="rosetta", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    for add in verbs():
        add(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except UserError as e:  # argparse's refusal, or an option's own check (options.Parser): one line, exit code 2
        print(e, file=sys.stderr)
        return 2
    except RuntimeError as e:  # the catalog refuses its own declarations (harness/catalog: a rung's `after`, ...)
        print(f"rosetta: error: the catalog: {e}", file=sys.stderr)
        return 2
    args.argv = list(sys.argv[1:] if argv is None else argv)  # as a run's header records it
    try:
        code = args.func(args)
        sys.stdout.flush()  # here, where a closed pipe is caught, not at the interpreter's exit
        return code
    except (UserError, ValueError) as e:
        print(f"rosetta {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (`rosetta gluon FILE | head`): say nothing more, point stdout at nothing so that the
        # interpreter's own flush at exit does not fail again, and end as rich's console does on a closed pipe (1)
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:  # a path the checks could not foresee (a full disk, a file removed meanwhile): one line too
        where = f": {e.filename}" if e.filename else ""
        print(f"rosetta {args.command}: error: {e.strerror or e}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"rosetta {args.command}: interrupted; results measured so far are on disk", file=sys.stderr)
        return 130

