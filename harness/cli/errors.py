"""What every verb raises for a mistake in what the user asked for, in a module of its own so that the modules that
check arguments (options.py, paths.py) import it and not each other."""

from __future__ import annotations


class UserError(Exception):
    """A mistake in what the user asked for: reported in one line, exit code 2."""
