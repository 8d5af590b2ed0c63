"""How the documents' figures beside ours are said (harness/analysis/claims.py holds them): a published figure as
its document wrote it, the unroll ratio in a line, and `rosetta claims` in the terminal."""

from __future__ import annotations

from harness.analysis.claims import Claim, as_measured, stride_occupancy, stride_sweep, unroll_check
from harness.analysis.measured import Measured
from harness.registry import Published
from harness.report import fmt
from harness.run.records import Result
from harness.run.results import Results


def published_text(pub: Published | None) -> str:
    if pub is None:
        return ""
    # As the document wrote them: 6.0 stays 6.0.
    said = ((pub.ms, "{} ms"), (pub.tflops, "{} TFLOP/s"), (pub.pct_cublas, "{:.1f}% of cuBLAS"),
            (pub.pct_bandwidth, "{:g}% of bandwidth"), (pub.stride, "stride {}"), (pub.intensity, "{:g} FLOP/B"))
    return ", ".join(form.format(v) for v, form in said if v is not None)


def unroll_ratio(results: Results | Measured | None) -> str:
    check = unroll_check(results)
    if check is None:
        return "unroll ratio: not measured"
    return (f"unroll ratio ({check.claim.slow} time / {check.claim.fast} time): {check.ratio:.2f}x here; "
            f"the document: '{check.claim.words}' ({check.claim.ratio:g}x)")


def print_claims(rows: list[Claim], console, results: Results | Measured | None = None) -> None:
    """`rosetta claims`: the tables above in the terminal, fitted to its width (harness.term_table)."""
    from harness.term_table import Column, print_table

    m = as_measured(results)
    where = m.header.device if m else "ours"
    print_table(console, "The documents' figures beside ours (% of cuBLAS, each on its own GPU)",
                [Column("kernel"), Column("document GPU", drop=2, wrap=12), Column("published", drop=1, wrap=14),
                 Column("doc % cuBLAS", right=True, short="doc %"), Column(f"ours ({where})", drop=3, wrap=14),
                 Column("our % cuBLAS", right=True, short="our %"), Column("order", drop=4, wrap=12)],
                [[c.kernel.id, c.seed.gpu, published_text(c.published), fmt.pct(c.published_pct),
                  _ours_text(c.ours), fmt.pct(c.ours_pct), c.order] for c in rows], "a wider terminal shows them")
    points = stride_sweep(m)
    if points:
        table = []
        for p in points:
            occ = stride_occupancy(m, p) if m else None
            table.append([str(p.published.stride), str(p.kernel.threads), f"{p.published.tflops:g}",
                          fmt.tflops(p.tflops) if p.tflops else "-", str(p.published.registers),
                          str(p.registers or "-"), fmt.pct(p.published.occupancy_pct), fmt.pct_round(occ)])
        console.print()
        print_table(console, "Seed 001's stride sweep: the document beside ours",
                    [Column("stride", right=True), Column("threads/block", right=True, short="threads"),
                     Column("doc TFLOP/s", right=True, short="doc TF/s"),
                     Column("our TFLOP/s", right=True, short="our TF/s"),
                     Column("doc regs", right=True, drop=2), Column("our regs", right=True, drop=2),
                     Column("doc theor. occ.", right=True, drop=1, short="doc occ"),
                     Column("our theor. occ.", right=True, drop=1, short="our occ")], table)
    console.print(unroll_ratio(m), markup=False)


def _ours_text(r: Result | None) -> str:
    if r is None or r.timing is None or r.figures is None:
        return "not measured"
    if r.op == "sgemm":
        return f"{fmt.ms(r.timing.median_ms)} ms, {fmt.tflops(r.figures.tflops)} TFLOP/s"
    return f"{fmt.ms(r.timing.median_ms)} ms, {fmt.gbps(r.figures.gbps)} GB/s"
