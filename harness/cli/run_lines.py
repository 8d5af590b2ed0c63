"""What `rosetta run` says as it ends (harness/cli/run.py): the lines beneath the run's table (summary_lines, each
where the run's records call for it), what became of its implementations (tally) and the exit code of a pair left
unchecked."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from harness.analysis.relations import Relation

if TYPE_CHECKING:
    from harness.analysis.record import Analysis
    from harness.records.lines import Result
    from harness.run.session import RunSession


# The exit code of a run in which nothing failed but a kernel of the user's own was never checked (no GPU).
UNCHECKED = 3


def tally(results: list[Result]) -> str:
    """What became of a run's implementations, counted from its records; a check that did not run is counted as such,
    not as passed."""
    from collections import Counter

    from harness.measure.numerics import NOT_CHECKED_NO_GPU
    from harness.records.lines import Status

    counts = Counter(r.status for r in results)
    said = {Status.OK: "ok", Status.FAILED: "failed", Status.SKIPPED: "skipped",
            Status.COMPILED: NOT_CHECKED_NO_GPU + " (built, not run)"}
    return ", ".join(f"{counts[s]} {words}" for s, words in said.items() if counts[s]) or "nothing run"


def unchecked_pairs(results: list[Result], kernels: list, console) -> int:
    """0, or UNCHECKED where a user's own CUDA kernel was built and not run: the catalog's kernels are checked on a GPU
    by the GPU tier and every recorded run, a user's by no run yet, so a CPU run does not pass it."""
    from harness.records.lines import Status

    yours = {k.id for k in kernels if k.declared}
    left = sorted({r.kernel for r in results if r.kernel in yours and (r.status is Status.COMPILED or (
        r.status is Status.SKIPPED and r.reason.startswith("no GPU")))})
    if not left:
        return 0
    console.print(f"[yellow]not checked:[/] the CUDA side of {', '.join(left)} did not run (no GPU): run the same "
                  f"command on a GPU to check it (exit code {UNCHECKED})", highlight=False)
    return UNCHECKED


def compiled_line(results: list[Result]) -> str:
    """What became of the CUDA sources in a run without a GPU, counted from the records it wrote."""
    from harness.records.lines import Status

    cuda = [r for r in results if r.impl_id.is_cuda]
    if not cuda:
        return "CUDA sources: none in this run"
    parts = []
    for status in (Status.COMPILED, Status.SKIPPED, Status.FAILED):
        rs = [r for r in cuda if r.status is status]
        if rs:
            reasons = sorted({r.reason.split(":", 1)[0] if status is Status.FAILED else r.reason for r in rs})
            parts.append(f"{len(rs)} {status.value}" + (f" ({'; '.join(reasons)})" if any(reasons) else ""))
    return f"CUDA sources: {len(cuda)} in this run, " + ", ".join(parts)


def aa_lines(analysis: Analysis) -> list[str]:
    """The A/A control in the terminal: how many implementations timed twice were called SAME, then each one that was
    not, with its call and interval, so that a reader sees which and by how much (nothing for a run without --aa)."""
    from harness.report.wording import speed

    controls = [c for c in analysis.where(Relation.AA) if c.call is not None]
    if not controls:
        return []
    others = [c for c in controls if c.call.value != "SAME"]
    same = len(controls) - len(others)
    return [f"A/A control: {same} of {len(controls)} implementations timed twice called SAME "
            f"({100 * same / len(controls):.1f}%)",
            *(f"  {c.call.value}: {c.subject[0] or c.subject[1]} [{c.subject[1]}] on {c.problem.label}, second entry "
              f"against first {speed(c)}" for c in others)]


def summary_lines(session: RunSession, analysis: Analysis | None, written: list[Result]) -> Iterator[str]:
    """The lines beneath the run's table, each where the run's records call for it: the A/A control; the joules and
    gigaflops per joule of a GPU run's timed records; the model-or-compiler split of each rung the run timed in all
    three models; on a CPU, what became of the CUDA sources."""
    if analysis is not None:
        yield from aa_lines(analysis)
    if session.gpu:
        from harness.analysis.energy import file_energy
        from harness.report.regimes import energy_line

        yield energy_line(file_energy(session.results))
    if any(r.model == "gluon" for r in session.results):
        from harness.cli.gluon import gluon_lines

        yield from gluon_lines(session.out_path)
    if not session.gpu:
        yield compiled_line(written)
