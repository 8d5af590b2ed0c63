"""What the compilers chose: the SASS table of each idea's kernels (their resources are metrics.RESOURCES), and the
CUDA build as a decision the report shows: the options every kernel was built with, and what CuPy's default build
(-ftz=true, the integer arch) costs and buys, measured in the same run on the seed kernels (the records:
harness/analysis/compiled.py).
Why one kernel is faster is not read off these tables: causes.py weighs their facts beside the counters."""

from __future__ import annotations

from harness.analysis.compiled import TOLERANCE, Uncompiled, build_pairs, subnormal_error
from harness.analysis.measured import Measured
from harness.analysis.verdicts import Call
from harness.records.lines import Result
from harness.report import fmt
from harness.report.doc import Cell, Table

# The SASS classes every table shows, even at zero: a zero is the finding (no LDG.128, no HMMA), so these
# columns never disappear. Other classes appear only where some kernel emits them.
SASS_ALWAYS = ("FFMA", "LDG.32", "LDG.64", "LDG.128", "LDS.32", "LDS.64", "LDS.128", "BAR", "SHFL", "HMMA",
               "HGMMA")
SASS_WHEN_PRESENT = ("FMUL", "FADD", "LDSM", "STS", "STSM", "LDGSTS", "UTMALDG", "STG", "LDL", "STL")


def sass_table(records: list[Result]) -> Table | None:
    mixes = [(r, r.resources.sass) for r in records if r.resources and r.resources.sass]
    if not mixes:
        return None
    extra = [k for k in SASS_WHEN_PRESENT if any(mix.get(k) for _, mix in mixes)]
    cols = [*SASS_ALWAYS, *extra, "total"]
    table = Table([("kernel", False), ("implementation", False), *((c, True) for c in cols)], cls="sass")
    for r, mix in mixes:
        table.add([Cell(r.kernel or "", code=True), Cell(r.label),
                   *(Cell(str(mix.get(c, 0)), num=True, cls="" if mix.get(c) else "zero") for c in cols)])
    table.notes.append("static instruction counts in the compiled kernel (not executed counts). LDG/LDS.32, .64, "
                       ".128: global / shared loads by width in bits; LDSM: matrix loads from shared memory; "
                       "LDGSTS: asynchronous global-to-shared copies; HMMA/HGMMA: tensor-core instructions; "
                       "LDL/STL: local memory (spills).")
    return table


def missing_text(u: Uncompiled) -> str:
    """'KERNEL [impl]: no resource report (why)', for an implementation without compiled resources."""
    r = u.record
    reason = fmt.first_line(r.reason, 200)
    why = (f" (the compile failed: {fmt.first_line(u.error, 200)})" if u.error else
           f" ({r.status.value}: {reason})" if reason else " in this run")
    return f"{r.kernel} [{r.label}]: no resource report{why}"


def build_text(m: Measured) -> str | None:
    """One line naming the build of this run (None for files written before the suite owned its build)."""
    b = m.header.build
    if not b:
        return None
    variants = b.get("variants", {})
    default = variants.get("default", {})
    text = (f"{b.get('compiler', 'NVRTC')} → cubin for {default.get('arch') or b.get('arch')}, options "
            f"{' '.join(default.get('options', []))}, loaded by cupy.RawModule(path=...)")
    others = [f"{name}: {v.get('arch')} {' '.join(v.get('options', []))} ({v.get('why', '')})"
              for name, v in variants.items() if name != "default"]
    return text + ("; studied beside it: " + "; ".join(others) if others else "")


def build_study_table(m: Measured) -> Table | None:
    """Each seed kernel under the suite's build beside CuPy's default build, on the problem both were timed on."""
    pairs = build_pairs(m)
    if not pairs:
        return None
    table = Table([("kernel", False), ("problem", False), ("suite build ms", True), ("CuPy build ms", True),
                   ("CuPy / suite time", True), ("subnormal error, suite", True), ("subnormal error, CuPy", True)],
                  cls="build-study")
    for p in pairs:
        own, r, ratio = p.own, p.study, p.ratio
        assert own.timing is not None and r.timing is not None
        table.add([Cell(r.kernel or "", code=True), Cell(r.problem.label), Cell(fmt.ms(own.timing.median_ms), num=True),
                   Cell(fmt.ms(r.timing.median_ms), num=True),
                   Cell(f"{ratio:.3f}", num=True, cls="warn" if abs(ratio - 1) > TOLERANCE else ""),
                   Cell(fmt.sci(subnormal_error(own)), num=True),
                   Cell(fmt.sci(subnormal_error(r)), num=True, cls="bad")])
    ratios = [p.ratio for p in pairs]
    # faster only where the rounds call it FAST; a file of single bursts says the medians' ratios and no call
    called = [p for p in pairs if p.speed is not None]
    faster = [p.study.kernel or "" for p in called if p.speed.call is Call.FAST]  # type: ignore[union-attr]
    buys = ("a file of single bursts: no call is made on these ratios" if not called else
            f"the rounds call it faster only for {fmt.joined(faster)}" if faster else
            "the rounds call it faster for none of them")
    table.notes.append(f"{len(ratios)} seed kernels; CuPy's build takes {min(ratios):.3f}x to {max(ratios):.3f}x the "
                       f"suite build's time (median of each, same timer, same run; under 1 is faster): {buys}. What "
                       "it costs is the subnormal layer: every product flushed to zero leaves the forward error "
                       "shown, where the suite's build keeps subnormals, like cuBLAS and Triton.")
    return table
