"""How each idea maps onto CUDA and Triton: one claim per decision, each with the predicates that prove it.

A claim is knowledge about the kernels, written once, beside its idea in the idea's family of the catalog
(harness/catalog): its text (what CUDA does, what Triton does, who decides it in Triton) and a check per side over
the numbers of harness/catalog_types/evidence.py; what a claim is, harness/catalog_types/claim.py. This package hands
them on. Proving them (harness/analysis/mapping.py) needs the compiled kernels; reading their text needs nothing.
Which compiler versions they are proven on, and which the suite is tested on: harness/claims/compilers.py.
"""

from __future__ import annotations

from harness.catalog import CLAIMS, claims
from harness.catalog_types.claim import COMPILER, PROGRAMMER, ByCompiler, ByForm, ByKernel, Check, Claim, Side, pick

__all__ = ["CLAIMS", "COMPILER", "PROGRAMMER", "ByCompiler", "ByForm", "ByKernel", "Check", "Claim", "Side", "claims",
           "pick"]
