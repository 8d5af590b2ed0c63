"""The GPU's energy through NVML: the total-energy counter, power, the card's power limits, and how finely the
counter resolves, measured on the GPU itself.

What NVML's reference says, and what it leaves open:
- nvmlDeviceGetTotalEnergyConsumption: millijoules since the driver was loaded (Volta and newer), an unsigned 64-bit
  count. How often it changes is not documented. Published studies of the board sensor report that A100 and H100
  boards take power over a quarter of each 100 ms (Yang et al., SC24), and tools that read the counter (Zeus) see it
  move about every 100 ms.
  So the suite does not assume a period: `resolution()` watches the counter while the GPU is busy and records how
  often it changed and by how much, and every energy figure is taken in windows that the measured period can
  resolve (measure/rounds.py for bursts, measure/sustained.py for the sustained regime; energy_record.py keeps it).
- nvmlDeviceGetPowerUsage: milliwatts; on Ampere (but GA100) and newer, the mean of the last second. The field
  NVML_FI_DEV_POWER_INSTANT (nvmlDeviceGetFieldValues) is the instantaneous reading where the driver has it, and
  is what a Meter reads for power; `power_source` says which it got.
- nvmlDeviceGetPowerManagementLimit (the limit set), nvmlDeviceGetEnforcedPowerLimit (the one in force: the lowest of
  the limits that apply), nvmlDeviceGetPowerManagementDefaultLimit.

NVML is reached through `pynvml` (the nvidia-ml-py package), which CUDA builds of torch use too. Where it is not
installed, or NVML cannot start (no driver), a Meter is absent: every reading is None and `reason` says why in one
line; nothing here raises. Tests pass a fake NVML module (any object with the functions used here).

`python -m harness.measure.energy [seconds]` measures the counter's resolution on this machine's GPU and prints it.
"""

from __future__ import annotations

import functools
import itertools
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

COUNTER_BITS = 64    # nvmlDeviceGetTotalEnergyConsumption returns an unsigned long long
# A reading is believed only up to this multiple of what the card could draw at its enforced limit over the window
# (plus one counter step): more is a counter that was reset (a driver reload), not energy.
PLAUSIBLE_OVER_LIMIT = 1.5
# A window resolves the energy in it when it spans at least this many counter periods: a reading taken between two
# updates is late by up to one period at each end, so the error is at most 2 / RESOLVED_PERIODS of the window's
# energy (here 4%), and over many rounds, read at unrelated phases, it averages out.
RESOLVED_PERIODS = 50
# How long `resolution()` watches the counter by default (about six changes of a counter that moves every 100 ms),
# and the most readings it takes (each reading's cost is measured and recorded with the period).
RESOLUTION_S = 0.6
MAX_POLLS = 200_000

COUNTER = "counter"      # NVML's total-energy counter read around the window
POWER = "power"          # NVML's power readings integrated over the window (the counter unreadable)
NONE = "none"            # no energy: NVML missing, or the window too short for what it resolves


@dataclass(frozen=True)
class Card:
    """The card's power facts, as NVML gives them (None: not reported)."""

    name: str | None = None
    driver: str | None = None
    limit_w: float | None = None         # the power limit set (nvmlDeviceGetPowerManagementLimit)
    enforced_w: float | None = None      # the limit in force (nvmlDeviceGetEnforcedPowerLimit)
    default_w: float | None = None       # the board's default limit
    power_source: str | None = None      # "instant" (NVML_FI_DEV_POWER_INSTANT) or "average" (GetPowerUsage: 1 s)
    reason: str | None = None            # why NVML gave nothing (None: it answered)

    def to_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_json(cls, data: dict) -> Card:
        return cls(**{k: data.get(k) for k in cls.__dataclass_fields__})


class Meter:
    """NVML readings of one GPU. Never raises: a reading that fails is None."""

    def __init__(self, nvml: object | None, handle: object | None, reason: str | None = None) -> None:
        self.nvml, self.handle, self.reason = nvml, handle, reason
        self._instant: bool | None = None   # the instantaneous power field works here (None: not tried yet)

    @property
    def available(self) -> bool:
        return self.handle is not None

    def _call(self, name: str, *args: object) -> object | None:
        if self.handle is None:
            return None
        try:
            return getattr(self.nvml, name)(self.handle, *args)
        except Exception:  # NVMLError (not supported, lost GPU) or a binding without the function
            return None

    def energy_mj(self) -> int | None:
        value = self._call("nvmlDeviceGetTotalEnergyConsumption")
        return int(value) if isinstance(value, int) else None

    def power_w(self) -> float | None:
        """Power now: the instantaneous field where the driver has it, else GetPowerUsage's reading."""
        if self._instant is not False:
            mw = self._instant_mw()
            self._instant = mw is not None
            if mw is not None:
                return mw / 1e3
        value = self._call("nvmlDeviceGetPowerUsage")
        return value / 1e3 if isinstance(value, (int, float)) else None

    def _instant_mw(self) -> float | None:
        field_id = getattr(self.nvml, "NVML_FI_DEV_POWER_INSTANT", None)
        if field_id is None:
            return None
        values = self._call("nvmlDeviceGetFieldValues", [field_id])
        try:
            v = values[0]  # type: ignore[index]
            if v.nvmlReturn != 0:
                return None
            kind = {0: "dVal", 1: "uiVal", 2: "ulVal", 3: "ullVal", 4: "sllVal", 5: "siVal"}.get(int(v.valueType))
            return float(getattr(v.value, kind)) if kind else None
        except Exception:
            return None

    @property
    def power_source(self) -> str | None:
        if not self.available:
            return None
        if self._instant is None:
            self.power_w()
        return "instant" if self._instant else "average"

    def sm_mhz(self) -> float | None:
        value = self._call("nvmlDeviceGetClockInfo", getattr(self.nvml, "NVML_CLOCK_SM", 1))
        return float(value) if isinstance(value, (int, float)) else None

    def card(self) -> Card:
        if not self.available:
            return Card(reason=self.reason)

        def watts(name: str) -> float | None:
            mw = self._call(name)
            return mw / 1e3 if isinstance(mw, (int, float)) else None

        name = self._call("nvmlDeviceGetName")
        try:
            driver = self.nvml.nvmlSystemGetDriverVersion()  # type: ignore[union-attr]
        except Exception:
            driver = None
        return Card(name=_text(name), driver=_text(driver), limit_w=watts("nvmlDeviceGetPowerManagementLimit"),
                    enforced_w=watts("nvmlDeviceGetEnforcedPowerLimit"),
                    default_w=watts("nvmlDeviceGetPowerManagementDefaultLimit"), power_source=self.power_source)


def _text(value: object) -> str | None:
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return value if isinstance(value, str) else None


def open_meter(gpu: str | int | None = None, *, uuid: str | None = None, nvml: object | None = None) -> Meter:
    """The Meter of one GPU: by UUID where known (torch's device properties give it), else by a
    CUDA_VISIBLE_DEVICES entry or index as NVML counts them. An absent Meter, with its reason, where NVML is not
    installed or does not start."""
    if nvml is None:
        try:
            import pynvml as nvml  # type: ignore[no-redef]
        except ImportError:
            return Meter(None, None, "pynvml (nvidia-ml-py) is not installed")
    try:
        nvml.nvmlInit()  # type: ignore[union-attr]
    except Exception as e:
        return Meter(nvml, None, f"NVML did not start ({type(e).__name__}: {e})")
    if uuid:  # the exact GPU, whatever order CUDA and NVML count in
        try:
            return Meter(nvml, nvml.nvmlDeviceGetHandleByUUID(uuid if uuid.startswith(("GPU-", "MIG-"))
                                                              else f"GPU-{uuid}"))
        except Exception:
            pass  # a UUID this NVML does not take: the index, as CUDA_VISIBLE_DEVICES maps it
    try:
        if isinstance(gpu, str) and gpu.startswith(("GPU-", "MIG-")):
            handle = nvml.nvmlDeviceGetHandleByUUID(gpu)
        else:
            handle = nvml.nvmlDeviceGetHandleByIndex(_nvml_index(gpu))
    except Exception as e:
        return Meter(nvml, None, f"NVML has no handle for GPU {gpu} ({type(e).__name__}: {e})")
    return Meter(nvml, handle)


def _nvml_index(gpu: str | int | None) -> int:
    """NVML counts every GPU of the host; a CUDA index counts those CUDA_VISIBLE_DEVICES leaves, in its order."""
    if isinstance(gpu, str):
        return int(gpu) if gpu.strip().isdigit() else 0
    index = gpu or 0
    visible = [v.strip() for v in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if v.strip()]
    if index < len(visible) and visible[index].isdigit():
        return int(visible[index])
    return index


def card_of(gpu: str | None) -> Card:
    """The power facts of the GPU a worker runs on (its CUDA_VISIBLE_DEVICES value; None: the first visible)."""
    if gpu is None:
        visible = [v.strip() for v in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if v.strip()]
        gpu = visible[0] if visible else "0"
    return open_meter(gpu).card()


# ---------------------------------------------------------------------------------------------- the counter's reading
def delta_mj(before: int | None, after: int | None, seconds: float, limit_w: float | None,
             step_mj: float = 0.0) -> float | None:
    """The counter's change between two readings, modulo its width (a counter that wraps goes on counting), or None
    where either reading is missing or the change is more than the card could draw in that time (a counter reset)."""
    if before is None or after is None:
        return None
    change = (after - before) % (1 << COUNTER_BITS)
    if limit_w and change > PLAUSIBLE_OVER_LIMIT * limit_w * seconds * 1e3 + step_mj:
        return None
    return float(change)


def integrate_mj(samples: Sequence[tuple[float, float | None]], t0: float, t1: float) -> float | None:
    """The energy (mJ) of power samples (host seconds, W) over [t0, t1]: the trapezoid rule, each end taking the
    nearest sample's power; None where no sample falls within the window."""
    points = [(t, w) for t, w in samples if w is not None]
    inside = [(t, w) for t, w in points if t0 <= t <= t1]
    if not inside or t1 <= t0:
        return None
    first = min(points, key=lambda p: abs(p[0] - t0))[1]
    last = min(points, key=lambda p: abs(p[0] - t1))[1]
    series = [(t0, first), *inside, (t1, last)]
    joules = sum((b[0] - a[0]) * (a[1] + b[1]) / 2 for a, b in itertools.pairwise(series))
    return joules * 1e3


@dataclass(frozen=True)
class Resolution:
    """How finely NVML's counter resolves energy here: watched for `seconds` while the GPU was busy."""

    seconds: float
    polls: int                       # counter readings taken
    changes: int                     # readings that differed from the one before
    period_ms: float | None          # median time between changes (None: fewer than two intervals seen)
    step_mj: float | None            # median change
    poll_us: float                   # mean cost of one reading
    power_changes: int = 0           # the same for the power reading
    power_period_ms: float | None = None
    reason: str | None = None        # why nothing was measured (None: it was)

    def resolves(self, window_s: float) -> bool:
        """Does a window this long resolve its energy (RESOLVED_PERIODS of the measured period)?"""
        return self.period_ms is not None and window_s * 1e3 >= RESOLVED_PERIODS * self.period_ms

    def line(self) -> str:
        """One line for the terminal and the page."""
        if self.reason:
            return f"no energy: {self.reason}"
        if self.period_ms is None:
            return (f"NVML's energy counter changed {self.changes} time(s) in {self.seconds:.1f} s of a busy GPU: too "
                    f"coarse to time")
        power = (f"; power readings every {self.power_period_ms:.0f} ms" if self.power_period_ms else "")
        return (f"NVML's energy counter changes every {self.period_ms:.1f} ms (median of {self.changes - 1} "
                f"intervals over {self.seconds:.1f} s of a busy GPU), by {self.step_mj:.0f} mJ a step; a reading "
                f"costs {self.poll_us:.0f} us{power}")

    def to_json(self) -> dict:
        return {k: (float(f"{v:.6g}") if isinstance(v, float) else v) for k, v in asdict(self).items()
                if v is not None}

    @classmethod
    def from_json(cls, data: dict) -> Resolution:
        return cls(**{k: data.get(k) for k in cls.__dataclass_fields__ if k in data})


def resolution(meter: Meter, seconds: float = RESOLUTION_S, *, clock: Callable[[], float] = time.perf_counter
               ) -> Resolution:
    """Watch the counter (and the power reading) as fast as the host can read them for `seconds`, while the caller
    keeps the GPU busy, and say how often and by how much each changed. The first change is not counted as an
    interval: the watch began at an unknown phase of the counter's period."""
    if not meter.available:
        return Resolution(0.0, 0, 0, None, None, 0.0, reason=meter.reason)
    changes: list[tuple[float, int]] = []
    power_changes: list[float] = []
    last = meter.energy_mj()
    if last is None:
        return Resolution(0.0, 1, 0, None, None, 0.0, reason="NVML does not report total energy on this GPU")
    last_power = meter.power_w()
    polls = 0
    start = clock()
    now = start
    while now - start < seconds and polls < MAX_POLLS:
        value = meter.energy_mj()
        power = meter.power_w()
        now = clock()
        polls += 1
        if value is not None and value != last:
            changes.append((now, (value - last) % (1 << COUNTER_BITS)))
            last = value
        if power is not None and power != last_power:
            power_changes.append(now)
            last_power = power
    elapsed = now - start
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(changes)]
    power_gaps = [b - a for a, b in itertools.pairwise(power_changes)]
    return Resolution(seconds=elapsed, polls=polls, changes=len(changes),
                      period_ms=1e3 * statistics.median(gaps) if gaps else None,
                      step_mj=float(statistics.median(c for _, c in changes)) if changes else None,
                      poll_us=1e6 * elapsed / max(polls, 1), power_changes=len(power_changes),
                      power_period_ms=1e3 * statistics.median(power_gaps) if power_gaps else None)


@dataclass
class Window:
    """One window's two counter readings, taken with the GPU idle at both ends (the caller synchronises)."""

    meter: Meter
    before: int | None = None
    t0: float = 0.0

    def open(self) -> Window:
        self.before, self.t0 = self.meter.energy_mj(), time.perf_counter()
        return self

    def close(self) -> tuple[int | None, int | None, float]:
        """(reading before, reading after, host seconds between them)."""
        return self.before, self.meter.energy_mj(), time.perf_counter() - self.t0


@dataclass
class MeterState:
    """What a process knows of its GPU's meter: the Meter, the card's facts, the counter's measured resolution."""

    meter: Meter
    card: Card
    resolution: Resolution


def keep_busy(device: object, seconds: float) -> None:
    """Queue about `seconds` of matrix products on the device (to watch the counter move), without waiting. Products
    of 8192^3 (tens of milliseconds each in fp32) keep the launch queue short of its limit, past which queueing
    would block the host."""
    import torch

    a = torch.randn(8192, 8192, device=device)
    out = torch.empty_like(a)
    torch.matmul(a, a, out=out)
    torch.cuda.synchronize(device)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.matmul(a, a, out=out)
    end.record()
    end.synchronize()
    one = max(start.elapsed_time(end), 0.05) / 1e3
    for _ in range(int(seconds / one) + 1):
        torch.matmul(a, a, out=out)


@functools.cache
def meter_state(device_index: int) -> MeterState:
    """This process's meter of a CUDA device, its card and its counter's resolution, measured once (about
    RESOLUTION_S of a busy GPU)."""
    import torch

    device = torch.device("cuda", device_index)
    try:
        uuid = str(torch.cuda.get_device_properties(device).uuid)
    except Exception:
        uuid = None
    meter = open_meter(device_index, uuid=uuid)
    if not meter.available:
        return MeterState(meter, meter.card(), resolution(meter))
    keep_busy(device, RESOLUTION_S * 1.2)
    res = resolution(meter, RESOLUTION_S)
    torch.cuda.synchronize(device)
    return MeterState(meter, meter.card(), res)


def main(argv: list[str] | None = None) -> int:
    """Measure and print the counter's resolution on the current GPU (what every run records)."""
    import json
    import sys

    import torch

    args = sys.argv[1:] if argv is None else argv
    seconds = float(args[0]) if args else 3.0
    if not torch.cuda.is_available():
        print("no CUDA GPU: nothing to measure")
        return 1
    device = torch.device("cuda", torch.cuda.current_device())
    meter = open_meter(device.index, uuid=str(torch.cuda.get_device_properties(device).uuid))
    print(json.dumps({"card": meter.card().to_json()}))
    idle = resolution(meter, min(seconds, 1.0))
    print(f"idle: {idle.line()}")
    keep_busy(device, seconds * 1.3)
    busy = resolution(meter, seconds)
    torch.cuda.synchronize(device)
    print(f"busy: {busy.line()}")
    print(json.dumps({"idle": idle.to_json(), "busy": busy.to_json(),
                      "resolves_burst_of_5_ms": busy.resolves(0.005), "resolves_window_of_1_s": busy.resolves(1.0)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
