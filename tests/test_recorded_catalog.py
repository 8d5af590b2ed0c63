"""An analysis record keeps the catalog it was analysed with, and a page is drawn from it: a kernel renamed, retuned
or moved since shows as it was measured, and rendering loads neither the catalog nor anything that compiles."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.analysis.record import Analysis, analysis_path, read_beside
from harness.catalog import CATALOG
from harness.catalog_types.tables import Catalog
from harness.problems import Problem
from harness.report.render import render

REPO = Path(__file__).resolve().parents[1]
RUN = REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T102241Z.jsonl"


def test_the_catalog_reads_back_from_its_json_as_it_was_written() -> None:
    back = Catalog.from_json(json.loads(json.dumps(CATALOG.to_json())))
    assert back.kernels == CATALOG.kernels
    assert (back.ideas, back.seeds, back.section_en) == (CATALOG.ideas, CATALOG.seeds, CATALOG.section_en)
    assert (back.unroll_claim, back.ladders, back.claims) == (CATALOG.unroll_claim, CATALOG.ladders, CATALOG.claims)


@pytest.mark.parametrize("problem", [Problem("sgemm", 4096, 4096, 4096), Problem("sgemm", 1000, 1000, 1000),
                                     Problem("sgemm", 64, 128, 64, alpha=2.0, beta=0.5),
                                     Problem("sgemm", 3 * 2**15, 3 * 2**15, 2**15)])
def test_a_recorded_kernel_refuses_the_problems_the_catalog_refuses(problem: Problem) -> None:
    back = Catalog.from_json(json.loads(json.dumps(CATALOG.to_json())))
    for now, then in zip(CATALOG.kernels, back.kernels, strict=True):
        assert then.unmet(problem) == now.unmet(problem), now.id


def test_the_committed_default_run_keeps_its_catalog_in_its_record() -> None:
    recorded = read_beside(RUN)
    assert recorded is not None and recorded.catalog is not None
    assert {r["kernel"] for r in map(json.loads, RUN.read_text().splitlines()[1:]) if r.get("kernel")} \
        <= set(recorded.catalog.by_id)


def test_a_page_shows_an_idea_as_its_record_names_it_not_as_the_catalog_does_today(tmp_path: Path) -> None:
    run = tmp_path / RUN.name
    shutil.copy(RUN, run)
    data = json.loads(analysis_path(RUN).read_text(encoding="utf-8"))
    idea = next(i for i in data["catalog"]["ideas"] if i["key"] == "smem_tile")
    today = idea["title"]
    idea["title"] = "Shared-memory tiles, as this record named them"
    Analysis.from_json(data).write(analysis_path(run))
    html, _ = render(run, tmp_path / "page")
    page = html.read_text(encoding="utf-8")
    # the idea's link in the headline table, and its section's heading, name it as the record does
    assert '<a href="#idea-smem_tile">Shared-memory tiles, as this record named them</a>' in page
    assert f'<a href="#idea-smem_tile">{today}</a>' not in page


def test_rendering_a_page_loads_neither_the_catalog_nor_a_compiler_nor_torch(tmp_path: Path) -> None:
    probe = ("import sys; from pathlib import Path; from harness.report.render import render; "
             f"render(Path({str(RUN)!r}), Path({str(tmp_path)!r})); "
             "print('\\n'.join(sorted(sys.modules)))")
    loaded = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True,
                            check=True).stdout.split()
    heavy = ("harness.catalog.", "harness.registry", "harness.claims", "harness.inspect", "harness.nvrtc",
             "harness.launch", "torch", "triton", "cupy", "cuda")
    assert not [m for m in loaded if m == "harness.catalog" or m.startswith(heavy)]


def test_the_wgmma_rungs_a_record_derives_from_its_ladders_are_the_hopper_family() -> None:
    from harness.catalog import hopper

    assert CATALOG.hopper == hopper.KERNELS
