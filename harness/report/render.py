"""Results file -> one HTML page (primary, self-contained) and one Markdown page, plots as PNGs beside them."""

from __future__ import annotations

from pathlib import Path

from harness.analysis.measured import Measured
from harness.analysis.record import read_beside
from harness.report import html, markdown
from harness.report.document import document
from harness.report.plots import all_plots
from harness.run.results import load


def render(results_path: Path, out_dir: Path) -> tuple[Path, Path]:
    """Write <stem>.html and <stem>.md (+ <stem>-<plot>.png beside them); return both paths.

    The page renders the records and the analysis record beside them, and compiles nothing: the mapping claims show
    as that record proved them (`rosetta run` and `rosetta analyse` write it). Raises ValueError for a file that is
    not a results file (empty, not JSON, no header), before anything is written.
    """
    results = load(results_path)
    # the analysis record written beside the file by `rosetta run` (made now, in memory, where it is missing or stale)
    m = Measured(results, read_beside(Path(results_path)))
    plots = all_plots(m)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = Path(results_path).stem
    files = {}
    for p in plots:
        if p.png:
            name = f"{stem}-{p.key}.png"
            (out_dir / name).write_bytes(p.png)
            files[p.key] = name
    doc = document(m, plots)
    html_path, md_path = out_dir / f"{stem}.html", out_dir / f"{stem}.md"
    html_path.write_text(html.page(doc, files), encoding="utf-8")
    md_path.write_text(markdown.page(doc, files), encoding="utf-8")
    return html_path, md_path
