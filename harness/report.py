"""Results file -> one HTML page (primary, self-contained) and one Markdown page (for the README).

Both pages are built from the same table model (headers + cells), so the HTML and the Markdown can
never disagree on a figure: the HTML renderer adds styling, colspans and embedded images; the
Markdown renderer writes the plots as PNG files beside itself. Nothing here needs a GPU or imports a
Triton kernel: Triton sources are read from the module files, CUDA sources from kernels_cuda/.
"""

from __future__ import annotations

import ast
import base64
import html
import importlib.util
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from harness import plots
from harness.ideas import COMPILER, IDEAS, Idea
from harness.plots import impl_label, problem_key, problem_label, record_order
from harness.registry import BY_ID, PUBLISHED_CUBLAS, SEEDS, Counterpart, Kernel, Published
from harness.results import Results, load
from kernels_cuda import source_path

# The SASS classes every resource table shows, even at zero: a zero is the finding (no LDG.128, no
# HMMA), so these columns never disappear. Other classes appear only where some kernel emits them.
SASS_ALWAYS = ("FFMA", "LDG.32", "LDG.64", "LDG.128", "LDS.32", "LDS.64", "LDS.128", "BAR", "SHFL", "HMMA",
               "HGMMA")
SASS_WHEN_PRESENT = ("FMUL", "FADD", "LDSM", "STS", "STSM", "LDGSTS", "UTMALDG", "STG", "LDL", "STL")


# ---------------------------------------------------------------------------------------------------
# Table model: one description, two renderers
# ---------------------------------------------------------------------------------------------------
@dataclass
class Cell:
    text: str = ""
    num: bool = False        # right-aligned, tabular figures
    cls: str = ""            # ok / bad / warn / muted / why
    code: bool = False       # monospace (ids, SASS names)
    span: int = 1            # HTML colspan; Markdown pads with empty cells
    title: str = ""          # HTML tooltip: the full text where the cell shows a short one
    href: str = ""           # HTML link target


@dataclass
class Table:
    headers: list[tuple[str, bool]]          # (label, numeric column)
    rows: list[list[Cell]] = field(default_factory=list)
    cls: str = ""
    row_cls: list[str] = field(default_factory=list)

    def add(self, cells: list[Cell], row_cls: str = "") -> None:
        self.rows.append(cells)
        self.row_cls.append(row_cls)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _html_cell(cell: Cell, tag: str = "td") -> str:
    classes = " ".join(c for c in ("num" if cell.num else "", cell.cls) if c)
    attrs = f' class="{classes}"' if classes else ""
    if cell.span > 1:
        attrs += f' colspan="{cell.span}"'
    if cell.title:
        attrs += f' title="{_e(cell.title)}"'
    # Long kernel ids may break before their template arguments, and only there.
    body = (f"<code>{_e(cell.text).replace('&lt;', '<wbr>&lt;')}</code>" if cell.code
            else _e(cell.text).replace("\n", "<br>"))
    if cell.href:
        body = f'<a href="{_e(cell.href)}">{body}</a>'
    return f"<{tag}{attrs}>{body}</{tag}>"


def _html_table(table: Table) -> str:
    head = "".join(f'<th class="num">{_e(h)}</th>' if num else f"<th>{_e(h)}</th>"
                   for h, num in table.headers)
    rows = []
    for cells, rcls in zip(table.rows, table.row_cls, strict=True):
        attrs = f' class="{_e(rcls)}"' if rcls else ""
        rows.append(f"<tr{attrs}>" + "".join(_html_cell(c) for c in cells) + "</tr>")
    cls = f' class="{_e(table.cls)}"' if table.cls else ""
    return (f'<div class="table-wrap"><table{cls}><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _md_text(text: str) -> str:
    return " ".join(str(text).replace("\n", "; ").split()).replace("|", "\\|")


def _md_cell(cell: Cell) -> list[str]:
    text = _md_text(cell.text)
    if cell.code and text and "`" not in text:
        text = f"`{text}`"
    return [text] + [""] * (cell.span - 1)


def _md_table(table: Table) -> str:
    lines = ["| " + " | ".join(_md_text(h) for h, _ in table.headers) + " |",
             "|" + "|".join("---:" if num else "---" for _, num in table.headers) + "|"]
    for cells in table.rows:
        flat = [t for c in cells for t in _md_cell(c)]
        lines.append("| " + " | ".join(flat) + " |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------
# Formatting of figures
# ---------------------------------------------------------------------------------------------------
def _ms(v: float) -> str:
    return f"{v:.4f}" if v < 0.1 else f"{v:.3f}" if v < 10 else f"{v:.2f}" if v < 100 else f"{v:.1f}"


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v:.1f}%"


def _sci(v: float | None) -> str:
    return "—" if v is None else ("0" if v == 0 else f"{v:.1e}")


def _bytes(n: float | None) -> str:
    if n is None:
        return "—"
    if n >= 1024 * 1024:
        return f"{n / 1024 / 1024:.1f} MiB"
    return f"{n / 1024:.1f} KiB" if n >= 1024 else f"{int(n)} B"


def _first_line(text: str, limit: int = 160) -> str:
    """A reason in one line. Compiler errors put the location first and the cause last, so a
    multi-line reason keeps both ends."""
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    if not lines:
        return ""
    line = lines[0] if len(lines) == 1 else f"{lines[0]} … {lines[-1]}"
    return line if len(line) <= limit else line[: limit - 1] + "…"


def published_text(pub: Published | None, seed: str | None) -> str:
    """A seed's published figure in words, with the GPU it was measured on."""
    if pub is None:
        return ""
    parts = []
    if pub.pct_cublas is not None:
        parts.append(f"{pub.pct_cublas:.1f}% of cuBLAS")
    if pub.tflops is not None:
        parts.append(f"{pub.tflops:g} TFLOP/s")
    if pub.ms is not None:
        parts.append(f"{pub.ms:g} ms")
    if pub.pct_bandwidth is not None:
        parts.append(f"{pub.pct_bandwidth:g}% of bandwidth")
    if pub.note:
        parts.append(pub.note)
    gpu = SEEDS[seed].gpu if seed in SEEDS else "?"
    return ", ".join(parts) + f" ({gpu})" if parts else ""


def _rate(rec: dict) -> str:
    if rec.get("op") == "sgemv":
        return f"{rec['gbps']:.0f}" if rec.get("gbps") is not None else "—"
    return f"{rec['tflops']:.2f}" if rec.get("tflops") is not None else "—"


def _why_no_figures(rec: dict, mode: str) -> str:
    status = rec.get("status")
    reason = _first_line(rec.get("reason", ""))
    if status == "skipped":
        return f"skipped: {reason}"
    if status == "compiled":
        return reason or "compiled, not run"
    if status == "failed":
        if (rec.get("numerics") or {}).get("passed"):
            return f"failed after its numerics passed: {reason}"
        return f"failed: {reason}"
    if mode == "cpu":
        return "not timed: CPU run (Triton interpreter / CPU BLAS), numerics only"
    return "not timed"


def _numerics_cell(rec: dict) -> Cell:
    n = rec.get("numerics")
    if not n:
        return Cell("not run" if rec.get("status") in ("compiled", "skipped") else "—", cls="muted")
    exact, rnd = n.get("exact") or {}, n.get("random") or {}
    detail = (f"exact layer: error {_sci(exact.get('error'))}; random layer: error {_sci(rnd.get('error'))}, "
              f"bound {_sci(rnd.get('bound'))}, library's error {_sci(rnd.get('vendor_error'))}, "
              f"seed {rnd.get('seed')}")
    if n.get("passed"):
        return Cell(f"✓ exact · ✓ {_sci(rnd.get('error'))}", cls="ok nowrap", title=detail)
    for name, layer in (("exact", exact), ("random", rnd)):
        if layer and not layer.get("passed", True):
            why = _first_line(layer.get("reason") or "failed", 70)
            return Cell(f"✗ {name}: {why}", cls="bad", title=detail)
    b0 = n.get("beta0") or {}
    return Cell(f"✗ beta=0: {b0.get('observed')}", cls="bad", title=detail)


def _beta0_cell(rec: dict, kernel: Kernel | None) -> Cell:
    if rec.get("op") == "sgemv":
        return Cell("n/a", cls="muted", title="y = A x: there is no beta")
    b0 = (rec.get("numerics") or {}).get("beta0")
    if not b0:
        if kernel is not None and rec.get("impl") == "cuda" and kernel.reads_c_when_beta_zero:
            return Cell("reads C (declared)", cls="warn nowrap",
                        title="the registry declares that this seed kernel computes beta*C even when "
                              "beta == 0; not observed in this run")
        return Cell("—", cls="muted")
    observed, declared, how = b0.get("observed"), b0.get("declared"), b0.get("how", "")
    if observed != declared:
        return Cell(f"✗ {observed} (declared {declared})", cls="bad", title=how)
    if observed == "leaks NaN":
        return Cell("reads C (declared)", cls="warn nowrap",
                    title=f"{how}: NaN in C reaches the output, a limit the registry declares for this "
                          f"seed kernel (not a failure)")
    if "never reads" in how:
        return Cell("honours (C = A·B)", cls="ok nowrap", title=how)
    return Cell("honours", cls="ok nowrap", title=how)


def _regs_cells(rec: dict) -> list[Cell]:
    res = rec.get("resources") or {}
    if "registers" not in res:
        why = f"no resource report: {_first_line(res['error'])}" if res.get("error") else ""
        return [Cell("—", num=True, cls="muted", title=why), Cell("—", num=True, cls="muted")]
    spills = int(res.get("spills") or 0)
    return [Cell(str(res["registers"]), num=True),
            Cell(f"{spills} B" if spills else "0", num=True, cls="bad" if spills else "")]


# ---------------------------------------------------------------------------------------------------
# The report's content
# ---------------------------------------------------------------------------------------------------
@dataclass
class _Ctx:
    results: Results
    mode: str
    peaks: dict

    @property
    def records(self) -> list[dict]:
        return self.results.results


def _ctx(results: Results) -> _Ctx:
    return _Ctx(results, str(results.run.get("mode", "?")), results.run.get("peaks") or {})


def _problems(results: Results) -> list[dict]:
    """The header's problems in its order, then any a record names that the header does not."""
    out: dict[tuple, dict] = {}
    for p in results.run.get("problems") or []:
        out.setdefault(problem_key(p), p)
    for r in results.results:
        if r.get("problem"):
            out.setdefault(problem_key(r["problem"]), r["problem"])
    return list(out.values())


def _idea_anchor(key: str) -> str:
    return f"idea-{key}"


def _problem_anchor(problem: dict) -> str:
    return "problem-" + "-".join(str(v) for v in problem_key(problem)).replace(".", "_")


def _peak_header(op: str) -> str:
    return "% FP32 peak" if op == "sgemm" else "% copy BW"


def _figure_cells(rec: dict, ctx: _Ctx) -> list[Cell]:
    """ms, rate, % cuBLAS, % peak; or one cell spanning them that says why there are none."""
    t = rec.get("timing") or {}
    if rec.get("status") != "ok" or not t.get("median_ms"):
        return [Cell(_why_no_figures(rec, ctx.mode), cls="why", span=4, title=str(rec.get("reason", "")))]
    tf32 = rec.get("impl") == "cublas-tf32" or rec.get("tf32")
    spread = t.get("spread")
    title = (f"median of {t.get('runs')} runs; p20 {t.get('p20_ms')} ms, p80 {t.get('p80_ms')} ms; spread "
             f"{spread:.1%}" if isinstance(spread, (int, float)) else "")
    return [
        Cell(_ms(float(t["median_ms"])), num=True, title=title),
        Cell(_rate(rec), num=True),
        # TF32 runs on tensor cores at lower precision: a ratio to fp32 cuBLAS would compare two kinds
        # of arithmetic, so it is labelled instead of shown.
        Cell("—", num=True, cls="muted", title="TF32 is not compared with fp32 cuBLAS") if tf32
        else Cell(_pct(rec.get("pct_cublas")), num=True),
        Cell("—", num=True, cls="muted") if tf32 or rec.get("pct_peak") is None
        else Cell(_pct(rec.get("pct_peak")), num=True),
    ]


def _flags(rec: dict) -> Cell:
    flags = (rec.get("timing") or {}).get("flags") or []
    return Cell("; ".join(flags), cls="warn flags" if flags else "flags")


def _kernel_cells(rec: dict) -> list[Cell]:
    kid = rec.get("kernel")
    if not kid:
        return [Cell("baseline", cls="muted"), Cell("—", cls="muted"), Cell("—", cls="muted")]
    kernel = BY_ID.get(kid)
    if kernel is None:
        return [Cell(kid, code=True), Cell("?", cls="muted"), Cell("not in the registry", cls="warn")]
    idea = IDEAS[kernel.idea]
    # The key ("outer_product") keeps the row on one line; the title is the link's tooltip.
    return [Cell(kid, code=True), Cell(kernel.seed or "ours"),
            Cell(idea.key.replace("_", " "), href=f"#{_idea_anchor(idea.key)}", title=idea.title,
                 cls="nowrap")]


def summary_table(ctx: _Ctx, problem: dict) -> Table:
    op = problem.get("op", "sgemm")
    rate = "TFLOP/s" if op == "sgemm" else "GB/s"
    table = Table([("kernel", False), ("seed", False), ("idea", False), ("implementation", False),
                   ("ms", True), (rate, True), ("% cuBLAS", True), (_peak_header(op), True),
                   ("numerics", False), ("beta = 0", False), ("regs", True), ("spills", True),
                   ("flags", False)], cls="summary")
    key = problem_key(problem)
    for rec in sorted((r for r in ctx.records if problem_key(r.get("problem")) == key), key=record_order):
        kernel = BY_ID.get(rec.get("kernel") or "")
        cells = [*_kernel_cells(rec), Cell(impl_label(rec), code=False, title=str(rec.get("impl", ""))),
                 *_figure_cells(rec, ctx), _numerics_cell(rec), _beta0_cell(rec, kernel), *_regs_cells(rec),
                 _flags(rec)]
        table.add(cells, f"status-{rec.get('status', 'unknown')}")
    return table


def _counterpart(kernel: Kernel, impl: str) -> Counterpart | None:
    name = impl.split(":", 1)[-1]
    return next((c for c in kernel.counterparts if c.name == name), None)


def _counterpart_text(c: Counterpart) -> str:
    params = " ".join(f"{k.upper()}={v}" for k, v in c.params.items())
    text = f"{c.name}: {c.module} {params} · {c.num_warps} warp{'s' if c.num_warps != 1 else ''}"
    text += f" · {c.num_stages} stage{'s' if c.num_stages != 1 else ''}"
    return text + (f" ({c.note})" if c.note else "")


def _seed_text(kernel: Kernel) -> str:
    if not kernel.seed:
        return f"tile-rosetta's own ({kernel.section})"
    seed = SEEDS[kernel.seed]
    return f"{seed.file} “{seed.title}”, section “{kernel.section}”"


def kernels_table(kernels: list[Kernel]) -> Table:
    table = Table([("kernel", False), ("seed document · section", False), ("threads · tile", False),
                   ("Triton counterpart(s)", False), ("preconditions", False), ("beta = 0", False),
                   ("published (seed's GPU)", False)], cls="kernels")
    for k in kernels:
        tile = (f"{k.tile_m}×{k.tile_n} outputs" if k.tile_n
                else f"{k.tile_m} row{'s' if k.tile_m != 1 else ''}")
        table.add([
            Cell(k.id, code=True),
            Cell(_seed_text(k)),
            Cell(f"{'×'.join(map(str, k.block[:2]))} = {k.threads} · {tile}"),
            Cell("\n".join(_counterpart_text(c) for c in k.counterparts)),
            Cell("\n".join(c.text for c in k.preconditions)),
            _declared_beta0(k),
            Cell(published_text(k.published, k.seed) or "—", cls="" if k.published else "muted"),
        ])
    return table


def _declared_beta0(k: Kernel) -> Cell:
    if k.op == "sgemv":
        return Cell("n/a", cls="muted")
    if k.reads_c_when_beta_zero:
        return Cell("reads C (declared)", cls="warn")
    return Cell("honours" if k.computes_alpha_beta else "honours (C = A·B)", cls="ok")


def mapping_table(idea: Idea) -> Table:
    table = Table([("decision", False), ("CUDA", False), ("Triton", False), ("in Triton, decided by", False)],
                  cls="mapping")
    for row in idea.mapping:
        table.add([Cell(row.decision), Cell(row.cuda), Cell(row.triton),
                   Cell(row.triton_decided_by, cls="by-compiler" if row.triton_decided_by == COMPILER
                        else "by-programmer")])
    return table


def _resource_rows(ctx: _Ctx, kernels: list[Kernel]) -> tuple[list[tuple[dict, dict]], list[str]]:
    """One (record, resources) per (kernel, implementation), and a sentence for each that has none."""
    ids = {k.id for k in kernels}
    best: dict[tuple[str, str], dict] = {}
    seen: dict[tuple[str, str], dict] = {}
    for rec in sorted((r for r in ctx.records if r.get("kernel") in ids), key=record_order):
        key = (rec["kernel"], str(rec.get("impl")))
        seen.setdefault(key, rec)
        if "registers" in (rec.get("resources") or {}):
            best.setdefault(key, rec)
    rows = [(rec, rec["resources"]) for key, rec in best.items()]
    missing = []
    for key, rec in seen.items():
        if key in best:
            continue
        error = (rec.get("resources") or {}).get("error")
        if error:
            why = f" (the compile failed: {_first_line(error, 200)})"
        elif rec.get("status") in ("failed", "skipped"):
            why = f" ({rec.get('status')}: {_first_line(rec.get('reason', ''), 200)})"
        else:
            why = " in this run"
        missing.append(f"{key[0]} [{key[1]}]: no resource report{why}")
    rows.sort(key=lambda pair: record_order(pair[0]))
    return rows, missing


def _threads(rec: dict) -> int | None:
    kernel = BY_ID.get(rec.get("kernel") or "")
    if kernel is None:
        return None
    if rec.get("impl") == "cuda":
        return kernel.threads
    c = _counterpart(kernel, str(rec.get("impl", "")))
    return 32 * c.num_warps if c else None


def _occupancy(rec: dict, res: dict) -> tuple[str, str]:
    """Theoretical sm_90 occupancy and what limits it, from registers, shared memory and threads."""
    from harness.resources import sm90_occupancy

    threads = _threads(rec)
    if threads is None or "registers" not in res:
        frac = res.get("occupancy")
        return (_pct(100 * frac) if isinstance(frac, (int, float)) else "—"), ""
    try:
        occ = sm90_occupancy(int(res["registers"]), int(res.get("shared_bytes") or 0), threads)
    except ValueError:
        return "—", ""
    return f"{100 * occ.fraction:.0f}%", f"{occ.blocks_per_sm} blocks × {threads} thr; {occ.limiter}"


def resources_table(rows: list[tuple[dict, dict]]) -> Table:
    table = Table([("kernel", False), ("implementation", False), ("registers", True),
                   ("shared / block", True), ("spills", True), ("local", True), ("occupancy (sm_90)", True),
                   ("limited by", False), ("compiled by", False)], cls="resources")
    for rec, res in rows:
        occ, limiter = _occupancy(rec, res)
        regs = str(res.get("registers"))
        driver = (res.get("driver") or {}).get("registers")
        if driver is not None and driver != res.get("registers"):
            regs += f" (driver: {driver})"
        spills = int(res.get("spills") or 0)
        table.add([Cell(rec["kernel"], code=True), Cell(impl_label(rec)), Cell(regs, num=True),
                   Cell(_bytes(res.get("shared_bytes")), num=True),
                   Cell(f"{spills} B" if spills else "0", num=True, cls="bad" if spills else ""),
                   Cell(_bytes(res.get("local_bytes")) if "local_bytes" in res else "—", num=True),
                   Cell(occ, num=True), Cell(limiter, cls="muted"),
                   Cell(str(res.get("source", "?")), cls="muted")])
    return table


def sass_table(rows: list[tuple[dict, dict]]) -> Table | None:
    mixes = [(rec, res.get("sass") or {}) for rec, res in rows if res.get("sass")]
    if not mixes:
        return None
    extra = [k for k in SASS_WHEN_PRESENT if any(m.get(k) for _, m in mixes)]
    cols = [*SASS_ALWAYS, *extra, "total"]
    table = Table([("kernel", False), ("implementation", False), *((c, True) for c in cols)], cls="sass")
    for rec, mix in mixes:
        table.add([Cell(rec["kernel"], code=True), Cell(impl_label(rec)),
                   *(Cell(str(mix.get(c, 0)), num=True, cls="" if mix.get(c) else "zero") for c in cols)])
    return table


def measured_table(ctx: _Ctx, kernels: list[Kernel]) -> Table:
    op = kernels[0].op
    ids = {k.id for k in kernels}
    rate = "TFLOP/s" if op == "sgemm" else "GB/s"
    table = Table([("problem", False), ("kernel", False), ("implementation", False), ("ms", True),
                   (rate, True), ("% cuBLAS", True), (_peak_header(op), True), ("FLOP/B", True),
                   ("% of roof", True), ("numerics", False),
                   ("published (seed's GPU)", False)], cls="measured")
    problems = _problems(ctx.results)
    order = {problem_key(p): i for i, p in enumerate(problems)}
    recs = [r for r in ctx.records if r.get("kernel") in ids]
    recs.sort(key=lambda r: (order.get(problem_key(r.get("problem")), 1_000), record_order(r)))
    for rec in recs:
        kernel = BY_ID[rec["kernel"]]
        figures = _figure_cells(rec, ctx)
        if len(figures) == 1:
            figures[0].span = 6
        else:
            figures += [Cell(f"{rec['intensity']:.2f}" if rec.get("intensity") else "—", num=True),
                        Cell(_roof_pct(rec, ctx.peaks), num=True)]
        published = published_text(kernel.published, kernel.seed) if rec.get("impl") == "cuda" else ""
        table.add([Cell(problem_label(rec.get("problem")).split(" ", 1)[-1]), Cell(rec["kernel"], code=True),
                   Cell(impl_label(rec)), *figures, _numerics_cell(rec), Cell(published)],
                  f"status-{rec.get('status', 'unknown')}")
    return table


def _measured_notes(ctx: _Ctx, kernels: list[Kernel]) -> list[str]:
    ids = {k.id for k in kernels}
    over = sorted({f"{r['kernel']} [{r['impl']}]" for r in ctx.records if r.get("kernel") in ids
                   and _roof_fraction(r, ctx.peaks) is not None and _roof_fraction(r, ctx.peaks) > 1.0})
    if not over:
        return []
    return ["Above 100% of the roof: " + ", ".join(over) + ". The intensity counts every byte the tiling "
            "re-reads as DRAM traffic; L1/L2 served part of it, so the kernel beat the bandwidth bound its "
            "traffic model sets."]


def _roof_fraction(rec: dict, peaks: dict) -> float | None:
    try:
        roof = min(float(peaks["fp32_tflops"]), float(peaks["copy_gbps"]) * float(rec["intensity"]) / 1e3)
        return float(rec["tflops"]) / roof
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None


def _roof_pct(rec: dict, peaks: dict) -> str:
    """Achieved TFLOP/s over the roofline's bound at the record's intensity."""
    frac = _roof_fraction(rec, peaks)
    return "—" if frac is None else _pct(100.0 * frac)


# ---------------------------------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------------------------------
def cuda_source(kernel: Kernel) -> str:
    path = source_path(kernel.source)
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        return f"// {kernel.source}: cannot read the source ({e})"


def _triton_dir() -> Path:
    # find_spec of the top-level package locates it without importing it (nor Triton).
    spec = importlib.util.find_spec("kernels_triton")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("kernels_triton is not importable")
    return Path(next(iter(spec.submodule_search_locations)))


def _segment(lines: list[str], node: ast.AST) -> str:
    decorators = getattr(node, "decorator_list", [])
    start = min([node.lineno, *(d.lineno for d in decorators)])
    return "\n".join(lines[start - 1: node.end_lineno])


def triton_source(module: str) -> str:
    """The counterpart as a reader needs it: the module docstring, KERNEL, and the @triton.jit helpers it
    calls from sibling modules. Read from the file: importing would define the kernel, and Triton decides
    interpreter or GPU at definition time."""
    try:
        path = _triton_dir() / f"{module}.py"
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (OSError, SyntaxError, FileNotFoundError) as e:
        return f"# kernels_triton/{module}.py: cannot read the source ({e})"
    lines = text.splitlines()
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    kernel_name = next((n.value.id for n in tree.body
                        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name)
                        and any(isinstance(t, ast.Name) and t.id == "KERNEL" for t in n.targets)), None)
    if kernel_name not in funcs:
        return text
    parts = []
    if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(getattr(tree.body[0], "value", None),
                                                                       ast.Constant):
        parts.append(_segment(lines, tree.body[0]))
    parts.append(_segment(lines, funcs[kernel_name]))
    imported = {(a.asname or a.name): (n.module, a.name) for n in tree.body if isinstance(n, ast.ImportFrom)
                and (n.module or "").startswith("kernels_triton") for a in n.names}
    used = list(dict.fromkeys(n.id for n in ast.walk(funcs[kernel_name]) if isinstance(n, ast.Name)))
    for name in used:
        if name in funcs and name != kernel_name:
            parts.append(_segment(lines, funcs[name]))
        elif name in imported:
            mod, original = imported[name]
            helper = _helper_source(mod, original)
            if helper:
                parts.append(f"# {mod.replace('.', '/')}.py\n{helper}")
    return "\n\n\n".join(parts) + "\n"


def _helper_source(module: str, name: str) -> str:
    try:
        path = _triton_dir() / (module.split(".", 1)[1].replace(".", "/") + ".py")
        text = path.read_text(encoding="utf-8")
        node = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == name)
    except (OSError, SyntaxError, StopIteration, IndexError, FileNotFoundError):
        return ""
    return _segment(text.splitlines(), node)


def _highlight(code: str, language: str) -> str:
    """Syntax-highlighted HTML (escaped by Pygments), or plain escaped text when Pygments is absent."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import CudaLexer, PythonLexer
    except ImportError:
        return _e(code)
    lexer = CudaLexer() if language == "cuda" else PythonLexer()
    return highlight(code, lexer, HtmlFormatter(nowrap=True))


def _pygments_css() -> str:
    try:
        from pygments.formatters import HtmlFormatter
    except ImportError:
        return ""
    return HtmlFormatter(style="friendly").get_style_defs("pre.code")


@dataclass
class _SourceBlock:
    language: str       # cuda / python
    path: str           # shown above the code
    used_by: list[str]
    code: str


def _source_blocks(kernels: list[Kernel]) -> tuple[list[_SourceBlock], list[_SourceBlock]]:
    """Each distinct CUDA file and Triton module of an idea once, with the kernels that use it."""
    cuda: dict[str, _SourceBlock] = {}
    tri: dict[str, _SourceBlock] = {}
    for k in kernels:
        block = cuda.setdefault(k.source, _SourceBlock("cuda", f"kernels_cuda/{k.source}", [],
                                                       cuda_source(k)))
        block.used_by.append(f"{k.id} (symbol {k.symbol}, {'×'.join(map(str, k.block[:2]))} threads)")
        for c in k.counterparts:
            tb = tri.setdefault(c.module, _SourceBlock("python", f"kernels_triton/{c.module}.py", [],
                                                       triton_source(c.module)))
            tb.used_by.append(f"{k.id} [{c.name}]: {_counterpart_text(c).split(': ', 1)[1]}")
    return list(cuda.values()), list(tri.values())


# ---------------------------------------------------------------------------------------------------
# Header facts and notices
# ---------------------------------------------------------------------------------------------------
def _when(stamp: str | None) -> str:
    if not stamp:
        return "?"
    try:
        return datetime.fromisoformat(stamp).strftime("%Y-%m-%d %H:%M:%S %Z").strip()
    except ValueError:
        return stamp


def _command(run: dict) -> str:
    argv = run.get("argv")
    return "rosetta " + shlex.join(str(a) for a in argv) if isinstance(argv, list) else "?"


def header_facts(results: Results) -> list[tuple[str, str]]:
    run, end = results.run, results.end or {}
    facts = [("device", str(run.get("device", "?"))),
             ("mode", "GPU run" if run.get("mode") == "gpu" else
              "CPU run: Triton counterparts in the interpreter (numerics only), CUDA compiled for sm_90, "
              "no timing")]
    peaks = run.get("peaks")
    if peaks:
        facts.append(("measured peaks", f"FP32 FMA {peaks.get('fp32_tflops', 0):.1f} TFLOP/s · copy "
                                        f"bandwidth {peaks.get('copy_gbps', 0):.0f} GB/s (read + write)"))
    if run.get("sms"):
        facts.append(("SMs · L2", f"{run['sms']} · {_bytes(run.get('l2_bytes'))}" if run.get("l2_bytes")
                      else str(run["sms"])))
    versions = run.get("versions") or {}
    facts.append(("versions", " · ".join(f"{k} {v}" for k, v in versions.items()) or "?"))
    facts.append(("started", _when(run.get("started"))))
    facts.append(("finished", _when(end.get("finished")) if end else "— (the run did not finish)"))
    facts.append(("command", _command(run)))
    facts.append(("seed · timed per implementation", f"{run.get('seed', '?')} · {run.get('rep_ms', '?')} ms"))
    counts: dict[str, int] = {}
    for r in results.results:
        counts[str(r.get("status"))] = counts.get(str(r.get("status")), 0) + 1
    facts.append(("results", f"{len(results.results)} records: " +
                  ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) + f" ({results.path.name})"))
    return facts


@dataclass
class _Notice:
    level: str          # warn / bad / info
    text: str
    items: list[tuple[str, str]] = field(default_factory=list)   # (one line, full text)


def notices(results: Results) -> list[_Notice]:
    out = []
    if not results.complete:
        out.append(_Notice("warn", "This run was cut short (interrupted): the file has no end record, so the "
                                   "tables hold only what it measured before it stopped.",
                           [(n, "") for n in results.notes if "did not finish" not in n]))
    if results.run.get("mode") == "cpu":
        out.append(_Notice("info", "CPU run: no GPU was available. Triton counterparts ran in the "
                                   "interpreter on small, odd shapes (numerics only) and the CUDA kernels "
                                   "were compiled for sm_90 for their resource usage; nothing was timed, so "
                                   "there are no speeds, no % of cuBLAS and no roofline."))
    failed = sorted((r for r in results.results if r.get("status") == "failed"), key=record_order)
    if failed:
        out.append(_Notice("bad", f"{len(failed)} result(s) failed:", [
            (f"{r.get('kernel') or 'baseline'} [{r.get('impl')}] on {problem_label(r.get('problem'))}: "
             f"{_first_line(r.get('reason', ''), 220)}", str(r.get("reason", "")).strip()) for r in failed]))
    unknown = sorted({r["kernel"] for r in results.results if r.get("kernel") and r["kernel"] not in BY_ID})
    if unknown:
        out.append(_Notice("warn", "Kernels in this file that the registry no longer lists (shown in the "
                                   "summary, without an idea section): " + ", ".join(unknown)))
    return out


def _ideas_present(results: Results) -> list[tuple[Idea, list[Kernel]]]:
    ids = {r.get("kernel") for r in results.results}
    out = []
    for idea in IDEAS.values():
        kernels = [k for k in BY_ID.values() if k.idea == idea.key and k.id in ids]
        if kernels:
            out.append((idea, kernels))
    return out


# ---------------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------------
def markdown_results_table(results: Results | str | Path) -> str:
    """The summary tables alone (one per problem), in Markdown: what a README quotes."""
    res = results if isinstance(results, Results) else load(results)
    ctx = _ctx(res)
    parts = []
    for problem in _problems(res):
        table = summary_table(ctx, problem)
        if table.rows:
            parts.append(f"#### {problem_label(problem)}\n\n{_md_table(table)}")
    return "\n\n".join(parts) + "\n"


def _markdown(results: Results, figures: list[plots.Plot], image_names: dict[str, str]) -> str:
    ctx = _ctx(results)
    out = [f"# tile-rosetta report: {results.run.get('device', '?')}", ""]
    out += [f"- **{k}**: {v if k != 'command' else f'`{v}`'}" for k, v in header_facts(results)]
    out.append("")
    for n in notices(results):
        mark = {"bad": "**Failures.**", "warn": "**Note.**", "info": "**Note.**"}[n.level]
        out.append(f"> {mark} {n.text}")
        out += [f"> - {_md_text(line)}" for line, _ in n.items]
        out.append("")
    out += ["## Summary", ""]
    for problem in _problems(results):
        table = summary_table(ctx, problem)
        if table.rows:
            out += [f"### {problem_label(problem)}", "", _md_table(table), ""]
    out += ["## Plots", ""]
    for fig in figures:
        if fig.png:
            out += [f"### {fig.title}", "", f"![{fig.title}]({image_names[fig.key]})", "", fig.caption, ""]
        else:
            out += [f"*{fig.missing}*", ""]
    out += ["## Ideas", ""]
    for idea, kernels in _ideas_present(results):
        out += _markdown_idea(ctx, idea, kernels)
    out += ["---", f"Rendered by harness.report from `{results.path.name}`.", ""]
    return "\n".join(out)


def _markdown_idea(ctx: _Ctx, idea: Idea, kernels: list[Kernel]) -> list[str]:
    out = [f"### {idea.title}", "", idea.lesson, "", _md_table(kernels_table(kernels)), ""]
    out += _notes(kernels, md=True)
    cuda, tri = _source_blocks(kernels)
    for block in [*cuda, *tri]:
        lang = "cuda" if block.language == "cuda" else "python"
        out += [f"**{'CUDA' if lang == 'cuda' else 'Triton'}: `{block.path}`**, used by "
                + "; ".join(f"`{u.split(' ', 1)[0]}`" for u in block.used_by), "",
                f"```{lang}", block.code.rstrip("\n"), "```", ""]
    out += ["**Each tiling decision in each model**", "", _md_table(mapping_table(idea)), ""]
    rows, missing = _resource_rows(ctx, kernels)
    out += ["**Compiled resources**", ""]
    if rows:
        out += [_md_table(resources_table(rows)), ""]
        sass = sass_table(rows)
        if sass:
            out += ["SASS instruction mix (static counts in the compiled kernel):", "", _md_table(sass), ""]
    out += [f"- {_md_text(m)}" for m in missing] + ([""] if missing else [])
    out += ["**Measured**", "", _md_table(measured_table(ctx, kernels)), ""]
    out += [f"*{n}*\n" for n in _measured_notes(ctx, kernels)]
    return out


def _notes(kernels: list[Kernel], md: bool) -> list[str]:
    lines = []
    for k in kernels:
        if k.notes:
            lines.append((k.id, k.notes))
        for c in k.counterparts:
            if c.note:
                lines.append((f"{k.id} [{c.name}]", c.note))
        if k.seed in PUBLISHED_CUBLAS and k.published:
            lines.append((k.id, "the seed's own cuBLAS figure: "
                          + published_text(PUBLISHED_CUBLAS[k.seed], k.seed)))
    lines = list(dict.fromkeys(lines))
    if md:
        return [f"- `{kid}`: {_md_text(text)}" for kid, text in lines] + ([""] if lines else [])
    return [f"<li><code>{_e(kid)}</code>: {_e(text)}</li>" for kid, text in lines]


# ---------------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------------
_CSS = """
:root { --fg: #1b2129; --muted: #667085; --line: #e2e6eb; --panel: #f5f7f9; --accent: #2f5d9e;
        --triton: #b8541a; --ok: #1a7f37; --bad: #b42318; --warn: #93640a; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: var(--fg); background: #fff;
       font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
             "Noto Sans CJK SC", "Microsoft YaHei", sans-serif; }
main { max-width: 1440px; margin: 0 auto; padding: 28px 28px 72px; }
h1 { font-size: 27px; line-height: 1.25; margin: 0 0 2px; letter-spacing: -0.01em; }
h2 { font-size: 21px; margin: 44px 0 12px; padding-bottom: 6px; border-bottom: 2px solid var(--line); }
h3 { font-size: 17px; margin: 28px 0 8px; }
h4 { font-size: 13px; margin: 22px 0 6px; text-transform: uppercase; letter-spacing: .05em;
     color: var(--muted); }
p { margin: 6px 0 10px; max-width: 95ch; }
a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", "JetBrains Mono", Menlo, Consolas,
                   "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 12.5px; }
.subtitle { color: var(--muted); margin: 0 0 18px; max-width: none; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 18px; margin: 0 0 16px;
           font-size: 14px; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; }
.notice { border-left: 4px solid var(--muted); background: var(--panel); padding: 8px 14px; margin: 10px 0;
          border-radius: 0 6px 6px 0; font-size: 14px; }
.notice.warn { border-color: #d69e2e; background: #fdf8ec; }
.notice.bad { border-color: var(--bad); background: #fdf1f0; }
.notice.info { border-color: var(--accent); background: #f1f5fb; }
.notice ul { margin: 6px 0 2px; padding-left: 20px; }
.notice details pre { white-space: pre-wrap; background: #fff; border: 1px solid var(--line);
                      padding: 6px 8px; border-radius: 4px; max-height: 260px; overflow: auto; }
nav.toc { columns: 3 260px; font-size: 14px; background: var(--panel); border-radius: 8px; padding: 10px 18px;
          margin: 16px 0; }
nav.toc ul { margin: 0; padding-left: 18px; } nav.toc li { break-inside: avoid; }
.table-wrap { overflow-x: auto; margin: 6px 0 14px; }
table { border-collapse: collapse; font-size: 12.5px; }
th, td { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
thead th { background: var(--panel); font-weight: 600; border-bottom: 1.5px solid #c9d0d8;
           white-space: nowrap; }
tbody tr:hover { background: #f7f9fc; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td code { font-size: 12px; }
td.ok { color: var(--ok); } td.bad { color: var(--bad); font-weight: 600; } td.warn { color: var(--warn); }
td.muted, td.zero { color: #9aa4b2; }
td.why { color: var(--muted); font-style: italic; }
td.nowrap { white-space: nowrap; } td.flags { min-width: 150px; font-size: 11.5px; }
tr.status-failed td:first-child { box-shadow: inset 3px 0 var(--bad); }
tr.status-skipped td, tr.status-compiled td { background: #fcfcfd; }
table.mapping td:first-child { font-weight: 600; white-space: nowrap; }
table.mapping td { max-width: 460px; }
td.by-compiler, td.by-programmer { white-space: nowrap; font-size: 12px; font-weight: 600; }
td.by-compiler { color: var(--triton); } td.by-programmer { color: var(--accent); }
table.kernels td { max-width: 340px; }
figure { margin: 14px 0 26px; } figure img { max-width: 100%; height: auto; border: 1px solid var(--line);
                                               border-radius: 6px; }
figcaption { color: var(--muted); font-size: 13px; max-width: 110ch; margin-top: 4px; }
p.missing { color: var(--muted); font-style: italic; }
p.note { color: var(--muted); font-size: 13px; }
section.idea { border-top: 1px solid var(--line); margin-top: 36px; }
.lesson { font-size: 15.5px; background: var(--panel); border-radius: 6px; padding: 10px 14px;
          max-width: none; }
.code-pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 18px; margin: 10px 0; }
.code-pair h4 { margin-top: 4px; }
.code-pair .cuda h4 { color: var(--accent); } .code-pair .triton h4 { color: var(--triton); }
.src-head { font-size: 12.5px; margin: 8px 0 4px; }
.src-head .used { color: var(--muted); display: block; }
/* Wrapped, not scrolled: a column is ~85 characters and the seeds' header comments run past 200. */
pre.code { background: #f8f9fb; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px;
           white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.45; margin: 0 0 12px; tab-size: 4; }
ul.notes { font-size: 13.5px; color: #3a4350; }
footer { margin-top: 56px; color: var(--muted); font-size: 12.5px; border-top: 1px solid var(--line);
         padding-top: 10px; }
@media (max-width: 980px) { .code-pair { grid-template-columns: minmax(0, 1fr); } main { padding: 16px; } }
"""


def _html(results: Results, figures: list[plots.Plot]) -> str:
    ctx = _ctx(results)
    device = str(results.run.get("device", "?"))
    problems = [p for p in _problems(results) if summary_table(ctx, p).rows]
    ideas = _ideas_present(results)
    body = [f"<h1>tile-rosetta report: {_e(device)}</h1>",
            f'<p class="subtitle">Hand-written CUDA kernels from five GEMM/GEMV worklogs beside their Triton '
            f"counterparts and cuBLAS · run of {_e(_when(results.run.get('started')))}</p>",
            '<dl class="facts">']
    for k, v in header_facts(results):
        value = f"<code>{_e(v)}</code>" if k == "command" else _e(v)
        body.append(f"<dt>{_e(k)}</dt><dd>{value}</dd>")
    body.append("</dl>")
    for n in notices(results):
        body.append(f'<div class="notice {n.level}"><strong>{_e(n.text)}</strong>')
        if n.items:
            body.append("<ul>")
            for line, full in n.items:
                if full and full != line:
                    body.append(f"<li><details><summary>{_e(line)}</summary><pre>{_e(full)}</pre></details></li>")
                else:
                    body.append(f"<li>{_e(line)}</li>")
            body.append("</ul>")
        body.append("</div>")
    body.append('<nav class="toc"><ul><li><a href="#summary">Summary</a><ul>')
    body += [f'<li><a href="#{_problem_anchor(p)}">{_e(problem_label(p))}</a></li>' for p in problems]
    body.append('</ul></li><li><a href="#plots">Plots</a></li><li><a href="#ideas">Ideas</a><ul>')
    body += [f'<li><a href="#{_idea_anchor(i.key)}">{_e(i.title)}</a></li>' for i, _ in ideas]
    body.append("</ul></li></ul></nav>")

    body.append('<section id="summary"><h2>Summary</h2>')
    for p in problems:
        body.append(f'<h3 id="{_problem_anchor(p)}">{_e(problem_label(p))}</h3>')
        body.append(_html_table(summary_table(ctx, p)))
    body.append("</section>")

    body.append('<section id="plots"><h2>Plots</h2><div class="plots">')
    for fig in figures:
        if fig.png:
            data = base64.b64encode(fig.png).decode("ascii")
            body.append(f'<figure id="plot-{_e(fig.key)}"><img src="data:image/png;base64,{data}" '
                        f'alt="{_e(fig.title)}"><figcaption>{_e(fig.caption)}</figcaption></figure>')
        else:
            body.append(f'<p class="missing">{_e(fig.missing)}</p>')
    body.append("</div></section>")

    body.append('<section id="ideas"><h2>Ideas</h2>')
    if not ideas:
        body.append('<p class="missing">No kernel of the registry appears in this file.</p>')
    for idea, kernels in ideas:
        body.append(_html_idea(ctx, idea, kernels))
    body.append("</section>")
    body.append(f"<footer>Rendered by harness.report from {_e(results.path.name)}. Static figures only: "
                f"this page loads nothing from the network.</footer>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>tile-rosetta: {_e(device)}</title><style>{_pygments_css()}{_CSS}</style></head>"
            f"<body><main>{''.join(body)}</main></body></html>\n")


def _html_sources(title: str, cls: str, blocks: Iterable[_SourceBlock]) -> str:
    out = [f'<div class="{cls}"><h4>{_e(title)}</h4>']
    for b in blocks:
        used = "; ".join(b.used_by)
        code = _highlight(b.code, b.language)
        out.append(f'<div class="src-head"><code>{_e(b.path)}</code><span class="used">used by '
                   f'{_e(used)}</span></div><pre class="code"><code>{code}</code></pre>')
    out.append("</div>")
    return "".join(out)


def _html_idea(ctx: _Ctx, idea: Idea, kernels: list[Kernel]) -> str:
    out = [f'<section class="idea" id="{_idea_anchor(idea.key)}"><h3>{_e(idea.title)}</h3>',
           f'<p class="lesson">{_e(idea.lesson)}</p>', "<h4>Kernels</h4>",
           _html_table(kernels_table(kernels))]
    notes = _notes(kernels, md=False)
    if notes:
        out.append(f'<ul class="notes">{"".join(notes)}</ul>')
    cuda, tri = _source_blocks(kernels)
    out.append('<div class="code-pair">')
    out.append(_html_sources("CUDA (as published, header comment included)", "cuda", cuda))
    out.append(_html_sources("Triton counterpart (KERNEL and the helpers it calls)", "triton", tri))
    out.append("</div>")
    out += ["<h4>Each tiling decision in each model</h4>", _html_table(mapping_table(idea))]
    rows, missing = _resource_rows(ctx, kernels)
    out.append("<h4>Compiled resources</h4>")
    if rows:
        out.append(_html_table(resources_table(rows)))
        sass = sass_table(rows)
        if sass:
            out += ['<p class="src-head">SASS instruction mix (static counts in the compiled kernel)</p>',
                    _html_table(sass)]
    if missing:
        out.append('<ul class="notes">' + "".join(f"<li>{_e(m)}</li>" for m in missing) + "</ul>")
    out += ["<h4>Measured</h4>", _html_table(measured_table(ctx, kernels))]
    out += [f'<p class="note">{_e(n)}</p>' for n in _measured_notes(ctx, kernels)]
    out.append("</section>")
    return "".join(out)


# ---------------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------------
def render(results_path: Path, out_dir: Path) -> tuple[Path, Path]:
    """Write <stem>.html (self-contained) and <stem>.md (+ <stem>-<plot>.png beside it); return both paths.

    Raises ValueError for a file that is not a results file (empty, not JSON, no header).
    """
    results = load(results_path)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = Path(results_path).stem
    figures = plots.all_plots(results)
    image_names = {}
    for fig in figures:
        if fig.png:
            name = f"{stem}-{fig.key}.png"
            (out_dir / name).write_bytes(fig.png)
            image_names[fig.key] = name
    html_path, md_path = out_dir / f"{stem}.html", out_dir / f"{stem}.md"
    html_path.write_text(_html(results, figures), encoding="utf-8")
    md_path.write_text(_markdown(results, figures, image_names), encoding="utf-8")
    return html_path, md_path
