"""How the report says why one implementation runs faster than another.

A cause (harness/analysis/causes.py): one phrase per quantity, both sides named, said from the side with more of a
counter whichever side that is; "because" only for those that point with the speed. A knob study's findings
(harness/analysis/knobs.py), in the report's findings and the terminal: the gap to Triton's tutorial GEMM measured
again, and the launch setting that closes the most of it."""

from __future__ import annotations

from harness.analysis.causes import Cause, against, stated
from harness.analysis.knobs import ALL, PRODUCT, Effect, KnobFinding, Study
from harness.analysis.measured import Measured
from harness.analysis.verdicts import Call
from harness.baselines import TRITON_BASELINE_LABELS
from harness.records.lines import Result
from harness.report import anchors, fmt
from harness.report.doc import Cell, Inline, Link, Mono, Table
from harness.report.wording import verdict_speed as speed

# What each counter where fewer is better counts, as a sentence names it.
COUNTED = {
    "smem_bank_conflicts": "shared-memory bank conflicts",
    "dram_bytes": "bytes of DRAM traffic",
    "local_instructions": "executed local-memory (spill) instructions",
    "stall_long_scoreboard": "cycles a warp waits on global memory per issued instruction",
    "stall_short_scoreboard": "cycles a warp waits on shared memory per issued instruction",
    "stall_mio_throttle": "cycles a warp waits on a full shared-memory queue per issued instruction",
    "stall_barrier": "cycles a warp waits at barriers per issued instruction",
    "global_requests_per_kfma": "global read instructions per thousand FMAs",
}
_PIPES = {"tensor_pipe_pct": "tensor", "fma_pipe_pct": "FMA"}
# What a sentence says of a decided difference where no measured quantity discriminates (causes.stated is empty)
NO_CAUSE = "no cause was measured"
_MEMORY = {"global": "global memory", "shared": "shared memory"}


def _count(v: float) -> str:
    return f"{v:.0f}" if v < 1e5 else f"{v:.1e}".replace("e+0", "e").replace("e+", "e")


def phrase(c: Cause, names: tuple[str, str]) -> str:
    """The cause in a sentence, `names` being (the faster side's, the slower side's)."""
    fn, sn = names
    f, s, d = c.faster, c.slower, c.detail
    better = c.points_with_speed
    if c.quantity in COUNTED:
        assert isinstance(f, float | int) and isinstance(s, float | int)
        # Said from the side with more of it, whichever side that is.
        (wv, wn), (bv, bn) = ((s, sn), (f, fn)) if better else ((f, fn), (s, sn))
        if "model_bytes" in d:
            return (f"{wn} moves {wv / d['model_bytes']:.2f}x the fewest DRAM bytes the problem needs against "
                    f"{bv / d['model_bytes']:.2f}x for {bn}")
        return f"{wn} has {_count(wv)} {COUNTED[c.quantity]} against {_count(bv)} in {bn}"
    if c.quantity in _PIPES:
        return f"the {_PIPES[c.quantity]} pipe is busy {f:.0f}% of the time in {fn} against {s:.0f}% in {sn}"
    if c.quantity == "achieved_occupancy_pct":
        return (f"{fn} keeps {f:.0f}% of its warp slots busy against {s:.0f}% in {sn}"
                + (", which waits on latency (neither its work pipe nor DRAM is 60% busy)"
                   if d.get("latency_bound") else ""))
    if c.quantity == "tensor_core_instructions":
        wn, yn = (fn, sn) if f == "HGMMA" else (sn, fn)
        return (f"{wn} issues warpgroup MMA (wgmma: {d['HGMMA']} HGMMA in its SASS) and {yn} "
                f"warp-level mma.sync ({d['HMMA']} HMMA)")
    if c.quantity == "spills":
        wn, other = (sn, fn) if better else (fn, sn)
        least = min(int(f), int(s))
        return (f"{wn} spills {max(int(f), int(s))} B a thread to local memory ({d['local']} LDL/STL of its "
                f"{d['total']} SASS instructions) where {other} spills {least or 'nothing'}"
                + ("" if least == 0 else " B"))
    if c.quantity.endswith("_load_width"):
        what = _MEMORY[c.quantity.removesuffix("_load_width")]
        if better:
            return (f"{fn} reads {what} with 64- or 128-bit loads ({d['wide']} in its SASS) while every read of "
                    f"{sn} is 32-bit")
        return f"{sn} reads {what} with 64- or 128-bit loads while every read of {fn} is 32-bit"
    if c.quantity == "theoretical_occupancy":
        return (f"theoretical occupancy is {fmt.pct_round(float(f))} for {fn} against {fmt.pct_round(float(s))} for "
                f"{sn} (the lower one limited by {d['limiter']})")
    return f"the one setting they differ in is {c.quantity}: {f} for {fn} against {s} for {sn}"


def side_name(r: Result) -> str:
    """How one side of a pair is named in a cause: 'CUDA' or the Triton label ('Triton tuned')."""
    return "CUDA" if r.impl_id.is_cuda else r.label


def pair_names(fast: Result, slow: Result, names: tuple[str, str] | None = None) -> tuple[str, str]:
    if names is not None:
        return names
    a, b = side_name(fast), side_name(slow)
    # one model on both sides: the kernels tell them apart
    return (fast.kernel or a, slow.kernel or b) if a == b else (a, b)


def said(found: list[Cause] | tuple[Cause, ...], names: tuple[str, str]) -> str | None:
    """Causes joined into one clause; None where there is none."""
    return fmt.joined([phrase(c, names) for c in found]) if found else None


def because(m: Measured, fast: Result, slow: Result, names: tuple[str, str] | None = None,
            limit: int = 2) -> str | None:
    """The top measured causes that point with the speed, with their numbers; None where none does."""
    return said(stated(m, fast, slow, limit), pair_names(fast, slow, names))


def despite(m: Measured, fast: Result, slow: Result, names: tuple[str, str] | None = None) -> str | None:
    """The largest measured difference that favours the slower side, as context."""
    c = against(m, fast, slow)
    return phrase(c, pair_names(fast, slow, names)) if c is not None else None


KNOB_TITLE = "Why Triton rows trail Triton's tutorial GEMM"   # the report's subsection and docs/results.md's section
SETTING_NAMES = {"num_warps": "warps", "num_stages": "stages", "group_m": "GROUP_M"}


def tile(settings: dict) -> str:
    return "x".join(str(settings.get(k, "-")) for k in ("block_m", "block_n", "block_k"))


def change(e: Effect, own: dict) -> str:
    """What the variant switched, own value to the baseline's: 'tile 128x128x16 → 64x128x32', 'stages 1 → 4'."""
    if e.knob == PRODUCT:
        k_step = e.changed.get("block_k")
        widened = f", K step {k_step[0] or 'none'} → {k_step[1]}: the smallest tl.dot takes" if k_step else ""
        return f"products through tl.dot on the same tile ({tile(e.settings)}{widened})"
    if e.knob == "tile":
        return f"tile {tile(own)} → {tile(e.settings)}"
    return ", ".join(f"{SETTING_NAMES.get(k, k)} {a} → {b}" for k, (a, b) in e.changed.items())


def effect(e: Effect, own: dict) -> str:
    """'stages 1 → 4: 1.25x [1.23–1.27] faster'; a tie, undecided, slower; or why it was not timed."""
    if e.verdict is None:
        return f"{change(e, own)}: not timed ({fmt.first_line(e.failed, 80)})"
    return f"{change(e, own)}: {speed(e.verdict)} {fmt.CALL_WORDS[e.verdict.call.value]}"


def knob_sentence(f: KnobFinding, detail: bool = True) -> str:
    """One finding: the gap measured again, the knob that closes the most of it (or that none does alone); with
    detail, the other knobs' effects and every knob at once too (the report keeps those in a folded table)."""
    label = TRITON_BASELINE_LABELS[f.baseline]
    gap = f"{speed(f.gap)} the speed of {label} ({fmt.CALL_WORDS[f.gap.call.value]})"
    others = [effect(e, f.own) for e in f.effects if e is not f.explains and e.knob != ALL]
    closed = f", {f.closed:.0%} of the gap" if f.closed is not None else ""
    text = (f"runs at {gap}; switched alone, this closes the most of it: {effect(f.explains, f.own)}{closed}"
            if f.explains is not None else f"runs at {gap}; no single knob is faster when switched alone")
    if others and detail:
        text += f". Alone: {'; '.join(others)}"
    if f.residual is not None and detail:
        rest = f.residual
        text += f". Every differing knob switched: {speed(rest)} ({fmt.CALL_WORDS[rest.call.value]})"
        if rest.call is Call.SLOW:
            text += ", so the rest is in the code, not the settings"
    return text + "."


def knob_bullets(study: Study, detail: bool = True) -> list[list[Inline]]:
    """One item per SLOW Triton form, its kernel linked to the kernel's row."""
    return [[Link(f.kernel, "#" + anchors.kernel(f.kernel), code=True), " ", Mono(f"[{f.impl}]"), f" ({f.precision}) ",
             knob_sentence(f, detail)] for f in study.findings]


def knob_table(study: Study) -> Table:
    """Every variant of every row: what it switched, its speed over the row at its own settings, and the call."""
    table = Table([("row", False), ("switched to the tutorial's", False), ("speed vs own settings [95%]", True),
                   ("call", False)], cls="knobs")
    for f in study.findings:
        rows = [(Cell("every differing knob" if e.knob == ALL else change(e, f.own)), e.verdict, e.failed)
                for e in f.effects]
        if f.residual is not None:   # where every knob is the tutorial's, what is left against the tutorial itself
            rows.append((Cell(f"every differing knob, against {TRITON_BASELINE_LABELS[f.baseline]}", cls="why"),
                         f.residual, ""))
        for what, v, failed in rows:
            table.add([Cell(f"{f.kernel} [{f.impl}]", code=True), what,
                       *([Cell(speed(v), num=True), Cell(fmt.call(v.call))] if v is not None else
                         [Cell(f"not timed: {fmt.first_line(failed, 60)}", cls="muted"), Cell("—")])])
    table.notes.append("speed: the row's time at its own settings over its time with the switch (the last row of "
                       "each: the tutorial's time over the row's with every knob switched), with the 95% interval of "
                       "the interleaved rounds; the call as everywhere in this report.")
    return table


def knob_intro(study: Study) -> list[Inline]:
    return [f"{study.problem.label}: each form's fastest SLOW row, timed again beside the tutorial with one launch "
            "setting at a time switched to the tutorial autotuner's choice (", Mono(f"rosetta knobs {study.source}"),
            f", {study.device})."]
