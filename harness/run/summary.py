"""The side-by-side table printed at the end of a run: one row per implementation, per problem.

In a terminal it is a rich table. Piped into a file or a CI log it is plain fixed-width text, every
row on one line however long: a kernel id never folds over lines, so the log can be grepped.
"""

from __future__ import annotations

from harness.roofline import Peaks
from harness.run.records import Result, Status, record_order

HEADERS = ("kernel", "implementation", "ms", "rate", "% cuBLAS", "% peak", "numerics", "beta=0", "regs")
RIGHT = {"ms", "rate", "% cuBLAS", "% peak", "regs"}


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


def verdict(r: Result) -> str:
    if r.status in (Status.SKIPPED, Status.COMPILED):
        return r.status.value
    if r.status is Status.FAILED:
        reason = " ".join(r.reason.split())
        return "FAIL: " + (reason[:80] + "…" if len(reason) > 80 else reason)
    error = r.numerics.random.error if r.numerics and r.numerics.random else None
    text = "ok" + (f", err {error:.1e}" if error is not None else "")
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


def row(r: Result) -> list[str]:
    rate = "-"
    if r.timed and r.figures is not None:
        rate = f"{r.figures.tflops:.2f} TF/s" if r.op == "sgemm" else f"{r.figures.gbps:.0f} GB/s"
    peak = r.figures.pct_peak if r.figures is not None and r.precision == "fp32" else None
    return [r.kernel or "baseline", r.label, f"{r.timing.median_ms:.3f}" if r.timed and r.timing else "-", rate,
            _pct(r.pct_cublas if r.timed else None), _pct(peak if r.timed else None), verdict(r), beta0(r), regs(r)]


def tables(results: list[Result]) -> dict[str, list[list[str]]]:
    """Rows per problem label, problems in the order first met, rows in the registry's order."""
    out: dict[str, list[Result]] = {}
    for r in results:
        out.setdefault(r.problem.label, []).append(r)
    return {label: [row(r) for r in sorted(rs, key=record_order)] for label, rs in out.items()}


def _title(label: str, peaks: Peaks | None) -> str:
    if peaks is None:
        return label
    return f"{label}   (peaks: {peaks.fp32_tflops:.1f} TF/s FP32 FMA, {peaks.copy_gbps:.0f} GB/s copy)"


def plain(results: list[Result], peaks: Peaks | None) -> str:
    """Fixed-width text: each column as wide as its widest cell, every row on one line."""
    blocks = []
    for label, rows in tables(results).items():
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADERS)]

        def line(cells: list[str] | tuple[str, ...], widths: list[int] = widths) -> str:
            return "  ".join(c.rjust(w) if h in RIGHT else c.ljust(w)
                             for c, w, h in zip(cells, widths, HEADERS, strict=True)).rstrip()

        blocks.append("\n".join([_title(label, peaks), line(HEADERS), line(["-" * w for w in widths]),
                                 *(line(r) for r in rows)]))
    return "\n\n".join(blocks)


def print_summary(results: list[Result], peaks: Peaks | None, console) -> None:
    """Print the summary: a rich table in a terminal, plain fixed-width text anywhere else."""
    if not getattr(console, "is_terminal", False):
        # soft_wrap: the console must not fold a line at its width (80 columns when it sees no terminal).
        console.print(plain(results, peaks), soft_wrap=True, markup=False, highlight=False)
        return
    from rich.table import Table

    for label, rows in tables(results).items():
        table = Table(title=_title(label, peaks))
        for h in HEADERS:
            table.add_column(h, justify="right" if h in RIGHT else "left", no_wrap=h in ("kernel", "implementation"),
                             overflow="fold")
        for r in rows:
            table.add_row(*r)
        console.print(table)
