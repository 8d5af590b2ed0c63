"""How the documents' figures beside ours are said (harness/analysis/claims.py holds them): a published figure as
its document wrote it, the page's tables (every claim, seed 001's stride sweep) and the unroll ratio in words, and
`rosetta claims` in the terminal."""

from __future__ import annotations

from harness.analysis.claims import Claim, as_measured, claims_table, stride_occupancy, stride_sweep, unroll_check
from harness.analysis.measured import Measured
from harness.catalog_types.kernel import Published
from harness.report import fmt
from harness.report.doc import Cell, Inline, Mono, Table
from harness.run.records import Result
from harness.run.results import Results


def published_text(pub: Published | None) -> str:
    if pub is None:
        return ""
    # As the document wrote them: 6.0 stays 6.0.
    said = ((pub.ms, "{} ms"), (pub.tflops, "{} TFLOP/s"), (pub.pct_cublas, "{:.1f}% of cuBLAS"),
            (pub.pct_bandwidth, "{:g}% of bandwidth"), (pub.stride, "stride {}"), (pub.intensity, "{:g} FLOP/B"))
    return ", ".join(form.format(v) for v, form in said if v is not None)


def claims_tables(m: Measured) -> tuple[Table, Table | None, list[Inline] | None]:
    """The documents' figures beside ours, seed 001's stride sweep, and the unroll ratio in words."""
    table = Table([("kernel", False), ("document · GPU", False), ("published", False), ("doc % cuBLAS", True),
                   ("ours: ms", True), ("our % cuBLAS", True), ("order", False)], cls="claims")
    for c in claims_table(m):
        ours = c.ours
        table.add([Cell(c.kernel.id, code=True), Cell(f"{c.kernel.seed} · {c.seed.gpu}"),
                   Cell(published_text(c.published)), Cell(fmt.pct(c.published_pct), num=True),
                   Cell(fmt.ms(ours.timing.median_ms) if ours and ours.timing else "not measured", num=True),
                   Cell(fmt.pct(c.ours_pct), num=True),
                   Cell(c.order, cls="warn" if c.changed else "")])
    table.notes.append(f"ours: the CUDA kernel on {m.header.device}, on the seeds' 4096³ for sgemm (else the largest "
                       "problem measured); order: rank among the document's kernels with a figure, 1 = slowest, "
                       "within 2% tied.")
    points = stride_sweep(m)
    stride = None
    if points and any(p.ours for p in points):
        stride = Table([("stride", True), ("kernel", False), ("threads / block", True), ("doc TFLOP/s", True),
                        ("our TFLOP/s", True), ("doc registers", True), ("our registers", True),
                        ("doc occupancy", True), ("our occupancy (sm_90)", True)], cls="stride")
        for p in points:
            occ = stride_occupancy(m, p)
            stride.add([Cell(str(p.published.stride), num=True), Cell(p.kernel.id, code=True),
                        Cell(str(p.kernel.threads), num=True), Cell(f"{p.published.tflops}", num=True),
                        Cell(fmt.tflops(p.tflops) if p.tflops else "—", num=True),
                        Cell(str(p.published.registers), num=True), Cell(str(p.registers or "—"), num=True),
                        Cell(fmt.pct(p.published.occupancy_pct), num=True), Cell(fmt.pct_round(occ), num=True)])
        stride.notes.append("doc: the document's Nsight Compute table on its own GPU; occupancy is theoretical.")
    check = unroll_check(m)
    unroll = None
    if check is not None and check.fast.timing and check.slow.timing:
        unroll = [f"Seed {check.claim.seed}'s unroll claim: ", Mono(check.claim.fast), " against ",
                  Mono(check.claim.slow), f": '{check.claim.words}' ({check.claim.ratio:g}x) in the document; "
                  f"{fmt.times(check.ratio)} here ({fmt.ms(check.fast.timing.median_ms)} against "
                  f"{fmt.ms(check.slow.timing.median_ms)} ms)."]
    return table, stride, unroll


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
