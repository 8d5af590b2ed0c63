"""Tables fit the width they are given: ids whole, no empty or one-character columns, plain text in a log."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from harness import cli, term_table
from harness.analysis.measured import Measured
from harness.cli import kernels as cli_kernels
from harness.records.file import load
from harness.registry import KERNELS
from harness.report.terminal import print_summary
from harness.term_table import Column, fit, reads_as, render, shorten

ROOT = Path(__file__).resolve().parents[1]
BOX = set("│┃┆┊║─━═┌┐└┘├┤┬┴┼╭╮╯╰╷╵╴╶ ")


def recorded_results() -> Path:
    """A committed GPU results file with several problems: the summary at its widest."""
    files = sorted((ROOT / "results").glob("*.jsonl"), key=lambda p: p.stat().st_size, reverse=True)
    if not files:
        pytest.skip("no recorded results under results/")
    return files[0]


def check_fits(text: str, width: int, ids: list[str], box_allowed: bool) -> None:
    lines = text.splitlines()
    assert lines
    for line in lines:
        assert len(line) <= width, line
        assert not line.strip() or set(line) - BOX, f"a line of box drawing only: {line!r}"
        if not box_allowed:
            assert not set(line) & (BOX - {" "}), line
    for kid in ids:
        # Whole: the id stands on one line, bounded by spaces (not folded, not cut with an ellipsis).
        assert any(f" {kid} " in f" {line} " for line in lines), kid


def terminal(width: int) -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=width, force_terminal=True, color_system=None), buf


@pytest.mark.parametrize("width", [80, 120])
def test_list_piped_fits_the_width_with_every_id_whole(width, monkeypatch, capsys) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    check_fits(out, width, [k.id for k in KERNELS], box_allowed=False)
    header = out.splitlines()[1].split()
    assert len(header) >= (3 if width == 80 else 5), header


def test_list_on_an_80_column_terminal_fits_with_every_id_whole(monkeypatch, capsys) -> None:
    console, buf = terminal(80)
    monkeypatch.setattr(cli_kernels, "console", lambda: console)
    assert cli.main(["list"]) == 0
    check_fits(buf.getvalue(), 80, [k.id for k in KERNELS], box_allowed=True)


def test_list_keeps_the_seed_idea_and_threads_at_80_columns_and_names_what_it_leaves_out(monkeypatch, capsys) -> None:
    # CONTRIBUTING.md sends a reader to `rosetta list` for where a kernel stands: its seed, idea and threads
    monkeypatch.setenv("COLUMNS", "80")
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    check_fits(out, 80, [k.id for k in KERNELS], box_allowed=False)
    assert out.splitlines()[1].split() == ["kernel", "seed", "idea", "thr"]
    for k in KERNELS:
        assert any(line.split()[:3] == [k.id, k.seed or "ours", k.idea] for line in out.splitlines()), k.id
    assert ("not shown at 80 columns: tile, kernels_triton/, kernels_cuda/, preconditions, beta=0"
            in " ".join(out.split()))


@pytest.mark.parametrize("width", [120, 160])
def test_list_keeps_the_preconditions_and_the_beta_zero_behaviour_where_they_fit(width, monkeypatch, capsys) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    check_fits(out, width, [k.id for k in KERNELS], box_allowed=False)
    header = out.splitlines()[1].split()
    assert {"seed", "idea", "threads", "preconditions", "beta=0"} <= set(header), header
    text = " ".join(out.split())
    for k in KERNELS:  # each condition is there, whatever the wrapping made of its words
        assert all(" ".join(c.text.split(" (", 1)[0].split()) in text for c in k.preconditions), k.id


# The ids the compare table finds hardest to shorten: long, and alike but for a template argument or two.
ALIKE = ("rosetta.sgemm_general<", "rosetta.tc_gemm<3xtf32,")


@pytest.fixture(scope="module")
def comparison(tmp_path_factory):
    """The committed full GPU run's baselines and its most alike long ids on one problem, against themselves (the
    verdicts of the whole run would take half a minute on a small machine, and the table's width is all this tests)."""
    from harness.analysis.compare import compare
    from tests.recorded import recorded_gpu_run

    path = recorded_gpu_run()
    if path is None:
        pytest.skip("no recorded GPU run under results/")
    lines = path.read_text(encoding="utf-8").splitlines()
    problem = json.loads(lines[0])["problems"][0]

    def kept(line: str) -> bool:
        record = json.loads(line)
        return record["record"] != "result" or (record["problem"] == problem and (
            record["kernel"] is None or record["kernel"].startswith(ALIKE)))

    small = tmp_path_factory.mktemp("compare") / "alike.jsonl"
    small.write_text("\n".join(filter(kept, lines)) + "\n", encoding="utf-8")
    return compare(small, small)


@pytest.mark.parametrize("width", [80, 100])
def test_compare_keeps_both_runs_times_and_the_call_on_every_row_and_shortens_ids_instead(width, comparison) -> None:
    from harness.report.compare import print_compare

    console, buf = terminal(width)
    print_compare(comparison, console)
    lines = buf.getvalue().splitlines()
    title = next(i for i, line in enumerate(lines) if line.endswith(": B against A"))
    header = lines[title + 1]
    assert header.split()[:2] == ["kernel", "implementation"] and all(f"  {h}" in header for h in ("A ms", "B ms",
                                                                                                   "call")), header
    table = lines[title + 2:]
    table = table[:next((i for i, line in enumerate(table) if not line or line.startswith(("not shown", "kernel:"))),
                        len(table))]
    body = [line for line in table if not line.startswith(" ")]  # a wrapped name's second line starts blank
    assert len(body) == len(comparison.rows) and all(len(line) <= width for line in lines)
    start = header.index("kernel")
    ids = {r.kernel for r in comparison.rows if r.kernel}
    assert len(ids) == 4
    for line, row in zip(body, comparison.rows, strict=True):
        cell = line[start:].split("  ")[0]
        if row.kernel:  # a shortened id reads as its kernel's id and as no other of the table
            assert [i for i in ids if reads_as(cell, i)] == [row.kernel], (cell, row.kernel)
        # the cells after the implementation's label (which may hold one space: "Gluon ordered")
        figures = re.split(r"\s{2,}", line[header.index("implementation"):].strip())[1:]
        assert figures[0] == f"{row.a.timing.median_ms:.4g}" and figures[1] == f"{row.b.timing.median_ms:.4g}", line
        assert row.call.value in " ".join(figures).split(), line
    assert "ids shortened" in " ".join(buf.getvalue().split())


@pytest.mark.parametrize("width", [80, 100])
def test_claims_keeps_the_published_figure(width) -> None:
    from harness.analysis.claims import claims_table
    from harness.cli.results import print_claims

    console, buf = terminal(width)
    print_claims(claims_table(None), console, None)  # the published figures alone: `rosetta claims`
    lines = buf.getvalue().splitlines()
    assert {"kernel", "published", "doc", "our"} <= set(lines[1].split()), lines[1]
    assert all(len(line) <= width for line in lines[: lines.index("") if "" in lines else None])


@pytest.mark.parametrize("tty", [False, True], ids=["piped", "terminal"])
def test_run_summary_of_a_recorded_run_fits_80_columns_with_every_id_read_as_its_own(tty) -> None:
    recorded = load(recorded_results())
    buf = io.StringIO()
    console = Console(file=buf, width=80, force_terminal=tty, color_system=None)
    print_summary(Measured(recorded), console)
    ids = sorted({r.kernel for r in recorded.results if r.kernel})
    assert ids
    check_fits(buf.getvalue(), 80, [], box_allowed=tty)
    cells = {c for line in buf.getvalue().splitlines() if (c := line.split("  ")[0])
             and any(reads_as(c, i) for i in ids)}
    # every id is there, whole or shortened (the numbers come first), and a shortened one reads as its own id alone
    assert {next(i for i in ids if reads_as(c, i)) for c in cells} == set(ids)
    assert all(len([i for i in ids if reads_as(c, i)]) == 1 for c in cells)


def test_piped_width_is_columns_when_set_else_100(monkeypatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert term_table.plain_width() == 100
    monkeypatch.setenv("COLUMNS", "132")
    assert term_table.plain_width() == 132
    monkeypatch.setenv("COLUMNS", "junk")
    assert term_table.plain_width() == 100


ID = "rosetta.sgemm_frag_prefetch<128,128,8,32,64,8,8,4>"
COLS = [Column("kernel"), Column("a", drop=1), Column("b", drop=2), Column("text", drop=3, wrap=10)]
ROW = [ID, "aaaaaaaaaa", "bbbbbbbbbb", "ok, err 1.3e-07 and a few more words"]


def test_columns_are_left_out_in_their_drop_order() -> None:
    f = fit(COLS, [ROW], 80)
    assert f.headers == ["kernel", "b", "text"] and f.left_out == ["a"]
    f = fit(COLS, [ROW], 70)
    assert f.headers == ["kernel", "text"] and f.left_out == ["a", "b"]
    assert fit(COLS, [ROW], 200).left_out == []


def test_a_wrapped_column_never_narrows_below_its_minimum() -> None:
    f = fit(COLS, [ROW], 62)   # room for the id and a 10-wide text column, no more
    text = f.rows[0][f.headers.index("text")]
    assert f.headers == ["kernel", "text"] and f.widths[1] == 10
    assert all(len(line) <= 10 for line in text) and len(text) == 4
    f = fit(COLS, [ROW], 55)   # less room than that: the text is left out rather than squeezed
    assert f.headers == ["kernel"] and f.left_out == ["a", "b", "text"]


def test_a_column_left_out_comes_back_when_room_is_left() -> None:
    cols = [Column("kernel"), Column("wide", drop=2), Column("narrow", drop=1)]
    f = fit(cols, [[ID, "w" * 40, "n"]], 60)
    assert f.headers == ["kernel", "narrow"] and f.left_out == ["wide"]


def test_columns_with_nothing_in_them_are_left_out_at_any_width_and_named() -> None:
    cols = [Column("kernel"), Column("ms", drop=9, right=True), Column("numerics", drop=1)]
    for width in (70, 200):
        f = fit(cols, [[ID, "-", "ok, err 1.3e-07"], [ID, "-", "ok"]], width)
        assert f.headers == ["kernel", "numerics"] and f.empty == ["ms"]


def test_ids_are_never_cut_even_when_wider_than_the_width() -> None:
    text = render(None, COLS, [ROW], 30)
    assert ID in text


def test_an_id_is_shortened_in_the_middle_of_its_template_arguments_first_and_reads_as_itself() -> None:
    other = "rosetta.sgemm_general<128,128,8,32,64,8,8,16>"
    assert shorten(ID, len(ID)) == ID
    assert shorten(ID, 45) == "rosetta.sgemm_frag_prefetch<128,128,8,…,8,4>"  # the name whole, arguments' middle
    assert shorten(ID, 36) == "rosetta.sgemm_frag_prefetch<128,…,4>"
    assert shorten(ID, 24).endswith("<128,…,4>") and len(shorten(ID, 24)) == 24  # then the name's middle
    assert shorten(ID, 10).endswith("<…>")  # the template arguments last
    for width in range(10, len(ID)):
        assert len(shorten(ID, width)) <= width and reads_as(shorten(ID, width), ID)
    # Where the short form would also read as another id of the column, more of the id is kept.
    assert shorten(other, 31, [ID, other]) == "rosetta.sgemm_general<128,…,16>"
    assert shorten("rosetta.tc_gemm<tf32,128,128,32,2,4,3,row>", 32,
                   ["rosetta.tc_gemm<tf32,256,128,32,4,2,3,row>"]) == "rosetta.tc_gemm<tf32,128,…,row>"


def test_a_column_of_ids_is_never_narrowed_past_telling_them_apart() -> None:
    ids = [k.id for k in KERNELS]
    cols = [Column("kernel", elide=True), Column("value", right=True)]
    f = fit(cols, [[i, "1.0%"] for i in ids], 30)
    shown = [cell[0] for row in f.rows for cell in row[:1]]
    assert len(set(shown)) == len(ids) and max(map(len, shown)) < max(map(len, ids))
    assert f.shortened == ["kernel"]
    from harness.cli.ids import resolve

    for short, whole in zip(shown, ids, strict=True):  # each one `rosetta explain` takes as shown
        assert resolve(short).id == whole, short


def test_no_column_is_zero_wide_and_no_cell_folds_one_character_per_line() -> None:
    for width in range(20, 160, 7):
        f = fit(COLS, [ROW], width)
        assert all(w >= 1 for w in f.widths)
        assert all(len(line) > 1 for row in f.rows for cell in row for line in cell if line), width


def test_a_column_of_ids_narrows_though_one_whole_id_is_held_in_another() -> None:
    # "cublas" reads as a part of "cublas-tf32": shown whole, it is still itself, and the long ids may be shortened
    ids = ["cublas", "cublas-tf32", "rosetta.tc_gemm<tf32,256,128,32,4,2,3,kmajor> [triton:tuned]"]
    fitted = fit([Column("against", elide=True), Column("call")], [[i, "SLOW"] for i in ids], 30)
    assert fitted.width <= 30 and fitted.shortened == ["against"]
    assert [cell[0] for cell, _ in fitted.rows][:2] == ["cublas", "cublas-tf32"]


def test_run_summary_at_80_columns_keeps_readable_ids_a_number_and_the_call_on_every_row() -> None:
    from harness.analysis.record import read_beside
    from tests.recorded import recorded_gpu_run

    path = recorded_gpu_run()
    if path is None:
        pytest.skip("no recorded GPU run under results/")
    recorded = load(path)
    console, buf = terminal(80)
    print_summary(Measured(recorded, read_beside(path)), console)
    ids = sorted({r.kernel for r in recorded.results if r.kernel})
    tables = [t for t in buf.getvalue().split("\n\n") if t.strip()]
    assert tables
    for table in tables:
        lines = table.splitlines()
        assert re.search(r"%\s?cuBLAS", lines[1]) and "call" in lines[1], lines[1]
        for line in lines[2:]:
            cell = line.split("  ")[0]
            mine = [i for i in ids if reads_as(cell, i)]
            if len(mine) == 1:  # a kernel's row: its id as long as the table lets it be, its origin whole
                assert cell == mine[0] or (len(cell) >= 24 and cell.startswith(mine[0][:6])), cell
                assert re.search(r"\d%", line) and re.search(r"\b(FAST|SLOW|SAME|AMBIGUOUS)\b", line), line


def test_a_figure_folds_its_interval_under_it_rather_than_push_out_a_column_that_is_never_left_out() -> None:
    cols = [Column("kernel"), Column("% cuBLAS [95%]", drop=9, right=True), Column("call")]
    row = ["rosetta.sgemm_general<128,256,16,32,128,8,16,8>", "98.6% [98.4–99.2]", "AMBIGUOUS"]
    narrow = fit(cols, [row], 76)
    assert [c.header for c in narrow.columns] == ["kernel", "% cuBLAS [95%]", "call"]
    assert narrow.rows[0][1] == ["98.6%", "[98.4–99.2]"] and narrow.width <= 76
    wide = fit(cols, [row], 100)
    assert wide.rows[0][1] == ["98.6% [98.4–99.2]"]
