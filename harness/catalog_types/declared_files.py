"""A user's own Python files (harness/pairs: a Triton port, a launch or grid function), as any process of a run
imports them: by their stem, their folder put on that process's module path when it first needs one. A declared
kernel or counterpart names its files (harness/catalog_types/kernel.py), so a worker, a compile child or a profiled
launch that is handed the entry finds them itself: nothing is declared to it beforehand.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType


def module_name(file: str) -> str:
    """The name a user's Python file (harness/pairs) is imported by: its stem."""
    return Path(file).stem


def declared_module(file: str) -> ModuleType:
    """A user's Python file, imported by its stem with its folder on this process's module path (after everything
    already there: a user's file never hides an installed module). Each process that is handed a declared entry
    imports its files itself; nothing is set up for it beforehand."""
    folder = str(Path(file).resolve().parent)
    if folder not in sys.path:
        sys.path.append(folder)
    return importlib.import_module(module_name(file))


def declared_function(spec: str) -> Callable:
    """A function of a user's Python file, "file:name"; ValueError where the file defines none of that name."""
    file, _, name = spec.rpartition(":")
    found = getattr(declared_module(file), name, None)
    if not callable(found):
        raise ValueError(f"{file} defines no function {name}")
    return found
