"""The Document as one self-contained HTML page: images embedded, no script, nothing loaded from outside.

Every section ends with a link back to the top, and the table of contents lists every section,
every idea and every plot.
"""

from __future__ import annotations

import base64

from harness.report import anchors
from harness.report.doc import (
    Block,
    Bullets,
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
    TableBlock,
)
from harness.report.fmt import esc
from harness.report.style import CSS, pygments_css
from harness.report.tables import to_html


def inline(parts: list[Inline]) -> str:
    out = []
    for p in parts:
        if isinstance(p, Link):
            text = f"<code>{esc(p.text)}</code>" if p.code else esc(p.text)
            out.append(f'<a href="{esc(p.href)}">{text}</a>')
        elif isinstance(p, Mono):
            out.append(f"<code>{esc(p.text).replace('&lt;', '<wbr>&lt;')}</code>")
        elif isinstance(p, Strong):
            out.append(f"<strong>{esc(p.text)}</strong>")
        else:
            out.append(esc(p))
    return "".join(out)


def highlight(code: str, language: str) -> str:
    """Syntax-highlighted HTML (escaped by Pygments), or plain escaped text when Pygments is absent."""
    try:
        from pygments import highlight as pyg
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import CudaLexer, DiffLexer, PythonLexer
    except ImportError:
        return esc(code)
    lexer = {"cuda": CudaLexer, "diff": DiffLexer}.get(language, PythonLexer)()
    return pyg(code, lexer, HtmlFormatter(nowrap=True))


def _source(s: Source) -> str:
    head = f'<div class="src-head"><code>{esc(s.path)}</code>'
    if s.diff_against:
        head += (f' — what changed since <code>{esc(s.diff_against)}</code> (shown under '
                 f'<a href="#{esc(s.against_at)}">{esc(s.shown_in)}</a>)')
    head += f'<span class="used">used by {inline(s.used_by)}</span></div>'
    if s.shown_at:
        return (f'{head}<p class="src-ref">The same file as under <a href="#{esc(s.shown_at)}">{esc(s.shown_in)}</a>, '
                f"shown in full there; here with the settings above.</p>")
    language = "diff" if s.diff_against else s.language
    return f'{head}<pre class="code"><code>{highlight(s.code, language)}</code></pre>'


def _pair(pair: SourcePair) -> str:
    cols = []
    for cls, title, items in (("cuda", "CUDA: each .cu file once", pair.cuda),
                              ("triton", "Triton: each module once", pair.triton)):
        cols.append((any(not s.shown_at for s in items),
                     f'<div class="{cls}"><h4>{title}</h4>{"".join(_source(s) for s in items)}</div>'))
    # Side by side while both sides show code; one column (references first) when one side only refers back.
    if all(has_code for has_code, _ in cols):
        return f'<div class="code-pair">{"".join(c for _, c in cols)}</div>'
    ordered = sorted(cols, key=lambda c: c[0])
    return f'<div class="code-single">{"".join(c for _, c in ordered)}</div>'


def _pair_summary(pair: SourcePair) -> str:
    def names(items: list[Source]) -> str:
        return ", ".join(s.path.rsplit("/", 1)[-1] + (" (diff)" if s.diff_against else " (shown above)"
                                                       if s.shown_at else "") for s in items)
    return f"Sources — CUDA: {names(pair.cuda) or 'none'} · Triton: {names(pair.triton) or 'none'}"


def _figure(f: Figure, file: str) -> str:
    if not f.png:
        return f'<p class="missing">{esc(f.missing)}</p>'
    data = base64.b64encode(f.png).decode("ascii")
    link = f'<a href="{esc(file)}">' if file else "<a>"
    return (f'<figure>{link}<img src="data:image/png;base64,{data}" width="{f.width}" height="{f.height}" '
            f'alt="{esc(f.title)}"></a><figcaption>{esc(f.caption)}'
            + (f' <a href="{esc(file)}">Full-size PNG.</a>' if file else "") + "</figcaption></figure>")


def _notice(n: Notice) -> str:
    items = []
    for line, full in n.items:
        if full and full != line:
            items.append(f"<li><details><summary>{esc(line)}</summary><pre>{esc(full)}</pre></details></li>")
        else:
            items.append(f"<li>{esc(line)}</li>")
    return (f'<div class="notice {esc(n.level)}"><strong>{esc(n.text)}</strong>'
            + (f"<ul>{''.join(items)}</ul>" if items else "") + "</div>")


def _block(b: Block | Section, files: dict[str, str]) -> str:
    if isinstance(b, Section):
        return _section(b, files)
    if isinstance(b, Para):
        cls = f' class="{esc(b.cls)}"' if b.cls else ""
        return f"<p{cls}>{inline(b.parts)}</p>"
    if isinstance(b, Bullets):
        tag = "ol" if b.ordered else "ul"
        cls = f' class="{esc(b.cls)}"' if b.cls else ""
        return f"<{tag}{cls}>" + "".join(f"<li>{inline(i)}</li>" for i in b.items) + f"</{tag}>"
    if isinstance(b, TableBlock):
        if b.folded:
            title = b.title or "table"
            return (f'<details class="fold"><summary>{esc(title)} ({len(b.table.rows)} '
                    f'row{"s" if len(b.table.rows) != 1 else ""})</summary>{to_html(b.table)}</details>')
        return (f"<h4>{esc(b.title)}</h4>" if b.title else "") + to_html(b.table)
    if isinstance(b, SourcePair):
        if b.folded:
            return f'<details class="fold src"><summary>{esc(_pair_summary(b))}</summary>{_pair(b)}</details>'
        return _pair(b)
    if isinstance(b, Figure):
        return _figure(b, files.get(b.key, ""))
    if isinstance(b, Notice):
        return _notice(b)
    raise TypeError(f"no HTML for {type(b).__name__}")


def _section(s: Section, files: dict[str, str]) -> str:
    tag = f"h{s.level}"
    cls = s.cls or ("idea" if s.anchor.startswith("idea-") else f"part-{s.level}")
    sub = f'<p class="subtitle">{esc(s.subtitle)}</p>' if s.subtitle else ""
    body = "".join(_block(b, files) for b in s.blocks)
    # A section that ends with a subsection already ends with that subsection's link.
    # An idea section is one of many in a row, with the contents in view beside it: no link of its own.
    last = s.blocks[-1] if s.blocks else None
    ends_nested = cls == "idea" or (isinstance(last, Section) and not last.anchor.startswith("idea-"))
    back = "" if ends_nested else f'<p class="top"><a href="#{anchors.TOP}">↑ back to top</a></p>'
    return f'<section id="{esc(s.anchor)}" class="{cls}"><{tag}>{esc(s.title)}</{tag}>{sub}{body}{back}</section>'


def _toc_items(sections: list[Section], depth: int) -> str:
    items = []
    for s in sections:
        if not s.toc:
            continue
        subs = [c for c in s.sections() if c.toc] if depth > 1 else []
        inner = f"<ul>{_toc_items(subs, depth - 1)}</ul>" if subs else ""
        items.append(f'<li><a href="#{esc(s.anchor)}">{esc(s.title)}</a>{inner}</li>')
    return "".join(items)


def toc(sections: list[Section]) -> str:
    """Every part, plot and idea; at wide windows a side column that stays in view."""
    return f'<nav class="toc" aria-label="contents"><ul>{_toc_items(sections, 3)}</ul></nav>'


def page(doc: Document, files: dict[str, str]) -> str:
    """The page; `files` maps a plot key to its PNG's file name beside the page (the full-size link)."""
    body = [f'<h1 id="{anchors.TOP}">{esc(doc.title)}</h1>', f'<p class="subtitle">{esc(doc.subtitle)}</p>',
            *(_notice(n) for n in doc.notices), *(_section(s, files) for s in doc.sections),
            f"<footer>{esc(doc.footer)}</footer>"]
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(doc.title)}</title><style>{pygments_css()}{CSS}</style></head>"
            f'<body><div class="layout"><main>{"".join(body)}</main>{toc(doc.sections)}</div></body></html>\n')
