"""What `rosetta run` is asked to do: problems, GPUs, shards and where results go, read from its arguments.

Every mistake here is a UserError: one line and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from harness import env
from harness.cli.errors import UserError
from harness.measure.rounds import MIN_ROUNDS
from harness.problems import DEFAULT_SGEMM, DEFAULT_SGEMV, SWEEP_SGEMM, Problem, parse_shape

# Where user runs, reports and comparisons go by default: a folder of the current directory, kept out of git
# (.gitignore), not the checkout's committed results/.
DEFAULT_OUT = "runs"

# `run` options that mean something only with a GPU: each is refused on a machine without one, never ignored.
# The others apply to the CPU tier too: --only/--op choose kernels, --seed the random inputs, --timeout
# the isolated workers, --shard/--resume the plan, --out/--results/--no-report the files.
GPU_ONLY = {"shape": "--shape", "sweep": "--sweep", "gpus": "--gpus", "rep_ms": "--rep-ms", "rounds": "--rounds",
            "aa": "--aa", "profile": "--profile", "regime": "--regime"}


class Parser(argparse.ArgumentParser):
    """argparse as `rosetta` reads its arguments: a refusal is a UserError (one line, exit code 2, no usage block),
    and a value that begins with a minus and a digit is a value, not an option (`--shape -3x2x2`, `--timeout -1`:
    refused by the option's own check, which says why), for no option of ours is named so."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\d")

    def error(self, message: str):  # type: ignore[override]
        raise UserError(f"{self.prog}: error: {message}")


@dataclass(frozen=True)
class Number:
    """A numeric option's type, declared once with its range: every numeric option of every verb is one of NUMBERS,
    so that nan, inf, a negative count or a number past what the run can hold is refused in one line before anything
    runs."""

    kind: type                 # int or float
    least: float               # the smallest value taken (excluded where `above`)
    most: float                # the largest
    noun: str                  # what it is: "a number of seconds", "a whole number of rounds"
    above: bool = False

    def __call__(self, text: str) -> int | float:
        try:
            value = self.kind(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or not self.least <= value <= self.most or (self.above and value == self.least):
            raise argparse.ArgumentTypeError(f"{text}: expected {self.said}")
        return value

    @property
    def said(self) -> str:
        low, high = (f"{v:g}" if self.kind is float else f"{int(v)}" for v in (self.least, self.most))
        return f"{self.noun} above {low} and at most {high}" if self.above else f"{self.noun} from {low} to {high}"


# Every numeric option of `rosetta`, by what it counts. Seconds stop at a day (a worker's wait is an operating-system
# timeout, which overflows near 2^63 ns); a seed is below 2^32, where every seed derived from it is one that torch,
# numpy and Python's random take.
NUMBERS = {
    "seconds": Number(float, 0, 86400, "a number of seconds", above=True),
    "milliseconds": Number(float, 0, 600_000, "a number of milliseconds", above=True),
    "rounds": Number(int, MIN_ROUNDS, 10_000, "a whole number of rounds"),
    "seed": Number(int, 0, 2**32 - 1, "a seed, a whole number"),
    "count": Number(int, 1, 1024, "a whole number"),
    "size": Number(int, 1, 65_536, "a matrix size, a whole number"),
}


def shape_text(text: str) -> str:
    """--shape's type: a shape as parse_shape reads it (the op is checked once --op is known)."""
    try:
        parse_shape(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def gpus_text(text: str) -> str:
    """--gpus's type: 'all', a count of at least 1, or a comma list of device indices (checked against the
    visible GPUs once the run knows them)."""
    if text == "all" or re.fullmatch(r"[1-9]\d*|(\d+,)+\d*", text.replace(" ", "")):
        return text
    raise argparse.ArgumentTypeError(f"{text!r}: expected 'all', a count of at least 1 or a comma list of GPU "
                                     "indices, e.g. 0,2")


def shard_text(text: str) -> str:
    """--shard's type: i/n with 0 <= i < n."""
    shard_spec(text)
    return text


def add_only(parser: argparse.ArgumentParser, verb: str) -> None:
    """--only, as `run`, `profile`, `sanitize`, `referee` and `knobs` take it (read by harness/cli/ids.py)."""
    parser.add_argument("--only", nargs="+", metavar="ID", help=f"kernel ids to {verb}, or parts of ids: each takes "
                        "every kernel whose id holds it (… stands for anything); `rosetta list` names them")


def given(args: argparse.Namespace, dest: str) -> bool:
    """Whether the user gave the option (run's options that can be refused default to None or False)."""
    value = getattr(args, dest, None)
    return value is not None and value is not False


def need_gpu(needs: str, instead: str = "") -> None:
    """Refuse, on a machine without a GPU, a verb that needs one: what it needs, why there is none, what instead."""
    if not env.has_gpu():
        raise UserError(f"{needs} ({env.gpu_reason()}){instead}")


def refuse_what_cannot_apply(args: argparse.Namespace, has_gpu: bool, why: str | None) -> None:
    """Refuse, before anything runs, every option of `run` that cannot apply here or is overridden by another."""
    gpu_only = [flag for dest, flag in GPU_ONLY.items() if given(args, dest)]
    if gpu_only and not has_gpu:
        raise UserError(f"{', '.join(gpu_only)}: GPU only, and this machine has none ({why}); the CPU tier runs "
                        f"its own small shapes in one worker, untimed")
    pairs = [("shape", "sweep", "the sweep is its own list of shapes"),
             ("results", "out", "--results names the file, --out the folder of a new one")]
    for a, b, why_not in pairs:
        if given(args, a) and given(args, b):
            raise UserError(f"--{a} and --{b} together: {why_not}; give one")


# The options of `run` a resumed run may set anew: how long a worker may take, whether the report is written, and the
# sustained pass (with its own --aa) that may follow any finished run. Every other is what the file's run was started
# with: given again it must say the same, and where it is not given the header's argv says it.
FREE_ON_RESUME = ("timeout", "no_report", "regime", "profile", "gpus")


def given_options(argv: list[str]) -> dict[str, object]:
    """The options of a `rosetta run` argv as given, by destination, without the defaults of those not given."""
    from harness.cli import build_parser

    parser = build_parser()
    run = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["run"]
    for action in run._actions:
        action.default = argparse.SUPPRESS
    return {k: v for k, v in vars(parser.parse_args(argv)).items() if k not in ("command", "func")}


def resumed(args: argparse.Namespace) -> None:
    """--resume FILE: the run continues as it was started. Each option the file's header records and this command
    does not give is taken from the header; one given again must say what the header says (--out its folder,
    --results the file itself), else it is refused in one line, before anything runs. FREE_ON_RESUME may differ."""
    from harness.cli import build_parser
    from harness.cli.paths import input_file
    from harness.records.file import load

    path = input_file(args.resume, "--resume", "results file")
    header = load(path).header  # a run cut off is what --resume is for: no note that it did not finish
    try:
        recorded = given_options(header.argv)
    except UserError as e:
        raise UserError(f"--resume {path}: its run's options, {' '.join(header.argv)}, no longer read: {e}") from None
    mine = given_options(args.argv)
    for name, value in (("out", path.parent), ("results", path)):
        if name in mine and Path(mine[name]).resolve() != value.resolve():
            raise UserError(f"--{name} {mine[name]}: --resume {path} appends to that file, in {path.parent}")
    free = [*FREE_ON_RESUME, "aa"] if mine.get("regime") == "sustained" else FREE_ON_RESUME  # see run.burst_aa
    started = {**vars(build_parser().parse_args(["run"])), **recorded}  # a default, where the run gave none
    for dest in sorted(set(mine) - {"resume", "out", "results", *free}):
        if mine[dest] != started[dest]:
            flag = "--" + dest.replace("_", "-")
            was = (f"with {_as_given(flag, started[dest])}" if dest in recorded else
                   f"without {flag}" + (f" (its default, {started[dest]})" if started[dest] not in (None, False)
                                        else ""))
            raise UserError(f"{_as_given(flag, mine[dest])}: the run in {path} was started {was}; --resume "
                            "continues it as it was started")
    for dest, value in recorded.items():
        if dest not in mine and dest not in ("out", "results"):
            setattr(args, dest, value)
    args.out = args.results = None
    args.argv = list(header.argv)   # the run it continues, as its header says (resume compares its choices)


def _as_given(flag: str, value: object) -> str:
    """An option as a command line gives it: the flag alone for a switch, else the flag and its values."""
    if value is True:
        return flag
    values = value if isinstance(value, list) else [value]
    return " ".join([flag, *(" ".join(v) if isinstance(v, list) else str(v) for v in values)])


def resume_command(argv: list[str], path: Path) -> str:
    """The command that continues a run: its options as it was started (its folder and file are the one it wrote),
    and --resume with the file, quoted for a POSIX shell."""
    import shlex

    kept: list[str] = []
    words = iter(argv[1:])
    for arg in words:
        if arg.split("=", 1)[0] not in ("--out", "--results", "--resume"):
            kept.append(arg)
        elif "=" not in arg:
            next(words, None)  # its value
    return shlex.join(["rosetta", "run", *kept, "--resume", str(path)])


def interrupted(path: Path, argv: list[str]) -> str:
    """The line a run ends with on Ctrl-C: what it kept, and the command that continues it."""
    from harness.records.file import load

    if not (path.is_file() and path.stat().st_size):
        return "rosetta run: interrupted before the results file was begun: nothing was written"
    return (f"rosetta run: interrupted: {len(load(path).results)} record(s) kept in {path}; continue it with: "
            f"{resume_command(argv, path)}")


def problems_of(args: argparse.Namespace) -> list[Problem]:
    ops = [args.op] if args.op else ["sgemm", "sgemv"]
    if args.shape:
        return [parse_shape(text, args.op) for text in args.shape]  # without --op, the count of dimensions tells
    if args.sweep:
        return [p for p in SWEEP_SGEMM if p.op in ops]
    return [p for p in (*DEFAULT_SGEMM, *DEFAULT_SGEMV) if p.op in ops]


def results_path(out_dir: Path, device: str) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    slug = "".join(ch if ch.isalnum() else "-" for ch in device).strip("-").lower() or "device"
    return out_dir / f"{slug}-{stamp}.jsonl"


def report_dir(results: Path, base: Path) -> Path:
    """Where the report of a results file goes: its own folder under `base`, named after the file."""
    return base / f"report-{results.stem}"


def gpu_list(spec: str | None) -> list[str | None]:
    """--gpus: 'all', a count or a comma list of device indices -> one CUDA_VISIBLE_DEVICES value per worker."""
    if spec is None:
        return [None]
    import os

    import torch

    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = [v.strip() for v in visible.split(",") if v.strip()] if visible else \
        [str(i) for i in range(torch.cuda.device_count())]
    if spec == "all":
        chosen = ids
    elif spec.isdigit():
        if int(spec) < 1 or int(spec) > len(ids):
            raise UserError(f"--gpus {spec}: this machine shows {len(ids)} GPU(s)")
        chosen = ids[: int(spec)]
    else:
        wanted = [v.strip() for v in spec.split(",") if v.strip()]
        unknown = [v for v in wanted if v not in ids]
        if unknown or not wanted:
            raise UserError(f"--gpus {spec}: not among the visible GPUs {', '.join(ids) or '(none)'}")
        chosen = wanted
    if not chosen:
        raise UserError("--gpus: no GPU is visible")
    return list(chosen)


def shard_spec(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        i, n = (int(v) for v in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected i/n, e.g. 0/4") from None
    if n < 1 or not 0 <= i < n:
        raise argparse.ArgumentTypeError(f"{text!r}: need 0 <= i < n")
    return i, n


def device_name() -> str:
    if env.has_gpu():
        import torch

        return torch.cuda.get_device_name()
    return "cpu-interpreter"
