"""Method and provenance on the page: how every figure was taken, with what, on what, from which documents."""

from __future__ import annotations

import shlex
from collections import Counter
from datetime import datetime

from harness.analysis.clock import probe_status
from harness.analysis.measured import Measured
from harness.analysis.overview import TimingSummary, timing_summary
from harness.analysis.verdicts import LEVEL, median_interval
from harness.device.specs import spec
from harness.measure.numerics import VENDOR_MULTIPLE
from harness.measure.rounds import ENTRY_BUDGET_MS, MIN_ROUNDS, ROUNDS
from harness.measure.timing import CLOCK_DROP_LIMIT, L2_FLUSH_BYTES, SPREAD_LIMIT, THROTTLE_FRACTION
from harness.records.lines import Status
from harness.report import anchors, fmt
from harness.report.compiled import build_study_table, build_text
from harness.report.doc import Cell, Inline, Notice, Para, Section, Table, TableBlock
from harness.report.metrics import CALLS
from harness.report.wording import CLASS, PRECISION_TEXT, baseline_label


def when(stamp: str | None) -> str:
    if not stamp:
        return "?"
    try:
        return datetime.fromisoformat(stamp).strftime("%Y-%m-%d %H:%M:%S %Z").strip()
    except ValueError:
        return stamp


def command(m: Measured) -> str:
    return "rosetta " + shlex.join(str(a) for a in m.header.argv) if m.header.argv else "?"


def timer_paragraph(m: Measured) -> list[Inline]:
    t = timing_summary(m)
    if t.rounds:
        return rounds_paragraph(m, t)
    if not t.rows:
        return ["Nothing was timed in this run: it ran where there is no GPU, so the figures are the numerics "
                "verdicts and the compiled resources only."]
    parts: list[Inline] = [
        "CUDA kernels (through CuPy), Triton kernels and cuBLAS are timed by one timer, each as a bare launch "
        "(operands checked once beforehand, never inside the timed call): CUDA events around each run, the L2 "
        f"flushed before every run by writing a {L2_FLUSH_BYTES // 2**20} MiB buffer, a warm-up, then the "
        f"median of N runs. N is chosen to fill about {m.header.rep_ms:g} ms per implementation (at least 10 "
        f"where time allows): here from {t.runs[0]} to {t.runs[1]} runs per row, given in each results table's "
        f"runs column. The spread, (p80 − p20) / median, runs from {fmt.pct(100 * t.spread[0])} to "
        f"{fmt.pct(100 * t.spread[1])}; above {SPREAD_LIMIT:.0%} a row is flagged. "]
    if t.clocks:
        parts.append(f"The SM clock is read before and after each row's runs: {t.clocks[0]}–{t.clocks[1]} MHz here; "
                     f"{fmt.plural(t.clock_fell, 'row')} saw it fall by more than {CLOCK_DROP_LIMIT:.0%} "
                     "(flagged in its row).")
    else:
        parts.append("The SM clock could not be read on this machine (no NVML).")
    return parts


def rounds_paragraph(m: Measured, t: TimingSummary) -> list[Inline]:
    """The verdict design as this run applied it: rounds, samples, clocks, margins, and the A/A control if run."""
    assert t.clocks is not None
    parts: list[Inline] = [
        "CUDA kernels (through CuPy), Triton kernels and cuBLAS are timed by one timer, each as a bare launch "
        "(operands checked once beforehand, never inside the timed call). Every implementation of a problem is "
        f"timed in the same {t.max_rounds} interleaved rounds, in a shuffled order each round, a short burst each: "
        "one untimed run, then runs with the L2 flushed before every run (a write of "
        f"{L2_FLUSH_BYTES // 2**20} MiB), bracketed by CUDA events and by two probes that read every SM's cycle "
        "counter and the GPU's nanosecond timer, so each run has a time and a mean SM clock, hence a cycle count. "
        f"Here from {t.runs[0]} to {t.runs[1]} runs per row (a slow kernel takes part in the first {MIN_ROUNDS} "
        f"rounds or more, within {ENTRY_BUDGET_MS / 1e3:g} s of device time); SM clocks {t.clocks[0]:.0f}–"
        f"{t.clocks[1]:.0f} MHz; {fmt.plural(t.throttled, 'run')} under {THROTTLE_FRACTION:.0%} of the maximum "
        "clock (throttled: kept and counted in its row's flags, not dropped). A row's time is that of its bursts "
        "between the other rows' runs, not of a sustained run at the power limit (the regimes section). ",
        "Every ratio on this page is a verdict (harness/analysis/verdicts.py): the median over the rounds of the "
        "ratio of the two sides' per-round medians, paired round by round (one outlying round moves it little), "
        f"with the {LEVEL:.0%} interval of a median that assumes nothing of the rounds' distribution: the k-th "
        f"smallest and largest of the rounds' ratios, k the largest that covers at least {LEVEL:.0%} ({ROUNDS} "
        f"rounds: k = {median_interval(list(range(ROUNDS)))[0] + 1:.0f}, {median_interval(list(range(ROUNDS)))[2]:.1%}"
        f"; two files: the Mann–Whitney interval of the shift). Fewer than {MIN_ROUNDS} rounds cannot cover "
        f"{LEVEL:.0%}: their range is said as a range and makes no call. {CALLS[0].upper() + CALLS[1:]}. ",
        probe_sentence(m)]
    if t.aa_called:
        parts.append(f"A/A control (every implementation timed as a second entry of the same rounds): {t.aa_same} "
                     f"of {t.aa_called} called SAME ({100 * t.aa_same / t.aa_called:.1f}%).")
    return parts


def probe_sentence(m: Measured) -> str:
    """What the clock probe's readings prove of its error and whether it was measured: what cycles calls rest on."""
    p = probe_status(m.header, m.all)
    if (r := p.readings) is None:
        return "No clock was read with the GPU's maximum known: no comparison is called in cycles. "
    said = (f"The clock probe read {r.over:,} of {r.runs:,} windows ({r.share_over:.1%}) above the GPU's maximum SM "
            f"clock of {r.device_max_mhz:.0f} MHz, up to {r.max_mhz:.0f} MHz: its error is at least {r.worst:.1%}, a "
            "lower bound those readings prove, not a measure of it (they are brought down to the maximum). ")
    if p.measured is None:
        return said + "This run did not measure the probe's error, so nothing on this page is called in cycles. "
    errors = ", ".join(f"{e:.1%} at {ms:g} ms" for ms, e in sorted(p.measured.items()))
    return said + (f"Its error measured against NVML's clock at the run's start (95th percentile by window length): "
                   f"{errors}; a comparison is called in cycles where that error, or the excess its readings prove if "
                   "larger, is below its margin. ")


def _seed_table(m: Measured) -> Table:
    table = Table([("seed", False), ("document (its file under it)", False), ("in English", False), ("GPU", False),
                   ("sections of its kernels here", False)], cls="seeds")
    used: dict[str, dict[str, None]] = {}   # each seed's sections, in the registry's order
    for k in m.kernels:
        if k.seed:
            used.setdefault(k.seed, {})[k.section] = None
    english = m.catalog.section_en
    for key, seed in m.catalog.seeds.items():
        sections = "\n".join(f"{s} ({english[s]})" if s in english else s for s in used.get(key, {}))
        table.add([Cell(key), Cell(seed.title, cls="title", sub=seed.file),
                   Cell(seed.title_en if seed.title_en != seed.title else "—", cls="" if seed.title_en != seed.title
                        else "muted"),
                   Cell(seed.gpu), Cell(sections or "no kernel in this file", cls="" if sections else "muted")])
    return table


def _facts(m: Measured) -> Table:
    h, end = m.header, m.file.end
    rows = [("device", h.device + (f" ({', '.join(h.devices)})" if h.devices and len(h.devices) > 1 else ""))]
    if h.peaks:
        rows.append(("measured peaks", f"FP32 FMA {h.peaks.fp32_tflops:.1f} TFLOP/s (a micro-kernel of independent "
                                       f"FMA chains on every SM; {peak_clock_text(m)}); copy {h.peaks.copy_gbps:.0f} "
                                       "GB/s (a 1 GiB device-to-device copy, bytes read + written)"))
    sheet, roof = spec(h.device), m.tensor_roof
    if sheet is not None:
        text = f"HBM {sheet.hbm_tbps:g} TB/s; FP32 {sheet.fp32_tflops:g} TFLOP/s; {sheet.tf32_text}"
        if h.peaks:
            copy = 100 * h.peaks.copy_gbps / (sheet.hbm_tbps * 1e3)
            fma = 100 * h.peaks.fp32_tflops / sheet.fp32_tflops
            text += (f". The measured copy is {fmt.pct(copy)} of the spec bandwidth and the FMA test {fmt.pct(fma)} "
                     "of the spec FP32: a kernel can pass the measured figures, never the spec sheet's")
        rows.append(("spec sheet", text))
    if roof is not None:
        share = (f"; {fmt.pct(100 * roof.flop_per_sm_cycle / sheet.tf32_per_cycle)} of the sheet's "  # per SM cycle
                 f"{sheet.tf32_per_cycle} ({roof.at_mhz(sheet.tf32_mhz):.0f} TFLOP/s at its {sheet.tf32_mhz:.0f} MHz, "
                 f"against {sheet.tf32_tflops:g})" if sheet else "")
        rows.append(("measured tensor-core roof", roof.text + share))
    if h.peaks_by_device and len(h.peaks_by_device) > 1:
        rows.append(("peaks per GPU", "; ".join(f"{gpu}: {p.fp32_tflops:.1f} TFLOP/s, {p.copy_gbps:.0f} GB/s"
                                                for gpu, p in h.peaks_by_device.items())))
    if h.sms:
        rows.append(("SMs · L2", f"{h.sms} · {fmt.nbytes(h.l2_bytes)}" if h.l2_bytes else str(h.sms)))
    rows.append(("versions", " · ".join(f"{k} {v}" for k, v in h.versions.items()) or "not recorded"))
    if (built := build_text(m)) is not None:
        rows.append(("CUDA build", built))
    compilers = sorted({r.resources.source for r in m.all if r.resources and r.resources.source})
    if compilers:
        rows.append(("resources read by", "; ".join(compilers)))
    rows += [("started", when(h.started)), ("finished", when(end.finished) if end else "— (the run did not finish)"),
             ("command", command(m)), ("random seed", str(h.seed))]
    counts = Counter(r.status.value for r in m.all)
    rows.append(("records", f"{len(m.all)}: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
                 + f" ({m.file.path.name})"))
    table = Table([("", False), ("", False)], cls="facts")
    for k, v in rows:
        table.add([Cell(k, cls="muted"), Cell(v, code=k == "command")])
    return table


def method_section(m: Measured) -> Section:
    s = Section(anchors.METHOD, "Method and provenance", 2)
    s.add(Para(timer_paragraph(m)))
    s.add(Para(["Numerics, before any timing: an exact layer (small-integer inputs, where every partial sum is "
                "exact in fp32, so a correct kernel equals the float64 result bit for bit) and a random layer "
                "(uniform inputs, forward error max|out − ref| / max(|α|·|A|·|B| + |β|·|C|) under a bound of K·u "
                f"and at most {VENDOR_MULTIPLE:g}× the library's own error). Outputs are filled with NaN first: "
                "every element must be written, and with β = 0 NaN in C must not leak unless the registry "
                "declares that the seed kernel reads C. A subnormal layer scales the random inputs by 2^-64 each, so "
                "every product lies below fp32's smallest normal number: an implementation that flushes subnormals "
                "to zero fails it, unless it declares flushing (only the CuPy-build study rows do). A scaled layer "
                "multiplies each element of A and B by 2^e, e uniform in [-20, 20], so that a few products dominate "
                f"an output and a split that drops 2^-16 of each product ({CLASS['bf16x3']}) shows. Past the exact "
                "layer the "
                "componentwise error, |out − ref| / (|α|·|A|·|B| + |β|·|C|) at the worst output, is held to the "
                f"same bound and multiple as the normwise one. {CLASS['tf32']} rows are held to K·u plus "
                f"{CLASS['tf32']}'s error per product instead, {PRECISION_TEXT['bf16x3']} to K·u plus 3·2^-16, and "
                f"neither to {baseline_label('fp32')}'s error."]))
    s.add(TableBlock(_facts(m), "This run"))
    if (study := build_study_table(m)) is not None:
        s.add(TableBlock(study, "The CUDA build: the suite's (-ftz=false, exact arch) against CuPy's default "
                                "(-ftz=true, sm_90)", folded=True))
    s.add(TableBlock(_seed_table(m), "The documents", folded=True))
    return s


def peak_clock_text(m: Measured) -> str:
    """The SM clock the FP32 peak ran at against its rows', flagged where it lies well under theirs."""
    if (p := m.peak_clock) is None:
        return ""
    text = (f"run at {p.clock_mhz:.0f} MHz (probe), {p.tries} measurement(s)" if p.clock_mhz is not None else
            "its clock not recorded" + (f": {p.effective_mhz:.0f} MHz effective" if p.effective_mhz else ""))
    return text + (f"; the fp32 rows ran at {p.rows_mhz:.0f} MHz" if p.rows_mhz else "") + (
        f": flagged low, {p.below:.1%} under them; every % of FP32 peak on this page and the roofline's FP32 roof use "
        "it as measured, and read too high" if p.low and p.below is not None else "")


def notices(m: Measured) -> list[Notice]:
    out = []
    if not m.file.complete:
        out.append(Notice("warn", "This run was cut short (interrupted): the file has no end record, so the "
                                  "tables hold only what it measured before it stopped.",
                          [(n, "") for n in m.file.notes if "did not finish" not in n]))
    if m.header.mode == "cpu":
        out.append(Notice("info", "CPU run: no GPU was available. Triton counterparts ran in the interpreter on "
                                  "small, odd shapes (numerics only) and the CUDA kernels were compiled for sm_90 "
                                  "for their resource usage; nothing was timed, so there are no speeds, no % of "
                                  "cuBLAS and no roofline."))
    failed = [r for r in m.all if r.status is Status.FAILED]
    if failed:
        out.append(Notice("bad", f"{len(failed)} result(s) failed:", [
            (f"{r.kernel or 'baseline'} [{r.label}] on {r.problem.label}: {fmt.first_line(r.reason, 220)}",
             r.reason.strip()) for r in failed]))
    if m.unknown_kernels:
        out.append(Notice("warn", "Kernels in this file that the registry no longer lists (in the results tables, "
                                  "without an idea section): " + ", ".join(m.unknown_kernels)))
    return out
