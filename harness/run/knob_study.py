"""The knob study: why a Triton form is slower than Triton's tutorial GEMM, one launch setting at a time.

An experiment on a finished run: it reads the run's analysis (which rows are SLOW) and measures again, so it sits
above both harness/analysis and harness/run.

A results file calls some Triton rows SLOW against the Triton baseline of their class (harness/analysis). For each
Triton form and class with such a row, the study takes the form's fastest SLOW row on one problem (the one closest
to the baseline: what is left there is what the form itself costs) and times, in the same interleaved rounds:

* the baseline, autotuned as in the run; its tuner's choice on this GPU is the target of every knob;
* the row at its own settings (``own``; a tuned form at its tuner's recorded choice, through the form it tunes);
* one variant per knob whose value differs from the target's: ``tile`` (BLOCK_M x BLOCK_N x BLOCK_K), ``warps``,
  ``stages``, ``order`` (GROUP_M, the grouped program order), each switched alone to the baseline's value;
* ``all``: every differing knob switched at once. What then still separates the row from the baseline is its code,
  not its settings (the tutorial folds rows and columns past the edge back onto the matrix instead of masking them);
* for a form that does not multiply through ``tl.dot`` (its compiled code holds no dot: the naive, rank-1 and
  unrolled forms), ``product``: the same tile and warps through ``tl.dot`` (kernels_triton.gemm_tile) instead.

Every variant's output is checked against float64 first, and a wrong or failing one is recorded, not timed. The
verdicts and which knob explains a gap are made from the samples in harness/analysis/knobs.py; this module only
plans and measures. The study is written as ``<results>.knobs.json`` beside its results file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness.analysis.knobs import ALL, KNOBS, OWN, PRODUCT, study_path
from harness.analysis.record import Analysis
from harness.analysis.relations import Relation
from harness.analysis.verdicts import Call
from harness.problems import Problem
from harness.records.lines import Result

# The study's default rounds: the effects it looks for are 2% to 500%, and its verdicts pair variants timed in the
# same rounds; the committed studies were made with 10 (`rosetta knobs --rounds` to change).
STUDY_ROUNDS = 10
DOT_FORM = "gemm_tile"  # the plain tile through tl.dot: what a form without a dot is set beside
DOT_K_STEP = 16         # the smallest K step tl.dot takes in fp32: given to a form with none (naive) or a shorter one
# A sanity check, not the suite's numerics: a variant whose normwise error against float64 passes this is computing
# the product; one that fails it is recorded and not timed. The bound is loose (K * the format's unit) on purpose.
UNIT = {"ieee": 2.0 ** -24, "tf32x3": 2.0 ** -24, "tf32": 2.0 ** -11}


@dataclass(frozen=True)
class Subject:
    """One SLOW Triton row to explain."""

    kernel: str
    impl: str                  # "triton:<form>"
    baseline: str              # its Triton baseline's name
    problem: Problem
    ratio: float               # its time / the baseline's, as the results file's verdict has it
    form: str                  # the kernels_triton module that launches it at one configuration
    settings: dict             # the settings it ran with
    has_dot: bool              # its compiled code multiplies through a dot

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "impl": self.impl, "baseline": self.baseline, "problem": self.problem.to_json(),
                "ratio": self.ratio, "form": self.form, "settings": self.settings, "has_dot": self.has_dot}


@dataclass(frozen=True)
class Variant:
    knob: str                  # OWN, a key of KNOBS, ALL or PRODUCT
    form: str
    settings: dict
    changed: dict = field(default_factory=dict)   # setting -> (own value, new value)

    def to_json(self) -> dict:
        return {"knob": self.knob, "form": self.form, "settings": self.settings,
                "changed": {k: list(v) for k, v in self.changed.items()}}


def subjects(results: list[Result], analysis: Analysis, problem: Problem,
             form_of: Callable[[str, str, dict], tuple[str, dict]]) -> list[Subject]:
    """The fastest SLOW row of each Triton form and class on `problem`. form_of(kernel id, impl, recorded config)
    gives the form that launches it and its settings (launch_form on a machine with Triton)."""
    by_key = {r.key: r for r in results}
    best: dict[tuple[str, str], tuple[float, Result, str]] = {}
    for c in analysis.where(Relation.TRITON_BASELINE):
        if c.problem != problem or c.call is not Call.SLOW or c.subject[0] is None:
            continue
        row = by_key.get(c.subject_key)
        if row is None or row.resources is None:
            continue
        group = (row.impl, row.precision)
        if group not in best or c.ratio < best[group][0]:
            best[group] = (c.ratio, row, c.reference[1])
    out = []
    for ratio, row, baseline in sorted(best.values(), key=lambda b: (b[1].precision, b[1].impl)):
        form, settings = form_of(str(row.kernel), row.impl, row.resources.config or {})
        facts = row.resources.evidence or {}
        # a tt.dot on the FMA path, or lowered to the tensor cores (a warpgroup dot, an mma layout)
        dots = facts.get("dot", 0) + facts.get("warp_group_dot", 0) + facts.get("mma_version", 0)
        out.append(Subject(str(row.kernel), row.impl, baseline, problem, ratio, form, settings, dots > 0))
    return out


def variants(subject: Subject, target: dict, takes: dict[str, object]) -> list[Variant]:
    """The row at its own settings, then each knob whose value differs from the target's switched alone, then all
    of those at once (only where more than one differs). takes: the settings the subject's form takes, with their
    defaults (None: none), so that a setting the row leaves at its default is compared too. A form without a dot gets
    the PRODUCT variant instead of knobs."""
    own = {**{k: v for k, v in takes.items() if v is not None}, **subject.settings}
    out = [Variant(OWN, subject.form, own)]
    if not subject.has_dot:
        dot = {k: own[k] for k in ("block_m", "block_n", "block_k", "num_warps", "num_stages") if k in own}
        changed: dict = {"form": (subject.form, DOT_FORM)}
        if dot.get("block_k", 0) < DOT_K_STEP:  # no K step (naive) or one tl.dot cannot take (8): the smallest it can
            changed["block_k"] = (dot.get("block_k"), DOT_K_STEP)
            dot["block_k"] = DOT_K_STEP
        return [*out, Variant(PRODUCT, DOT_FORM, dot, changed)]
    every: dict = {}
    for knob, keys in KNOBS.items():
        changed = {k: (own.get(k), target[k]) for k in keys if k in takes and k in target and own.get(k) != target[k]}
        if changed:
            out.append(Variant(knob, subject.form, {**own, **{k: new for k, (_, new) in changed.items()}}, changed))
            every.update(changed)
    if len(out) > 2:
        out.append(Variant(ALL, subject.form, {**own, **{k: new for k, (_, new) in every.items()}}, every))
    return out


def launch_form(kernel_id: str, impl: str, config: dict) -> tuple[str, dict]:
    """The form that launches a row at one configuration, and the settings it ran with: the registry's for a plain
    form; for a tuned one, the form it tunes (forms.TunedAroundForm) at its tuner's recorded choice."""
    from harness.launch import triton as launch
    from harness.registry import get
    from kernels_triton.forms import TunedAroundForm

    kernel = get(kernel_id)
    counterpart = kernel.counterpart(impl.split(":", 1)[1])
    mod = launch.module(counterpart)
    settings = launch.config(kernel, counterpart)
    if isinstance(mod, TunedAroundForm):
        plain = mod.PLAIN
        takes = launch.launch_settings(plain)
        chosen = config.get("autotuned") or {}
        return plain, {k: v for k, v in {**settings, **chosen}.items() if k in takes}
    return counterpart.module, settings


def measure(results_path: Path, problem: Problem, *, rounds: int, seed: int, say: Callable[[str], None],
            only: set[str] | None = None) -> Path:
    """Plan and time the study on this GPU; write it beside the results file and return its path. `only`: the
    kernel ids whose rows may be studied (None: all)."""
    import torch

    from harness.analysis.record import analyse, read_beside
    from harness.launch import triton as launch
    from harness.launch import triton_tutorial
    from harness.measure.numerics import make_operands
    from harness.measure.rounds import Entry, estimate_ms, interleave
    from harness.records.file import load
    from harness.registry import get

    results = load(results_path)
    analysis = read_beside(results_path) or analyse(results.results, results_path.name)
    todo = [s for s in subjects(results.results, analysis, problem, launch_form) if only is None or s.kernel in only]
    device = torch.device("cuda", torch.cuda.current_device())
    ops = make_operands(problem, "random", seed, device)
    A, B = ops.A, ops.B
    reference = (A.double() @ B.double())
    scale = float((A.abs().double() @ B.abs().double()).max())
    study: dict = {"record": "knob-study", "source": results_path.name, "device": torch.cuda.get_device_name(device),
                   "problem": problem.to_json(), "rounds": rounds, "seed": seed, "baselines": {}, "subjects": []}
    entries: list[Entry] = []

    def checked(key: tuple, fn: Callable[[], object], precision: str, out: torch.Tensor) -> dict:
        """Run once (compile, tune), check against float64, and enter it in the rounds when right."""
        try:
            out.fill_(float("nan"))
            fn()
            torch.cuda.synchronize(device)
        except Exception as e:  # a setting the GPU cannot take (shared memory, registers): recorded, not timed
            return {"failed": f"{type(e).__name__}: {e}"[:300]}
        error = float((out.double() - reference).abs().max()) / scale
        bound = problem.K * UNIT[precision]
        if not error <= bound:  # NaN fails too
            return {"error": error, "failed": f"normwise error {error:.2e} against float64 is past {bound:.1e}"}
        entries.append(Entry(key, fn, estimate_ms(fn, device)))
        return {"error": error}

    def tensors() -> dict[str, torch.Tensor]:
        return {"A": A, "B": B, "C": torch.empty(problem.M, problem.N, device=device)}

    for name in sorted({s.baseline for s in todo}):
        t = tensors()
        entry = checked(("baseline", name), triton_tutorial.bind(name, t), triton_tutorial.input_precision(name),
                        t["C"])
        study["baselines"][name] = {"config": triton_tutorial.chosen_config(name).get("autotuned"), **entry}
        say(f"baseline {name}: {study['baselines'][name]}")
    for i, s in enumerate(todo):
        target = study["baselines"][s.baseline]["config"] or {}
        precision = triton_tutorial.input_precision(s.baseline)
        row = {**s.to_json(), "target": target, "variants": []}
        for v in variants(s, target, launch.launch_settings(s.form)):
            t = tensors()
            entry = checked((i, v.knob), launch.bind_settings(get(s.kernel), v.form, v.settings, t), precision,
                            t["C"])
            row["variants"].append({**v.to_json(), **entry})
            say(f"{s.kernel} [{s.impl}] {v.knob} {v.changed or ''}: {entry}")
        study["subjects"].append(row)
    samples = interleave(entries, rounds=rounds, seed=seed, device=device)
    for name, b in study["baselines"].items():
        if ("baseline", name) in samples:
            b["samples"] = samples[("baseline", name)].to_json()
    for i, row in enumerate(study["subjects"]):
        for v in row["variants"]:
            if (i, v["knob"]) in samples:
                v["samples"] = samples[(i, v["knob"])].to_json()
    path = study_path(results_path)
    path.write_text(json.dumps(study, separators=(",", ":")) + "\n")
    return path
