"""`rosetta`: list, run, compare, profile, merge, analyse, report, claims, explain, trace, sanitize, referee, knobs,
clock, export, gluon, ablate.

Errors a user can cause (a bad id, shape or file) end with a one-line message and exit code 2, never
a traceback; a run in which any implementation failed ends with exit code 1 after its summary.

Each verb, its options and its command are in the module of its group: cli_run (run; its arguments read by
cli_options, its progress printed by cli_progress), cli_results (compare, merge, analyse, report, claims),
cli_kernels (list, explain, trace), cli_gpu_tools (profile, sanitize, referee, knobs), cli_clock (clock),
cli_export (export) and cli_gluon (gluon, ablate). Every verb reads kernel ids through cli_ids and checks every path
it is given through cli_paths, before it writes anything.
"""

from __future__ import annotations

import argparse
import sys

from harness import cli_clock, cli_export, cli_gluon, cli_gpu_tools, cli_kernels, cli_results, cli_run
from harness.cli_options import UserError

# Each verb's subparser, in the order `rosetta --help` lists them.
VERBS = (cli_kernels.add_list, cli_run.add_run, cli_results.add_compare, cli_gpu_tools.add_profile,
         cli_results.add_merge, cli_results.add_analyse, cli_results.add_report, cli_results.add_claims,
         cli_kernels.add_explain, cli_kernels.add_trace, cli_gpu_tools.add_sanitize, cli_gpu_tools.add_referee,
         cli_gpu_tools.add_knobs, cli_clock.add_clock, cli_export.add_export, cli_gluon.add_gluon, cli_gluon.add_ablate)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rosetta", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    for add in VERBS:
        add(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
