"""`rosetta export`: a results file as CSV that a notebook reads as it is, holding exactly the analysis record's
figures and calls, its columns documented in docs/export.md."""

from __future__ import annotations

import ast
import csv
import json
from pathlib import Path

import pytest

from harness import cli
from harness.analysis.export import COLUMNS, RELATIONS, SAMPLE_COLUMNS, markdown
from harness.analysis.record import Analysis, analysis_path, read_beside
from harness.records.file import Results

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
    assert list(rows[0]) == [c.name for c in COLUMNS]
    keys = {(r["kernel"] or None, r["impl"], r["problem"]) for r in rows}
    assert keys == {(r.kernel, r.impl, r.problem.label) for r in results.results}


def test_the_percent_of_cublas_and_every_call_are_the_analysis_records(exported) -> None:
    _, analysis, rows, _ = exported
    by_key = {(r["kernel"] or None, r["impl"], r["problem"]): r for r in rows}
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
        else:
            assert _number(row[f"{prefix}_time_ratio"]) == pytest.approx(c.ratio, rel=1e-12)
            assert _number(row[f"{prefix}_lo"]) == pytest.approx(c.verdict.time.lo, rel=1e-12)
        checked += 1
    called = [r for r in rows if r["cublas_call"]]
    assert checked > 100 and len(called) == len(analysis.where("cublas"))


def test_the_configuration_is_the_one_the_record_says_ran_the_autotuners_choice_included(exported) -> None:
    results, _, rows, _ = exported
    by_key = {(r["kernel"] or None, r["impl"], r["problem"]): r for r in rows}
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
    mine = [s for s in samples if (s["kernel"] or None, s["impl"], s["problem"]) ==
            (first.kernel, first.impl, first.problem.label) and s["entry"] == "main"]
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
    assert rows.shape == (len(results.results), len(COLUMNS)) and runs.shape[1] == len(SAMPLE_COLUMNS)
    assert rows["median_ms"].dtype.kind == "f" and runs["ms"].dtype.kind == "f" and runs["round"].dtype.kind == "i"


def test_the_columns_are_documented_as_declared() -> None:
    page = (ROOT / "docs" / "export.md").read_text(encoding="utf-8")
    block = page.split("<!-- columns:begin -->\n", 1)[1].split("<!-- columns:end -->", 1)[0]
    assert block == markdown(), "regenerate the table with `python -m harness.analysis.export`"


def test_export_asks_for_a_table_and_refuses_a_file_that_is_not_a_results_file(tmp_path, capsys) -> None:
    bogus = tmp_path / "x.jsonl"
    bogus.write_text("not json\n")
    assert cli.main(["export", str(bogus)]) == 2
    assert "give --csv FILE, --samples FILE or both" in capsys.readouterr().err
    assert cli.main(["export", str(bogus), "--csv", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not JSON" in err[0] and not (tmp_path / "o.csv").exists()


def test_export_reads_through_the_records_and_the_analysis_only() -> None:
    allowed = ("harness.records", "harness.analysis", "harness.cli.options", "harness.cli.paths")
    for path in (ROOT / "harness" / "cli" / "export.py", ROOT / "harness" / "analysis" / "export.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        harness = {m for m in found if m.startswith("harness")}
        assert all(m.startswith(allowed) or m in ("harness.measure.numerics", "harness.catalog_types.kernel")
                   for m in harness), (path.name, harness)
