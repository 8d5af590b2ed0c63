"""Which records come first, and which problem of an op its headline and single charts show: one way for every table
and plot."""

from __future__ import annotations

from harness.baselines import BASELINE_ORDER
from harness.catalog_types.tables import Catalog
from harness.problems import HEADLINE, Problem
from harness.records.lines import Result


def record_order(result: Result, catalog: Catalog | None = None) -> tuple:
    """Baselines first (cuBLAS, then the Triton baseline), then the catalog's order (today's unless given: a file's
    page orders by the one it was analysed with), CUDA before its Triton counterparts."""
    if catalog is None:
        from harness.catalog import CATALOG  # the catalog's modules: only where no record gives its tables

        catalog = CATALOG
    if result.baseline:
        known = result.impl in BASELINE_ORDER
        return (0, 0, BASELINE_ORDER.index(result.impl) if known else len(BASELINE_ORDER), result.impl)
    kernel = catalog.by_id.get(result.kernel or "")
    if kernel is None:
        return (2, 0, 0, f"{result.kernel} {result.impl}")
    forms = [c.name for c in kernel.counterparts]
    form = result.impl_id.form
    within = 0 if result.impl_id.build == "default" else 1 + (forms.index(form) if form in forms else len(forms))
    return (1, catalog.position[kernel.id], within, result.impl)


def headline_problem(results: list[Result], op: str) -> Problem | None:
    """The problem of an op that its headline, findings and single charts show: the declared one (problems.py
    HEADLINE) where the run timed it, else the one most implementations were timed on (ties: the biggest, then the
    first measured). Every reader of "the headline problem" asks here (Measured.headline)."""
    timed = [r for r in results if r.timed and r.op == op]
    if not timed:
        return None
    declared = HEADLINE.get(op)  # type: ignore[call-overload]
    if any(r.problem == declared for r in timed):
        return declared
    counts: dict[Problem, int] = {}
    first: dict[Problem, int] = {}
    for i, r in enumerate(timed):
        counts[r.problem] = counts.get(r.problem, 0) + 1
        first.setdefault(r.problem, i)
    return max(counts, key=lambda p: (counts[p], p.flops, -first[p]))
