"""The Document as Markdown, the form a README or a code host shows: plots as PNG files beside it."""

from __future__ import annotations

from harness.report import anchors, doc


def inline(parts: list[doc.Inline], links: bool = True) -> str:
    """Inline text; with links=False (a README quoting the findings) links become plain text."""
    out = []
    for p in parts:
        if isinstance(p, doc.Link):
            text = f"`{p.text}`" if p.code else p.text
            out.append(f"[{text}]({p.href})" if links else text)
        elif isinstance(p, doc.Mono):
            out.append(f"`{p.text}`")
        else:
            out.append(p.replace("*", "\\*").replace("_", "\\_") if "`" not in p else p)
    return "".join(out)


def _source(s: doc.Source) -> list[str]:
    head = f"**`{s.path}`**" + (f", what changed since `{s.diff_against}` (shown under [{s.shown_in}]"
                                f"(#{s.against_at}))" if s.diff_against else "")
    out = [head + ", used by " + inline(s.used_by), ""]
    if s.shown_at:
        return [*out, f"The same file as under [{s.shown_in}](#{s.shown_at}), shown in full there.", ""]
    language = "diff" if s.diff_against else s.language
    return [*out, f"```{language}", s.code.rstrip("\n"), "```", ""]


def _block(b: doc.Block | doc.Section, files: dict[str, str]) -> list[str]:
    if isinstance(b, doc.Section):
        return section(b, files)
    if isinstance(b, doc.Para):
        return [inline(b.parts), ""]
    if isinstance(b, doc.Bullets):
        return [f"{f'{n}.' if b.ordered else '-'} {inline(item)}" for n, item in enumerate(b.items, 1)] + [""]
    if isinstance(b, doc.TableBlock):
        return ([f"**{b.title}**", ""] if b.title else []) + [to_markdown(b.table), ""]
    if isinstance(b, doc.SourcePair):
        return [line for s in [*b.cuda, *b.triton] for line in _source(s)]
    if isinstance(b, doc.Figure):
        if not b.png:
            return [f"*{md_text(b.missing)}*", ""]
        return [f"![{b.title}]({files.get(b.key, '')})", "", b.caption, ""]
    if isinstance(b, doc.Notice):
        mark = "**Failures.**" if b.level == "bad" else "**Note.**"
        return [f"> {mark} {b.text}", *(f"> - {md_text(line)}" for line, _ in b.items), ""]
    raise TypeError(f"no Markdown for {type(b).__name__}")


def section(s: doc.Section, files: dict[str, str]) -> list[str]:
    out = [f'<a id="{s.anchor}"></a>', "", f"{'#' * s.level} {s.title}", ""]
    if s.subtitle:
        out += [s.subtitle, ""]
    for b in s.blocks:
        out += _block(b, files)
    if s.blocks and isinstance(s.blocks[-1], doc.Section):
        return out
    return [*out, f"[↑ back to top](#{anchors.TOP})", ""]


def page(document: doc.Document, files: dict[str, str]) -> str:
    out = [f'<a id="{anchors.TOP}"></a>', "", f"# {document.title}", "", document.subtitle, ""]
    for n in document.notices:
        out += _block(n, files)
    out += ["**Contents**", ""]
    for s in document.sections:
        out += [f"- [{s.title}](#{s.anchor})", *(f"  - [{c.title}](#{c.anchor})" for c in s.sections())]
    out.append("")
    for s in document.sections:
        out += section(s, files)
    return "\n".join([*out, "---", document.footer, ""])


def md_text(text: str) -> str:
    return " ".join(str(text).replace("\n", "; ").split()).replace("|", "\\|")


def _md_cell(cell: doc.Cell) -> list[str]:
    text = md_text(cell.text)
    if cell.code and text and "`" not in text:
        text = f"`{text}`"
    if cell.sub:
        text += f" (`{md_text(cell.sub)}`)"
    return [text] + [""] * (cell.span - 1)


def to_markdown(table: doc.Table) -> str:
    lines = ["| " + " | ".join(md_text(h) for h, _ in table.headers) + " |",
             "|" + "|".join("---:" if num else "---" for _, num in table.headers) + "|"]
    lines += ["| " + " | ".join(t for c in cells for t in _md_cell(c)) + " |" for cells in table.rows]
    if table.notes:
        lines += ["", *(f"- {md_text(n)}" for n in table.notes)]
    return "\n".join(lines)
