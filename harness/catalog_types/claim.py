"""What a mapping claim is: a decision, its CUDA, Triton and Gluon text, who decides it, and the checks that prove it.

One claim per decision an idea is about: what the CUDA kernels do, what the Triton counterparts do,
and who decides it in Triton (the programmer, or the compiler). Each side carries a Check: a sentence
and the predicate over `harness.catalog_types.evidence.Evidence` that proves it, plus the evidence names a
report prints beside the verdict. Where the kernels of one idea (or the Triton forms of one kernel)
differ on a row, the row says so and its check is a `ByKernel` / `ByForm` with one case each: a kernel
or form that no case names fails its test until someone states what holds for it. A `ByForm` names forms by the role
their counterpart declares (harness/catalog_types/kernel.Role), never by their names.

A claim is proven on what one compiler made of the code, so it is a fact about that compiler's version. Where the
compiled code legitimately differs between versions, the side is a `ByCompiler`: the statement for the versions that
differ, by compiler name and version, beside the one for every other. Which versions the suite is tested on is
pyproject's (harness/claims/compilers.py); a claim false on any other version is a changed mapping, not a failure.

The Gluon column (`Claim.gluon`, a `GluonSide`) says what the Gluon counterpart writes for the decision, who decides it
there (the programmer, as in CUDA, or the compiler, as in Triton) and the check that proves it on Gluon's compiled code
(its numbers are `Evidence.gluon`). Every claim of an idea that has a Gluon kernel carries one (a test holds it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from harness.catalog_types.evidence import Evidence
from harness.catalog_types.idea import COMPILER, PROGRAMMER
from harness.catalog_types.kernel import Role

__all__ = ["COMPILER", "COMPILER_NAMES", "PROGRAMMER", "ByCompiler", "ByForm", "ByKernel", "Check", "Claim",
           "GluonSide", "Side", "pick", "version_in"]



@dataclass(frozen=True)
class Check:
    text: str
    holds: Callable[[Evidence], bool]
    shows: tuple[str, ...]


@dataclass(frozen=True)
class ByKernel:
    """One check per kernel of the idea; keys are substrings of kernel ids."""

    cases: Mapping[str, Check]

    def pick(self, ev: Evidence) -> Check:
        found = [c for key, c in self.cases.items() if key in ev.kernel.id]
        if len(found) != 1:
            raise LookupError(f"{ev.kernel.id}: {len(found)} cases of {sorted(self.cases)} name it; state one")
        return found[0]


@dataclass(frozen=True)
class ByForm:
    """One check per Triton form, by the role its counterpart declares."""

    cases: Mapping[Role, Check]

    def pick(self, ev: Evidence) -> Check:
        try:
            role = ev.kernel.counterpart(ev.form).role
        except ValueError as e:
            raise LookupError(str(e)) from None
        if role not in self.cases:
            raise LookupError(f"{ev.kernel.id}: no case for the Triton form {ev.form!r}, role {role.value!r} "
                              f"(cases: {sorted(r.value for r in self.cases)})")
        return self.cases[role]


# A compiler by the name evidence and records keep its version under -> as a sentence names it. Triton compiles the
# Triton (and Gluon) kernels, NVRTC the CUDA sources (harness/nvrtc).
COMPILER_NAMES = {"triton": "Triton", "nvrtc": "NVRTC"}


def version_in(version: str, prefix: str) -> bool:
    """Whether a version ("3.8.0", "13.5", "3.9.0+git1a2b") is one a prefix names ("3.8": every 3.8.x; "13": 13.x)."""
    have = version.split("+", 1)[0].split(".")
    want = prefix.split(".")
    return bool(version) and have[:len(want)] == want


@dataclass(frozen=True)
class ByCompiler:
    """What a side's compiled code is where it differs between versions of its compiler: by compiler name ("triton",
    "nvrtc", as Evidence.compilers keeps them), the statement for each version that differs (keys are version
    prefixes: "3.8" is every 3.8.x), and `otherwise` for every other version."""

    compiler: str
    versions: Mapping[str, Side]
    otherwise: Side

    def pick(self, ev: Evidence) -> Check:
        version = ev.compilers.get(self.compiler, "")
        for prefix, side in self.versions.items():
            if version_in(version, prefix):
                return pick(side, ev)
        return pick(self.otherwise, ev)


Side = Check | ByKernel | ByForm | ByCompiler


@dataclass(frozen=True)
class GluonSide:
    """A claim's Gluon column: what the Gluon counterpart does, who decides it in Gluon, and its check."""

    text: str
    decided_by: str          # PROGRAMMER or COMPILER
    check: Side


@dataclass(frozen=True)
class Claim:
    decision: str
    cuda: str
    triton: str
    decided_by: str          # who decides it in Triton: PROGRAMMER or COMPILER
    cuda_check: Side
    triton_check: Side
    gluon: GluonSide | None = None


def pick(side: Side, ev: Evidence) -> Check:
    return side if isinstance(side, Check) else side.pick(ev)
