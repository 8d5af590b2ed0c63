"""The table model: one description of a table, rendered to HTML and to Markdown.

Both pages are built from the same cells, so the HTML and the Markdown can never disagree on a
figure. A table carries its legend (what each column's marks mean) as notes printed under it:
explanations are on the page, never only in a tooltip.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.report.fmt import esc


@dataclass
class Cell:
    text: str = ""
    num: bool = False        # right-aligned, tabular figures
    cls: str = ""            # ok / bad / warn / muted / why / zero
    code: bool = False       # monospace (ids, SASS names)
    span: int = 1            # HTML colspan; Markdown pads with empty cells
    href: str = ""           # link target (an anchor on the page)
    sub: str = ""            # a second line in small monospace: the kernel a figure belongs to
    anchor: str = ""         # HTML id of the cell: a place on the page a link can name (a kernel)


@dataclass
class Table:
    headers: list[tuple[str, bool]]          # (label, numeric column)
    rows: list[list[Cell]] = field(default_factory=list)
    cls: str = ""
    row_cls: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # the legend, printed under the table

    def add(self, cells: list[Cell], row_cls: str = "") -> None:
        width = sum(c.span for c in cells)
        if width != len(self.headers):
            raise ValueError(f"a row of {width} cells in a table of {len(self.headers)} columns")
        self.rows.append(cells)
        self.row_cls.append(row_cls)

    def __bool__(self) -> bool:
        return bool(self.rows)


def _html_cell(cell: Cell) -> str:
    classes = " ".join(c for c in ("num" if cell.num else "", cell.cls) if c)
    attrs = f' class="{classes}"' if classes else ""
    if cell.span > 1:
        attrs += f' colspan="{cell.span}"'
    if cell.anchor:
        attrs += f' id="{esc(cell.anchor)}"'
    # Long kernel ids may break before their template arguments, and only there.
    body = (f"<code>{esc(cell.text).replace('&lt;', '<wbr>&lt;').replace(',', ',<wbr>')}</code>" if cell.code
            else esc(cell.text).replace("\n", "<br>"))
    if cell.href:
        body = f'<a href="{esc(cell.href)}">{body}</a>'
    if cell.sub:
        body += f'<br><code class="sub">{esc(cell.sub).replace("&lt;", "<wbr>&lt;").replace(",", ",<wbr>")}</code>'
    return f"<td{attrs}>{body}</td>"


def to_html(table: Table) -> str:
    head = "".join(f'<th class="num">{esc(h)}</th>' if num else f"<th>{esc(h)}</th>" for h, num in table.headers)
    rows = []
    for cells, rcls in zip(table.rows, table.row_cls, strict=True):
        attrs = f' class="{esc(rcls)}"' if rcls else ""
        rows.append(f"<tr{attrs}>" + "".join(_html_cell(c) for c in cells) + "</tr>")
    cls = f' class="{esc(table.cls)}"' if table.cls else ""
    notes = "".join(f"<li>{esc(n)}</li>" for n in table.notes)
    legend = f'<ul class="legend">{notes}</ul>' if notes else ""
    if len(table.notes) > 1:
        # A legend of several lines is the same for every table of its kind: folded, one click away, on the page.
        legend = f'<details class="legend"><summary>legend: {len(table.notes)} notes</summary>{legend}</details>'

    return (f'<div class="table-wrap"><table{cls}><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>{legend}")


def md_text(text: str) -> str:
    return " ".join(str(text).replace("\n", "; ").split()).replace("|", "\\|")


def _md_cell(cell: Cell) -> list[str]:
    text = md_text(cell.text)
    if cell.code and text and "`" not in text:
        text = f"`{text}`"
    if cell.sub:
        text += f" (`{md_text(cell.sub)}`)"
    return [text] + [""] * (cell.span - 1)


def to_markdown(table: Table) -> str:
    lines = ["| " + " | ".join(md_text(h) for h, _ in table.headers) + " |",
             "|" + "|".join("---:" if num else "---" for _, num in table.headers) + "|"]
    for cells in table.rows:
        lines.append("| " + " | ".join(t for c in cells for t in _md_cell(c)) + " |")
    if table.notes:
        lines.append("")
        lines += [f"- {md_text(n)}" for n in table.notes]
    return "\n".join(lines)
