"""Regenerate the README's results section from a recorded run:

    python -m harness.report.readme results/<run>.jsonl

Everything between the README's results markers comes from that file: the run's device and command,
the findings, the idea table, the plots (written as PNGs beside the results file), the results
tables and the documents' figures beside ours.
"""

from __future__ import annotations

import sys
from pathlib import Path

from harness.report import anchors, markdown
from harness.report.findings import findings
from harness.report.measured import Measured
from harness.report.method import command
from harness.report.overview import claims_tables, idea_table
from harness.report.plots import all_plots
from harness.report.results_tables import markdown_results_table
from harness.report.tables import to_markdown
from harness.run.results import load

BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
# The plots the README shows; the report shows them all.
README_PLOTS = (anchors.BARS.format(op="sgemm"), anchors.BARS.format(op="sgemm") + "-tf32", anchors.HOPPER_LADDER,
                anchors.GEMV, anchors.ROOFLINE, anchors.ACCURACY)


def section(results_path: Path, readme_dir: Path) -> str:
    m = Measured(load(results_path))
    h = m.header
    path = results_path.as_posix()
    lines = [f"Measured on {h.device} ({h.started}), with `{command(m)}`; re-render with `rosetta report {path}`, "
             f"regenerate this section with `python -m harness.report.readme {path}`."]
    if h.peaks:
        lines.append(f"Measured peaks: {h.peaks.fp32_tflops:.1f} TFLOP/s FP32 FMA, {h.peaks.copy_gbps:.0f} GB/s "
                     f"device-to-device copy (bytes read + written).")
    found = findings(m)
    if found:
        lines.append("#### Findings\n\n" + "\n".join(f"{n}. {markdown.inline(f.parts, links=False)}"
                                                     for n, f in enumerate(found, 1)))
    lines.append("#### Ideas at a glance\n\n" + to_markdown(idea_table(m)))
    for plot in all_plots(m):
        if plot.png and plot.key in README_PLOTS:
            name = f"{results_path.stem}-{plot.key}.png"
            (results_path.parent / name).write_bytes(plot.png)
            rel = (results_path.parent / name).resolve().relative_to(readme_dir.resolve())
            lines.append(f"![{plot.title}]({rel.as_posix()})\n\n{plot.caption}")
    lines.append(markdown_results_table(m).rstrip())
    claims, stride, unroll = claims_tables(m)
    lines.append("#### The documents' figures beside ours\n\n" + to_markdown(claims))
    if stride is not None:
        lines.append(to_markdown(stride))
    if unroll is not None:
        lines.append(markdown.inline(unroll))
    return "\n\n".join(lines)


def update(readme: Path, results_path: Path) -> None:
    text = readme.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise ValueError(f"{readme} has no {BEGIN} ... {END} markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(f"{head}{BEGIN}\n{section(results_path, readme.parent)}\n{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    update(Path("README.md"), Path(sys.argv[1]))
