"""Every fact the page prints beside a measured number is the record's: the page of a committed H100 run is walked
row by row and each fact (the configuration that ran, threads, shared memory static and dynamic, occupancy, the
intensity of the tile that ran) is held to what the results file and its analysis record say, derived here from
the JSON itself, not through the code that wrote the page."""

from __future__ import annotations

import json

import pytest

from harness.analysis.measured import Measured
from harness.analysis.record import read_beside
from harness.records.file import load
from harness.report import fmt
from harness.report.findings import words
from harness.report.overview import headline_table
from harness.report.render import render
from tests.recorded import REPO
from tests.report_page import parse

RUN = REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T102241Z.jsonl"


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return [d for d in map(json.loads, RUN.read_text(encoding="utf-8").splitlines()) if d.get("record") == "result"]


@pytest.fixture(scope="module")
def declared() -> dict[str, dict]:
    """The kernels as the run's analysis record kept the catalog it was analysed with."""
    data = json.loads(RUN.with_suffix("").with_suffix(".analysis.json").read_text(encoding="utf-8"))
    return {k["id"]: k for k in data["catalog"]["kernels"]}


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory):
    html, _ = render(RUN, tmp_path_factory.mktemp("facts"))
    return parse(html)


@pytest.fixture(scope="module")
def m() -> Measured:
    return Measured(load(RUN), read_beside(RUN))


def ran(d: dict) -> dict:
    """A record's launch as it ran: its configuration, an autotuner's choice in place of the settings it started
    from."""
    cfg = dict((d.get("resources") or {}).get("config") or {})
    cfg.update(cfg.pop("autotuned", None) or {})
    return cfg


def label(d: dict) -> str:
    impl = d["impl"]
    return "CUDA" if impl == "cuda" else f"Triton {impl.split(':', 1)[1]}" if impl.startswith("triton:") else impl


def nbytes(n: int) -> str:
    return f"{n / 1024:.1f} KiB" if n >= 1024 else f"{n} B"


def tile_intensity(d: dict, tm: int, tn: int, reads_c: bool) -> float:
    p = d["problem"]
    moved = 4 * (p["M"] * p["K"] * -(-p["N"] // tn) + p["K"] * p["N"] * -(-p["M"] // tm) + p["M"] * p["N"]
                 * (2 if reads_c else 1))
    return 2 * p["M"] * p["N"] * p["K"] / moved


def expected_launch(d: dict, declared: dict[str, dict]) -> tuple[str, int]:
    """The tile text and the threads per block of a row, from the JSON alone."""
    if d["impl"] == "cuda":
        k = declared[d["kernel"]]
        tile = ((f"rows {k['tile_m']}, step {k['tile_k']}") if d["op"] == "sgemv"
                else f"{k['tile_m']}×{k['tile_n']}×{k['tile_k']} tile")
        x, y, z = k["block"]
        return tile, x * y * z
    cfg = ran(d)
    tile = (f"rows {cfg['block_m']}, step {cfg['block_n']}" if d["op"] == "sgemv"
            else "×".join(str(cfg[k]) for k in ("block_m", "block_n", "block_k") if k in cfg) + " tile")
    return tile, 32 * cfg["num_warps"]


def test_every_compiled_row_shows_what_ran_and_what_it_was_allotted_as_its_record_says(page, records, declared):
    """The compiled resources of every implementation: the configuration that ran, threads, shared memory static and
    dynamic, and the occupancy the run itself computed with the launch's dynamic shared memory."""
    rows = {(r["kernel"].text, r["implementation"].text): r for r in page.rows_of("resources")}
    checked = 0
    for d in records:
        res = d.get("resources") or {}
        key = (d["kernel"], label(d))
        if d["kernel"] is None or res.get("registers") is None or key not in rows:
            continue
        row, (tile, threads) = rows[key], expected_launch(d, declared)
        assert row["ran with"].text.startswith(tile), (key, row["ran with"].text)
        if d["impl"] != "cuda":
            cfg = ran(d)
            warps = cfg["num_warps"]
            assert f"{warps} warp{'s' if warps != 1 else ''}" in row["ran with"].text, key
            assert ("stages" in row["ran with"].text) == (cfg.get("num_stages", 1) != 1), key
            if "group_m" in cfg:
                assert f"group {cfg['group_m']}" in row["ran with"].text, key
        assert row["threads"].text == str(threads), key
        dynamic = declared[d["kernel"]].get("dynamic_smem", 0) if d["impl"] == "cuda" else 0
        static, launched = (res["shared_bytes"], dynamic) if d["impl"] == "cuda" else (0, res["shared_bytes"])
        assert (row["shared static"].text, row["shared dynamic"].text) == (nbytes(static), nbytes(launched)), key
        assert row["occupancy (sm_90)"].text == f"{100 * res['occupancy']:.0f}%", key
        checked += 1
    assert checked >= 100, checked


def test_every_measured_row_shows_the_intensity_of_the_tile_that_ran(page, records, declared):
    rows = page.rows_of("measured")
    checked = 0
    for d in records:
        if d["kernel"] is None or "tflops" not in d or d["op"] != "sgemm" or d["status"] != "ok":
            continue
        p = d["problem"]
        if d["impl"] == "cuda:cupy":    # the build study's rows: the suite build's row says the same
            continue
        # the implementation's name, and under it what it ran with (the parser joins the two lines)
        named = label(d) + expected_launch(d, declared)[0]
        shape = f"{p['M']}x{p['N']}x{p['K']}"
        found = [r for r in rows if r["kernel"].text == d["kernel"] and r["problem"].text == shape
                 and r["implementation"].text.startswith(named)]
        assert found, (d["kernel"], d["impl"])
        k = declared[d["kernel"]]
        if d["impl"] == "cuda":
            tm, tn, reads_c = k["tile_m"], k["tile_n"], k["reads_c_when_beta_zero"]
            assert float(found[0]["FLOP/B"].text) == pytest.approx(d["intensity"], abs=0.006)
        else:
            cfg = ran(d)
            tm, tn, reads_c = cfg["block_m"], cfg["block_n"], False
        if k["idea"] == "naive":
            tm = tn = 1
        assert float(found[0]["FLOP/B"].text) == pytest.approx(tile_intensity(d, tm, tn, reads_c), abs=0.006), d["impl"]
        checked += 1
    assert rows and checked >= 100, checked


def test_an_autotuned_rows_facts_are_the_tuners_choice_not_the_settings_it_started_from(m: Measured) -> None:
    """The headline's best Triton fp32 ran 64×64×64, 4 warps, 2 stages (its record), not the seed's 128×256×16; the
    tuned TF32 mma.sync form ran 128×256×32, the tile its speed over CUDA's 128×128×32 is measured at."""
    from harness.report.metrics import ran_text

    fp32 = next(row for row in headline_table(m).rows if row[0].text == "sgemm 4096x4096x4096"
                and row[0].sub.startswith("fp32 vs"))
    best_triton = fp32[2]
    assert "64×64×64 tile, 4 warps, 2 stages" in best_triton.sub and "128×256×16" not in best_triton.sub
    tuned = next(r for r in m.all if r.kernel == "rosetta.tc_gemm<tf32,128,128,32,2,4,3,kmajor>"
                 and r.impl == "triton:tuned")
    assert m.tile(tuned) == (128, 256, 32) and m.threads(tuned) == 256
    assert ran_text(m, tuned).startswith("128×256×32 tile, 8 warps, 3 stages")


def test_a_wgmma_rows_shared_memory_and_occupancy_count_its_dynamic_shared_memory(m: Measured, declared) -> None:
    """wgmma_smem takes 132,096 B of dynamic shared memory: one block an SM, 12.5%, as the run itself computed (not
    the 25% and two blocks its 0 B of static shared memory alone would give)."""
    smem = next(r for r in m.all if r.kernel == "rosetta.wgmma_smem<tf32,128,128,32,4,kmajor>" and r.impl == "cuda")
    assert m.shared(smem) == (0, 132096) == (smem.resources.shared_bytes, declared[smem.kernel]["dynamic_smem"])
    occ = m.occupancy(smem)
    assert occ is not None and (occ.blocks_per_sm, occ.limiter) == (1, "shared memory")
    assert occ.fraction == smem.resources.occupancy == 0.125    # the run's own figure, with the dynamic shared memory


def test_a_triton_point_of_the_roofline_sits_at_its_own_tile(m: Measured) -> None:
    """s002.tiled_matmul<2>'s Triton dot ran a 16x16x16 tile: about 4 FLOP/B, not the CUDA kernel's 2x2 (0.5)."""
    from harness.report.plots.roofline import roofline

    dot = next(r for r in m.all if r.kernel == "s002.tiled_matmul<2>" and r.impl == "triton:dot")
    assert m.intensity(dot) == pytest.approx(3.99, abs=0.01) and dot.figures.intensity == pytest.approx(0.5, abs=0.01)
    fig = roofline(m).figure
    xs = {round(float(x), 2) for ax in fig.axes for c in ax.collections for x, _ in c.get_offsets()}
    assert round(m.intensity(dot), 2) in xs


def test_the_fp32_class_headline_shows_the_best_like_for_like_triton_and_the_best_of_any_design(m: Measured) -> None:
    table = headline_table(m)
    headers = [h for h, _ in table.headers]
    row = next(r for r in table.rows if r[0].sub.startswith("3xTF32"))
    like, anyone = row[headers.index("best Triton, like for like")], row[headers.index("best Triton, any design")]
    assert "Triton tuned" in like.sub and "Triton presplit" in anyone.sub
    # this run timed no cuBLAS given B^T: a K-major row's % is against cuBLAS fp32 with its pack of B added
    presplit = next(r for r in m.all if r.impl == "triton:presplit" and r.problem == m.headline("sgemm"))
    assert "pack of B" in anyone.sub and m.vs(presplit, "cublas").pct() == m.vs(presplit, "cublas-packed").pct()
    assert anyone.text == fmt.pct_ci(*m.vs(presplit, "cublas-packed").pct())


def test_the_sgemv_headline_is_one_shape_the_streaming_one_and_its_estimators_are_named(m) -> None:
    from harness.analysis.findings import findings
    from harness.report.fmt import plain

    table = headline_table(m)
    sgemv = [r for r in table.rows if r[0].text.startswith("sgemv")]
    assert [r[0].text for r in sgemv] == ["sgemv 16384x16384"] == [m.headline("sgemv").label]
    assert any("median over the interleaved rounds of the per-round time ratio" in n and "median time" in n
               for n in table.notes)
    said = plain(words(next(f for f in findings(m) if f.kind == "headline-sgemv"), m))
    # the headline's one shape (harness/problems HEADLINE), each figure with its estimator named
    assert said.startswith("On sgemv 16384x16384,") and "4096x4096" not in said
    cuda = next(r for r in m.on(m.headline("sgemv")) if r.kernel and r.impl == "cuda"
                and f"{fmt.gbps(r.figures.gbps)} GB/s" in said)
    assert (f"{fmt.gbps(cuda.figures.gbps)} GB/s at its median time ({fmt.pct_ci(*m.interval(cuda))} of cuBLAS fp32 "
            "over the paired rounds") in said
