"""tile-rosetta's fp32 SIMT SGEMM ladder as one family of the catalog: the rungs that harness/catalog/simt/rungs holds,
found there, each named by its module, and ordered by the rung each says it stands on, with their kernels, ideas and
mapping claims.

Nothing lists the rungs: every module of the rungs package is one, its RUNG (CONTRIBUTING.md walks through adding
one). How a rung and its kernels are built is harness/catalog/simt/rung.py.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from dataclasses import replace

from harness.catalog.simt import rungs
from harness.catalog.simt.rung import LADDER, LADDER_TUNED, Rung
from harness.catalog_types.claim import Claim
from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import Kernel, Role

__all__ = ["CLAIMS", "IDEAS", "KERNELS", "LADDER", "LADDER_TUNED", "RUNGS", "SUMMIT", "Rung", "in_order", "summit"]


def _found() -> dict[str, Rung]:
    """Every rung module's RUNG, named by its module; a module without one is refused (a rung that vanished silently
    would change every ladder verdict)."""
    found: dict[str, Rung] = {}
    for module in pkgutil.iter_modules(rungs.__path__):
        rung = getattr(importlib.import_module(f"{rungs.__name__}.{module.name}"), "RUNG", None)
        if not isinstance(rung, Rung):
            raise RuntimeError(f"{rungs.__name__}.{module.name} defines no RUNG: every module there is a rung")
        found[module.name] = replace(rung, name=module.name)
    return found


def in_order(found: Mapping[str, Rung]) -> tuple[Rung, ...]:
    """The rungs from the first up, each above the one its `after` names. Refused, naming the rungs: an `after` that
    names no rung, two rungs on one (which goes first is then unsaid), and a rung the chain from the first never
    reaches."""
    above: dict[str | None, list[str]] = {}
    for name, rung in found.items():
        if rung.after is not None and rung.after not in found:
            raise RuntimeError(f"SIMT rung {name} stands after {rung.after!r}, which is no rung "
                               f"(the rungs: {', '.join(sorted(found))})")
        above.setdefault(rung.after, []).append(name)
    for below, names in above.items():
        if len(names) > 1:
            where = f"after {below}" if below else "first (after=None)"
            raise RuntimeError(f"SIMT rungs {' and '.join(sorted(names))} all stand {where}: the one above names the "
                               f"other in `after`")
    order: list[Rung] = []
    below: str | None = None
    while below in above:
        below = above[below][0]
        order.append(found[below])
    if len(order) != len(found):
        lost = sorted(set(found) - {r.name for r in order})
        raise RuntimeError(f"SIMT rungs {', '.join(lost)} are not on the ladder: following `after` down from them "
                           f"never reaches the first rung")
    return tuple(order)


def summit(ordered: tuple[Rung, ...]) -> Rung:
    """The one rung that declares itself the summit; only its kernels carry a Triton ceiling."""
    declared = [r for r in ordered if r.summit]
    if len(declared) != 1:
        raise RuntimeError(f"the SIMT ladder declares {len(declared)} summits "
                           f"({', '.join(r.name for r in declared) or 'none'}): exactly one rung says summit=True")
    elsewhere = [k.id for r in ordered if not r.summit for k in r.kernels
                 if any(c.role is Role.CEILING for c in k.counterparts)]
    if elsewhere:
        raise RuntimeError(f"the Triton ceiling stands beside the summit only, not beside {', '.join(elsewhere)}")
    return declared[0]


RUNGS: tuple[Rung, ...] = in_order(_found())
SUMMIT: Rung = summit(RUNGS)
KERNELS: tuple[Kernel, ...] = tuple(k for r in RUNGS for k in r.kernels)
IDEAS: dict[str, Idea] = {r.idea.key: r.idea for r in RUNGS if isinstance(r.idea, Idea)}
CLAIMS: dict[str, tuple[Claim, ...]] = {r.idea.key: r.claims for r in RUNGS if isinstance(r.idea, Idea)}
if len(IDEAS) != sum(isinstance(r.idea, Idea) for r in RUNGS):
    raise RuntimeError("two SIMT rungs teach an idea of one key: a rung that only changes the tile teaches its own")
