"""How a knob study (harness/analysis/knobs.py) is said: the gap measured again, the launch setting that closes the
most of it, in the report's findings, the README and `rosetta knobs`; its table's rows (`variant_rows`, columns:
harness/report/columns.py KNOBS)."""

from __future__ import annotations

from dataclasses import dataclass

from harness.analysis.knobs import ALL, PRODUCT, Effect, KnobFinding, Study
from harness.analysis.verdicts import LEVEL, Call, Verdict
from harness.baselines import TRITON_BASELINE_LABELS
from harness.report import anchors, fmt, wording
from harness.report.fmt import Inline, Link, Mono
from harness.report.metrics import Metric
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


def knob_intro(study: Study) -> list[Inline]:
    return [f"{study.problem.label}: each form's fastest SLOW row, timed again beside the tutorial with one launch "
            "setting at a time switched to the tutorial autotuner's choice (", Mono(f"rosetta knobs {study.source}"),
            f", {study.device})."]


@dataclass(frozen=True)
class VariantRow:
    """A row of the knob table: one variant of one SLOW row, or (residual) every knob against the tutorial itself."""

    row: str
    switched: str
    verdict: Verdict | None
    failed: str = ""
    residual: bool = False


def variant_rows(study: Study) -> list[VariantRow]:
    out = []
    for f in study.findings:
        row = f"{f.kernel} [{f.impl}]"
        out += [VariantRow(row, "every differing knob" if e.knob == ALL else change(e, f.own), e.verdict, e.failed)
                for e in f.effects]
        if f.residual is not None:   # where every knob is the tutorial's, what is left against the tutorial itself
            out.append(VariantRow(row, f"every differing knob, against {TRITON_BASELINE_LABELS[f.baseline]}",
                                  f.residual, residual=True))
    return out


# ---------------------------------------------------------------------------------------------- the knob study
KNOBS: list[Metric[VariantRow]] = [
    Metric("row", lambda m, v: v.row, num=False, code=True),
    Metric("switched to the tutorial's", lambda m, v: v, lambda v: v.switched, num=False,
           style=lambda v: "why" if v.residual else ""),
    Metric(f"speed vs own settings [{LEVEL:.0%}]", lambda m, v: v.verdict if v.verdict is not None else
           f"not timed: {fmt.first_line(v.failed, 60)}", lambda v: v if isinstance(v, str) else speed(v),
           style=lambda v: "muted" if isinstance(v, str) else "",
           legend="speed: the row's time at its own settings over its time with the switch (the last row of each: "
                  f"the tutorial's time over the row's with every knob switched), with the {wording.INTERVAL} of the "
                  "interleaved rounds; the call as everywhere in this report."),
    Metric("call", lambda m, v: v.verdict, lambda v: fmt.call(v.call), num=False),
]
