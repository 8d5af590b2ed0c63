"""The SM clock during a timed run, read on the device itself.

NVML's clock reading is a host-side sample taken whenever the host asks, and a timer asks before and after a burst
at best: a burst of TF32 work that reaches the power limit halfway through shows no drop in either reading. So the
clock is measured the way a cycle counter and a wall clock measure it together: a probe kernel, launched right before
the start event and right after the end event of every timed run, writes each SM's `%clock64` (cycles of that SM)
and `%globaltimer` (nanoseconds, one clock for the whole GPU). Between two probes an SM's cycles over the
nanoseconds are its mean clock over that window, which holds exactly the run the events time. `%clock64` is a
per-SM counter, so the two readings are matched by SM (`%smid` picks the slot) and the clock is the median over the
SMs both probes reached.

The probe is a Triton kernel of one scalar program per SM: it launches on the same stream as everything the timer
times, costs a few microseconds outside the events, and needs no build of its own.

The probe has an error of its own: on H100s some windows read above the GPU's maximum SM clock (up to 2040 and 2055
MHz against 1980, `rosetta clock RESULTS` shows where). Such a reading is brought down to the maximum before it
multiplies a time into cycles, and its excess is the error the samples prove (harness/measure/timing.py Samples.clock,
Samples.clock_error), which decides whether a cycles call is made (harness/analysis/verdicts.py). `rosetta clock
--measure` (harness/run/clock_error.py) measures the error against NVML's clock by window length.
"""

from __future__ import annotations

import functools
import statistics
from dataclasses import dataclass

import torch

_SLOT = 3  # int64 per SM: clock64, globaltimer, and the SM id + 1 (0: no program of this probe ran there)
# %smid counts physical SMs, floorswept ones too (an H100 enables 132 of 144): slots for any id below this
_SM_IDS = 512


@functools.cache
def _kernel():  # built on first use: importing Triton's JIT is not free, and CPU-only callers never need it
    import triton
    import triton.language as tl

    @triton.jit
    def clock_probe(out_ptr):
        sm = tl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [], dtype=tl.int32, is_pure=False, pack=1)
        cycles = tl.inline_asm_elementwise("mov.u64 $0, %clock64;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)
        ns = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, is_pure=False,
                                       pack=1)
        inside = sm < 512  # _SM_IDS: an id past the slots is dropped, not written out of bounds
        slot = out_ptr + sm.to(tl.int64) * 3
        tl.store(slot, cycles, mask=inside)
        tl.store(slot + 1, ns, mask=inside)
        tl.store(slot + 2, sm.to(tl.int64) + 1, mask=inside)

    return clock_probe


@dataclass
class ProbeBuffer:
    """Room for `windows` windows of two probes each, on one device; read once after the runs."""

    data: torch.Tensor   # int64 [windows, 2, _SM_IDS, 3]
    sms: int             # programs per probe: one per SM

    @classmethod
    def make(cls, windows: int, device: torch.device) -> ProbeBuffer:
        sms = torch.cuda.get_device_properties(device).multi_processor_count
        return cls(torch.zeros((windows, 2, _SM_IDS, _SLOT), dtype=torch.int64, device=device), sms)

    def clear(self) -> None:
        self.data.zero_()

    def probe(self, window: int, edge: int) -> None:
        """Launch one probe: edge 0 before the window's run, edge 1 after it."""
        _kernel()[(self.sms,)](self.data[window, edge], num_warps=1)

    def clocks_mhz(self, windows: int) -> list[float | None]:
        """The mean SM clock of each of the first `windows` windows (None where no SM saw both probes)."""
        host = self.data[:windows].cpu().tolist()
        return [window_clock_mhz(w[0], w[1]) for w in host]


def window_clock_mhz(before: list[list[int]], after: list[list[int]]) -> float | None:
    """Median over SMs of Δcycles / Δns between two probes (slots: clock64, globaltimer, smid + 1)."""
    rates = [mhz for mhz, _ in sm_spans(before, after)]
    return statistics.median(rates) if rates else None


def sm_spans(before: list[list[int]], after: list[list[int]]) -> list[tuple[float, int]]:
    """(MHz, ns) of every SM both probes reached: its Δcycles / Δns and the timer's Δns between them."""
    out = []
    for b, a in zip(before, after, strict=True):
        if b[2] == 0 or a[2] == 0:
            continue  # no program of one of the probes ran on this SM
        ns = a[1] - b[1]
        if ns > 0 and a[0] > b[0]:
            out.append(((a[0] - b[0]) / ns * 1e3, ns))
    return out


def max_sm_clock_mhz(device: torch.device) -> float | None:
    """The GPU's maximum SM clock (NVML), the reference of the throttle threshold (timing.py THROTTLE_FRACTION); None
    where NVML is missing."""
    try:
        import pynvml

        pynvml.nvmlInit()
        index = device.index if device.index is not None else torch.cuda.current_device()
        handle = pynvml.nvmlDeviceGetHandleByIndex(_nvml_index(index))
        return float(pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM))
    except Exception:
        return None


def nvml_sm_clock_mhz(torch_index: int) -> float | None:
    """NVML's current SM clock of a GPU (torch's index); None where NVML is missing. The driver's setting at the moment
    asked, the reference the probe's error is measured against (harness/run/clock_error.py)."""
    try:
        import pynvml

        return float(pynvml.nvmlDeviceGetClockInfo(_nvml_handle(torch_index), pynvml.NVML_CLOCK_SM))
    except Exception:
        return None


@functools.cache
def _nvml_handle(torch_index: int):  # asked every few milliseconds while a series runs: initialised once
    import pynvml

    pynvml.nvmlInit()
    return pynvml.nvmlDeviceGetHandleByIndex(_nvml_index(torch_index))


def _nvml_index(torch_index: int) -> int:
    """NVML counts every GPU of the host; torch counts those CUDA_VISIBLE_DEVICES leaves, in its order."""
    import os

    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if not visible:
        return torch_index
    ids = [v.strip() for v in visible.split(",") if v.strip()]
    return int(ids[torch_index]) if torch_index < len(ids) and ids[torch_index].isdigit() else torch_index
