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

from harness.problems import Problem
from harness.records.lines import SCHEMA, Result, RunEnd, RunHeader

__all__ = ["SCHEMA", "Results", "ResultsWriter", "load"]


class ResultsWriter:
    """Appends records and makes each durable before the next measurement starts."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the run

    def write(self, record: RunHeader | Result | RunEnd) -> None:
        self._fh.write(json.dumps(record.to_json(), sort_keys=True, ensure_ascii=False) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = [(i, ln) for i, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    if not lines:
        raise ValueError(f"{path} is empty: not a results file (a run writes its header record first)")
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
                notes.append(f"line {lineno} was cut off mid-write (the run was interrupted) and is left out")
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
    if end is None:
        notes.append("the run did not finish: this file holds what it measured before it stopped")
    return Results(path, header, results, end, notes)


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


def autotuned_configs(results_path: str | Path, problem: Problem) -> dict[tuple[str | None, str], dict]:
    """(kernel id, impl) -> the configuration the autotuner chose in the timed run of `problem`, from a results
    file's records (``resources.config["autotuned"]``); a baseline's kernel id is None."""
    out = {}
    for r in load(results_path).results:
        cfg = r.resources.config if r.resources else None
        chosen = cfg.get("autotuned") if cfg else None
        if r.problem.key == problem.key and isinstance(chosen, dict):
            out[(r.kernel, r.impl)] = dict(chosen)
    return out
