"""The sustained regime, measured: each implementation run back to back until its clock and power stop moving, in
interleaved rounds with an idle gap before each turn; what it recorded is harness/measure/regime.py's.

A turn of one implementation in one round:
1. idle: nothing queued for IDLE_S (the card leaves the power limit behind);
2. burst: its first BURST_RUNS launches, each bracketed by CUDA events and clock probes (harness/measure/sm_clock.py):
the
   regime of a short run after an idle gap;
3. ramp: launches back to back in chunks of about CHUNK_MS of device time, each chunk bracketed by events and probes,
   the host keeping DEPTH chunks queued so that the GPU never waits; between chunk completions the host reads NVML's
   SM clock and power (every SAMPLE_S), until the steady-state rule holds (harness/measure/regime.py Rule) or its max_s;
4. steady window: `measure_s` more, opened and closed where NVML's energy counter changes, so that each reading is
   fresh (a reading taken between two updates of the counter lags it by up to a period; one taken as it changes does
   not). The chunks that complete inside the window are the turn's samples (ms per launch, clock); its energy is
   the counter's change; the launches' energy is the window's mean power times their event time. Where the counter
   is not readable, NVML's power readings integrated over the window stand for it (Energy.method says which), and
   the integral is kept beside the counter's figure in any case (Energy.extra["power_mj"]) as a check.

No L2 flush in this regime: a long job's launches follow one another, and at 4096^3 an sgemm's operands (192 MiB) are
four times the H100's L2 anyway. The bursts of the default run flush before each run; a sustained file's burst
column is its own, taken as described, so that the two columns of its table differ only in how long the GPU has run.
"""

from __future__ import annotations

import random
import time
import uuid
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.measure.energy import COUNTER, NONE, POWER, MeterState, delta_mj, integrate_mj
from harness.measure.energy_record import Energy
from harness.measure.regime import (
    BURST_RUNS,
    CHUNK_MS,
    IDLE_S,
    RULE,
    SAMPLE_S,
    Reading,
    Rule,
    SteadyRound,
    last_windows,
    steady_at,
)
from harness.measure.rounds import MIN_ROUNDS, Entry
from harness.measure.timing import Samples

if TYPE_CHECKING:
    import torch

# rounds of the sustained regime: each costs every entry a turn of several seconds, so the fewest that make a call
ROUNDS = MIN_ROUNDS
DEPTH = 3                # chunks kept queued ahead of the GPU
EDGE_WAIT_S = 1.0        # how long to wait for a change of the energy counter before reading it where it stands
# The most chunks a turn may queue (the probe buffer's size): max_s + measure_s + two edge waits of 20 ms chunks.
MAX_CHUNKS = int((RULE.max_s + RULE.measure_s + 2 * EDGE_WAIT_S) * 1e3 / CHUNK_MS) + 2 * DEPTH


@dataclass
class Sustained:
    """One entry over the rounds: its bursts, its steady windows' chunks (with their energy) and each round's way
    there."""

    burst: Samples
    steady: Samples
    rounds: list[SteadyRound]


@dataclass
class _Turn:
    burst_ms: list[float]
    burst_mhz: list[float | None]
    steady_ms: list[float]
    steady_mhz: list[float | None]
    steady: SteadyRound
    mj: float | None            # the window's energy: the counter's change, else the power readings' integral
    power_mj: float | None      # the power readings' integral (kept as a check of the counter)
    method: str
    joules: float | None


def sustain(entries: Sequence[Entry], *, rounds: int = ROUNDS, seed: int = 0, twins: bool = False,
            device: torch.device | None = None, rule: Rule = RULE, idle_s: float = IDLE_S,
            on_turn: Callable[[Hashable, int], None] | None = None) -> dict[Hashable, Sustained]:
    """Every entry to its steady state, once per round, in a shuffled order per round; with `twins` every entry twice
    (key (key, "aa")), the A/A control. on_turn(key, round) is called before each turn."""
    import torch

    from harness.measure.energy import meter_state
    from harness.measure.sm_clock import ProbeBuffer, max_sm_clock_mhz

    device = device or torch.device("cuda", torch.cuda.current_device())
    state = meter_state(device.index if device.index is not None else torch.cuda.current_device())
    todo = [*entries, *(Entry((e.key, "aa"), e.launch, e.estimate_ms) for e in entries if twins)]
    probes = ProbeBuffer.make(BURST_RUNS + MAX_CHUNKS, device)
    batch = uuid.uuid4().hex[:12]
    max_mhz = max_sm_clock_mhz(device)
    turns: dict[Hashable, list[_Turn]] = {e.key: [] for e in todo}
    order: dict[Hashable, list[int]] = {e.key: [] for e in todo}
    rng = random.Random(seed)
    for r in range(rounds):
        shuffled = list(todo)
        rng.shuffle(shuffled)
        for position, e in enumerate(shuffled):
            if on_turn is not None:
                on_turn(e.key, r)
            torch.cuda.synchronize(device)
            time.sleep(idle_s)
            turns[e.key].append(_turn(e, state, probes, device, rule))
            order[e.key].append(position)
    out = {}
    for key, ts in turns.items():
        per_chunk = _per_chunk(next(e for e in todo if e.key == key).estimate_ms)
        burst = Samples([m for t in ts for m in t.burst_ms], [m for t in ts for m in t.burst_mhz],
                        [len(t.burst_ms) for t in ts], order[key], batch, max_mhz)
        energy = Energy(_method(ts), [t.mj for t in ts], [t.steady.seconds for t in ts], [t.joules for t in ts],
                        state.resolution.period_ms, _note(ts, state),
                        {"power_mj": [float(f"{t.power_mj:.6g}") if t.power_mj is not None else None for t in ts]})
        steady = Samples([m for t in ts for m in t.steady_ms], [m for t in ts for m in t.steady_mhz],
                         [len(t.steady_ms) for t in ts], order[key], batch, max_mhz, energy, per_chunk)
        out[key] = Sustained(burst, steady, [t.steady for t in ts])
    return out


def _per_chunk(estimate_ms: float) -> int:
    return max(1, round(CHUNK_MS / max(estimate_ms, 1e-3)))


def _method(turns: list[_Turn]) -> str:
    methods = {t.method for t in turns if t.joules is not None}
    return COUNTER if COUNTER in methods else POWER if POWER in methods else NONE


def _note(turns: list[_Turn], state: MeterState) -> str:
    if not state.meter.available:
        return state.meter.reason or "NVML is not available"
    if any(t.method == POWER for t in turns):
        return f"{sum(t.method == POWER for t in turns)} round(s) from NVML's power readings: the counter did not move"
    if any(t.joules is None for t in turns):
        return "no energy in some rounds: neither the counter nor the power could be read over the window"
    return ""


@dataclass
class _Chunk:
    slot: int
    start: object
    end: object
    done_at: float = 0.0


def _turn(e: Entry, state: MeterState, probes, device: torch.device, rule: Rule) -> _Turn:
    """One entry's turn after its idle gap: burst, ramp, steady window (the module's docstring)."""
    import torch

    fn, meter = e.launch, state.meter
    per_chunk = _per_chunk(e.estimate_ms)
    probes.clear()
    series: list[Reading] = []
    edges: list[tuple[float, int]] = []        # (host seconds, counter) at each change seen
    counter = [meter.energy_mj() if meter.available else None]
    next_sample = [0.0]

    def poll(watch_counter: bool) -> None:
        now = time.perf_counter()
        if watch_counter and counter[0] is not None:
            value = meter.energy_mj()
            if value is not None and value != counter[0]:
                edges.append((now, value))
                counter[0] = value
        if now >= next_sample[0] and meter.available:
            series.append((now, meter.sm_mhz(), meter.power_w()))
            next_sample[0] = now + SAMPLE_S

    begin = time.perf_counter()
    b_start = [torch.cuda.Event(enable_timing=True) for _ in range(BURST_RUNS)]
    b_end = [torch.cuda.Event(enable_timing=True) for _ in range(BURST_RUNS)]
    for i in range(BURST_RUNS):
        probes.probe(i, 0)
        b_start[i].record()
        fn()
        b_end[i].record()
        probes.probe(i, 1)
    queued: deque[_Chunk] = deque()
    done: list[_Chunk] = []
    slot = BURST_RUNS
    phase, settle, found = "ramp", 0.0, None
    opened: tuple[float, int | None] | None = None
    closed: tuple[float, int | None] | None = None
    deadline = 0.0
    while True:
        while phase != "drain" and len(queued) < DEPTH and slot < probes.data.shape[0]:
            chunk = _Chunk(slot, torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
            probes.probe(slot, 0)
            chunk.start.record()
            for _ in range(per_chunk):
                fn()
            chunk.end.record()
            probes.probe(slot, 1)
            queued.append(chunk)
            slot += 1
        if not queued:
            break
        watching = phase in ("open", "close")
        while not queued[0].end.query():
            poll(watching)
        poll(watching)
        head = queued.popleft()
        head.done_at = time.perf_counter()
        done.append(head)
        now = head.done_at
        if phase == "ramp":
            found = steady_at(series, begin, rule)
            # without NVML there is nothing to test the rule on: the ramp is the rule's shortest span, said as such
            blind = not meter.available and now - begin >= rule.windows * rule.window_s
            if found is not None or blind or now - begin >= rule.max_s or slot >= probes.data.shape[0] - DEPTH:
                phase, settle, deadline = "open", now - begin, now + EDGE_WAIT_S
                edges.clear()
                counter[0] = meter.energy_mj() if meter.available else None
        elif phase == "open" and (edges or now >= deadline):
            opened = edges[-1] if edges else (now, meter.energy_mj() if meter.available else None)
            phase = "measure"
        elif phase == "measure" and opened is not None and now - opened[0] >= rule.measure_s:
            phase, deadline = "close", now + EDGE_WAIT_S
            edges.clear()
        elif phase == "close" and (edges or now >= deadline or slot >= probes.data.shape[0] - 1):
            closed = edges[-1] if edges else (now, meter.energy_mj() if meter.available else None)
            phase = "drain"
    torch.cuda.synchronize(device)
    clocks = probes.clocks_mhz(slot)
    burst_ms = [s.elapsed_time(t) for s, t in zip(b_start, b_end, strict=True)]
    t0 = opened[0] if opened else begin
    t1 = closed[0] if closed else time.perf_counter()
    inside = [c for c in done if t0 < c.done_at <= t1] or done[-1:]
    steady_ms = [c.start.elapsed_time(c.end) / per_chunk for c in inside]
    seconds = t1 - t0
    limit = state.card.enforced_w or state.card.limit_w
    mj = delta_mj(opened[1], closed[1], seconds, limit, state.resolution.step_mj or 0.0) \
        if opened and closed else None
    power_mj = integrate_mj([(t, w) for t, _, w in series], t0, t1)
    method = COUNTER if mj is not None else POWER if power_mj is not None else NONE
    used = mj if mj is not None else power_mj
    watts = used / 1e3 / seconds if used is not None and seconds > 0 else None
    launches_s = sum(steady_ms) * per_chunk / 1e3
    in_window = [s for s in series if t0 <= s[0] <= t1 and s[1] is not None]
    steady = SteadyRound(settle_s=settle, steady=None if not series else found is not None,
                         windows=[list(w) for w in (found[1] if found else last_windows(series, begin, rule))],
                         seconds=seconds, clock_mhz=sum(s[1] for s in in_window) / len(in_window)  # type: ignore[misc]
                         if in_window else None, power_w=watts)
    return _Turn(burst_ms, clocks[:BURST_RUNS], steady_ms, [clocks[c.slot] for c in inside], steady, used, power_mj,
                 method, watts * launches_s if watts is not None else None)
