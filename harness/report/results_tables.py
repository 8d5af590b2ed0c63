"""The full results: one table per problem, every record of the file in it, figures or the reason for none; its
columns are the declared metrics of harness/report/metrics.py."""

from __future__ import annotations

from harness.analysis.measured import Measured
from harness.device.specs import spec
from harness.problems import Problem
from harness.records.file import Results, load
from harness.report import fmt, metrics
from harness.report.doc import Table
from harness.report.markdown import to_markdown
from harness.report.metrics import why_no_figures
from harness.report.tables import legends, table


def copy_note(m: Measured) -> str | None:
    """Why a kernel can pass 100% of the measured copy bandwidth: the copy test sits below the spec sheet."""
    peaks, sheet = m.header.peaks, spec(m.header.device)
    if peaks is None or sheet is None:
        return None
    return (f"% copy BW can exceed 100%: the measured device-to-device copy ({fmt.gbps(peaks.copy_gbps)} GB/s) is "
            f"{fmt.pct(100 * peaks.copy_gbps / (sheet.hbm_tbps * 1e3))} of the spec sheet's {sheet.hbm_tbps:g} TB/s "
            f"({sheet.source}), which no kernel can exceed.")


def results_table(m: Measured, problem: Problem) -> Table:
    out = table(m, metrics.RESULTS, m.on(problem), "summary", why_no_figures, lambda r: f"status-{r.status.value}",
                problem.op)
    note = copy_note(m) if problem.op == "sgemv" else None
    out.notes += [note] if note else []
    return out


def markdown_results_table(results: Results | Measured | str) -> str:
    """The results tables alone (one per problem), in Markdown: what a README quotes."""
    m = results if isinstance(results, Measured) else Measured(results if isinstance(results, Results)
                                                                   else load(results))
    parts = []
    for problem in m.problems:
        t = results_table(m, problem)
        if t:
            t.notes = []
            parts.append(f"#### {problem.label}\n\n{to_markdown(t)}")
    legend = "\n".join(f"- {line}" for line in legends(metrics.RESULTS))
    return "\n\n".join(parts) + "\n\n" + legend + "\n"
