"""How the report says why one implementation runs faster than another: the causes of a pair (harness/analysis/
causes.py) in the phrases of harness/analysis/cause_words.py, "because" only for those that point with the speed. A
knob study's findings (harness/analysis/knobs.py), in the report's findings and the terminal: the gap to Triton's
tutorial GEMM measured again, and the launch setting that closes the most of it."""

from __future__ import annotations

from harness.analysis import anchors, fmt
from harness.analysis.cause_words import phrase
from harness.analysis.causes import Cause, against, stated
from harness.analysis.knobs import ALL, PRODUCT, Effect, KnobFinding, Study
from harness.analysis.measured import Measured
from harness.analysis.verdicts import LEVEL, Call
from harness.analysis.wording import INTERVAL
from harness.analysis.wording import verdict_speed as speed
from harness.baselines import TRITON_BASELINE_LABELS
from harness.records.lines import Result
from harness.report.doc import Cell, Inline, Link, Mono, Table


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
    table = Table([("row", False), ("switched to the tutorial's", False),
                   (f"speed vs own settings [{LEVEL:.0%}]", True), ("call", False)], cls="knobs")
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
                       f"each: the tutorial's time over the row's with every knob switched), with the {INTERVAL} of "
                       "the interleaved rounds; the call as everywhere in this report.")
    return table


def knob_intro(study: Study) -> list[Inline]:
    return [f"{study.problem.label}: each form's fastest SLOW row, timed again beside the tutorial with one launch "
            "setting at a time switched to the tutorial autotuner's choice (", Mono(f"rosetta knobs {study.source}"),
            f", {study.device})."]
