"""How each idea maps onto CUDA and Triton: one claim per decision, each with the predicates that prove it.

A claim is knowledge about the kernels, written once: its text (what CUDA does, what Triton does, who decides it in
Triton) and a check per side over the numbers of harness/claims/evidence.py. The claims of each family live in a
module of their own: gemm (the worklogs' SGEMM ideas), ladder (tile-rosetta's fp32 ladder), tc (tensor cores) and
gemv; the types in checks. Proving them (harness/analysis/mapping.py) needs the compiled kernels; reading their
text needs nothing.
"""

from __future__ import annotations

from harness.claims.checks import COMPILER, PROGRAMMER, ByForm, ByKernel, Check, Claim, Side, pick
from harness.claims.gemm import GEMM_CLAIMS
from harness.claims.gemv import GEMV_CLAIMS
from harness.claims.ladder import LADDER_CLAIMS
from harness.claims.tc import TC_CLAIMS

__all__ = ["CLAIMS", "COMPILER", "PROGRAMMER", "ByForm", "ByKernel", "Check", "Claim", "Side", "claims", "pick"]

CLAIMS: dict[str, tuple[Claim, ...]] = {**GEMM_CLAIMS, **LADDER_CLAIMS, **TC_CLAIMS, **GEMV_CLAIMS}


def claims(idea_key: str) -> tuple[Claim, ...]:
    """The claims of an idea; KeyError naming the idea where none are written."""
    if idea_key not in CLAIMS:
        raise KeyError(f"idea {idea_key!r} has no mapping claims (ideas with claims: {', '.join(sorted(CLAIMS))})")
    return CLAIMS[idea_key]
