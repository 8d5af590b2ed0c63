"""The documents' published figures beside ours: % of cuBLAS on each side's own GPU, ranks within each
document, seed 000's unroll ratio and seed 001's stride sweep (said by the report, harness/report/overview.py and
sections.py, and by `rosetta claims`).

A document's figures are for its own GPU, so they are compared as shapes (which kernel beats which, by
how much relative to cuBLAS), never as absolute speeds.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.analysis.measured import Measured
from harness.analysis.record import Comparison, today
from harness.analysis.verdicts import Call
from harness.catalog_types.kernel import Kernel, Published, PublishedRatio, Seed
from harness.catalog_types.tables import Catalog
from harness.records.file import Results
from harness.records.lines import Result

# Two of a document's kernels within 2% share a rank: its figures carry two or three digits and no interval. Ours are
# ranked by the verdicts of the interleaved rounds (ranked_by_calls), never by a tolerance on two medians.
TIE = 0.02


def published_of(kernel: Kernel) -> Published:
    """The figure a kernel's document published (only kernels with one are held beside ours)."""
    assert kernel.published is not None
    return kernel.published


def published_pct(kernel: Kernel, catalog: Catalog) -> float | None:
    """The document's % of its own cuBLAS: stated, or from its cuBLAS time or TFLOP/s."""
    pub = kernel.published
    if pub is None:
        return None
    if pub.pct_cublas is not None:
        return pub.pct_cublas
    cublas = catalog.seeds[kernel.seed].cublas if kernel.seed in catalog.seeds else None
    if cublas is None:
        return None
    if pub.ms and cublas.ms:
        return 100.0 * cublas.ms / pub.ms
    if pub.tflops and cublas.tflops:
        return 100.0 * pub.tflops / cublas.tflops
    return None


def rank(values: dict[str, float], key: str, tolerance: float = TIE) -> int:
    """1 + how many entries are clearly below this one (within `tolerance` counts as a tie); 1 = slowest."""
    return 1 + sum(v < values[key] * (1 - tolerance) for v in values.values())


@dataclass
class Claim:
    kernel: Kernel
    seed: Seed
    published_pct: float | None
    ours: Result | None
    ours_pct: float | None
    rank_ours: int | None = None
    rank_doc: int | None = None
    ranked: int = 0                      # kernels of the document with both figures

    @property
    def published(self) -> Published:
        return published_of(self.kernel)

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



def as_measured(results: Results | Measured | None) -> Measured | None:
    return Measured(results) if isinstance(results, Results) else results


def catalog_of(m: Measured | None) -> Catalog:
    """The catalog a file was analysed with; today's where no file is given (`rosetta claims` alone)."""
    return m.catalog if m is not None else today()


def claims_table(results: Results | Measured | None) -> list[Claim]:
    """One row per kernel with a published figure, in registry order, ranks marked within each document."""
    m = as_measured(results)
    catalog = catalog_of(m)
    rows = []
    for k in catalog.kernels:
        if k.seed is None or k.published is None:
            continue
        ours = m.seed_record(k.id) if m else None
        rows.append(Claim(k, catalog.seeds[k.seed], published_pct(k, catalog), ours,
                          m.pct(ours) if m and ours else None))
    by_seed: dict[str, list[Claim]] = {}
    for c in rows:
        if c.rank_value is not None and c.ours_pct is not None:
            by_seed.setdefault(c.kernel.seed or "", []).append(c)
    for group in by_seed.values():
        theirs = {c.kernel.id: c.rank_value for c in group}
        for c in group:
            c.rank_ours, c.rank_doc, c.ranked = ranked_by_calls(m, c, group), rank(theirs, c.kernel.id), len(group)
    return rows


def ranked_by_calls(m: Measured | None, c: Claim, group: list[Claim]) -> int:
    """1 + how many of the group this kernel is faster than, as the rounds call it (FAST); a file of single bursts,
    which makes no call, by its medians."""
    assert m is not None and c.ours is not None
    faster = 0
    for o in group:
        if o is c or o.ours is None:
            continue
        v = m.between(c.ours, o.ours)
        if v is not None and v.verdict is not None:
            faster += v.call is Call.FAST
        else:
            faster += (c.ours_pct or 0.0) > (o.ours_pct or 0.0)
    return 1 + faster


@dataclass
class UnrollCheck:
    claim: PublishedRatio
    fast: Result
    slow: Result
    # the rounds' verdict on the unrollable form against the tid form; None for a file of single bursts, which says
    # the medians' ratio and no call
    speed: Comparison | None = None

    @property
    def ratio(self) -> float:
        assert self.fast.timing and self.slow.timing
        return self.slow.timing.median_ms / self.fast.timing.median_ms


def unroll_check(results: Results | Measured | None) -> UnrollCheck | None:
    m = as_measured(results)
    if m is None:
        return None
    claim = m.catalog.unroll_claim
    fast, slow = m.seed_record(claim.fast), m.seed_record(claim.slow)
    if not (fast and slow):
        return None
    c = m.between(fast, slow)
    return UnrollCheck(claim, fast, slow, c if c is not None and c.verdict is not None else None)


@dataclass
class StridePoint:
    kernel: Kernel
    ours: Result | None

    @property
    def published(self) -> Published:
        return published_of(self.kernel)

    @property
    def registers(self) -> int | None:
        return self.ours.resources.registers if self.ours and self.ours.resources else None

    @property
    def tflops(self) -> float | None:
        return self.ours.figures.tflops if self.ours and self.ours.figures else None


def stride_sweep(results: Results | Measured | None) -> list[StridePoint]:
    """Seed 001's stride table: every kernel whose published figure names a stride, in stride order."""
    m = as_measured(results)
    points = [StridePoint(k, m.seed_record(k.id) if m else None) for k in catalog_of(m).kernels
              if k.published is not None and k.published.stride is not None]
    return sorted(points, key=lambda p: p.published.stride or 0)


def stride_occupancy(m: Measured, point: StridePoint) -> float | None:
    occ = m.occupancy(point.ours) if point.ours else None
    return occ.fraction if occ else None
