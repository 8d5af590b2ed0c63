"""tile-rosetta's fp32 SIMT SGEMM ladder as one family of the catalog: the rungs that harness/catalog/simt/rungs holds,
found there and ordered by their numbers, with their kernels, ideas and mapping claims.

Nothing lists the rungs: every module of the rungs package is one, its RUNG (CONTRIBUTING.md walks through adding
one). How a rung and its kernels are built is harness/catalog/simt/rung.py.
"""

from __future__ import annotations

import importlib
import pkgutil

from harness.catalog.simt import rungs
from harness.catalog.simt.rung import LADDER, LADDER_TUNED, Rung
from harness.catalog_types.claim import Claim
from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import Kernel

__all__ = ["CLAIMS", "IDEAS", "KERNELS", "LADDER", "LADDER_TUNED", "RUNGS", "Rung"]


def _found() -> tuple[Rung, ...]:
    """Every rung module's RUNG, in the order of their numbers; a module without one, or two rungs of one number,
    are refused (a rung that vanished or moved silently would change every ladder verdict)."""
    found: list[Rung] = []
    for module in pkgutil.iter_modules(rungs.__path__):
        rung = getattr(importlib.import_module(f"{rungs.__name__}.{module.name}"), "RUNG", None)
        if not isinstance(rung, Rung):
            raise RuntimeError(f"{rungs.__name__}.{module.name} defines no RUNG: every module there is a rung")
        found.append(rung)
    numbers = [r.number for r in found]
    if len(set(numbers)) != len(numbers):
        raise RuntimeError(f"SIMT rungs share a number: {sorted(numbers)}")
    return tuple(sorted(found, key=lambda r: r.number))


RUNGS: tuple[Rung, ...] = _found()
KERNELS: tuple[Kernel, ...] = tuple(k for r in RUNGS for k in r.kernels)
IDEAS: dict[str, Idea] = {r.idea.key: r.idea for r in RUNGS if isinstance(r.idea, Idea)}
CLAIMS: dict[str, tuple[Claim, ...]] = {r.idea.key: r.claims for r in RUNGS if isinstance(r.idea, Idea)}
