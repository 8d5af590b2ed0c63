"""The SIMT ladder one rung at a time: what each rung adds, what it gains or loses against the rung before, and which
measured counter moved most in the direction of that change.

The rungs are the ladder chart's (ladder_rungs.py: every fp32 SIMT sgemm idea timed on the headline problem, the
seeds' and tile-rosetta's, in registry order), numbered as the chart numbers them; an idea with several kernels (the
summit's two tiles) is one rung, represented by its fastest CUDA record. The counter of a step is the one causes.py
ranks first among those pointing with the speed between the two rungs (the faster of the two has the better value),
so a step that loses points names what got worse, and one that gains names what got better.
"""

from __future__ import annotations

from harness.analysis.causes import MIN_GAP, causes, counters, tied
from harness.analysis.measured import Best, Measured
from harness.analysis.verdicts import Call
from harness.catalog import simt as ladder
from harness.registry import Kernel
from harness.report import fmt, verdict_text
from harness.report.counters import COLUMNS
from harness.report.ladder_rungs import ladder_rungs
from harness.report.tables import Cell, Table
from harness.run.records import Result

__all__ = ["ladder_steps_table", "moved_counter", "step_cells"]

_LABEL = {key: (label, write) for label, key, write in COLUMNS}


# The tuners' picks: the tuned row of each tile-rosetta rung and the autotuned ceiling are other designs, never a rung.
_SEARCHES = (ladder.LADDER_TUNED, "gemm_autotuned")


def _triton_records(m: Measured, kernels: list[Kernel], problem, precision: str = "fp32") -> list[Result]:
    """The rung's own Triton counterparts: the ladder's own kernel (gemm_ladder with the rung's settings) on
    tile-rosetta's rungs, the seeds' counterparts on theirs; never a tuner's pick."""
    rows = m.timed_of(kernels, problem, "triton", precision)
    return [r for r in rows if (c := m.counterpart(r)) is not None and c.module not in _SEARCHES]


def moved_counter(m: Measured, now: Result, before: Result, kinds: tuple[str, ...] = ("counter",)) -> str:
    """The measured quantity of `kinds` (a Cause's kind, harness/analysis/causes.py) that moved most between two rungs
    in the direction of the speed change, with both values. Counters are needed on both sides either way: they say
    whether the step is read at all."""
    for r in (now, before):
        if counters(r) is None:
            # counters stored but refused (ncu's kernel time too far from the timed one) are not "none recorded"
            return "counters refused: ncu's time is off the timed one" if tied(r) is False else "no counters recorded"
    assert now.timing is not None and before.timing is not None
    fast, slow = (now, before) if now.timing.median_ms <= before.timing.median_ms else (before, now)
    assert fast.timing is not None and slow.timing is not None
    if slow.timing.median_ms / fast.timing.median_ms < MIN_GAP:
        return f"a tie (under {MIN_GAP - 1:.0%} apart)"
    found = [c for c in causes(m, fast, slow) if c.kind in kinds and c.cause]
    if not found:
        return "nothing measured moved its way by enough to explain it"
    top = found[0]
    label, write = _LABEL.get(top.quantity, (top.quantity.replace("_", " "), lambda v: f"{v:.3g}"))
    v_before, v_now = (top.slower, top.faster) if fast is now else (top.faster, top.slower)
    if isinstance(v_before, str) or isinstance(v_now, str):   # a compiled fact: an instruction's form
        return f"{label}: {v_before} → {v_now}"
    return f"{label}: {write(v_before)} → {write(v_now)}"


def step_cells(m: Measured, best: Best | None, before: Best | None,
               kinds: tuple[str, ...] = ("counter",)) -> list[Cell]:
    if best is None:
        return [Cell("—", num=True, cls="muted"), Cell("", num=True), Cell("", cls="muted")]
    if before is None:
        return [Cell(fmt.pct(best.pct), num=True), Cell("—", num=True, cls="muted"), Cell("", cls="muted")]
    delta = best.pct - before.pct
    c = m.between(best.result, before.result)
    call = c.call if c is not None else None
    # A cause is named only for a step the rounds decided was a gain: a tie has nothing to explain, and a loss or an
    # undecided step is said as such.
    what = (moved_counter(m, best.result, before.result, kinds) if call is Call.FAST
            else f"{verdict_text.relation(c)} ({verdict_text.speed(c)}): no cause stated")
    return [Cell(fmt.pct_ci(*best.interval), num=True, cls="nowrap"),
            Cell(f"{delta:+.1f} · {fmt.call(call)}", num=True,
                 cls="ok" if call is Call.FAST else "bad" if call is Call.SLOW else "muted"),
            Cell(what, cls="" if call is Call.FAST else "muted")]


def _unmeasured() -> list[Cell]:
    """A side of a rung with no record of its own (a rung drawn for the other model, or for a tuner's pick only)."""
    return [Cell("—", num=True, cls="muted"), Cell("", num=True), Cell("no step measured", cls="muted")]


def ladder_steps_table(m: Measured) -> Table:
    """One row per rung of the ladder chart, numbered as the chart: the idea it adds, CUDA's and the rung's own Triton
    counterpart's % of cuBLAS fp32 on the headline problem, the points gained or lost against the rung before, and
    the counter that moved most that way; "no step measured" where a side has no record of its own."""
    table = Table([("rung", False), ("adds", False), ("CUDA % cuBLAS", True), ("points", True),
                   ("CUDA counter that moved", False), ("Triton % cuBLAS", True), ("points", True),
                   ("Triton counter that moved", False)], cls="ladder-steps")
    problem = m.headline("sgemm")
    if problem is None:
        return table
    before: tuple[Best | None, Best | None] = (None, None)
    for rung in ladder_rungs(m):
        cuda, tri = rung.cuda, m.best(_triton_records(m, list(rung.kernels), problem))
        cells = [step_cells(m, best, prior) if best else _unmeasured()
                 for best, prior in zip((cuda, tri), before, strict=True)]
        table.add([Cell(str(rung.number), num=True), Cell(rung.idea.title), *cells[0], *cells[1]])
        before = (cuda or before[0], tri or before[1])
    table.notes += [
        f"On {problem.label}, fp32; % cuBLAS as everywhere on the page. Points: the change in % of cuBLAS from the "
        "rung before (the same model's), with the call of the rung against it from the interleaved rounds: a cause "
        "is named only where the call is FAST. A rung with two tiles is represented by its fastest. Rungs are "
        "numbered as in the chart above; Triton is the rung's own counterpart (the chart's Triton bar is the fastest "
        "of any form, the tuners' picks included).",
        "Counter that moved: of the Nsight Compute counters stored with both rungs' records, the one that favours "
        "the faster of the two and plausibly explains most of the difference (causes.py), before → after; counters "
        "whose kernel time disagrees with the timed one are not used.",
    ]
    return table
