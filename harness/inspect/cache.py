"""The on-disk cache of compile reports: one JSON file per (source, settings, toolchain) digest.

Every entry costs a full compilation and reports and tests ask for the same kernels over and over.
Entries live under ``$ROSETTA_CACHE_DIR/resources`` (default ``~/.cache/tile-rosetta/resources``);
the interpreter process and its compiler child share them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["SCHEMA", "cache_dir", "digest", "load", "source_digest", "store"]

# Bump when the meaning or layout of cached entries changes, so stale JSON is never served.
# 2: evidence facts (ttgir, ptxas barriers) added to every entry; 3: ttgir's masked memory operations;
# 4: SASS mixes count FTZ, USETMAXREG (setmaxnreg), UTMASTG and WARPGROUP instructions; 6: multicast TMA loads.
SCHEMA = 6


def cache_dir() -> Path:
    base = os.environ.get("ROSETTA_CACHE_DIR") or str(Path.home() / ".cache" / "tile-rosetta")
    return Path(base) / "resources"


def digest(parts: Mapping[str, Any]) -> str:
    blob = json.dumps({**parts, "schema": SCHEMA}, sort_keys=True, default=repr).encode()
    return hashlib.sha256(blob).hexdigest()


def load(key: str) -> dict | None:
    try:
        data = json.loads((cache_dir() / f"{key}.json").read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def store(key: str, data: dict) -> None:
    # Best effort: an unwritable cache must not break a measurement run.
    directory = cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=directory, prefix=f".{key[:16]}-", suffix=".tmp",
                                         delete=False) as handle:
            json.dump(data, handle, sort_keys=True)
        os.replace(handle.name, directory / f"{key}.json")
    except OSError:
        pass


_LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def source_digest(source: Path) -> str:
    """Hash of a source and the quoted includes it pulls in from disk: editing a header invalidates too."""
    h = hashlib.sha256()
    seen: set[Path] = set()
    pending = [source]
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        try:
            data = path.read_bytes()
        except OSError:
            continue
        h.update(path.name.encode() + b"\0" + hashlib.sha256(data).digest())
        for include in _LOCAL_INCLUDE.findall(data.decode("utf-8", errors="replace")):
            candidate = path.parent / include
            if candidate.is_file():
                pending.append(candidate.resolve())
    return h.hexdigest()
