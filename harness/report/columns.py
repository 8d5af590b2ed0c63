"""The compact tables' columns, declared as metrics (harness/report/metrics.py) over the rows the analysis makes of
them: the headline and the ideas at a glance (overview.py), the Triton modules several ideas share, fp32 work on the
tensor cores (fp32_work.py), the documents' figures beside ours (claims.py), the ladders' steps (steps.py), the
hardware counters and the two regimes (regimes.py). The report prints them with the one printer
(harness/report/tables.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.analysis.claims import TIE, Claim, StridePoint, stride_occupancy
from harness.analysis.fp32_work import ERROR_LAYERS, layer_error
from harness.analysis.measured import Best, Measured
from harness.analysis.overview import HeadlineRow, IdeaRow, SharedModule
from harness.analysis.record import Comparison
from harness.analysis.relations import Relation
from harness.baselines import CUBLAS_KMAJOR, KMAJOR_TEXT, cublas_of
from harness.catalog_types.kernel import PRECISION_CLASSES, precision_label
from harness.problems import HEADLINE as HEADLINE_PROBLEMS
from harness.records.lines import Result
from harness.report import anchors, fmt, wording
from harness.report.metrics import (
    CALLS,
    ESTIMATORS,
    LEVEL,
    RAN_LEGEND,
    Metric,
    call_style,
    launch_text,
    ran_text,
)
from harness.report.regimes import regime_note
from harness.report.wording import PRECISION_TEXT, baseline_label, published_text


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
        rate = _rate_text(r) if with_rate and r.rate else ""
        return " · ".join(x for x in (rate, best_name(b), ran_text(m, r, brief=True), _against(m, b.vs_cublas)) if x)

    return Metric(name, lambda m, row: b.interval if (b := get(row)) else None, lambda v: fmt.pct_ci(*v),
                  sub=sub, link=lambda m, row: anchors.href(anchors.kernel(get(row).kernel)),  # type: ignore[union-attr]
                  style=lambda v: "ok" if v[0] >= 100 else "", optional=optional, legend=legend)


def _against(m: Measured, c: Comparison | None) -> str:
    """'vs TN' where a % is of the class's cuBLAS given B^T stored (cuBLAS TN), and the pack of B where it was
    added."""
    if c is None or (c.reference[1] == cublas_of(m.record(c.subject_key).precision) and not c.pack_ms):
        return ""
    return "vs TN" if c.reference[1] in CUBLAS_KMAJOR else wording.pack(c).removeprefix(", ")


def verdict_metric(name: str, get: Callable[[Any], Any], sub: Callable[[Measured, Any], str] | None = None,
                   legend: str = "", optional: bool = False) -> Metric[Any]:
    """A comparison: its speed ratio with the interval, and under it the call in words (and what it is against)."""
    return Metric(name, lambda m, row: get(row), wording.speed, style=call_style, legend=legend, optional=optional,
                  sub=lambda m, row: wording.relation(get(row)) + _in_cycles(get(row))
                  + (wording.pack(c) if (c := get(row)) is not None else "") + (f" · {sub(m, row)}" if sub else ""))


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


def _rate_text(r: Result) -> str:
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
    return f"; {KMAJOR_TEXT}: {_rate_text(tn)}" if tn is not None else ""


HEADLINE: list[Metric[HeadlineRow]] = [
    Metric("op · problem · class", lambda m, h: f"{h.op} {h.problem.shape_label}", num=False,
           sub=lambda m, h: PRECISION_TEXT.get(h.precision, h.precision) + f" vs {baseline_label(h.precision)} "
           f"({_rate_text(h.cublas)}{_cublas_tn(m, h)})" + regime_note(m)),
    best_metric("best CUDA", lambda h: h.cuda),
    best_metric("best Triton, like for like", lambda h: h.triton),
    best_metric("best Triton, any design", lambda h: h.triton_any, optional=True),
    best_metric("best Gluon", lambda h: h.best.get("gluon"), optional=True),
    verdict_metric("Triton vs CUDA", lambda h: h.triton_vs_cuda),
    verdict_metric("Gluon vs CUDA", lambda h: h.gluon_vs_cuda, optional=True, legend=GLUON_LEGEND),
    verdict_metric("best Triton vs Triton tutorial", lambda h: h.tutorial, sub=lambda m, h: _tutorial(m, h.tutorial)),
]
HEADLINE_LEGEND = [
    f"Each op's headline problem ({'; '.join(p.label for p in HEADLINE_PROBLEMS.values())}: the seeds' own GEMM, "
    "and a GEMV far above L2, which streams A at the copy bandwidth), beside the class its cuBLAS rate. %: of the "
    "same class's cuBLAS, same timer, given B as the row reads it (a K-major row: vs TN, cuBLAS "
    f"given B^T stored, else with its pack of B), with its {LEVEL:.0%} interval; under it the rate, the "
    "implementation and the configuration it ran with, as its record says. "
    + ESTIMATORS[0].upper() + ESTIMATORS[1:] + ".",
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
SHARED: list[Metric[SharedModule]] = [
    Metric("Triton module", lambda m, sm: sm.pairs[0][1].path, num=False, code=True),
    Metric("ideas", lambda m, sm: "\n".join(m.catalog.ideas[i].title if i in m.catalog.ideas else i for i in sm.ideas),
           num=False),
    Metric("kernels and launch settings as they ran",
           lambda m, sm: "\n".join(f"{k.id} [{c.name}]: {launch_text(m, k, c)}" for k, c in sm.pairs), num=False,
           style=lambda v: "settings",
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
                   legend=f"% {fp32}: speed against {fp32} on the same problem, given B as the row reads it (a "
                          f"K-major row: {baseline_label('fp32', 'kmajor')}), with its {LEVEL:.0%} interval from the "
                          "interleaved rounds, and the call; a row of another class is held to its own cuBLAS."),
            Metric("call", lambda m, r: m.vs(r, Relation.CUBLAS) if _against_fp32(r) else None, wording.relation,
                   num=False),
            Metric("regs", lambda m, r: r.resources.registers if r.resources and r.resources.registers else None),
            *(_error(layer) for layer in layers)]


def error_layers(m: Measured) -> list[str]:
    return [layer for layer in ERROR_LAYERS if any(layer in (r.numerics.layers if r.numerics else {}) for r in m.all)]


# ---------------------------------------------------------------------------------------------- the documents
def order_text(c: Claim) -> str:
    """Where a kernel ranks among its document's, here and there: 'same rank', or both ranks."""
    if c.rank_ours is None:
        return "—"
    if not c.changed:
        return "same rank"
    return f"rank {c.rank_ours} here, {c.rank_doc} in the document (1 = slowest)"


CLAIMS: list[Metric[Claim]] = [
    Metric("kernel", lambda m, c: c.kernel.id, num=False, code=True),
    Metric("document · GPU", lambda m, c: f"{c.kernel.seed} · {c.seed.gpu}", num=False),
    Metric("published", lambda m, c: published_text(c.published), num=False),
    Metric("doc % cuBLAS", lambda m, c: c.published_pct, fmt.pct),
    Metric("ours: ms", lambda m, c: fmt.ms(c.ours.timing.median_ms) if c.ours and c.ours.timing else "not measured"),
    Metric("our % cuBLAS", lambda m, c: c.ours_pct, fmt.pct),
    Metric("order", lambda m, c: order_text(c), num=False, style=lambda v: "" if v in ("same rank", "—") else "warn",
           legend="order: rank among the document's kernels with a figure, 1 = slowest; ours by the rounds' calls, "
                  f"the document's by its figures, which carry no interval (within {TIE:.0%} tied)."),
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
    Metric("our occupancy (sm_90)", stride_occupancy, fmt.pct_round,
           legend="doc: the document's Nsight Compute table on its own GPU; our occupancy is theoretical, from the "
                  "record's registers, shared memory static and dynamic, and threads."),
]
