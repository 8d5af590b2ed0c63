"""Results files: JSON Lines, one record per measurement, appended and flushed as it is measured.

A run killed at any point leaves every finished measurement on disk. Reading validates every line
(lines.py) and names the file and line that is wrong; a torn last line (the kill landed
mid-write) is dropped with a note.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from harness.identity import KernelImpl
from harness.problems import Problem
from harness.records.lines import SCHEMA, Result, RunEnd, RunHeader

__all__ = ["SCHEMA", "Results", "ResultsWriter", "load"]


class ResultsWriter:
    """Appends records and makes each durable before the next measurement starts."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the run

    @classmethod
    def new(cls, path: Path, header: RunHeader) -> ResultsWriter:
        """A new results file that holds its header from the moment it exists: the header is written to a file
        beside it and renamed into place, so that no kill leaves a file without a whole header."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "x", encoding="utf-8") as fh:
                fh.write(_line(header))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        return cls(path)

    @classmethod
    def continuing(cls, path: Path) -> ResultsWriter:
        """Append to a results file (--resume): a last line cut off mid-write (load leaves it out) is dropped first,
        so that the next record starts a line of its own rather than turning the cut line into a broken one."""
        path = Path(path)
        with open(path, "rb+") as fh:
            data = fh.read()
            if data and not data.endswith(b"\n"):
                fh.truncate(data.rfind(b"\n") + 1)
        return cls(path)

    def write(self, record: RunHeader | Result | RunEnd) -> None:
        self._fh.write(_line(record))
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _line(record: RunHeader | Result | RunEnd) -> str:
    return json.dumps(record.to_json(), sort_keys=True, ensure_ascii=False) + "\n"


@dataclass
class Results:
    path: Path
    header: RunHeader
    results: list[Result]
    end: RunEnd | None
    notes: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.end is not None

    @property
    def gpu(self) -> bool:
        return self.header.mode == "gpu"

    def timed(self, op: str | None = None) -> list[Result]:
        return [r for r in self.results if r.timed and (op is None or r.op == op)]


def load(path: str | Path) -> Results:
    """Read and validate a results file; ValueError naming the file and line when it is not one."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"no results file at {path}")
    if path.is_dir():
        raise ValueError(f"{path} is a folder: give a results .jsonl file inside it")
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise ValueError(f"{path} cannot be read ({e.strerror or e})") from None
    lines = [(i, ln) for i, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    if not lines:
        raise ValueError(f"{path} is empty: not a results file (a run writes its header record first)")
    what = foreign(text)
    if what:
        raise ValueError(f"{path} is {what}")
    header: RunHeader | None = None
    results: list[Result] = []
    end: RunEnd | None = None
    notes: list[str] = []
    for n, (lineno, line) in enumerate(lines):
        last = n == len(lines) - 1
        try:
            data = json.loads(line)
        except json.JSONDecodeError as e:
            if last and not text.endswith("\n") and header is not None:
                notes.append(f"line {lineno} cut off mid-write, left out (the run was interrupted)")
                break
            if last and not text.endswith("\n"):
                raise ValueError(f"{path}, line {lineno}: cut off mid-write before the run header was complete: "
                                 f"this file holds no results") from None
            raise ValueError(f"{path}, line {lineno}: not JSON ({e.msg}); is this a tile-rosetta results file?"
                             ) from None
        if not isinstance(data, dict) or "record" not in data:
            raise ValueError(f"{path}, line {lineno}: not a tile-rosetta record (no 'record' field)")
        kind = data["record"]
        try:
            if header is None:
                if kind != "run":
                    raise ValueError(f"the first record is {kind!r}, expected the run header")
                header = RunHeader.from_json(data)
            elif kind == "result":
                results.append(Result.from_json(data))
            elif kind == "end":
                end = RunEnd.from_json(data)
            elif kind == "run":
                raise ValueError("a second run header: files of two runs are joined with `rosetta merge`")
            else:
                raise ValueError(f"unknown record kind {kind!r}")
        except (ValueError, TypeError, KeyError) as e:
            raise ValueError(f"{path}, line {lineno}: {e}") from None
    assert header is not None  # the first non-empty line was read or raised
    if (probe := header.probe_error) is not None:  # the clock readings of every record were taken by that probe
        for r in results:
            for samples in r.samples():
                samples.probe_error = probe
    if end is None:
        notes.append("the run did not finish: this file holds what it measured before it stopped")
    return Results(path, header, results, end, notes)


# The JSON files of the suite and its tools that are not results files, told apart by their keys: what each is.
NOT_RESULTS = "not a results file (the .jsonl that `rosetta run` writes)"
BESIDE = {"analysis": ("an analysis record", "analyse"), "knob-study": ("a knob study", "knobs")}
KNOWN_JSON = ((("started", "problem", "metrics", "rows"), "an ncu profile (`rosetta profile` writes it)"),
              (("finished", "rows"), "a compute-sanitizer summary (`rosetta sanitize` writes it)"),
              (("machine_info", "benchmarks"), "a pytest-benchmark file (pytest --benchmark-json writes it)"))


def foreign(text: str) -> str | None:
    """What a file that is not a results file is, where that can be told, as "<what>, not a results file": a JSON
    file by its keys (an analysis record or a knob study, with the results file it belongs to; a profile, a sanitizer
    summary, a pytest-benchmark file; other JSON), an HTML page. None for a file that may be a results file (its
    lines are then checked one by one)."""
    head = text.lstrip()[:100].lower()
    if head.startswith(("<!doctype html", "<html")):
        return f"an HTML page, {NOT_RESULTS}"
    first = next(ln for ln in text.splitlines() if ln.strip())
    try:
        data = json.loads(first)
    except json.JSONDecodeError:
        try:
            data = json.loads(text)  # a JSON document over several lines is no JSON Lines file
        except json.JSONDecodeError:
            return None
    if isinstance(data, dict) and data.get("record") in ("run", "result", "end"):
        return None
    if not isinstance(data, dict):
        return f"JSON ({type(data).__name__}), {NOT_RESULTS}"
    if data.get("record") in BESIDE:
        what, verb = BESIDE[data["record"]]
        source = data.get("source")
        return (f"{what} (`rosetta {verb}` writes it beside the results file it reads), not a results file"
                + (f": give {source} itself" if source else ""))
    for keys, what in KNOWN_JSON:
        if all(k in data for k in keys):
            return f"{what}, {NOT_RESULTS}"
    return (f"JSON with the keys {', '.join(sorted(map(str, data))[:6])}{', ...' if len(data) > 6 else ''}, "
            f"{NOT_RESULTS}")


def attach_profiles(path: str | Path, metrics: dict[tuple, dict[str, float]]) -> int:
    """Store hardware counters with the records they describe: `metrics` maps Result.key to counters.

    The file is rewritten through a temporary file and a rename, so it is never left half written.
    Returns how many records received counters.
    """
    path = Path(path)
    results = load(path)
    attached = 0
    for r in results.results:
        if r.key in metrics:
            if r.resources is None:
                from harness.records.lines import Resources

                r.resources = Resources()
            r.resources.profile = metrics[r.key]
            attached += 1
    tmp = path.with_suffix(path.suffix + ".tmp")
    with ResultsWriter(tmp) as w:
        w.write(results.header)
        for r in results.results:
            w.write(r)
        if results.end is not None:
            w.write(results.end)
    os.replace(tmp, path)
    return attached


def autotuned_configs(results_path: str | Path, problem: Problem) -> dict[KernelImpl, dict]:
    """(kernel id, impl) -> the configuration the autotuner chose in the timed run of `problem`, from a results
    file's records (``resources.config["autotuned"]``); a baseline's kernel id is None."""
    out = {}
    for r in load(results_path).results:
        cfg = r.resources.config if r.resources else None
        chosen = cfg.get("autotuned") if cfg else None
        if r.problem.key == problem.key and isinstance(chosen, dict):
            out[r.kernel_impl] = dict(chosen)
    return out
