"""The catalog: every kernel family's registry entries, ideas and mapping claims, written once, side by side in one
module (or small package) per family, and assembled here into the tables the rest of the suite reads.

- seeds: the documents and every kernel they publish, with the SGEMM ideas they teach and those ideas' claims;
- gemv: the SGEMV ideas (seed 003's and tile-rosetta's steps), tile-rosetta's SGEMV kernels and the claims;
- simt: tile-rosetta's fp32 SIMT ladder, one module per rung (harness/catalog/simt/rungs);
- tensor_cores: mma.sync TF32 and 3xTF32; hopper: Hopper's wgmma ladder;
- gluon: the Gluon column, which kernels have a Gluon counterpart and each claim's Gluon side (attached here).

What the entries are made of (Kernel, Counterpart, Idea, Claim, Evidence) is harness/catalog_types. Readers use
harness.registry (the kernels and ideas) and harness.claims (the claims), which hand these tables on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from harness.catalog import cost, gemv, gluon, hopper, seeds, simt, tensor_cores
from harness.catalog.ladders import LADDERS
from harness.catalog_types.claim import Claim
from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import DERIVED, Kernel
from harness.catalog_types.tables import Catalog, ClaimText
from harness.problems import Op

# Registry order: the report's tables and the run follow it.
KERNELS: tuple[Kernel, ...] = (*seeds.KERNELS, *gemv.KERNELS, *simt.KERNELS, *tensor_cores.KERNELS, *hopper.KERNELS)
BY_ID: dict[str, Kernel] = {k.id: k for k in KERNELS}
# The teaching order: the seeds' SGEMM ideas, the SGEMV ideas, tensor cores, Hopper, then the SIMT ladder's steps.
IDEAS: dict[str, Idea] = {**seeds.IDEAS, **gemv.IDEAS, **tensor_cores.IDEAS, **hopper.IDEAS, **simt.IDEAS}
CLAIMS: dict[str, tuple[Claim, ...]] = {
    idea: tuple(replace(c, gluon=gluon.SIDES.get(idea, {}).get(c.decision)) for c in found)
    for idea, found in {**seeds.CLAIMS, **simt.CLAIMS, **tensor_cores.CLAIMS, **hopper.CLAIMS, **gemv.CLAIMS}.items()}

# The tables as one value: what an analysis record keeps, so that a page is drawn with the catalog it was measured by.
CATALOG = Catalog(KERNELS, IDEAS, seeds.SEEDS, seeds.SECTION_EN, seeds.UNROLL_CLAIM, LADDERS,
                  {idea: tuple(ClaimText(c.decision, c.cuda, c.triton, c.decided_by,
                                         c.gluon.text if c.gluon else "", c.gluon.decided_by if c.gluon else "")
                               for c in found)
                   for idea, found in CLAIMS.items()},
                  cost.costs(KERNELS))


def get(kernel_id: str) -> Kernel:
    """A catalog kernel by id (a run's declared pairs are in the run's catalog: Catalog.kernel)."""
    return CATALOG.kernel(kernel_id)


# What one build of a source holds: every catalog kernel's name expression of that source, built once (seed 001's
# stride sweep is one compile of five); a user's own kernel is built with its own beside them (harness/nvrtc).
_SYMBOLS: dict[str, frozenset[str]] = {}
for _k in KERNELS:
    _SYMBOLS[_k.source] = _SYMBOLS.get(_k.source, frozenset()) | {_k.symbol}


def instantiations(kernel: Kernel) -> tuple[str, ...]:
    """The name expressions the build of `kernel`'s source instantiates: the catalog's of that source, and its own."""
    return tuple(sorted(_SYMBOLS.get(kernel.source, frozenset()) | {kernel.symbol}))


def build_units(kernels: Iterable[Kernel]) -> list[tuple[str, tuple[str, ...]]]:
    """The builds (source, name expressions) that make `kernels`, each once, in their order."""
    return list(dict.fromkeys((k.source, instantiations(k)) for k in kernels))


def select(patterns: list[str] | None = None, op: Op | None = None) -> list[Kernel]:
    """Kernels whose id contains any of the patterns (all when none), of one op when given."""
    chosen = [k for k in KERNELS if op is None or k.op == op]
    if patterns:
        chosen = [k for k in chosen if any(p in k.id for p in patterns)]
        if not chosen:
            raise ValueError(f"no kernel id matches {', '.join(map(repr, patterns))}; `rosetta list` shows them all")
    return chosen


def claims(idea_key: str) -> tuple[Claim, ...]:
    """The claims of an idea; KeyError naming the idea where none are written."""
    if idea_key not in CLAIMS:
        raise KeyError(f"idea {idea_key!r} has no mapping claims (ideas with claims: {', '.join(sorted(CLAIMS))})")
    return CLAIMS[idea_key]


def _validate() -> None:
    seen: set[str] = set()
    for k in KERNELS:
        if k.id in seen:
            raise RuntimeError(f"duplicate kernel id {k.id}")
        seen.add(k.id)
        if k.idea not in IDEAS:
            raise RuntimeError(f"{k.id}: unknown idea {k.idea!r}")
        names = [c.name for c in k.counterparts]
        if len(set(names)) != len(names):
            raise RuntimeError(f"{k.id}: counterpart names repeat")
        for c in k.counterparts:
            unknown = set(c.deviations) - set(DERIVED)
            if unknown:
                raise RuntimeError(f"{k.id} [{c.name}]: deviations from {sorted(unknown)}, not derived settings")
            c.config(k)  # raises where a derived setting is impossible and no deviation says why
    unknown = sorted(set(gluon.FORMS) - set(BY_ID))
    if unknown:
        raise RuntimeError(f"Gluon forms name no kernel of the catalog: {unknown}")
    for idea, sides in gluon.SIDES.items():
        stray = sorted(set(sides) - {c.decision for c in CLAIMS.get(idea, ())})
        if stray:
            raise RuntimeError(f"Gluon sides of {idea!r} name no claim of it: {stray}")
    families = (seeds.IDEAS, gemv.IDEAS, tensor_cores.IDEAS, hopper.IDEAS, simt.IDEAS)
    if sum(map(len, families)) != len(IDEAS):
        raise RuntimeError("two families teach an idea of the same key")


_validate()
