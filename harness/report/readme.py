"""Regenerate the README's results section, and docs/results.md, from a recorded run, and its section on fp32 work
on the tensor cores (and docs/fp32-class.md) from a run of those rows:

    python -m harness.report.readme results/<run>.jsonl [results/<fp32-class run>.jsonl]

Everything between the README's markers comes from the files; the plots are written as PNGs beside them."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from harness.analysis import knobs as analysis_knobs
from harness.analysis.findings import ModelOrCompiler, recorded
from harness.analysis.measured import Measured
from harness.analysis.record import read_beside
from harness.records.file import load
from harness.report import anchors, knobs, markdown, splits
from harness.report.findings import words
from harness.report.markdown import to_markdown
from harness.report.method import command
from harness.report.overview import claims_tables, fp32_class_table, headline_table, idea_table
from harness.report.plots import all_plots
from harness.report.regimes import DOC, doc_text, readme_lines
from harness.report.results_tables import markdown_results_table

BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
FP32_BEGIN, FP32_END = "<!-- fp32-class:begin -->", "<!-- fp32-class:end -->"
# The plots the README shows; the report shows them all.
README_PLOTS = (anchors.BARS.format(op="sgemm"), anchors.HOPPER_LADDER, anchors.ACCURACY)
# and docs/results.md the rest of the README's kind (the page shows them all)
DOC_PLOTS = (anchors.BARS.format(op="sgemm") + "-tf32", anchors.GEMV, anchors.ROOFLINE)


def measured(results_path: Path) -> Measured:
    """The run as its page reads it: with the analysis record beside it, so that the README and the page print the
    same figure to the same digit."""
    return Measured(load(results_path), read_beside(results_path))


def _plots(m: Measured, results_path: Path, readme_dir: Path, keys: list[str]) -> list[str]:
    """The run's plots among `keys`, each written as a PNG beside its results file: Markdown images, captions under."""
    out = []
    for plot in (p for p in all_plots(m) if p.png and p.key in keys):
        png = results_path.parent / f"{results_path.stem}-{plot.key}.png"
        png.write_bytes(plot.png or b"")
        out.append(f"![{plot.title}]({Path(os.path.relpath(png.resolve(), readme_dir.resolve())).as_posix()})\n\n"
                   f"{plot.caption}")
    return out


def section(results_path: Path, readme_dir: Path, accuracy: bool = True) -> str:
    """`accuracy`: show the run's accuracy chart (False where the fp32-class section shows one of its own)."""
    m = measured(results_path)
    h = m.header
    path = results_path.as_posix()
    lines = [f"Measured on {h.device} ({h.started}), with `{command(m)}`; re-render with `rosetta report {path}`, "
             f"regenerate this section with `python -m harness.report.readme {path} [<fp32-class run>]`."]
    if h.peaks:
        lines.append(f"Measured peaks: {h.peaks.fp32_tflops:.1f} TFLOP/s FP32 FMA, {h.peaks.copy_gbps:.0f} GB/s "
                     f"device-to-device copy (bytes read + written).")
    lines.append("#### Headline\n\n" + to_markdown(headline_table(m)))
    lines += readme_lines(results_path)  # the sustained regime, where its file lies beside the run
    found = recorded(m)
    if numbered := [f for f in found if f.NUMBERED]:
        lines.append("#### Findings\n\n" + "\n".join(f"{n}. {markdown.inline(words(f, m), links=False)}"
                                                     for n, f in enumerate(numbered, 1)))
    if rungs := [f.split for f in found if isinstance(f, ModelOrCompiler) and f.split is not None]:
        lines.append(f"#### {splits.TITLE}\n\n{splits.INTRO}\n\n" + to_markdown(splits.splits_table(m, rungs)))
    lines += _plots(m, results_path, readme_dir, [k for k in README_PLOTS if accuracy or k != anchors.ACCURACY])
    study = analysis_knobs.read_beside(results_path)
    if study is not None and study.findings:
        lines.append(f"Why each Triton form trails Triton's tutorial GEMM, one knob at a time "
                     f"(`rosetta knobs {path}`): [docs/results.md](docs/results.md#{anchors.KNOBS}).")
    lines.append("Each idea at a glance, every result of the run, and the documents' figures beside ours: "
                 "[docs/results.md](docs/results.md).")
    return "\n\n".join(lines)


def fp32_section(results_path: Path, readme_dir: Path) -> str:
    """The accuracy chart and its table of rows from a run of the fp32-class rows (the README's second section)."""
    m = measured(results_path)
    path = results_path.as_posix()
    lines = [f"Measured on {m.header.device} ({m.header.started}), with `{command(m)}`; regenerate with "
             f"`python -m harness.report.readme <run> {path}`."]
    lines += _plots(m, results_path, readme_dir, [anchors.ACCURACY])
    if fp32_class_table(m) is not None:
        lines.append("Every point with its speed interval, call, registers and error per layer: "
                     "[docs/fp32-class.md](docs/fp32-class.md).")
    return "\n\n".join(lines)


def fp32_tables(results_path: Path) -> str:
    """docs/fp32-class.md: the fp32-class table of a run, every problem of it."""
    m = measured(results_path)
    table = fp32_class_table(m)
    return (f"# fp32 work on the tensor cores: every row of {results_path.name}\n\nMeasured on {m.header.device} with "
            f"`{command(m)}`; generated by `python -m harness.report.readme <run> {results_path.as_posix()}`.\n\n"
            + (to_markdown(table) if table is not None else "No fp32-class row was timed.") + "\n")


def _between(text: str, begin: str, end: str, body: str, readme: Path) -> str:
    if begin not in text or end not in text:
        raise ValueError(f"{readme} has no {begin} ... {end} markers")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{body}\n{end}{tail}"


def long_tables(results_path: Path, docs_dir: Path) -> str:
    """docs/results.md: every result of the run, the charts the README leaves out, and the documents' figures
    beside ours."""
    m = measured(results_path)
    lines = [f"# Every result of {results_path.name}\n\nMeasured on {m.header.device} with `{command(m)}`; "
             f"generated by `python -m harness.report.readme {results_path.as_posix()}`.",
             "## Ideas at a glance\n\n" + to_markdown(idea_table(m)),
             *_plots(m, results_path, docs_dir, list(DOC_PLOTS)),
             markdown_results_table(m).rstrip()]
    claims, stride, unroll = claims_tables(m)
    lines.append("## The documents' figures beside ours\n\n" + to_markdown(claims))
    if stride is not None:
        lines.append(to_markdown(stride))
    if unroll is not None:
        lines.append(markdown.inline(unroll))
    study = analysis_knobs.read_beside(results_path)
    if study is not None and study.findings:
        lines.append(f'<a id="{anchors.KNOBS}"></a>\n\n## {knobs.TITLE}\n\n'
                     + markdown.inline(knobs.knob_intro(study), links=False) + "\n\n"
                     + "\n".join(f"- {markdown.inline(item, links=False)}" for item in knobs.knob_bullets(study)))
    return "\n\n".join(lines) + "\n"


def update(readme: Path, results_path: Path, fp32_path: Path | None = None) -> None:
    main = section(results_path, readme.parent, accuracy=fp32_path is None)
    text = _between(readme.read_text(encoding="utf-8"), BEGIN, END, main, readme)
    if fp32_path is not None:
        text = _between(text, FP32_BEGIN, FP32_END, fp32_section(fp32_path, readme.parent), readme)
    readme.write_text(text, encoding="utf-8")
    docs = readme.parent / "docs"
    docs.mkdir(exist_ok=True)
    if fp32_path is not None:
        (docs / "fp32-class.md").write_text(fp32_tables(fp32_path), encoding="utf-8")
    (docs / "results.md").write_text(long_tables(results_path, docs), encoding="utf-8")
    if (regimes := doc_text(results_path, docs)) is not None:
        (readme.parent / DOC).write_text(regimes, encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    update(Path("README.md"), Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) == 3 else None)
