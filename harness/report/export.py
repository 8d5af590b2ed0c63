"""A results file as tables a notebook reads: a row per implementation and problem (`rows`), a row per timed run
(`sample_rows`). `rosetta export` writes them as CSV (harness/cli/export.py); docs/export.md documents each column,
and a test holds that page to the columns declared here.

Every figure is read from the records and the file's analysis record (Measured: the one record of the file's
verdicts, the same the page shows): the % of cuBLAS and its interval, and every call, are the analysis's, never
recomputed here; where the page prints the same figure, its column reads it through the page's own declaration
(harness/report/metrics.py: ms, runs, clock, rates, % of cuBLAS, % of peak, intensity, threads). The configuration
is the one the record says ran (an autotuner's choice where there was one, the kernel's tile and threads as the run
recorded them), not the catalog's today.

A CSV has no types, and pandas infers them from what a column holds, so every column holds one kind of value: an id
or a seed is never all digits ("s000", not "000"), a baseline's `kernel` is its name (so that grouping by kernel
keeps it), every ratio is a speed ratio (above 1: the row is faster), as the page and the README give them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import reduce

from harness.analysis.measured import Measured
from harness.analysis.record import Comparison
from harness.analysis.relations import Relation
from harness.analysis.verdicts import LEVEL
from harness.catalog_types.kernel import PRECISION_CLASSES, precision_label
from harness.measure.numerics import NOT_CHECKED_NO_GPU, Verdict
from harness.records.lines import Result, Status
from harness.report import metrics
from harness.report.wording import baseline_label

Value = str | int | float | bool | None


@dataclass(frozen=True)
class Column:
    name: str
    doc: str                                       # docs/export.md's words for it
    value: Callable[[Result, Measured], Value]
    optional: bool = False   # written only where a row of the file has a value (a run with --aa, with a pair)


def metric(declared: metrics.Metric, pick: Callable[[object], Value] = lambda v: v) -> Callable[[Result, Measured],
                                                                                                  Value]:
    """A column that is the page's figure: the declared metric's value, as it reads it (`pick` takes a part)."""
    def value(r: Result, m: Measured) -> Value:
        v = declared.read(m, r)
        return None if v is None else pick(v)
    return value


def config(r: Result, m: Measured) -> dict:
    """The configuration that ran, as its record says: a Triton launch's settings with its autotuner's choice in place
    of what it was given (Measured.config); a CUDA kernel's tile and threads as the run recorded its facts."""
    if r.impl_id.is_cuda and (tile := m.tile(r)) is not None:
        return {"block_m": tile[0], "block_n": tile[1], "block_k": tile[2], "threads": m.threads(r)}
    return m.config(r)


def _autotuned(r: Result) -> bool:
    cfg = r.resources.config if r.resources is not None and r.resources.config else {}
    return isinstance(cfg.get("autotuned"), dict)


def _setting(name: str) -> Callable[[Result, Measured], Value]:
    def value(r: Result, m: Measured) -> Value:
        v = config(r, m).get(name)
        return v if isinstance(v, (int, float, str, bool)) else None
    return value


def _of(path: str) -> Callable[[Result, Measured], Value]:
    """The record's field at a dotted path ('timing.samples.rounds'); None where a part on the way is missing."""
    return lambda r, m: reduce(lambda v, name: getattr(v, name) if v is not None else None, path.split("."), r)


# The relations a row is compared in (harness/analysis/record.py), by the prefix of their columns.
RELATIONS: dict[str, tuple[str, str]] = {
    "cublas": (Relation.CUBLAS, "the cuBLAS of its precision class"),
    "tutorial": (Relation.TRITON_BASELINE, "the Triton tutorial GEMM of its class (Triton rows)"),
    "vs_cuda": (Relation.COUNTERPART, "its CUDA kernel (Triton rows)"),
    "gluon_vs_cuda": (Relation.GLUON, "its CUDA kernel, the same decisions through Triton's compiler (Gluon rows)"),
    "vs_gluon": (Relation.MODEL, "its kernel's Gluon mirror, the same tile in the other model (Triton rows)"),
    "cublas_tn": (Relation.CUBLAS_LAYOUT, "cuBLAS of its class given B^T stored, TN (rows that read B K-major)"),
    "cublas_packed": (Relation.CUBLAS_PACKED,
                      "with B's pack time added, cuBLAS of its class on row-major B (K-major B rows)"),
    "step": (Relation.STEP, "the rung before it on its ladder, in the same model"),
    "aa": (Relation.AA, "itself timed as a second entry (the A/A control, `rosetta run --aa`)"),
    "beside": (Relation.BESIDE, "the catalog kernel a user's pair was declared beside, in the same model"),
}


def _verdict_columns(prefix: str) -> list[Column]:
    against = RELATIONS[prefix][1]

    def part(get: Callable[[Comparison], Value]) -> Callable[[Result, Measured], Value]:
        def value(r: Result, m: Measured) -> Value:
            c = m.vs(r, RELATIONS[prefix][0]) if r.timed else None
            return get(c) if c is not None else None
        return value

    optional = prefix in ("aa", "beside")
    # the analysis keeps the ratio in time (the row's over the reference's); its speed ratio is the same estimate
    # and interval turned over, as the analysis's own % of cuBLAS is (record.Comparison.pct)
    out = [] if prefix == "cublas" else [
        Column(f"{prefix}_speed_ratio", f"the speed over the speed of {against} (the reference's time over the row's: "
               "above 1, the row is faster)", part(lambda c: 1 / c.ratio), optional),
        Column(f"{prefix}_speed_lo", f"its {LEVEL:.0%} interval, low end",
               part(lambda c: 1 / c.verdict.time.hi if c.verdict else None), optional),
        Column(f"{prefix}_speed_hi", "its high end", part(lambda c: 1 / c.verdict.time.lo if c.verdict else None),
               optional)]
    out.append(Column(f"{prefix}_call", f"the call against {against}: FAST, SLOW, SAME or AMBIGUOUS (empty for a "
                      "file of single bursts)", part(lambda c: c.call.value if c.call else None), optional))
    if prefix != "cublas_packed":  # no cycles there: the pack ran outside the clocked windows (record.packed)
        out.append(Column(f"{prefix}_cycles_call", "the same call made in SM cycles; `clock error` where both clocks "
                          "were read but the probe's error was not measured by the run or is not below the call's "
                          "margin, so that no call in cycles is made; empty where no clock was read",
                          part(_cycles_call), optional))
    if prefix in ("cublas", "step", "beside"):
        out.append(Column(f"{prefix}_reference", "the row it is compared with: kernel [implementation], or the "
                          "baseline's name", part(lambda c: f"{c.reference[0]} [{c.reference[1]}]"
                                                  if c.reference[0] else c.reference[1]), optional))
    return out


def _cycles_call(c: Comparison) -> Value:
    if c.verdict is None:
        return None
    if c.verdict.cycles is not None:
        return c.verdict.cycles.call.value
    return "clock error" if c.verdict.cycles_gated else None


def _numerics(r: Result, m: Measured) -> str:
    """What became of the row's numerics, where its result would stand: passed, what failed first, or why not run."""
    n = r.numerics
    if n is not None:
        return "passed" if n.passed else "failed: " + "; ".join(n.failure_reasons())
    if r.status is Status.COMPILED:
        return NOT_CHECKED_NO_GPU
    return f"not run: {r.reason}" if r.reason else "not run"


def _seed(r: Result, m: Measured) -> str:
    """The seed document as kernel ids name it (s000), or whose the kernel is: never all digits (see the module)."""
    facts = r.kernel_facts
    if facts is None:
        return "baseline" if r.kernel is None else "unknown"
    if facts.seed:
        return f"s{facts.seed}"
    return "yours" if r.kernel in m.catalog.by_id and m.catalog.by_id[r.kernel].declared else "ours"


LAYERS = ("exact", "random", "subnormal", "scaled")


def _layer(layer: str, field: str) -> Callable[[Result, Measured], Value]:
    def value(r: Result, m: Measured) -> Value:
        v: Verdict | None = r.numerics.layers.get(layer) if r.numerics is not None else None
        return getattr(v, field) if v is not None else None
    return value


def _layer_columns(layer: str) -> list[Column]:
    exact = layer == "exact"
    out = [Column(f"{layer}_passed", f"the {layer} layer passed (empty: not run)", _layer(layer, "passed")),
           Column(f"{layer}_error", f"its normwise forward error{' (0 for bit-exact)' if exact else ''}",
                  _layer(layer, "error"))]
    if not exact:
        out += [Column(f"{layer}_componentwise", "its componentwise forward error (worst output)",
                       _layer(layer, "componentwise")),
                Column(f"{layer}_bound", "the bound both errors are held to", _layer(layer, "bound")),
                Column(f"{layer}_vendor_error", f"{baseline_label('fp32')}'s normwise error on the same inputs "
                       "(fp32-class rows)",
                       _layer(layer, "vendor_error"))]
    return out


COLUMNS: tuple[Column, ...] = (
    Column("file", "the results file", lambda r, m: m.file.path.name if m.file.path else None),
    Column("device", "the GPU that measured it, with its index in a --gpus run (cpu-interpreter for the CPU tier)",
           lambda r, m: f"{r.device} (GPU {r.gpu})" if r.gpu else r.device),
    Column("problem", "the problem as the report names it", lambda r, m: r.problem.label),
    Column("op", "sgemm or sgemv", lambda r, m: r.op),
    Column("M", "rows of A and C (sgemv: of A and y)", lambda r, m: r.problem.M),
    Column("N", "columns of B and C (sgemv: of A)", lambda r, m: r.problem.N),
    Column("K", "the inner dimension (1 for sgemv)", lambda r, m: r.problem.K),
    Column("alpha", "C = alpha*A*B + beta*C", lambda r, m: r.problem.alpha),
    Column("beta", "the scalar of C (C is not read where it is 0)", lambda r, m: r.problem.beta),
    Column("kernel", "the kernel's id; a baseline's name for a baseline (cublas, triton-tutorial, ...), so that "
           "grouping by kernel keeps the baselines", lambda r, m: r.kernel or r.impl),
    Column("impl", "the implementation: cuda, cuda:cupy, triton:<form>, gluon:<form>, or a baseline's name",
           lambda r, m: r.impl),
    Column("model", "cuda, triton, gluon, or the baseline's name", lambda r, m: r.model),
    Column("label", "how tables name the implementation", metric(metrics.IMPL)),
    Column("idea", "the kernel's idea, as the run recorded it (baseline for a baseline)",
           lambda r, m: r.kernel_facts.idea if r.kernel_facts else "baseline"),
    Column("seed", "the document the kernel is from, as kernel ids name it (s000 to s004); ours: tile-rosetta's own; "
           "yours: a user's pair; baseline", _seed),
    Column("declared", "a user's own pair (rosetta run --pair)",
           lambda r, m: bool(r.kernel and r.kernel in m.catalog.by_id and m.catalog.by_id[r.kernel].declared)),
    Column("precision", f"the precision class: {', '.join(PRECISION_CLASSES)}", metric(metrics.PRECISION)),
    Column("precision_label", "the class as the report names it, caveat included",
           lambda r, m: precision_label(r.precision)),
    Column("fp32_accurate", "the class is held to fp32's accuracy ("
           + ", ".join(p for p, c in PRECISION_CLASSES.items() if c.fp32_accurate) + "; not "
           + ", ".join(p for p, c in PRECISION_CLASSES.items() if not c.fp32_accurate) + ")",
           lambda r, m: PRECISION_CLASSES[r.precision].fp32_accurate),
    Column("summit", "the kernel is its ladder's declared summit (CONTRIBUTING.md): the best fp32 SIMT rung",
           lambda r, m: any(r.kernel == k.id for ladder in m.catalog.ladders for k in ladder.summit)),
    Column("b_layout", "row (B is K x N) or kmajor (B^T stored)", _of("kernel_facts.b_layout")),
    Column("status", "ok, failed, skipped or compiled (CPU tier: built, not run)", lambda r, m: r.status.value),
    Column("reason", "why it failed, was skipped or was not run", lambda r, m: r.reason or None, optional=True),
    Column("numerics", f"passed; failed: what the first layer to fail saw; {NOT_CHECKED_NO_GPU}; not run: why",
           _numerics),
    Column("config", "the configuration that ran, as JSON: a Triton launch's settings with the autotuner's choice, "
           "a CUDA kernel's tile and threads",
           lambda r, m: json.dumps(cfg, sort_keys=True) if (cfg := config(r, m)) else None),
    Column("autotuned", "the configuration is an autotuner's choice", lambda r, m: _autotuned(r)),
    Column("block_m", "output rows per block or program, as run", _setting("block_m")),
    Column("block_n", "output columns per block or program (sgemv: columns per step)", _setting("block_n")),
    Column("block_k", "the K step", _setting("block_k")),
    Column("num_warps", "Triton's warps per program", _setting("num_warps")),
    Column("num_stages", "Triton's pipeline stages", _setting("num_stages")),
    Column("threads", "threads per block or program, as launched", metric(metrics.THREADS)),
    Column("median_ms", "median device time of one run, ms (L2 flushed before each)", metric(metrics.MS)),
    Column("p20_ms", "20th percentile", _of("timing.p20_ms")),
    Column("p80_ms", "80th percentile", _of("timing.p80_ms")),
    Column("min_ms", "fastest run", _of("timing.min_ms")),
    Column("max_ms", "slowest run", _of("timing.max_ms")),
    Column("runs", "timed runs", metric(metrics.RUNS)),
    Column("rounds", "interleaved rounds it took part in", _of("timing.samples.rounds")),
    Column("clock_mhz", "median SM clock over its timed runs, MHz", metric(metrics.MHZ)),
    Column("clock_error", "the SM clock probe's error its samples prove (relative: the most a round's median reading "
           "exceeds the GPU's maximum clock by); a call in cycles needs it below the call's margin",
           _of("timing.samples.clock_error")),
    Column("throttled_runs", "runs below the throttle threshold of the GPU's maximum clock",
           _of("timing.samples.throttled_count")),
    Column("tflops", "2*M*N*K / median time (sgemm)", _of("figures.tflops")),
    Column("gbps", "bytes of A, x and y (sgemv) or of A, B and C once / median time", _of("figures.gbps")),
    Column("intensity", "FLOP per byte its tiling must move, at the tile that ran", metric(metrics.INTENSITY)),
    Column("pct_peak", "% of the measured FP32 FMA peak (sgemm fp32) or copy bandwidth (sgemv)",
           metric(metrics.PEAK)),
    Column("pct_cublas", "% of the speed of the cuBLAS of its class on the same problem (the analysis's estimate)",
           metric(metrics.PCT, lambda v: v[0])),
    Column("pct_cublas_lo", f"its {LEVEL:.0%} interval, low end", metric(metrics.PCT, lambda v: v[1])),
    Column("pct_cublas_hi", "its high end", metric(metrics.PCT, lambda v: v[2])),
    *(c for prefix in RELATIONS for c in _verdict_columns(prefix)),
    Column("numerics_passed", "every numerics layer and the beta = 0 test passed", _of("numerics.passed")),
    *(c for layer in LAYERS for c in _layer_columns(layer)),
    Column("beta0_observed", "with beta = 0 and NaN in C: honours or leaks NaN", _of("numerics.beta0.observed")),
    Column("beta0_declared", "what the kernel declares", _of("numerics.beta0.declared")),
    Column("registers", "registers per thread", _of("resources.registers")),
    Column("spills", "bytes spilled (ptxas)", _of("resources.spills")),
    Column("shared_bytes", "shared memory per block, bytes", _of("resources.shared_bytes")),
    Column("local_bytes", "local memory per thread, bytes", _of("resources.local_bytes")),
    Column("occupancy", "theoretical sm_90 occupancy, 0 to 1", _of("resources.occupancy")),
    Column("resources_source", "how the resources were read", lambda r, m: (r.resources.source or None)
           if r.resources is not None else None),
    Column("pack_ms", "one-off time of packing B to K-major (not in median_ms)", lambda r, m: r.pack_ms),
)


def columns_of(m: Measured) -> list[Column]:
    """The columns of a file: every one, but an optional one only where a row of it has a value."""
    return [c for c in COLUMNS if not c.optional or any(c.value(r, m) is not None for r in m.all)]


SAMPLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("file", "the results file"),
    ("problem", "the problem as the report names it"),
    ("op", "sgemm or sgemv"),
    ("M", "the problem's dimensions, as in the first table"), ("N", ""), ("K", ""),
    ("kernel", "the kernel's id; a baseline's name for a baseline, as in the first table"),
    ("impl", "the implementation"),
    ("precision", "the precision class"),
    ("entry", "main, or aa for the A/A control's second entry"),
    ("round", "the interleaved round, from 0"),
    ("position", "its place in that round's shuffled order, from 0"),
    ("run", "the run within its burst, from 0"),
    ("ms", "device time of the run, ms"),
    ("sm_clock_mhz", "mean SM clock over the run's window as the probe read it, MHz (empty: not read)"),
    ("sm_clock_used_mhz", "the same, a reading above the GPU's maximum SM clock brought down to it: the clock the "
                          "cycles and the cycles calls use, MHz"),
    ("sm_cycles", "SM cycles of the run: ms x sm_clock_used_mhz x 1000 (empty: no clock)"),
    ("throttled", "below the throttle threshold of the GPU's maximum clock"),
    ("batch", "runs of one batch were taken in the same rounds (pairable round by round)"),
)


def rows(m: Measured) -> Iterator[dict[str, Value]]:
    """A row per record (implementation and problem), in the page's order, of the file's columns (columns_of)."""
    columns = columns_of(m)
    for r in sorted(m.all, key=lambda r: (m.problems.index(r.problem), m.order(r))):
        yield {c.name: c.value(r, m) for c in columns}


def sample_rows(m: Measured) -> Iterator[dict[str, Value]]:
    """A row per timed run of every record that kept its samples (files from before the rounds have none)."""
    for r in sorted(m.all, key=lambda r: (m.problems.index(r.problem), m.order(r))):
        if r.timing is None:
            continue
        for entry, samples in (("main", r.timing.samples), ("aa", r.timing.aa)):
            if samples is None:
                continue
            cycles, used = samples.cycles, samples.clock
            for rnd, idx in enumerate(samples.by_round()):
                for run, i in enumerate(idx):
                    yield {"file": m.file.path.name if m.file.path else None, "problem": r.problem.label,
                           "op": r.op, "M": r.problem.M, "N": r.problem.N, "K": r.problem.K,
                           "kernel": r.kernel or r.impl, "impl": r.impl, "precision": r.precision, "entry": entry,
                           "round": rnd, "position": samples.order[rnd], "run": run, "ms": samples.ms[i],
                           "sm_clock_mhz": samples.mhz[i], "sm_clock_used_mhz": used[i],
                           "sm_cycles": round(cycles[i] * 1e6) if cycles[i] is not None else None,
                           "throttled": samples.throttled(i), "batch": samples.batch}


def markdown() -> str:
    """The two tables of columns as docs/export.md shows them (a test holds the page to this)."""
    lines = ["`--csv`: a row per implementation and problem.", "", "| column | what it holds |", "|---|---|"]
    lines += [f"| `{c.name}` | {c.doc}{' (only in a file where a row has one)' if c.optional else ''} |"
              for c in COLUMNS]
    lines += ["", "`--samples`: a row per timed run.", "", "| column | what it holds |", "|---|---|"]
    lines += [f"| `{name}` | {doc} |" for name, doc in SAMPLE_COLUMNS]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
