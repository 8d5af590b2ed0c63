"""A worker whose start fails the way a spawn that cannot exec does (exit code 255, before "ready"): once, when
the marker file named by ROSETTA_TEST_START_MARKER does not exist yet (it is created), or every time when
ROSETTA_TEST_START_ALWAYS is set."""

from __future__ import annotations

import os
from pathlib import Path

from harness.run.messages import WorkerOptions
from harness.run.work import WorkerState, measure_one, time_pending  # noqa: F401 - the worker's measuring functions
from harness.run.work import setup as real_setup


def setup(options: WorkerOptions) -> WorkerState:
    marker = Path(os.environ["ROSETTA_TEST_START_MARKER"])
    if os.environ.get("ROSETTA_TEST_START_ALWAYS") or not marker.exists():
        marker.touch()
        os._exit(255)
    return real_setup(options)
