"""NVML's energy as the suite reads it, on a fake NVML (tests/fake_nvml.py): the readings, the counter's change over a
window (wrapped, reset, missing), the integral of power samples, the counter's resolution measured from how it moves,
which bursts it resolves, and the records that keep it."""

from __future__ import annotations

import sys

import pytest

from harness.measure import energy
from harness.measure.energy import (
    COUNTER,
    NONE,
    RESOLVED_PERIODS,
    Meter,
    MeterState,
    Resolution,
    delta_mj,
    integrate_mj,
    open_meter,
    resolution,
)
from harness.measure.energy_record import Energy, burst_energy
from harness.measure.timing import Samples
from tests.fake_nvml import Clock, FakeNvml


def fake(clock: Clock | None = None, **kw) -> tuple[Meter, FakeNvml]:
    nvml = FakeNvml(now=clock or Clock(), **kw)
    return open_meter(0, nvml=nvml), nvml


def test_a_meter_reads_energy_power_clock_and_the_cards_limits() -> None:
    meter, _ = fake(watts=lambda t: 612.5, enforced_mw=650_000)
    assert meter.available and meter.reason is None
    assert isinstance(meter.energy_mj(), int)
    assert meter.power_w() == pytest.approx(612.5)
    assert meter.sm_mhz() == 1980.0
    card = meter.card()
    assert (card.name, card.driver, card.limit_w, card.enforced_w) == ("Fake H100", "999.1", 700.0, 650.0)
    assert card.power_source == "instant"


def test_power_falls_back_to_the_averaged_reading_where_the_instant_field_is_not_supported() -> None:
    meter, nvml = fake(instant=False, watts=lambda t: 300.0)
    assert meter.power_w() == pytest.approx(300.0)
    assert meter.power_source == "average"
    meter.power_w()
    assert nvml.calls["fields"] == 1  # the field is not asked again once it failed


def test_without_pynvml_the_meter_is_absent_and_says_why_in_one_line(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml raises ImportError
    meter = open_meter(0)
    assert not meter.available
    assert meter.reason and "\n" not in meter.reason and "pynvml" in meter.reason
    assert meter.energy_mj() is None and meter.power_w() is None and meter.sm_mhz() is None
    assert meter.card().reason == meter.reason
    assert resolution(meter).line() == f"no energy: {meter.reason}"


def test_an_nvml_that_does_not_start_gives_an_absent_meter_not_an_exception() -> None:
    meter, _ = fake(fail_init=True)
    assert not meter.available and "Driver Not Loaded" in (meter.reason or "")


def test_a_counter_that_wraps_counts_on_across_its_width() -> None:
    top = (1 << energy.COUNTER_BITS) - 500
    assert delta_mj(top, 1_500, 1.0, 700.0) == 2_000


def test_a_counter_that_went_back_or_jumped_past_what_the_card_can_draw_is_not_believed() -> None:
    assert delta_mj(10_000_000, 9_000_000, 1.0, 700.0) is None        # reset: modulo 2^64 that is ~1.8e19 mJ
    assert delta_mj(0, 2_000_000, 1.0, 700.0) is None                 # 2 kJ in 1 s at a 700 W limit
    assert delta_mj(0, 700_000, 1.0, 700.0) == 700_000                # the limit itself is believed
    assert delta_mj(None, 5, 1.0, 700.0) is None and delta_mj(5, None, 1.0, 700.0) is None


def test_the_integral_of_power_samples_over_a_window() -> None:
    flat = [(t / 10, 500.0) for t in range(0, 31)]
    assert integrate_mj(flat, 1.0, 3.0) == pytest.approx(1_000_000)   # 500 W for 2 s
    ramp = [(t / 10, 100.0 * t / 10) for t in range(0, 31)]            # 0 to 300 W over 3 s
    assert integrate_mj(ramp, 0.0, 2.0) == pytest.approx(200_000)     # the area under 100 W/s * t over 2 s
    # the ends take the nearest sample's power: a window between two samples is still counted
    assert integrate_mj([(0.0, 400.0), (1.0, 400.0)], 0.2, 0.8) is None  # no sample inside: nothing to integrate
    assert integrate_mj([(0.0, 400.0), (0.5, 400.0), (1.0, 400.0)], 0.2, 0.8) == pytest.approx(240_000)
    assert integrate_mj([(0.5, None)], 0.0, 1.0) is None


def test_resolution_measures_the_counters_period_and_step_while_it_moves() -> None:
    clock = Clock(tick=0.0005)
    meter, _ = fake(clock, period_s=0.1, watts=lambda t: 700.0)
    res = resolution(meter, 1.0, clock=clock)
    assert res.period_ms == pytest.approx(100.0, rel=0.02)
    assert res.step_mj == pytest.approx(70_000, rel=0.01)   # 700 W over 100 ms
    assert res.changes >= 8 and res.polls > 100
    assert res.resolves(RESOLVED_PERIODS * 0.11) and not res.resolves(RESOLVED_PERIODS * 0.09)
    assert "every 100.5 ms" in res.line() and "\n" not in res.line()  # 1.5 ms of reading per poll, 0.5 late


def test_a_counter_that_never_moves_has_no_period_and_resolves_nothing() -> None:
    clock = Clock(tick=0.001)
    meter, _ = fake(clock, period_s=10.0)
    res = resolution(meter, 0.5, clock=clock)
    assert res.period_ms is None and not res.resolves(100.0)
    assert "too coarse" in res.line()


def test_a_gpu_that_reports_no_energy_has_a_resolution_that_says_so() -> None:
    meter, _ = fake(energy_supported=False)
    res = resolution(meter, 0.1)
    assert res.reason and "total energy" in res.reason and not res.resolves(100.0)


def state(period_ms: float | None, meter: Meter | None = None) -> MeterState:
    meter = meter or fake()[0]
    return MeterState(meter, meter.card(), Resolution(1.0, 1000, 10, period_ms, 70_000.0, 5.0))


def test_a_burst_shorter_than_the_counter_resolves_no_energy_and_says_so() -> None:
    # 5 ms bursts of 4 ms of runs against a 100 ms counter: readings kept, no joules, one line saying why
    e = burst_energy([(0, 70_000, 0.005), (70_000, 70_000, 0.005)], [4.0, 4.0], [5.0, 5.0], state(100.0))
    assert e is not None and e.method == COUNTER
    assert e.mj == [70_000.0, 0.0] and e.joules == [None, None] and e.resolved == 0
    assert "2 of 2 bursts shorter than" in e.note and "100 ms" in e.note


def test_a_window_long_enough_gives_the_timed_runs_share_of_its_energy() -> None:
    # 6 s windows against a 100 ms counter (60 periods): 4.2 kJ, of which the runs took 5.4 of 6.0 s of device time
    e = burst_energy([(0, 4_200_000, 6.0)] * 3, [5400.0] * 3, [6000.0] * 3, state(100.0))
    assert e is not None and e.joules == [pytest.approx(4200 * 0.9)] * 3 and e.note == ""


def test_an_absent_meter_records_no_energy_with_its_reason_and_none_is_none() -> None:
    absent = Meter(None, None, "pynvml (nvidia-ml-py) is not installed")
    e = burst_energy([None, None], [1.0, 1.0], [None, None], MeterState(absent, absent.card(), resolution(absent)))
    assert e is not None and e.method == NONE and e.note == absent.reason and e.joules == [None, None]
    assert burst_energy([None], [1.0], [None], None) is None


def test_samples_with_energy_give_joules_per_launch_and_read_back() -> None:
    e = Energy(COUNTER, [1000.0, 2000.0], [1.0, 1.0], [0.9, None], 100.0, "one short")
    s = Samples([1.0, 1.0, 2.0], [1980.0] * 3, [2, 1], [0, 1], "b", 1980.0, e, launches=3)
    assert s.joules_per_launch() == [pytest.approx(0.9 / 6), None]
    back = Samples.from_json(s.to_json())
    assert back.energy == e and back.launches == 3
    with pytest.raises(ValueError, match="energy of 2 rounds"):
        Samples([1.0], [None], [1], [0], "b", None, e)


def test_samples_without_energy_write_exactly_what_they_wrote_before() -> None:
    s = Samples([1.0, 2.0], [1980.0, None], [2], [0], "b", 1980.0)
    assert set(s.to_json()) == {"ms", "mhz", "per_round", "order", "batch", "max_mhz"}
    assert s.joules_per_launch() == [None]


def test_a_uuid_nvml_does_not_take_falls_back_to_the_index() -> None:
    nvml = FakeNvml(now=Clock())

    def refuse(uuid: str) -> str:
        raise RuntimeError("Not Found")

    nvml.nvmlDeviceGetHandleByUUID = refuse  # type: ignore[method-assign]
    meter = open_meter(0, uuid="not-a-uuid", nvml=nvml)
    assert meter.available and meter.handle == "gpu0"


def test_bursts_too_short_for_the_measured_counter_are_not_read_and_the_file_says_why_in_one_line() -> None:
    from harness.analysis.energy import file_energy
    from harness.identity import ImplId
    from harness.measure.timing import Timing
    from harness.problems import Problem
    from harness.records.lines import Result, Status
    from harness.report.regimes import energy_line

    e = burst_energy([None] * 3, [4.0] * 3, [None] * 3, state(100.0), planned_s=0.005)
    assert e is not None and e.method == NONE and e.joules == [None] * 3 and e.period_ms == 100.0
    assert "bursts of about 5 ms" in e.note and "100.0 ms" in e.note and e.extra == {"burst_s": 0.005}
    s = Samples([1.0] * 3, [1980.0] * 3, [1] * 3, [0] * 3, "b", 1980.0, e)
    r = Result.of(ImplId("cublas"), Problem("sgemm", 64, 64, 64), Status.OK, timing=Timing.of(s))
    line = energy_line(file_energy([r]))
    assert "\n" not in line and "every 100.0 ms" in line and "longest burst lasts 5 ms" in line
    assert "--regime sustained" in line
    # a burst the counter can resolve is read, so a burst_energy without readings for it is a failed read, not this
    long = burst_energy([None] * 3, [4.0] * 3, [None] * 3, state(100.0), planned_s=6.0)
    assert long is not None and long.method == COUNTER
