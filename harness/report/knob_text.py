"""How a knob study's findings (harness/analysis/knobs.py) are said, in the report's findings and the terminal."""

from __future__ import annotations

from harness.analysis.knobs import ALL, PRODUCT, Effect, KnobFinding, Study
from harness.analysis.verdicts import Call
from harness.baselines import TRITON_BASELINE_LABELS
from harness.report import anchors, fmt
from harness.report.doc import Cell, Inline, Link, Mono, Table
from harness.report.wording import verdict_speed as speed

TITLE = "Why Triton rows trail Triton's tutorial GEMM"   # the report's subsection and docs/results.md's section
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
    word = fmt.CALL_WORDS[e.verdict.call.value]
    return f"{change(e, own)}: {speed(e.verdict)} {word}"


def sentence(f: KnobFinding, detail: bool = True) -> str:
    """One finding: the gap measured again, the knob that closes the most of it (or that none does alone); with
    detail, the other knobs' effects and every knob at once too (the report keeps those in a folded table)."""
    label = TRITON_BASELINE_LABELS[f.baseline]
    gap = f"{speed(f.gap)} the speed of {label} ({fmt.CALL_WORDS[f.gap.call.value]})"
    others = [effect(e, f.own) for e in f.effects if e is not f.explains and e.knob != ALL]
    if f.explains is not None:
        closed = f", {f.closed:.0%} of the gap" if f.closed is not None else ""
        why = f"switched alone, this closes the most of it: {effect(f.explains, f.own)}{closed}"
    else:
        why = "no single knob is faster when switched alone"
    text = f"runs at {gap}; {why}"
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
             sentence(f, detail)] for f in study.findings]


def knob_table(study: Study) -> Table:
    """Every variant of every row: what it switched, its speed over the row at its own settings, and the call."""
    table = Table([("row", False), ("switched to the tutorial's", False), ("speed vs own settings [95%]", True),
                   ("call", False)], cls="knobs")
    for f in study.findings:
        for e in f.effects:
            row = Cell(f"{f.kernel} [{f.impl}]", code=True)
            what = Cell("every differing knob" if e.knob == ALL else change(e, f.own))
            if e.verdict is None:
                table.add([row, what, Cell(f"not timed: {fmt.first_line(e.failed, 60)}", cls="muted"), Cell("—")])
            else:
                table.add([row, what, Cell(speed(e.verdict), num=True), Cell(fmt.call(e.verdict.call))])
        if f.residual is not None:   # where every knob is the tutorial's, what is left against the tutorial itself
            table.add([Cell(f"{f.kernel} [{f.impl}]", code=True),
                       Cell(f"every differing knob, against {TRITON_BASELINE_LABELS[f.baseline]}", cls="why"),
                       Cell(speed(f.residual), num=True), Cell(fmt.call(f.residual.call))])
    table.notes.append("speed: the row's time at its own settings over its time with the switch (the last row of "
                       "each: the tutorial's time over the row's with every knob switched), with the 95% interval of "
                       "the interleaved rounds; the call as everywhere in this report.")
    return table


def knob_intro(study: Study) -> list[Inline]:
    return [f"{study.problem.label}: each form's fastest SLOW row, timed again beside the tutorial with one launch "
            "setting at a time switched to the tutorial autotuner's choice (", Mono(f"rosetta knobs {study.source}"),
            f", {study.device})."]
