"""Every path a `rosetta` verb is given, checked before anything is read at length or written.

A path that cannot be what the verb needs (a file where a folder is needed, a folder where a file is, a place that
cannot be written, a folder whose parent does not exist) is a UserError: one line naming the option and the path,
exit code 2, and nothing written. A folder the verb writes into may be new, but only its last part: a missing parent
is more often a typo than a wish (the default folders, under the current one, are made as needed).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.errors import UserError

if TYPE_CHECKING:
    from harness.records.file import Results


def _said(flag: str, value: str | Path) -> str:
    """How a message names what the user gave: the option and its value, or a positional argument's value alone."""
    return f"{flag} {value}" if flag else str(value)


def _writable_folder(folder: Path, flag: str, value: str | Path) -> None:
    """`folder` exists, is a folder and can be written into; else the UserError that says which of these fails."""
    if not folder.exists():
        raise UserError(f"{_said(flag, value)}: the folder {folder} does not exist")
    if not folder.is_dir():
        raise UserError(f"{_said(flag, value)}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError(f"{_said(flag, value)}: {folder} cannot be written into")


def output_folder(value: str | Path, flag: str, default: bool = False) -> Path:
    """A folder to write into: an existing, writable folder, or a new one whose parent is one. `default`: the verb's
    own default (under the current folder), whose missing parents are made when it is written."""
    path = Path(value)
    if path.exists():
        if not path.is_dir():
            raise UserError(f"{_said(flag, value)}: a file is there, where a folder is needed")
        _writable_folder(path, flag, value)
    elif default:
        _writable_folder(next(p for p in path.absolute().parents if p.exists()), flag, value)
    else:
        _writable_folder(path.absolute().parent, flag, value)
    return path


def output_file(value: str | Path, flag: str, replaces: str | None = None) -> Path:
    """A new file to write, in an existing, writable folder. An existing file is refused, unless `replaces` is given
    and the file begins with that text (a file the verb wrote before, such as its own HTML page)."""
    path = Path(value)
    if path.is_dir():
        raise UserError(f"{_said(flag, value)}: a folder is there, where a file is needed")
    if path.exists() or path.is_symlink():
        if not path.is_file():
            raise UserError(f"{_said(flag, value)}: not a regular file")
        if replaces is None or not _begins_with(path, replaces):
            raise UserError(f"{_said(flag, value)}: the file exists"
                            + (" and is not one this command wrote" if replaces else "") + "; give a new file name")
    _writable_folder(path.absolute().parent, flag, value)
    return path


def beside(value: str | Path, flag: str, written: Path) -> None:
    """A verb that writes `written` beside the file it reads (the analysis record, the knob study): that folder must
    take it, and `written` must not be a folder."""
    if written.is_dir():
        raise UserError(f"{_said(flag, value)}: {written} is a folder, where this command writes a file")
    if written.exists() and not os.access(written, os.W_OK):
        raise UserError(f"{_said(flag, value)}: {written} cannot be written")
    _writable_folder(written.absolute().parent, flag, value)


def input_file(value: str | Path, flag: str, what: str = "file") -> Path:
    """A file to read: there, a file, readable (what it holds is the loader's to check)."""
    path = Path(value)
    if path.is_dir():
        raise UserError(f"{_said(flag, value)}: a folder is there, where a {what} is needed")
    if not path.exists():
        raise UserError(f"{_said(flag, value)}: no such {what}")
    if not os.access(path, os.R_OK):
        raise UserError(f"{_said(flag, value)}: cannot be read")
    return path


def apart(*files: tuple[str, str | Path | None]) -> None:
    """Refuse a verb whose files (what it reads and what it writes, each as (how the message names it, its path);
    '-' and None are not files) name one file twice: the second write would replace the first, or a write the file
    it reads."""
    seen: dict[Path, str] = {}
    for said, value in files:
        if value is None or str(value) == "-":
            continue
        same = Path(value).resolve()
        if same in seen:
            raise UserError(f"{seen[same]} and {said} are one file ({same}): give each its own")
        seen[same] = said


def _begins_with(path: Path, text: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return text.encode() in fh.read(4096)
    except OSError:
        return False


def results_in(value: str | Path, verb: str, flag: str = "") -> Results:
    """A results file to read, loaded; what the loader noted (a last line cut off mid-write and left out, a run that
    did not finish) is said on stderr, one line each, for the verb goes on (exit code 0)."""
    import sys

    from harness.records.file import load

    input_file(value, flag, "results file")
    results = load(value)
    for note in results.notes:
        print(f"rosetta {verb}: {value}: {note}", file=sys.stderr)
    return results
