"""Tables fit the width they are given: ids whole, no empty or one-character columns, plain text in a log."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from harness import cli, cli_kernels, term_table
from harness.analysis.measured import Measured
from harness.records.file import load
from harness.registry import KERNELS
from harness.report.terminal import print_summary
from harness.term_table import Column, fit, render

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
    assert len(header) >= (4 if width == 80 else 6), header


def test_list_on_an_80_column_terminal_fits_with_every_id_whole(monkeypatch, capsys) -> None:
    console, buf = terminal(80)
    monkeypatch.setattr(cli_kernels, "console", lambda: console)
    assert cli.main(["list"]) == 0
    check_fits(buf.getvalue(), 80, [k.id for k in KERNELS], box_allowed=True)


def test_list_says_which_columns_it_left_out(monkeypatch, capsys) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    cli.main(["list"])
    out = capsys.readouterr().out
    assert "not shown at 80 columns: kernels_cuda/, kernels_triton/" in " ".join(out.split())


@pytest.mark.parametrize("tty", [False, True], ids=["piped", "terminal"])
def test_run_summary_of_a_recorded_run_fits_80_columns_with_every_id_whole(tty) -> None:
    recorded = load(recorded_results())
    buf = io.StringIO()
    console = Console(file=buf, width=80, force_terminal=tty, color_system=None)
    print_summary(Measured(recorded), console)
    ids = sorted({r.kernel for r in recorded.results if r.kernel})
    assert ids
    check_fits(buf.getvalue(), 80, ids, box_allowed=tty)


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


def test_no_column_is_zero_wide_and_no_cell_folds_one_character_per_line() -> None:
    for width in range(20, 160, 7):
        f = fit(COLS, [ROW], width)
        assert all(w >= 1 for w in f.widths)
        assert all(len(line) > 1 for row in f.rows for cell in row for line in cell if line), width
