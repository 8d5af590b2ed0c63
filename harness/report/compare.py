"""Two results files side by side: two devices, or two runs on one.

Per implementation and problem: both median times, their ratio, and whether the difference is larger
than the spread of each run (p20..p80 of its samples); both % of cuBLAS, which is what compares fairly
across devices of different speeds (each run's kernels against its own cuBLAS); and, per idea and
problem, every implementation whose rank among its idea's implementations changed.
"""

from __future__ import annotations

import html
import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from harness.registry import BY_ID
from harness.run.records import Result, record_order
from harness.run.results import Results, load


@dataclass(frozen=True)
class Row:
    kernel: str | None
    impl: str
    label: str
    problem: str
    idea: str
    a: Result
    b: Result

    @property
    def speedup(self) -> float:
        """How many times faster B ran than A (A's median time over B's)."""
        return self.a.timing.median_ms / self.b.timing.median_ms

    @property
    def beyond_spread(self) -> bool:
        """The difference exceeds the p20..p80 spread of each run: not noise in either."""
        diff = abs(self.a.timing.median_ms - self.b.timing.median_ms)
        spreads = [r.timing.p80_ms - r.timing.p20_ms for r in (self.a, self.b)]
        return diff > max(spreads)

    @property
    def pct_delta(self) -> float | None:
        if self.a.pct_cublas is None or self.b.pct_cublas is None:
            return None
        return self.b.pct_cublas - self.a.pct_cublas


@dataclass(frozen=True)
class RankChange:
    idea: str
    problem: str
    impl: str
    rank_a: int
    rank_b: int


@dataclass
class Comparison:
    a: Results
    b: Results
    rows: list[Row]
    only_a: list[Result]
    only_b: list[Result]
    rank_changes: list[RankChange]

    @property
    def name_a(self) -> str:
        return f"{self.a.header.device} ({self.a.path.name})"

    @property
    def name_b(self) -> str:
        return f"{self.b.header.device} ({self.b.path.name})"

    def headline(self) -> str:
        if not self.rows:
            return "no implementation was timed on the same problem in both files"
        kernels = [r for r in self.rows if r.kernel]
        by_op = defaultdict(list)
        for r in kernels:
            by_op[r.a.op].append(r.speedup)
        parts = ", ".join(f"{op} {statistics.median(v):.2f}x" for op, v in sorted(by_op.items()))
        deltas = [abs(r.pct_delta) for r in kernels if r.pct_delta is not None]
        moved = sum(d > 5.0 for d in deltas)
        return (f"B ran the same implementations a median {statistics.median(r.speedup for r in self.rows):.2f}x "
                f"as fast as A over {len(self.rows)} records ({parts}); {sum(r.beyond_spread for r in self.rows)} "
                f"differ beyond both runs' spreads; % of cuBLAS moved by more than 5 points for {moved} of "
                f"{len(deltas)} kernel rows; {len(self.rank_changes)} rank changes within ideas")


def _idea(result: Result) -> str:
    kernel = BY_ID.get(result.kernel or "")
    return kernel.idea if kernel else "baseline"


def compare(path_a: Path, path_b: Path) -> Comparison:
    a, b = load(path_a), load(path_b)
    timed_a = {r.key: r for r in a.results if r.timed}
    timed_b = {r.key: r for r in b.results if r.timed}
    rows = [Row(r.kernel, r.impl, r.label, r.problem.label, _idea(r), r, timed_b[k])
            for k, r in sorted(timed_a.items(), key=lambda e: (e[1].problem.key, record_order(e[1])))
            if k in timed_b]
    only_a = [r for k, r in timed_a.items() if k not in timed_b]
    only_b = [r for k, r in timed_b.items() if k not in timed_a]
    return Comparison(a, b, rows, only_a, only_b, rank_changes(rows))


def rank_changes(rows: list[Row]) -> list[RankChange]:
    """Within each idea and problem, implementations ranked by speed in A and in B; those whose rank moved."""
    groups: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for r in rows:
        if r.kernel:
            groups[(r.idea, r.problem)].append(r)
    out = []
    for (idea, problem), group in groups.items():
        if len(group) < 2:
            continue
        rank_a = {id(r): i for i, r in enumerate(sorted(group, key=lambda r: r.a.timing.median_ms), 1)}
        rank_b = {id(r): i for i, r in enumerate(sorted(group, key=lambda r: r.b.timing.median_ms), 1)}
        for r in group:
            if rank_a[id(r)] != rank_b[id(r)]:
                out.append(RankChange(idea, problem, f"{r.kernel} [{r.label}]", rank_a[id(r)], rank_b[id(r)]))
    return out


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}%"


def table_rows(cmp: Comparison) -> list[list[str]]:
    return [[r.problem, r.kernel or "baseline", r.label, f"{r.a.timing.median_ms:.4g}", f"{r.b.timing.median_ms:.4g}",
             f"{r.speedup:.2f}x", "yes" if r.beyond_spread else "no", _pct(r.a.pct_cublas), _pct(r.b.pct_cublas)]
            for r in cmp.rows]


HEADERS = ["problem", "kernel", "implementation", "A ms", "B ms", "B speed / A", "beyond spreads", "A % cuBLAS",
           "B % cuBLAS"]


def print_compare(cmp: Comparison, console) -> None:
    from rich.table import Table

    console.print(f"A: {cmp.name_a}\nB: {cmp.name_b}\n{cmp.headline()}")
    t = Table(title="per implementation and problem")
    for h in HEADERS:
        t.add_column(h, no_wrap=h in ("kernel", "problem"))
    for row in table_rows(cmp):
        t.add_row(*row)
    console.print(t)
    if cmp.rank_changes:
        r = Table(title="rank changes within an idea (1 = fastest)")
        for h in ("idea", "problem", "implementation", "rank in A", "rank in B"):
            r.add_column(h)
        for c in cmp.rank_changes:
            r.add_row(c.idea, c.problem, c.impl, str(c.rank_a), str(c.rank_b))
        console.print(r)
    if cmp.only_a or cmp.only_b:
        console.print(f"timed in one file only: {len(cmp.only_a)} in A, {len(cmp.only_b)} in B")


_CSS = """body{font-family:system-ui,"Noto Sans","Noto Sans CJK SC",sans-serif;max-width:1400px;margin:2em auto;
padding:0 1em;color:#222}table{border-collapse:collapse;font-size:14px;margin:1em 0}th,td{border-bottom:1px solid
#ddd;padding:4px 8px;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f4f4f4}
.yes{color:#b3261e;font-weight:600}p.head{font-size:17px;background:#f7f7fb;padding:.8em;border-left:4px solid
#2f5d9e}code{font-size:13px}"""


def render_compare(cmp: Comparison, out: Path) -> Path:
    """A self-contained HTML page of the comparison."""
    e = html.escape
    numeric = {"A ms", "B ms", "B speed / A", "A % cuBLAS", "B % cuBLAS"}
    head = "".join(f"<th>{e(h)}</th>" for h in HEADERS)
    body = "".join(
        "<tr>" + "".join(f'<td class="{"n" if h in numeric else ("yes" if v == "yes" else "")}">{e(v)}</td>'
                         for h, v in zip(HEADERS, row, strict=True)) + "</tr>" for row in table_rows(cmp))
    ranks = "".join(f"<tr><td>{e(c.idea)}</td><td>{e(c.problem)}</td><td><code>{e(c.impl)}</code></td>"
                    f'<td class="n">{c.rank_a}</td><td class="n">{c.rank_b}</td></tr>' for c in cmp.rank_changes)
    page = f"""<!doctype html><html lang="en"><meta charset="utf-8"><title>tile-rosetta: compare</title>
<style>{_CSS}</style><h1>tile-rosetta: two runs compared</h1>
<p>A: <code>{e(cmp.name_a)}</code><br>B: <code>{e(cmp.name_b)}</code></p><p class="head">{e(cmp.headline())}</p>
<p>Times are each run's medians (CUDA events, L2 flushed before every run). "Beyond spreads": the difference in
median exceeds the p20..p80 spread of each run. % of cuBLAS is against the same run's cuBLAS of the same precision,
so devices of different speeds compare fairly.</p>
<h2>Per implementation and problem</h2><table><tr>{head}</tr>{body}</table>
<h2>Rank changes within an idea</h2>{"<table><tr><th>idea</th><th>problem</th><th>implementation</th><th>rank in A"
"</th><th>rank in B</th></tr>" + ranks + "</table>" if ranks else "<p>None: every idea ranks its implementations "
"the same way in both runs.</p>"}
<p>Timed in one file only: {len(cmp.only_a)} in A, {len(cmp.only_b)} in B.</p></html>"""
    out.write_text(page, encoding="utf-8")
    return out
