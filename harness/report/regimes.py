"""The page's section on the two regimes, and its part of the README: prints harness/analysis/regimes.py's
RegimeStudy with the declared columns of harness/report/columns.py (the headline implementations in both regimes,
their calls) and says what the study finds. Plugs into the page by `regime_plots` and `regimes_section` (render.py),
into the README's results by `readme_lines`, into docs/regimes.md by `doc_text` and into the terminal by
`terminal_lines`."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.analysis.energy import EnergyFigure, FileEnergy, Interval, file_energy, of_result
from harness.analysis.measured import Measured
from harness.analysis.regimes import (
    BURST,
    SUFFIX,
    RegimeCall,
    RegimeRow,
    RegimeStudy,
    name,
    newest_study,
    regime_of,
    study_beside,
)
from harness.analysis.relations import Relation
from harness.analysis.verdicts import LEVEL, Estimate, Verdict
from harness.measure.energy import RESOLVED_PERIODS
from harness.records.lines import Result
from harness.report import fmt
from harness.report.doc import Bullets, Inline, Mono, Para, Section, Table, TableBlock
from harness.report.markdown import to_markdown
from harness.report.metrics import Metric
from harness.report.plots.common import Plot
from harness.report.plots.regimes import KEY, regimes_plot
from harness.report.tables import table
from harness.report.wording import PRECISION_TEXT

ANCHOR = "regimes"
TITLE = "Burst and sustained regimes, and energy per GEMM"
NO_PAGE: Any = None   # the study's columns read nothing of a page's run (the README's part has none)
COMMAND = "rosetta run --regime sustained"


# ---------------------------------------------------------------------------------------------- the words
# How an energy call is said: FAST and SLOW are about time everywhere else
ENERGY_WORDS = {"FAST": "less energy", "SLOW": "more energy", "SAME": "a tie", "AMBIGUOUS": "undecided"}
RELATION_TEXT = {Relation.TRITON_VS_CUDA: "best Triton against best CUDA", Relation.CUBLAS: "against its cuBLAS",
                 Relation.AA: "A/A control (second entry against first)"}


def regime_note(m: Measured) -> str:
    """' · burst' or ' · sustained' after a figure's class: every class's figures depend on the regime."""
    return f" · {regime_of(m.file)}"


def interval_text(i: Interval | None, digits: str = "#.3g") -> str:
    """A median with its 95% interval in brackets, or, where the rounds are too few for one, their range said so."""
    if i is None:
        return "—"
    if i.lo is None or i.hi is None:
        return f"{i.value:{digits}}"
    if not i.at_level:
        return f"{i.value:{digits}} (range {i.lo:{digits}}–{i.hi:{digits}} of {i.rounds} rounds)"
    return f"{i.value:{digits}} [{i.lo:{digits}}–{i.hi:{digits}}]"


def range_note(e: Estimate) -> str:
    """' (a range, 87.5% coverage)' after an interval of too few rounds for a 95% one; '' after a 95% interval."""
    return "" if e.at_level else f" (a range of too few rounds, {e.coverage:.1%} coverage)"


def speed_text(e: Estimate | None) -> str:
    """A time estimate as a speed ratio with its interval and call: '0.90x [0.89–0.91] SLOW'."""
    if e is None:
        return "—"
    return f"{fmt.ratio_ci(1 / e.ratio, 1 / e.hi, 1 / e.lo)}{range_note(e)} {e.call.value}"


def energy_text(v: Verdict | None) -> str:
    """An energy estimate as subject joules over reference joules, its interval and what the call says."""
    if v is None or v.energy is None:
        return "—"
    e = v.energy
    return f"{e.ratio:.3f}x [{e.lo:.3f}–{e.hi:.3f}]{range_note(e)} {ENERGY_WORDS[e.call.value]}"


def time_text(v: Verdict | None) -> str:
    return speed_text(v.time) if v is not None else "—"


def rounds_text(r: RegimeRow) -> str:
    spread = f", spread ≤ {100 * r.spread[0]:.1f}% / {100 * r.spread[1]:.1f}%" if r.spread else ""
    return f"{r.steady_rounds} of {r.rounds} (≤ {r.settle_s:.1f} s{spread})"


def _word(v: Verdict | None) -> str:
    return fmt.CALL_WORDS[v.call.value] if v is not None else "not compared"


def findings(s: RegimeStudy) -> list[str]:
    """What the study's data say: calls that change with the regime, energy calls against time calls, and the A/A
    control in both regimes."""
    out = [f"{c.subject_label} against {c.reference_label} ({PRECISION_TEXT.get(c.precision, c.precision)}): "
           f"{_word(c.burst)} in a burst ({time_text(c.burst)}), {_word(c.sustained)} sustained "
           f"({time_text(c.sustained)})." for c in s.flips]
    out += [f"{c.subject_label} against {c.reference_label}: sustained, {_word(c.sustained)} in time "
            f"({time_text(c.sustained)}) but {ENERGY_WORDS[c.sustained.energy.call.value]} per launch "  # type: ignore
            f"({energy_text(c.sustained)})." for c in s.disagreements]
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


def method_text(s: RegimeStudy) -> str:
    card = s.card
    limits = (f"power limit {card.limit_w:.0f} W, enforced {card.enforced_w:.0f} W, driver {card.driver}"
              if card and card.limit_w and card.enforced_w else "power limit not reported")
    period = (f"NVML's energy counter changes every {s.period_ms:.1f} ms here (measured on the busy GPU)"
              if s.period_ms else "the energy counter's period was not measured")
    flush = ("" if s.flush_l2 is None else " The L2 is flushed before every run of its bursts, as in the run of bursts."
             if s.flush_l2 else " Its bursts run without the L2 flush that the run of bursts makes before every run, "
             "so its burst column is not that run's figure.")
    return (f"From {s.source}, the headline implementations of {s.burst_source or 'a run of bursts'}, on {s.device} "
            f"({limits}). Each in turn, in a shuffled order per round, after an idle gap of {s.idle_s or 0:g} s: a "
            f"burst (its first launches, each timed), then launches back to back until the steady state: "
            f"{s.rule.text()}. The steady window opens and closes where the counter changes; {period}.{flush}")


def energy_line(fe: FileEnergy) -> str:
    """One line: where a file's energy came from, or why there is none."""
    if not fe.timed:
        return "energy: nothing timed"
    if not fe.read:
        why = fe.missing or "a file from before energy was read"
        if fe.longest_burst_ms is not None and fe.period_ms:   # every burst too short for the counter
            why = (f"the counter moves every {fe.period_ms:.1f} ms (measured), the longest burst lasts "
                   f"{fe.longest_burst_ms:.3g} ms: no burst resolvable (a window needs {RESOLVED_PERIODS} periods); "
                   f"energy per GEMM is measured in the sustained regime's longer windows ({COMMAND})")
        return f"energy: not measured ({why})"
    period = f"every {fe.period_ms:.1f} ms" if fe.period_ms else "too seldom to time"
    window = f"{fe.window_ms:.1f} ms" if fe.window_ms is not None else "?"
    return (f"energy: NVML's counter changes {period} (measured); windows of {window}: {fe.resolved} of {fe.timed} "
            f"timed records resolved (a window needs {RESOLVED_PERIODS} periods)")


def energy_note(fe: FileEnergy) -> list[Inline]:
    """This run's energy, and what a sustained pass would add: none lies beside this run."""
    return [f"{energy_line(fe)}. Every figure of this page is a burst after the others' runs, not a sustained run; ",
            Mono(COMMAND), " runs the headline implementations of a run to their steady state, with energy per GEMM, "
            "and writes its file beside it: none lies beside this run, so this section shows no sustained figure."]


def terminal_lines(s: RegimeStudy) -> list[str]:
    """The study in the terminal: one line per row, then the calls that are findings, then the A/A control."""
    out = [f"sustained regime ({s.source}): {s.rule.text()}"]
    for r in s.rows:
        e = r.energy
        out.append(f"  {r.label} [{r.precision}]: {r.burst_tflops:.1f} -> {r.sustained_tflops:.1f} TFLOP/s "
                   f"({speed_text(r.change)}), {fmt.mhz(r.burst_mhz)} -> {fmt.mhz(r.steady_mhz)} MHz, "
                   f"{interval_text(e.watts if e else None, '.0f')} W, {interval_text(e.joules if e else None)} "
                   f"J/GEMM, {interval_text(e.gflop_per_j if e else None, '.0f')} GFLOP/J, steady {rounds_text(r)}")
    return out + [f"  {line}" for line in findings(s)]


# ---------------------------------------------------------------------------------------------- the columns
def _class(m: Measured, row: Any) -> str:
    return PRECISION_TEXT.get(row.precision, row.precision)


def _figure(get: Callable[[EnergyFigure], Any]) -> Callable[[Measured, Any], Any]:
    """An energy figure of a regime row (None where the row has none), written with its interval."""
    return lambda m, row: get(row.energy) if row.energy is not None else None


REGIME: list[Metric[RegimeRow]] = [
    Metric("implementation", lambda m, r: r.label, num=False),
    Metric("class", _class, num=False),
    Metric("burst TFLOP/s", lambda m, r: r.burst_tflops, lambda v: f"{v:.1f}"),
    Metric("sustained TFLOP/s", lambda m, r: r.sustained_tflops, lambda v: f"{v:.1f}"),
    Metric("sustained / burst", lambda m, r: r.change, speed_text,
           legend="burst: the median of the first launches after the idle gap; sustained: the median chunk of the "
                  "steady window (time per launch); sustained / burst: the speed ratio of the two, paired by round, "
                  f"with its {LEVEL:.0%} interval and call; SM MHz: mean of the clock probes around the launches."),
    Metric("SM MHz burst → steady", lambda m, r: (r.burst_mhz, r.steady_mhz),
           lambda v: f"{fmt.mhz(v[0])} → {fmt.mhz(v[1])}"),
    Metric("W", _figure(lambda e: e.watts), lambda i: interval_text(i, ".0f"),
           legend="W: the steady window's energy over its time; J per GEMM: that power times the launches' event "
                  f"time, per launch; each the median over the rounds with its {LEVEL:.0%} interval; GFLOP/J: the "
                  "problem's flops over it."),
    Metric("J per GEMM", _figure(lambda e: e.joules), interval_text),
    Metric("GFLOP/J", _figure(lambda e: e.gflop_per_j), lambda i: interval_text(i, ".0f")),
    Metric("steady rounds", lambda m, r: r, rounds_text,
           legend="steady rounds: rounds whose steady state the rule detected, of all; the longest time back to back "
                  "before the window; the widest clock and power spread of the windows the rule held on."),
]
REGIME_CALLS: list[Metric[RegimeCall]] = [
    Metric("comparison", lambda m, c: c.subject_label if c.relation == Relation.AA else
           f"{c.subject_label} vs {c.reference_label}", num=False, sub=lambda m, c: RELATION_TEXT[c.relation]),
    Metric("class", _class, num=False),
    Metric("burst: speed, call", lambda m, c: c.burst, time_text),
    Metric("sustained: speed, call", lambda m, c: c.sustained, time_text),
    Metric("sustained: energy per launch, call", lambda m, c: c.sustained if c.sustained and c.sustained.energy
           else None, energy_text,
           legend=f"speed: the reference's time over the subject's, {LEVEL:.0%} interval over the rounds, call as "
                  "everywhere on the page; energy: the subject's joules per launch over the reference's (below 1: the "
                  "subject spends less), from the rounds both resolved, same margin. A row in colour is a finding "
                  "below."),
]
BurstEnergy = tuple[Result, EnergyFigure]
BURST_ENERGY: list[Metric[BurstEnergy]] = [
    Metric("implementation", lambda m, re: name(re[0]), num=False),
    Metric("problem", lambda m, re: re[0].problem.label, num=False),
    Metric("J per launch", lambda m, re: re[1].joules, interval_text),
    Metric("GFLOP/J", lambda m, re: re[1].gflop_per_j, lambda i: interval_text(i, ".0f")),
    Metric("W", lambda m, re: re[1].watts, lambda i: interval_text(i, ".0f")),
    Metric("vs cuBLAS: speed, call", lambda m, re: c.verdict if (c := m.vs(re[0], Relation.CUBLAS)) else None,
           time_text),
    Metric("vs cuBLAS: energy, call", lambda m, re: c.verdict if (c := m.vs(re[0], Relation.CUBLAS)) and c.verdict
           and c.verdict.energy else None, energy_text,
           legend=f"Each figure the median over the rounds whose burst spanned enough periods of the energy counter, "
                  f"with its {LEVEL:.0%} interval; the burst's window holds its runs and the L2 flushes and clock "
                  "probes between them, whose share of the window's device time is taken out."),
]


# ---------------------------------------------------------------------------------------------- the tables
def regime_table(s: RegimeStudy, m: Measured | None = None) -> Table:
    return table(m or NO_PAGE, REGIME, s.rows, "regimes")


def calls_table(s: RegimeStudy, m: Measured | None = None) -> Table:
    return table(m or NO_PAGE, REGIME_CALLS, s.calls, "regime-calls",
                 row_cls=lambda c: "warn" if c.flips or c.energy_disagrees else "")


def burst_energy_table(m: Measured) -> Table:
    """Every record whose bursts resolved their energy: joules per launch, GFLOP/J, power, and the energy call against
    its cuBLAS beside the time call (empty where the counter resolved no burst)."""
    rows = [(r, e) for r in sorted(m.all, key=m.order) if (e := of_result(r)) is not None]
    return table(m, BURST_ENERGY, rows, "energy")


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
            section.add(Para(energy_note(file_energy(m.all)), cls="note"))
            energy = burst_energy_table(m)
            if energy:
                section.add(TableBlock(energy, "Energy per launch in this run's bursts", folded=True))
            return section
        return None
    section.add(Para([method_text(s)], cls="note"), TableBlock(regime_table(s, m)))
    section.add(*(p.block() for p in plots if p.key == KEY and p.png))
    section.add(TableBlock(calls_table(s, m), "Each headline comparison in both regimes"))
    section.add(Bullets([[f] for f in findings(s)], cls="findings"))
    return section


def readme_lines(results_path: Path) -> list[str]:
    """The README's part on the regimes (the newest sustained study of the run's device, analysis/regimes.py
    newest_study): its method and its findings, and a link to docs/regimes.md (`doc_text`) for its table, its chart
    and every comparison; nothing where there is none."""
    s = newest_study(results_path)
    if s is None:
        return []
    return [f"#### {TITLE}\n\n{method_text(s)} Re-run with `{COMMAND}`.",
            "\n".join(f"- {f}" for f in findings(s)),
            f"Both regimes of each implementation, with power and energy per GEMM, the chart, and each headline "
            f"comparison in both regimes with its A/A controls: [docs/regimes.md](docs/{DOC.name})."]


DOC = Path("docs/regimes.md")


def doc_text(results_path: Path, doc_dir: Path) -> str | None:
    """docs/regimes.md: the whole study the README shows (`readme_lines`), its chart written as a PNG beside the
    results and named after the run of bursts the study took its rows from; None where there is none."""
    s = newest_study(results_path)
    if s is None:
        return None
    lines = [f"# {TITLE}\n\n{method_text(s)} Re-run with `{COMMAND}`; generated by "
             f"`python -m harness.report.readme {results_path.as_posix()}`.", to_markdown(regime_table(s))]
    plot = regimes_plot(s)
    if plot.png:
        png = results_path.parent / f"{Path(s.source).stem.removesuffix(SUFFIX)}-{plot.key}.png"
        png.write_bytes(plot.png)
        lines.append(f"![{plot.title}]({Path(os.path.relpath(png.resolve(), doc_dir.resolve())).as_posix()})"
                     f"\n\n{plot.caption}")
    return "\n\n".join([*lines, to_markdown(calls_table(s)), "\n".join(f"- {f}" for f in findings(s))]) + "\n"
