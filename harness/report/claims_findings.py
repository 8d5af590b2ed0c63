"""Findings about the documents' own claims: their orderings, seed 000's unroll ratio, seed 001's stride sweep.

Each rule returns the sentence (with its numbers) and the link to its evidence, or None where the
results hold nothing to say it with.
"""

from __future__ import annotations

from itertools import combinations

from harness.registry import BY_ID
from harness.report import anchors, fmt
from harness.report.causes import because
from harness.report.claims import TIE, Claim, claims_table, stride_occupancy, stride_sweep, unroll_check
from harness.report.doc import Evidenced, Inline, Link, Mono
from harness.report.measured import Measured


def _doc_figure(c: Claim) -> str:
    return fmt.pct(c.published_pct) if c.published_pct is not None else \
        f"{c.published.tflops} TFLOP/s" if c.published.tflops is not None else f"{c.published.ms} ms"


def _broken_pairs(claims: list[Claim]) -> list[tuple[Claim, Claim, str]]:
    """(leader in the document, the other, 'reversed' or 'tied') for every pair whose clear order does not hold."""
    out = []
    for a, b in combinations(claims, 2):
        if a.rank_value is None or b.rank_value is None or a.ours_pct is None or b.ours_pct is None:
            continue
        lead, other = (a, b) if a.rank_value >= b.rank_value else (b, a)
        assert lead.rank_value is not None and other.rank_value is not None
        assert lead.ours_pct is not None and other.ours_pct is not None
        if lead.rank_value <= other.rank_value * (1 + TIE):
            continue                                  # the document itself has them level
        if lead.ours_pct < other.ours_pct * (1 - TIE):
            out.append((lead, other, "reversed"))
        elif lead.ours_pct <= other.ours_pct * (1 + TIE):
            out.append((lead, other, "tied"))
    return out


def rank_finding(m: Measured) -> Evidenced:
    claims = [c for c in claims_table(m) if c.ours_pct is not None and c.rank_value is not None]
    by_seed: dict[str, list[Claim]] = {}
    for c in claims:
        by_seed.setdefault(c.kernel.seed or "", []).append(c)
    by_seed = {s: cs for s, cs in by_seed.items() if len(cs) >= 2}
    if not by_seed:
        return None
    broken = {s: _broken_pairs(cs) for s, cs in by_seed.items()}
    pairs = sum(len(cs) * (len(cs) - 1) // 2 for cs in by_seed.values())
    held = [s for s, b in broken.items() if not b]
    parts: list[Inline] = []
    bad = [(s, p) for s, ps in broken.items() for p in ps]
    if not bad:
        parts.append(f"Every document's order of its own kernels holds here: all {pairs} pairs across seeds "
                     f"{fmt.joined(sorted(by_seed))} keep the order their document measured.")
        return parts, Link("the documents' figures beside ours", anchors.href(anchors.CLAIMS))
    parts.append(f"Of {pairs} pairs of kernels the documents order, {len(bad)} "
                 f"{'does' if len(bad) == 1 else 'do'} not hold here: ")
    for i, (seed, (lead, other, how)) in enumerate(bad[:3]):
        parts += ["; " if i else "", f"in seed {seed} ({lead.seed.gpu}) ", Mono(lead.kernel.id), " leads ",
                  Mono(other.kernel.id), f" ({_doc_figure(lead)} against {_doc_figure(other)} on its GPU), "
                  "but here the two ",
                  "tie" if how == "tied" else "swap", f" ({fmt.pct(lead.ours_pct)} against {fmt.pct(other.ours_pct)} "
                  f"of cuBLAS)"]
    if held:
        parts.append(f"; seed{'s' if len(held) > 1 else ''} {fmt.joined(sorted(held))} keep every pairwise order")
    parts.append(".")
    return parts, Link("the documents' figures beside ours", anchors.href(anchors.CLAIMS))


def unroll_finding(m: Measured) -> Evidenced:
    check = unroll_check(m)
    if check is None or check.fast.timing is None or check.slow.timing is None:
        return None
    c = check.claim
    parts: list[Inline] = [f"Seed {c.seed} calls its unrollable load loop ", Mono(c.fast),
                           f" '{c.words}' faster than the one starting at tid, ", Mono(c.slow),
                           f"; here the ratio is {fmt.times(check.ratio)} ({fmt.ms(check.fast.timing.median_ms)} "
                           f"against {fmt.ms(check.slow.timing.median_ms)} ms)"]
    why = because(m, check.fast, check.slow, ("the unrollable form", "the tid form"))
    if why:
        parts.append(", where " + why)
    parts.append(".")
    idea = BY_ID[c.fast].idea if c.fast in BY_ID else ""
    return parts, Link("the unroll ratio", anchors.href(anchors.UNROLL if idea else anchors.CLAIMS))


def stride_finding(m: Measured) -> Evidenced:
    points = [p for p in stride_sweep(m) if p.tflops is not None]
    if len(points) < 3:
        return None
    doc_peak = max(points, key=lambda p: p.published.tflops or 0.0)
    our_peak = max(points, key=lambda p: p.tflops or 0.0)
    first, last = points[0], points[-1]
    assert first.tflops is not None and last.tflops is not None and our_peak.tflops is not None
    doc_falls = (last.published.tflops or 0) < (doc_peak.published.tflops or 0)
    our_falls = last.tflops < our_peak.tflops
    same = doc_peak.published.stride == our_peak.published.stride and doc_falls == our_falls
    seed = first.kernel.seed
    parts: list[Inline] = [
        f"Seed {seed}'s stride sweep {'keeps' if same else 'changes'} its shape: the document peaks at stride "
        f"{doc_peak.published.stride} ({doc_peak.published.tflops} TFLOP/s) and ends at "
        f"{last.published.tflops} at stride {last.published.stride}; here the peak is at stride "
        f"{our_peak.published.stride} ({fmt.tflops(our_peak.tflops)} TFLOP/s) and stride {last.published.stride} "
        f"gives {fmt.tflops(last.tflops)}"]
    if first.registers is not None and last.registers is not None:
        parts.append(f", while registers grow from {first.registers} to {last.registers} (document "
                     f"{first.published.registers} to {last.published.registers})")
    o1, o2 = stride_occupancy(m, first), stride_occupancy(m, last)
    if o1 is not None and o2 is not None:
        parts.append(f" and theoretical occupancy goes from {fmt.pct_round(o1)} to {fmt.pct_round(o2)} (document "
                     f"{fmt.pct(first.published.occupancy_pct)} to {fmt.pct(last.published.occupancy_pct)})")
    parts.append(".")
    return parts, Link("the stride sweep", anchors.href(anchors.STRIDE))
