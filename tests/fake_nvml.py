"""A stand-in for the pynvml module: a GPU whose energy counter, power and clock follow a clock the test moves, with
the functions harness/measure/energy.py calls and nothing else. Tests decide what it reports, how often its counter
moves and what fails."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

NVML_FI_DEV_POWER_INSTANT = 186
NVML_CLOCK_SM = 1


class NVMLError(Exception):
    pass


@dataclass
class _Value:
    uiVal: int = 0


@dataclass
class _Field:
    nvmlReturn: int
    valueType: int
    value: _Value


@dataclass
class FakeNvml:
    """now() is the fake's time in seconds; watts(t) the board's power; the counter integrates it and is updated
    every `period_s` (its value between updates is the one at the last update), starting from `start_mj`."""

    now: Callable[[], float]
    watts: Callable[[float], float] = lambda t: 500.0
    period_s: float = 0.1
    start_mj: int = 0
    wrap_bits: int = 64
    mhz: float | Callable[[float], float] = 1980.0
    limit_mw: int = 700_000
    enforced_mw: int = 700_000
    instant: bool = True            # the instantaneous power field answers
    energy_supported: bool = True
    fail_init: bool = False
    calls: dict = field(default_factory=dict)

    NVML_FI_DEV_POWER_INSTANT = NVML_FI_DEV_POWER_INSTANT
    NVML_CLOCK_SM = NVML_CLOCK_SM

    def _count(self, name: str) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1

    def nvmlInit(self) -> None:
        if self.fail_init:
            raise NVMLError("Driver Not Loaded")

    def nvmlDeviceGetHandleByIndex(self, index: int) -> str:
        return f"gpu{index}"

    def nvmlDeviceGetHandleByUUID(self, uuid: str) -> str:
        return uuid

    def _energy_at(self, t: float) -> int:
        # the trapezoid sum of the power over update instants up to t, in mJ
        steps = int(t / self.period_s)
        total = sum(self.period_s * (self.watts(k * self.period_s) + self.watts((k + 1) * self.period_s)) / 2
                    for k in range(steps))
        return (self.start_mj + int(total * 1e3)) % (1 << self.wrap_bits)

    def nvmlDeviceGetTotalEnergyConsumption(self, handle: str) -> int:
        self._count("energy")
        if not self.energy_supported:
            raise NVMLError("Not Supported")
        return self._energy_at(self.now())

    def nvmlDeviceGetFieldValues(self, handle: str, ids: list[int]) -> list[_Field]:
        self._count("fields")
        if not self.instant:
            return [_Field(3, 1, _Value())]
        return [_Field(0, 1, _Value(int(self.watts(self.now()) * 1e3)))]

    def nvmlDeviceGetPowerUsage(self, handle: str) -> int:
        self._count("power")
        return int(self.watts(self.now()) * 1e3)

    def nvmlDeviceGetClockInfo(self, handle: str, kind: int) -> int:
        return int(self.mhz(self.now()) if callable(self.mhz) else self.mhz)

    def nvmlDeviceGetName(self, handle: str) -> str:
        return "Fake H100"

    def nvmlSystemGetDriverVersion(self) -> str:
        return "999.1"

    def nvmlDeviceGetPowerManagementLimit(self, handle: str) -> int:
        return self.limit_mw

    def nvmlDeviceGetEnforcedPowerLimit(self, handle: str) -> int:
        return self.enforced_mw

    def nvmlDeviceGetPowerManagementDefaultLimit(self, handle: str) -> int:
        return self.limit_mw


class Clock:
    """A clock that moves by `tick` seconds each time it is read (each NVML call a test makes reads it once)."""

    def __init__(self, tick: float = 0.001) -> None:
        self.t, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.t += self.tick
        return self.t
