"""How each idea maps onto CUDA and Triton: claims as data, proven on the compiled kernels.

`rows(idea_key)` gives the report one row per decision of an idea (its CUDA and Triton text, who
decides it in Triton) with, per kernel of the idea and per Triton form, whether the row's predicate
holds and the evidence numbers it read ("BAR 2, LDS.32 16"). `evaluate(kernel)` gives a kernel's
verdicts. Both compile ahead of time for sm_90 with no GPU (cached on disk); pass evidence gathered
elsewhere (e.g. `harness.inspect.evidence.on_gpu`) to prove the same claims on a GPU's kernels.
The claims themselves live in mapping_gemm (the worklogs' SGEMM ideas), mapping_ladder (tile-rosetta's fp32
ladder), mapping_tc (tensor cores) and mapping_gemv; the types in mapping_checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from harness.inspect.evidence import Evidence, KernelEvidence, gather
from harness.registry import KERNELS, Kernel
from harness.report.mapping_checks import COMPILER, PROGRAMMER, ByForm, ByKernel, Check, Claim, Side, pick
from harness.report.mapping_gemm import GEMM_CLAIMS
from harness.report.mapping_gemv import GEMV_CLAIMS
from harness.report.mapping_ladder import LADDER_CLAIMS
from harness.report.mapping_tc import TC_CLAIMS

__all__ = ["CLAIMS", "COMPILER", "PROGRAMMER", "ByForm", "ByKernel", "Check", "Claim", "Row", "Verdict", "claims",
           "evaluate", "rows"]

CLAIMS: dict[str, tuple[Claim, ...]] = {**GEMM_CLAIMS, **LADDER_CLAIMS, **TC_CLAIMS, **GEMV_CLAIMS}


@dataclass(frozen=True)
class Verdict:
    """One claim's check on one side of one kernel (the Triton side once per counterpart form)."""

    idea: str
    decision: str
    kernel: str
    side: Literal["cuda", "triton"]
    form: str          # the Triton counterpart's name; "" on the CUDA side
    check: str         # what the predicate establishes
    holds: bool
    evidence: str      # the numbers it read, e.g. "BAR 2, LDS.32 16"
    error: str = ""    # the check could not be evaluated: why (then holds is False)
    where: str = ""    # what was compiled: "sm_90, compiled ahead of time" or a GPU launch

    @property
    def label(self) -> str:
        return f"{self.kernel} [{self.form or 'cuda'}]"


@dataclass(frozen=True)
class Row:
    """One decision of an idea, as the report renders it, with every kernel's verdicts."""

    decision: str
    cuda: str
    triton: str
    decided_by: str
    verdicts: tuple[Verdict, ...] = ()

    @property
    def holds(self) -> bool:
        return all(v.holds for v in self.verdicts)


def claims(idea_key: str) -> tuple[Claim, ...]:
    """The claims of an idea; KeyError naming the idea where none are written."""
    if idea_key not in CLAIMS:
        raise KeyError(f"idea {idea_key!r} has no mapping claims (ideas with claims: {', '.join(sorted(CLAIMS))})")
    return CLAIMS[idea_key]


def _verdict(idea: str, claim: Claim, side: Literal["cuda", "triton"], check: Side, ev: Evidence,
             evidence: KernelEvidence) -> Verdict:
    base = {"idea": idea, "decision": claim.decision, "kernel": ev.kernel.id, "side": side,
            "form": ev.form if side == "triton" else "", "where": evidence.where}
    numbers = ev.cuda if side == "cuda" else ev.triton
    failed = [evidence.errors[s] for s in ("cuda", ev.form if side == "triton" else "cuda") if s in evidence.errors]
    if failed:
        return Verdict(**base, check="", holds=False, evidence="", error=f"not compiled: {failed[0]}")
    try:
        chosen: Check = pick(check, ev)
        holds = bool(chosen.holds(ev))
        return Verdict(**base, check=chosen.text, holds=holds, evidence=numbers.show(chosen.shows))
    except (KeyError, LookupError, ZeroDivisionError) as e:
        return Verdict(**base, check="", holds=False, evidence="", error=f"{type(e).__name__}: {e}")


def check_claim(idea: str, claim: Claim, evidence: KernelEvidence) -> list[Verdict]:
    """A claim's verdicts on one kernel: its CUDA side once, its Triton side once per counterpart form."""
    cuda_ev = Evidence(evidence.kernel, evidence.cuda)
    out = [_verdict(idea, claim, "cuda", claim.cuda_check, cuda_ev, evidence)]
    out += [_verdict(idea, claim, "triton", claim.triton_check, ev, evidence) for ev in evidence.sides()]
    return out


def evaluate(kernel: Kernel, evidence: KernelEvidence | None = None) -> list[Verdict]:
    """Every claim of the kernel's idea, checked on this kernel (compiled ahead of time unless given)."""
    ev = evidence if evidence is not None else gather([kernel])[kernel.id]
    return [v for claim in claims(kernel.idea) for v in check_claim(kernel.idea, claim, ev)]


def rows(idea_key: str, evidence: Mapping[str, KernelEvidence] | None = None, prove: bool = True) -> list[Row]:
    """The idea's rows, each with the verdicts of every kernel of the idea in the registry.

    With prove=False the rows carry text only (nothing is compiled: a machine without NVRTC can render them).
    """
    kernels = [k for k in KERNELS if k.idea == idea_key]
    if prove and evidence is None:
        evidence = gather(kernels)
    out = []
    for claim in claims(idea_key):
        verdicts: list[Verdict] = []
        if prove and evidence is not None:
            for k in kernels:
                verdicts += check_claim(idea_key, claim, evidence[k.id])
        out.append(Row(claim.decision, claim.cuda, claim.triton, claim.decided_by, tuple(verdicts)))
    return out
