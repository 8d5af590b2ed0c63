"""The Document as Markdown, the form a README or a code host shows: plots as PNG files beside it."""

from __future__ import annotations

from harness.report import anchors
from harness.report.doc import (
    Block,
    Bullets,
    Cell,
    Document,
    Figure,
    Inline,
    Link,
    Mono,
    Notice,
    Para,
    Section,
    Source,
    SourcePair,
    Strong,
    Table,
    TableBlock,
)


def inline(parts: list[Inline], links: bool = True) -> str:
    """Inline text; with links=False (a README quoting the findings) links become plain text."""
    out = []
    for p in parts:
        if isinstance(p, Link):
            text = f"`{p.text}`" if p.code else p.text
            out.append(f"[{text}]({p.href})" if links else text)
        elif isinstance(p, Mono):
            out.append(f"`{p.text}`")
        elif isinstance(p, Strong):
            out.append(f"**{p.text}**")
        else:
            out.append(p.replace("*", "\\*").replace("_", "\\_") if "`" not in p else p)
    return "".join(out)


def _source(s: Source) -> list[str]:
    head = f"**`{s.path}`**" + (f", what changed since `{s.diff_against}` (shown under [{s.shown_in}]"
                                f"(#{s.against_at}))" if s.diff_against else "")
    out = [head + ", used by " + inline(s.used_by), ""]
    if s.shown_at:
        return [*out, f"The same file as under [{s.shown_in}](#{s.shown_at}), shown in full there.", ""]
    language = "diff" if s.diff_against else s.language
    return [*out, f"```{language}", s.code.rstrip("\n"), "```", ""]


def _block(b: Block | Section, files: dict[str, str]) -> list[str]:
    if isinstance(b, Section):
        return section(b, files)
    if isinstance(b, Para):
        return [inline(b.parts), ""]
    if isinstance(b, Bullets):
        return [f"{f'{n}.' if b.ordered else '-'} {inline(item)}" for n, item in enumerate(b.items, 1)] + [""]
    if isinstance(b, TableBlock):
        return ([f"**{b.title}**", ""] if b.title else []) + [to_markdown(b.table), ""]
    if isinstance(b, SourcePair):
        out = []
        for s in [*b.cuda, *b.triton]:
            out += _source(s)
        return out
    if isinstance(b, Figure):
        if not b.png:
            return [f"*{md_text(b.missing)}*", ""]
        return [f"![{b.title}]({files.get(b.key, '')})", "", b.caption, ""]
    if isinstance(b, Notice):
        mark = "**Failures.**" if b.level == "bad" else "**Note.**"
        return [f"> {mark} {b.text}", *(f"> - {md_text(line)}" for line, _ in b.items), ""]
    raise TypeError(f"no Markdown for {type(b).__name__}")


def section(s: Section, files: dict[str, str]) -> list[str]:
    out = [f'<a id="{s.anchor}"></a>', "", f"{'#' * s.level} {s.title}", ""]
    if s.subtitle:
        out += [s.subtitle, ""]
    for b in s.blocks:
        out += _block(b, files)
    if s.blocks and isinstance(s.blocks[-1], Section):
        return out
    return [*out, f"[↑ back to top](#{anchors.TOP})", ""]


def page(doc: Document, files: dict[str, str]) -> str:
    out = [f'<a id="{anchors.TOP}"></a>', "", f"# {doc.title}", "", doc.subtitle, ""]
    for n in doc.notices:
        out += _block(n, files)
    out += ["**Contents**", ""]
    for s in doc.sections:
        if s.toc:
            out.append(f"- [{s.title}](#{s.anchor})")
            out += [f"  - [{c.title}](#{c.anchor})" for c in s.sections() if c.toc]
    out.append("")
    for s in doc.sections:
        out += section(s, files)
    out += ["---", doc.footer, ""]
    return "\n".join(out)


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
