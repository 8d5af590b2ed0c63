"""Interleaved rounds: every implementation of a problem timed in rounds, in a shuffled order per round, a short
burst each, every run kept as a sample with the mean SM clock of its window (harness/measure/sm_clock.py), so that a
sample is a time and a cycle count. The runs are timed as harness/measure/timing.py times them (CUDA events, L2 flushed
before each run); harness/analysis/verdicts.py makes the calls from the samples.

Energy (harness/measure/energy.py): NVML's total-energy counter is read with the GPU idle just before a burst's first
timed run and just after its last, so that each round's reading covers that burst's timed runs and only what separates
them (the L2 flushes and clock probes, whose share of the window's device time is taken out). Whether a burst is long
enough for the counter is decided against the counter's period as measured in this process, before the rounds: an entry
whose planned burst is shorter than RESOLVED_PERIODS of it is not read at all (the reads would add a host
synchronisation before each burst and resolve nothing), and its Samples.energy says so, with both durations. An entry's
bursts are bounded by ENTRY_BUDGET_MS over all rounds, so a counter that moves every 100 ms resolves none: energy per
launch then comes from the longer windows of the sustained regime (harness/measure/sustained.py).
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.measure.timing import L2_FLUSH_BYTES, Samples

if TYPE_CHECKING:  # torch loads where something is timed, not where a record is read
    import torch

# Interleaved rounds (`interleave`): how many, and the bounds of one burst's runs. What varies between rounds is the
# SM clock from one burst to the next: on an H100 a SIMT fp32 row's bursts ran anywhere from 1960 to 2040 MHz and its
# times followed (3.18 to 3.27 ms), while the runs of one burst agree within a fraction of a percent. So the rounds,
# not the runs in a burst, set the interval: with 10 rounds of 3 runs, 7 of 94 SIMT rows at 4096^3 had a time
# interval wider than +-1% (at most 1.32%) while in cycles none passed 0.75% (results/...20261125T085429Z). 20 rounds
# of one run or more cost the same device time and narrow the interval by about sqrt(2).
ROUNDS = 20
# Device time one implementation is measured for over its rounds, unless a run asks otherwise (`rosetta run --rep-ms`).
REP_MS = 100.0
# The fewest paired rounds whose interval can cover the median at 95%: the range of n rounds covers it with
# 1 - 2^(1-n), 96.9% at 6 and 93.8% at 5 (harness/analysis/verdicts.py makes no call under 95%).
MIN_ROUNDS = 6
BURST_MIN_RUNS = 1
# A run of tens of microseconds (sgemv 4096x4096) has a long tail (0.034 to 0.14 ms in one burst, measured on an
# H100), so a burst's median needs many runs: with 40 a burst, 8 of 11 A/A pairs of that problem were SAME; with
# 120, 11 of 11 (half-width at most 0.8%). Reading the flush buffer instead of writing it did not help.
BURST_MAX_RUNS = 120
# Device time one entry may take over all its rounds. A seed kernel of 0.7 s a run would otherwise cost 28 s (a
# run and its untimed one in each of 20 rounds): past this, a burst loses its untimed run, then runs, then the entry
# takes part in the first rounds only (never fewer than MIN_ROUNDS), and its comparisons pair the rounds both sides
# took part in.
ENTRY_BUDGET_MS = 2500.0



@dataclass
class Entry:
    """One implementation to interleave: its key, its bare launch, and a first estimate of one run's time."""

    key: Hashable
    launch: Callable[[], object]
    estimate_ms: float


def estimate_ms(fn: Callable[[], object], device: torch.device, flush_l2: bool = True) -> float:
    """One run's time, to size the bursts: a flushed run after a first call (compile, load, autotune), and the mean
    of three more where one is short enough for its launch to matter."""
    import torch
    flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.int8, device=device) if flush_l2 else None
    fn()
    torch.cuda.synchronize(device)
    estimate = 0.0
    for runs in (1, 3):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(runs):
            if flush is not None:
                flush.zero_()
            fn()
        end.record()
        torch.cuda.synchronize(device)
        estimate = max(start.elapsed_time(end) / runs, 1e-3)
        if estimate > 5.0:
            break
    return estimate


def interleave(entries: Sequence[Entry], *, rounds: int = ROUNDS, rep_ms: float = REP_MS, seed: int = 0,
               twins: bool = False, device: torch.device | None = None, flush_l2: bool = True,
               on_burst: Callable[[Hashable, int], None] | None = None, energy: bool = True
               ) -> dict[Hashable, Samples]:
    """Time every entry in `rounds` rounds, each round in its own shuffled order, one burst per entry per round.

    A burst is one untimed run (the entry's code and data back in place after the others ran), then
    rep_ms / rounds of runs (at least BURST_MIN_RUNS, at most BURST_MAX_RUNS; fewer for a slow entry, which may also
    take part in the first rounds only: burst_plan), each after an L2 flush, bracketed by CUDA events and by two SM
    clock probes. With `twins`, every entry is timed a second time as an entry of its own
    (key (key, "aa")): the A/A control, whose call must be SAME. on_burst(key, round) is called before each burst.
    With `energy`, NVML's energy counter is read around each burst that it can resolve (the module's docstring).
    """
    import torch

    from harness.measure.energy import meter_state
    from harness.measure.energy_record import burst_energy
    from harness.measure.sm_clock import ProbeBuffer, max_sm_clock_mhz

    device = device or torch.device("cuda", torch.cuda.current_device())
    flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.int8, device=device) if flush_l2 else None
    todo = [*entries, *(Entry((e.key, "aa"), e.launch, e.estimate_ms) for e in entries if twins)]
    plans = {e.key: burst_plan(e.estimate_ms, rounds, rep_ms) for e in todo}
    probes = ProbeBuffer.make(max((p.runs for p in plans.values()), default=1), device)
    batch = uuid.uuid4().hex[:12]
    max_mhz = max_sm_clock_mhz(device)
    meter = meter_state(device.index if device.index is not None else torch.cuda.current_device()) if energy else None
    # the planned burst's device time (runs, without the flushes between them): read only where the counter resolves it
    burst_s = {e.key: plans[e.key].runs * e.estimate_ms / 1e3 for e in todo}
    reads = {key: meter is not None and meter.meter.available and meter.resolution.resolves(s)
             for key, s in burst_s.items()}
    got: dict[Hashable, dict] = {e.key: {"ms": [], "mhz": [], "per_round": [], "order": [], "energy": [],
                                         "window_ms": []} for e in todo}
    rng = random.Random(seed)
    for r in range(rounds):
        order = [e for e in todo if r < plans[e.key].rounds]
        rng.shuffle(order)
        for position, e in enumerate(order):
            if on_burst is not None:
                on_burst(e.key, r)
            plan = plans[e.key]
            ms, mhz, reading, window_ms = _burst(e.launch, plan.runs, plan.untimed, flush, probes, device,
                                                 meter.meter if reads[e.key] else None)  # type: ignore[union-attr]
            g = got[e.key]
            g["ms"] += ms
            g["mhz"] += mhz
            g["per_round"].append(len(ms))
            g["order"].append(position)
            g["energy"].append(reading)
            g["window_ms"].append(window_ms)
    out = {}
    for key, g in got.items():
        runs_ms = [sum(g["ms"][i] for i in idx) for idx in _rounds_of(g["per_round"])]
        out[key] = Samples(g["ms"], g["mhz"], g["per_round"], g["order"], batch, max_mhz,
                           burst_energy(g["energy"], runs_ms, g["window_ms"], meter, burst_s[key]))
    return out


def _rounds_of(per_round: list[int]) -> list[range]:
    starts = [sum(per_round[:r]) for r in range(len(per_round))]
    return [range(s, s + n) for s, n in zip(starts, per_round, strict=True)]


@dataclass(frozen=True)
class BurstPlan:
    runs: int        # timed runs per burst
    untimed: bool    # one untimed run first
    rounds: int      # the rounds this entry takes part in (the first ones)


def burst_plan(estimate: float, rounds: int, rep_ms: float) -> BurstPlan:
    """rep_ms / rounds of runs per burst, bounded, and the whole entry within ENTRY_BUDGET_MS (see there)."""
    runs = int(min(max(rep_ms / rounds / estimate, BURST_MIN_RUNS), BURST_MAX_RUNS))
    if rounds * (runs + 1) * estimate <= ENTRY_BUDGET_MS:
        return BurstPlan(runs, True, rounds)
    runs = max(1, min(runs, int(ENTRY_BUDGET_MS / (rounds * estimate))))
    taken = min(rounds, max(MIN_ROUNDS, int(ENTRY_BUDGET_MS / (runs * estimate))))
    return BurstPlan(runs, False, taken)


def _burst(fn: Callable[[], object], runs: int, untimed: bool, flush: torch.Tensor | None, probes,
           device: torch.device, meter=None
           ) -> tuple[list[float], list[float | None], tuple[int | None, int | None, float] | None, float | None]:
    """The burst's run times and clocks; with a meter, its energy counter before and after the timed runs (the GPU
    idle at both readings) and the device time between them (events), so the runs' share can be taken."""
    import torch
    if untimed:
        fn()
    probes.clear()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    window = edges = None
    if meter is not None:
        from harness.measure.energy import Window

        if flush is not None:
            flush.zero_()  # the first run's flush, before the window opens
        edges = (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
        torch.cuda.synchronize(device)
        window = Window(meter).open()
        edges[0].record()
    for i in range(runs):
        if flush is not None and (i > 0 or window is None):
            flush.zero_()
        probes.probe(i, 0)
        starts[i].record()
        fn()
        ends[i].record()
        probes.probe(i, 1)
    if edges is not None:
        edges[1].record()
    torch.cuda.synchronize(device)
    reading = window.close() if window is not None else None
    window_ms = edges[0].elapsed_time(edges[1]) if edges is not None else None
    return ([s.elapsed_time(e) for s, e in zip(starts, ends, strict=True)], probes.clocks_mhz(runs), reading,
            window_ms)
