"""A reader that stops early (`rosetta gluon FILE | head -1`) ends the command quietly: no traceback and no error line,
exit code 1 (what rich's console gives a closed pipe, so every verb ends alike)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("verb", [["list"], ["gluon", "results/nvidia-h200-20261126T185109Z.jsonl"]])
def test_a_closed_pipe_ends_the_command_without_an_error_line(verb: list[str]) -> None:
    reader = subprocess.Popen(["true"], stdin=subprocess.PIPE)   # gone before the first line is written
    reader.wait(timeout=10)
    writer = subprocess.run([sys.executable, "-m", "harness.cli", *verb], cwd=ROOT, stdout=reader.stdin,
                            stderr=subprocess.PIPE, text=True, timeout=120)
    reader.stdin.close()
    assert writer.stderr == "" and writer.returncode == 1, (writer.returncode, writer.stderr[-400:])


def test_a_closed_pipe_does_not_cost_compare_its_page(tmp_path: Path) -> None:
    from tests.test_cli_paths import small_results

    results, page = small_results(tmp_path), tmp_path / "page.html"
    reader = subprocess.Popen(["true"], stdin=subprocess.PIPE)
    reader.wait(timeout=10)
    writer = subprocess.run([sys.executable, "-m", "harness.cli", "compare", str(results), str(results), "--html",
                             str(page)], cwd=ROOT, stdout=reader.stdin, stderr=subprocess.PIPE, text=True, timeout=300)
    reader.stdin.close()
    assert writer.stderr == "" and page.read_text(encoding="utf-8").count("<title>tile-rosetta: compare</title>") == 1
