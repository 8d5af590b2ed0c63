"""The proven mapping: every claim of every idea a run measured (harness/claims), checked on the compiled kernels.

`rows(idea_key)` gives one row per decision of an idea (its CUDA and Triton text, who decides it in Triton) with,
per kernel of the idea and per Triton form, whether the row's predicate holds and the evidence numbers it read
("BAR 2, LDS.32 16"). `evaluate(kernel)` gives one kernel's verdicts. Where the numbers come from: a run's records
for every kernel it compiled (harness/analysis/recorded_evidence.py), the ahead-of-time compile for sm_90 for the
others (cached on disk), or evidence gathered elsewhere (`harness.inspect.evidence.on_gpu`).

`prove(results)` is what a run's analysis record keeps (harness/analysis/record.py): the rows, verdicts included, as
data, so that a report renders them without a compiler and an old file shows the claims it was proven on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

from harness.analysis.proven import NO_EVIDENCE, ProvenMapping, Row, Verdict
from harness.catalog_types.evidence import Evidence, KernelEvidence
from harness.claims import Check, Claim, Side, claims, pick
from harness.claims.compilers import side_compiler
from harness.records.lines import Result
from harness.registry import KERNELS, Kernel

__all__ = ["NO_EVIDENCE", "ProvenMapping", "Row", "Verdict", "check_claim", "evaluate", "prove", "rows"]

def _verdict(idea: str, claim: Claim, side: Literal["cuda", "triton", "gluon"], check: Side, ev: Evidence,
             evidence: KernelEvidence) -> Verdict:
    compiler = side_compiler(side)
    base = {"idea": idea, "decision": claim.decision, "kernel": ev.kernel.id, "side": side,
            "form": ev.form if side != "cuda" else "", "where": evidence.where, "compiler": compiler,
            "compiler_version": evidence.compilers.get(compiler, "")}
    numbers = {"cuda": ev.cuda, "triton": ev.triton, "gluon": ev.gluon}[side]
    own = {"cuda": "cuda", "triton": ev.form, "gluon": f"gluon:{ev.form}"}[side]
    failed = [evidence.errors[s] for s in ("cuda", own) if s in evidence.errors]
    if failed:
        return Verdict(**base, check="", holds=False, evidence="", error=f"not compiled: {failed[0]}")
    try:
        chosen: Check = pick(check, ev)
        holds = bool(chosen.holds(ev))
        return Verdict(**base, check=chosen.text, holds=holds, evidence=numbers.show(chosen.shows))
    except (KeyError, LookupError, ZeroDivisionError) as e:
        return Verdict(**base, check="", holds=False, evidence="", error=f"{type(e).__name__}: {e}")


def check_claim(idea: str, claim: Claim, evidence: KernelEvidence) -> list[Verdict]:
    """A claim's verdicts on one kernel: its CUDA side once, its Triton side once per counterpart form, its Gluon
    side once per Gluon form (where the claim has a Gluon column)."""
    cuda_ev = Evidence(evidence.kernel, evidence.cuda, compilers=evidence.compilers)
    out = [_verdict(idea, claim, "cuda", claim.cuda_check, cuda_ev, evidence)]
    out += [_verdict(idea, claim, "triton", claim.triton_check, ev, evidence) for ev in evidence.sides()]
    if claim.gluon is not None:
        out += [_verdict(idea, claim, "gluon", claim.gluon.check, ev, evidence) for ev in evidence.gluon_sides()]
    return out


def _gather(kernels: list[Kernel]) -> dict[str, KernelEvidence]:
    from harness.inspect.evidence import gather  # the compiler: only where a kernel's numbers must be made

    return gather(kernels)


def evaluate(kernel: Kernel, evidence: KernelEvidence | None = None) -> list[Verdict]:
    """Every claim of the kernel's idea, checked on this kernel (compiled ahead of time unless given)."""
    ev = evidence if evidence is not None else _gather([kernel])[kernel.id]
    return [v for claim in claims(kernel.idea) for v in check_claim(kernel.idea, claim, ev)]


def rows(idea_key: str, evidence: Mapping[str, KernelEvidence] | None = None, prove: bool = True) -> list[Row]:
    """The idea's rows, each with the verdicts of every kernel of the idea in the registry.

    With prove=False the rows carry text only (nothing is compiled).
    """
    kernels = [k for k in KERNELS if k.idea == idea_key]
    if prove and evidence is None:
        evidence = _gather(kernels)
    out = []
    for claim in claims(idea_key):
        verdicts: list[Verdict] = []
        if prove and evidence is not None:
            for k in kernels:
                verdicts += check_claim(idea_key, claim, evidence[k.id])
        out.append(Row(claim.decision, claim.cuda, claim.triton, claim.decided_by, tuple(verdicts),
                       claim.gluon.text if claim.gluon else "", claim.gluon.decided_by if claim.gluon else ""))
    return out


def _idea_rows(idea_key: str, results: list[Result], compilers: Mapping[str, str]) -> list[Row]:
    """One idea proven on the run's own evidence where it has it (made by the run's `compilers`); the kernels it did
    not compile, and those recorded before a fact existed, compiled ahead of time."""
    from harness.analysis.recorded_evidence import from_run

    kernels = [k for k in KERNELS if k.idea == idea_key]
    evidence = from_run(results, kernels, compilers)
    missing = [k for k in kernels if k.id not in evidence]
    if missing:
        evidence.update(_gather(missing))
    found = rows(idea_key, evidence)
    stale = {v.kernel for row in found for v in row.verdicts if NO_EVIDENCE in v.error}
    if stale:
        evidence.update(_gather([k for k in kernels if k.id in stale]))
        found = rows(idea_key, evidence)
    return found


def prove(results: Iterable[Result], compilers: Mapping[str, str] | None = None) -> ProvenMapping:
    """The rows of every idea the results measured a kernel of, each proven (see `_idea_rows`); `compilers` are the
    versions the run compiled with (its header's), by name. An idea whose kernels cannot be compiled here is recorded
    as unproven with the reason, and a report shows its text rows."""
    from harness.claims import CLAIMS

    results = list(results)
    measured = {r.kernel for r in results if r.kernel}
    out = ProvenMapping()
    for idea in dict.fromkeys(k.idea for k in KERNELS if k.id in measured and k.idea in CLAIMS):
        try:
            out.rows[idea] = _idea_rows(idea, results, compilers or {})
        except Exception as e:  # no NVRTC, no Triton compile: the claims stay unproven and say why
            out.unproven[idea] = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:200] if str(e).strip() else ''}"
    return out
