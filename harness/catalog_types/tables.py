"""The catalog's tables as one value, and its JSON form: what an analysis record keeps of the catalog.

A results file's page is drawn with the catalog of the analysis that wrote its record (harness/analysis/record.py),
not with today's: a kernel renamed, retuned or moved to another idea since still shows as it was measured, and the
page reads no catalog module and compiles nothing. harness/catalog assembles today's tables (`CATALOG`); a record
written before records kept the tables is drawn with those.
"""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from enum import Enum
from functools import cached_property
from typing import Literal

from harness.catalog_types.gluon import GluonCounterpart
from harness.catalog_types.idea import Idea
from harness.catalog_types.kernel import (
    Counterpart,
    Deviation,
    Kernel,
    Published,
    PublishedRatio,
    Role,
    Seed,
)
from harness.problems.preconditions import Precondition


@dataclass(frozen=True)
class Ladder:
    """One ladder of the suite (harness/catalog/ladders.py): its rungs in order and which Triton forms stand on one."""

    name: str                                   # "SIMT", "TF32", "3xTF32"
    precision: str
    rungs: tuple[tuple[Kernel, ...], ...]
    # "plain": a rung's own plain form (the SIMT ladder's gemm_ladder); "alike": every form that moves data as its
    # CUDA kernel does (Hopper's chains)
    forms: Literal["plain", "alike"]
    # the rung its catalog declares the summit (one of `rungs`, not by its place there); () where none is declared
    summit: tuple[Kernel, ...] = ()

    def __post_init__(self) -> None:
        if self.summit and self.summit not in self.rungs:
            raise ValueError(f"the {self.name} ladder's summit {[k.id for k in self.summit]} is none of its rungs")

    def stands(self, c: Counterpart) -> bool:
        """Whether a Triton form stands on a rung of this ladder."""
        return c.role is Role.PLAIN if self.forms == "plain" else not c.deliberately_different

    def index(self, kernel_id: str) -> int | None:
        return next((i for i, rung in enumerate(self.rungs) if any(k.id == kernel_id for k in rung)), None)


@dataclass(frozen=True)
class ClaimText:
    """A mapping claim's words, without its checks: what a page shows of a claim the record could not prove."""

    decision: str
    cuda: str
    triton: str
    decided_by: str
    gluon: str = ""              # the Gluon column's text ("" where the idea has no Gluon kernel)
    gluon_decided_by: str = ""   # who decides it in Gluon


# The kinds of decision a GEMM kernel of this suite makes, which Catalog.costs counts per model where its source states
# them (harness/catalog/cost.py finds each by a marker in the text; a kind the compiler decides has none).
DECISIONS = ("block tile", "threads' layout", "shared memory", "shared layout", "copy path", "stages",
             "synchronisation", "product instruction", "roles and registers", "block order", "precision split")


@dataclass(frozen=True)
class Catalog:
    kernels: tuple[Kernel, ...]                     # registry order
    ideas: dict[str, Idea]                          # teaching order
    seeds: dict[str, Seed]
    section_en: dict[str, str]                      # a seed section's title in English
    unroll_claim: PublishedRatio
    ladders: tuple[Ladder, ...]
    claims: dict[str, tuple[ClaimText, ...]] = field(default_factory=dict)   # by idea
    # what each model costs to write, per rung written in all three (harness/catalog/cost.py): kernel id -> model ->
    # (lines of code, decisions the source states)
    costs: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)

    @cached_property
    def by_id(self) -> dict[str, Kernel]:
        return {k.id: k for k in self.kernels}

    @cached_property
    def position(self) -> dict[str, int]:
        """A kernel's place in registry order."""
        return {k.id: i for i, k in enumerate(self.kernels)}

    def ladder(self, precision: str) -> Ladder:
        return next(lad for lad in self.ladders if lad.precision == precision)

    @cached_property
    def hopper(self) -> tuple[Kernel, ...]:
        """The wgmma rungs: every rung of a tensor-core chain after its first (the mma.sync rung it starts from)."""
        return tuple(k for lad in self.ladders if lad.precision != "fp32" for rung in lad.rungs[1:] for k in rung)

    def kernel(self, kernel_id: str) -> Kernel:
        """A kernel by id; a ValueError naming the ids that come close where it holds none."""
        try:
            return self.by_id[kernel_id]
        except KeyError:
            close = [k for k in self.by_id if kernel_id.lower() in k.lower()]
            hint = f"; did you mean {', '.join(close[:5])}?" if close else "; `rosetta list` shows them all"
            raise ValueError(f"unknown kernel id {kernel_id!r}{hint}") from None

    def adding(self, kernels: tuple[Kernel, ...] | list[Kernel], ideas: list[Idea]) -> Catalog:
        """This catalog with a run's declared kernels and their ideas (a user's own pairs, harness/pairs) after its
        own: the run's catalog, which the run hands to every process it starts. An id it already holds stays its
        own."""
        kernels = tuple(k for k in kernels if k.id not in self.by_id)
        ideas = [i for i in ideas if i.key not in self.ideas]
        if not kernels and not ideas:
            return self
        return replace(self, kernels=(*self.kernels, *kernels), ideas={**self.ideas, **{i.key: i for i in ideas}})

    def with_declared(self, data: dict) -> Catalog:
        """This catalog with the kernels and ideas of `declared_json` (as a run's header keeps them)."""
        return self.adding([kernel_from_json(k) for k in data.get("kernels") or ()],
                           [Idea(**i) for i in data.get("ideas") or ()])

    @property
    def declared(self) -> tuple[Kernel, ...]:
        """The kernels a user declared for the run (harness/pairs), not the catalog's own."""
        return tuple(k for k in self.kernels if k.declared)

    def declared_json(self) -> dict | None:
        """What a results file's header keeps of the run's declared kernels and their ideas, so that any later
        analysis and page draw them as the run measured them (`with_declared`); None for the catalog alone."""
        mine = self.declared
        if not mine:
            return None
        return declared_json(mine, [self.ideas[i] for i in dict.fromkeys(k.idea for k in mine) if i in self.ideas])

    def to_json(self) -> dict:
        return {"kernels": [kernel_json(k) for k in self.kernels],
                "ideas": [asdict(i) for i in self.ideas.values()],
                "seeds": [asdict(s) for s in self.seeds.values()],
                "section_en": dict(self.section_en), "unroll_claim": asdict(self.unroll_claim),
                "ladders": [{"name": lad.name, "precision": lad.precision, "forms": lad.forms,
                             "rungs": [[k.id for k in rung] for rung in lad.rungs],
                             "summit": [k.id for k in lad.summit]} for lad in self.ladders],
                "claims": {idea: [asdict(c) for c in texts] for idea, texts in self.claims.items()},
                "costs": {k: {model: list(v) for model, v in by.items()} for k, by in self.costs.items()}}

    @classmethod
    def from_json(cls, data: dict) -> Catalog:
        kernels = tuple(kernel_from_json(k) for k in data["kernels"])
        by_id = {k.id: k for k in kernels}
        seeds = [Seed(**{**s, "cublas": Published(**s["cublas"]) if s.get("cublas") else None})
                 for s in data["seeds"]]
        ladders = tuple(_ladder(lad, by_id) for lad in data["ladders"])
        return cls(kernels, {i["key"]: Idea(**i) for i in data["ideas"]}, {s.key: s for s in seeds},
                   dict(data["section_en"]), PublishedRatio(**data["unroll_claim"]), ladders,
                   {idea: tuple(ClaimText(**c) for c in texts) for idea, texts in (data.get("claims") or {}).items()},
                   {k: {model: (int(v[0]), int(v[1])) for model, v in by.items()}
                    for k, by in (data.get("costs") or {}).items()})


def _ladder(data: dict, by_id: dict[str, Kernel]) -> Ladder:
    rungs = tuple(tuple(by_id[i] for i in rung) for rung in data["rungs"])
    if "summit" in data:
        summit = tuple(by_id[i] for i in data["summit"])
    else:
        # A record from before ladders kept their summit: then the summit's kernel alone carried the Triton ceiling.
        summit = next((rung for rung in rungs if any(c.role is Role.CEILING for k in rung for c in k.counterparts)), ())
    return Ladder(data["name"], data["precision"], rungs, data["forms"], summit)


def declared_json(kernels: tuple[Kernel, ...] | list[Kernel], ideas: list[Idea]) -> dict:
    """Kernels and ideas a run declares beside the catalog, as `Catalog.with_declared` reads them back."""
    return {"kernels": [kernel_json(k) for k in kernels], "ideas": [asdict(i) for i in ideas]}


def _fields(pairs: list[tuple[str, object]]) -> dict:
    # a precondition's test is its kind's (Precondition.from_json rebuilds it); a role is its value
    return {k: (v.value if isinstance(v, Enum) else v) for k, v in pairs if not callable(v)}


def _lean(data: dict, cls: type) -> dict:
    """Fields at their default left out: a record keeps what sets a kernel apart, and a field added since reads as
    its default from an older record."""
    defaults = {}
    for f in fields(cls):
        if f.default is not MISSING:
            defaults[f.name] = f.default.value if isinstance(f.default, Enum) else f.default
        elif f.default_factory is not MISSING:
            defaults[f.name] = f.default_factory()
    return {k: v for k, v in data.items() if k not in defaults or v != defaults[k]}


def kernel_json(k: Kernel) -> dict:
    data = _lean(asdict(k, dict_factory=_fields), Kernel)
    data["counterparts"] = [_lean(c, Counterpart) for c in data["counterparts"]]
    if "gluon" in data:
        data["gluon"] = [_lean(g, GluonCounterpart) for g in data["gluon"]]
    return data


def _counterpart(data: dict) -> Counterpart:
    return Counterpart(**{**data, "deviations": {k: Deviation(**d) for k, d in (data.get("deviations") or {}).items()},
                          "role": Role(data.get("role", Role.PLAIN.value)),
                          "preconditions": tuple(Precondition.from_json(p) for p in data.get("preconditions") or ())})


def kernel_from_json(data: dict) -> Kernel:
    return Kernel(**{**data, "args": tuple(data["args"]), "block": tuple(data["block"]),
                     "preconditions": tuple(Precondition.from_json(p) for p in data["preconditions"]),
                     "counterparts": tuple(_counterpart(c) for c in data["counterparts"]),
                     "gluon": tuple(GluonCounterpart(**{**g, "template": tuple(g["template"])})
                                    for g in data.get("gluon") or ()),
                     "published": Published(**data["published"]) if data.get("published") else None,
                     "aligned16": tuple(data.get("aligned16") or ())})
