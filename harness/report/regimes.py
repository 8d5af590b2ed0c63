"""The page's section on the two regimes, and its part of the README: prints harness/analysis/regimes.py's
RegimeStudy with the declared columns of harness/analysis/columns.py (the headline implementations in both regimes,
their calls) and its findings, which the analysis words. Plugs into the page by `regime_plots` and `regimes_section`
(render.py) and into the README's results by `readme_lines`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.analysis import columns
from harness.analysis.energy import file_energy, of_result
from harness.analysis.measured import Measured
from harness.analysis.regimes import BURST, RegimeStudy, energy_note, findings, method_text, regime_of, study_beside
from harness.report.doc import Bullets, Para, Section, Table, TableBlock
from harness.report.markdown import to_markdown
from harness.report.plots.common import Plot
from harness.report.plots.regimes import KEY, regimes_plot
from harness.report.tables import table

ANCHOR = "regimes"
TITLE = "Burst and sustained regimes, and energy per GEMM"
NO_PAGE: Any = None   # the study's columns read nothing of a page's run (the README's part has none)


def regime_table(s: RegimeStudy, m: Measured | None = None) -> Table:
    return table(m or NO_PAGE, columns.REGIME, s.rows, "regimes")


def calls_table(s: RegimeStudy, m: Measured | None = None) -> Table:
    return table(m or NO_PAGE, columns.REGIME_CALLS, s.calls, "regime-calls",
                 row_cls=lambda c: "warn" if c.flips or c.energy_disagrees else "")


def burst_energy_table(m: Measured) -> Table:
    """Every record whose bursts resolved their energy: joules per launch, GFLOP/J, power, and the energy call against
    its cuBLAS beside the time call (empty where the counter resolved no burst)."""
    rows = [(r, e) for r in sorted(m.all, key=m.order) if (e := of_result(r)) is not None]
    return table(m, columns.BURST_ENERGY, rows, "energy")


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
    return [*lines, to_markdown(calls_table(s)), "\n".join(f"- {f}" for f in findings(s))]
