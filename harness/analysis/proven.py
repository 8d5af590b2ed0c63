"""The proven mapping as a record keeps it: each decision of an idea with every kernel's verdict on it (built by
harness/analysis/mapping.py, which checks the claims on the compiled kernels; read by the report, which compiles
nothing)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Literal

from harness.catalog_types.claim import COMPILER_NAMES

# What a predicate's KeyError says when the evidence has no number of that name (catalog_types/evidence.Numbers).
NO_EVIDENCE = "no evidence named"


@dataclass(frozen=True)
class Verdict:
    """One claim's check on one side of one kernel (the Triton and Gluon sides once per form)."""

    idea: str
    decision: str
    kernel: str
    side: Literal["cuda", "triton", "gluon"]
    form: str          # the Triton or Gluon counterpart's name; "" on the CUDA side
    check: str         # what the predicate establishes
    holds: bool
    evidence: str      # the numbers it read, e.g. "BAR 2, LDS.32 16"
    error: str = ""    # the check could not be evaluated: why (then holds is False)
    where: str = ""    # what was compiled: "sm_90, compiled ahead of time" or a GPU launch
    # the compiler that made the code the check read, by name ("nvrtc" for the CUDA side, "triton") and version
    # (empty in records from before they were kept): a proof is a fact about that compiler
    compiler: str = ""
    compiler_version: str = ""

    @property
    def label(self) -> str:
        if self.side == "gluon":
            return f"{self.kernel} [gluon:{self.form}]"
        return f"{self.kernel} [{self.form or 'cuda'}]"

    @property
    def made_on(self) -> str:
        """"Triton 3.9.0"; "" where the record does not say."""
        return f"{COMPILER_NAMES.get(self.compiler, self.compiler)} {self.compiler_version}".strip()

    @property
    def changed(self) -> str:
        """What a check that does not hold says: on which compiler, and what its compiled code does now."""
        on = f" on {self.made_on}" if self.compiler_version else ""
        return f"not as stated{on}: {self.label}: {self.error or self.evidence or 'no evidence'}"


@dataclass(frozen=True)
class Row:
    """One decision of an idea, as a report renders it, with every kernel's verdicts."""

    decision: str
    cuda: str
    triton: str
    decided_by: str
    verdicts: tuple[Verdict, ...] = ()
    gluon: str = ""              # the Gluon column ("" where the idea has no Gluon kernel, and in older records)
    gluon_decided_by: str = ""

    @property
    def holds(self) -> bool:
        return all(v.holds for v in self.verdicts)

    def to_json(self) -> dict:
        # the idea and the decision are the row's: a verdict does not repeat them
        out = {"decision": self.decision, "cuda": self.cuda, "triton": self.triton, "decided_by": self.decided_by,
               "verdicts": [{k: v for k, v in asdict(x).items() if k not in ("idea", "decision")}
                            for x in self.verdicts]}
        if self.gluon:
            out.update(gluon=self.gluon, gluon_decided_by=self.gluon_decided_by)
        return out

    @classmethod
    def from_json(cls, idea: str, data: dict) -> Row:
        decision = str(data["decision"])
        return cls(decision, str(data["cuda"]), str(data["triton"]), str(data["decided_by"]),
                   tuple(Verdict(idea=idea, decision=decision, **v) for v in data.get("verdicts") or []),
                   str(data.get("gluon") or ""), str(data.get("gluon_decided_by") or ""))


@dataclass
class ProvenMapping:
    """The rows of each idea a run measured, proven; and the ideas that could not be, with the reason."""

    rows: dict[str, list[Row]] = field(default_factory=dict)
    unproven: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"rows": {idea: [r.to_json() for r in found] for idea, found in self.rows.items()},
                "unproven": dict(self.unproven)}

    @classmethod
    def from_json(cls, data: dict) -> ProvenMapping:
        return cls({idea: [Row.from_json(idea, r) for r in found] for idea, found in (data.get("rows") or {}).items()},
                   {str(k): str(v) for k, v in (data.get("unproven") or {}).items()})


def changed_and_false(verdicts: Iterable[Verdict]) -> tuple[list[Verdict], list[Verdict]]:
    """The checks that do not hold, parted: (changed mappings: made by a compiler version the suite is not tested on;
    false claims: on a tested version, or on one the record does not name)."""
    from harness.claims.compilers import is_tested  # the catalog's claims: not loaded where a page is drawn

    changed, false = [], []
    for v in verdicts:
        if not v.holds:
            untested = v.compiler_version and not is_tested(v.compiler, v.compiler_version)
            (changed if untested else false).append(v)
    return changed, false
