"""A worker measuring function with two deliberately fatal implementations: one aborts its process,
one hangs. Everything else is measured by the real function, so a sweep around them is real work."""

from __future__ import annotations

import os
import time

from harness.run.work import measure_one as real_measure
from harness.run.work import setup, time_pending  # noqa: F401 - the worker looks for both beside measure_one()

ABORTS = "s003.naive_sgemv"
HANGS = "s003.coalesced_warp_sgemv"


def measure_one(state, problem, key):
    if key.kernel == ABORTS:
        os.abort()  # what a segfault or a failed device assert does to a process
    if key.kernel == HANGS:
        time.sleep(3600)  # a kernel that never finishes
    return real_measure(state, problem, key)
