"""A worker that reports made-up facts about its GPU (SMs, L2, free memory, peaks), so the parent's use of them is
tested without a GPU: the parent must take them from the worker and never open a CUDA context itself."""

from __future__ import annotations

import os

from harness.device.roofline import Peaks
from harness.run.messages import DeviceFacts, WorkerOptions
from harness.run.work import WorkerState, measure_one, time_pending  # noqa: F401 - the worker's measuring functions
from harness.run.work import setup as real_setup

SMS, L2_BYTES = 7, 1 << 20


def setup(options: WorkerOptions) -> WorkerState:
    state = real_setup(options)
    state.facts = DeviceFacts(sms=SMS, l2_bytes=L2_BYTES, free_bytes=int(os.environ["ROSETTA_TEST_FREE_BYTES"]),
                              arch=None)
    # Peaks that differ per GPU, so a header that keeps one GPU's peaks for both is caught.
    gpu = int(os.environ.get("CUDA_VISIBLE_DEVICES") or 0)
    state.peaks = Peaks.from_json({"fp32_tflops": 60.0 + gpu, "copy_gbps": 3000.0, "device": "made up"})
    return state
