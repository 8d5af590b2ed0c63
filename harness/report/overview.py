"""The compact tables under the findings: the headline, per idea, the shared Triton kernels, fp32 work on the tensor
cores, and the documents' figures beside ours (the rows: harness/analysis/overview.py, fp32_work.py and claims.py).

The fp32-class table holds every implementation the accuracy chart draws (for_fp32_work: cuBLAS fp32 and TF32, the
SIMT summit, the 3xTF32 rows, Triton's bf16 splits, the Triton tutorial of each fp32 class) on each sgemm problem of a
run, with its speed and interval against cuBLAS fp32, its call, its registers, and its worst error on every numerics
layer beside cuBLAS fp32's on the same inputs. An error cell reads "6.2e-07 (0.35x)": the larger of the normwise and
componentwise errors on that layer, and its ratio to cuBLAS fp32's larger one there. A row is fp32-accurate when its
class says so (registry PRECISION_CLASSES); a bf16x3 row is labelled as not fp32-accurate and held to its own bound."""

from __future__ import annotations

from harness.analysis.claims import Claim, claims_table, stride_occupancy, stride_sweep, unroll_check
from harness.analysis.fp32_work import ERROR_LAYERS, fp32_rows, layer_error
from harness.analysis.measured import Measured
from harness.analysis.overview import headline_rows, idea_rows, shared_modules
from harness.catalog_types.kernel import PRECISION_CLASSES, Published, precision_label
from harness.records.lines import Result
from harness.report import anchors, fmt, wording
from harness.report.doc import Cell, Inline, Mono, Table
from harness.report.wording import PRECISION_TEXT, baseline_label, config_text


def _rank_text(c: Claim | None) -> str:
    if c is None or c.rank_ours is None:
        return "—"
    if not c.changed:
        return f"same: {c.rank_ours} of {c.ranked}"
    return f"{c.rank_ours} of {c.ranked} here, {c.rank_doc} in the document"


def _rate(r, op: str) -> str:
    if r.figures is None:
        return "—"
    return f"{fmt.tflops(r.figures.tflops)} TFLOP/s" if op == "sgemm" else f"{fmt.gbps(r.figures.gbps)} GB/s"


def headline_table(m: Measured) -> Table:
    """Per op and precision class on its headline problem: the best CUDA kernel, the best Triton one, cuBLAS."""
    # Two lines a row (the figure, then in small type what it belongs to), so the table and the ladder chart
    # under it fit the first screen.
    table = Table([("op · problem · class", False), ("best CUDA", True), ("best Triton", True),
                   ("Triton vs CUDA", True), ("best Triton vs Triton tutorial", True), ("cuBLAS", True)],
                  cls="headline")
    for row in headline_rows(m):
        precision, op = row.precision, row.op
        cells = [Cell(f"{op} {row.problem.shape_label}",
                      sub=PRECISION_TEXT.get(precision, precision) + f" vs {baseline_label(precision)}")]
        for best in (row.cuda, row.triton):
            named = best.kernel if best and best.result.impl_id.is_cuda else \
                f"{best.result.label}: {best.kernel}" if best else ""
            cells.append(Cell(fmt.pct_ci(*best.interval), num=True, sub=f"{_rate(best.result, op)} · {named}",
                              href=anchors.href(anchors.kernel(best.kernel)),
                              cls="ok" if best.pct >= 100 else "") if best else Cell("—", num=True, cls="muted"))
        cells.append(_verdict_cell(row.triton_vs_cuda))
        tutorial = row.tutorial
        cells.append(_verdict_cell(tutorial, m.reference(tutorial).label + " at "
                                   + fmt.pct_ci(*m.interval(m.reference(tutorial))) if tutorial else ""))
        cells.append(Cell(_rate(row.cublas, op), num=True, sub=row.cublas.label))
        table.add(cells)
    table.notes.append("Each op's headline problem. %: of the cuBLAS of the same precision class (with its rate), "
                       "same timer, 95% interval from the interleaved rounds. Ratios: speed ratio, interval and call "
                       "(faster or slower only where the rounds decide it, a tie within the margin, else undecided).")
    return table


def _verdict_cell(c, sub: str = "") -> Cell:
    if c is None:
        return Cell("—", num=True, cls="muted")
    return Cell(f"{wording.speed(c)} · {wording.relation(c)}", num=True, sub=sub,
                cls={"FAST": "ok", "SLOW": "warn"}.get(c.call.value if c.call else "", ""))


def idea_table(m: Measured) -> Table:
    table = Table([("idea", False), ("compared with", False), ("best CUDA", True),
                   ("best Triton", True), ("Triton / CUDA", True), ("published", True), ("rank here · document",
                                                                                          False)], cls="ideas")
    for row in idea_rows(m):
        cuda, tri, claim, precision = row.cuda, row.triton, row.claim, row.precision
        pub = (fmt.pct(claim.published_pct) if claim and claim.published_pct is not None
               else published_text(claim.published) if claim else "—")
        table.add([
            Cell(row.idea.title, href=anchors.href(anchors.idea(row.idea.key))),
            Cell(baseline_label(precision) + ("" if precision == "fp32" else
                                              f" ({PRECISION_TEXT.get(precision, precision)} rows)")),
            Cell(fmt.pct_ci(*cuda.interval) if cuda else "—", num=True, sub=cuda.kernel if cuda else ""),
            Cell(fmt.pct_ci(*tri.interval) if tri else "—", num=True,
                 sub=f"{tri.result.label}: {tri.kernel}" if tri else ""),
            _verdict_cell(row.triton_vs_cuda),
            Cell(pub, num=True, sub=f"{claim.kernel.id} · {claim.seed.gpu}" if claim else ""),
            Cell(_rank_text(claim), cls="nowrap")])
    headline = [p.label for op in m.ops if (p := m.headline(op))]
    table.notes += [
        f"Measured on {fmt.joined(headline) or 'no timed problem'}: each op's headline problem (the seeds' 4096³ "
        "for sgemm, else the problem most implementations were timed on).",
        "best CUDA / best Triton: the fastest implementation of the idea on that problem, as % of "
        "the cuBLAS of its precision class (fp32 and 3xTF32 against cuBLAS fp32, TF32 against cuBLAS TF32), with "
        "its 95% interval; Triton / CUDA: the best Triton's speed over the best CUDA's, its interval and the call.",
        "published: the document's own % of its cuBLAS on its own GPU for the kernel named under it (its best "
        "CUDA kernel where the document gives that one a figure); a document without a cuBLAS figure shows "
        "its raw figure.",
        "rank here · document: that kernel's place among the kernels of its document that published a figure, "
        "1 = slowest, kernels within 2% tied.",
    ]
    return table


def shared_triton_table(m: Measured) -> Table:
    table = Table([("Triton module", False), ("ideas", False), ("kernels and launch settings", False),
                   ("% cuBLAS on the headline problem", True)], cls="shared")
    for sm in shared_modules(m):
        pcts = sm.pcts
        settings = "\n".join(f"{k.id} [{c.name}]: {config_text(c.config(k))}" for k, c in sm.pairs)
        table.add([Cell(sm.pairs[0][1].path, code=True),
                   Cell("\n".join(m.catalog.ideas[i].title if i in m.catalog.ideas else i for i in sm.ideas)),
                   Cell(settings, cls="settings"),
                   Cell(f"{fmt.pct(min(pcts))} – {fmt.pct(max(pcts))}" if len(pcts) > 1 else
                        fmt.pct(pcts[0]) if pcts else "—", num=True)],
                  "several" if len(sm.ideas) > 1 else "")
    table.notes.append("One module serving several ideas is one Triton kernel: only the settings derived from each "
                       "CUDA kernel (tile, K step, warps) and its few constexpr switches change between them.")
    return table


def _error_cell(r: Result, base: Result | None, layer: str) -> Cell:
    mine = layer_error(r, layer)
    if mine is None:
        return Cell("—", num=True, cls="muted")
    theirs = layer_error(base, layer) if base is not None and base is not r else None
    ratio = f" ({mine / theirs:.2f}x)" if theirs else ""
    worse = theirs is not None and mine > theirs and PRECISION_CLASSES[r.precision].fp32_accurate  # type: ignore[index]
    return Cell(fmt.sci(mine) + ratio, num=True, cls="warn" if worse else "")


def fp32_class_table(m: Measured) -> Table | None:
    """One table over the run's sgemm problems; None where no such row was timed."""
    layers = [layer for layer in ERROR_LAYERS
              if any(layer in (r.numerics.layers if r.numerics else {}) for r in m.all)]
    table = Table([("problem", False), ("implementation", False), ("class", False), ("TFLOP/s", True),
                   ("% cuBLAS fp32", True), ("call", False), ("regs", True),
                   *((f"error: {layer}", True) for layer in layers)], cls="fp32-class")
    for problem in m.problems:
        if problem.op != "sgemm":
            continue
        base = m.baseline(problem, "fp32")
        rows = fp32_rows(m, problem)
        for r in sorted(rows, key=lambda r: -(r.figures.tflops if r.figures else 0.0)):
            c = m.vs(r, "cublas")
            fp32_yardstick = PRECISION_CLASSES[r.precision].yardstick == "fp32"  # type: ignore[index]
            name = f"{r.kernel} · {r.label}" if r.kernel else r.label
            table.add([Cell(problem.shape_label), Cell(name, code=bool(r.kernel)), Cell(precision_label(r.precision)),
                       Cell(fmt.tflops(r.figures.tflops), num=True),
                       Cell(fmt.pct_ci(*m.interval(r)) if fp32_yardstick else "— (against cuBLAS TF32)", num=True,
                            cls="" if fp32_yardstick else "muted"),
                       Cell(wording.relation(c) if c is not None and fp32_yardstick else ""),
                       Cell(str(r.resources.registers) if r.resources and r.resources.registers else "—", num=True),
                       *(_error_cell(r, base, layer) for layer in layers)])
    if not table.rows:
        return None
    table.notes += [
        "Every fp32-class implementation the accuracy chart draws, fastest first; cuBLAS TF32 for reference only.",
        "% cuBLAS fp32: speed against cuBLAS fp32 on the same problem with its 95% interval from the interleaved "
        "rounds, and the call.",
        "error: the larger of the normwise and componentwise forward errors on that layer, and in brackets its "
        "ratio to cuBLAS fp32's on the same inputs; amber where a row labelled fp32-accurate is less accurate than "
        "cuBLAS fp32 there.",
    ]
    return table


def published_text(pub: Published | None) -> str:
    if pub is None:
        return ""
    # As the document wrote them: 6.0 stays 6.0.
    said = ((pub.ms, "{} ms"), (pub.tflops, "{} TFLOP/s"), (pub.pct_cublas, "{:.1f}% of cuBLAS"),
            (pub.pct_bandwidth, "{:g}% of bandwidth"), (pub.stride, "stride {}"), (pub.intensity, "{:g} FLOP/B"))
    return ", ".join(form.format(v) for v, form in said if v is not None)


def claims_tables(m: Measured) -> tuple[Table, Table | None, list[Inline] | None]:
    """The documents' figures beside ours, seed 001's stride sweep, and the unroll ratio in words."""
    table = Table([("kernel", False), ("document · GPU", False), ("published", False), ("doc % cuBLAS", True),
                   ("ours: ms", True), ("our % cuBLAS", True), ("order", False)], cls="claims")
    for c in claims_table(m):
        ours = c.ours
        table.add([Cell(c.kernel.id, code=True), Cell(f"{c.kernel.seed} · {c.seed.gpu}"),
                   Cell(published_text(c.published)), Cell(fmt.pct(c.published_pct), num=True),
                   Cell(fmt.ms(ours.timing.median_ms) if ours and ours.timing else "not measured", num=True),
                   Cell(fmt.pct(c.ours_pct), num=True),
                   Cell(c.order, cls="warn" if c.changed else "")])
    table.notes.append(f"ours: the CUDA kernel on {m.header.device}, on the seeds' 4096³ for sgemm (else the largest "
                       "problem measured); order: rank among the document's kernels with a figure, 1 = slowest, "
                       "within 2% tied.")
    points = stride_sweep(m)
    stride = None
    if points and any(p.ours for p in points):
        stride = Table([("stride", True), ("kernel", False), ("threads / block", True), ("doc TFLOP/s", True),
                        ("our TFLOP/s", True), ("doc registers", True), ("our registers", True),
                        ("doc occupancy", True), ("our occupancy (sm_90)", True)], cls="stride")
        for p in points:
            occ = stride_occupancy(m, p)
            stride.add([Cell(str(p.published.stride), num=True), Cell(p.kernel.id, code=True),
                        Cell(str(p.kernel.threads), num=True), Cell(f"{p.published.tflops}", num=True),
                        Cell(fmt.tflops(p.tflops) if p.tflops else "—", num=True),
                        Cell(str(p.published.registers), num=True), Cell(str(p.registers or "—"), num=True),
                        Cell(fmt.pct(p.published.occupancy_pct), num=True), Cell(fmt.pct_round(occ), num=True)])
        stride.notes.append("doc: the document's Nsight Compute table on its own GPU; occupancy is theoretical.")
    check = unroll_check(m)
    unroll = None
    if check is not None and check.fast.timing and check.slow.timing:
        unroll = [f"Seed {check.claim.seed}'s unroll claim: ", Mono(check.claim.fast), " against ",
                  Mono(check.claim.slow), f": '{check.claim.words}' ({check.claim.ratio:g}x) in the document; "
                  f"{fmt.times(check.ratio)} here ({fmt.ms(check.fast.timing.median_ms)} against "
                  f"{fmt.ms(check.slow.timing.median_ms)} ms)."]
    return table, stride, unroll
