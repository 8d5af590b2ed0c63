"""The Document as one self-contained HTML page: images embedded, no script, nothing loaded from outside.

Every section ends with a link back to the top; the contents list every section, idea and plot."""

from __future__ import annotations

import base64

# Pygments comes with rich, a dependency of the suite.
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CudaLexer, DiffLexer, PythonLexer

from harness.report import anchors, doc
from harness.report.fmt import esc


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
            n = len(b.table.rows)
            return (f'<details class="fold"><summary>{esc(b.title or "table")} ({n} row{"s" if n != 1 else ""})'
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
            f"<title>{esc(document.title)}</title><style>{PYGMENTS_CSS}{CSS}</style></head>"
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
# System fonts with a CJK-capable fallback (seed 001 is titled in Chinese); tables with tabular figures.
CSS = """
:root { --fg: #1b2129; --muted: #5f6b7a; --line: #e2e6eb; --panel: #f5f7f9; --accent: #2f5d9e;
        --triton: #b8541a; --ok: #1a7f37; --bad: #b42318; --warn: #93640a; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; scroll-behavior: smooth; }
body { margin: 0; color: var(--fg); background: #fff;
       font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
             "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei",
             sans-serif; }
main { max-width: 1440px; min-width: 0; margin: 0 auto; padding: 20px 28px 72px; }
/* Wide windows: the contents in a side column that stays in view; narrow ones: the contents after the page. */
.layout { display: block; }
@media (min-width: 1200px) {
  .layout { display: grid; grid-template-columns: 250px minmax(0, 1fr); }
  .layout > main { grid-column: 2; grid-row: 1; width: 100%; }
  .layout > nav.toc { grid-column: 1; grid-row: 1; position: sticky; top: 0; align-self: start; max-height: 100vh;
                      overflow-y: auto; margin: 0; border-radius: 0; columns: auto; padding: 16px 12px 16px 16px;
                      font-size: 12.5px; line-height: 1.35; border-right: 1px solid var(--line); }
}
h1 { font-size: 27px; line-height: 1.25; margin: 0 0 4px; letter-spacing: -0.01em; }
h2 { font-size: 22px; margin: 40px 0 12px; padding-bottom: 6px; border-bottom: 2px solid var(--line); }
h3 { font-size: 18px; margin: 32px 0 8px; }
h4 { font-size: 13px; margin: 16px 0 4px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
p { margin: 6px 0 10px; max-width: 110ch; }
a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
code, pre { font-family: ui-monospace, "SFMono-Regular", "JetBrains Mono", Menlo, Consolas, "DejaVu Sans Mono",
            "Liberation Mono", "Noto Sans Mono CJK SC", monospace; font-size: 12.5px; }
.subtitle { color: var(--muted); margin: 0 0 18px; max-width: none; }
.notice { border-left: 4px solid var(--muted); background: var(--panel); padding: 8px 14px; margin: 10px 0;
          border-radius: 0 6px 6px 0; font-size: 14px; }
.notice.warn { border-color: #d69e2e; background: #fdf8ec; }
.notice.bad { border-color: var(--bad); background: #fdf1f0; }
.notice.info { border-color: var(--accent); background: #f1f5fb; }
.notice ul { margin: 6px 0 2px; padding-left: 20px; }
.notice details pre { white-space: pre-wrap; background: #fff; border: 1px solid var(--line); padding: 6px 8px;
                      border-radius: 4px; max-height: 260px; overflow: auto; }
nav.toc { columns: 3 280px; font-size: 14px; background: var(--panel); border-radius: 8px; padding: 12px 20px;
          margin: 16px 28px 8px; }
nav.toc ul { margin: 0; padding-left: 12px; list-style: none; } nav.toc > ul { padding-left: 0; }
nav.toc li { break-inside: avoid; margin: 1px 0; } nav.toc > ul > li { margin-bottom: 6px; font-weight: 600; }
nav.toc > ul > li li { font-weight: 400; } nav.toc > ul > li > ul > li > ul { font-size: 12px; }
ol.findings { font-size: 15.5px; line-height: 1.6; padding-left: 26px; max-width: 120ch; }
ol.findings li { margin: 0 0 10px; }
ol.findings a.evidence { white-space: nowrap; font-size: 14px; }
ol.findings code { font-size: 13px; }
/* Tables fit the column: cells wrap (long ids break before template arguments), nothing is hidden sideways. */
.table-wrap { margin: 6px 0 4px; max-width: 100%; }
table { border-collapse: collapse; font-size: 13px; max-width: 100%; }
th, td { padding: 3px 6px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top;
         overflow-wrap: break-word; }
/* A header breaks only where it must (SASS mnemonics in narrow count columns). */
table.sass th, table.summary td { overflow-wrap: anywhere; }
table.sass td.num, table.sass th { font-size: 11.5px; padding: 3px 4px; }
/* The per-idea record table has thirteen columns: a smaller type keeps it inside the column. */
table.measured td, table.measured th { font-size: 12px; padding: 3px 4px; } table.measured td code { font-size: 11px; }
thead th { background: var(--panel); font-weight: 600; border-bottom: 1.5px solid #c9d0d8; }
tbody tr:hover { background: #f7f9fc; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { overflow-wrap: normal; }
td code { font-size: 12px; } code.sub { font-size: 11px; color: var(--muted); white-space: normal; }
td.ok { color: var(--ok); } td.ok-text { color: var(--ok); font-size: 12px; }
td.bad { color: var(--bad); font-weight: 600; } td.warn { color: var(--warn); }
td.muted, td.zero { color: #8a95a3; } td.why { color: var(--muted); font-style: italic; }
td.nowrap { overflow-wrap: normal; } td.flags { min-width: 110px; font-size: 12px; }
td.settings { font-size: 12px; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
tr.status-failed td:first-child { box-shadow: inset 3px 0 var(--bad); }
tr.several td { background: #fbf7f2; }
table.facts thead { display: none; } table.facts td:first-child { white-space: nowrap; }
table.seeds td.title { font-size: 14px; }
table.mapping td:first-child { font-weight: 600; }
table.mapping td { max-width: 420px; }
td.by-compiler, td.by-programmer { font-size: 12px; font-weight: 600; }
td.by-compiler { color: var(--triton); } td.by-programmer { color: var(--accent); }
table.kernels td { max-width: 360px; }
ul.legend { font-size: 12.5px; color: var(--muted); margin: 2px 0 16px; padding-left: 18px; max-width: 130ch; }
figure { margin: 10px 0 8px; } figure img { max-width: 100%; height: auto; border: 1px solid var(--line);
                                            border-radius: 6px; }
figcaption { color: #3a4350; font-size: 14px; max-width: 120ch; margin-top: 6px; }
p.missing { color: var(--muted); font-style: italic; }
p.lesson { font-size: 15.5px; background: var(--panel); border-radius: 6px; padding: 10px 14px; max-width: none; }
p.measured { font-size: 15px; max-width: 125ch; }
p.provenance { color: #3a4350; font-size: 14px; }
p.top { font-size: 13px; margin: 18px 0 0; } p.top a { color: var(--muted); }
section.idea { border-top: 1px solid var(--line); }
.code-pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 18px; margin: 10px 0; }
.code-single { margin: 10px 0; max-width: 1100px; }
.cuda h4 { color: var(--accent); } .triton h4 { color: var(--triton); }
.src-head { font-size: 13px; margin: 8px 0 4px; }
.src-head .used { color: var(--muted); display: block; font-size: 12.5px; }
p.src-ref { font-size: 13px; color: var(--muted); margin: 4px 0 12px; }
/* Wrapped, not scrolled: a column is ~85 characters and the seeds' header comments run past 200. */
pre.code { background: #f8f9fb; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px;
           white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.45; margin: 0 0 12px; tab-size: 4; }
pre.code.header { background: #fbfbfc; color: #5f6b7a; font-size: 11.5px; }
ul.notes { font-size: 13.5px; color: #3a4350; }
details.legend { margin: 0 0 14px; } details.legend > summary { cursor: pointer; font-size: 12px; color: var(--muted); }
details.legend ul.legend { margin-top: 2px; }
details.fold { margin: 6px 0; border: 1px solid var(--line); border-radius: 6px; padding: 4px 10px; }
details.fold > summary { cursor: pointer; font-size: 13px; color: var(--accent); padding: 2px 0; }
details.fold[open] > summary { margin-bottom: 6px; }
section.part > h3 { font-size: 21px; border-bottom: 1px solid var(--line); padding-bottom: 4px; margin-top: 44px; }
section.idea > h4 { font-size: 17px; text-transform: none; letter-spacing: 0; color: var(--fg); margin: 26px 0 6px; }
section.idea { margin-top: 26px; }
table.headline td { font-size: 14px; } table.headline td.num { font-size: 14px; font-weight: 600; white-space: nowrap; }
table.headline code.sub { font-weight: 400; display: inline-block; line-height: 1.3; }
#headline h2 { margin-top: 6px; }
figure img { display: block; }
/* Diffs: added and removed lines tinted, not only coloured text. */
pre.code .gi { background: #e6f6ea; display: inline-block; width: 100%; }
pre.code .gd { background: #fbeaea; display: inline-block; width: 100%; }
footer { margin-top: 56px; color: var(--muted); font-size: 12.5px; border-top: 1px solid var(--line);
         padding-top: 10px; }
@media (max-width: 980px) { .code-pair { grid-template-columns: minmax(0, 1fr); } main { padding: 16px; } }
"""
