"""The one printer of declared metrics (harness/report/metrics.py): a list of metrics and a list of rows make a
table, its headers the metrics' names, its cells what each reads of each row, its legend the lines of the metrics it
shows. An optional metric none of whose rows has a value is not drawn; where a row has no measured figures, one cell
saying why spans the figure columns."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from harness.analysis.measured import Measured
from harness.report.doc import Cell, Table
from harness.report.metrics import Metric


def table(m: Measured, columns: Sequence[Metric[Any]], rows: Sequence[Any], cls: str = "",
          why: Callable[[Measured, Any], str | None] | None = None,
          row_cls: Callable[[Any], str] | None = None, op: str = "") -> Table:
    """`op`: the op every row is of, where a metric is named after it (TFLOP/s or GB/s)."""
    shown = [c for c in columns if not c.optional or any(c.read(m, r) is not None for r in rows)]
    out = Table([(c.header(op), c.num) for c in shown], cls=cls)
    for r in rows:
        reason = why(m, r) if why is not None else None
        cells: list[Cell] = []
        for c in shown:
            if reason is not None and c.figure:
                if cells and cells[-1].cls == "why":
                    cells[-1].span += 1
                else:
                    cells.append(Cell(reason, cls="why"))
            else:
                cells.append(c.cell(m, r))
        out.add(cells, row_cls(r) if row_cls else "")
    out.notes += legends(shown)
    return out


def legends(columns: Sequence[Metric[Any]]) -> list[str]:
    """The legend lines of these metrics, each once, in column order."""
    return list(dict.fromkeys(c.legend for c in columns if c.legend))
