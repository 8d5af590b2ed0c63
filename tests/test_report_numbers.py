"""The page of a committed run, pinned by its numbers: every number token of its Markdown page, line by line,
against a snapshot taken from the code that wrote it. A change that moves how the report is computed (what it
imports, which package builds a table's data) must leave every figure on the page as it was."""

from __future__ import annotations

import re
from pathlib import Path

from harness.report.render import render

REPO = Path(__file__).resolve().parents[1]
RUN = REPO / "results" / "nvidia-h100-80gb-hbm3-20261125T114126Z.jsonl"
SNAPSHOT = Path(__file__).parent / "snapshots" / f"{RUN.stem}.numbers.txt"
NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


def numbers(markdown: str) -> list[str]:
    """One line per page line that holds a number: its number tokens, space-separated."""
    return [" ".join(found) for line in markdown.splitlines() if (found := NUMBER.findall(line))]


def test_a_committed_run_renders_the_same_numbers_as_before(tmp_path: Path) -> None:
    assert RUN.with_suffix(".analysis.json").exists(), "the run's analysis record is committed beside it"
    _, md = render(RUN, tmp_path)
    got = numbers(md.read_text(encoding="utf-8"))
    want = SNAPSHOT.read_text(encoding="utf-8").splitlines()
    assert len(got) == len(want), (len(got), len(want))
    changed = [(i, w, g) for i, (w, g) in enumerate(zip(want, got, strict=True)) if w != g]
    assert not changed, changed[:5]


if __name__ == "__main__":
    # regenerate the snapshot: python -m tests.test_report_numbers (only for a change meant to alter the figures)
    import tempfile

    _, md = render(RUN, Path(tempfile.mkdtemp()))
    SNAPSHOT.write_text("\n".join(numbers(md.read_text(encoding="utf-8"))) + "\n", encoding="utf-8")
