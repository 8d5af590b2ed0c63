"""A worker that reports made-up facts about its GPU (SMs, L2, free memory), so the parent's use of them is
tested without a GPU: the parent must take them from the worker and never open a CUDA context itself."""

from __future__ import annotations

import os

from harness.run.work import measure_one  # noqa: F401 - the worker's measuring function
from harness.run.work import setup as real_setup

SMS, L2_BYTES = 7, 1 << 20


def setup(options: dict) -> dict:
    state = real_setup(options)
    state["facts"] = {"sms": SMS, "l2_bytes": L2_BYTES, "free_bytes": int(os.environ["ROSETTA_TEST_FREE_BYTES"])}
    return state
