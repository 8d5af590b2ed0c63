"""Results file -> one HTML page (primary, self-contained) and one Markdown page, plots as PNGs beside them.

The page's content in reading order: what was learned first, then the evidence, then how it was measured."""

from __future__ import annotations

from pathlib import Path

from harness.analysis import knobs as analysis_knobs
from harness.analysis.findings import recorded
from harness.analysis.measured import Measured
from harness.analysis.model_findings import ModelOrCompiler
from harness.analysis.overview import Part, parts
from harness.analysis.record import read_beside
from harness.records.file import load
from harness.report import anchors, html, knobs, markdown, sections, splits, wording
from harness.report.doc import Bullets, Document, Link, Para, Section, SourcePair, TableBlock
from harness.report.findings import evidence, words
from harness.report.method import method_section, notices, when
from harness.report.overview import claims_tables, fp32_class_table, headline_table, idea_table, shared_triton_table
from harness.report.plots import Plot, all_plots
from harness.report.regimes import regime_plots, regimes_section
from harness.report.results_tables import results_table
from harness.report.sections import idea_section
from harness.report.sources import SourcePlanner
from harness.report.steps import HOPPER_TITLE, ladder_steps_table
from harness.report.tables import table


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
    charts = regime_plots(m)  # drawn in the regimes section only
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = Path(results_path).stem
    files = {}
    for p in (*plots, *charts):
        if p.png:
            name = f"{stem}-{p.key}.png"
            (out_dir / name).write_bytes(p.png)
            files[p.key] = name
    doc = document(m, plots, charts)
    html_path, md_path = out_dir / f"{stem}.html", out_dir / f"{stem}.md"
    html_path.write_text(html.page(doc, files), encoding="utf-8")
    md_path.write_text(markdown.page(doc, files), encoding="utf-8")
    return html_path, md_path


# Tables an idea section keeps folded: the detail behind its figures, one click away.
FOLDED = ("Compiled resources", "SASS instruction mix", "Kernels", "Each tiling decision in each model",
          HOPPER_TITLE)
# Any other table of an idea section longer than this is folded too (the tensor-core ideas measure a dozen rows
# and more, the GEMV ideas one row per shape and model): the section's paragraph above it already names the best of
# each model.
OPEN_ROWS = 8


def findings_section(m: Measured) -> Section:
    s = Section(anchors.FINDINGS, "Findings", 2)
    found = recorded(m)
    s.add(Para([f"Computed from {m.file.path.name}, not written by hand: each sentence carries its numbers and "
                "links to the section that shows the evidence."], cls="note"))
    s.add(Bullets([[*words(f, m), " ", Link(f"→ {evidence(f, m).text}", evidence(f, m).href)] for f in found
                   if f.NUMBERED], cls="findings", ordered=True))
    if rungs := [f.split for f in found if isinstance(f, ModelOrCompiler) and f.split is not None]:
        sub = Section(anchors.MODEL_OR_COMPILER, splits.TITLE, 3)
        sub.add(Para([splits.INTRO], cls="note"), TableBlock(splits.splits_table(m, rungs)))
        s.add(sub)
    study = analysis_knobs.read_beside(m.file.path)
    if study is not None and study.findings:
        sub = Section(anchors.KNOBS, knobs.TITLE, 3)
        sub.add(Para(knobs.knob_intro(study), cls="note"))
        sub.add(Bullets(knobs.knob_bullets(study, detail=False), cls="findings"))
        sub.add(TableBlock(table(m, knobs.KNOBS, knobs.variant_rows(study), "knobs"), "Every knob of each row",
                           folded=True))
        s.add(sub)
    return s


def overview_section(m: Measured) -> Section:
    s = Section(anchors.IDEA_TABLE, "Ideas at a glance", 2)
    if any(r.timed for r in m.all):  # without timings every figure of that table is a dash
        s.add(TableBlock(idea_table(m)))
    shared = Section(anchors.SHARED_TRITON, "Triton kernels shared by several ideas", 3)
    shared.add(TableBlock(shared_triton_table(m), "Modules and the kernels that launch them", folded=True))
    s.add(shared)
    return s


def claims_section(m: Measured) -> Section | None:
    if not any(r.timed for r in m.all):   # nothing of ours to hold beside the documents' figures
        return None
    s = Section(anchors.CLAIMS, "The documents' figures beside ours", 2)
    table, stride, unroll = claims_tables(m)
    s.add(Para(["Each document measured on its own GPU, so its figures are compared as shapes: % of its own "
                "cuBLAS, and which kernel beats which."], cls="note"))
    s.add(TableBlock(table))
    if stride is not None:
        sub = Section(anchors.STRIDE, "Seed 001's stride sweep", 3)
        sub.add(TableBlock(stride))
        s.add(sub)
    if unroll is not None:
        sub = Section(anchors.UNROLL, "Seed 000's unroll ratio", 3)
        sub.add(Para(unroll))
        s.add(sub)
    return s


def headline_section(m: Measured, plots: list[Plot]) -> Section | None:
    """What the first screen shows: the best CUDA, best Triton and cuBLAS per op, and the ladder chart."""
    s = Section(anchors.HEADLINE, "Headline", 2)
    table = headline_table(m)
    if table:
        s.add(TableBlock(table))
    ladder = next((p for p in plots if p.key == anchors.LADDER and p.png), None)
    if ladder is not None:
        s.add(ladder.block())
        steps = ladder_steps_table(m)
        if steps:
            s.add(TableBlock(steps, "What each rung added"))
    return s if s.blocks else None


def plots_section(m: Measured, plots: list[Plot]) -> Section | None:
    """Every plot that has something to draw (the ladder chart is in the headline), the accuracy chart with its
    table of rows (folded); none: no section."""
    drawn = [p for p in plots if p.png and p.key != anchors.LADDER]
    if not drawn:
        return None
    s = Section(anchors.PLOTS, "Plots", 2)
    for p in drawn:
        sub = Section(anchors.plot(p.key), p.title, 3)
        sub.add(p.block())
        if p.key == anchors.ACCURACY and (table := fp32_class_table(m)) is not None:
            sub.add(TableBlock(table, "Every point: speed, interval, call and error per layer", folded=True))
        s.add(sub)
    return s


def _fold(section: Section) -> Section:
    """An idea section as the page shows it: an anchor per kernel, sources and detail tables folded."""
    section.level = 4
    for b in section.blocks:
        if isinstance(b, TableBlock) and b.table.cls == "kernels":
            for row in b.table.rows:
                row[0].anchor = anchors.kernel(row[0].text)
        if isinstance(b, TableBlock) and (b.title in FOLDED or len(b.table.rows) > OPEN_ROWS):
            b.folded = True
        if isinstance(b, SourcePair):
            b.folded = True
    return section


def part_section(m: Measured, part: Part, planner: SourcePlanner) -> Section:
    s = Section(anchors.part(part), wording.part_title(part), 3)
    s.cls = "part"
    if part.is_ladder:
        s.add(Para([f"{len(part.ideas)} rungs in registry order, each adding one idea to the rung before; "
                    "each rung's CUDA source is shown as what it changed since the rung before."], cls="note"))
    problem = m.headline(part.op)
    ids = {k.id for _, kernels in part.ideas for k in kernels}
    reads = [read for r in (m.on(problem) if problem else []) if r.kernel in ids and (read := m.layout(r))]
    if reads:
        s.add(TableBlock(table(m, sections.LAYOUT, reads, "layout"), f"B's layout: each K-major row on "
                         f"{problem.label} alone and with the time to pack B", folded=len(reads) > OPEN_ROWS))
    for idea, kernels in part.ideas:
        s.add(_fold(idea_section(m, idea, list(kernels), planner)))
    return s


def ideas_section(m: Measured) -> Section:
    s = Section(anchors.IDEAS, "The kernels, part by part", 2)
    if not m.ideas:
        s.add(Para(["No kernel of the registry appears in this file."], cls="missing"))
    planner = SourcePlanner(m)
    for part in parts(m):
        s.add(part_section(m, part, planner))
    return s


def all_results_section(m: Measured) -> Section:
    s = Section(anchors.RESULTS, "All results", 2)
    s.add(Para(["Every record of the file, one folded table per problem."], cls="note"))
    for problem in m.problems:
        table = results_table(m, problem)
        if table:
            sub = Section(anchors.problem(problem), problem.label, 3)
            sub.add(TableBlock(table, folded=True, title=f"{problem.label}: {len(table.rows)} records"))
            s.add(sub)
    return s


def document(m: Measured, plots: list[Plot], charts: list[Plot] | None = None) -> Document:
    h = m.header
    return Document(
        title=f"tile-rosetta: {h.device}",
        subtitle=(f"Hand-written CUDA GEMM/GEMV kernels from {len(m.catalog.seeds)} worklogs beside their "
                  f"Triton counterparts and cuBLAS · run of {when(h.started)}"),  # the file: named in the footer
        notices=notices(m),
        sections=[s for s in (headline_section(m, plots), findings_section(m), regimes_section(m, charts or []),
                              overview_section(m), plots_section(m, plots), claims_section(m), ideas_section(m),
                              all_results_section(m), method_section(m)) if s is not None],
        footer=f"Rendered by harness.report from {m.file.path.name}. Static figures only: this page loads nothing "
               "from the network.")
