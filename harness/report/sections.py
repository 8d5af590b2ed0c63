"""One section per idea: the seed's point, what was measured (generated), the sources once, the mapping, the compiled
resources of both kernels and the figures against cuBLAS beside the published ones.

The mapping is an idea's claims as a table: each decision in CUDA and in Triton, who decides it in Triton, and whether
its predicate holds on every kernel of the idea, as the file's analysis record proved it (harness/analysis/mapping.py).
Nothing is compiled here: where the record has no proof of the idea, the claims' text is shown and says so."""

from __future__ import annotations

from collections.abc import Callable

from harness.analysis.claims import published_pct, unroll_check
from harness.analysis.compiled import compiled_records
from harness.analysis.findings import recorded
from harness.analysis.measured import LayoutRead, Measured
from harness.analysis.model_findings import ModelOrCompiler, Why
from harness.analysis.overview import ideas_of, triton_modules
from harness.analysis.proven import Row
from harness.analysis.record import Comparison
from harness.analysis.relations import Relation
from harness.analysis.steps import hopper_ideas
from harness.analysis.verdicts import LEVEL, Call
from harness.baselines import KMAJOR_TEXT
from harness.catalog_types.idea import COMPILER, Idea
from harness.catalog_types.kernel import Kernel
from harness.catalog_types.tables import DECISIONS, Catalog
from harness.records.lines import Result
from harness.report import anchors, fmt, metrics, wording
from harness.report.cause_words import NO_CAUSE, phrase, said
from harness.report.compiled import missing_text, sass_table
from harness.report.doc import Bullets, Inline, Mono, Para, Section, SourcePair, Table, TableBlock
from harness.report.findings import between_text, ran, short
from harness.report.metrics import Metric, call_style, launch_text, ran_text, why_no_figures
from harness.report.sources import SourcePlanner
from harness.report.splits import splits_table
from harness.report.steps import HOPPER_TITLE, counters_table, hopper_steps_table
from harness.report.tables import table
from harness.report.wording import PRECISION_TEXT, pct_of, published_text, who

# ---------------------------------------------------------------------------------------------- the mapping
_SIDE = {"cuda": "CUDA", "triton": "Triton", "gluon": "Gluon"}


def _decider(v: str) -> str:
    return "by-compiler" if v == COMPILER else "by-programmer"


def _proof(row: Row) -> tuple[str, str] | None:
    """'✓ n of n' and the checks, or what does otherwise and on which compiler; None where nothing was checked."""
    if not row.verdicts:
        return None
    failed = [v for v in row.verdicts if not v.holds]
    checks = "\n".join(dict.fromkeys(f"{_SIDE[v.side]}: {v.check}" for v in row.verdicts if v.check))
    if failed:  # which compiler made the code that does otherwise, and what it does (Verdict.changed)
        return "\n".join(f"✗ {v.changed}" for v in failed[:3]) + ("\n…" if len(failed) > 3 else "") + "\n" + checks, \
            "bad"
    return f"✓ {len(row.verdicts)} of {len(row.verdicts)}\n" + checks, "ok-text"


MAPPING: list[Metric[Row]] = [
    Metric("decision", lambda m, r: r.decision, num=False),
    Metric("CUDA", lambda m, r: r.cuda, num=False),
    Metric("Triton", lambda m, r: r.triton, num=False),
    Metric("in Triton, decided by", lambda m, r: r.decided_by, num=False, style=_decider,
           legend="decided by: who makes the decision in that model, the programmer (in the kernel text or its "
                  "launch settings) or the compiler (from the layouts it chooses)."),
    Metric("Gluon", lambda m, r: r.gluon or None, num=False, optional=True,
           legend="Gluon: the same decision in the kernel's Gluon form, Triton's layout-level language, where the "
                  "programmer writes what Triton's compiler decides from a tl.dot (its check read on Gluon's "
                  "compiled code like the others)."),
    Metric("in Gluon, decided by", lambda m, r: r.gluon_decided_by or None, num=False, style=_decider,
           optional=True),
    Metric("checked on the compiled kernels", lambda m, r: _proof(r) or ("not checked", "muted"), lambda v: v[0],
           num=False, style=lambda v: v[1]),
]


# ---------------------------------------------------------------------------------------------- an idea's kernels
def _document(m: Measured, k: Kernel) -> str:
    if k.seed:
        return f"{k.seed} {wording.seed_title(m.catalog, k.seed)}\n{wording.section_title(m.catalog, k.section)}"
    return f"its user's own\n{k.section}" if k.declared else f"tile-rosetta's own\n{k.section}"


def _forms(m: Measured, k: Kernel) -> str:
    """Each Triton counterpart and Gluon form with its launch (as it ran) and what departs from the CUDA kernel."""
    triton = [f"{c.name} ({c.file or c.module}): {launch_text(m, k, c)}" + "".join(f"\n  deviation: {n}"
                                                                                  for n in c.deviation_notes())
              for c in k.counterparts]
    gluon = [f"gluon {g.name} (kernels_gluon/{g.module}.py): the CUDA kernel's decisions"
             + "".join(f"\n  deviation: {n}" for n in g.deviation_notes()) for g in k.gluon]
    return "\n".join([*triton, *gluon])


def _beta0(k: Kernel) -> tuple[str, str]:
    if k.op == "sgemv":
        return "n/a", "muted"
    if k.reads_c_when_beta_zero:
        return "reads C (declared)", "warn"
    return ("honours" if k.computes_alpha_beta else "honours (C = A·B)"), "ok"


KERNELS: list[Metric[Kernel]] = [
    Metric("kernel", lambda m, k: k.id, num=False, code=True),
    Metric("document · section", _document, num=False),
    Metric("threads · tile", lambda m, k: f"{'×'.join(map(str, k.block[:2]))} = {k.threads} · "
           + (f"{k.tile_m}×{k.tile_n} outputs" if k.tile_n else fmt.plural(k.tile_m, "row")),
           num=False),
    Metric("Triton and Gluon counterparts: settings", _forms, num=False),
    Metric("preconditions", lambda m, k: "\n".join(c.text for c in k.preconditions), num=False),
    Metric("beta = 0", lambda m, k: _beta0(k), lambda v: v[0], num=False, style=lambda v: v[1]),
    Metric("published (document's GPU)", lambda m, k: published_text(k.published)
           + (f" ({m.catalog.seeds[k.seed].gpu})" if k.seed else "") if k.published else None, num=False),
]


# ---------------------------------------------------------------------------------------------- what each model costs
def _cost(model: str) -> Callable[[Measured, Kernel], tuple[int, int] | None]:
    return lambda m, k: m.catalog.costs.get(k.id, {}).get(model)


COSTS: list[Metric[Kernel]] = [
    Metric("kernel", lambda m, k: k.id, num=False, code=True),
    *(Metric(name, _cost(model), lambda v: f"{v[0]} lines · {v[1]} of {len(DECISIONS)}",
             legend="CUDA, Triton, Gluon: lines of kernel code (no comments, docstrings or blank lines: CUDA the "
                    ".cu with the headers it includes, Triton the plain counterpart's module, Gluon the mirror's "
                    "module and the kernels_gluon modules it imports) · the kinds of decision its source states, of "
                    f"the {len(DECISIONS)} a GEMM kernel here makes ({', '.join(DECISIONS)}); a kind its compiler "
                    "decides has no mark in its source." if model == "cuda" else "")
      for model, name in (("cuda", "CUDA"), ("triton", "Triton"), ("gluon", "Gluon"))),
]


# ---------------------------------------------------------------------------------------------- B's layout
def _pct_of(c: Comparison) -> str:
    return f"{fmt.pct_ci(*c.pct())} {fmt.call(c.call)}"


LAYOUT: list[Metric[LayoutRead]] = [
    Metric("kernel", lambda m, row: row.result.kernel, num=False, code=True),
    Metric("implementation", lambda m, row: row.result.label, num=False),
    Metric("class", lambda m, row: PRECISION_TEXT.get(row.result.precision, row.result.precision), num=False),
    Metric("kernel ms", lambda m, row: row.result.timing.median_ms if row.result.timing else None, fmt.ms),
    Metric("pack ms", lambda m, row: (row.pack_ms, row.pack_share) if row.pack_ms else None,
           lambda v: fmt.ms(v[0]) + (f" ({fmt.pct(100 * v[1])} of the kernel's)" if v[1] else ""),
           legend="pack ms: the median time to write B^T (K-major) from the suite's row-major B before the kernel "
                  "runs, timed on its own, and its share of the kernel's own median time."),
    Metric(f"alone: % {KMAJOR_TEXT}", lambda m, row: row.same_layout, _pct_of, style=call_style,
           legend=f"alone: % {KMAJOR_TEXT}: the kernel's time alone against cuBLAS of its class given B as the "
                  "kernel reads it (B^T stored, cuBLAS TN); with the pack: the pack's median time added to each of "
                  "the kernel's runs, against cuBLAS on row-major B (NN), what a caller holding row-major B waits "
                  f"for; alone: % NN, as every % of cuBLAS on the page. Each with its {LEVEL:.0%} interval and the "
                  "call."),
    Metric("with the pack: % NN", lambda m, row: row.packed, _pct_of, style=call_style),
    Metric("alone: % NN", lambda m, row: row.alone, _pct_of, style=call_style),
]

def provenance(catalog: Catalog, kernels: list[Kernel]) -> list[Inline]:
    places: dict[str | None, dict[str, None]] = {}   # each seed's sections, in the kernels' order
    for k in kernels:
        places.setdefault(k.seed, {})[k.section] = None
    parts: list[Inline] = ["From "]
    for i, (seed, sections) in enumerate(places.items()):
        parts.append("; " if i else "")
        if seed is None and any(k.declared for k in kernels):
            parts.append(f"its user's own pair, {'; '.join(sections)}")
        elif seed is None:
            parts.append(f"tile-rosetta's own step{'s' if len(sections) > 1 else ''} ({'; '.join(sections)})")
        else:
            titles = fmt.joined([wording.section_title(catalog, s) for s in sections])
            parts.append(f"seed {seed} {wording.seed_title(catalog, seed)}, "
                         f"section{'s' if len(sections) > 1 else ''} {titles}")
    parts.append(".")
    return parts


def measured_paragraph(m: Measured, idea: Idea, kernels: list[Kernel]) -> list[Inline]:
    problem = m.headline(kernels[0].op)
    parts: list[Inline] = []
    for precision in m.precisions(kernels, problem) if problem else []:
        assert problem is not None
        cuda, tri = m.bests(kernels, problem, precision)
        if cuda:
            parts += [f"On {problem.label} the best CUDA kernel of this idea, ", *who(cuda.result),
                      f", runs at {pct_of(m, cuda.vs_cublas) if cuda.vs_cublas else fmt.pct(cuda.pct)}"]
        c = m.between(tri.result, cuda.result) if cuda and tri else None
        if tri:
            parts += ["; the best Triton, " if cuda else f"On {problem.label} the best Triton, ", *who(tri.result),
                      ran(m, tri.result), f", at {fmt.pct_ci(*tri.interval)}"
                      + (wording.pack(tri.vs_cublas) if tri.vs_cublas else "")]
        if cuda and tri:
            parts.append(": " + between_text(m, c, short(tri.result), short(cuda.result)))
        found = next((f for f in recorded(m) if isinstance(f, Why) and f.idea == idea.key
                      and f.precision == precision), None)
        if cuda and tri and found is not None and c is not None:
            # a "because" only for a difference the rounds decided, as the analysis found it
            lead, trail = (tri, cuda) if c.call is Call.FAST else (cuda, tri)
            names = (short(lead.result), short(trail.result))
            why = said(found.stated, names)
            against = phrase(found.against, names) if found.against else None
            parts.append(f"; what favours the faster: {why}" + (f"; against it, {against}" if against else "")
                         if why else f"; {NO_CAUSE}")
        parts.append(". ")
    if not parts:
        parts.append("No implementation of this idea was timed in this run. ")
    # a user's own pair beside the catalog kernel it was declared beside: the analysis's "beside" verdicts
    ids = {k.id for k in kernels if k.beside}
    for r in (r for r in m.all if r.kernel in ids and r.problem == problem):
        if (c := m.vs(r, Relation.BESIDE)) is not None:
            parts.append(f"On {r.problem.label}, " + wording.sentence(c, f"{r.kernel} [{r.impl}]",
                                                                      f"{c.reference[0]} [{c.reference[1]}]") + ". ")
    for k in kernels:
        pct = published_pct(k, m.catalog)
        ours = m.seed_record(k.id)
        if k.published is None or k.seed is None:
            continue
        mine = m.interval(ours) if ours else None
        parts += [f"Seed {k.seed} published {published_text(k.published)}"
                  + (f" ({fmt.pct(pct)} of its cuBLAS)" if pct is not None and k.published.pct_cublas is None else "")
                  + " for ", Mono(k.id), f" on its {m.catalog.seeds[k.seed].gpu}"
                  + (f"; here {fmt.pct_ci(*mine)} of cuBLAS. " if mine is not None and mine[0] is not None else ". ")]
    check = unroll_check(m)
    if check is not None and check.fast.timing and check.slow.timing and check.claim.fast in {k.id for k in kernels}:
        times = f"{fmt.ms(check.fast.timing.median_ms)} against {fmt.ms(check.slow.timing.median_ms)} ms"
        here = (f"at {times}, {between_text(m, check.speed, 'the CUDA unrollable form', 'the tid form')}"
                if check.speed is not None else f"the CUDA ratio is {fmt.times(check.ratio)} ({times})")
        parts += [f"Seed {check.claim.seed} says the unrollable form is '{check.claim.words}' faster than the tid "
                  f"form; here, {here}. "]
    return parts


def shared_note(m: Measured, idea: Idea, kernels: list[Kernel]) -> list[Inline]:
    """Say it plainly where this idea's Triton side is the kernel of other ideas with other settings (as they ran)."""
    parts: list[Inline] = []
    mine = {c.module for k in kernels for c in k.counterparts}
    for module, pairs in triton_modules(m.kernels).items():
        others = [i for i in ideas_of(pairs) if i != idea.key]
        if module not in mine or not others:
            continue
        parts += [Mono(f"kernels_triton/{module}.py"), " is the same Triton kernel as in "]
        for i, key in enumerate(others):
            parts += [", " if i else "", wording.idea_link(m.catalog, key)]
        problem = m.headline(kernels[0].op)
        ran_here = [r for k, c in pairs if k in kernels for r in m.of_kernel(k.id, f"triton:{c.name}")
                    if r.timed and r.problem == problem]
        settings = list(dict.fromkeys(text for r in ran_here if (text := ran_text(m, r))))
        parts.append(": only its launch settings differ" + (f" (here it ran {fmt.joined(settings)})" if settings
                                                             else "") + ". ")
    return parts


def _published(m: Measured, r: Result) -> str | None:
    kernel = m.catalog.by_id.get(r.kernel or "")
    if not r.impl_id.is_cuda or kernel is None or kernel.published is None or not kernel.seed:
        return None
    pct = published_pct(kernel, m.catalog)
    return published_text(kernel.published) + (f" = {fmt.pct(pct)} of cuBLAS" if pct is not None and
                                               kernel.published.pct_cublas is None else "")


PUBLISHED: Metric[Result] = Metric("published, document's GPU", _published, num=False, optional=True)


def measured_table(m: Measured, kernels: list[Kernel]) -> Table:
    ids = {k.id for k in kernels}
    records = [r for p in m.problems for r in m.on(p) if r.kernel in ids]
    return table(m, [*metrics.MEASURED, PUBLISHED], records, "measured", why_no_figures,
                 lambda r: f"status-{r.status.value}", kernels[0].op)


# What the page says where the record holds no proof of an idea (its analysis was written without one).
UNPROVEN = "not proven in this file's analysis (`rosetta analyse FILE` proves them)"


def mapping_rows(idea: Idea, m: Measured) -> tuple[list[Row], str]:
    """The rows as the record proved them, or the claims' text with a sentence saying why they are not proven."""
    proven = m.analysis.mapping
    if proven is not None and idea.key in proven.rows:
        return proven.rows[idea.key], ""
    if idea.key not in m.catalog.claims:  # an idea with no claims written
        return [], ""
    text = [Row(c.decision, c.cuda, c.triton, c.decided_by, gluon=c.gluon, gluon_decided_by=c.gluon_decided_by)
            for c in m.catalog.claims[idea.key]]
    if proven is not None and idea.key in proven.unproven:
        return text, f"not proven ({proven.unproven[idea.key]})"
    return text, UNPROVEN


def mapping_table(idea: Idea, m: Measured) -> Table:
    found, unproven = mapping_rows(idea, m)
    out = table(m, MAPPING, found, "mapping")
    if out:
        where = sorted({v.where for row in found for v in row.verdicts if v.where})
        out.notes.append("checked: each row's predicate evaluated on every kernel of the idea in the registry, CUDA "
                         "and each Triton and Gluon form, when the file was analysed"
                         + (f" ({'; '.join(where)})" if where else "")
                         + "; n of n = the verdicts that hold." + (f" Rows {unproven}." if unproven else ""))
    return out


def idea_section(m: Measured, idea: Idea, kernels: list[Kernel], planner: SourcePlanner) -> Section:
    anchor = anchors.idea(idea.key)
    s = Section(anchor, idea.title, 3)
    s.add(Para([idea.lesson], cls="lesson"), Para(provenance(m.catalog, kernels), cls="provenance"))
    s.add(Para(measured_paragraph(m, idea, kernels) + shared_note(m, idea, kernels), cls="measured"))
    s.add(TableBlock(table(m, KERNELS, kernels, "kernels"), "Kernels"))
    notes = [[Mono(k.id), f": {k.notes}"] for k in kernels if k.notes]
    if notes:
        s.add(Bullets(notes, cls="notes"))
    s.add(SourcePair(planner.cuda(kernels, anchor, idea.title), planner.triton(kernels, anchor, idea.title)))
    mapping = mapping_table(idea, m)
    if mapping:
        s.add(TableBlock(mapping, "Each tiling decision in each model"))
    split = splits_table(m, [f.split for f in recorded(m) if isinstance(f, ModelOrCompiler) and f.split is not None
                             and f.idea == idea.key])
    if split:
        # folded: the same splits stand unfolded under the findings, one a rung
        s.add(TableBlock(split, "Model or compiler: the CUDA-Triton gap split by the Gluon column", folded=True))
    costs = table(m, COSTS, [k for k in kernels if k.id in m.catalog.costs], "costs")
    if costs:
        s.add(TableBlock(costs, "What each model costs to write", folded=True))
    records, missing = compiled_records(m, [k.id for k in kernels])
    if records:
        # what each implementation ran with and was allotted, as its record says
        s.add(TableBlock(table(m, metrics.RESOURCES, records, "resources"), "Compiled resources"))
        sass = sass_table(records)
        if sass:
            s.add(TableBlock(sass, "SASS instruction mix"))
    if missing:
        s.add(Bullets([[missing_text(u)] for u in missing], cls="notes"))
    counters = counters_table(m, kernels)
    if counters:
        s.add(TableBlock(counters, "Hardware counters: why each implementation runs where it does"))
    if idea.key in hopper_ideas(m):
        steps = hopper_steps_table(m)
        if steps:
            s.add(TableBlock(steps, HOPPER_TITLE))
    s.add(TableBlock(measured_table(m, kernels), "Measured, beside the published figures"))
    return s
