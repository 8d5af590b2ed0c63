"""The documents' published figures beside ours: % of cuBLAS on each side's own GPU, ranks within each
document, seed 000's unroll ratio and seed 001's stride sweep.

A document's figures are for its own GPU, so they are compared as shapes (which kernel beats which, by
how much relative to cuBLAS), never as absolute speeds.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.registry import KERNELS, SEEDS, UNROLL_CLAIM, Kernel, Published, PublishedRatio, Seed
from harness.report import fmt
from harness.report.measured import Measured
from harness.run.records import Result
from harness.run.results import Results

# Two kernels within 2% share a rank: a document's figures carry two or three digits, our medians a
# few per cent of spread.
TIE = 0.02


def published_pct(kernel: Kernel) -> float | None:
    """The document's % of its own cuBLAS: stated, or from its cuBLAS time or TFLOP/s."""
    pub = kernel.published
    if pub is None:
        return None
    if pub.pct_cublas is not None:
        return pub.pct_cublas
    cublas = SEEDS[kernel.seed].cublas if kernel.seed in SEEDS else None
    if cublas is None:
        return None
    if pub.ms and cublas.ms:
        return 100.0 * cublas.ms / pub.ms
    if pub.tflops and cublas.tflops:
        return 100.0 * pub.tflops / cublas.tflops
    return None


def published_text(pub: Published | None) -> str:
    if pub is None:
        return ""
    parts = []
    # As the document wrote them: 6.0 stays 6.0.
    if pub.ms is not None:
        parts.append(f"{pub.ms} ms")
    if pub.tflops is not None:
        parts.append(f"{pub.tflops} TFLOP/s")
    if pub.pct_cublas is not None:
        parts.append(f"{pub.pct_cublas:.1f}% of cuBLAS")
    if pub.pct_bandwidth is not None:
        parts.append(f"{pub.pct_bandwidth:g}% of bandwidth")
    if pub.stride is not None:
        parts.append(f"stride {pub.stride}")
    if pub.intensity is not None:
        parts.append(f"{pub.intensity:g} FLOP/B")
    return ", ".join(parts)


def rank(values: dict[str, float], key: str, tolerance: float = TIE) -> int:
    """1 + how many entries are clearly below this one (within `tolerance` counts as a tie); 1 = slowest."""
    return 1 + sum(v < values[key] * (1 - tolerance) for v in values.values())


@dataclass
class Claim:
    kernel: Kernel
    published_pct: float | None
    ours: Result | None
    ours_pct: float | None
    rank_ours: int | None = None
    rank_doc: int | None = None
    ranked: int = 0                      # kernels of the document with both figures

    @property
    def seed(self) -> Seed:
        return SEEDS[self.kernel.seed or ""]

    @property
    def published(self) -> Published:
        assert self.kernel.published is not None
        return self.kernel.published

    @property
    def rank_value(self) -> float | None:
        # Within one document (one GPU), TFLOP/s or 1/ms rank kernels as % of cuBLAS would.
        pub = self.published
        if self.published_pct is not None:
            return self.published_pct
        if pub.tflops is not None:
            return pub.tflops
        return 1.0 / pub.ms if pub.ms else None

    @property
    def changed(self) -> bool:
        return self.rank_ours is not None and self.rank_ours != self.rank_doc

    @property
    def order(self) -> str:
        if self.rank_ours is None:
            return "—"
        if not self.changed:
            return "same rank"
        return f"rank {self.rank_ours} here, {self.rank_doc} in the document (1 = slowest)"


def _measured(results: Results | Measured | None) -> Measured | None:
    return Measured(results) if isinstance(results, Results) else results


def claims_table(results: Results | Measured | None) -> list[Claim]:
    """One row per kernel with a published figure, in registry order, ranks marked within each document."""
    m = _measured(results)
    rows = []
    for k in KERNELS:
        if k.seed is None or k.published is None:
            continue
        ours = m.seed_record(k.id) if m else None
        rows.append(Claim(k, published_pct(k), ours, m.pct(ours) if m and ours else None))
    by_seed: dict[str, list[Claim]] = {}
    for c in rows:
        if c.rank_value is not None and c.ours_pct is not None:
            by_seed.setdefault(c.kernel.seed or "", []).append(c)
    for group in by_seed.values():
        theirs = {c.kernel.id: c.rank_value for c in group}
        ours = {c.kernel.id: c.ours_pct for c in group}
        for c in group:
            c.rank_ours, c.rank_doc, c.ranked = rank(ours, c.kernel.id), rank(theirs, c.kernel.id), len(group)
    return rows


@dataclass
class UnrollCheck:
    claim: PublishedRatio
    fast: Result
    slow: Result

    @property
    def ratio(self) -> float:
        assert self.fast.timing and self.slow.timing
        return self.slow.timing.median_ms / self.fast.timing.median_ms


def unroll_check(results: Results | Measured | None) -> UnrollCheck | None:
    m = _measured(results)
    if m is None:
        return None
    fast, slow = m.seed_record(UNROLL_CLAIM.fast), m.seed_record(UNROLL_CLAIM.slow)
    return UnrollCheck(UNROLL_CLAIM, fast, slow) if fast and slow else None


def unroll_ratio(results: Results | Measured | None) -> str:
    check = unroll_check(results)
    if check is None:
        return "unroll ratio: not measured"
    return (f"unroll ratio ({check.claim.slow} time / {check.claim.fast} time): {check.ratio:.2f}x here; "
            f"the document: '{check.claim.words}' ({check.claim.ratio:g}x)")


@dataclass
class StridePoint:
    kernel: Kernel
    ours: Result | None

    @property
    def published(self) -> Published:
        assert self.kernel.published is not None
        return self.kernel.published

    @property
    def registers(self) -> int | None:
        return self.ours.resources.registers if self.ours and self.ours.resources else None

    @property
    def tflops(self) -> float | None:
        return self.ours.figures.tflops if self.ours and self.ours.figures else None


def stride_sweep(results: Results | Measured | None) -> list[StridePoint]:
    """Seed 001's stride table: every kernel whose published figure names a stride, in stride order."""
    m = _measured(results)
    points = [StridePoint(k, m.seed_record(k.id) if m else None) for k in KERNELS
              if k.published is not None and k.published.stride is not None]
    return sorted(points, key=lambda p: p.published.stride or 0)


def stride_occupancy(m: Measured, point: StridePoint) -> float | None:
    occ = m.occupancy(point.ours) if point.ours else None
    return occ.fraction if occ else None


def print_claims(rows: list[Claim], console, results: Results | Measured | None = None) -> None:
    """`rosetta claims`: the tables above in the terminal, fitted to its width (harness.term_table)."""
    from harness.term_table import Column, print_table

    m = _measured(results)
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
