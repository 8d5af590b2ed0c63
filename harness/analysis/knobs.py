"""What a knob study (harness/run/knob_study.py) found: for each SLOW Triton form, its gap to Triton's tutorial GEMM
measured again, each knob's effect as a verdict, and the knob that explains the gap.

The knob that explains a gap is the single-knob variant (or, for a form without tl.dot, the product variant) that is
FAST against the row at its own settings, and the fastest of those. How much of the gap it closes is
(1 - variant/own) / (1 - baseline/own) in time: 100% means the one knob brings the row to the baseline's time.
Where no single knob is FAST, none is named; the ``all`` variant then says whether the settings together do, and
what is left past it belongs to the code. Verdicts are made as everywhere else (harness/analysis/verdicts.py).

How a study is said (the report's findings, the README, `rosetta knobs`): harness/report/knobs.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from harness.analysis.verdicts import Call, Verdict, compare, margin_for
from harness.baselines import TRITON_BASELINES
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
