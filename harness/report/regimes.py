"""The page's section on the two regimes, and its lines in the terminal: prints harness/analysis/regimes.py's
RegimeStudy (the table of headline implementations in both regimes, their calls, the findings) and says which regime a
headline figure is in. Kept apart from the page's other printers so that it plugs into them by a few calls:
`regime_plots` and `regimes_section` in the page (render.py), `readme_lines` in
the README's results section, `terminal_lines` after `rosetta run --regime sustained`."""

from __future__ import annotations

from pathlib import Path

from harness.analysis import fmt
from harness.analysis.energy import FileEnergy, Interval, file_energy, of_result
from harness.analysis.measured import Measured
from harness.analysis.regimes import BURST, RegimeRow, RegimeStudy, name, regime_of, study_beside
from harness.analysis.verdicts import Estimate, Verdict
from harness.analysis.wording import PRECISION_TEXT
from harness.report.doc import Bullets, Cell, Figure, Para, Section, Table, TableBlock
from harness.report.markdown import to_markdown
from harness.report.plots.common import Plot
from harness.report.plots.regimes import KEY, regimes_plot

ANCHOR = "regimes"
TITLE = "Burst and sustained regimes, and energy per GEMM"
# How an energy call is said: FAST and SLOW are about time everywhere else
ENERGY_WORDS = {"FAST": "less energy", "SLOW": "more energy", "SAME": "a tie", "AMBIGUOUS": "undecided"}


def _interval(i: Interval | None, digits: str = "#.3g") -> str:
    if i is None:
        return "—"
    if i.lo is None or i.hi is None:
        return f"{i.value:{digits}}"
    return f"{i.value:{digits}} [{i.lo:{digits}}–{i.hi:{digits}}]"


def _speed(e: Estimate | None) -> str:
    """A time estimate as a speed ratio with its interval and call: '0.90x [0.89–0.91] SLOW'."""
    if e is None:
        return "—"
    return f"{fmt.ratio_ci(1 / e.ratio, 1 / e.hi, 1 / e.lo)} {e.call.value}"


def _energy(v: Verdict | None) -> str:
    """An energy estimate as subject joules over reference joules, its interval and what the call says."""
    if v is None or v.energy is None:
        return "—"
    e = v.energy
    return f"{e.ratio:.3f}x [{e.lo:.3f}–{e.hi:.3f}] {ENERGY_WORDS[e.call.value]}"


def _time(v: Verdict | None) -> str:
    return _speed(v.time) if v is not None else "—"


def regime_table(s: RegimeStudy) -> Table:
    table = Table([("implementation", False), ("class", False), ("burst TFLOP/s", True), ("sustained TFLOP/s", True),
                   ("sustained / burst", True), ("SM MHz burst → steady", True), ("W", True),
                   ("J per GEMM", True), ("GFLOP/J", True), ("steady rounds", True)], cls="regimes")
    for r in s.rows:
        e = r.energy
        table.add([Cell(r.label), Cell(PRECISION_TEXT.get(r.precision, r.precision)),
                   Cell(f"{r.burst_tflops:.1f}", num=True), Cell(f"{r.sustained_tflops:.1f}", num=True),
                   Cell(_speed(r.change), num=True),
                   Cell(f"{fmt.mhz(r.burst_mhz)} → {fmt.mhz(r.steady_mhz)}", num=True),
                   Cell(_interval(e.watts if e else None, ".0f"), num=True),
                   Cell(_interval(e.joules if e else None), num=True),
                   Cell(_interval(e.gflop_per_j if e else None, ".0f"), num=True),
                   Cell(_rounds(r), num=True)])
    table.notes += [
        "burst: the median of the first launches after the idle gap; sustained: the median chunk of the steady "
        "window (time per launch); sustained / burst: the speed ratio of the two, paired by round, with its 95% "
        "interval and call; SM MHz: mean of the clock probes around the launches.",
        "W: the steady window's energy over its time; J per GEMM: that power times the launches' event time, per "
        "launch; each the median over the rounds with its 95% interval; GFLOP/J: the problem's flops over it.",
        "steady rounds: rounds whose steady state the rule detected, of all; the longest time back to back before "
        "the window; the widest clock and power spread of the windows the rule held on.",
    ]
    return table


def _rounds(r: RegimeRow) -> str:
    spread = f", spread ≤ {100 * r.spread[0]:.1f}% / {100 * r.spread[1]:.1f}%" if r.spread else ""
    return f"{r.steady_rounds} of {r.rounds} (≤ {r.settle_s:.1f} s{spread})"


RELATION_TEXT = {"triton-vs-cuda": "best Triton against best CUDA", "cublas": "against its cuBLAS",
                 "aa": "A/A control (second entry against first)"}


def calls_table(s: RegimeStudy) -> Table:
    table = Table([("comparison", False), ("class", False), ("burst: speed, call", True),
                   ("sustained: speed, call", True), ("sustained: energy per launch, call", True)], cls="regime-calls")
    for c in s.calls:
        what = c.subject_label if c.relation == "aa" else f"{c.subject_label} vs {c.reference_label}"
        table.add([Cell(what, sub=RELATION_TEXT[c.relation]), Cell(PRECISION_TEXT.get(c.precision, c.precision)),
                   Cell(_time(c.burst), num=True), Cell(_time(c.sustained), num=True),
                   Cell(_energy(c.sustained), num=True)],
                  "warn" if c.flips or c.energy_disagrees else "")
    table.notes.append("speed: the reference's time over the subject's, 95% interval over the rounds, call as "
                       "everywhere on the page; energy: the subject's joules per launch over the reference's (below 1: "
                       "the subject spends less), from the rounds both resolved, same margin. A row in colour is a "
                       "finding below.")
    return table


def findings(s: RegimeStudy) -> list[str]:
    """The findings the study's data make: calls that change with the regime, energy calls against time calls, and
    the A/A control in both regimes."""
    out = []
    for c in s.flips:
        out.append(f"{c.subject_label} against {c.reference_label} ({PRECISION_TEXT.get(c.precision, c.precision)}): "
                   f"{_word(c.burst)} in a burst ({_time(c.burst)}), {_word(c.sustained)} sustained "
                   f"({_time(c.sustained)}).")
    for c in s.disagreements:
        assert c.sustained is not None and c.sustained.energy is not None
        out.append(f"{c.subject_label} against {c.reference_label}: sustained, {_word(c.sustained)} in time "
                   f"({_time(c.sustained)}) but {ENERGY_WORDS[c.sustained.energy.call.value]} per launch "
                   f"({_energy(c.sustained)}).")
    if not s.flips:
        out.append("No CUDA-against-Triton call of the headline changes between the regimes.")
    if not s.disagreements:
        out.append("No headline comparison's energy call differs from its time call in the sustained regime.")
    for regime in ("burst", "sustained"):
        verdicts = [getattr(c, regime) for c in s.aa if getattr(c, regime) is not None]
        if verdicts:
            same = sum(v.call.value == "SAME" for v in verdicts)
            out.append(f"A/A control, {regime}: {same} of {len(verdicts)} implementations timed twice called SAME.")
    return out


def _word(v: Verdict | None) -> str:
    return fmt.CALL_WORDS[v.call.value] if v is not None else "not compared"


def method_text(s: RegimeStudy) -> str:
    card = s.card
    limits = (f"power limit {card.limit_w:.0f} W, enforced {card.enforced_w:.0f} W, driver {card.driver}"
              if card and card.limit_w and card.enforced_w else "power limit not reported")
    period = (f"NVML's energy counter changes every {s.period_ms:.1f} ms here (measured on the busy GPU)"
              if s.period_ms else "the energy counter's period was not measured")
    return (f"From {s.source}, the headline implementations of {s.burst_source or 'a run of bursts'}, on {s.device} "
            f"({limits}). Each in turn, in a shuffled order per round, after an idle gap of {s.idle_s or 0:g} s: a "
            f"burst (its first launches, each timed), then launches back to back until the steady state: "
            f"{s.rule.text()}. The steady window opens and closes where the counter changes; {period}.")


def regime_plots(m: Measured) -> list[Plot]:
    """The regimes chart of the page, where a sustained file is there to draw it from (the page writes it)."""
    plot = regimes_plot(study_beside(m.file.path)) if m.file.path else None
    return [plot] if plot is not None and plot.png else []


def regimes_section(m: Measured, plots: list[Plot]) -> Section | None:
    """The section, where this file is a sustained one or has one beside it; else a note on this file's energy."""
    s = study_beside(m.file.path) if m.file.path else None
    section = Section(ANCHOR, TITLE, 2)
    if s is None:
        if regime_of(m.file) == BURST and any(r.timed for r in m.all):
            section.add(Para([energy_note(file_energy(m.all))], cls="note"))
            table = burst_energy_table(m)
            if table:
                section.add(TableBlock(table, "Energy per launch in this run's bursts", folded=True))
            return section
        return None
    section.add(Para([method_text(s)], cls="note"))
    section.add(TableBlock(regime_table(s)))
    chart = next((p for p in plots if p.key == KEY and p.png), None)
    if chart is not None:
        w, h = chart.size
        section.add(Figure(chart.key, chart.title, chart.caption, chart.png, chart.missing, w, h))
    section.add(TableBlock(calls_table(s), "Each headline comparison in both regimes"))
    section.add(Bullets([[f] for f in findings(s)], cls="findings"))
    return section


def burst_energy_table(m: Measured) -> Table:
    """Every record whose bursts resolved their energy: joules per launch, GFLOP/J, power, and the energy call against
    its cuBLAS beside the time call (empty where the counter resolved no burst)."""
    table = Table([("implementation", False), ("problem", False), ("J per launch", True), ("GFLOP/J", True),
                   ("W", True), ("vs cuBLAS: speed, call", True), ("vs cuBLAS: energy, call", True)],
                  cls="energy")
    for r in sorted(m.all, key=m.order):
        e = of_result(r)
        if e is None:
            continue
        c = m.vs(r, "cublas")
        table.add([Cell(name(r)), Cell(r.problem.label), Cell(_interval(e.joules), num=True),
                   Cell(_interval(e.gflop_per_j, ".0f"), num=True), Cell(_interval(e.watts, ".0f"), num=True),
                   Cell(_time(c.verdict) if c else "—", num=True), Cell(_energy(c.verdict if c else None), num=True)])
    table.notes.append("Each figure the median over the rounds whose burst spanned enough periods of the energy "
                       "counter, with its 95% interval; the burst's window holds its runs and the L2 flushes and clock "
                       "probes between them, whose share of the window's device time is taken out.")
    return table


def energy_note(fe: FileEnergy) -> str:
    return (f"{fe.line()}. Tensor-core figures of this page are bursts; `rosetta run --regime sustained` runs the "
            f"headline implementations to their steady state, with energy per GEMM, and this section shows them.")


def readme_lines(results_path: Path, readme_dir: Path) -> list[str]:
    """The README's part on the regimes, where a sustained file lies beside the run: its method, its table, its chart
    (written as a PNG beside the results) and its findings; nothing where there is none."""
    s = study_beside(results_path)
    if s is None:
        return []
    lines = [f"#### {TITLE}\n\n{method_text(s)} Re-run with `rosetta run --regime sustained`.",
             to_markdown(regime_table(s))]
    plot = regimes_plot(s)
    if plot.png:
        png = results_path.parent / f"{results_path.stem}-{plot.key}.png"
        png.write_bytes(plot.png)
        lines.append(f"![{plot.title}]({png.resolve().relative_to(readme_dir.resolve()).as_posix()})\n\n"
                     f"{plot.caption}")
    lines.append(to_markdown(calls_table(s)))
    lines.append("\n".join(f"- {f}" for f in findings(s)))
    return lines


def terminal_lines(s: RegimeStudy) -> list[str]:
    """The study in the terminal: one line per row, then the calls that are findings, then the A/A control."""
    out = [f"sustained regime ({s.source}): {s.rule.text()}"]
    for r in s.rows:
        e = r.energy
        out.append(f"  {r.label} [{r.precision}]: {r.burst_tflops:.1f} -> {r.sustained_tflops:.1f} TFLOP/s "
                   f"({_speed(r.change)}), {fmt.mhz(r.burst_mhz)} -> {fmt.mhz(r.steady_mhz)} MHz, "
                   f"{_interval(e.watts if e else None, '.0f')} W, {_interval(e.joules if e else None)} J/GEMM, "
                   f"{_interval(e.gflop_per_j if e else None, '.0f')} GFLOP/J, steady {_rounds(r)}")
    out += [f"  {line}" for line in findings(s)]
    return out
