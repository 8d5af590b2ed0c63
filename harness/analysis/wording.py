"""How the report names and says what it shows, so that every page, table and finding reads alike: a precision
class, the cuBLAS a row is held against, a Triton launch's settings, a record and an idea; and a verdict: "faster" and
"slower" only for FAST and SLOW, a tie for SAME, undecided for AMBIGUOUS, always with the interval, and the clock
named where time and cycles call it differently."""

from __future__ import annotations

from collections.abc import Callable

from harness.analysis import anchors, fmt
from harness.analysis.fmt import Inline, Link, Mono
from harness.analysis.record import Analysis, Comparison
from harness.analysis.verdicts import Call, Verdict
from harness.baselines import cublas_of
from harness.catalog_types.kernel import PRECISION_CLASSES
from harness.catalog_types.tables import Catalog
from harness.records.lines import Result

# How the report names each precision class: the registry's label, caveat included ("bf16x3 (not fp32-accurate)").
PRECISION_TEXT = {p: c.label for p, c in PRECISION_CLASSES.items()}


def baseline_label(precision: str) -> str:
    return "cuBLAS TF32" if cublas_of(precision) == "cublas-tf32" else "cuBLAS fp32"


def config_text(cfg: dict) -> str:
    """A Triton launch's settings in a few words: '64×64×16 tile, 2 warps, 3 stages, unroll'."""
    dims = [cfg[k] for k in ("block_m", "block_n", "block_k") if k in cfg]
    parts = ["×".join(map(str, dims)) + " tile"] if dims else []
    if "num_warps" in cfg:
        parts.append(f"{cfg['num_warps']} warp{'s' if cfg['num_warps'] != 1 else ''}")
    if cfg.get("num_stages", 1) != 1:
        parts.append(f"{cfg['num_stages']} stages")
    skip = {"block_m", "block_n", "block_k", "num_warps", "num_stages"}
    for key, value in cfg.items():
        if key in skip:
            continue
        parts.append(key if value is True else f"no {key}" if value is False else f"{key} {value}")
    return ", ".join(parts)



def idea_link(catalog: Catalog, key: str) -> Link:
    return Link(catalog.ideas[key].title if key in catalog.ideas else key, anchors.href(anchors.idea(key)))


def who(r: Result) -> list[Inline]:
    """'`kernel`' for CUDA, 'Triton dot of `kernel`' for a counterpart, 'cuBLAS fp32' for a baseline."""
    if r.kernel is None:
        return [r.label]
    return [Mono(r.kernel)] if r.impl_id.is_cuda else [f"{r.label} of ", Mono(r.kernel)]


def speed(c: Comparison | None) -> str:
    """The subject's speed over the reference's (reference time / subject time) with its 95% interval."""
    if c is None:
        return "—"
    if c.verdict is None:
        return fmt.ratio_ci(1 / c.ratio)
    return verdict_speed(c.verdict)


def verdict_speed(v: Verdict) -> str:
    """A verdict's speed ratio (reference time / subject time) with its 95% interval: '1.25x [1.23–1.27]'."""
    t = v.time
    return fmt.ratio_ci(1 / t.ratio, 1 / t.hi, 1 / t.lo)


def relation(c: Comparison | None) -> str:
    """'faster', 'slower', 'a tie', 'undecided'; 'no verdict' for a file of single bursts."""
    if c is None or c.call is None:
        return "no verdict"
    return fmt.CALL_WORDS[c.call.value]


def sentence(c: Comparison | None, subject: str, reference: str) -> str:
    """'A is faster than B (1.05x [1.03–1.07])', 'A and B tie (...)', 'A against B is undecided (...)'."""
    if c is None:
        return f"{subject} and {reference} were not both timed"
    ratio = speed(c)
    if c.call is None:
        return f"{subject} runs at {ratio} the speed of {reference} (a single burst each: no verdict)"
    text = {Call.FAST: f"{subject} is faster than {reference} ({ratio})",
            Call.SLOW: f"{subject} is slower than {reference} ({ratio})",
            Call.SAME: f"{subject} and {reference} tie ({ratio}, within the {c.verdict.margin:.0%} margin)",
            Call.AMBIGUOUS: f"{subject} against {reference} is undecided ({ratio})"}[c.call]
    return text + clock_clause(c)


def clock_clause(c: Comparison | None) -> str:
    """Where the call in cycles differs from the call in time: the clock, not the code, made the difference."""
    if c is None or c.verdict is None or not c.verdict.clock_differs:
        return ""
    cyc = c.verdict.cycles
    return (f"; in cycles it is {fmt.CALL_WORDS[cyc.call.value]} ({fmt.ratio_ci(1 / cyc.ratio, 1 / cyc.hi, 1 / cyc.lo)}"
            "): the time difference is the SM clock's, a power effect, not the programming model's")


def terminal_cells(analysis: Analysis) -> Callable[[Result], tuple[str, str, str]]:
    """For the terminal table: a row's % of its cuBLAS with the interval, the call, and against the Triton
    tutorial."""

    def cells(r: Result) -> tuple[str, str, str]:
        if r.baseline and r.impl == cublas_of(r.precision):
            return ("100%", "-", "-")
        c = analysis.one(r, "cublas")
        pct = fmt.pct_ci(*c.pct()).replace("—", "-") if c is not None else "-"
        t = analysis.one(r, "triton-baseline")
        return (pct, fmt.call(c.call) if c is not None else "-",
                f"{speed(t)} {fmt.call(t.call)}" if t is not None else "-")

    return cells
