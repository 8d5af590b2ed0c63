"""The terminal summary stays readable when piped into a file or a CI log: one line per result."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from harness.analysis.measured import Measured
from harness.analysis.metrics import terminal_columns
from harness.report.terminal import CAVEAT_MARK, print_summary
from tests.recorded import with_rounds


@pytest.mark.parametrize("width", [80, 250])
def test_piped_output_keeps_every_row_on_one_line(recorded, width) -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=width)   # piped: `rosetta` gives the console $COLUMNS or 100
    assert not console.is_terminal
    m = Measured(with_rounds(recorded))
    print_summary(m, console)
    lines = buf.getvalue().splitlines()
    for r in recorded.results:
        # The kernel id and its implementation on one line: nothing folds at the console's width.
        # (a class that is not fp32-accurate carries the mark said under the table)
        named = (f" {r.label} ", f" {r.label}{CAVEAT_MARK} ")
        assert any(ln.startswith((r.kernel or "baseline") + " ") and any(n in ln + " " for n in named)
                   for ln in lines), r.key
    header = next(ln for ln in lines if ln.startswith("kernel "))
    if width == 250:   # wide enough for every column; narrower, columns are left out (harness.term_table)
        # ... but a column with nothing in it is left out at any width (a run with no Triton tutorial, no flag)
        first = m.problems[0]
        shown = [c.header(first.op) if c.names else c.term.header for c in terminal_columns() if c.term and
                 (c.term.drop is None or any(c.text(m, r) not in ("-", "") for r in m.on(first)))]
        assert header.split() == " ".join(shown).split()
    rows = [ln for ln in lines if ln.startswith(("s0", "rosetta.", "baseline"))]
    assert len(rows) == len(recorded.results) and max(map(len, lines)) <= width


def test_a_terminal_gets_a_table_with_whole_kernel_ids(recorded) -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=250, force_terminal=True, color_system=None)
    print_summary(Measured(recorded), console)
    text = buf.getvalue()
    assert all(r.kernel in text for r in recorded.results if r.kernel)
