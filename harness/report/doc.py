"""The page as data: sections of blocks with inline links, and tables of cells, rendered by html.py and markdown.py.

Built once and written twice from the same cells, so the HTML and the Markdown can never disagree on a figure. A
table carries its legend as notes printed under it: explanations are on the page, never only in a tooltip."""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.report.fmt import Cell, Inline, Link, Mono, plain

__all__ = ["Cell", "Inline", "Link", "Mono", "plain"]


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


@dataclass
class Para:
    parts: list[Inline]
    cls: str = ""          # lesson / note / missing / measured


@dataclass
class Bullets:
    items: list[list[Inline]]
    cls: str = ""
    ordered: bool = False


@dataclass
class TableBlock:
    table: Table
    title: str = ""
    folded: bool = False    # HTML: inside <details>, the title as its summary


@dataclass
class Source:
    """A source file, whole or as a diff against the previous step, with what uses it."""

    path: str
    language: str          # cuda / python
    code: str              # the file, or the unified diff of its body
    used_by: list[Inline]
    diff_against: str = ""  # the earlier file the diff is taken against (empty: whole file)
    against_at: str = ""   # the anchor of the section that shows that earlier file
    shown_at: str = ""     # the anchor of the section that already shows the file: a reference, no code
    shown_in: str = ""     # that section's title


@dataclass
class SourcePair:
    cuda: list[Source]
    triton: list[Source]
    folded: bool = False    # HTML: inside <details>, the files named in its summary


@dataclass
class Figure:
    key: str
    title: str
    caption: str
    png: bytes | None
    missing: str = ""      # why there is no image
    width: int = 0         # natural size in pixels
    height: int = 0


@dataclass
class Notice:
    level: str             # warn / bad / info
    text: str
    items: list[tuple[str, str]] = field(default_factory=list)   # (one line, full text)


Block = Para | Bullets | TableBlock | SourcePair | Figure | Notice


@dataclass
class Section:
    anchor: str
    title: str
    level: int                              # 2: a part of the page, 3: an idea or a problem
    blocks: list[Block | Section] = field(default_factory=list)
    subtitle: str = ""                      # a second line under the heading (an original-language title)
    cls: str = ""                           # HTML class (a part of the page)

    def add(self, *blocks: Block | Section) -> None:
        self.blocks.extend(blocks)

    def sections(self) -> list[Section]:
        return [b for b in self.blocks if isinstance(b, Section)]


@dataclass
class Document:
    title: str
    subtitle: str
    notices: list[Notice]
    sections: list[Section]
    footer: str
