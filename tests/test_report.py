"""The report renders real results files into HTML and Markdown with the structure a reader needs.

Two inputs, neither written by hand: a CPU-tier results file made by the project's own `rosetta run`
(Triton in the interpreter, CUDA compiled for sm_90) on two seeds' kernels, once per test session;
and the recorded GPU run committed under results/. Tables are read by column header.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.analysis.measured import Measured
from harness.nvrtc.compiler import available as nvrtc_available
from harness.records.file import load
from harness.registry import BY_ID, IDEAS, SEEDS
from harness.report import render
from harness.report.plots import MAX_WIDTH, all_plots, min_text_pt
from harness.report.plots.common import DPI
from harness.report.regimes import regime_plots
from harness.report.results_tables import markdown_results_table
from tests.recorded import REPO, recorded_gpu_run
from tests.report_page import Page, parse

ONLY = ("s004", "s003")  # one GEMM seed (naive + block tile), one GEMV seed: both ops, several ideas
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MIN_TEXT_PX = 10.0

_made: dict[str, Path] = {}


def cpu_results_file(base: Path) -> Path:
    """Run the CPU tier of `rosetta run` once per session and return its results file.

    In a subprocess with the GPU hidden, so TRITON_INTERPRET and the interpreter's patches stay out of
    this test process. Shared with the other report tests through this module, so the run happens once.
    """
    if "path" in _made:
        return _made["path"]
    out = base / "run"
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONPATH": os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)}
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "run", "--only", *ONLY, "--out", str(out),
                           "--no-report"], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    files = sorted(out.glob("*.jsonl"))
    # Exit code 1 means some implementation failed: a measured outcome the report must show, not an error.
    assert proc.returncode in (0, 1) and files, f"rosetta run failed ({proc.returncode}):\n{proc.stderr[-3000:]}"
    _made["path"] = files[0]
    return files[0]


@pytest.fixture(scope="session")
def cpu_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return cpu_results_file(tmp_path_factory.mktemp("rosetta-cpu"))


@pytest.fixture(scope="session")
def cpu_page(cpu_results: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return render(cpu_results, tmp_path_factory.mktemp("report-cpu"))


@pytest.fixture(scope="session")
def gpu_results() -> Path:
    path = recorded_gpu_run()
    if path is None:
        pytest.skip("no recorded GPU run under results/")
    return path


@pytest.fixture(scope="session")
def gpu_page(gpu_results: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    # The mapping claims show as the committed analysis record proved them (the CPU run's page proves its own).
    return render(gpu_results, tmp_path_factory.mktemp("report-gpu"))


# Not "gpu": a parameter id lands in the test's keywords, and the gpu keyword marks the GPU tier.
@pytest.fixture(params=["cpu", "recorded"])
def any_page(request: pytest.FixtureRequest) -> tuple[Path, Path, Path]:
    """(results, html, md) for each of the two inputs."""
    side = {"cpu": "cpu", "recorded": "gpu"}[request.param]
    results = request.getfixturevalue(f"{side}_results")
    html, md = request.getfixturevalue(f"{side}_page")
    return results, html, md


def _png_ok(data: bytes) -> bool:
    from PIL import Image

    if not data.startswith(PNG_SIGNATURE):
        return False
    with Image.open(io.BytesIO(data)) as im:
        low, high = im.convert("L").getextrema()
        return im.size[0] > 0 and im.size[1] > 0 and low != high  # decodes, and is not a blank canvas


def test_render_writes_html_and_markdown_named_after_the_results(any_page: tuple[Path, Path, Path]) -> None:
    results, html, md = any_page
    assert html.name == results.stem + ".html" and md.name == results.stem + ".md"
    assert html.stat().st_size > 0 and md.stat().st_size > 0


def test_html_parses_with_balanced_tags_and_every_link_lands(any_page: tuple[Path, Path, Path]) -> None:
    page = parse(any_page[1])
    assert page.errors == [] and page.stack == [], (page.errors[:5], page.stack)
    assert len(page.ids) == len(set(page.ids)), "an anchor is defined twice"
    internal = {h[1:] for h in page.hrefs if h.startswith("#")}
    assert internal <= set(page.ids), f"links to missing anchors: {sorted(internal - set(page.ids))}"


@pytest.mark.trust
def test_the_page_opens_with_findings_then_the_idea_table(gpu_page: tuple[Path, Path]) -> None:
    page = parse(gpu_page[0])
    top = [s for s in page.sections if s in ("findings", "idea-table", "plots", "ideas", "results", "method")]
    assert top[:2] == ["findings", "idea-table"], top
    ideas = page.rows_of("ideas")
    assert ideas and all(re.search(r"\d", row["best CUDA"].text) for row in ideas if row["best CUDA"].text != "—")


def test_table_of_contents_lists_every_section_and_plot_and_each_links_back_to_top(gpu_page: tuple[Path, Path]) -> None:
    page = parse(gpu_page[0])
    html = gpu_page[0].read_text(encoding="utf-8")
    toc = html.split('<nav class="toc"', 1)[1].split("</nav>", 1)[0]
    listed = set(re.findall(r'href="#([^"]+)"', toc))
    missing = [s for s in page.sections if s not in listed]
    assert not missing, f"sections not in the table of contents: {missing}"
    assert any(s.startswith("plot-") for s in listed)
    # Idea sections come many in a row with the contents in view beside them: the other sections link back.
    parts = [s for s in page.sections if not s.startswith("idea-")]
    assert all(page.back_links.get(s) for s in parts), [s for s in parts if not page.back_links.get(s)]


def test_every_idea_in_the_records_has_its_section_and_each_source_is_shown_once(
        any_page: tuple[Path, Path, Path]) -> None:
    results, html_path, md_path = any_page
    records = load(results).results
    ideas = {BY_ID[r.kernel].idea for r in records if r.kernel in BY_ID}
    assert ideas, "the run recorded no registry kernel"
    page = parse(html_path)
    md = md_path.read_text(encoding="utf-8")
    for key in ideas:
        assert f"idea-{key}" in page.ids and f"#### {IDEAS[key].title}" in md
    html = html_path.read_text(encoding="utf-8")
    # A file's code is on the page once: in full, or as a diff against an earlier step shown above it.
    shown = re.findall(r'<div class="src-head"><code>([^<]+)</code>(?:(?!</div>).)*</div><pre class="code">', html)
    assert len(shown) == len(set(shown)), [s for s in shown if shown.count(s) > 1]
    for r in records:
        kernel = BY_ID.get(r.kernel or "")
        if kernel:
            assert f"kernels_cuda/{kernel.source}" in shown
            for c in kernel.counterparts:
                assert f"kernels_triton/{c.module}.py" in shown


def test_a_later_step_is_shown_as_a_diff_against_the_earlier_one(gpu_page: tuple[Path, Path]) -> None:
    html = gpu_page[0].read_text(encoding="utf-8")
    diffs = re.findall(r"<code>([^<]+)</code> — what changed since <code>([^<]+)</code>", html)
    assert diffs, "the recorded run holds steps of one document (v3 -> unroll forms): some must show as diffs"
    for new, old in diffs:
        assert html.index(f'<div class="src-head"><code>{old}</code>') < html.index(f"<code>{new}</code> — what")


def test_the_hopper_rungs_show_their_headers_expanded_and_each_diff_what_the_rung_adds() -> None:
    # The rungs share .cuh headers; the page reads each .cu with them expanded, so the first rung shows every helper
    # it calls and a later rung's diff the helpers it brings in (TMA, the warp-specialised pipeline) beside its code.
    from harness.analysis.measured import Measured
    from harness.catalog.hopper import KERNELS as RUNGS
    from harness.report.sources import SourcePlanner

    planner = SourcePlanner(Measured.of([]))
    shown = {k.source: planner.cuda([k], f"rung-{i}", k.id)[0] for i, k in enumerate(RUNGS)}
    first = shown["rosetta_wgmma_smem.cu"]
    assert not first.diff_against and "unsigned long long smem_desc(unsigned addr)" in first.code
    assert not re.search(r'^\s*#\s*include\s*"', first.code, re.MULTILINE), "a header left unexpanded"

    def added(source: str) -> list[str]:
        assert shown[source].diff_against, f"{source} is not shown as a diff"
        return [ln[1:] for ln in shown[source].code.splitlines() if ln.startswith("+") and not ln.startswith("+++")]

    assert any("void tma_load_2d(" in ln for ln in added("rosetta_wgmma_tma.cu"))
    assert any("void consume(" in ln for ln in added("rosetta_wgmma_ws.cu"))
    assert any("void wgmma_m64n256k8(" in ln for ln in added("rosetta_wgmma_ws.cu"))
    # The persistent and cluster rungs run wgmma_ws's pipeline (the cluster rung with CLUSTER = 2): each diff is its
    # header comment and its entry point.
    for source, entry in (("rosetta_wgmma_persistent.cu", "void wgmma_persistent_tf32("),
                          ("rosetta_wgmma_cluster.cu", "__cluster_dims__(2, 1, 1)")):
        code = [ln for ln in added(source) if ln.strip() and not ln.lstrip().startswith("//")]
        assert any(entry in ln for ln in code), code
        assert not any("__device__" in ln for ln in code) and len(code) <= 10, code
    # the A-from-registers rung adds its fragment loads and the instruction's register-A form
    assert any("ldmatrix" in ln for ln in added("rosetta_wgmma_3xtf32_rs.cu"))


def test_every_image_is_embedded_linked_full_size_and_legible(any_page: tuple[Path, Path, Path]) -> None:
    results, html_path, md_path = any_page
    page = parse(html_path)
    m = Measured(load(results))
    # the regimes chart, where a sustained file lies beside the run, is drawn in the regimes section only
    plots = {p.key: p for p in [*all_plots(m), *regime_plots(m)] if p.png}
    assert len(page.images) == len(plots)
    for img in page.images:
        # The ladder chart opens the page, in the headline; every other plot has its own section.
        key = "ladder" if img["section"] == "headline" else img["section"].removeprefix("plot-")
        data = base64.b64decode(img["src"].split(",", 1)[1], validate=True)
        assert img["src"].startswith("data:image/png;base64,") and _png_ok(data)
        natural = int.from_bytes(data[16:20], "big")
        shown = int(img["width"])
        assert shown <= MAX_WIDTH, f"{key}: displayed {shown} px wide, more than the page's {MAX_WIDTH}"
        smallest = min_text_pt(plots[key].figure) * DPI / 72 * shown / natural
        assert smallest >= MIN_TEXT_PX, f"{key}: its smallest text is {smallest:.1f} px on the page"
        assert (html_path.parent / img["link"]).read_bytes() == data, f"{key}: the full-size link is not the image"
    linked = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md_path.read_text(encoding="utf-8"))
    assert len(linked) == len(page.images) and all(_png_ok((md_path.parent / n).read_bytes()) for n in linked)


def test_a_cpu_run_shows_no_plot_and_no_sentence_about_a_missing_one(cpu_results: Path,
                                                                      cpu_page: tuple[Path, Path]) -> None:
    assert load(cpu_results).header.mode == "cpu"
    html, md = (p.read_text(encoding="utf-8") for p in cpu_page)
    # What a CPU run has (numerics, compiled resources) and nothing else: no plot section, no "nothing to plot".
    assert 'id="plots"' not in html and 'id="headline"' not in html and "<img" not in html
    for sentence in ("No roofline", "No sgemm bar chart", "No sgemv bandwidth chart", "No time-against-size plot",
                     "No ladder chart"):
        assert sentence not in html and sentence not in md


def test_every_result_row_has_its_figures_or_the_reason_it_has_none(any_page: tuple[Path, Path, Path]) -> None:
    results, html_path, _ = any_page
    rows = parse(html_path).rows_of("summary")
    assert len(rows) == len(load(results).results)
    number = re.compile(r"^\d[\d.,]*%?$")
    for row in rows:
        timed = number.match(row["ms"].text) and number.match(row["runs"].text)
        assert timed or ("why" in row["ms"].cls.split() and row["ms"].text), row
        assert row["numerics"].text and row["beta = 0"].text
    md_rows = [ln for ln in markdown_results_table(results).splitlines()
               if ln.startswith("| ") and not ln.startswith("| kernel")]
    assert len(md_rows) == len(rows)


def test_tf32_rows_are_compared_with_cublas_tf32_only(gpu_page: tuple[Path, Path]) -> None:
    rows = parse(gpu_page[0]).rows_of("summary")
    tf32 = [row for row in rows if row["precision"].text == "TF32"]
    fp32_base = [row for row in rows if row["implementation"].text == "cuBLAS fp32"]
    assert tf32 and fp32_base
    for row in tf32:
        # The TF32 baseline is its own yardstick (100%), never a multiple of fp32 cuBLAS.
        if row["implementation"].text == "cuBLAS TF32":
            assert row["% cuBLAS"].text == "100.0%"
        assert row["% FP32 peak"].text == "—"


def test_a_seed_kernel_that_reads_c_is_shown_as_a_declared_limit(cpu_page: tuple[Path, Path]) -> None:
    rows = parse(cpu_page[0]).rows_of("kernels")
    readers = [row for row in rows if BY_ID[row["kernel"].text].reads_c_when_beta_zero]
    assert readers, "s004's CUDA kernels read C when beta == 0 (the registry says so)"
    for row in readers:
        cell = row["beta = 0"]
        assert cell.text.startswith("reads C") and "warn" in cell.cls.split() and "bad" not in cell.cls.split()


def test_compiled_resources_of_both_kernels_appear_for_a_cpu_run(cpu_results: Path,
                                                                 cpu_page: tuple[Path, Path]) -> None:
    with_resources = [r for r in load(cpu_results).results if r.resources and r.resources.registers is not None]
    if not with_resources:
        pytest.skip("no record carries resources (no NVRTC and no Triton compile on this machine)")
    page = parse(cpu_page[0])
    resources, sass = page.rows_of("resources"), page.rows_of("sass")
    for r in with_resources:
        match = [row for row in resources if row["kernel"].text == r.kernel and row["implementation"].text == r.label]
        assert match and match[0]["regs"].text.split()[0] == str(r.resources.registers)
        if r.resources.sass:
            mix = [row for row in sass if row["kernel"].text == r.kernel and row["implementation"].text == r.label]
            assert mix and mix[0]["FFMA"].text == str(r.resources.sass.get("FFMA", 0))


def test_each_ideas_mapping_claims_are_shown_with_their_verdicts(cpu_page: tuple[Path, Path]) -> None:
    page = parse(cpu_page[0])
    tables = page.tables_of("mapping")
    assert tables and {t.section for t in tables} == {s for s in page.sections if s in {f"idea-{k}" for k in IDEAS}}
    if not nvrtc_available():
        pytest.skip("the mapping cannot be proven here (no NVRTC)")
    for row in (r for t in tables for r in t.by_header()):
        verdict = row["checked on the compiled kernels"]
        held = re.match(r"✓ (\d+) of (\d+)", verdict.text)
        assert held and held.group(1) == held.group(2) and "ok-text" in verdict.cls, (row["decision"].text, verdict)


def test_the_documents_titles_appear_as_written_with_the_english_beside(gpu_page: tuple[Path, Path]) -> None:
    page = parse(gpu_page[0])
    seeds = {row["seed"].text: row for row in page.rows_of("seeds")}
    for key, seed in SEEDS.items():
        # The document by its title, its file name in small text under it.
        assert seeds[key]["document (its file under it)"].text == seed.title + seed.file
        if seed.title_en != seed.title:
            assert seeds[key]["in English"].text == seed.title_en
            assert seed.title in page.plain and seed.title_en in page.plain
    assert any(not s.title.isascii() for s in SEEDS.values()), "seed 001's title is Chinese"
    css = gpu_page[0].read_text(encoding="utf-8").split("<style>", 1)[1].split("</style>", 1)[0]
    assert re.search(r"font[^;]*\"Noto Sans CJK SC\"", css), "the page names a CJK-capable font"


def test_method_and_provenance_are_on_the_page(gpu_results: Path, gpu_page: tuple[Path, Path]) -> None:
    results = load(gpu_results)
    text = parse(gpu_page[0]).plain
    runs = [r.timing.runs for r in results.results if r.timed and r.timing]
    assert f"from {min(runs)} to {max(runs)} runs per row" in text
    assert "L2 flushed before every run" in text and "SM clock" in text
    for name, version in results.header.versions.items():
        assert f"{name} {version}" in text


def test_explanations_are_on_the_page_not_in_tooltips(any_page: tuple[Path, Path, Path]) -> None:
    page = parse(any_page[1])
    assert page.titles == [], f"elements with a title tooltip: {page.titles}"
    html = any_page[1].read_text(encoding="utf-8")
    # Every table with a numerics column is followed by the legend that says what its marks and number mean.
    chunks = [c for c in html.split('<div class="table-wrap">')[1:] if "<th>numerics</th>" in c]
    assert chunks
    for chunk in chunks:
        after = chunk.split("</table></div>", 1)[1]
        # A legend of several notes is folded under the table (on the page, one click away).
        after = after.removeprefix('<details class="legend">').split("</summary>", 1)[-1]
        assert after.startswith('<ul class="legend">') and "forward error" in after.split("</ul>", 1)[0]


def test_a_results_file_cut_mid_write_still_renders_and_says_the_run_was_interrupted(
        cpu_results: Path, tmp_path: Path) -> None:
    lines = cpu_results.read_text(encoding="utf-8").splitlines()
    body = [ln for ln in lines if json.loads(ln)["record"] != "end"]
    torn = tmp_path / "torn.jsonl"
    # The last result loses its second half and its newline: what a kill during a write leaves.
    torn.write_text("\n".join(body[:-1]) + "\n" + body[-1][: len(body[-1]) // 2], encoding="utf-8")
    html_path, md_path = render(torn, tmp_path / "out")
    for text in (html_path.read_text(encoding="utf-8"), md_path.read_text(encoding="utf-8")):
        assert "cut short (interrupted)" in text and "cut off mid-write" in text
    page = parse(html_path)
    assert page.errors == [] and page.stack == []
    assert len(page.rows_of("summary")) == len(body) - 2  # the header and the torn record are not results


def test_an_empty_or_non_json_file_raises_value_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("this is not JSON\n{}\n", encoding="utf-8")
    for path in (empty, garbage, tmp_path / "absent.jsonl"):
        with pytest.raises(ValueError):
            render(path, tmp_path / "out")
    assert not (tmp_path / "out").exists(), "nothing is written for a file that is not a results file"


def test_inserted_text_is_escaped(cpu_results: Path, tmp_path: Path) -> None:
    lines = cpu_results.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["device"] = "<script>alert('x')</script> & <b>"
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    html_path, _ = render(hostile, tmp_path / "out")
    html = html_path.read_text(encoding="utf-8")
    assert "<script" not in html.lower() and "&lt;script&gt;" in html
    page = parse(html_path)
    assert page.errors == [] and page.stack == []


def test_the_html_page_loads_nothing_from_outside(any_page: tuple[Path, Path, Path]) -> None:
    html = any_page[1].read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html, re.I)
    assert "@import" not in html and "url(" not in html and "<script" not in html.lower()


def test_markdown_carries_the_same_findings_and_tables(gpu_page: tuple[Path, Path]) -> None:
    page: Page = parse(gpu_page[0])
    html = gpu_page[0].read_text(encoding="utf-8")
    md = gpu_page[1].read_text(encoding="utf-8")
    n_html = html.split('<ol class="findings">', 1)[1].split("</ol>", 1)[0].count("<li>")
    findings_md = md.split("## Findings", 1)[1].split("\n## ", 1)[0]
    assert n_html == len(re.findall(r"^\d+\. ", findings_md, re.M)) >= 5
    assert md.count("| kernel | implementation | precision | ms | runs |") == len(page.tables_of("summary"))


def test_the_steps_table_under_the_ladder_chart_has_a_row_per_bar_numbered_as_the_chart(
        gpu_results: Path, gpu_page: tuple[Path, Path]) -> None:
    from harness.report.plots import ladder_chart

    chart = ladder_chart(Measured(load(gpu_results)))
    assert chart.figure is not None, chart.missing
    bars = [re.sub(r"\s+", "", t.get_text()) for t in chart.figure.axes[0].get_xticklabels()]
    steps = next(t for t in parse(gpu_page[0]).tables if "ladder-steps" in t.cls.split())
    rows = steps.by_header()
    assert len(rows) == len(bars) >= 2
    for n, (bar, row) in enumerate(zip(bars, rows, strict=True), start=1):
        # The bar's label is "<n>. <the rung's idea>", the row says rung n adds that idea.
        idea = re.sub(r"\s*\([^)]*\)$", "", row["adds"].text)
        assert (row["rung"].text, bar) == (str(n), re.sub(r"\s+", "", f"{n}. {idea}")), (n, row["adds"].text)


@pytest.mark.gpu
@pytest.mark.trust
def test_a_gpu_run_renders_its_plots_and_every_timed_row_has_figures(tmp_path: Path) -> None:
    """The GPU tier's report: two sizes of one kernel, so the bars, roofline, accuracy and time plots all draw."""
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", ""))
                                                       if p)}
    env.pop("TRITON_INTERPRET", None)
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "run", "--only", "s004.block_tiling",
                           "--shape", "512x512x512", "1024x1024x1024", "--rep-ms", "10", "--out", str(out),
                           "--no-report"], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    files = sorted(out.glob("*.jsonl"))
    assert proc.returncode == 0 and files, proc.stderr[-3000:]
    html_path, _ = render(files[0], tmp_path / "report")
    page = parse(html_path)
    assert page.errors == [] and page.stack == []
    for key in ("bars-sgemm", "roofline", "accuracy", "time-sgemm"):
        assert any(img["section"] == f"plot-{key}" for img in page.images), key
    rows = page.rows_of("summary")
    assert rows
    for row in rows:
        assert re.match(r"^\d[\d.,]*$", row["ms"].text), row


def test_stored_counters_appear_in_their_ideas_table_and_missing_ones_as_dashes(cpu_results: Path) -> None:
    from harness.records.lines import Resources
    from harness.report.steps import counters_table

    m = Measured(load(cpu_results))
    kernels = [BY_ID[k] for k in sorted({r.kernel for r in m.file.results if r.kernel})]
    assert not counters_table(m, kernels)  # nothing profiled: no table
    record = next(r for r in m.file.results if r.kernel and r.model == "triton")
    record.resources = record.resources or Resources()
    record.resources.profile = {"fma_pipe_pct": 81.64, "dram_vs_model": 2.125, "duration_ns": 2_605_000.0,
                                "tensor_pipe_pct": 0.0}
    other = next(r for r in m.file.results if r.kernel and r.model == "triton" and r is not record)
    other.resources = other.resources or Resources()
    other.resources.profile = {"fma_pipe_pct": 50.0, "smem_bank_conflicts": 1024.0}
    table = counters_table(m, kernels)
    assert len(table.rows) == 2
    rows = [{label: cell.text for (label, _), cell in zip(table.headers, row, strict=True)} for row in table.rows]
    mine = next(row for row in rows if (row["kernel"], row["implementation"]) == (record.kernel, record.label))
    assert (mine["FMA pipe"], mine["DRAM / model"], mine["kernel ms (ncu)"]) == ("81.6%", "2.12×", "2.605")
    assert mine["smem bank conflicts"] == "—"   # counted for another row, not for this one
    assert "tensor pipe" not in mine            # zero in every row: the column says nothing
    assert "bytes / cp.async" not in mine       # absent in every row


def test_the_build_study_calls_cupys_build_faster_only_where_the_rounds_call_it_fast() -> None:
    from dataclasses import replace

    from harness.analysis import compiled as analysis_compiled
    from harness.analysis.verdicts import Call
    from harness.report.compiled import build_study_table

    run = load(REPO / "results" / "nvidia-h100-80gb-hbm3-20261126T102241Z.jsonl")
    m = Measured(run)
    pairs = analysis_compiled.build_pairs(m)
    assert pairs and all(p.speed is not None for p in pairs)
    note = build_study_table(m).notes[-1]
    fast = [p.study.kernel for p in pairs if p.speed.call is Call.FAST]
    assert ("faster only for" in note) == bool(fast) and all(k in note for k in fast)
    # the same file read as single bursts (no rounds kept) makes no call at all
    bursts = Measured(replace(run, results=[replace(r, timing=replace(r.timing, samples=None)) if r.timing else r
                                            for r in run.results]))
    assert "no call is made" in build_study_table(bursts).notes[-1]
