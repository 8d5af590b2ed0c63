"""`rosetta export`: a results file as CSV that a notebook reads as it is, holding exactly the analysis record's
figures and calls, its columns documented in docs/export.md."""

from __future__ import annotations

import ast
import csv
import json
from pathlib import Path

import pytest

from harness import cli
from harness.analysis.record import Analysis, analysis_path, read_beside
from harness.records.file import Results
from harness.report.export import COLUMNS, RELATIONS, SAMPLE_COLUMNS, columns_of, markdown

ROOT = Path(__file__).resolve().parents[1]


def _export(path: Path, tmp_path: Path, *flags: str) -> dict[str, list[dict[str, str]]]:
    targets = {flag: tmp_path / f"{flag.strip('-')}.csv" for flag in flags}
    args = [a for flag, target in targets.items() for a in (flag, str(target))]
    assert cli.main(["export", str(path), *args]) == 0
    out = {}
    for flag, target in targets.items():
        with open(target, newline="", encoding="utf-8") as fh:
            out[flag] = list(csv.DictReader(fh))
    return out


def _number(text: str) -> float | None:
    return float(text) if text else None


def _key(row: dict[str, str]) -> tuple:
    """(kernel, impl, problem) as the records name them: a baseline's row names it in `kernel` too."""
    return (None if row["kernel"] == row["impl"] else row["kernel"], row["impl"], row["problem"])


@pytest.fixture(scope="module")
def exported(recorded: Results, tmp_path_factory) -> tuple[Results, Analysis, list[dict], list[dict]]:
    record = analysis_path(recorded.path)
    if not record.exists():
        pytest.skip(f"no analysis record beside {recorded.path.name}")
    tables = _export(recorded.path, tmp_path_factory.mktemp("export"), "--csv", "--samples")
    # the record as it is read: one of an older verdict method is made again (harness/analysis/record.py read_beside)
    analysis = read_beside(recorded.path)
    assert analysis is not None
    return recorded, analysis, tables["--csv"], tables["--samples"]


def test_the_csv_has_a_row_per_implementation_and_problem_with_the_documented_columns(exported) -> None:
    results, _, rows, _ = exported
    assert len(rows) == len(results.results)
    assert list(rows[0]) == [c.name for c in COLUMNS if not c.optional or c.name in rows[0]]
    keys = {_key(r) for r in rows}
    assert keys == {(r.kernel, r.impl, r.problem.label) for r in results.results}


def test_the_percent_of_cublas_and_every_call_are_the_analysis_records(exported) -> None:
    _, analysis, rows, _ = exported
    by_key = {_key(r): r for r in rows}
    prefixes = {relation: prefix for prefix, (relation, _) in RELATIONS.items()}
    checked = 0
    for c in analysis.comparisons:
        if c.relation not in prefixes:
            continue
        row = by_key[(c.subject[0], c.subject[1], c.problem.label)]
        prefix = prefixes[c.relation]
        assert row[f"{prefix}_call"] == (c.call.value if c.call else ""), (c, row[f"{prefix}_call"])
        if c.relation == "cublas":
            pct, lo, hi = c.pct()
            assert _number(row["pct_cublas"]) == pytest.approx(pct, rel=1e-12)
            assert (_number(row["pct_cublas_lo"]), _number(row["pct_cublas_hi"])) == (   # none without a 95% one
                (pytest.approx(lo, rel=1e-12), pytest.approx(hi, rel=1e-12)) if lo is not None else (None, None))
        else:  # a speed ratio: the reference's time over the row's, as the page gives it (above 1: faster)
            assert _number(row[f"{prefix}_speed_ratio"]) == pytest.approx(1 / c.ratio, rel=1e-12)
            assert _number(row[f"{prefix}_speed_lo"]) == pytest.approx(1 / c.verdict.time.hi, rel=1e-12)
            assert _number(row[f"{prefix}_speed_hi"]) == pytest.approx(1 / c.verdict.time.lo, rel=1e-12)
        if f"{prefix}_cycles_call" in row and c.verdict is not None:  # a call in cycles, or why none was made
            cycles = c.verdict.cycles
            assert row[f"{prefix}_cycles_call"] == (cycles.call.value if cycles else
                                                    "clock error" if c.verdict.cycles_gated else "")
        checked += 1
    called = [r for r in rows if r["cublas_call"]]
    assert checked > 100 and len(called) == len(analysis.where("cublas"))


def test_the_configuration_is_the_one_the_record_says_ran_the_autotuners_choice_included(exported) -> None:
    results, _, rows, _ = exported
    by_key = {_key(r): r for r in rows}
    tuned = [r for r in results.results if r.resources and r.resources.config
             and isinstance(r.resources.config.get("autotuned"), dict)]
    assert tuned
    for r in tuned:
        row = by_key[(r.kernel, r.impl, r.problem.label)]
        chosen = r.resources.config["autotuned"]
        assert row["autotuned"] == "True" and int(row["block_m"]) == chosen["block_m"]
        assert int(row["num_warps"]) == chosen["num_warps"]
        assert json.loads(row["config"])["block_n"] == chosen["block_n"]
    cuda = next(r for r in results.results if r.impl == "cuda" and r.facts is not None)
    row = by_key[(cuda.kernel, "cuda", cuda.problem.label)]
    assert (int(row["block_m"]), int(row["threads"])) == (cuda.facts.tile[0], cuda.facts.threads)


def test_the_samples_have_a_row_per_timed_run_with_its_clock_and_cycles(exported) -> None:
    results, _, _, samples = exported
    timed = [r for r in results.results if r.timing and r.timing.samples]
    assert len(samples) == sum(len(r.timing.samples.ms) + (len(r.timing.aa.ms) if r.timing.aa else 0) for r in timed)
    assert list(samples[0]) == [n for n, _ in SAMPLE_COLUMNS]
    first = timed[0]
    mine = [s for s in samples if _key(s) == (first.kernel, first.impl, first.problem.label) and s["entry"] == "main"]
    assert [float(s["ms"]) for s in mine] == first.timing.samples.ms
    assert [int(s["round"]) for s in mine] == [r for r, n in enumerate(first.timing.samples.per_round)
                                                for _ in range(n)]
    for s in mine:
        if s["sm_clock_mhz"]:
            used = float(s["sm_clock_used_mhz"])
            assert used == min(float(s["sm_clock_mhz"]), first.timing.samples.max_mhz)  # the probe's excess dropped
            assert int(s["sm_cycles"]) == round(float(s["ms"]) * used * 1000)


def test_pandas_reads_both_tables_with_no_arguments(exported, tmp_path) -> None:
    pd = pytest.importorskip("pandas")
    results, _, _, _ = exported
    _export(results.path, tmp_path, "--csv", "--samples")
    rows, runs = pd.read_csv(tmp_path / "csv.csv"), pd.read_csv(tmp_path / "samples.csv")
    m = _measured(results)
    assert rows.shape == (len(results.results), len(columns_of(m))) and runs.shape[1] == len(SAMPLE_COLUMNS)
    assert rows["median_ms"].dtype.kind == "f" and runs["ms"].dtype.kind == "f" and runs["round"].dtype.kind == "i"


def _measured(results: Results):
    from harness.analysis.measured import Measured
    from harness.analysis.record import read_beside

    return Measured(results, read_beside(results.path))


def test_pandas_reads_seeds_and_ids_as_text_baselines_as_kernels_and_the_classes_accuracy_and_summit_as_booleans(
        exported, tmp_path) -> None:
    pd = pytest.importorskip("pandas")
    results = exported[0]
    _export(results.path, tmp_path, "--csv", "--samples")
    rows, runs = pd.read_csv(tmp_path / "csv.csv"), pd.read_csv(tmp_path / "samples.csv")
    assert rows.seed.map(type).eq(str).all() and "s000" in set(rows.seed) and rows.kernel.map(type).eq(str).all()
    assert runs.kernel.map(type).eq(str).all()
    kernels = rows.groupby("kernel").size()
    assert {r.impl for r in results.results if r.kernel is None} <= set(kernels.index)   # cuBLAS is kept
    assert rows.fp32_accurate.dtype.kind == rows.summit.dtype.kind == "b"
    assert set(rows[rows.fp32_accurate].precision) == {"fp32", "3xtf32", "bf16x6"}
    from harness.catalog_types.kernel import PRECISION_CLASSES

    assert all(PRECISION_CLASSES[p].fp32_accurate is bool(a) for p, a in zip(rows.precision, rows.fp32_accurate,
                                                                             strict=True))
    summit = {k.id for ladder in _measured(results).catalog.ladders for k in ladder.summit}
    assert summit and set(rows[rows.summit].kernel) == summit


def test_no_column_of_the_committed_default_run_is_empty_and_every_ratio_is_a_speed_ratio(exported) -> None:
    _, _, rows, samples = exported
    for table in (rows, samples):
        assert [name for name in table[0] if not any(r[name] for r in table)] == []
    ratios = [name for name in rows[0] if "ratio" in name]
    assert ratios and all(name.endswith("_speed_ratio") for name in ratios)
    faster = [r for r in rows if r["vs_cuda_call"] == "FAST"]
    assert faster and all(float(r["vs_cuda_speed_lo"]) > 1 for r in faster)   # above 1: faster


def test_the_three_questions_of_docs_export_md_print_what_the_page_shows(exported, tmp_path, monkeypatch) -> None:
    import contextlib
    import io
    import re

    pytest.importorskip("pandas")
    page = (ROOT / "docs" / "export.md").read_text(encoding="utf-8")
    command = re.search(r"rosetta export (results/\S+\.jsonl) --csv (\S+) --samples (\S+)", page)
    assert command is not None
    assert cli.main(["export", str(ROOT / command.group(1)), "--csv", str(tmp_path / command.group(2)), "--samples",
                     str(tmp_path / command.group(3))]) == 0
    monkeypatch.chdir(tmp_path)
    block = page.split("<!-- pandas:begin -->", 1)[1].split("<!-- pandas:end -->", 1)[0]
    pairs = re.findall(r"```python\n(.*?)```\n```text\n(.*?)```", block, re.DOTALL)
    assert len(pairs) == 4
    namespace: dict = {}
    for code, shown in pairs:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(code, namespace)
        assert [line.split() for line in out.getvalue().splitlines()] == [line.split() for line in shown.splitlines()]


def test_the_columns_are_documented_as_declared() -> None:
    page = (ROOT / "docs" / "export.md").read_text(encoding="utf-8")
    block = page.split("<!-- columns:begin -->\n", 1)[1].split("<!-- columns:end -->", 1)[0]
    assert block == markdown(), "regenerate the table with `python -m harness.report.export`"


def test_export_asks_for_a_table_and_refuses_a_file_that_is_not_a_results_file(tmp_path, capsys) -> None:
    bogus = tmp_path / "x.jsonl"
    bogus.write_text("not json\n")
    assert cli.main(["export", str(bogus)]) == 2
    assert "give --csv FILE, --samples FILE or both" in capsys.readouterr().err
    assert cli.main(["export", str(bogus), "--csv", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not JSON" in err[0] and not (tmp_path / "o.csv").exists()


def test_export_reads_through_the_records_the_analysis_and_the_pages_declarations_only() -> None:
    allowed = ("harness.records", "harness.analysis", "harness.report", "harness.cli.options", "harness.cli.paths")
    for path in (ROOT / "harness" / "cli" / "export.py", ROOT / "harness" / "report" / "export.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        harness = {m for m in found if m.startswith("harness")}
        assert all(m.startswith(allowed) or m in ("harness.measure.numerics", "harness.catalog_types.kernel")
                   for m in harness), (path.name, harness)


def test_a_check_that_did_not_run_says_so_in_the_numerics_column() -> None:
    from harness.analysis.measured import Measured
    from harness.measure.numerics import NOT_CHECKED_NO_GPU
    from harness.problems import Problem
    from harness.records.lines import Result, Status

    built = Result("cuda", "cuda", Problem("sgemm", 4096, 4096, 4096), Status.COMPILED,
                   kernel="s004.block_tiling_gemm<32>", reason="no GPU: built by NVRTC for sm_90a, not run")
    numerics = next(c for c in COLUMNS if c.name == "numerics")
    assert numerics.value(built, Measured.of([built])) == NOT_CHECKED_NO_GPU == "numerics not checked: no GPU"
