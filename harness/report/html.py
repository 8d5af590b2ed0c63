"""The Document as one self-contained HTML page: images embedded, no script, nothing loaded from outside.

Every section ends with a link back to the top; the contents list every section, idea and plot."""

from __future__ import annotations

import base64
from pathlib import Path

# Pygments comes with rich, a dependency of the suite.
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CudaLexer, DiffLexer, PythonLexer

from harness.report import anchors, doc
from harness.report.fmt import esc, plural


def _cls(cls: str) -> str:
    return f' class="{esc(cls)}"' if cls else ""


def _code(text: str, commas: bool = False) -> str:
    """Escaped code that may break before template arguments (and after commas), and only there."""
    out = esc(text).replace("&lt;", "<wbr>&lt;")
    return out.replace(",", ",<wbr>") if commas else out


def inline(parts: list[doc.Inline]) -> str:
    out = []
    for p in parts:
        if isinstance(p, doc.Link):
            text = f"<code>{esc(p.text)}</code>" if p.code else esc(p.text)
            out.append(f'<a href="{esc(p.href)}">{text}</a>')
        elif isinstance(p, doc.Mono):
            out.append(f"<code>{_code(p.text)}</code>")
        else:
            out.append(esc(p))
    return "".join(out)


def _source(s: doc.Source) -> str:
    head = f'<div class="src-head"><code>{esc(s.path)}</code>'
    if s.diff_against:
        head += (f' — what changed since <code>{esc(s.diff_against)}</code> (shown under '
                 f'<a href="#{esc(s.against_at)}">{esc(s.shown_in)}</a>)')
    head += f'<span class="used">used by {inline(s.used_by)}</span></div>'
    if s.shown_at:
        return (f'{head}<p class="src-ref">The same file as under <a href="#{esc(s.shown_at)}">{esc(s.shown_in)}</a>, '
                f"shown in full there; here with the settings above.</p>")
    lexer = DiffLexer if s.diff_against else CudaLexer if s.language == "cuda" else PythonLexer
    return f'{head}<pre class="code"><code>{highlight(s.code, lexer(), HtmlFormatter(nowrap=True))}</code></pre>'


def _pair(pair: doc.SourcePair) -> str:
    cols = [(any(not s.shown_at for s in items),
             f'<div class="{cls}"><h4>{title}</h4>{"".join(_source(s) for s in items)}</div>')
            for cls, title, items in (("cuda", "CUDA: each .cu file once", pair.cuda),
                                      ("triton", "Triton: each module once", pair.triton))]
    # Side by side while both sides show code; one column (references first) when one side only refers back.
    if all(has_code for has_code, _ in cols):
        return f'<div class="code-pair">{"".join(c for _, c in cols)}</div>'
    return f'<div class="code-single">{"".join(c for _, c in sorted(cols, key=lambda c: c[0]))}</div>'


def _pair_summary(pair: doc.SourcePair) -> str:
    def names(items: list[doc.Source]) -> str:
        return ", ".join(s.path.rsplit("/", 1)[-1] + (" (diff)" if s.diff_against else " (shown above)"
                                                       if s.shown_at else "") for s in items)
    return f"Sources — CUDA: {names(pair.cuda) or 'none'} · Triton: {names(pair.triton) or 'none'}"


def _figure(f: doc.Figure, file: str) -> str:
    if not f.png:
        return f'<p class="missing">{esc(f.missing)}</p>'
    data = base64.b64encode(f.png).decode("ascii")
    link = f'<a href="{esc(file)}">' if file else "<a>"
    return (f'<figure>{link}<img src="data:image/png;base64,{data}" width="{f.width}" height="{f.height}" '
            f'alt="{esc(f.title)}"></a><figcaption>{esc(f.caption)}'
            + (f' <a href="{esc(file)}">Full-size PNG.</a>' if file else "") + "</figcaption></figure>")


def _notice(n: doc.Notice) -> str:
    items = "".join(f"<li><details><summary>{esc(line)}</summary><pre>{esc(full)}</pre></details></li>"
                    if full and full != line else f"<li>{esc(line)}</li>" for line, full in n.items)
    return (f'<div class="notice {esc(n.level)}"><strong>{esc(n.text)}</strong>'
            + (f"<ul>{items}</ul>" if items else "") + "</div>")


def _block(b: doc.Block | doc.Section, files: dict[str, str]) -> str:
    if isinstance(b, doc.Section):
        return _section(b, files)
    if isinstance(b, doc.Para):
        return f"<p{_cls(b.cls)}>{inline(b.parts)}</p>"
    if isinstance(b, doc.Bullets):
        tag = "ol" if b.ordered else "ul"
        return f"<{tag}{_cls(b.cls)}>" + "".join(f"<li>{inline(i)}</li>" for i in b.items) + f"</{tag}>"
    if isinstance(b, doc.TableBlock):
        if b.folded:
            return (f'<details class="fold"><summary>{esc(b.title or "table")} ({plural(len(b.table.rows), "row")})'
                    f"</summary>{to_html(b.table)}</details>")
        return (f"<h4>{esc(b.title)}</h4>" if b.title else "") + to_html(b.table)
    if isinstance(b, doc.SourcePair):
        return (f'<details class="fold src"><summary>{esc(_pair_summary(b))}</summary>{_pair(b)}</details>'
                if b.folded else _pair(b))
    if isinstance(b, doc.Figure):
        return _figure(b, files.get(b.key, ""))
    if isinstance(b, doc.Notice):
        return _notice(b)
    raise TypeError(f"no HTML for {type(b).__name__}")


def _section(s: doc.Section, files: dict[str, str]) -> str:
    tag = f"h{s.level}"
    cls = s.cls or ("idea" if s.anchor.startswith("idea-") else f"part-{s.level}")
    sub = f'<p class="subtitle">{esc(s.subtitle)}</p>' if s.subtitle else ""
    body = "".join(_block(b, files) for b in s.blocks)
    # A section that ends with a subsection already ends with that subsection's link.
    # An idea section is one of many in a row, with the contents in view beside it: no link of its own.
    last = s.blocks[-1] if s.blocks else None
    ends_nested = cls == "idea" or (isinstance(last, doc.Section) and not last.anchor.startswith("idea-"))
    back = "" if ends_nested else f'<p class="top"><a href="#{anchors.TOP}">↑ back to top</a></p>'
    return f'<section id="{esc(s.anchor)}" class="{cls}"><{tag}>{esc(s.title)}</{tag}>{sub}{body}{back}</section>'


def _toc_items(sections: list[doc.Section], depth: int = 3) -> str:
    """Every part, plot and idea, three levels deep."""
    items = []
    for s in sections:
        subs = s.sections() if depth > 1 else []
        inner = f"<ul>{_toc_items(subs, depth - 1)}</ul>" if subs else ""
        items.append(f'<li><a href="#{esc(s.anchor)}">{esc(s.title)}</a>{inner}</li>')
    return "".join(items)


def page(document: doc.Document, files: dict[str, str]) -> str:
    """The page; `files` maps a plot key to its PNG's file name beside the page (the full-size link). At wide
    windows the contents are a side column that stays in view."""
    body = [f'<h1 id="{anchors.TOP}">{esc(document.title)}</h1>', f'<p class="subtitle">{esc(document.subtitle)}</p>',
            *(_notice(n) for n in document.notices), *(_section(s, files) for s in document.sections),
            f"<footer>{esc(document.footer)}</footer>"]
    toc = f'<nav class="toc" aria-label="contents"><ul>{_toc_items(document.sections)}</ul></nav>'
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(document.title)}</title><style>{PYGMENTS_CSS}\n{CSS}</style></head>"
            f'<body><div class="layout"><main>{"".join(body)}</main>{toc}</div></body></html>\n')


def _html_cell(cell: doc.Cell) -> str:
    classes = " ".join(c for c in ("num" if cell.num else "", cell.cls) if c)
    attrs = _cls(classes) + (f' colspan="{cell.span}"' if cell.span > 1 else "")
    attrs += f' id="{esc(cell.anchor)}"' if cell.anchor else ""
    body = f"<code>{_code(cell.text, commas=True)}</code>" if cell.code else esc(cell.text).replace("\n", "<br>")
    if cell.href:
        body = f'<a href="{esc(cell.href)}">{body}</a>'
    if cell.sub:
        body += f'<br><code class="sub">{_code(cell.sub, commas=True)}</code>'
    return f"<td{attrs}>{body}</td>"


def to_html(table: doc.Table) -> str:
    head = "".join(f'<th class="num">{esc(h)}</th>' if num else f"<th>{esc(h)}</th>" for h, num in table.headers)
    rows = "".join(f"<tr{_cls(rcls)}>" + "".join(_html_cell(c) for c in cells) + "</tr>"
                   for cells, rcls in zip(table.rows, table.row_cls, strict=True))
    legend = f'<ul class="legend">{"".join(f"<li>{esc(n)}</li>" for n in table.notes)}</ul>' if table.notes else ""
    if len(table.notes) > 1:
        # A legend of several lines is the same for every table of its kind: folded, one click away, on the page.
        legend = f'<details class="legend"><summary>legend: {len(table.notes)} notes</summary>{legend}</details>'
    return (f'<div class="table-wrap"><table{_cls(table.cls)}><thead><tr>{head}</tr></thead>'
            f"<tbody>{rows}</tbody></table></div>{legend}")


PYGMENTS_CSS = HtmlFormatter(style="friendly").get_style_defs("pre.code")
# The page's stylesheet, a file of its own beside this module: system fonts with a CJK-capable fallback (seed 001 is
# titled in Chinese), tables with tabular figures.
CSS = (Path(__file__).parent / "page.css").read_text(encoding="utf-8")
