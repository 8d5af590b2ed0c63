"""The words the catalog is written in: a kernel and its Triton counterparts (kernel), an idea and its lesson (idea),
a mapping claim and its checks (claim), and the evidence numbers a check reads (evidence).

They sit below harness/catalog, so that a family's module can declare its kernels, ideas and claims side by side,
and below every reader of the catalog (registry, claims, inspect, analysis, report), which name them by these
modules.
"""

from __future__ import annotations

from harness.catalog_types.claim import COMPILER, PROGRAMMER, ByForm, ByKernel, Check, Claim, Side
from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import Counterpart, Deviation, Kernel, Role

__all__ = ["COMPILER", "PROGRAMMER", "ByForm", "ByKernel", "Check", "Claim", "Counterpart", "Deviation", "Idea",
           "Kernel", "Role", "Side"]
