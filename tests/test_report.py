"""The report renders a real CPU-tier results file into HTML and Markdown with the structure promised.

The results file is made by the project's own `rosetta run` (CPU tier: Triton counterparts in the
interpreter, CUDA sources compiled for sm_90) on two seeds' kernels, once per test session. No figure
in it is written by hand.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harness.ideas import IDEAS
from harness.registry import BY_ID
from harness.report import markdown_results_table, render
from harness.results import load

REPO = Path(__file__).resolve().parents[1]
ONLY = ("s004", "s003")  # one GEMM seed (naive + block tile), one GEMV seed: three ideas, both ops
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

_made: dict[str, Path] = {}


def cpu_results_file(base: Path) -> Path:
    """Run the CPU tier of `rosetta run` once per session and return its results file.

    In a subprocess with the GPU hidden: the CPU tier is what this test pins down on any machine, and
    the subprocess keeps TRITON_INTERPRET and the interpreter's patches out of this test process.
    Shared with test_report_browser through this module, so the run happens once.
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
    assert proc.returncode in (0, 1) and files, (
        f"rosetta run failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    _made["path"] = files[0]
    return files[0]


@pytest.fixture(scope="session")
def results_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return cpu_results_file(tmp_path_factory.mktemp("rosetta-cpu"))


@pytest.fixture(scope="session")
def rendered(results_path: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return render(results_path, tmp_path_factory.mktemp("report"))


class _Page(HTMLParser):
    """Tag balance, images, and every table's rows as (cell classes, cell text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.images: list[dict[str, str | None]] = []
        self.ids: set[str] = set()
        self.tables: list[tuple[str, list[list[tuple[str, str]]]]] = []
        self._cell: list[str] | None = None
        self._cell_cls = ""
        self._cell_span = 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(str(a["id"]))
        if tag == "img":
            self.images.append(a)
        if tag == "table":
            self.tables.append((str(a.get("class") or ""), []))
        elif tag == "tr" and self.tables:
            self.tables[-1][1].append([])
        elif tag in ("td", "th"):
            self._cell, self._cell_cls = [], str(a.get("class") or "")
            self._cell_span = int(a.get("colspan") or 1)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            open_tag = self.stack[-1] if self.stack else None
            self.errors.append(f"</{tag}> at {self.getpos()} closes <{open_tag}>")
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()
        if tag in ("td", "th") and self._cell is not None and self.tables and self.tables[-1][1]:
            # A spanning cell is repeated, so a column index means the same column in every row.
            cell = (self._cell_cls, "".join(self._cell).strip())
            self.tables[-1][1][-1].extend([cell] * self._cell_span)
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def _records(path: Path) -> list[dict]:
    return load(path).results


def _png_ok(data: bytes) -> bool:
    from PIL import Image

    if not data.startswith(PNG_SIGNATURE):
        return False
    with Image.open(io.BytesIO(data)) as im:
        im.verify()
    with Image.open(io.BytesIO(data)) as im:
        low, high = im.convert("L").getextrema()
        return im.size[0] > 0 and im.size[1] > 0 and low != high  # decodes, and is not a blank canvas


def test_render_writes_html_and_markdown_named_after_the_results(results_path: Path,
                                                                   rendered: tuple[Path, Path]) -> None:
    html_path, md_path = rendered
    assert html_path.name == results_path.stem + ".html" and md_path.name == results_path.stem + ".md"
    assert html_path.stat().st_size > 0 and md_path.stat().st_size > 0


def test_html_parses_with_balanced_tags(rendered: tuple[Path, Path]) -> None:
    page = _parse(rendered[0])
    assert page.errors == []
    assert page.stack == [], f"unclosed tags: {page.stack}"


def test_every_idea_present_in_the_records_has_its_section(results_path: Path,
                                                           rendered: tuple[Path, Path]) -> None:
    ideas = {BY_ID[r["kernel"]].idea for r in _records(results_path) if r.get("kernel") in BY_ID}
    assert ideas, "the fixture run recorded no registry kernel"
    page = _parse(rendered[0])
    md = rendered[1].read_text(encoding="utf-8")
    for key in ideas:
        assert f"idea-{key}" in page.ids
        assert f"### {IDEAS[key].title}" in md
    # ... and each section shows both sources: the CUDA file and the Triton KERNEL read from its module.
    html = rendered[0].read_text(encoding="utf-8")
    for r in _records(results_path):
        kernel = BY_ID.get(r.get("kernel") or "")
        if kernel:
            assert f"kernels_cuda/{kernel.source}" in html and f"kernels_cuda/{kernel.source}" in md
            for c in kernel.counterparts:
                assert f"kernels_triton/{c.module}.py" in html and f"kernels_triton/{c.module}.py" in md


def test_every_image_decodes_and_is_non_empty(results_path: Path, rendered: tuple[Path, Path]) -> None:
    html_path, md_path = rendered
    page = _parse(html_path)
    for img in page.images:
        src = str(img.get("src") or "")
        assert src.startswith("data:image/png;base64,"), src[:60]
        assert _png_ok(base64.b64decode(src.split(",", 1)[1], validate=True))
    md = md_path.read_text(encoding="utf-8")
    linked = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    for name in linked:
        assert "/" not in name and not name.startswith("http"), name
        assert _png_ok((md_path.parent / name).read_bytes())
    assert len(linked) == len(page.images)
    if any("registers" in (r.get("resources") or {}) for r in _records(results_path)):
        assert page.images, "records carry compiled resources, so the resource plot must be there"


def test_plots_without_data_are_omitted_with_a_reason(results_path: Path,
                                                      rendered: tuple[Path, Path]) -> None:
    if load(results_path).run.get("mode") != "cpu":
        pytest.skip("the fixture ran on a GPU")
    html = rendered[0].read_text(encoding="utf-8")
    md = rendered[1].read_text(encoding="utf-8")
    for sentence in ("No roofline: this was a CPU run", "No % of cuBLAS plot for sgemm",
                     "No time-against-size plot for sgemv"):
        assert sentence in html and sentence in md


def test_every_summary_row_has_its_figures_or_the_reason_it_has_none(results_path: Path,
                                                                       rendered: tuple[Path, Path]) -> None:
    page = _parse(rendered[0])
    summaries = [rows for cls, rows in page.tables if cls == "summary"]
    body = [row for rows in summaries for row in rows[1:]]
    assert len(body) == len(_records(results_path))
    number = re.compile(r"^\d[\d.,]*$")
    for row in body:
        cells = dict(enumerate(row))
        why = [text for cls, text in row if "why" in cls.split()]
        timed = number.match(cells[4][1]) and number.match(cells[5][1])
        assert timed or (why and why[0]), f"row without figures or a reason: {row}"
        # The numerics verdict and the beta == 0 verdict are never blank either.
        assert all(text for _, text in row[8:10]), row
    md_table = markdown_results_table(results_path)
    md_rows = [ln for ln in md_table.splitlines() if ln.startswith("| ") and not ln.startswith("| kernel")]
    assert len(md_rows) == len(body)


def test_a_seed_kernel_that_reads_c_is_shown_as_a_declared_limit(results_path: Path,
                                                                 rendered: tuple[Path, Path]) -> None:
    page = _parse(rendered[0])
    rows = [row for cls, rows in page.tables if cls == "summary" for row in rows[1:]]
    readers = [row for row in rows if BY_ID.get(row[0][1]) and BY_ID[row[0][1]].reads_c_when_beta_zero
               and row[3][1] == "CUDA"]
    assert readers, "s004's CUDA kernels read C when beta == 0 (the registry says so)"
    for row in readers:
        cls, text = row[9]
        assert text.startswith("reads C") and "warn" in cls.split() and "bad" not in cls.split()


def test_compiled_resources_appear_for_a_cpu_run(results_path: Path, rendered: tuple[Path, Path]) -> None:
    with_resources = [r for r in _records(results_path) if "registers" in (r.get("resources") or {})]
    if not with_resources:
        pytest.skip("no record carries resources (no nvcc and no Triton compile on this machine)")
    page = _parse(rendered[0])
    resource_rows = [row for cls, rows in page.tables if cls == "resources" for row in rows[1:]]
    sass_rows = [row for cls, rows in page.tables if cls == "sass" for row in rows[1:]]
    for r in with_resources:
        label = "CUDA" if r["impl"] == "cuda" else "Triton " + r["impl"].split(":", 1)[1]
        match = [row for row in resource_rows if row[0][1] == r["kernel"] and row[1][1] == label]
        assert match and match[0][2][1].split()[0] == str(r["resources"]["registers"])
        if r["resources"].get("sass"):
            sass = [row for row in sass_rows if row[0][1] == r["kernel"] and row[1][1] == label]
            assert sass and sass[0][2][1] == str(r["resources"]["sass"].get("FFMA", 0))


def test_a_results_file_cut_mid_write_still_renders_and_says_the_run_was_interrupted(
        results_path: Path, tmp_path: Path) -> None:
    lines = results_path.read_text(encoding="utf-8").splitlines()
    body = [ln for ln in lines if json.loads(ln)["record"] != "end"]
    torn = tmp_path / "torn.jsonl"
    # The last result loses its second half and its newline: what a kill during a write leaves.
    torn.write_text("\n".join(body[:-1]) + "\n" + body[-1][: len(body[-1]) // 2], encoding="utf-8")
    html_path, md_path = render(torn, tmp_path / "out")
    html, md = html_path.read_text(encoding="utf-8"), md_path.read_text(encoding="utf-8")
    for text in (html, md):
        assert "cut short (interrupted)" in text
        assert "cut off mid-write" in text
    page = _parse(html_path)
    assert page.errors == [] and page.stack == []
    rows = [row for cls, rows in page.tables if cls == "summary" for row in rows[1:]]
    assert len(rows) == len(body) - 2  # header and the torn record are not results


def test_an_empty_or_non_json_file_raises_value_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("this is not JSON\n{}\n", encoding="utf-8")
    for path in (empty, garbage, tmp_path / "absent.jsonl"):
        with pytest.raises(ValueError):
            render(path, tmp_path / "out")
    assert not (tmp_path / "out").exists(), "nothing is written for a file that is not a results file"


def test_inserted_text_is_escaped(results_path: Path, tmp_path: Path) -> None:
    lines = results_path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["device"] = "<script>alert('x')</script> & <b>"
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    html_path, _ = render(hostile, tmp_path / "out")
    html = html_path.read_text(encoding="utf-8")
    assert "<script" not in html.lower()
    assert "&lt;script&gt;" in html
    page = _parse(html_path)
    assert page.errors == [] and page.stack == []


def test_the_html_page_loads_nothing_from_outside(rendered: tuple[Path, Path]) -> None:
    html = rendered[0].read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html, re.I)
    assert "@import" not in html and "url(" not in html
    assert "<script" not in html.lower()


@pytest.mark.gpu
def test_a_gpu_run_renders_its_plots_and_every_timed_row_has_figures(tmp_path: Path) -> None:
    """The GPU tier's report: two sizes of one kernel, so % of cuBLAS, roofline and time plots all draw."""
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", ""))
                                                       if p)}
    env.pop("TRITON_INTERPRET", None)
    proc = subprocess.run([sys.executable, "-m", "harness.cli", "run", "--only", "s004.block_tiling",
                           "--shape", "512x512x512", "1024x1024x1024", "--rep-ms", "10", "--out", str(out),
                           "--no-report"], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    files = sorted(out.glob("*.jsonl"))
    assert proc.returncode == 0 and files, proc.stderr[-3000:]
    html_path, md_path = render(files[0], tmp_path / "report")
    page = _parse(html_path)
    assert page.errors == [] and page.stack == []
    for key in ("pct-cublas-sgemm", "roofline", "time-sgemm", "resources"):
        assert f"plot-{key}" in page.ids, key
    for img in page.images:
        assert _png_ok(base64.b64decode(str(img["src"]).split(",", 1)[1]))
    assert len(re.findall(r"!\[", md_path.read_text(encoding="utf-8"))) == len(page.images)
    number = re.compile(r"^\d[\d.,]*%?$")
    rows = [row for cls, rows in page.tables if cls == "summary" for row in rows[1:]]
    assert rows
    for row in rows:
        assert all(number.match(text) for _, text in row[4:6]), row
        if row[3][1] != "cuBLAS TF32":
            assert number.match(row[6][1]) and number.match(row[7][1]), row
