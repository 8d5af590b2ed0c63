"""The terminal summary stays readable when piped into a file or a CI log: a row per result, its id on its first
line."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from harness.analysis.measured import Measured
from harness.analysis.record import read_beside
from harness.baselines import cublas_of
from harness.records.file import load
from harness.report.metrics import terminal_columns
from harness.report.terminal import CAVEAT_MARK, print_summary
from harness.term_table import reads_as
from tests.recorded import recorded_gpu_run, with_rounds

INTERVAL_CELL = re.compile(r"\d+\.\d% \[\d+\.\d–\d+\.\d\]\s*$")


@pytest.mark.parametrize("width", [80, 250])
def test_piped_output_keeps_every_row_on_one_line(recorded, width) -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=width)   # piped: `rosetta` gives the console $COLUMNS or 100
    assert not console.is_terminal
    m = Measured(with_rounds(recorded))
    print_summary(m, console)
    lines = buf.getvalue().splitlines()
    ids = sorted({r.kernel for r in recorded.results if r.kernel})
    found = _rows(lines)
    for r in recorded.results:
        # The kernel id (whole, or shortened so that it reads as its own id alone) on its row's first line, and its
        # implementation's name in its column, wrapped at its words where the width is short (a class that is not
        # fp32-accurate carries the mark said under it)
        assert any(_reads_as_its_own(cell, r.kernel, ids) and impl in (r.label, r.label + CAVEAT_MARK)
                   for cell, impl in found), r.key
    header = next(ln for ln in lines if ln.startswith("kernel "))
    if width == 250:   # wide enough for every column; narrower, columns are left out (harness.term_table)
        # ... but a column with nothing in it is left out at any width (a run with no Triton tutorial, no flag)
        first = m.problems[0]
        shown = [c.header(first.op) if c.names else c.term.header for c in terminal_columns() if c.term and
                 (c.term.drop is None or any(c.text(m, r) not in ("-", "") for r in m.on(first)))]
        assert header.split() == " ".join(shown).split()
    rows = [ln for ln in lines if (cell := ln.split("  ")[0]) == "baseline"
            or (cell and any(reads_as(cell, i) for i in ids))]
    assert len(rows) == len(recorded.results) and max(map(len, lines)) <= width


def _rows(lines: list[str]) -> list[tuple[str, str]]:
    """(kernel cell, implementation cell) of every row of every table: a row is its first line and the lines under it
    that start blank; the implementation cell is what its column holds on each of them (a name holds no two spaces
    in a row, the gap between columns)."""
    out: list[tuple[str, str]] = []
    start = 0
    for line in lines:
        if line.startswith("kernel "):
            start = line.index("impl")
        elif line.startswith(" ") and out:
            out[-1] = (out[-1][0], f"{out[-1][1]} {line[start:].split('  ')[0].strip()}".strip())
        elif line.strip():
            out.append((line.split("  ")[0], line[start:].split("  ")[0].strip()))
    return out


def _reads_as_its_own(cell: str, kernel: str | None, ids: list[str]) -> bool:
    if kernel is None:
        return cell == "baseline"
    return [i for i in ids if reads_as(cell, i)] == [kernel]


@pytest.mark.parametrize("width", [80, 100])
def test_at_80_and_100_columns_the_summary_keeps_the_percent_of_cublas_with_its_interval_and_the_call(width) -> None:
    """Numbers before names: the ids are shortened (each reads as its own id alone) before % cuBLAS or the call go."""
    path = recorded_gpu_run()
    if path is None:
        pytest.skip("no recorded GPU run under results/")
    m = Measured(load(path), read_beside(path))
    buf = io.StringIO()
    print_summary(m, Console(file=buf, width=width, force_terminal=False, color_system=None))
    lines = buf.getvalue().splitlines()
    assert max(map(len, lines)) <= width
    headers = [ln for ln in lines if ln.startswith("kernel ")]
    assert len(headers) == len(m.problems)
    assert all(re.search(r"  (%cuBLAS|% cuBLAS \[95%\])  call( |$)", h) for h in headers), headers
    ids = sorted({r.kernel for r in m.all if r.kernel})
    for problem, header in zip(m.problems, headers, strict=True):
        body = lines[lines.index(header) + 1:]
        starts = [i for i, ln in enumerate(body) if not ln.startswith(" ")][:len(m.on(problem))]
        pct, call = header.index("call") - 2, header.index("call")
        for i, r in zip(starts, m.on(problem), strict=True):
            ln = body[i]
            assert _reads_as_its_own(ln.split("  ")[0], r.kernel, ids), (ln, r.kernel)
            if r.timed and r.impl != cublas_of(r.precision):   # its interval and its call, never cut
                c = m.vs(r, "cublas")   # no interval where the rounds were too few for a 95% one
                # the figure and its interval on the row's line, or (at 80 columns) the interval under the figure
                under = body[i + 1][:pct + 1].split() if i + 1 < len(body) and body[i + 1].startswith(" ") else []
                folded = " ".join([*ln[:pct + 1].split()[-1:], *under[-1:]])
                assert (INTERVAL_CELL.search(ln[:pct + 1]) or INTERVAL_CELL.search(folded)
                        or not (c and c.verdict and c.verdict.time.at_level)), ln
                assert ln[call:].split()[0] in ("FAST", "SLOW", "SAME", "AMBIGUOUS"), ln
    assert "ids shortened" in " ".join(buf.getvalue().split())


def test_a_terminal_gets_a_table_with_whole_kernel_ids(recorded) -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=250, force_terminal=True, color_system=None)
    print_summary(Measured(recorded), console)
    text = buf.getvalue()
    assert all(r.kernel in text for r in recorded.results if r.kernel)
