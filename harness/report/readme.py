"""Regenerate the README's results section, and docs/results.md, from a recorded run, and its section on fp32 work
on the tensor cores (and docs/fp32-class.md) from the same run or from a run of those rows alone, which the section
then names as another run; files measured beside the run (a `rosetta profile` of its rows, a run of some of its rungs
at another size) are cited and shown with it:

    python -m harness.report.readme results/<run>.jsonl [results/<fp32-class run>.jsonl] [--also FILE ...]

Everything between the README's markers comes from the files; the plots are written as PNGs beside them."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from harness.analysis import knobs as analysis_knobs
from harness.analysis.findings import recorded
from harness.analysis.measured import Measured
from harness.analysis.model_findings import ModelOrCompiler
from harness.analysis.model_or_compiler import splits
from harness.analysis.record import read_beside
from harness.records.file import load
from harness.report import anchors, fmt, knobs, markdown
from harness.report import splits as split_table
from harness.report.findings import words
from harness.report.markdown import to_markdown
from harness.report.method import command
from harness.report.overview import claims_tables, fp32_class_table, headline_table, idea_table
from harness.report.plots import all_plots
from harness.report.regimes import DOC, doc_text, readme_lines
from harness.report.results_tables import markdown_results_table

BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
FP32_BEGIN, FP32_END = "<!-- fp32-class:begin -->", "<!-- fp32-class:end -->"
# The plots the README shows (the accuracy chart in its own section); the report shows them all.
README_PLOTS = (anchors.BARS.format(op="sgemm"), anchors.HOPPER_LADDER)
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


def _rungs(m: Measured, profiles: list[Path]) -> list:
    """The splits of the run's headline problems, with the issue-active cycles of the profiles measured beside it."""
    headline = {m.headline(op) for op in m.ops}
    if not profiles:
        return [f.split for f in recorded(m) if isinstance(f, ModelOrCompiler) and f.split is not None]
    return [s for s in splits(m, profiles) if s.problem in headline]


def _cited(paths: list[Path], readme_dir: Path) -> str:
    return fmt.joined([f"[{p.name}]({Path(os.path.relpath(p.resolve(), readme_dir.resolve())).as_posix()})"
                       for p in paths])


def section(results_path: Path, readme_dir: Path, also: tuple[Path, ...] = ()) -> str:
    """The run's headline, its regimes, findings, model-or-compiler table and charts; `also`: files measured beside
    it, cited (profiles feed the table's issue-active cycles; runs of other sizes have their tables in docs)."""
    m = measured(results_path)
    h = m.header
    path = results_path.as_posix()
    profiles = [p for p in also if p.suffix == ".json"]
    lines = [f"Measured on {h.device} ({h.started}), with `{command(m)}`; re-render with `rosetta report {path}`, "
             f"regenerate this section with `python -m harness.report.readme {path} [<fp32-class run>] "
             "[--also FILE ...]`."]
    if h.peaks:
        lines.append(f"Measured peaks: {h.peaks.fp32_tflops:.1f} TFLOP/s FP32 FMA, {h.peaks.copy_gbps:.0f} GB/s "
                     f"device-to-device copy (bytes read + written).")
    lines.append("#### Headline\n\n" + to_markdown(headline_table(m)))
    lines += readme_lines(results_path)  # the sustained regime, where its file lies beside the run
    if numbered := [f for f in recorded(m) if f.NUMBERED]:
        lines.append("#### Findings\n\n" + "\n".join(f"{n}. {markdown.inline(words(f, m), links=False)}"
                                                     for n, f in enumerate(numbered, 1)))
    if rungs := _rungs(m, profiles):
        cited = f" Issue-active cycles from {_cited(profiles, readme_dir)}." if profiles else ""
        runs = [p for p in also if p.suffix == ".jsonl"]
        other = (f" The same rungs in {_cited(runs, readme_dir)}: [docs/results.md](docs/results.md#{OTHER})."
                 if runs else "")
        lines.append(f"#### {split_table.TITLE}\n\n{split_table.INTRO}{cited}{other}\n\n"
                     + to_markdown(split_table.splits_table(m, rungs)))
    lines += _plots(m, results_path, readme_dir, list(README_PLOTS))
    study = analysis_knobs.read_beside(results_path)
    if study is not None and study.findings:
        lines.append(f"Why each Triton form trails Triton's tutorial GEMM, one knob at a time "
                     f"(`rosetta knobs {path}`): [docs/results.md](docs/results.md#{anchors.KNOBS}).")
    lines.append("Each idea at a glance, every result of the run, and the documents' figures beside ours: "
                 "[docs/results.md](docs/results.md).")
    return "\n\n".join(lines)


def fp32_section(results_path: Path, readme_dir: Path, main: Path) -> str:
    """The accuracy chart and its table of rows (the README's second section): of the run above, or of a run of the
    fp32-class rows alone, which it then names as another run than the one above."""
    m = measured(results_path)
    path = results_path.as_posix()
    lines = [f"Measured on {m.header.device} ({m.header.started}), with `{command(m)}`; regenerate with "
             f"`python -m harness.report.readme {main.as_posix()}"
             + ("`." if results_path == main else f" {path}`. This is another run than the one above: its figures, "
                "its Triton tutorial's included, are that run's, not the headline's.")]
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
            f"`{command(m)}`; generated by `python -m harness.report.readme` from {results_path.as_posix()}.\n\n"
            + (to_markdown(table) if table is not None else "No fp32-class row was timed.") + "\n")


def _between(text: str, begin: str, end: str, body: str, readme: Path) -> str:
    if begin not in text or end not in text:
        raise ValueError(f"{readme} has no {begin} ... {end} markers")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{body}\n{end}{tail}"


def long_tables(results_path: Path, docs_dir: Path, also: tuple[Path, ...] = ()) -> str:
    """docs/results.md: every result of the run, the charts the README leaves out, the documents' figures beside ours,
    and the model-or-compiler table of each run measured beside it (`also`)."""
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
    for i, other in enumerate(p for p in also if p.suffix == ".jsonl"):
        o = measured(other)
        found = [f.split for f in recorded(o) if isinstance(f, ModelOrCompiler) and f.split is not None]
        lines.append(("" if i else f'<a id="{OTHER}"></a>\n\n')
                     + f"## {split_table.TITLE}: {other.name}\n\nMeasured on {o.header.device} with `{command(o)}`.\n\n"
                     + (to_markdown(split_table.splits_table(o, found)) if found else "No rung in three models."))
    return "\n\n".join(lines) + "\n"


OTHER = "beside-the-run"


def update(readme: Path, results_path: Path, fp32_path: Path | None = None,
           also: tuple[Path, ...] = ()) -> None:
    """The README's two sections and the docs they link to; the fp32-class section is the run's own where no run of
    those rows is given, so that no section is left from an older run."""
    fp32 = fp32_path or results_path
    text = _between(readme.read_text(encoding="utf-8"), BEGIN, END, section(results_path, readme.parent, also), readme)
    text = _between(text, FP32_BEGIN, FP32_END, fp32_section(fp32, readme.parent, results_path), readme)
    readme.write_text(text, encoding="utf-8")
    docs = readme.parent / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "fp32-class.md").write_text(fp32_tables(fp32), encoding="utf-8")
    (docs / "results.md").write_text(long_tables(results_path, docs, also), encoding="utf-8")
    if (regimes := doc_text(results_path, docs)) is not None:
        (readme.parent / DOC).write_text(regimes, encoding="utf-8")


if __name__ == "__main__":
    args, also = sys.argv[1:], []
    if "--also" in args:
        args, also = args[:args.index("--also")], args[args.index("--also") + 1:]
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    update(Path("README.md"), Path(args[0]), Path(args[1]) if len(args) == 2 else None, tuple(Path(a) for a in also))
