"""From a results file to one typed record of its comparisons, written as JSON beside the results.

Every pair the suite compares is here once, with its verdict (harness/analysis/verdicts.py), under its relation
(harness/analysis/relations.py says what each sets against what). "cublas-packed" adds the time it took to pack B to
each of the row's runs: the pack time is the median of its own runs (Result.pack_ms), added as a constant, so the
interval is the rounds', not the pack's. Wherever else a row that reads B K-major is set against one that reads it
row-major, its pack is added to its runs (`pair`, Comparison.pack_ms): a sentence never sets a K-major kernel's time
alone against a row-major reader's.

A record from a file of single bursts (before the rounds existed) keeps the ratio of the medians and no verdict.

Beside the comparisons, the record keeps the findings (harness/analysis/findings.py: what each finding rule found,
typed, with the figures, verdicts and causes it rests on) and the proven mapping (harness/analysis/mapping.py): every
claim of every idea the file measured, checked on the compiled kernels, so that a report renders it without a
compiler. harness/analysis/build.py builds the record and writes it beside the file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from harness.analysis.proven import ProvenMapping
from harness.analysis.relations import Relation
from harness.analysis.verdicts import METHOD, Call, Verdict, compare, margin_for
from harness.baselines import b_layout_of, cublas_of, triton_baseline_of
from harness.catalog_types.gluon import GLUON_MIRROR
from harness.catalog_types.tables import Catalog, Ladder
from harness.identity import KernelImpl, RecordKey
from harness.measure.timing import Samples
from harness.problems import Problem
from harness.records.file import Results, load
from harness.records.lines import Result, RunHeader

RowKey = RecordKey   # (kernel id or None, impl, problem key): Result.key, made by RecordKey.of


# The record's version: a record written by an older analysis is made again from its file when read (`read_beside`),
# its proven mapping and catalog kept, so that a page never mixes an older rule's comparisons with today's words.
VERSION = 3   # 3: a model-or-compiler split carries its ablation of the same device, named by its file


@dataclass(frozen=True)
class Comparison:
    relation: Relation
    problem: Problem
    subject: KernelImpl
    reference: KernelImpl
    ratio: float                          # subject / reference time: the verdict's estimate, or the medians' ratio
    verdict: Verdict | None               # None where either side has no samples (a file of single bursts)
    # the time to pack B K-major, added to each run of the side that reads it so (the subject, or with `pack_on`
    # "reference" the reference) against a row-major reader; None: both sides read B alike, or no pack was timed
    pack_ms: float | None = None
    pack_on: str = "subject"

    @property
    def call(self) -> Call | None:
        return self.verdict.call if self.verdict else None

    @property
    def subject_key(self) -> RowKey:
        return RecordKey.of(*self.subject, self.problem)

    @property
    def reference_key(self) -> RowKey:
        return RecordKey.of(*self.reference, self.problem)

    def pct(self) -> tuple[float, float | None, float | None]:
        """The subject's speed as % of the reference's, with its 95% interval (None, None without a verdict, or where
        the rounds were too few for a 95% interval: the verdict's cell says their range as such)."""
        if self.verdict is None or not self.verdict.time.at_level:
            return 100.0 / self.ratio, None, None
        t = self.verdict.time   # its bounds as stored; the estimate in full (`ratio`)
        return 100.0 / self.ratio, 100.0 / t.hi, 100.0 / t.lo

    def speed(self) -> tuple[float, float | None, float | None]:
        """The subject's speed over the reference's (reference time / subject time), with the interval."""
        pct, lo, hi = self.pct()
        return pct / 100, lo / 100 if lo is not None else None, hi / 100 if hi is not None else None

    def to_json(self) -> dict:
        # the ratio in full: a page and a README that print one digit of it must read the same number
        out = {"relation": self.relation, "problem": self.problem.to_json(), "subject": list(self.subject),
               "reference": list(self.reference), "ratio": self.ratio,
               "verdict": self.verdict.to_json() if self.verdict else None}
        return out | ({"pack_ms": self.pack_ms, "pack_on": self.pack_on} if self.pack_ms else {})

    @classmethod
    def from_json(cls, data: dict) -> Comparison:
        return cls(Relation(data["relation"]), Problem.from_json(data["problem"]), KernelImpl(*data["subject"]),
                   KernelImpl(*data["reference"]), float(data["ratio"]),
                   Verdict.from_json(data["verdict"]) if data.get("verdict") else None, data.get("pack_ms"),
                   str(data.get("pack_on", "subject")))


# A cause that plausibly explains less than this share of the slower kernel's time is not said as one.
MIN_WEIGHT = 0.02
CAUSE_KINDS = ("counter", "compiled", "ablation")


@dataclass(frozen=True)
class Cause:
    """One quantity measured on both sides of a pair, and the side whose value is the better one."""

    quantity: str                  # a counter's key, a compiled fact's name, or the setting an ablation changes
    kind: str                      # "counter" | "compiled" | "ablation"
    faster: float | str            # the faster side's value
    slower: float | str            # the slower side's value
    favours: str                   # "faster" | "slower": the side with the better value
    weight: float                  # the share of the slower kernel's time it plausibly explains (0: none it can)
    # the further measured facts its sentence names: the DRAM floor, the SASS counts, the occupancy's limiter
    detail: dict = field(default_factory=dict)

    @property
    def points_with_speed(self) -> bool:
        return self.favours == "faster"

    @property
    def cause(self) -> bool:
        """Said as a "because": it favours the faster side and could explain a share of the gap worth naming (an
        occupancy without counters saying the slower kernel waits on latency, or a few spilled bytes, cannot)."""
        return self.points_with_speed and self.weight >= MIN_WEIGHT

    def to_json(self) -> dict:
        return {"quantity": self.quantity, "kind": self.kind, "faster": self.faster, "slower": self.slower,
                "favours": self.favours, "weight": float(f"{self.weight:.6g}"), "detail": self.detail}

    @classmethod
    def from_json(cls, data: dict) -> Cause:
        if data["kind"] not in CAUSE_KINDS or data["favours"] not in ("faster", "slower"):
            raise ValueError(f"not a cause: {data}")
        return cls(str(data["quantity"]), str(data["kind"]), data["faster"], data["slower"], str(data["favours"]),
                   float(data["weight"]), dict(data.get("detail") or {}))


@dataclass
class Analysis:
    source: str                                   # the results file's name
    comparisons: list[Comparison] = field(default_factory=list)
    source_bytes: int | None = None               # its size when analysed: a file grown since (--resume) is stale
    mapping: ProvenMapping | None = None          # None: not proven (`rosetta analyse` proves it)
    # harness/analysis/findings.py's typed findings (as JSON where read from a file: findings.recorded() types them);
    # None: a record from before findings were recorded
    findings: list | None = None
    catalog: Catalog | None = None                # the catalog it was analysed with (None: before records kept it)
    version: int = VERSION                        # the analysis that wrote it (1: before versions were kept)
    method: str | None = METHOD                   # the verdicts' method that made it (None: before records kept it)
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for c in self.comparisons:
            self._index.setdefault((c.relation, c.subject_key), []).append(c)

    def of(self, result: Result, relation: Relation) -> list[Comparison]:
        """The comparisons of `relation` whose subject is this result."""
        return self._index.get((relation, result.key), [])

    def one(self, result: Result, relation: Relation) -> Comparison | None:
        found = self.of(result, relation)
        return found[0] if found else None

    def where(self, relation: Relation) -> list[Comparison]:
        return [c for c in self.comparisons if c.relation == relation]

    def between(self, subject: RowKey, reference: RowKey) -> Comparison | None:
        """The comparison the record keeps of two results the file does not pair by itself ("between")."""
        return next((c for c in self._index.get(("between", subject), []) if c.reference_key == reference), None)

    def add(self, found: list[Comparison]) -> None:
        for c in found:
            self.comparisons.append(c)
            self._index.setdefault((c.relation, c.subject_key), []).append(c)

    def to_json(self) -> dict:
        return {"record": "analysis", "version": self.version, "source": self.source,
                "source_bytes": self.source_bytes, "comparisons": [c.to_json() for c in self.comparisons],
                "mapping": self.mapping.to_json() if self.mapping is not None else None,
                "findings": [f if isinstance(f, dict) else f.to_json() for f in self.findings]
                if self.findings is not None else None,
                "catalog": self.catalog.to_json() if self.catalog is not None else None, "method": self.method}

    @classmethod
    def from_json(cls, data: dict) -> Analysis:
        if data.get("record") != "analysis":
            raise ValueError("not an analysis record")
        return cls(str(data["source"]), [Comparison.from_json(c) for c in data.get("comparisons") or []],
                   data.get("source_bytes"),
                   ProvenMapping.from_json(data["mapping"]) if data.get("mapping") is not None else None,
                   list(data["findings"]) if data.get("findings") is not None else None,
                   Catalog.from_json(data["catalog"]) if data.get("catalog") else None, int(data.get("version", 1)),
                   data.get("method"))

    def write(self, path: Path) -> Path:
        path.write_text(json.dumps(self.to_json(), indent=None, separators=(",", ":")) + "\n")
        return path


def analysis_path(results_path: Path) -> Path:
    return results_path.with_name(results_path.stem + ".analysis.json")


def read_beside(results_path: Path) -> Analysis | None:
    """The record written beside a results file, where it is there and the file has not changed since."""
    path = analysis_path(results_path)
    if not path.exists():
        return None
    try:
        an = Analysis.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, KeyError, TypeError):
        return None
    if an.source_bytes != results_path.stat().st_size:
        return None
    # made by another analysis or verdicts of another method: made again (`remade`)
    return an if (an.version, an.method) == (VERSION, METHOD) else remade(an, load(results_path))


def remade(old: Analysis, results: Results) -> Analysis:
    """An older analysis's record made again by today's rules: its comparisons from the file, its findings left to be
    found (findings.recorded), its proven mapping and its catalog kept (proving needs a compiler; the page has none)."""
    new = analyse(results.results, old.source, old.catalog or catalog_of(results.header))
    new.source_bytes, new.mapping = old.source_bytes, old.mapping
    return new


def b_layout(r: Result) -> str:
    """How a record reads B: its kernel's layout, a baseline's by its name."""
    facts = r.kernel_facts
    return facts.b_layout if facts is not None else b_layout_of(r.impl)


def _with_pack(s: Samples, pack_ms: float) -> Samples:
    """The runs with a constant pack time added to each: no clock (the pack ran outside the windows read)."""
    return Samples([ms + pack_ms for ms in s.ms], [None] * len(s.ms), s.per_round, s.order, s.batch, s.max_mhz)


def pair(relation: Relation, subject: Result, reference: Result, pack: bool = True) -> Comparison | None:
    """The comparison of two timed results (None where either was not timed). Where one side reads B K-major and the
    other row-major, the K-major side's pack time is added to each of its runs (`pack`: unless asked not to; a record
    without a pack time is compared as it ran)."""
    if not (subject.timed and reference.timed):
        return None
    layout = b_layout(subject)
    on = "" if layout == b_layout(reference) else "subject" if layout == "kmajor" else "reference"
    pack_ms = (subject if on == "subject" else reference).pack_ms if pack and on else None
    a, b = subject.timing.samples, reference.timing.samples
    ma, mb = subject.timing.median_ms, reference.timing.median_ms
    if pack_ms and on == "subject":
        a, ma = _with_pack(a, pack_ms) if a else a, ma + pack_ms
    elif pack_ms:
        b, mb = _with_pack(b, pack_ms) if b else b, mb + pack_ms
    verdict = compare(a, b, margin_for(subject.precision, reference.precision)) if a and b else None
    return Comparison(relation, subject.problem, subject.kernel_impl, reference.kernel_impl,
                      verdict.time.ratio if verdict else ma / mb, verdict, pack_ms or None, on or "subject")


def aa(result: Result) -> Comparison | None:
    """The A/A control of one result: its second entry against its first."""
    if not result.timed or result.timing.samples is None or result.timing.aa is None:
        return None
    verdict = compare(result.timing.aa, result.timing.samples, margin_for(result.precision))
    return Comparison(Relation.AA, result.problem, result.kernel_impl, result.kernel_impl,
                      verdict.time.ratio, verdict)


def today() -> Catalog:
    """Today's catalog: for a file whose record did not keep the one it was analysed with, and for a new record."""
    from harness.catalog import CATALOG  # the catalog's modules: only where no record holds its tables

    return CATALOG


def catalog_of(header: RunHeader) -> Catalog:
    """The catalog a file is analysed with: today's, and the user's own pairs the run declared, as its header keeps
    them (harness/pairs), so that they are drawn as they were run wherever the file is read."""
    return today().with_declared(header.pairs) if header.pairs else today()


def analyse(results: Iterable[Result], source: str, catalog: Catalog | None = None) -> Analysis:
    """Every comparison within one file, with the catalog's ladders (today's unless given)."""
    catalog = catalog or today()
    by_problem: dict[Problem, list[Result]] = {}
    for r in results:
        if r.timed:
            by_problem.setdefault(r.problem, []).append(r)
    out: list[Comparison | None] = []
    for rows in by_problem.values():
        by_impl = {r.kernel_impl: r for r in rows}
        for r in rows:
            cublas = by_impl.get((None, cublas_of(r.precision)))
            facts = r.kernel_facts
            if facts is not None and facts.b_layout == "kmajor":
                same = by_impl.get((None, cublas_of(r.precision, "kmajor")))
                reads = [pair(Relation.CUBLAS_LAYOUT, r, same) if same is not None else None,
                         *((pair(Relation.CUBLAS_PACKED, r, cublas), pair(Relation.CUBLAS_ALONE, r, cublas, pack=False))
                           if cublas is not None else ())]
                out += reads
                first = next((c for c in reads if c is not None), None)
                out.append(replace(first, relation="cublas") if first is not None else None)
            elif cublas is not None and cublas is not r:
                out.append(pair(Relation.CUBLAS, r, cublas))
            forms: tuple[tuple[Relation, str], ...] = ()   # the same kernel's other forms a row is set against
            if r.impl_id.is_triton and r.kernel is not None:
                tutorial = by_impl.get((None, triton_baseline_of(r.precision) or ""))
                if tutorial is not None:
                    out.append(pair(Relation.TRITON_BASELINE, r, tutorial))
                forms = ((Relation.COUNTERPART, "cuda"), (Relation.MODEL, f"gluon:{GLUON_MIRROR}"))
            if r.impl_id.is_gluon and r.kernel is not None:
                forms = ((Relation.GLUON, "cuda"),)
            for relation, impl in forms:
                other = by_impl.get((r.kernel, impl))
                # within one class only: a bf16 split on a 3xTF32 kernel's entry is not its CUDA kernel's counterpart
                if other is not None and other.precision == r.precision:
                    out.append(pair(relation, r, other))
            out.append(aa(r))
            out.append(beside(r, by_impl, catalog))
        out += steps(rows, catalog)
    return Analysis(source, [c for c in out if c is not None], catalog=catalog)


def beside(r: Result, by_impl: dict[tuple, Result], catalog: Catalog) -> Comparison | None:
    """A user's pair's row against the catalog kernel it was declared beside, in the same model and class."""
    kernel = catalog.by_id.get(r.kernel or "")
    other = catalog.by_id.get(kernel.beside) if kernel is not None and kernel.beside else None
    if other is None or r.impl_id.is_build_study:
        return None
    form = next((c.name for c in other.counterparts if not c.deliberately_different), None)
    impl = "cuda" if r.impl_id.is_cuda else f"triton:{form}" if form else ""
    reference = by_impl.get((other.id, impl))
    return pair(Relation.BESIDE, r, reference) if reference is not None and reference.precision == r.precision else None


def rung_records(rows: list[Result], lad: Ladder, model: str, catalog: Catalog) -> list[Result | None]:
    """The record that stands for each rung of a ladder in one model: the fastest of the rung's timed records."""
    out: list[Result | None] = []
    for rung in lad.rungs:
        ids = {k.id for k in rung}
        found = [r for r in rows if r.kernel in ids and r.precision == lad.precision and r.timed
                 and _stands(r, model, lad, catalog)]
        out.append(min(found, key=lambda r: r.timing.median_ms) if found else None)
    return out


def _stands(r: Result, model: str, lad: Ladder, catalog: Catalog) -> bool:
    """Whether a record stands for its rung in a model: the CUDA kernel, a Triton form the ladder takes, the Gluon
    mirror."""
    if model != "triton":
        return r.impl == ("cuda" if model == "cuda" else f"gluon:{GLUON_MIRROR}")
    kernel = catalog.by_id.get(r.kernel or "")
    form = r.impl_id.form
    return kernel is not None and form is not None and any(c.name == form and lad.stands(c)
                                                           for c in kernel.counterparts)


def steps(rows: list[Result], catalog: Catalog) -> list[Comparison | None]:
    """Each rung against the last rung before it that was timed, in each model, on every ladder."""
    out: list[Comparison | None] = []
    for lad in catalog.ladders:
        for model in ("cuda", "triton", "gluon"):
            before = None
            for r in rung_records(rows, lad, model, catalog):
                if r is None:
                    continue
                if before is not None:
                    out.append(pair(Relation.STEP, r, before))
                before = r
    return out


def across(before: Iterable[Result], after: Iterable[Result], source: str) -> Analysis:
    """Every implementation timed in both files: the later file's against the earlier's ("runs")."""
    earlier = {r.key: r for r in before if r.timed}
    out = [pair(Relation.RUNS, r, earlier[r.key]) for r in after if r.timed and r.key in earlier]
    return Analysis(source, [c for c in out if c is not None])
