"""The sustained regime's loop (harness/measure/sustained.py) without a GPU: a fake device whose launches take a fixed
time on a fake clock, CUDA events that complete when the device reaches them, and a fake NVML whose power and clock ramp
down to a steady state. What the loop must do: time the burst, ramp until the rule holds, measure a steady window
between two changes of the energy counter, and give each round joules per launch that match the fake card's power."""

from __future__ import annotations

import math
import types

import pytest
import torch

from harness.measure import energy, sustained
from harness.measure.energy import COUNTER, POWER, MeterState, Resolution, open_meter
from harness.measure.regime import BURST_RUNS, RULE
from harness.measure.rounds import Entry
from tests.fake_nvml import FakeNvml


class Device:
    """Host time moves by `tick` at every read; work queued on the device runs back to back after the host queues it."""

    def __init__(self, tick: float = 0.0002) -> None:
        self.host, self.tick, self.free_at = 0.0, tick, 0.0

    def now(self) -> float:
        self.host += self.tick
        return self.host

    def sleep(self, seconds: float) -> None:
        self.host += seconds

    def run(self, seconds: float) -> None:
        self.free_at = max(self.free_at, self.host) + seconds

    def synchronize(self, *_: object) -> None:
        self.host = max(self.host, self.free_at)


class Event:
    def __init__(self, device: Device) -> None:
        self.device, self.t = device, None

    def record(self) -> None:
        self.t = max(self.device.free_at, self.device.host)

    def query(self) -> bool:
        return self.device.now() >= self.t

    def elapsed_time(self, end: Event) -> float:
        return (end.t - self.t) * 1e3


class Probes:
    def __init__(self, windows: int) -> None:
        self.data = types.SimpleNamespace(shape=(windows,))

    def clear(self) -> None: ...

    def probe(self, window: int, edge: int) -> None: ...

    def clocks_mhz(self, windows: int) -> list[float]:
        return [1500.0] * windows


def steady_power(t: float) -> float:
    """690 W, reached from 550 W with a time constant of 0.3 s after each start of work (the fake's t: host time)."""
    return 690.0 - 140.0 * math.exp(-(t % 100) / 0.3)


@pytest.fixture
def fake_gpu(monkeypatch):
    device = Device()
    monkeypatch.setattr(sustained, "time", types.SimpleNamespace(perf_counter=device.now, sleep=device.sleep))
    monkeypatch.setattr(torch.cuda, "Event", lambda enable_timing=True: Event(device))
    monkeypatch.setattr(torch.cuda, "synchronize", device.synchronize)
    import harness.measure.sm_clock as sm_clock

    monkeypatch.setattr(sm_clock.ProbeBuffer, "make", classmethod(lambda cls, windows, dev: Probes(windows)))
    monkeypatch.setattr(sm_clock, "max_sm_clock_mhz", lambda dev: 1980.0)
    return device


def meter_of(device: Device, **kw) -> MeterState:
    nvml = FakeNvml(now=lambda: device.host, period_s=0.1, **kw)
    meter = open_meter(0, nvml=nvml)
    return MeterState(meter, meter.card(), Resolution(1.0, 100, 10, 100.0, 69_000.0, 5.0))


def test_a_turn_ramps_to_the_steady_state_and_takes_the_energy_of_its_steady_window(fake_gpu, monkeypatch) -> None:
    device = fake_gpu
    monkeypatch.setattr(energy, "meter_state", lambda index: meter_of(device, watts=steady_power,
                                                                       mhz=lambda t: 1400 + 580 * math.exp(-t / 0.3)))
    run_s = 0.0004  # a TF32 GEMM's 0.4 ms
    got = sustained.sustain([Entry("tf32", lambda: device.run(run_s), run_s * 1e3)], rounds=2, idle_s=0.0,
                            device=torch.device("cuda", 0))
    s = got["tf32"]
    assert s.burst.per_round == [BURST_RUNS, BURST_RUNS] and s.burst.ms[0] == pytest.approx(0.4)
    assert s.steady.launches == 50 and all(m == pytest.approx(0.4) for m in s.steady.ms)  # 20 ms chunks
    for r in s.rounds:
        assert r.steady and RULE.windows * RULE.window_s <= r.settle_s <= 3.0
        assert r.seconds == pytest.approx(RULE.measure_s, abs=0.12)  # opened and closed at counter updates
        assert r.power_w == pytest.approx(690.0, rel=0.01)
    e = s.steady.energy
    assert e is not None and e.method == COUNTER and e.resolved == 2
    for j in s.steady.joules_per_launch():
        assert j == pytest.approx(690.0 * run_s, rel=0.02)  # the card's power times the launch's time
    assert all(p == pytest.approx(m, rel=0.02) for p, m in zip(e.extra["power_mj"], e.mj, strict=True))


def test_without_the_counter_the_power_readings_stand_for_it_and_the_record_says_so(fake_gpu, monkeypatch) -> None:
    device = fake_gpu
    monkeypatch.setattr(energy, "meter_state", lambda index: meter_of(device, watts=lambda t: 600.0,
                                                                       energy_supported=False))
    got = sustained.sustain([Entry("simt", lambda: device.run(0.0027), 2.7)], rounds=1, idle_s=0.0,
                            device=torch.device("cuda", 0))
    e = got["simt"].steady.energy
    assert e is not None and e.method == POWER and "power readings" in e.note
    assert got["simt"].steady.joules_per_launch()[0] == pytest.approx(600.0 * 0.0027, rel=0.03)


def test_without_nvml_the_turn_runs_the_rules_shortest_span_and_records_no_energy(fake_gpu, monkeypatch) -> None:
    device = fake_gpu
    absent = energy.Meter(None, None, "pynvml (nvidia-ml-py) is not installed")
    monkeypatch.setattr(energy, "meter_state",
                        lambda index: MeterState(absent, absent.card(), energy.resolution(absent)))
    got = sustained.sustain([Entry("x", lambda: device.run(0.001), 1.0)], rounds=1, idle_s=0.0,
                            device=torch.device("cuda", 0))
    r = got["x"].rounds[0]
    assert r.steady is None and r.settle_s == pytest.approx(RULE.windows * RULE.window_s, abs=0.05)
    e = got["x"].steady.energy
    assert e is not None and e.joules == [None] and "pynvml" in e.note
