"""The page as data: sections of blocks with inline links, rendered by html.py and markdown.py.

The report's content is built once (findings, tables, sources, plots) and written twice, so the two
pages say the same thing; only the presentation differs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.report.tables import Table


@dataclass(frozen=True)
class Link:
    text: str
    href: str          # "#anchor" on the page
    code: bool = False


@dataclass(frozen=True)
class Mono:
    text: str


@dataclass(frozen=True)
class Strong:
    text: str


Inline = str | Link | Mono | Strong


def plain(parts: list[Inline]) -> str:
    return "".join(p if isinstance(p, str) else p.text for p in parts)


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
    toc: bool = True                        # listed in the table of contents
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
