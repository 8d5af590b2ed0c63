"""The committed GPU runs the report and findings tests read (results/*.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The committed H100 run the README shows, whose figures the page and sentence tests were reviewed on (pinned: those
# tests hold this file's numbers, not whichever run is newest).
H100_RUN = REPO / "results" / "nvidia-h100-80gb-hbm3-20261127T012026Z.jsonl"


def recorded_gpu_run() -> Path | None:
    """The newest committed full GPU run: a results file whose run header says gpu, whose command chose no subset,
    and which is no A/A control."""
    for path in sorted((REPO / "results").glob("*.jsonl"), reverse=True):
        header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        if full_gpu_run(header):
            return path
    return None


def recorded_run_before_the_scaled_layer() -> Path | None:
    """The newest committed full GPU run none of whose records has a scaled-layer verdict (an older file)."""
    for path in sorted((REPO / "results").glob("*.jsonl"), reverse=True):
        text = path.read_text(encoding="utf-8")
        header = json.loads(text.splitlines()[0])
        if full_gpu_run(header) and '"scaled"' not in text:
            return path
    return None


def full_gpu_run(header: dict) -> bool:
    """A GPU run whose command chose no subset, is no A/A control, no user's pair and no sustained pass."""
    return header.get("mode") == "gpu" and not {"--only", "--sweep", "--shape", "--aa", "--pair", "--regime"} & set(
        header.get("argv", []))


def with_rounds(results, jitter: float = 0.001):
    """A file of single bursts given made-up interleaved rounds around each timed record's median (10 rounds of 5
    runs, one batch, a deterministic jitter of +-`jitter`), so the tests of what the report says under a verdict
    (a cause only for a decided difference, a tie said as a tie) can read the committed runs whose counters they
    were reviewed on. The calls are the medians' order; nothing here is a measurement."""
    import dataclasses

    from harness.measure.timing import Samples
    from harness.records.file import Results

    out = []
    for r in results.results:
        if r.timed:
            base = r.timing.median_ms
            ms = [base * (1 + jitter * ((i * 7919) % 11 - 5) / 5) for i in range(50)]
            samples = Samples(ms, [1980.0] * 50, [5] * 10, list(range(10)), "made-up rounds", 1980.0)
            r = dataclasses.replace(r, timing=dataclasses.replace(r.timing, samples=samples))
        out.append(r)
    return Results(results.path, results.header, out, results.end)
