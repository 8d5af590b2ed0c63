"""What a knob study (harness/run/knob_study.py) found: for each SLOW Triton form, its gap to Triton's tutorial GEMM
measured again, each knob's effect as a verdict, and the knob that explains the gap.

The knob that explains a gap is the single-knob variant (or, for a form without tl.dot, the product variant) that is
FAST against the row at its own settings, and the fastest of those. How much of the gap it closes is
(1 - variant/own) / (1 - baseline/own) in time: 100% means the one knob brings the row to the baseline's time.
Where no single knob is FAST, none is named; the ``all`` variant then says whether the settings together do, and
what is left past it belongs to the code. Verdicts are made as everywhere else (harness/analysis/verdicts.py).

How a study is said (the report's findings, the README, `rosetta knobs`): the gap measured again, the launch setting
that closes the most of it; its table's rows are `variant_rows` (columns: harness/analysis/columns.py KNOBS).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from harness.analysis import anchors, fmt
from harness.analysis.fmt import Inline, Link, Mono
from harness.analysis.verdicts import Call, Verdict, compare, margin_for
from harness.analysis.wording import verdict_speed as speed
from harness.baselines import TRITON_BASELINE_LABELS, TRITON_BASELINES
from harness.measure.timing import Samples
from harness.problems import Problem

# knob -> the launch settings it sets (those a form's launch does not take are not its knobs)
KNOBS: dict[str, tuple[str, ...]] = {"tile": ("block_m", "block_n", "block_k"), "warps": ("num_warps",),
                                     "stages": ("num_stages",), "order": ("group_m",)}
OWN, ALL, PRODUCT = "own", "all", "product"   # the row as it ran; every differing knob at once; tl.dot instead
SINGLE = (*KNOBS, PRODUCT)   # the variants that switch one thing


@dataclass(frozen=True)
class Effect:
    """One variant against the row at its own settings: ratio < 1 is faster."""

    knob: str
    changed: dict[str, tuple]            # setting -> (own value, the baseline's)
    settings: dict                       # every launch setting of the variant
    verdict: Verdict | None              # None: the variant was not timed (it failed; see `failed`)
    failed: str = ""


@dataclass(frozen=True)
class KnobFinding:
    kernel: str
    impl: str
    baseline: str
    precision: str
    problem: Problem
    own: dict                            # the row's own launch settings
    gap: Verdict                         # the row at its own settings against the baseline, in this study's rounds
    effects: tuple[Effect, ...]
    explains: Effect | None              # the knob that explains the gap; None: no single one is FAST
    closed: float | None                 # the share of the gap it closes
    # every differing knob at the baseline's value, against the baseline: SLOW means what remains is the code
    # (None: fewer than two knobs differ, or that variant failed)
    residual: Verdict | None


@dataclass(frozen=True)
class Study:
    source: str
    device: str
    problem: Problem
    findings: tuple[KnobFinding, ...]


def study_path(results_path: Path) -> Path:
    """Where the knob study of a results file is written: beside it, as its analysis is."""
    return results_path.with_name(results_path.name.removesuffix(".jsonl") + ".knobs.json")


def read_beside(results_path: Path) -> Study | None:
    """The knob study of a results file, None where none was made."""
    path = study_path(results_path)
    return study_of(json.loads(path.read_text())) if path.is_file() else None


def study_of(data: dict) -> Study:
    if data.get("record") != "knob-study":
        raise ValueError("not a knob study")
    problem = Problem.from_json(data["problem"])
    baselines = {name: Samples.from_json(b["samples"]) for name, b in data["baselines"].items() if "samples" in b}
    found = []
    for row in data["subjects"]:
        base = baselines.get(row["baseline"])
        precision = TRITON_BASELINES[row["baseline"]]
        margin = margin_for(precision)
        timed = {v["knob"]: Samples.from_json(v["samples"]) for v in row["variants"] if "samples" in v}
        own = timed.get(OWN)
        if base is None or own is None:
            continue
        effects = tuple(
            Effect(v["knob"], {k: tuple(x) for k, x in v.get("changed", {}).items()}, dict(v.get("settings", {})),
                   compare(timed[v["knob"]], own, margin) if v["knob"] in timed else None, v.get("failed", ""))
            for v in row["variants"] if v["knob"] != OWN)
        gap = compare(own, base, margin)
        residual = compare(timed[ALL], base, margin) if ALL in timed else None
        fast = [e for e in effects if e.knob in SINGLE and e.verdict and e.verdict.call is Call.FAST]
        explains = min(fast, key=lambda e: e.verdict.time.ratio) if fast else None
        closed = None
        if explains is not None and gap.time.ratio > 1:
            closed = (1 - explains.verdict.time.ratio) / (1 - 1 / gap.time.ratio)
        own_settings = next(v.get("settings", {}) for v in row["variants"] if v["knob"] == OWN)
        found.append(KnobFinding(row["kernel"], row["impl"], row["baseline"], precision, problem, own_settings, gap,
                                 effects, explains, closed, residual))
    return Study(str(data["source"]), str(data.get("device", "")), problem, tuple(found))


# ---------------------------------------------------------------------------------------------- how it is said
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
