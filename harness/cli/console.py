"""Where `rosetta` prints: rich on a terminal, fitted to its width; plain text anywhere else (a pipe, a CI log)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


def console() -> Console:
    """rich on a terminal (its width); anywhere else plain text at term_table.plain_width(), no colour."""
    from rich.console import Console

    from harness.term_table import plain_width

    if sys.stdout.isatty():
        return Console(highlight=False)
    return Console(width=plain_width(), no_color=True, highlight=False)
