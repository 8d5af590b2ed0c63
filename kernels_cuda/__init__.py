"""The seed kernels as .cu sources, one file per published kernel (see each file's header), and the .cuh headers a
series of tile-rosetta's own kernels shares (the Hopper wgmma rungs).

A source includes a header with a quoted `#include "name.cuh"`, found beside the file that includes it. The build
hands NVRTC every header a source pulls in (`includes`) and keys its cache on their text; whatever reads a kernel's
code as its compiler does (the report's sources and diffs, the source facts that mapping claims count) reads
`expanded`: the .cu with each header's text in place of its #include.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["SOURCE_DIR", "expanded", "includes", "source_path"]

SOURCE_DIR = Path(__file__).resolve().parent

# A quoted #include on a line of its own; NVRTC has no system headers here, so no <...> include is followed.
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"[^\n]*$', re.MULTILINE)


def source_path(name: str) -> Path:
    return SOURCE_DIR / name


def _header(including: Path, name: str) -> Path:
    path = including.parent / name
    if not path.is_file():
        raise FileNotFoundError(f'{including.name} includes "{name}", which is not beside it ({path})')
    return path


def includes(path: Path) -> dict[str, str]:
    """Every header `path` includes, directly or through another header, by the name its #include writes, with its
    text, in the order first included. Raises FileNotFoundError naming a header that is not there."""
    found: dict[str, str] = {}

    def walk(file: Path, text: str) -> None:
        for name in _INCLUDE.findall(text):
            if name not in found:
                header = _header(file, name)
                found[name] = header.read_text(encoding="utf-8")
                walk(header, found[name])

    path = Path(path)
    walk(path, path.read_text(encoding="utf-8"))
    return found


def expanded(path: Path) -> str:
    """The text of `path` with each quoted #include replaced by the header's text (itself expanded), between two
    comment lines that name it; a header included again is expanded once, as its `#pragma once` makes the compiler
    read it once. Raises FileNotFoundError naming a header that is not there."""
    seen: set[str] = set()

    def expand(file: Path, text: str) -> str:
        def one(m: re.Match[str]) -> str:
            name = m.group(1)
            if name in seen:
                return f'// ---- {name} (#include "{name}"): already included above ----'
            seen.add(name)
            header = _header(file, name)
            body = expand(header, header.read_text(encoding="utf-8")).rstrip("\n")
            return f'// ---- {name} (#include "{name}") ----\n{body}\n// ---- end of {name} ----'

        return _INCLUDE.sub(one, text)

    path = Path(path)
    return expand(path, path.read_text(encoding="utf-8"))
