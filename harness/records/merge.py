"""Join the results files of one run's shards (or of several hosts) into one file.

Shards of one run agree on the device type and the suite's versions; mixing them would put figures
of different machines in one table, so that is refused unless asked for. Every shard measures the
baselines of the problems it holds, so a problem split over shards has several cuBLAS records: the
merged file keeps the first, and a kernel's % of cuBLAS stays the one measured beside it.
"""

from __future__ import annotations

from pathlib import Path

from harness.records.file import ResultsWriter, load
from harness.records.lines import Result, RunEnd, RunHeader, Status, now


def merge(paths: list[Path], out: Path, allow_mixed: bool = False) -> Path:
    if not paths:
        raise ValueError("merge: no files given")
    if out.exists():
        raise ValueError(f"merge: {out} exists; give a new file name")
    loaded = [load(p) for p in paths]
    first = loaded[0].header
    if not allow_mixed:
        for r in loaded[1:]:
            h = r.header
            if h.device != first.device or h.mode != first.mode:
                raise ValueError(f"merge: {r.path} was measured on {h.device!r} ({h.mode}), {paths[0]} on "
                                 f"{first.device!r} ({first.mode}); pass --allow-mixed to join them anyway")
            if h.versions != first.versions:
                raise ValueError(f"merge: {r.path} has versions {h.versions}, {paths[0]} has {first.versions}; "
                                 f"pass --allow-mixed to join them anyway")
    seen: set[tuple] = set()
    results: list[Result] = []
    for r in loaded:
        for rec in r.results:
            if rec.key in seen:  # a baseline measured by several shards, or a file given twice
                continue
            seen.add(rec.key)
            results.append(rec)
    problems = list(dict.fromkeys(p for r in loaded for p in r.header.problems))
    devices = sorted({d for r in loaded for d in (r.header.devices or [r.header.device])})
    header = RunHeader(started=min(r.header.started for r in loaded), mode=first.mode, device=first.device,
                       versions=first.versions, argv=first.argv, seed=first.seed, problems=problems,
                       rep_ms=first.rep_ms, sms=first.sms, l2_bytes=first.l2_bytes, peaks=first.peaks,
                       devices=devices if len(devices) > 1 else None,
                       peaks_by_device={k: p for r in loaded for k, p in _peaks_of(r.header).items()} or None,
                       timeout_s=first.timeout_s, rounds=first.rounds, aa=first.aa)
    with ResultsWriter(out) as w:
        w.write(header)
        for rec in results:
            w.write(rec)
        w.write(RunEnd(now(), sum(rec.status is Status.FAILED for rec in results), len(results)))
    return out


def _peaks_of(header: RunHeader) -> dict:
    """A file's peaks per GPU, named by its shard too: shards on different hosts may hold GPUs of one name."""
    peaks = header.peaks_by_device or ({header.device: header.peaks} if header.peaks else {})
    return {f"{name} (shard {header.shard})" if header.shard else name: p for name, p in peaks.items()}
