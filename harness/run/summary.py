"""The side-by-side table printed at the end of a run: one row per implementation, per problem.

Fitted to the console's width by harness.term_table: kernel ids and implementation names are always
whole; the other columns wrap or are left out, least needed first (regs, % peak, MHz, rate, beta=0,
ms, numerics, the Triton tutorial, the call; % cuBLAS last), and a line under the table names what is
not shown. The report and the results file have every column.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.records.lines import Result, Status
from harness.records.order import record_order
from harness.registry import PRECISION_CLASSES, precision_caveat
from harness.roofline import Peaks
from harness.term_table import Column, print_table

COLUMNS = (Column("kernel"), Column("implementation", short="impl"), Column("ms", drop=5, right=True),
           Column("MHz", drop=3, right=True), Column("rate", drop=4, right=True),
           Column("% cuBLAS [95%]", drop=9, right=True, short="%cuBLAS"), Column("call", drop=8),
           Column("vs Triton tutorial", drop=7, short="vs tutorial"),
           Column("% peak", drop=2, right=True, short="%peak"), Column("numerics", drop=6, wrap=16),
           Column("beta=0", drop=4), Column("regs", drop=1, right=True))
HEADERS = tuple(c.header for c in COLUMNS)
MORE = "the report and the results file have them"
CAVEAT_MARK = "*"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


def verdict(r: Result) -> str:
    if r.status in (Status.SKIPPED, Status.COMPILED):
        return r.status.value
    if r.status is Status.FAILED:
        reason = " ".join(r.reason.split())
        return "FAIL: " + (reason[:80] + "…" if len(reason) > 80 else reason)
    error = r.numerics.random.error if r.numerics and r.numerics.random else None
    err = f", err {error:.1e}" if error is not None else ""
    found = PRECISION_CLASSES.get(r.precision)  # type: ignore[call-overload]
    if r.numerics is not None and r.numerics.not_checked:  # its class's rounding not reproduced here: fp32 was checked
        text = r.numerics.not_checked + err
    elif found is not None and not found.fp32_accurate:  # passed its own class's bounds, not fp32's: say which
        text = f"ok as {found.text}{err}"
    else:
        text = "ok" + err
    flags = r.timing.flags if r.timing else []
    return text + (" [" + "; ".join(flags) + "]" if flags else "")


def beta0(r: Result) -> str:
    b = r.numerics.beta0 if r.numerics else None
    if b is None:
        return "-"
    if not b.agrees:
        return f"{b.observed} (declared {b.declared})"
    return "reads C (declared)" if b.observed == "leaks NaN" else b.observed


def regs(r: Result) -> str:
    res = r.resources
    if res is None or res.registers is None:
        return "-"
    return f"{res.registers}" + (f"+{res.spills}sp" if res.spills else "")


# What the analysis says of a row, as text: (% of its cuBLAS with the interval, the call, against the Triton tutorial).
# The caller makes it (harness/cli: the analysis sits above this layer); "-" where there is nothing to say.
Verdicts = Callable[[Result], tuple[str, str, str]]


def _no_verdicts(r: Result) -> tuple[str, str, str]:
    return ("-", "-", "-")


def row(r: Result, verdicts: Verdicts = _no_verdicts) -> list[str]:
    rate = "-"
    if r.timed and r.figures is not None:
        rate = f"{r.figures.tflops:.2f} TF/s" if r.op == "sgemm" else f"{r.figures.gbps:.0f} GB/s"
    peak = r.figures.pct_peak if r.figures is not None and r.precision == "fp32" else None
    clock = r.timing.clock_mhz if r.timed and r.timing else None
    pct, call, tutorial = verdicts(r) if r.timed else ("-", "-", "-")
    # the table has no precision column: a class used in place of fp32 that is not as accurate is marked by the name,
    # and the mark is said under the table (the caveat in full would push an 80-column row past its width)
    label = f"{r.label}{CAVEAT_MARK}" if precision_caveat(r.precision) else r.label
    return [r.kernel or "baseline", label, f"{r.timing.median_ms:.3f}" if r.timed and r.timing else "-",
            f"{clock:.0f}" if clock else "-", rate, pct, call, tutorial, _pct(peak if r.timed else None),
            verdict(r), beta0(r), regs(r)]


def tables(results: list[Result], verdicts: Verdicts = _no_verdicts) -> dict[str, list[list[str]]]:
    """Rows per problem label, problems in the order first met, rows in the registry's order."""
    out: dict[str, list[Result]] = {}
    for r in results:
        out.setdefault(r.problem.label, []).append(r)
    return {label: [row(r, verdicts) for r in sorted(rs, key=record_order)] for label, rs in out.items()}


def _title(label: str, peaks: Peaks | None) -> str:
    if peaks is None:
        return label
    return f"{label}   (peaks: {peaks.fp32_tflops:.1f} TF/s FP32 FMA, {peaks.copy_gbps:.0f} GB/s copy)"


def print_summary(results: list[Result], peaks: Peaks | None, console, verdicts: Verdicts = _no_verdicts) -> None:
    """Print one table per problem, fitted to the console's width (bold headers on a terminal)."""
    marked: dict[str, list[str]] = {}
    for r in results:
        if caveat := precision_caveat(r.precision):
            marked.setdefault(r.problem.label, []).append(f"{PRECISION_CLASSES[r.precision].text}: {caveat}")
    for i, (label, rows) in enumerate(tables(results, verdicts).items()):
        if i:
            console.print()
        print_table(console, _title(label, peaks), list(COLUMNS), rows, MORE)
        if label in marked:
            console.print(f"{CAVEAT_MARK} " + "; ".join(dict.fromkeys(marked[label])), soft_wrap=False,
                          highlight=False)
