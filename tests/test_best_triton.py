"""A Triton form that moves data differently from its CUDA kernel on purpose is shown, never an idea's best."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from harness.analysis.measured import Measured
from harness.records.file import Results
from harness.registry import BY_ID


def _fastest_rank1(recorded: Results) -> tuple[Results, object, list]:
    """The recorded run with one rank-1 result made 100x faster than any other record of its idea."""
    rank1 = next(r for r in recorded.results if r.impl == "triton:rank1" and r.timed and r.timing)
    kernels = [k for k in BY_ID.values() if k.idea == BY_ID[rank1.kernel].idea]
    fastest = min(r.timing.median_ms for r in recorded.results if r.timed and r.timing and r.problem == rank1.problem)
    tampered = copy.deepcopy(rank1)
    # a median with no rounds behind it: its ratios are the medians' (harness/analysis), so the tampering counts
    tampered.timing = replace(tampered.timing, median_ms=fastest / 100, samples=None, aa=None)
    kept = [r for r in recorded.results if r is not rank1]
    results = Results(recorded.path, recorded.header, [*kept, tampered], recorded.end)
    return results, tampered, kernels


def test_a_deliberately_different_form_is_never_the_best_triton(recorded: Results) -> None:
    results, tampered, kernels = _fastest_rank1(recorded)
    m = Measured(results)
    assert m.deliberately_different(tampered)
    candidates = m.timed_of(kernels, tampered.problem, "triton", "fp32")
    assert tampered in candidates, "the form is still measured and shown"
    best = m.best(candidates)
    assert best is not None and best.result is not tampered
    assert not m.deliberately_different(best.result)


def test_the_same_record_unlabelled_would_be_the_best(recorded: Results, monkeypatch: pytest.MonkeyPatch) -> None:
    """The exclusion is what keeps it out: without the registry's label the fastest record wins."""
    results, tampered, kernels = _fastest_rank1(recorded)
    m = Measured(results)
    monkeypatch.setattr(Measured, "deliberately_different", lambda self, r: False)
    best = m.best(m.timed_of(kernels, tampered.problem, "triton", "fp32"))
    assert best is not None and best.result is tampered
