"""What a worker does in the sustained regime: set up and check each implementation exactly as a run of bursts does
(harness/run/work.py), then time the problem's checked implementations back to back to a steady state
(harness/measure/sustained.py) instead of in interleaved bursts. The worker (run/worker.py) calls these by name."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from harness.device.roofline import Peaks
from harness.problems import Problem
from harness.records.lines import Result
from harness.run.runner import Pending
from harness.run.work import WorkerState, measure_one, setup

__all__ = ["measure_one", "setup", "time_pending"]


def time_pending(state: WorkerState, problem: Problem, pending: list[Pending], peaks: Peaks | None,
                 on_burst: Callable[[int, int], None]) -> list[Result]:
    """Each checked implementation to its steady state, in rounds (the A/A control where the run asked for it): its
    timing is that of its steady windows, its regime record holds its bursts and how each round got there."""
    from harness.measure.regime import Regime
    from harness.measure.rounds import Entry
    from harness.measure.sustained import sustain
    from harness.measure.timing import Timing
    from harness.run.runner import figures

    ctx, opts = state.context(problem), state.opts

    def turn(key: Hashable, r: int) -> None:
        on_burst(key if isinstance(key, int) else key[0], r)  # type: ignore[index]

    got = sustain([Entry(i, p.launch, p.estimate_ms) for i, p in enumerate(pending)], rounds=opts.rounds,
                  seed=problem.seed(opts.seed), twins=opts.aa, device=ctx.device, on_turn=turn)
    out = []
    for i, p in enumerate(pending):
        mine, twin = got[i], got.get((i, "aa"))
        rec = p.result
        rec.timing = Timing.of(mine.steady, twin.steady if twin else None)
        rec.figures = figures(p.impl, problem, rec.timing.median_ms, peaks)
        rec.regime = Regime("sustained", mine.burst, mine.rounds, twin.burst if twin else None,
                            twin.rounds if twin else None)
        out.append(rec)
    return out
