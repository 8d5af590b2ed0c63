"""`rosetta sanitize`: the shapes it launches, how it reads compute-sanitizer's summary, and (GPU) one real run."""

from __future__ import annotations

import json

import pytest

from harness.inspect import sanitize
from harness.registry import BY_ID, KERNELS


def test_every_kernel_gets_a_shape_its_preconditions_allow():
    for kernel in KERNELS:
        shape = sanitize.shape_for(kernel)
        assert kernel.supports(shape), (kernel.id, shape)


def test_the_summary_lines_of_both_tools_are_read():
    text = ("========= ERROR SUMMARY: 3 errors\n"
            "========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)\n")
    assert [int(a or b) for a, b in sanitize._SUMMARY.findall(text)] == [3, 2]


@pytest.mark.gpu
def test_memcheck_of_one_kernel_is_clean_and_recorded(tmp_path):
    from rich.console import Console

    code = sanitize.sanitize([BY_ID["s003.coalesced_warp_sgemv"]], ["memcheck"], tmp_path, Console(quiet=True))
    rows = json.loads(next(tmp_path.glob("sanitize-*.json")).read_text())["rows"]
    assert code == 0 and rows[0]["ok"] and rows[0]["errors"] == 0, rows
