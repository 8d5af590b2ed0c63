"""Reading a rendered report page the way the tests need it: tag balance, anchors and links, images with
their displayed size, and every table as rows addressed by column header."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Cell:
    cls: str
    text: str


@dataclass
class Table:
    cls: str
    headers: list[str] = field(default_factory=list)
    rows: list[list[Cell]] = field(default_factory=list)
    section: str = ""                 # the id of the innermost section holding it

    def by_header(self) -> list[dict[str, Cell]]:
        """Each body row as {header: cell}; a spanning cell fills every column it spans."""
        return [dict(zip(self.headers, row, strict=True)) for row in self.rows]


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.ids: list[str] = []
        self.hrefs: list[str] = []
        self.titles: list[str] = []                 # elements carrying a title attribute
        self.images: list[dict[str, str]] = []      # attributes, plus "section" and "link" (the enclosing <a>)
        self.tables: list[Table] = []
        self.sections: list[str] = []               # section ids in document order
        self.back_links: dict[str, int] = {}        # section id -> links to #top inside it
        self.text: list[str] = []
        self._open_sections: list[str] = []
        self._cell: list[str] | None = None
        self._cell_cls, self._cell_span, self._in_head = "", 1, False
        self._link: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if a.get("id"):
            self.ids.append(a["id"])
        if "title" in a and tag != "title":
            self.titles.append(tag)
        if tag == "section":
            self._open_sections.append(a.get("id", ""))
            self.sections.append(a.get("id", ""))
        if tag == "a":
            self._link = a.get("href", "")
            if a.get("href"):
                self.hrefs.append(a["href"])
                if a["href"] == "#top":
                    for key in self._open_sections:
                        self.back_links[key] = self.back_links.get(key, 0) + 1
        if tag == "img":
            self.images.append({**a, "section": self._open_sections[-1] if self._open_sections else "",
                                "link": self._link or ""})
        if tag == "table":
            where = self._open_sections[-1] if self._open_sections else ""
            self.tables.append(Table(a.get("class", ""), section=where))
        elif tag == "thead":
            self._in_head = True
        elif tag == "tr" and self.tables and not self._in_head:
            self.tables[-1].rows.append([])
        elif tag in ("td", "th"):
            self._cell, self._cell_cls, self._cell_span = [], a.get("class", ""), int(a.get("colspan") or 1)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> at {self.getpos()} closes <{self.stack[-1] if self.stack else None}>")
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()
        if tag == "section" and self._open_sections:
            self._open_sections.pop()
        elif tag == "a":
            self._link = None
        elif tag == "thead":
            self._in_head = False
        elif tag in ("td", "th") and self._cell is not None and self.tables:
            cell = Cell(self._cell_cls, " ".join("".join(self._cell).split()))
            table = self.tables[-1]
            if tag == "th" and self._in_head:
                table.headers.append(cell.text)
            elif table.rows:
                table.rows[-1].extend([cell] * self._cell_span)
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)

    def tables_of(self, cls: str) -> list[Table]:
        return [t for t in self.tables if t.cls == cls]

    def rows_of(self, cls: str) -> list[dict[str, Cell]]:
        return [row for t in self.tables_of(cls) for row in t.by_header()]

    @property
    def plain(self) -> str:
        return " ".join("".join(self.text).split())


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page
