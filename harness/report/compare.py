"""Two results files compared, as text: the terminal tables of `rosetta compare` and its HTML page (a headline per op,
B's speed over A's plotted for every shared record, every shared record in a table with its call, and the rank
changes within ideas), and its sentences. The comparison itself is harness/analysis/compare.py."""

from __future__ import annotations

import base64
import statistics
from pathlib import Path

from harness.analysis.compare import Comparison, Row
from harness.analysis.verdicts import Call
from harness.report import fmt
from harness.report.metrics import Metric
from harness.report.wording import INTERVAL, verdict_speed
from harness.term_table import Column, print_table


def _speed(r: Row) -> str:
    return fmt.ratio_ci(r.speedup) if r.verdict.verdict is None else verdict_speed(r.verdict.verdict)


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}%"


# The columns of a record timed in both files, declared once: the page prints them all, the terminal those with a
# terminal column. Both runs' times and the call are never left out; the interval goes first at a narrow width, then
# both runs' % of cuBLAS (one column, so that neither run's is shown without the other's).
COLUMNS: list[Metric[Row]] = [
    Metric("problem", lambda c, r: r.problem, num=False),
    Metric("kernel", lambda c, r: r.kernel or "baseline", num=False, code=True, term=Column("kernel", elide=True)),
    Metric("implementation", lambda c, r: r.label, num=False,
           term=Column("implementation", wrap=14, short="impl")),
    Metric("A ms", lambda c, r: r.a.timing.median_ms, lambda v: f"{v:.4g}", term=Column("A ms", right=True)),
    Metric("B ms", lambda c, r: r.b.timing.median_ms, lambda v: f"{v:.4g}", term=Column("B ms", right=True)),
    Metric("B speed / A", lambda c, r: r, _speed, style=lambda r: {Call.FAST: "faster", Call.SLOW: "slower"}.get(
        r.call, "same"), term=Column("B speed / A", drop=1, short="B/A")),
    Metric("call", lambda c, r: r.call, lambda v: v.value, num=False, term=Column("call")),
    Metric("% cuBLAS A → B", lambda c, r: (r.pct_a, r.pct_b), lambda v: f"{_pct(v[0])} → {_pct(v[1])}",
           term=Column("% cuBLAS A → B", drop=2, right=True, short="%cuBLAS A→B")),
]


def op_headline(cmp: Comparison, op: str) -> str:
    """One op's sentence: the median B/A ratio of its shared records, its range, and the calls."""
    rows = [r for r in cmp.rows if r.op == op]
    if not rows:
        side = "A" if any(r.op == op for r in cmp.only_a) else "B"
        return f"{op}: timed in {side} only, nothing to compare"
    ratios = sorted(r.speedup for r in rows)
    calls = {c: sum(r.call is c for r in rows) for c in Call}
    unjudged = sum(r.call is None for r in rows)
    deltas = [abs(d) for r in rows if r.kernel and (d := r.pct_delta) is not None]
    said = ", ".join(f"{n} {c.value}" for c, n in calls.items() if n)
    return (f"{op}: B ran a median {statistics.median(ratios):.2f}x as fast as A over {len(rows)} records "
            f"({ratios[0]:.2f}x to {ratios[-1]:.2f}x); B against A: {said or 'no calls'}"
            + (f", {unjudged} without rounds (no call)" if unjudged else "")
            + f"; % of cuBLAS moved by more than 5 points for {sum(d > 5.0 for d in deltas)} of {len(deltas)} "
            "kernel rows")


def held_headline(cmp: Comparison) -> str:
    """How many of A's FAST and SLOW calls B repeats, reverses or weakens."""
    if not cmp.held:
        return "A made no FAST or SLOW call that B could repeat"
    n = len(cmp.held)
    counts = {o: sum(h.outcome == o for h in cmp.held) for o in ("repeated", "reversed", "weakened", "not in B")}
    return (f"of A's {n} FAST/SLOW calls, B repeats {counts['repeated']} ({100 * counts['repeated'] / n:.1f}%), "
            f"reverses {counts['reversed']}, weakens {counts['weakened']} to a tie or undecided"
            + (f", lacks {counts['not in B']}" if counts["not in B"] else ""))


def headlines(cmp: Comparison) -> list[str]:
    """One per op, the rank changes within ideas, and what became of A's calls."""
    return [*(op_headline(cmp, op) for op in cmp.ops), f"{len(cmp.rank_changes)} rank changes within ideas",
            held_headline(cmp)]


def headline(cmp: Comparison) -> str:
    return "; ".join(headlines(cmp)) if cmp.rows else "no implementation was timed on the same problem in both files"


def print_compare(cmp: Comparison, console) -> None:
    """The comparison in the terminal, fitted to its width (harness.term_table): a table per problem (its title names
    it) of COLUMNS; the ids are shortened (never left out) and the implementation's name wraps to keep the figures."""
    console.print(f"A: {cmp.name_a}\nB: {cmp.name_b}\n{headline(cmp)}", markup=False)
    shown = [c for c in COLUMNS if c.term]
    for problem in dict.fromkeys(r.problem for r in cmp.rows):
        console.print()
        print_table(console, f"{problem}: B against A", [c.term for c in shown],
                    [[c.text(cmp, r) for c in shown] for r in cmp.rows if r.problem == problem],
                    "the HTML page has them")
_CSS = """body{font-family:system-ui,"Noto Sans","Noto Sans CJK SC",sans-serif;max-width:1400px;margin:2em auto;
padding:0 1em;color:#222}table{border-collapse:collapse;font-size:14px;margin:1em 0;max-width:100%}th,td{border-bottom:
1px solid #ddd;padding:4px 8px;text-align:left;overflow-wrap:break-word}td.n{text-align:right;
font-variant-numeric:tabular-nums}th{background:#f4f4f4}td.faster{color:#1a7f37;font-weight:600}td.slower{color:#b3261e;
font-weight:600}td.same{color:#6b7280}ul.head{font-size:16px;background:#f7f7fb;padding:.8em .8em .8em 2em;
border-left:4px solid #2f5d9e}code{font-size:13px}img{max-width:100%;height:auto;border:1px solid #e2e6eb}"""


def ratio_plot(cmp: Comparison) -> bytes | None:
    """B speed / A of every shared record, one panel per op, problems across; colour is the model throughout."""
    from harness.report.plots.common import CUBLAS, CUDA, TRITON, figure, marker_key, model_colour, png, sizes, style

    ops = [op for op in cmp.ops if any(r.op == op for r in cmp.rows)]
    if not ops:
        return None
    with sizes():
        fig = figure(12.6, 4.2)
        axes = fig.subplots(1, len(ops), squeeze=False)[0]
        for ax, op in zip(axes, ops, strict=True):
            rows = [r for r in cmp.rows if r.op == op]
            problems = list(dict.fromkeys(r.problem for r in rows))
            for r in rows:
                x = problems.index(r.problem) + {"cuda": -0.15, "triton": 0.15}.get(r.a.model, 0.0)
                colour = model_colour(r.a.impl_id)
                ax.scatter([x], [r.speedup], s=28 if r.decided else 18, color=colour if r.decided
                           else "white", edgecolors=colour, linewidths=1.1, marker="s" if r.kernel is None else "o",
                           zorder=3)
            ax.axhline(1.0, color="#888888", linestyle="--", linewidth=1.0)
            ax.set_xticks(range(len(problems)))
            ax.set_xticklabels([p.split(" ", 1)[-1] for p in problems], rotation=30, ha="right")
            ax.set_title(op, loc="left")
            style(ax, grid="y")
        axes[0].set_ylabel("B speed / A (A's median time over B's)")
        tutorial = any(r.kernel is None and r.a.model.startswith("triton") for r in cmp.rows)
        handles = [marker_key("o", CUDA, "CUDA kernel"), marker_key("o", TRITON, "Triton counterpart"),
                   marker_key("s", CUBLAS, "cuBLAS"),
                   *([marker_key("s", TRITON, "Triton tutorial GEMM")] if tutorial else []),
                   marker_key("o", "#444444", "open: a tie or undecided", markerfacecolor="white")]
        fig.legend(handles=handles, loc="outside upper center", ncol=len(handles), frameon=False)
        return png(fig)


def render_compare(cmp: Comparison, out: Path) -> Path:
    """A self-contained HTML page of the comparison: a headline per op, the ratios plotted, every shared record."""
    e = fmt.esc
    head = "".join(f"<th>{e(c.name)}</th>" for c in COLUMNS)
    body = "".join("<tr>" + "".join(f'<td class="{"n " if cell.num else ""}{cell.cls}">{e(cell.text)}</td>'
                                    for cell in (c.cell(cmp, r) for c in COLUMNS)) + "</tr>" for r in cmp.rows)
    ranks = "".join(f"<tr><td>{e(c.idea)}</td><td>{e(c.problem)}</td><td><code>{e(c.kernel)} [{e(c.label)}]</code></td>"
                    f'<td class="n">{c.rank_a}</td><td class="n">{c.rank_b}</td></tr>' for c in cmp.rank_changes)
    heads = "".join(f"<li>{e(h)}</li>" for h in headlines(cmp))
    data = ratio_plot(cmp)
    plot = (f'<figure><img src="data:image/png;base64,{base64.b64encode(data).decode("ascii")}" alt="B speed / A per '
            'record"><figcaption>B speed / A for every record timed in both, one panel per op, problems across: blue '
            "CUDA kernels, orange Triton counterparts, grey squares cuBLAS; filled where the two runs' rounds decide a "
            "difference (FAST or SLOW), open where it is a tie or undecided; the dashed line is 1."
            "</figcaption></figure>"
            if data else "<p>No record was timed in both files: nothing to plot.</p>")
    page = f"""<!doctype html><html lang="en"><meta charset="utf-8"><title>tile-rosetta: compare</title>
<style>{_CSS}</style><h1>tile-rosetta: two runs compared</h1>
<p>A: <code>{e(cmp.name_a)}</code><br>B: <code>{e(cmp.name_b)}</code></p><ul class="head">{heads}</ul>
{plot}
<p>Times are each run's medians (CUDA events, L2 flushed before every run). B speed / A is the verdict of B
against A from the two runs' interleaved rounds, taken as independent sets, with its {INTERVAL}; it is coloured
only where the call is FAST (green, B faster) or SLOW (red); a tie or undecided is grey. % of cuBLAS is against the
same run's cuBLAS of the same precision, so devices of different speeds compare fairly.</p>
<h2>Per implementation and problem</h2><table><tr>{head}</tr>{body}</table>
<h2>Rank changes within an idea</h2>{"<table><tr><th>idea</th><th>problem</th><th>implementation</th><th>rank in A"
"</th><th>rank in B</th></tr>" + ranks + "</table>" if ranks else "<p>None: every idea ranks its implementations "
"the same way in both runs.</p>"}
<p>Timed in one file only: {len(cmp.only_a)} in A, {len(cmp.only_b)} in B.</p></html>"""
    out.write_text(page, encoding="utf-8")
    return out
