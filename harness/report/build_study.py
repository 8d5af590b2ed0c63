"""The CUDA build, as a decision the report shows: the options every kernel was built with, and what CuPy's
default build (-ftz=true, the integer arch) costs and buys, measured in the same run on the seed kernels."""

from __future__ import annotations

from harness.analysis.measured import Measured
from harness.report import fmt
from harness.report.tables import Cell, Table
from harness.run.records import Result

# A speed difference under this is run-to-run noise for one median (the run flags spreads over 5%).
TOLERANCE = 0.03


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


def _subnormal_error(r: Result | None) -> float | None:
    v = r.numerics.subnormal if r is not None and r.numerics is not None else None
    return v.error if v is not None else None


def build_study_table(m: Measured) -> Table | None:
    """Each seed kernel under the suite's build beside CuPy's default build, on the problem both were timed on."""
    study = [r for r in m.all if r.impl_id.is_build_study and r.timed and r.timing]
    if not study:
        return None
    table = Table([("kernel", False), ("problem", False), ("suite build ms", True), ("CuPy build ms", True),
                   ("CuPy / suite time", True), ("subnormal error, suite", True), ("subnormal error, CuPy", True)],
                  cls="build-study")
    for r in study:
        own = next((o for o in m.of_kernel(r.kernel or "", "cuda") if o.problem == r.problem and o.timed), None)
        if own is None or own.timing is None:
            continue
        ratio = r.timing.median_ms / own.timing.median_ms
        table.add([Cell(r.kernel or "", code=True), Cell(r.problem.label), Cell(fmt.ms(own.timing.median_ms), num=True),
                   Cell(fmt.ms(r.timing.median_ms), num=True),
                   Cell(f"{ratio:.3f}", num=True, cls="warn" if abs(ratio - 1) > TOLERANCE else ""),
                   Cell(fmt.sci(_subnormal_error(own)), num=True),
                   Cell(fmt.sci(_subnormal_error(r)), num=True, cls="bad")])
    if not table:
        return None
    ratios = [float(row[4].text) for row in table.rows]
    faster = [row[0].text for row in table.rows if float(row[4].text) < 1 - TOLERANCE]
    buys = (f"it buys speed beyond {TOLERANCE:.0%} only for {fmt.joined(faster)}" if faster else
            f"it buys no speed beyond {TOLERANCE:.0%} on any of them")
    table.notes.append(f"{len(ratios)} seed kernels; CuPy's build takes {min(ratios):.3f}x to {max(ratios):.3f}x the "
                       f"suite build's time (median of each, same timer, same run; under 1 is faster): {buys}. What "
                       "it costs is the subnormal layer: every product flushed to zero leaves the forward error "
                       "shown, where the suite's build keeps subnormals, like cuBLAS and Triton.")
    return table
