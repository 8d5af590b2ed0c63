"""The Gluon column on the page, read on a committed run that timed it (an H200, `rosetta run --only ...`): each Gluon
row's call against its CUDA kernel and each Triton row's against the Gluon mirror, the best Gluon in the headline,
who decides each tiling decision in Gluon, what each model costs to write, the model-or-compiler finding of each
rung, the Gluon forms' deviations, and the charts' Gluon bars. A run without Gluon rows draws none of these."""

from __future__ import annotations

import re

import pytest
from matplotlib.colors import to_hex
from matplotlib.patches import Rectangle

from harness.analysis.findings import Found, findings, recorded
from harness.analysis.measured import Measured
from harness.analysis.model_findings import ModelOrCompiler
from harness.analysis.model_or_compiler import splits
from harness.analysis.record import read_beside
from harness.catalog_types.tables import DECISIONS
from harness.records.file import load
from harness.report import columns, metrics, sections
from harness.report.overview import headline_table, idea_table
from harness.report.plots import all_plots
from harness.report.plots.common import GLUON
from harness.report.results_tables import results_table
from harness.report.sections import mapping_table
from harness.report.tables import table
from tests.recorded import REPO

GLUON_RUN = REPO / "results" / "nvidia-h200-20261126T185109Z.jsonl"
NO_GLUON = REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T102241Z.jsonl"
CALLED = re.compile(r"^\d+\.\d\dx \[\d+\.\d\d–\d+\.\d\d\] (FAST|SLOW|SAME|AMBIGUOUS)$")


@pytest.fixture(scope="module")
def m() -> Measured:
    return Measured(load(GLUON_RUN), read_beside(GLUON_RUN))


@pytest.fixture(scope="module")
def plain_run() -> Measured:
    return Measured(load(NO_GLUON), read_beside(NO_GLUON))


def _column(t, name: str) -> int:
    return [h for h, _ in t.headers].index(name)


def test_a_gluon_row_carries_its_call_against_cuda_and_a_triton_row_its_call_against_the_mirror(m) -> None:
    problem = m.headline("sgemm")
    t = results_table(m, problem)
    vs_cuda, vs_gluon = _column(t, "vs CUDA"), _column(t, "vs Gluon")
    rows = dict(zip([r.key for r in m.on(problem)], t.rows, strict=True))
    gluon = [r for r in m.on(problem) if r.impl_id.is_gluon and r.timed]
    assert gluon and all(rows[r.key][vs_cuda].text == metrics.verdict_text(m.vs(r, "gluon")) for r in gluon)
    assert all(CALLED.match(rows[r.key][vs_cuda].text) for r in gluon)
    mirrored = [r for r in m.on(problem) if r.impl_id.is_triton and m.vs(r, "model") is not None]
    assert mirrored and all(rows[r.key][vs_gluon].text == metrics.verdict_text(m.vs(r, "model")) for r in mirrored)
    # a CUDA row has neither; the legend says what both are
    assert all(rows[r.key][vs_cuda].text == rows[r.key][vs_gluon].text == "—" for r in m.on(problem)
               if r.impl_id.is_cuda)
    assert metrics.VS_CUDA.legend in t.notes


def test_a_run_without_gluon_rows_draws_no_gluon_column(plain_run) -> None:
    headers = [h for h, _ in results_table(plain_run, plain_run.headline("sgemm")).headers]
    assert "vs CUDA" not in headers and "vs Gluon" not in headers
    assert not {"best Gluon", "Gluon vs CUDA"} & {h for h, _ in headline_table(plain_run).headers}
    assert "best Gluon" not in {h for h, _ in idea_table(plain_run).headers}


def test_the_headline_gives_the_best_gluon_and_its_call_against_the_best_cuda(m) -> None:
    from harness.analysis.overview import headline_rows

    t = headline_table(m)
    best, call = _column(t, "best Gluon"), _column(t, "Gluon vs CUDA")
    for row, cells in zip(headline_rows(m), t.rows, strict=True):
        g = row.gluon
        assert g is not None, row.precision   # every class of this run has a Gluon form
        pct, lo, hi = g.interval
        assert cells[best].text == f"{pct:.1f}% [{lo:.1f}–{hi:.1f}]" and g.result.impl_id.is_gluon
        assert g.result.kernel in cells[best].sub
        c = m.between(g.result, row.cuda.result)
        assert cells[call].text.startswith(f"{1 / c.verdict.time.ratio:.2f}x")
    assert columns.GLUON_LEGEND in t.notes


def test_the_mapping_table_says_who_decides_each_decision_in_gluon(m) -> None:
    found = 0
    for idea, _ in m.ideas:
        rows = m.analysis.mapping.rows.get(idea.key, [])
        if not any(r.gluon for r in rows):
            continue
        t = mapping_table(idea, m)
        text, by = _column(t, "Gluon"), _column(t, "in Gluon, decided by")
        for row, cells in zip(rows, t.rows, strict=True):
            assert cells[text].text == (row.gluon or "—") and cells[by].text == (row.gluon_decided_by or "—")
            assert cells[by].cls in ("by-programmer", "by-compiler", "muted")
        assert any(v.side == "gluon" for row in rows for v in row.verdicts)
        found += 1
    assert found >= 4


def test_an_unproven_idea_shows_the_claims_gluon_column_from_the_catalog(m) -> None:
    import dataclasses

    from harness.analysis.record import Analysis

    idea = next(i for i, _ in m.ideas if any(c.gluon for c in m.catalog.claims.get(i.key, ())))
    bare = Measured(m.file, dataclasses.replace(m.analysis, mapping=None) if isinstance(m.analysis, Analysis) else None)
    t = mapping_table(idea, bare)
    texts = [cells[_column(t, "Gluon")].text for cells in t.rows]
    assert texts == [c.gluon or "—" for c in m.catalog.claims[idea.key]]


def test_each_rung_in_three_models_says_what_each_costs_to_write(m) -> None:
    for _idea, kernels in m.ideas:
        rows = [k for k in kernels if k.id in m.catalog.costs]
        if not rows:
            continue
        t = table(m, sections.COSTS, rows, "costs")
        for k, cells in zip(rows, t.rows, strict=True):
            for model, name in (("cuda", "CUDA"), ("triton", "Triton"), ("gluon", "Gluon")):
                lines, decided = m.catalog.costs[k.id][model]
                assert cells[_column(t, name)].text == f"{lines} lines · {decided} of {len(DECISIONS)}"
        assert all(kind in t.notes[0] for kind in DECISIONS)


def test_each_rung_in_three_models_has_a_model_or_compiler_row_naming_what_moves(m) -> None:
    from harness.report.splits import SPLITS, splits_table

    found = [f for f in recorded(m) if isinstance(f, ModelOrCompiler)]
    problem = m.headline("sgemm")
    assert {f.split.kernel for f in found} == {s.kernel for s in splits(m) if s.problem == problem}
    # the record holds what the rule finds
    assert [f.to_json() for f in found] == [f.to_json() for f in findings(m) if isinstance(f, ModelOrCompiler)]
    t = splits_table(m, [f.split for f in found])
    model, moves = (_column(t, c.name) for c in (SPLITS[3], SPLITS[-1]))
    for f, cells in zip(found, t.rows, strict=True):
        s = f.split
        assert ("not the model's part" not in cells[model].sub) is s.same_design
        for q in s.moving:   # each quantity that moves is named with its three values
            assert f"{q.name}: {q.cuda:.3g} / {q.triton:.3g} / {q.gluon:.3g}" in cells[moves].text
        if not s.moving:
            assert cells[moves].text.startswith(("none named", "none of the compiled quantities"))
        assert Found.from_json(f.to_json()).to_json() == f.to_json()


def test_the_model_or_compiler_table_of_an_idea_holds_its_rungs(m) -> None:
    from harness.report.sections import idea_section
    from harness.report.sources import SourcePlanner

    idea, kernels = next((i, ks) for i, ks in m.ideas if i.key == "general_shape")
    section = idea_section(m, idea, kernels, SourcePlanner(m))
    block = next(b for b in section.blocks if getattr(b, "title", "").startswith("Model or compiler"))
    ids = [cells[0].text for cells in block.table.rows]
    assert ids == [f.split.kernel for f in recorded(m) if isinstance(f, ModelOrCompiler) and f.idea == idea.key]
    assert all("moves with the speed" in cells[-1].text or cells[-1].text for cells in block.table.rows)


def test_a_gluon_forms_deviations_stand_beside_it_in_the_kernels_table(m) -> None:
    for _, kernels in m.ideas:
        t = table(m, sections.KERNELS, kernels, "kernels")
        forms = _column(t, "Triton and Gluon counterparts: settings")
        for k, cells in zip(kernels, t.rows, strict=True):
            for g in k.gluon:
                assert f"gluon {g.name} (kernels_gluon/{g.module}.py)" in cells[forms].text
                assert all(f"deviation: {note}" in cells[forms].text for note in g.deviation_notes())


def _coloured(ax, colour: str) -> list[Rectangle]:
    return [p for p in ax.patches if isinstance(p, Rectangle) and p.get_width() > 0 and p.get_height() > 0
            and colour in (to_hex(p.get_facecolor()), to_hex(p.get_edgecolor()))]


def test_the_bar_and_ladder_charts_draw_gluon_in_its_own_colour(m) -> None:
    plots = {p.key: p for p in all_plots(m) if p.png}
    problem = m.headline("sgemm")
    gluon = [r for r in m.on(problem) if r.impl_id.is_gluon and r.timed and r.precision in ("fp32", "3xtf32")]
    bars = plots["bars-sgemm"]
    assert len(_coloured(bars.figure.axes[0], GLUON)) == len(gluon)
    assert "green for each Gluon form" in bars.caption
    hopper = [ax for ax in plots["hopper-ladder"].figure.axes if _coloured(ax, GLUON)]
    assert len(hopper) == 2 and "green its Gluon form" in plots["hopper-ladder"].caption
    assert _coloured(plots["ladder"].figure.axes[0], GLUON)


def test_the_accuracy_chart_names_gluons_colour_where_it_draws_a_gluon_point(m, plain_run) -> None:
    def legend(run: Measured) -> list[str]:
        plot = next(p for p in all_plots(run) if p.key == "accuracy" and p.png)
        return [t.get_text() for t in plot.figure.axes[0].get_legend().get_texts()]

    assert "Gluon" in legend(m) and "Gluon" not in legend(plain_run)
