"""The full results: one table per problem, every record of the file in it, figures or the reason for none; and the
cells the idea sections' tables share with them: a result's figures, its numerics verdict, its beta = 0 behaviour,
each with its explanation as a legend line (LEGEND), printed under the tables that use it."""

from __future__ import annotations

from harness.analysis.measured import Measured
from harness.catalog_types.kernel import precision_label
from harness.catalog_types.tables import Catalog
from harness.problems import Problem
from harness.records.file import Results, load
from harness.records.lines import Result, Status
from harness.report import anchors, fmt
from harness.report.doc import Cell, Table
from harness.report.markdown import to_markdown
from harness.specs import spec

LEGEND = {
    "ms": "ms: median device time; runs: how many timed runs it is the median of, over the interleaved rounds; "
          "spread: (p80 - p20) / median; MHz: the mean SM clock of those runs, read on the device around each.",
    "pct": "% cuBLAS: cuBLAS's time over this one's, same problem, same timer, same precision class (fp32, 3xTF32 "
           "and the bf16 splits against cuBLAS fp32, TF32 against cuBLAS TF32), with its 95% interval from the "
           "rounds in brackets; the "
           "call: FAST or SLOW where the whole interval is past 1 and the margin, SAME where it lies within the "
           "margin (a tie), AMBIGUOUS where it straddles (undecided).",
    "tutorial": "vs Triton tutorial: a Triton row's speed over the Triton tutorial GEMM's of its class (tutorial "
                "time / row time, 95% interval) and the call; it beats the tutorial's GEMM only where the call is "
                "FAST.",
    "peak": "% peak: of the run's measured FP32 FMA throughput (sgemm, fp32 rows) or device-to-device copy "
            "bandwidth (sgemv: bytes of A, x and y once).",
    "numerics": "numerics: ✓ exact = bit-identical to the float64 result on small-integer inputs; the number is "
                "the random layer's forward error, max|out - ref| / max(|alpha|·|A|·|B| + |beta|·|C|), which "
                "must stay under a bound that grows with K and near the library's own error.",
    "beta0": "beta = 0: with NaN in C and beta = 0, BLAS says C is not read. 'reads C (declared)': the seed "
             "kernel computes beta*C regardless, as the registry declares (a limit of the seed, not a failure); "
             "'honours (C = A·B)': the kernel only writes C.",
    "regs": "regs: registers per thread; spills: bytes spilled to local memory (ptxas).",
    "flags": "flags: a spread over 5%, or runs throttled (an SM clock under 75% of the maximum during the run; "
             "kept and counted, not dropped); in files of single bursts, an SM clock that fell during the burst.",
}


def why_no_figures(r: Result, mode: str) -> str:
    reason = fmt.first_line(r.reason)
    if r.status is Status.SKIPPED:
        return f"skipped: {reason}"
    if r.status is Status.COMPILED:
        return reason or "compiled, not run"
    if r.status is Status.FAILED:
        if r.numerics is not None and r.numerics.passed:
            return f"failed after its numerics passed: {reason}"
        return f"failed: {reason}"
    if mode == "cpu":
        return "not timed: CPU run (Triton interpreter / CPU BLAS), numerics only"
    return "not timed"


def rate_text(r: Result) -> str:
    if r.figures is None:
        return "—"
    return fmt.tflops(r.figures.tflops) if r.op == "sgemm" else fmt.gbps(r.figures.gbps)


def figure_cells(m: Measured, r: Result, timing: bool = True) -> list[Cell]:
    """ms, (runs, spread, MHz,) rate, % cuBLAS, its call, % peak; or one cell spanning them that says why there are
    none."""
    width = 8 if timing else 5
    if not r.timed or r.timing is None:
        return [Cell(why_no_figures(r, m.header.mode), cls="why", span=width)]
    t = r.timing
    cells = [Cell(fmt.ms(t.median_ms), num=True)]
    if timing:
        cells += [Cell(str(t.runs), num=True), Cell(fmt.pct(100 * t.spread), num=True,
                                                    cls="warn" if t.spread > 0.05 else ""),
                  Cell(fmt.mhz(t.clock_mhz), num=True, cls="" if t.clock_mhz else "muted")]
    peak = r.figures.pct_peak if r.figures is not None and r.precision == "fp32" else None
    c = m.vs(r, "cublas")
    cells += [Cell(rate_text(r), num=True), Cell(fmt.pct_ci(*m.interval(r)), num=True, cls="nowrap"),
              call_cell(c.call if c is not None else None),
              Cell(fmt.pct(peak), num=True, cls="" if peak is not None else "muted")]
    return cells


def tutorial_cell(m: Measured, r: Result) -> Cell:
    """A Triton row against the Triton tutorial GEMM of its class: speed ratio, interval and call."""
    c = m.vs(r, "triton-baseline") if r.timed else None
    if c is None:
        return Cell("—", num=True, cls="muted")
    if c.verdict is None:
        return Cell(fmt.ratio_ci(1 / c.ratio), num=True)
    t = c.verdict.time
    return Cell(f"{fmt.ratio_ci(1 / t.ratio, 1 / t.hi, 1 / t.lo)} {fmt.call(t.call)}", num=True,
                cls="nowrap " + {"FAST": "ok", "SLOW": "warn"}.get(t.call.value, ""))


def call_cell(call: object | None) -> Cell:
    """A verdict's call; FAST and SLOW stand out, a tie and undecided are muted."""
    text = fmt.call(call)
    return Cell(text, cls={"FAST": "ok", "SLOW": "warn"}.get(text, "muted"))


def numerics_cell(r: Result) -> Cell:
    n = r.numerics
    if n is None:
        return Cell("not run" if r.status in (Status.COMPILED, Status.SKIPPED) else "—", cls="muted")
    if n.passed:
        error = n.random.error if n.random else None
        if n.not_checked:  # an fp32 result held to the class's bounds: the class itself was not checked
            return Cell(f"✓ exact · ✓ {fmt.sci(error)} ({n.not_checked})", cls="warn")
        return Cell(f"✓ exact · ✓ {fmt.sci(error)}", cls="ok nowrap")
    for name, layer in (("exact", n.exact), ("random", n.random)):
        if layer is not None and not layer.passed:
            return Cell(f"✗ {name}: {fmt.first_line(layer.reason or 'failed', 90)}", cls="bad")
    observed = n.beta0.observed if n.beta0 else "?"
    return Cell(f"✗ beta = 0: {observed}", cls="bad")


def beta0_cell(r: Result) -> Cell:
    if r.op == "sgemv":
        return Cell("n/a", cls="muted")
    b0 = r.numerics.beta0 if r.numerics else None
    kernel = r.kernel_facts
    if b0 is None:
        if kernel is not None and r.impl_id.is_cuda and kernel.reads_c_when_beta_zero:
            return Cell("reads C (declared, not observed here)", cls="warn nowrap")
        return Cell("—", cls="muted")
    if not b0.agrees:
        return Cell(f"✗ {b0.observed} (declared {b0.declared})", cls="bad")
    if b0.observed == "leaks NaN":
        return Cell("reads C (declared)", cls="warn nowrap")
    if kernel is not None and r.impl_id.is_cuda and not kernel.computes_alpha_beta:
        return Cell("honours (C = A·B)", cls="ok nowrap")
    return Cell("honours", cls="ok nowrap")


def regs_cells(r: Result) -> list[Cell]:
    res = r.resources
    if res is None or res.registers is None:
        return [Cell("—", num=True, cls="muted"), Cell("—", num=True, cls="muted")]
    spills = int(res.spills or 0)
    return [Cell(str(res.registers), num=True),
            Cell(f"{spills} B" if spills else "0", num=True, cls="bad" if spills else "")]


def flags_cell(r: Result) -> Cell:
    flags = r.timing.flags if r.timing else []
    return Cell("; ".join(flags), cls="warn flags" if flags else "flags")


def precision_cell(r: Result) -> Cell:
    return Cell(precision_label(r.precision), cls="" if r.precision == "fp32" else "warn")


def _kernel_cell(r: Result, catalog: Catalog) -> Cell:
    """The kernel id, linked to its row in its idea's section; under it the seed and the idea, as the record has them
    (a kernel the registry no longer lists has no section to link to)."""
    if r.kernel is None:
        return Cell("baseline", cls="muted")
    kernel = r.kernel_facts
    if kernel is None:
        return Cell(r.kernel, code=True, sub="not in the registry", cls="warn")
    sub = f"{'seed ' + kernel.seed if kernel.seed else 'ours'} · {kernel.idea_title}"
    if r.kernel not in catalog.by_id:
        return Cell(r.kernel, code=True, sub=f"{sub} · no longer in the registry", cls="warn")
    return Cell(r.kernel, code=True, href=anchors.href(anchors.kernel(r.kernel)), sub=sub)


def copy_note(m: Measured) -> str | None:
    """Why a kernel can pass 100% of the measured copy bandwidth: the copy test sits below the spec sheet."""
    peaks, sheet = m.header.peaks, spec(m.header.device)
    if peaks is None or sheet is None:
        return None
    return (f"% copy BW can exceed 100%: the measured device-to-device copy ({fmt.gbps(peaks.copy_gbps)} GB/s) is "
            f"{fmt.pct(100 * peaks.copy_gbps / (sheet.hbm_tbps * 1e3))} of the spec sheet's {sheet.hbm_tbps:g} TB/s "
            f"({sheet.source}), which no kernel can exceed.")


def results_table(m: Measured, problem: Problem) -> Table:
    records = m.on(problem)
    rate = "TFLOP/s" if problem.op == "sgemm" else "GB/s"
    peak = "% FP32 peak" if problem.op == "sgemm" else "% copy BW"
    table = Table([("kernel", False), ("implementation", False),
                   ("precision", False), ("ms", True), ("runs", True), ("spread", True), ("MHz", True),
                   (rate, True), ("% cuBLAS", True), ("call", False), (peak, True),
                   ("vs Triton tutorial", True), ("numerics", False), ("beta = 0", False), ("regs", True),
                   ("spills", True), ("flags", False)], cls="summary")
    for r in records:
        figures = figure_cells(m, r)
        if len(figures) > 1:
            figures.append(tutorial_cell(m, r))
        else:
            figures[0].span += 1
        table.add([_kernel_cell(r, m.catalog), Cell(r.label), precision_cell(r), *figures, numerics_cell(r),
                   beta0_cell(r), *regs_cells(r), flags_cell(r)], f"status-{r.status.value}")
    table.notes += [LEGEND[k] for k in ("ms", "pct", "peak", "tutorial", "numerics", "beta0", "regs", "flags")]
    note = copy_note(m) if problem.op == "sgemv" else None
    if note:
        table.notes.append(note)
    return table


def markdown_results_table(results: Results | Measured | str) -> str:
    """The results tables alone (one per problem), in Markdown: what a README quotes."""
    m = results if isinstance(results, Measured) else Measured(results if isinstance(results, Results)
                                                                   else load(results))
    parts = []
    for problem in m.problems:
        table = results_table(m, problem)
        if table:
            table.notes = []
            parts.append(f"#### {problem.label}\n\n{to_markdown(table)}")
    legend = "\n".join(f"- {LEGEND[k]}" for k in ("ms", "pct", "peak", "tutorial", "numerics", "beta0", "regs",
                                                   "flags"))
    return "\n\n".join(parts) + "\n\n" + legend + "\n"
