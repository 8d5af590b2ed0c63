"""The report's content in reading order: what was learned first, then the evidence, then how it was measured."""

from __future__ import annotations

from harness.registry import SEEDS
from harness.report import anchors
from harness.report.doc import Bullets, Document, Figure, Inline, Link, Para, Section, TableBlock
from harness.report.findings import findings
from harness.report.measured import Measured
from harness.report.method import method_section, notices, when
from harness.report.overview import claims_tables, idea_table, shared_triton_table
from harness.report.plots import Plot
from harness.report.results_tables import results_table
from harness.report.sections import idea_section
from harness.report.sources import SourcePlanner


def findings_section(m: Measured) -> Section:
    s = Section(anchors.FINDINGS, "Findings", 2)
    found = findings(m)
    s.add(Para([f"Computed from {m.file.path.name}, not written by hand: each sentence carries its numbers and "
                "links to the section that shows the evidence."], cls="note"))
    items: list[list[Inline]] = [[*f.parts, " ", Link(f"→ {f.evidence.text}", f.evidence.href)] for f in found]
    s.add(Bullets(items, cls="findings", ordered=True))
    return s


def overview_section(m: Measured) -> Section:
    s = Section(anchors.IDEA_TABLE, "Ideas at a glance", 2)
    s.add(TableBlock(idea_table(m)))
    shared = Section(anchors.SHARED_TRITON, "Triton kernels shared by several ideas", 3)
    shared.add(TableBlock(shared_triton_table(m)))
    s.add(shared)
    return s


def claims_section(m: Measured) -> Section:
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


def plots_section(plots: list[Plot]) -> Section:
    s = Section(anchors.PLOTS, "Plots", 2)
    for p in plots:
        width, height = p.size
        sub = Section(anchors.plot(p.key), p.title, 3)
        sub.add(Figure(p.key, p.title, p.caption, p.png, p.missing, width, height))
        s.add(sub)
    return s


def ideas_section(m: Measured, prove: bool = True) -> Section:
    s = Section(anchors.IDEAS, "Ideas", 2)
    if not m.ideas:
        s.add(Para(["No kernel of the registry appears in this file."], cls="missing"))
    planner = SourcePlanner()
    for idea, kernels in m.ideas:
        s.add(idea_section(m, idea, kernels, planner, prove=prove))
    return s


def all_results_section(m: Measured) -> Section:
    s = Section(anchors.RESULTS, "All results", 2)
    for problem in m.problems:
        table = results_table(m, problem)
        if table:
            sub = Section(anchors.problem(problem), problem.label, 3)
            sub.add(TableBlock(table))
            s.add(sub)
    return s


def document(m: Measured, plots: list[Plot], prove: bool = True) -> Document:
    h = m.header
    return Document(
        title=f"tile-rosetta: {h.device}",
        subtitle=(f"Hand-written CUDA GEMM/GEMV kernels from {len(SEEDS)} worklogs beside their Triton counterparts "
                  f"and cuBLAS · run of {when(h.started)} · {m.file.path.name}"),
        notices=notices(m),
        sections=[findings_section(m), overview_section(m), plots_section(plots), claims_section(m),
                  ideas_section(m, prove), all_results_section(m), method_section(m)],
        footer=f"Rendered by harness.report from {m.file.path.name}. Static figures only: this page loads nothing "
               "from the network.")
