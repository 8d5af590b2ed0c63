"""How the report names and says what it shows, so that every page, table and finding reads alike: a precision
class, the cuBLAS a row is held against, a Triton launch's settings, a record and an idea; and a verdict: "faster" and
"slower" only for FAST and SLOW, a tie for SAME, undecided for AMBIGUOUS, always with the interval, and the clock
named where time and cycles call it differently."""

from __future__ import annotations

from harness.analysis.measured import Measured
from harness.analysis.overview import Part
from harness.analysis.record import Comparison
from harness.analysis.verdicts import LEVEL, Call, Verdict
from harness.baselines import cublas_of
from harness.catalog_types.kernel import PRECISION_CLASSES, Published
from harness.catalog_types.tables import Catalog
from harness.identity import ImplId
from harness.records.lines import Result
from harness.report import anchors, fmt
from harness.report.fmt import Inline, Link, Mono

# How the report names each precision class: the registry's label, caveat included ("bf16x3 (not fp32-accurate)").
PRECISION_TEXT = {p: c.label for p, c in PRECISION_CLASSES.items()}
# Each class's short name (the registry's text) and the interval every verdict carries: the report says them through
# these, never restating a class, a level or a threshold (a test reads the report's sources for any it restates).
CLASS = {p: c.text for p, c in PRECISION_CLASSES.items()}
INTERVAL = f"{LEVEL:.0%} interval"


def baseline_label(precision: str, b_layout: str = "row") -> str:
    """The cuBLAS a class is held against, as the tables name it; given B^T where the rows read B K-major."""
    return ImplId.from_json(cublas_of(precision, b_layout)).label()


# How a launch setting beyond the tile, warps and stages is named; the precision is the row's class, said beside it.
SETTING_WORDS = {"group_m": "group", "b_kmajor": "B K-major"}
UNSAID = {"block_m", "block_n", "block_k", "num_warps", "num_stages", "input_precision", "autotuned"}


def config_text(cfg: dict, op: str = "sgemm", brief: bool = False) -> str:
    """A Triton launch's settings in a few words: '64×64×16 tile, 2 warps, 3 stages, group 8, unroll' (sgemv: '4 rows
    a program, 512 columns a step: 'rows 4, step 512'); `brief`: the tile, warps, stages and group only."""
    if op == "sgemv" and "block_m" in cfg:
        parts = [f"rows {cfg['block_m']}, step {cfg.get('block_n')}"]
    else:
        dims = [cfg[k] for k in ("block_m", "block_n", "block_k") if k in cfg]
        parts = ["×".join(map(str, dims)) + " tile"] if dims else []
    if "num_warps" in cfg:
        parts.append(fmt.plural(cfg["num_warps"], "warp"))
    if cfg.get("num_stages", 1) != 1:
        parts.append(f"{cfg['num_stages']} stages")
    for key, value in cfg.items():
        name = SETTING_WORDS.get(key, key)
        if key not in UNSAID and not (key == "b_kmajor" and value is False) and (not brief or key == "group_m"):
            parts.append(name if value is True else f"no {name}" if value is False else f"{name} {value}")
    return ", ".join(parts)


def part_title(part: Part) -> str:
    """A part of the page as its heading names it."""
    name = "GEMM" if part.op == "sgemm" else "GEMV"
    if part.declared:
        return f"Your {name} pairs" + ("" if part.simt else " on tensor cores")
    if part.op == "sgemm" and part.simt:
        return "The fp32 SIMT GEMM ladder"
    return f"{name} on tensor cores" if not part.simt else f"{name} (fp32 SIMT)"


def section_title(catalog: Catalog, section: str) -> str:
    """A document's section heading as it gives it, with the English beside a Chinese one."""
    english = catalog.section_en.get(section)
    return f"“{section}” ({english})" if english else f"“{section}”"


def seed_title(catalog: Catalog, key: str) -> str:
    seed = catalog.seeds[key]
    return f"“{seed.title}”" + (f" ({seed.title_en})" if seed.title_en != seed.title else "")


def idea_link(catalog: Catalog, key: str) -> Link:
    return Link(catalog.ideas[key].title if key in catalog.ideas else key, anchors.href(anchors.idea(key)))


def who(r: Result) -> list[Inline]:
    """'`kernel`' for CUDA, 'Triton dot of `kernel`' for a counterpart, 'cuBLAS fp32' for a baseline."""
    if r.kernel is None:
        return [r.label]
    return [Mono(r.kernel)] if r.impl_id.is_cuda else [f"{r.label} of ", Mono(r.kernel)]


def speed(c: Comparison | None) -> str:
    """The subject's speed over the reference's (reference time / subject time) with its 95% interval, its estimate
    the comparison's own (in full)."""
    if c is None:
        return "—"
    return fmt.ratio_ci(1 / c.ratio) if c.verdict is None else verdict_speed(c.verdict, c.ratio)


def pack(c: Comparison, names: tuple[str, str] = ("", "")) -> str:
    """Where a K-major reader's pack of B was added to its runs against a row-major one: said, with its time."""
    if not c.pack_ms:
        return ""
    side = names[0] if c.pack_on == "subject" else names[1]
    return f", with {side + chr(39) + 's' if side else 'its'} {fmt.ms(c.pack_ms)} ms pack of B"


def pct_of(m: Measured, c: Comparison) -> str:
    """'96.7% [96.5–97.0] of cuBLAS TF32, B^T stored (TN)': a comparison as % of its reference, which it names (and
    the pack of B, where it was added)."""
    return f"{fmt.pct_ci(*c.pct())} of {m.reference(c).label}{pack(c)}"


def verdict_speed(v: Verdict, ratio: float | None = None) -> str:
    """A verdict's speed ratio (reference time / subject time) with its 95% interval: '1.25x [1.23–1.27]'."""
    t = v.time
    text = fmt.ratio_ci(1 / (ratio or t.ratio), 1 / t.hi, 1 / t.lo)
    # too few rounds for a 95% interval: the range is said as what it is
    return text if t.at_level else f"{text} (range of {min(v.rounds)} rounds, {t.coverage:.1%} coverage)"


def relation_of(call: Call) -> str:
    return fmt.CALL_WORDS[call.value]


def relation(c: Comparison | None) -> str:
    """'faster', 'slower', 'a tie', 'undecided'; 'no verdict' for a file of single bursts."""
    return "no verdict" if c is None or c.call is None else relation_of(c.call)


def sentence(c: Comparison | None, subject: str, reference: str, mhz: Clocks = (None, None)) -> str:
    """'A is faster than B (1.05x [1.03–1.07])', 'A and B tie (...)', 'A against B is undecided (...)', with the
    clock's part where time and cycles call it differently (clock_clause)."""
    if c is None:
        return f"{subject} and {reference} were not both timed"
    ratio = speed(c) + pack(c, (subject, reference))
    if c.call is None:
        return f"{subject} runs at {ratio} the speed of {reference} (a single burst each: no verdict)"
    text = {Call.FAST: f"{subject} is faster than {reference} ({ratio})",
            Call.SLOW: f"{subject} is slower than {reference} ({ratio})",
            Call.SAME: f"{subject} and {reference} tie ({ratio}, within the {c.verdict.margin:.0%} margin)",
            Call.AMBIGUOUS: f"{subject} against {reference} is undecided ({ratio})"}[c.call]
    return text + clock_clause(c, subject, reference, mhz)


# The median SM clock of each side of a comparison (subject, reference) in MHz, where the records have one.
Clocks = tuple[float | None, float | None]
DECIDED = (Call.FAST, Call.SLOW)


def clock_clause(c: Comparison | None, subject: str, reference: str, mhz: Clocks = (None, None)) -> str:
    """Where the call in cycles differs from the call in time: which side ran at the higher SM clock, and whether
    that made the time difference (decided in time, not in cycles), hid one (decided in cycles, not in time) or
    reversed it. The side is read off the verdict itself: cycles are time x clock, so the cycle ratio over the time
    ratio is the ratio of the two sides' clocks."""
    if c is None or c.verdict is None or not c.verdict.clock_differs:
        return ""
    time, cyc = c.verdict.time, c.verdict.cycles
    assert cyc is not None
    subject_higher = cyc.ratio > time.ratio
    higher = subject if subject_higher else reference
    clocks = (mhz if subject_higher else mhz[::-1])
    said = (f" (median {clocks[0]:.0f} against {clocks[1]:.0f} MHz)"
            if clocks[0] is not None and clocks[1] is not None and clocks[0] > clocks[1] else "")
    if time.call in DECIDED and cyc.call in DECIDED:
        effect = "which reversed the order of their cycles"
    elif time.call in DECIDED:
        effect = "which made the time difference"
    elif cyc.call in DECIDED:
        more = subject if cyc.call is Call.SLOW else reference
        effect = f"which hid a difference in the code: {more} needs more cycles"
    else:
        effect = "and the two calls differ by the clock alone"
    return (f"; in cycles it is {fmt.CALL_WORDS[cyc.call.value]} ({fmt.ratio_ci(1 / cyc.ratio, 1 / cyc.hi, 1 / cyc.lo)}"
            f"): {higher} ran at the higher SM clock{said}, {effect}")


def withheld(c: Comparison | None) -> str:
    """Where the cycles call was withheld because the clock probe's error, measured, is not below the margin
    (Verdict.cycles_gated), that said with both figures; else "". A run that did not measure it makes no cycles call
    at all, said once for the page (harness/report/method.py probe_sentence), not in every cell."""
    v = c.verdict if c is not None else None
    if v is None or not v.cycles_gated or v.clock_error is None:
        return ""
    return f"no cycles call: the clock probe's error ({v.clock_error:.1%}) is not below the ±{v.margin:.0%} margin"


def published_text(pub: Published | None) -> str:
    if pub is None:
        return ""
    # As the document wrote them: 6.0 stays 6.0.
    said = ((pub.ms, "{} ms"), (pub.tflops, "{} TFLOP/s"), (pub.pct_cublas, "{:.1f}% of cuBLAS"),
            (pub.pct_bandwidth, "{:g}% of bandwidth"), (pub.stride, "stride {}"), (pub.intensity, "{:g} FLOP/B"))
    return ", ".join(form.format(v) for v, form in said if v is not None)
