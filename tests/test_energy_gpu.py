"""Energy and the sustained regime on a GPU: NVML's counter resolution measured on the card, the counter read around
a burst long enough for it (and the interleaved rounds reading it where their bursts are, saying why where not), and
joules per GEMM that add up: at the steady state, energy per launch times launches per second is the card's power,
which cannot stand above its enforced limit.

The tolerance: NVML's power figure is the board sensor's, and NVIDIA gives that sensor's accuracy as +-5% of the
reading; the power limiter holds the mean power over its own control window at the limit, so a window of about a
second (the steady window here) can read a few percent over it. 10% over the enforced limit is the sensor's error
plus as much again for the limiter's; past it, the window is counting energy the launches did not spend (a counter
read at the wrong time, a window longer than the work). The floor (a quarter of the limit) fails a window that counted
nothing: cuBLAS at 4096^3 draws most of the limit.

Each needs the GPU to itself (the power of another process's work would be counted)."""

from __future__ import annotations

import pytest
import torch

from harness.launch.implementations import Impl, baselines
from harness.measure.energy import COUNTER, RESOLVED_PERIODS, meter_state
from harness.measure.rounds import Entry, estimate_ms, interleave
from harness.measure.sustained import sustain
from harness.problems import DEFAULT_SGEMM
from harness.run.runner import ProblemContext

pytestmark = [pytest.mark.gpu, pytest.mark.gpu_alone]
P = DEFAULT_SGEMM[0]
OVER_LIMIT = 1.10
UNDER_LIMIT = 0.25


def _state():
    state = meter_state(torch.cuda.current_device())
    if not state.meter.available:
        pytest.skip(f"no NVML: {state.meter.reason}")
    return state


def _entries() -> list[tuple[Impl, Entry]]:
    device = torch.device("cuda", torch.cuda.current_device())
    ops = ProblemContext(P, device, seed=11).operands(P, "random")
    out = []
    for impl in (b for b in baselines("sgemm") if b.vendor):  # cuBLAS fp32 (SIMT) and TF32 (tensor cores)
        fn = impl.bind(ops.tensors(ops.fresh_output(0.0)), P.alpha, P.beta)
        out.append((impl, Entry(impl.label, fn, estimate_ms(fn, device))))
    return out


def test_the_energy_counters_period_is_measured_on_this_gpu_and_the_card_reports_its_limits():
    state = _state()
    res = state.resolution
    print(res.line(), state.card)
    assert res.period_ms is not None and 0.1 <= res.period_ms <= 2000, res
    assert res.step_mj and res.step_mj > 0
    assert state.card.enforced_w and state.card.limit_w and state.card.enforced_w <= state.card.limit_w + 1e-6


def test_every_burst_of_the_interleaved_rounds_is_read_where_the_counter_resolves_it_and_said_where_not():
    state = _state()
    entries = [e for _, e in _entries()]
    got = interleave(entries, rounds=4, device=torch.device("cuda", torch.cuda.current_device()))
    for key, samples in got.items():
        e = samples.energy
        assert e is not None and e.period_ms == state.resolution.period_ms, key
        if e.method == COUNTER:  # a counter fast enough for these bursts: every round read
            assert all(m is not None for m in e.mj), (key, e)
        else:
            assert "not read: bursts of about" in e.note and e.extra["burst_s"] > 0, (key, e)
            assert not state.resolution.resolves(e.extra["burst_s"])


def test_the_counter_read_around_a_burst_covers_its_runs():
    from harness.measure.rounds import _burst
    from harness.measure.sm_clock import ProbeBuffer
    from harness.measure.timing import L2_FLUSH_BYTES

    state = _state()
    device = torch.device("cuda", torch.cuda.current_device())
    _, entry = _entries()[0]
    # a window the counter resolves (RESOLVED_PERIODS of its period: 5 s at 100 ms), so that its power can be held
    # to the limit; the flushes between the runs make it longer still
    runs = max(1, int(RESOLVED_PERIODS * state.resolution.period_ms / entry.estimate_ms))
    flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.int8, device=device)
    ms, _, reading, window_ms = _burst(entry.launch, runs, True, flush, ProbeBuffer.make(runs, device), device,
                                       state.meter)
    before, after, seconds = reading
    assert before is not None and after is not None and after > before
    assert window_ms is not None and sum(ms) < window_ms <= 1e3 * seconds + 1.0  # the runs inside the window
    watts = (after - before) / 1e3 / seconds
    limit = state.card.enforced_w or state.card.limit_w
    assert UNDER_LIMIT * limit <= watts <= OVER_LIMIT * limit, (watts, limit)


def test_joules_per_gemm_times_the_launch_rate_stays_under_the_power_limit():
    state = _state()
    limit = state.card.enforced_w or state.card.limit_w
    assert limit, state.card
    pairs = _entries()
    got = sustain([e for _, e in pairs], rounds=1, device=torch.device("cuda", torch.cuda.current_device()))
    for impl, entry in pairs:
        steady = got[entry.key].steady
        joules = steady.joules_per_launch()[0]
        assert joules is not None, (impl.label, steady.energy)
        launches_per_s = 1e3 / (sum(steady.ms) / len(steady.ms))
        watts = joules * launches_per_s
        round_ = got[entry.key].rounds[0]
        print(f"{impl.label}: {joules:.3f} J/GEMM x {launches_per_s:.0f}/s = {watts:.0f} W (limit {limit:.0f} W; "
              f"steady {round_.steady} after {round_.settle_s:.1f} s, {round_.clock_mhz} MHz)")
        assert UNDER_LIMIT * limit <= watts <= OVER_LIMIT * limit, (impl.label, watts, limit)
