"""Every figure a table shows, declared once: its name, how it is read from a record or a verdict, how it is written,
its legend line (built from the constant that decides it), and its column in the terminal table. The page's tables
(HTML and Markdown) and the terminal summary print these declarations (harness/report/tables.py, terminal.py); a new
column is one declaration here and its name in a table's list.

A fact printed beside a measured number is read from the record of the run that measured it: the configuration that
ran (an autotuner's choice, not the settings it started from), threads, shared memory static and dynamic, occupancy
with the dynamic shared memory, the intensity of the tile that ran (harness/analysis/measured.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from harness.analysis.measured import Measured
from harness.analysis.record import Comparison
from harness.analysis.relations import Relation
from harness.analysis.verdicts import LEVEL, MARGIN_SIMT, MARGIN_TENSOR_CORES, Call, regions
from harness.catalog_types.kernel import PRECISION_CLASSES, Counterpart, Kernel, precision_label
from harness.measure.numerics import NOT_CHECKED_NO_GPU
from harness.measure.timing import SPREAD_LIMIT, THROTTLE_FRACTION
from harness.records.lines import Result, Status
from harness.report import anchors, fmt, wording
from harness.report.fmt import Cell
from harness.term_table import Column

R = TypeVar("R")
CALL_STYLE = {"FAST": "ok", "SLOW": "warn"}


@dataclass(frozen=True)
class Metric(Generic[R]):
    """One column: `read` gives its value for a row (None: nothing to show, a muted dash), `show` writes it."""

    name: str
    read: Callable[[Measured, R], Any]
    show: Callable[[Any], str] = str
    legend: str = ""                                   # its line under every table that shows it
    num: bool = True                                   # right-aligned figures
    style: Callable[[Any], str] = lambda v: ""         # the cell's class from the value: ok, warn, bad, muted
    sub: Callable[[Measured, R], str] | None = None    # a second line: what the figure belongs to
    link: Callable[[Measured, R], str] | None = None   # where the cell links to on the page
    code: bool = False
    figure: bool = False     # a measured figure: where a row has none, one cell saying why spans these columns
    optional: bool = False   # a column none of whose rows has a value is not drawn
    term: Column | None = None   # its column in the terminal summary (None: the page only)
    names: Mapping[str, str] = field(default_factory=dict)   # its name in a table of one op, where it differs

    def header(self, op: str = "") -> str:
        return self.names.get(op, self.name)

    def cell(self, m: Measured, row: R) -> Cell:
        v = self.read(m, row)
        if v is None:
            return Cell("—", num=self.num, cls="muted")
        return Cell(self.show(v), num=self.num, cls=self.style(v), code=self.code,
                    sub=self.sub(m, row) if self.sub else "", href=self.link(m, row) if self.link else "")

    def text(self, m: Measured, row: R) -> str:
        """The value as plain text (the terminal's); '-' for nothing."""
        v = self.read(m, row)
        return "-" if v is None else self.show(v).replace("—", "-")


# ---------------------------------------------------------------------------------------------- verdict legends
def _speed_region(call: Call, margin: float) -> tuple[float, float]:
    """The region of a speed ratio (reference time / subject time, as the page prints it) for a call: the time
    ratio's region (verdicts.regions, the one definition) turned over."""
    lo, hi = regions(margin)[call]
    return 1 / hi, (1 / lo if lo else math.inf)


# The calls as verdicts.regions defines them, in the speed ratios the page prints: the legend is that definition.
CALLS = ("the call: the region its whole " + f"{LEVEL:.0%}" + " interval lies in, FAST above "
         + " or ".join(f"{_speed_region(Call.FAST, m)[0]:.3f} (±{m:.0%})" for m in (MARGIN_SIMT, MARGIN_TENSOR_CORES))
         + ", SLOW below " + " or ".join(f"{_speed_region(Call.SLOW, m)[1]:.3f}"
                                         for m in (MARGIN_SIMT, MARGIN_TENSOR_CORES))
         + f", SAME in between (a tie: a margin of ±{MARGIN_SIMT:.0%} for SIMT and bandwidth rows, "
         f"±{MARGIN_TENSOR_CORES:.0%} where a side runs on the tensor cores), AMBIGUOUS where it reaches across an "
         f"edge of the margin or the rounds are too few for a {LEVEL:.0%} interval (undecided)")
ESTIMATORS = ("a % of a reference is the median over the interleaved rounds of the per-round time ratio (paired), "
              f"with its {LEVEL:.0%} order-statistic interval; a rate (TFLOP/s, GB/s) is from the row's median time "
              "over all its runs, so a rate over the reference's rate is the other estimator and may differ by a few "
              "tenths of a point")


def verdict_text(c: Comparison) -> str:
    """A comparison as a table writes it: the speed ratio with its interval and the call."""
    return f"{wording.speed(c)} {fmt.call(c.call)}"


def call_style(c: Comparison | None) -> str:
    return "nowrap " + CALL_STYLE.get(c.call.value if c is not None and c.call else "", "")


# ---------------------------------------------------------------------------------------------- a record's row
def _kernel_sub(m: Measured, r: Result) -> str:
    kernel = r.kernel_facts
    if kernel is None:
        return "not in the registry" if r.kernel else ""
    declared = r.kernel in m.catalog.by_id and m.catalog.by_id[r.kernel].declared   # a user's own pair
    sub = f"{'seed ' + kernel.seed if kernel.seed else 'yours' if declared else 'ours'} · {kernel.idea_title}"
    return sub if r.kernel in m.catalog.by_id else f"{sub} · no longer in the registry"


def _kernel(m: Measured, r: Result) -> tuple[str, str]:
    """The kernel id and how it stands: muted for a baseline, amber for one the catalog no longer lists."""
    return (r.kernel, "" if r.kernel in m.catalog.by_id else "warn") if r.kernel else ("baseline", "muted")


KERNEL: Metric[Result] = Metric(
    "kernel", _kernel, lambda v: v[0], num=False, code=True, sub=_kernel_sub, style=lambda v: v[1],
    link=lambda m, r: anchors.href(anchors.kernel(r.kernel)) if r.kernel in m.catalog.by_id else "",
    term=Column("kernel", elide=True, least=30))
KERNEL_ID: Metric[Result] = Metric("kernel", lambda m, r: r.kernel or "", num=False, code=True)
IMPL: Metric[Result] = Metric("implementation", lambda m, r: r.label, num=False,
                              term=Column("implementation", short="impl", wrap=14))
PRECISION: Metric[Result] = Metric("precision", lambda m, r: r.precision, precision_label, num=False,
                                   style=lambda v: "" if v == "fp32" else "warn")
PROBLEM: Metric[Result] = Metric("problem", lambda m, r: r.problem.shape_label, num=False)


def _timing(r: Result):
    return r.timing if r.timed else None


MS: Metric[Result] = Metric(
    "ms", lambda m, r: t.median_ms if (t := _timing(r)) else None, fmt.ms, figure=True,
    legend="ms: median device time; runs: how many timed runs it is the median of, over the interleaved rounds; "
           f"spread: (p80 - p20) / median, amber above {SPREAD_LIMIT:.0%}; MHz: the median SM clock of those runs, "
           "read on the device around each.",
    term=Column("ms", drop=5, right=True))
RUNS: Metric[Result] = Metric("runs", lambda m, r: t.runs if (t := _timing(r)) else None, figure=True)
SPREAD: Metric[Result] = Metric("spread", lambda m, r: t.spread if (t := _timing(r)) else None,
                                lambda v: fmt.pct(100 * v), figure=True,
                                style=lambda v: "warn" if v > SPREAD_LIMIT else "")
MHZ: Metric[Result] = Metric("MHz", lambda m, r: m.clock(r) if r.timed else None, fmt.mhz, figure=True,
                             term=Column("MHz", drop=3, right=True))
RATE: Metric[Result] = Metric("rate", lambda m, r: (r.rate, r.op) if r.timed and r.rate is not None else None,
                              lambda v: fmt.tflops(v[0]) if v[1] == "sgemm" else fmt.gbps(v[0]), figure=True,
                              term=Column("rate", drop=4, right=True), names={"sgemm": "TFLOP/s", "sgemv": "GB/s"})


PCT: Metric[Result] = Metric(
    "% cuBLAS", lambda m, r: m.interval(r) if r.timed and m.pct(r) is not None else None,
    lambda v: fmt.pct_ci(*v), figure=True, style=lambda v: "nowrap",
    legend="% cuBLAS: cuBLAS's speed over this one's, same problem, same timer, same precision class (fp32 and "
           f"the fp32-class splits against {wording.baseline_label('fp32')}, {wording.CLASS['tf32']} against "
           f"{wording.baseline_label('tf32')}), given B as the row reads it (a row that reads B K-major: the "
           "cuBLAS given B^T, or, where the run has none, with the row's pack of B added), its interval in brackets; "
           + ESTIMATORS + "; " + CALLS + ".",
    term=Column(f"% cuBLAS [{LEVEL:.0%}]", drop=9, right=True, short="%cuBLAS"))
CALL: Metric[Result] = Metric("call", lambda m, r: m.vs(r, Relation.CUBLAS) if r.timed else None,
                              lambda c: fmt.call(c.call), num=False, figure=True, sub=lambda m, r: wording.withheld(
                                  m.vs(r, Relation.CUBLAS)),
                              style=lambda c: CALL_STYLE.get(fmt.call(c.call), "muted"), term=Column("call"))


PEAK: Metric[Result] = Metric(
    "% peak", lambda m, r: r.figures.pct_peak if r.timed and r.figures is not None and r.precision == "fp32" else None,
    fmt.pct, figure=True,
    legend="% peak: of the run's measured FP32 FMA throughput (sgemm, fp32 rows) or device-to-device copy bandwidth "
           "(sgemv: bytes of A, x and y once).",
    term=Column("% peak", drop=2, right=True, short="%peak"), names={"sgemm": "% FP32 peak", "sgemv": "% copy BW"})


TUTORIAL: Metric[Result] = Metric(
    "vs Triton tutorial", lambda m, r: m.vs(r, Relation.TRITON_BASELINE) if r.timed else None, verdict_text,
    figure=True, style=call_style, optional=True,
    legend=f"vs Triton tutorial: a Triton row's speed over the Triton tutorial GEMM's of its class ({LEVEL:.0%} "
           "interval) and the call; it beats the tutorial's GEMM only where the call is FAST.",
    term=Column("vs Triton tutorial", drop=7, short="vs tutorial"))


VS_CUDA: Metric[Result] = Metric(
    "vs CUDA", lambda m, r: m.vs(r, Relation.GLUON) if r.timed else None, verdict_text, figure=True, style=call_style,
    optional=True, sub=lambda m, r: wording.withheld(m.vs(r, Relation.GLUON)),
    legend=f"vs CUDA: a Gluon row's speed over its CUDA kernel's, the same decisions through Triton's compiler (the "
           f"compiler's part of a CUDA-Triton gap), its {LEVEL:.0%} interval and the call; vs Gluon: a Triton row's "
           "speed over its kernel's Gluon mirror, the same tile with the rest left to the compiler (the programming "
           "model's part).",
    term=Column("vs CUDA", drop=7))
VS_GLUON: Metric[Result] = Metric(
    "vs Gluon", lambda m, r: m.vs(r, Relation.MODEL) if r.timed else None, verdict_text, figure=True, style=call_style,
    optional=True, sub=lambda m, r: wording.withheld(m.vs(r, Relation.MODEL)), term=Column("vs Gluon", drop=7))


def _numerics(r: Result) -> tuple[str, str]:
    n = r.numerics
    if n is None:
        if r.status is Status.FAILED:
            return f"✗ failed: {fmt.first_line(r.reason, 90)}", "bad"
        if r.status is Status.COMPILED:  # built without a GPU: the check did not run, and says so where it would stand
            return NOT_CHECKED_NO_GPU, "warn"
        return ("not run" if r.status is Status.SKIPPED else "—"), "muted"
    if n.passed:
        text = f"✓ exact · ✓ {fmt.sci(n.random.error if n.random else None)}"
        if n.not_checked:  # an fp32 result held to the class's bounds: the class itself was not checked (a CPU)
            return f"{text} ({n.not_checked})", "warn"
        found = PRECISION_CLASSES.get(r.precision)  # type: ignore[call-overload]
        if found is not None and not found.fp32_accurate and found.yardstick == "fp32":
            return f"{text} as {found.text}, {found.caveat}", "warn"  # its own class's bounds, not fp32's
        if found is not None and not found.fp32_accurate:
            return f"{text} as {found.text}", "ok nowrap"
        return text, "ok nowrap"
    said = n.failure_reasons()  # the first layer that failed and what it saw, or the beta = 0 test
    return f"✗ {fmt.first_line(said[0] if said else 'failed', 90)}", "bad"


NUMERICS: Metric[Result] = Metric(
    "numerics", lambda m, r: _numerics(r), lambda v: v[0], num=False, style=lambda v: v[1],
    legend="numerics: ✓ exact = bit-identical to the float64 result on small-integer inputs; the number is the "
           "random layer's forward error, max|out - ref| / max(|alpha|·|A|·|B| + |beta|·|C|), which must stay under a "
           "bound that grows with K and near the library's own error.",
    term=Column("numerics", drop=6, wrap=16))


def _beta0(r: Result) -> tuple[str, str] | None:
    if r.op == "sgemv":
        return "n/a", "muted"
    b0, kernel = (r.numerics.beta0 if r.numerics else None), r.kernel_facts
    cuda = kernel is not None and r.impl_id.is_cuda
    if b0 is None:
        return ("reads C (declared, not observed here)", "warn nowrap") if cuda and kernel.reads_c_when_beta_zero \
            else None
    if not b0.agrees:
        return f"✗ {b0.observed} (declared {b0.declared})", "bad"
    if b0.observed == "leaks NaN":
        return "reads C (declared)", "warn nowrap"
    return ("honours (C = A·B)" if cuda and not kernel.computes_alpha_beta else "honours"), "ok nowrap"


BETA0: Metric[Result] = Metric(
    "beta = 0", lambda m, r: _beta0(r), lambda v: v[0], num=False, style=lambda v: v[1],
    legend="beta = 0: with NaN in C and beta = 0, BLAS says C is not read. 'reads C (declared)': the seed kernel "
           "computes beta*C regardless, as the registry declares (a limit of the seed, not a failure); 'honours (C = "
           "A·B)': the kernel only writes C.",
    term=Column("beta=0", drop=4))


def _regs(r: Result) -> str | None:
    res = r.resources
    if res is None or res.registers is None:
        return None
    driver = res.driver.get("registers") if res.driver else None
    return str(res.registers) + (f" ({driver}*)" if driver not in (None, res.registers) else "")


REGS: Metric[Result] = Metric(
    "regs", lambda m, r: _regs(r),
    legend="regs: registers per thread (* what the driver reports for the loaded function, where it differs); "
           "spills: bytes spilled to local memory (ptxas).",
    term=Column("regs", drop=1, right=True))
SPILLS: Metric[Result] = Metric("spills", lambda m, r: int(r.resources.spills or 0) if r.resources and
                                r.resources.registers is not None else None,
                                lambda v: f"{v} B" if v else "0", style=lambda v: "bad" if v else "",
                                term=Column("spills", drop=1, right=True))
FLAGS: Metric[Result] = Metric(
    "flags", lambda m, r: "; ".join(r.timing.flags) if r.timing and r.timing.flags else None, num=False,
    style=lambda v: "warn flags", optional=True,
    legend=f"flags: a spread over {SPREAD_LIMIT:.0%}, or runs throttled (an SM clock under "
           f"{THROTTLE_FRACTION:.0%} of the maximum during the run; kept and counted, not dropped); in files of "
           "single bursts, an SM clock that fell during the burst.",
    term=Column("flags", drop=2, wrap=12))

# ---------------------------------------------------------------------------------------------- what ran
RAN_LEGEND = ("ran with: the tile per block or program (M×N×K step; sgemv: the rows of a block or program and the "
              "columns of a step) and the launch as it ran — a Triton row's "
              "configuration as the run recorded it, an autotuner's choice in place of the settings it started from; "
              "threads per block (Triton: num_warps × 32).")


def ran_text(m: Measured, r: Result, brief: bool = False) -> str | None:
    """'128×256×32 tile, 8 warps, 3 stages, group 8' as the record says it ran (CUDA, Gluon: the tile and threads);
    `brief`: the tile, warps, stages and group alone."""
    tile = m.tile(r)
    if r.impl_id.is_cuda or r.impl_id.is_gluon:   # a Gluon form takes its CUDA kernel's tile; its threads as compiled
        if tile is None:
            return None
        rows = f"rows {tile[0]}, step {tile[2]}" if r.op == "sgemv" else f"{'×'.join(map(str, tile))} tile"
        return f"{rows}, {m.threads(r)} threads"
    return wording.config_text(m.config(r), r.op, brief) or None


def launch_text(m: Measured, kernel: Kernel, c: Counterpart) -> str:
    """A counterpart's launch as it ran on its op's headline problem (its record: an autotuner's choice where it
    tunes), else as declared, said so."""
    problem = m.headline(kernel.op)
    ran = next((r for r in m.of_kernel(kernel.id, f"triton:{c.name}") if r.timed and r.problem == problem), None)
    if ran is not None:
        return f"ran {wording.config_text(m.config(ran), kernel.op)}"
    return f"declared {wording.config_text(c.config(kernel), kernel.op)} (not timed here)"


RAN: Metric[Result] = Metric("ran with", ran_text, num=False, legend=RAN_LEGEND)
# The implementation with, under it, what it ran with: where a table has no room for a column of its own.
IMPL_RAN: Metric[Result] = Metric("implementation", lambda m, r: r.label, num=False, legend=RAN_LEGEND,
                                  sub=lambda m, r: ran_text(m, r, brief=True) or "")
THREADS: Metric[Result] = Metric("threads", lambda m, r: m.threads(r))
SHARED_STATIC: Metric[Result] = Metric(
    "shared static", lambda m, r: s[0] if (s := m.shared(r)) else None, fmt.nbytes,
    legend="shared static, dynamic: shared memory per block as compiled (ptxas's static count) and as the launch "
           "requests it (a CUDA kernel's extern __shared__, as the run recorded it; Triton requests all of its "
           "shared memory at launch).")
SHARED_DYNAMIC: Metric[Result] = Metric("shared dynamic", lambda m, r: s[1] if (s := m.shared(r)) else None,
                                        fmt.nbytes)
OCCUPANCY: Metric[Result] = Metric(
    "occupancy (sm_90)", lambda m, r: m.occupancy(r), lambda o: fmt.pct_round(o.fraction),
    legend="occupancy: theoretical, on sm_90's limits (64 warps, 64K registers, 228 KiB shared memory per SM), from "
           "the registers, the shared memory static and dynamic, and the launch's threads.")
LIMITER: Metric[Result] = Metric("limited by", lambda m, r: m.occupancy(r),
                                 lambda o: f"{fmt.plural(o.blocks_per_sm, 'block')}/SM; {o.limiter}", num=False,
                                 style=lambda o: "muted")
COMPILED_BY: Metric[Result] = Metric("compiled by", lambda m, r: r.resources.source if r.resources else None,
                                     num=False, style=lambda v: "muted")
INTENSITY: Metric[Result] = Metric(
    "FLOP/B", lambda m, r: m.intensity(r) if r.timed else None, lambda v: f"{v:.2f}", figure=True,
    legend="FLOP/B: operational intensity of the traffic model at the tile that ran (A re-read once per column of "
           "blocks, B once per row of blocks; a naive kernel's tile is 1×1).")


# ---------------------------------------------------------------------------------------------- tables of records
# Each table of records is its list of declarations: a new column is one Metric, named in the lists that show it (the
# terminal summary shows those of RESULTS that declare a terminal column).
RESULTS: list[Metric[Result]] = [KERNEL, IMPL, PRECISION, MS, RUNS, SPREAD, MHZ, RATE, PCT, CALL, PEAK, TUTORIAL,
                                 VS_CUDA, VS_GLUON, NUMERICS, BETA0, REGS, SPILLS, FLAGS]
MEASURED: list[Metric[Result]] = [PROBLEM, KERNEL_ID, IMPL_RAN, PRECISION, MS, RATE, PCT, CALL, PEAK, INTENSITY,
                                  TUTORIAL, VS_CUDA, VS_GLUON, NUMERICS]
RESOURCES: list[Metric[Result]] = [KERNEL_ID, IMPL, RAN, THREADS, REGS, SHARED_STATIC, SHARED_DYNAMIC, SPILLS,
                                   OCCUPANCY, LIMITER, COMPILED_BY]


def terminal_columns() -> list[Metric[Result]]:
    """The terminal summary: the results table's declarations that have a terminal column, in its order."""
    return [c for c in RESULTS if c.term is not None]


def why_no_figures(m: Measured, r: Result) -> str | None:
    """Why a record has no figures (None: it was timed)."""
    if r.timed and r.timing is not None:
        return None
    reason = fmt.first_line(r.reason)
    if r.status is Status.SKIPPED:
        return f"skipped: {reason}"
    if r.status is Status.COMPILED:
        return reason or "compiled, not run"
    if r.status is Status.FAILED:
        return f"failed after its numerics passed: {reason}" if r.numerics is not None and r.numerics.passed \
            else f"failed: {reason}"
    return "not timed: CPU run (Triton interpreter / CPU BLAS), numerics only" if m.header.mode == "cpu" \
        else "not timed"
