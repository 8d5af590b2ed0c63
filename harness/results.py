"""Results files: JSON Lines, one record per measurement, appended and flushed as it is measured.

A run killed at any point leaves every finished measurement on disk; a torn last line (the kill
landed mid-write) is dropped on reading with a note, anything else malformed is a ValueError.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = 1


class ResultsWriter:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the run

    def write(self, record: dict) -> None:
        self._fh.write(json.dumps(record, sort_keys=True, default=_jsonable) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _jsonable(value: object) -> object:
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, float):
        return value
    raise TypeError(f"cannot store {type(value).__name__} in a results file")


@dataclass
class Results:
    path: Path
    run: dict
    results: list[dict]
    end: dict | None
    notes: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.end is not None


def load(path: str | Path) -> Results:
    """Read a results file; ValueError (naming the file and line) when it is not one."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"no results file at {path}")
    if path.is_dir():
        raise ValueError(f"{path} is a folder: give a results .jsonl file inside it")
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise ValueError(f"{path} is empty: not a results file (a run writes its header record first)")
    records, notes = [], []
    for i, line in enumerate(lines, 1):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            if i == len(lines) and not text.endswith("\n"):
                notes.append(f"line {i} was cut off mid-write (the run was interrupted) and is left out")
                break
            raise ValueError(f"{path}, line {i}: not JSON ({e.msg}); is this a tile-rosetta results file?") from None
        if not isinstance(rec, dict) or "record" not in rec:
            raise ValueError(f"{path}, line {i}: not a tile-rosetta record (no 'record' field)")
        records.append(rec)
    if records[0]["record"] != "run":
        raise ValueError(f"{path}: the first record is {records[0]['record']!r}, expected the run header")
    if records[0].get("schema") != SCHEMA:
        raise ValueError(f"{path}: results schema {records[0].get('schema')!r}, this version reads {SCHEMA}")
    results = [r for r in records if r["record"] == "result"]
    end = next((r for r in records if r["record"] == "end"), None)
    if end is None:
        notes.append("the run did not finish: this file holds what it measured before it stopped")
    return Results(path, records[0], results, end, notes)
