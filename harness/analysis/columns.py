"""The compact tables' columns, declared as metrics (harness/analysis/metrics.py) over the rows the analysis makes of
them: the headline and the ideas at a glance (overview.py), the Triton modules several ideas share, fp32 work on the
tensor cores (fp32_work.py), the documents' figures beside ours (claims.py), the ladders' steps (steps.py), the
hardware counters and the two regimes (regimes.py). The report prints them with the one printer
(harness/report/tables.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.analysis import anchors, fmt, wording
from harness.analysis.claims import Claim, StridePoint, stride_occupancy
from harness.analysis.energy import EnergyFigure
from harness.analysis.fp32_work import ERROR_LAYERS, layer_error
from harness.analysis.knobs import VariantRow
from harness.analysis.measured import Best, LayoutRead, Measured
from harness.analysis.metrics import (
    CALLS,
    ESTIMATORS,
    LEVEL,
    RAN_LEGEND,
    Metric,
    call_style,
    launch_text,
    ran_text,
    verdict_text,
)
from harness.analysis.model_or_compiler import SAME_WITHIN, Split, closed_text
from harness.analysis.overview import HeadlineRow, IdeaRow, SharedModule
from harness.analysis.proven import Row
from harness.analysis.record import Comparison
from harness.analysis.regimes import (
    RELATION_TEXT,
    RegimeCall,
    RegimeRow,
    energy_text,
    interval_text,
    name,
    regime_note,
    rounds_text,
    speed_text,
    time_text,
)
from harness.analysis.relations import Relation
from harness.analysis.steps import Moved, Step
from harness.analysis.wording import PRECISION_TEXT, baseline_label, published_text, verdict_speed
from harness.baselines import KMAJOR_TEXT, cublas_of
from harness.catalog_types.idea import COMPILER
from harness.catalog_types.kernel import PRECISION_CLASSES, Kernel, precision_label
from harness.catalog_types.tables import DECISIONS
from harness.records.lines import Result


# ---------------------------------------------------------------------------------------------- a best of a group
def best_name(best: Best) -> str:
    r = best.result
    return best.kernel if r.impl_id.is_cuda else f"{r.label}: {best.kernel}"


def best_metric(name: str, get: Callable[[Any], Best | None], optional: bool = False,
                with_rate: bool = True, legend: str = "") -> Metric[Any]:
    """A group's fastest implementation: its % of its class's cuBLAS with the interval; under it its rate (unless
    `with_rate` is off), its name and the configuration it ran with, as its record says."""

    def sub(m: Measured, row: Any) -> str:
        b = get(row)
        assert b is not None
        r = b.result
        rate = "" if not with_rate or not r.rate else f"{fmt.tflops(r.rate)} TFLOP/s" if r.op == "sgemm" else \
            f"{fmt.gbps(r.rate)} GB/s"
        return " · ".join(x for x in (rate, best_name(b), ran_text(m, r, brief=True)) if x)

    return Metric(name, lambda m, row: b.interval if (b := get(row)) else None, lambda v: fmt.pct_ci(*v),
                  sub=sub, link=lambda m, row: anchors.href(anchors.kernel(get(row).kernel)),  # type: ignore[union-attr]
                  style=lambda v: "ok" if v[0] >= 100 else "", optional=optional, legend=legend)


def verdict_metric(name: str, get: Callable[[Any], Any], sub: Callable[[Measured, Any], str] | None = None,
                   legend: str = "", optional: bool = False) -> Metric[Any]:
    """A comparison: its speed ratio with the interval, and under it the call in words (and what it is against)."""
    return Metric(name, lambda m, row: get(row), wording.speed, style=call_style, legend=legend, optional=optional,
                  sub=lambda m, row: wording.relation(get(row)) + _in_cycles(get(row))
                  + (f" · {sub(m, row)}" if sub else ""))


def _in_cycles(c: Any) -> str:
    """Where cycles call it otherwise than time: the clock decided the time call (the sections say which way); where
    the cycles call was withheld, that."""
    v = c.verdict if c is not None else None
    if v is not None and (withheld := wording.withheld(c)):
        return f"; {withheld}"
    return f"; in cycles {wording.relation_of(v.cycles.call)}" if v is not None and v.clock_differs else ""


# ---------------------------------------------------------------------------------------------- the headline
def _tutorial(m: Measured, c: Any) -> str:
    tutorial = m.reference(c)
    return f"{tutorial.label} at {fmt.pct_ci(*m.interval(tutorial))}"


def _headline_row(m: Measured, h: HeadlineRow) -> str:
    return f"{h.op} {h.problem.shape_label}"


def _cublas_rate(r: Result) -> str:
    if r.rate is None:
        return "not timed"
    return f"{fmt.tflops(r.rate)} TFLOP/s" if r.op == "sgemm" else f"{fmt.gbps(r.rate)} GB/s"  # type: ignore[arg-type]


GLUON_LEGEND = ("best Gluon: the fastest Gluon form, each CUDA kernel's own decisions (layouts, shared memory, copies, "
                "barriers, roles) written in Triton's layout-level language and compiled by Triton; Gluon vs CUDA: its "
                f"speed over the best CUDA kernel's, {LEVEL:.0%} interval and call: what Triton's compiler makes of "
                "the CUDA kernel's decisions.")
def _cublas_tn(m: Measured, h: HeadlineRow) -> str:
    """'; B^T stored (TN): 410.70 TFLOP/s' where the run timed the class's cuBLAS on K-major B too."""
    tn = next((r for r in m.on(h.problem) if r.impl == cublas_of(h.precision, "kmajor") and r.timed), None)
    return f"; {KMAJOR_TEXT}: {_cublas_rate(tn)}" if tn is not None else ""


HEADLINE: list[Metric[HeadlineRow]] = [
    Metric("op · problem · class", _headline_row, num=False,
           sub=lambda m, h: PRECISION_TEXT.get(h.precision, h.precision) + f" vs {baseline_label(h.precision)} "
           f"({_cublas_rate(h.cublas)}{_cublas_tn(m, h)})" + (f" · {h.role}" if h.role else "")
           + regime_note(m, h.precision)),
    best_metric("best CUDA", lambda h: h.cuda),
    best_metric("best Triton, like for like", lambda h: h.triton),
    best_metric("best Triton, any design", lambda h: h.triton_any, optional=True),
    best_metric("best Gluon", lambda h: h.best.get("gluon"), optional=True),
    verdict_metric("Triton vs CUDA", lambda h: h.triton_vs_cuda),
    verdict_metric("Gluon vs CUDA", lambda h: h.gluon_vs_cuda, optional=True, legend=GLUON_LEGEND),
    verdict_metric("best Triton vs Triton tutorial", lambda h: h.tutorial, sub=lambda m, h: _tutorial(m, h.tutorial)),
]
HEADLINE_LEGEND = [
    "Each op's headline problem (sgemv: the shape where cuBLAS comes nearest the copy bandwidth; the findings give "
    "the op's headline shape too), and beside the class the cuBLAS rate. %: of the cuBLAS of the same precision "
    f"class, same timer, with its {LEVEL:.0%} interval; under it the rate, the implementation and the configuration "
    "it ran with (tile, warps, stages, group), as its record says. " + ESTIMATORS[0].upper() + ESTIMATORS[1:] + ".",
    "best Triton, like for like: the fastest Triton form that moves data as its CUDA kernel does; any design: the "
    "fastest Triton form of any design (a pre-split, rank-1 updates), where it is another one. Ratios: speed ratio, "
    "interval and call; " + CALLS + ".", RAN_LEGEND]


# ---------------------------------------------------------------------------------------------- ideas at a glance
def _published(m: Measured, row: IdeaRow) -> str | None:
    claim = row.claim
    if claim is None:
        return None
    return fmt.pct(claim.published_pct) if claim.published_pct is not None else published_text(claim.published)


def _rank_text(c: Claim | None) -> str | None:
    if c is None or c.rank_ours is None:
        return None
    if not c.changed:
        return f"same: {c.rank_ours} of {c.ranked}"
    return f"{c.rank_ours} of {c.ranked} here, {c.rank_doc} in the document"


IDEAS: list[Metric[IdeaRow]] = [
    Metric("idea", lambda m, row: row.idea.title, num=False,
           link=lambda m, row: anchors.href(anchors.idea(row.idea.key))),
    Metric("compared with", lambda m, row: baseline_label(row.precision) + (
        "" if row.precision == "fp32" else f" ({PRECISION_TEXT.get(row.precision, row.precision)} rows)"), num=False),
    best_metric("best CUDA", lambda row: row.cuda, with_rate=False),
    best_metric("best Triton", lambda row: row.triton, with_rate=False),
    best_metric("best Gluon", lambda row: row.gluon, optional=True, with_rate=False,
                legend="best Gluon: the idea's fastest Gluon form, its CUDA kernel's decisions in Triton's "
                       "layout-level language (the model-or-compiler table of its section splits the CUDA-Triton "
                       "gap by it)."),
    verdict_metric("Triton / CUDA", lambda row: row.triton_vs_cuda),
    Metric("published", _published, sub=lambda m, row: f"{row.claim.kernel.id} · {row.claim.seed.gpu}"),
    Metric("rank here · document", lambda m, row: _rank_text(row.claim), num=False, style=lambda v: "nowrap"),
]
IDEAS_LEGEND = [
    "best CUDA / best Triton: the fastest implementation of the idea on its op's headline problem, as % of the "
    f"cuBLAS of its precision class, with its {LEVEL:.0%} interval; Triton / CUDA: the best Triton's speed over the "
    "best CUDA's, its interval and the call.",
    "published: the document's own % of its cuBLAS on its own GPU for the kernel named under it; a document without a "
    "cuBLAS figure shows its raw figure. rank here · document: that kernel's place among the kernels of its document "
    "that published a figure, 1 = slowest; ours by the rounds' calls (faster only where FAST), the document's by its "
    "figures."]


# ---------------------------------------------------------------------------------------------- shared Triton modules
def _settings(m: Measured, sm: SharedModule) -> str:
    return "\n".join(f"{k.id} [{c.name}]: {launch_text(m, k, c)}" for k, c in sm.pairs)


SHARED: list[Metric[SharedModule]] = [
    Metric("Triton module", lambda m, sm: sm.pairs[0][1].path, num=False, code=True),
    Metric("ideas", lambda m, sm: "\n".join(m.catalog.ideas[i].title if i in m.catalog.ideas else i for i in sm.ideas),
           num=False),
    Metric("kernels and launch settings as they ran", _settings, num=False, style=lambda v: "settings",
           legend="One module serving several ideas is one Triton kernel: only its launch settings (tile, K step, "
                  "warps, stages; an autotuner's choice where it tunes) and its few constexpr switches change between "
                  "them."),
    Metric("% cuBLAS on the headline problem", lambda m, sm: sm.pcts or None,
           lambda p: f"{fmt.pct(min(p))} – {fmt.pct(max(p))}" if len(p) > 1 else fmt.pct(p[0])),
]


# ---------------------------------------------------------------------------------------------- fp32 work
def _against_fp32(r: Result) -> bool:
    return PRECISION_CLASSES[r.precision].yardstick == "fp32"  # type: ignore[index]


def _error(layer: str) -> Metric[Result]:
    def read(m: Measured, r: Result) -> tuple[float, float | None, bool] | None:
        mine = layer_error(r, layer)
        if mine is None:
            return None
        base = m.baseline(r.problem, "fp32")
        theirs = layer_error(base, layer) if base is not None and base is not r else None
        worse = theirs is not None and mine > theirs and PRECISION_CLASSES[r.precision].fp32_accurate  # type: ignore
        return mine, theirs, worse

    return Metric(f"error: {layer}", read,
                  lambda v: fmt.sci(v[0]) + (f" ({v[0] / v[1]:.2f}x)" if v[1] else ""),
                  style=lambda v: "warn" if v[2] else "",
                  legend=f"error: the larger of the normwise and componentwise forward errors on that layer, and in "
                         f"brackets its ratio to {baseline_label('fp32')}'s on the same inputs; amber where a row "
                         f"labelled fp32-accurate is less accurate than {baseline_label('fp32')} there.")


def fp32_columns(layers: list[str]) -> list[Metric[Result]]:
    fp32 = baseline_label("fp32")
    return [Metric("problem", lambda m, r: r.problem.shape_label, num=False),
            Metric("implementation", lambda m, r: f"{r.kernel} · {r.label}" if r.kernel else r.label, num=False,
                   code=True),
            Metric("class", lambda m, r: precision_label(r.precision), num=False),
            Metric("TFLOP/s", lambda m, r: r.rate, fmt.tflops),
            Metric(f"% {fp32}",
                   lambda m, r: m.interval(r) if _against_fp32(r) else None, lambda v: fmt.pct_ci(*v),
                   legend=f"% {fp32}: speed against {fp32} on the same problem with its {LEVEL:.0%} interval from "
                          f"the interleaved rounds, and the call; a row of another class is held to its own cuBLAS."),
            Metric("call", lambda m, r: m.vs(r, Relation.CUBLAS) if _against_fp32(r) else None, wording.relation,
                   num=False),
            Metric("regs", lambda m, r: r.resources.registers if r.resources and r.resources.registers else None),
            *(_error(layer) for layer in layers)]


def error_layers(m: Measured) -> list[str]:
    return [layer for layer in ERROR_LAYERS if any(layer in (r.numerics.layers if r.numerics else {}) for r in m.all)]


# ---------------------------------------------------------------------------------------------- the documents
def _ours_ms(m: Measured, c: Claim) -> str:
    return fmt.ms(c.ours.timing.median_ms) if c.ours and c.ours.timing else "not measured"


CLAIMS: list[Metric[Claim]] = [
    Metric("kernel", lambda m, c: c.kernel.id, num=False, code=True),
    Metric("document · GPU", lambda m, c: f"{c.kernel.seed} · {c.seed.gpu}", num=False),
    Metric("published", lambda m, c: published_text(c.published), num=False),
    Metric("doc % cuBLAS", lambda m, c: c.published_pct, fmt.pct),
    Metric("ours: ms", _ours_ms),
    Metric("our % cuBLAS", lambda m, c: c.ours_pct, fmt.pct),
    Metric("order", lambda m, c: c.order, num=False, style=lambda v: "" if v in ("same rank", "—") else "warn",
           legend="order: rank among the document's kernels with a figure, 1 = slowest; ours by the rounds' calls, "
                  "the document's by its figures, which carry no interval (within 2% tied)."),
]
STRIDE: list[Metric[StridePoint]] = [
    Metric("stride", lambda m, p: p.published.stride),
    Metric("kernel", lambda m, p: p.kernel.id, num=False, code=True),
    Metric("threads / block", lambda m, p: m.threads(p.ours) if p.ours else p.kernel.threads),
    Metric("doc TFLOP/s", lambda m, p: p.published.tflops),
    Metric("our TFLOP/s", lambda m, p: p.tflops, fmt.tflops),
    Metric("doc registers", lambda m, p: p.published.registers),
    Metric("our registers", lambda m, p: p.registers),
    Metric("doc occupancy", lambda m, p: p.published.occupancy_pct, fmt.pct),
    Metric("our occupancy (sm_90)", lambda m, p: stride_occupancy(m, p), fmt.pct_round,
           legend="doc: the document's Nsight Compute table on its own GPU; our occupancy is theoretical, from the "
                  "record's registers, shared memory static and dynamic, and threads."),
]


# ---------------------------------------------------------------------------------------------- counters, steps
# (column, the counter it shows, how it is written); a counter the profile lacks is shown as a dash.
COUNTERS: tuple[tuple[str, str, Callable[[float], str]], ...] = (
    ("FMA pipe", "fma_pipe_pct", lambda v: f"{v:.1f}%"),
    ("tensor pipe", "tensor_pipe_pct", lambda v: f"{v:.1f}%"),
    ("smem", "smem_throughput_pct", lambda v: f"{v:.1f}%"),
    ("L2", "l2_throughput_pct", lambda v: f"{v:.1f}%"),
    ("smem bank conflicts", "smem_bank_conflicts", lambda v: f"{v:.3g}"),
    ("DRAM / model", "dram_vs_model", lambda v: f"{v:.2f}×"),
    ("occupancy", "achieved_occupancy_pct", lambda v: f"{v:.1f}%"),
    ("global reads / kFMA", "global_requests_per_kfma", lambda v: f"{v:.3f}"),
    ("bytes / cp.async", "ldgsts_bytes_per_instruction", lambda v: f"{v:.0f}"),
    ("kernel ms (ncu)", "duration_ns", lambda v: f"{v / 1e6:.3f}"),
)
_LABEL = {key: (label, write) for label, key, write in COUNTERS}
_UNNAMED = {"refused": "counters refused: ncu's time is off the timed one",
            "nothing": "nothing measured moved its way by enough to explain it"}


def moved_text(mv: Moved | None) -> str | None:
    """'smem bank conflicts: 1.2e+06 → 1.7e+04', why no quantity is named, or None where no counters were recorded
    (the column is then not drawn) or the step is no gain (nothing to explain)."""
    if mv is None or mv.unnamed in ("unrecorded", "tie"):
        return None
    if mv.quantity is None:
        return _UNNAMED.get(mv.unnamed or "nothing", mv.unnamed or "")
    label, write = _LABEL.get(mv.quantity, (mv.quantity.replace("_", " "), lambda v: f"{v:.3g}"))
    if isinstance(mv.before, str) or isinstance(mv.after, str):   # a compiled fact: an instruction's form
        return f"{label}: {mv.before} → {mv.after}"
    return f"{label}: {write(mv.before)} → {write(mv.after)}"  # type: ignore[arg-type]


# What a step cell says where the rung has no step: its kernel opens a lineage (steps.lineage_before)
STARTS = "starts a lineage: no step"


def step_text(s: Step) -> str:
    """The step's speed over the rung before in its lineage, with its interval and call, and the change in points."""
    if s.before is None:
        return STARTS if s.lineage == "starts" else "—"
    return f"{verdict_text(s.verdict)} · {s.points:+.1f} pts" if s.verdict is not None else "—"


def step_columns(side: str, name: str, get: Callable[[Any], Step | None]) -> list[Metric[Any]]:
    """A model's three columns of a ladder's table: its % of cuBLAS, the step against the rung before (its speed
    ratio, interval and call), and what moved (drawn only where some row has counters)."""
    return [
        Metric(f"{name} % cuBLAS", lambda m, row: s.best.interval if (s := get(row)) else None,
               lambda v: fmt.pct_ci(*v), style=lambda v: "nowrap"),
        Metric(f"{name} step", lambda m, row: s if (s := get(row)) is not None and (s.before is not None
                                                                                   or s.lineage == "starts") else None,
               step_text, style=lambda s: call_style(s.verdict) if s.before is not None else "muted"),
        Metric(f"{name}: what moved", lambda m, row: moved_text(s.moved) if (s := get(row)) else None, num=False,
               optional=True),
    ]


STEPS_LEGEND = ("step: the rung's speed over the step before it in its lineage (the same model's record of the kernel "
                "its source is shown as a diff against: the same document's kernel before it, or the ladder's rung "
                "before for tile-rosetta's own; a kernel that opens its series starts a lineage and has no step), its "
                "interval and call from the interleaved rounds, and the change in % of cuBLAS in points; " + CALLS +
                ". What moved: for a step "
                "the rounds call FAST, of the Nsight Compute counters stored with both rungs' records (rosetta run "
                "--profile), the one that favours the faster and plausibly explains most of the difference, before → "
                "after; the column is drawn only where counters were recorded.")


# ---------------------------------------------------------------------------------------------- the two regimes
def _class(m: Measured, row: Any) -> str:
    return PRECISION_TEXT.get(row.precision, row.precision)


def _figure(get: Callable[[EnergyFigure], Any]) -> Callable[[Measured, Any], Any]:
    """An energy figure of a regime row (None where the row has none), written with its interval."""
    return lambda m, row: get(row.energy) if row.energy is not None else None


REGIME: list[Metric[RegimeRow]] = [
    Metric("implementation", lambda m, r: r.label, num=False),
    Metric("class", _class, num=False),
    Metric("burst TFLOP/s", lambda m, r: r.burst_tflops, lambda v: f"{v:.1f}"),
    Metric("sustained TFLOP/s", lambda m, r: r.sustained_tflops, lambda v: f"{v:.1f}"),
    Metric("sustained / burst", lambda m, r: r.change, speed_text,
           legend="burst: the median of the first launches after the idle gap; sustained: the median chunk of the "
                  "steady window (time per launch); sustained / burst: the speed ratio of the two, paired by round, "
                  f"with its {LEVEL:.0%} interval and call; SM MHz: mean of the clock probes around the launches."),
    Metric("SM MHz burst → steady", lambda m, r: (r.burst_mhz, r.steady_mhz),
           lambda v: f"{fmt.mhz(v[0])} → {fmt.mhz(v[1])}"),
    Metric("W", _figure(lambda e: e.watts), lambda i: interval_text(i, ".0f"),
           legend="W: the steady window's energy over its time; J per GEMM: that power times the launches' event "
                  f"time, per launch; each the median over the rounds with its {LEVEL:.0%} interval; GFLOP/J: the "
                  "problem's flops over it."),
    Metric("J per GEMM", _figure(lambda e: e.joules), interval_text),
    Metric("GFLOP/J", _figure(lambda e: e.gflop_per_j), lambda i: interval_text(i, ".0f")),
    Metric("steady rounds", lambda m, r: r, rounds_text,
           legend="steady rounds: rounds whose steady state the rule detected, of all; the longest time back to back "
                  "before the window; the widest clock and power spread of the windows the rule held on."),
]
REGIME_CALLS: list[Metric[RegimeCall]] = [
    Metric("comparison", lambda m, c: c.subject_label if c.relation == Relation.AA else
           f"{c.subject_label} vs {c.reference_label}", num=False, sub=lambda m, c: RELATION_TEXT[c.relation]),
    Metric("class", _class, num=False),
    Metric("burst: speed, call", lambda m, c: c.burst, time_text),
    Metric("sustained: speed, call", lambda m, c: c.sustained, time_text),
    Metric("sustained: energy per launch, call", lambda m, c: c.sustained if c.sustained and c.sustained.energy
           else None, energy_text,
           legend=f"speed: the reference's time over the subject's, {LEVEL:.0%} interval over the rounds, call as "
                  "everywhere on the page; energy: the subject's joules per launch over the reference's (below 1: the "
                  "subject spends less), from the rounds both resolved, same margin. A row in colour is a finding "
                  "below."),
]
BurstEnergy = tuple[Result, EnergyFigure]
BURST_ENERGY: list[Metric[BurstEnergy]] = [
    Metric("implementation", lambda m, re: name(re[0]), num=False),
    Metric("problem", lambda m, re: re[0].problem.label, num=False),
    Metric("J per launch", lambda m, re: re[1].joules, interval_text),
    Metric("GFLOP/J", lambda m, re: re[1].gflop_per_j, lambda i: interval_text(i, ".0f")),
    Metric("W", lambda m, re: re[1].watts, lambda i: interval_text(i, ".0f")),
    Metric("vs cuBLAS: speed, call", lambda m, re: c.verdict if (c := m.vs(re[0], Relation.CUBLAS)) else None,
           time_text),
    Metric("vs cuBLAS: energy, call", lambda m, re: c.verdict if (c := m.vs(re[0], Relation.CUBLAS)) and c.verdict
           and c.verdict.energy else None, energy_text,
           legend=f"Each figure the median over the rounds whose burst spanned enough periods of the energy counter, "
                  f"with its {LEVEL:.0%} interval; the burst's window holds its runs and the L2 flushes and clock "
                  "probes between them, whose share of the window's device time is taken out."),
]


# ---------------------------------------------------------------------------------------------- the knob study
KNOBS: list[Metric[VariantRow]] = [
    Metric("row", lambda m, v: v.row, num=False, code=True),
    Metric("switched to the tutorial's", lambda m, v: v, lambda v: v.switched, num=False,
           style=lambda v: "why" if v.residual else ""),
    Metric(f"speed vs own settings [{LEVEL:.0%}]", lambda m, v: v.verdict if v.verdict is not None else
           f"not timed: {fmt.first_line(v.failed, 60)}", lambda v: v if isinstance(v, str) else verdict_speed(v),
           style=lambda v: "muted" if isinstance(v, str) else "",
           legend="speed: the row's time at its own settings over its time with the switch (the last row of each: "
                  f"the tutorial's time over the row's with every knob switched), with the {wording.INTERVAL} of the "
                  "interleaved rounds; the call as everywhere in this report."),
    Metric("call", lambda m, v: v.verdict, lambda v: fmt.call(v.call), num=False),
]


# ---------------------------------------------------------------------------------------------- the mapping
_SIDE = {"cuda": "CUDA", "triton": "Triton", "gluon": "Gluon"}


def _decider(v: str) -> str:
    return "by-compiler" if v == COMPILER else "by-programmer"


def _proof(row: Row) -> tuple[str, str] | None:
    """'✓ n of n' and the checks, or what does otherwise and on which compiler; None where nothing was checked."""
    if not row.verdicts:
        return None
    failed = [v for v in row.verdicts if not v.holds]
    checks = "\n".join(dict.fromkeys(f"{_SIDE[v.side]}: {v.check}" for v in row.verdicts if v.check))
    if failed:  # which compiler made the code that does otherwise, and what it does (Verdict.changed)
        return "\n".join(f"✗ {v.changed}" for v in failed[:3]) + ("\n…" if len(failed) > 3 else "") + "\n" + checks, \
            "bad"
    return f"✓ {len(row.verdicts)} of {len(row.verdicts)}\n" + checks, "ok-text"


MAPPING: list[Metric[Row]] = [
    Metric("decision", lambda m, r: r.decision, num=False),
    Metric("CUDA", lambda m, r: r.cuda, num=False),
    Metric("Triton", lambda m, r: r.triton, num=False),
    Metric("in Triton, decided by", lambda m, r: r.decided_by, num=False, style=_decider,
           legend="decided by: who makes the decision in that model, the programmer (in the kernel text or its "
                  "launch settings) or the compiler (from the layouts it chooses)."),
    Metric("Gluon", lambda m, r: r.gluon or None, num=False, optional=True,
           legend="Gluon: the same decision in the kernel's Gluon form, Triton's layout-level language, where the "
                  "programmer writes what Triton's compiler decides from a tl.dot (its check read on Gluon's "
                  "compiled code like the others)."),
    Metric("in Gluon, decided by", lambda m, r: r.gluon_decided_by or None, num=False, style=_decider,
           optional=True),
    Metric("checked on the compiled kernels", lambda m, r: _proof(r) or ("not checked", "muted"), lambda v: v[0],
           num=False, style=lambda v: v[1]),
]


# ---------------------------------------------------------------------------------------------- an idea's kernels
def _document(m: Measured, k: Kernel) -> str:
    if k.seed:
        return f"{k.seed} {wording.seed_title(m.catalog, k.seed)}\n{wording.section_title(m.catalog, k.section)}"
    return f"its user's own\n{k.section}" if k.declared else f"tile-rosetta's own\n{k.section}"


def _forms(m: Measured, k: Kernel) -> str:
    """Each Triton counterpart and Gluon form with its launch (as it ran) and what departs from the CUDA kernel."""
    triton = [f"{c.name} ({c.file or c.module}): {launch_text(m, k, c)}" + "".join(f"\n  deviation: {n}"
                                                                                  for n in c.deviation_notes())
              for c in k.counterparts]
    gluon = [f"gluon {g.name} (kernels_gluon/{g.module}.py): the CUDA kernel's decisions"
             + "".join(f"\n  deviation: {n}" for n in g.deviation_notes()) for g in k.gluon]
    return "\n".join([*triton, *gluon])


def _beta0(k: Kernel) -> tuple[str, str]:
    if k.op == "sgemv":
        return "n/a", "muted"
    if k.reads_c_when_beta_zero:
        return "reads C (declared)", "warn"
    return ("honours" if k.computes_alpha_beta else "honours (C = A·B)"), "ok"


KERNELS: list[Metric[Kernel]] = [
    Metric("kernel", lambda m, k: k.id, num=False, code=True),
    Metric("document · section", _document, num=False),
    Metric("threads · tile", lambda m, k: f"{'×'.join(map(str, k.block[:2]))} = {k.threads} · "
           + (f"{k.tile_m}×{k.tile_n} outputs" if k.tile_n else f"{k.tile_m} row{'s' if k.tile_m != 1 else ''}"),
           num=False),
    Metric("Triton and Gluon counterparts: settings", _forms, num=False),
    Metric("preconditions", lambda m, k: "\n".join(c.text for c in k.preconditions), num=False),
    Metric("beta = 0", lambda m, k: _beta0(k), lambda v: v[0], num=False, style=lambda v: v[1]),
    Metric("published (document's GPU)", lambda m, k: published_text(k.published)
           + (f" ({m.catalog.seeds[k.seed].gpu})" if k.seed else "") if k.published else None, num=False),
]


# ---------------------------------------------------------------------------------------------- what each model costs
def _cost(model: str) -> Callable[[Measured, Kernel], tuple[int, int] | None]:
    return lambda m, k: m.catalog.costs.get(k.id, {}).get(model)


COSTS: list[Metric[Kernel]] = [
    Metric("kernel", lambda m, k: k.id, num=False, code=True),
    *(Metric(name, _cost(model), lambda v: f"{v[0]} lines · {v[1]} of {len(DECISIONS)}",
             legend="CUDA, Triton, Gluon: lines of kernel code (no comments, docstrings or blank lines: CUDA the "
                    ".cu with the headers it includes, Triton the plain counterpart's module, Gluon the mirror's "
                    "module and the kernels_gluon modules it imports) · the kinds of decision its source states, of "
                    f"the {len(DECISIONS)} a GEMM kernel here makes ({', '.join(DECISIONS)}); a kind its compiler "
                    "decides has no mark in its source." if model == "cuda" else "")
      for model, name in (("cuda", "CUDA"), ("triton", "Triton"), ("gluon", "Gluon"))),
]


# ---------------------------------------------------------------------------------------------- model or compiler
def _quantities(m: Measured, s: Split) -> str:
    moving = {q.name for q in s.moving}
    return "\n".join(f"{q.name}: " + " / ".join("-" if v is None else f"{v:.3g}" for v in (q.cuda, q.triton, q.gluon))
                     + (" (moves with the speed)" if q.name in moving else "") for q in s.quantities)


SPLITS: list[Metric[Split]] = [
    Metric("rung", lambda m, s: s.kernel, num=False, code=True),
    verdict_metric("Triton vs CUDA: the gap", lambda s: s.gap),
    verdict_metric("Gluon vs CUDA: the compiler's part", lambda s: s.compiler),
    verdict_metric("Triton vs Gluon: the model's part", lambda s: s.model),
    Metric("gap closed by Gluon", lambda m, s: s.closed, closed_text,
           legend="gap closed by Gluon: (T/C − G/C) / (T/C − 1) of the times, where the rounds call Triton slower than "
                  "CUDA: the share of the gap that writing the CUDA kernel's decisions in Gluon removes, the rest "
                  "being what Triton's compiler does with them."),
    Metric("compiled: CUDA / Triton / Gluon", _quantities, num=False,
           legend="compiled: per column, FFMA per 64- or 128-bit shared load (static SASS), registers, spilled bytes "
                  "and block barriers (static BAR), and issue-active cycles where a profile was given; a quantity "
                  f"moves with the speed where Triton's and Gluon's values differ by more than {SAME_WITHIN:.0%} and "
                  "the faster of the two (as the rounds call it) has the better one; registers have no better side."),
]


# ---------------------------------------------------------------------------------------------- B's layout
def _pct_of(c: Comparison) -> str:
    return f"{fmt.pct_ci(*c.pct())} {fmt.call(c.call)}"


LAYOUT: list[Metric[LayoutRead]] = [
    Metric("kernel", lambda m, row: row.result.kernel, num=False, code=True),
    Metric("implementation", lambda m, row: row.result.label, num=False),
    Metric("class", lambda m, row: PRECISION_TEXT.get(row.result.precision, row.result.precision), num=False),
    Metric("kernel ms", lambda m, row: row.result.timing.median_ms if row.result.timing else None, fmt.ms),
    Metric("pack ms", lambda m, row: (row.pack_ms, row.pack_share) if row.pack_ms else None,
           lambda v: fmt.ms(v[0]) + (f" ({fmt.pct(100 * v[1])} of the kernel's)" if v[1] else ""),
           legend="pack ms: the median time to write B^T (K-major) from the suite's row-major B before the kernel "
                  "runs, timed on its own, and its share of the kernel's own median time."),
    Metric(f"alone: % {KMAJOR_TEXT}", lambda m, row: row.same_layout, _pct_of, style=lambda c: call_style(c),
           legend=f"alone: % {KMAJOR_TEXT}: the kernel's time alone against cuBLAS of its class given B as the "
                  "kernel reads it (B^T stored, cuBLAS TN); with the pack: the pack's median time added to each of "
                  "the kernel's runs, against cuBLAS on row-major B (NN), what a caller holding row-major B waits "
                  f"for; alone: % NN, as every % of cuBLAS on the page. Each with its {LEVEL:.0%} interval and the "
                  "call."),
    Metric("with the pack: % NN", lambda m, row: row.packed, _pct_of, style=lambda c: call_style(c)),
    Metric("alone: % NN", lambda m, row: row.alone, _pct_of, style=lambda c: call_style(c)),
]
